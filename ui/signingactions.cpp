#include "signingactions.hpp"

#include <string_view>

#include <openssl/crypto.h>

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/signing.hpp"

namespace tunescope::ui {
namespace {

const QString kTrustedKeysSetting = QStringLiteral("signing/trustedPublicKeys");

QString tr(const char* text) { return QCoreApplication::translate("Signing", text); }

// The dialog's passphrase as UTF-8 for the core's in-memory signing calls: never written to disk (issue 16), and
// wiped when the call returns.
class PassphraseBytes {
public:
    explicit PassphraseBytes(const QString& passphrase) : bytes_(passphrase.toUtf8()) {}
    ~PassphraseBytes() {
        if (!bytes_.isEmpty()) OPENSSL_cleanse(bytes_.data(), static_cast<std::size_t>(bytes_.size()));
    }
    PassphraseBytes(const PassphraseBytes&) = delete;
    PassphraseBytes& operator=(const PassphraseBytes&) = delete;
    std::string_view view() const { return {bytes_.constData(), static_cast<std::size_t>(bytes_.size())}; }

private:
    QByteArray bytes_;
};

// A passphrase typed into a dialog, wiped when it goes out of scope (when its buffer is not shared with another
// QString: data() would copy a shared one instead of wiping it).
struct DialogPassphrase {
    QString text;
    DialogPassphrase() = default;
    DialogPassphrase(const DialogPassphrase&) = delete;
    DialogPassphrase& operator=(const DialogPassphrase&) = delete;
    ~DialogPassphrase() {
        if (!text.isEmpty() && text.isDetached())
            OPENSSL_cleanse(text.data(), static_cast<std::size_t>(text.size()) * sizeof(QChar));
    }
};

}  // namespace

QStringList trustedPublicKeys() { return QSettings().value(kTrustedKeysSetting).toStringList(); }

void setTrustedPublicKeys(const QStringList& files) { QSettings().setValue(kTrustedKeysSetting, files); }

SignatureSummary summarizeSignature(const QString& profilePath, const QStringList& trustedKeys) {
    SignatureSummary summary;
    const std::filesystem::path profile = profilePath.toStdString();
    SignatureStatus status = inspectProfileSignature(profile);
    if (!status.signatureFound) {
        summary.text = tr("Not signed (no %1 beside it).").arg(QFileInfo(QString::fromStdString(status.signatureFile.string())).fileName());
        return summary;
    }
    if (!status.problem.empty() && status.claimedKeyIds.empty()) {
        summary.state = SignatureSummary::State::Problem;
        summary.text = tr("Signature file cannot be used: %1").arg(QString::fromStdString(status.problem));
        return summary;
    }
    QStringList claimed;
    for (const auto& id : status.claimedKeyIds) claimed << QString::fromStdString(id);
    summary.keyId = claimed.value(0);
    for (const QString& keyFile : trustedKeys) {
        QString id;
        try {
            id = QString::fromStdString(keyIdOfPublicKeyFile(keyFile.toStdString()));
        } catch (const std::exception&) {
            continue;  // a trusted key file that went missing is skipped, not fatal
        }
        if (!claimed.contains(id)) continue;
        SignatureStatus checked = inspectProfileSignature(profile, std::filesystem::path(keyFile.toStdString()));
        summary.keyId = id;
        if (checked.checked && checked.verification.ok) {
            summary.state = SignatureSummary::State::Good;
            summary.text = tr("Signed by key %1 (%2): the signature holds for the file on disk.")
                               .arg(id, QFileInfo(keyFile).fileName());
        } else {
            summary.state = SignatureSummary::State::Bad;
            const std::string reason = checked.checked ? checked.verification.reason : checked.problem;
            summary.text = tr("Signed by key %1 (%2), but the signature does NOT hold: %3")
                               .arg(id, QFileInfo(keyFile).fileName(), QString::fromStdString(reason));
        }
        return summary;
    }
    summary.state = SignatureSummary::State::UnknownKey;
    summary.text = tr("Signed by key %1, which is not among your trusted public keys: add it (Signing > Trusted "
                      "public keys) to check the signature.")
                       .arg(claimed.isEmpty() ? tr("(no key id)") : claimed.join(QStringLiteral(", ")));
    return summary;
}

QString hashReport(const QString& profilePath, const QString& unsavedCanonicalSha256) {
    QString text;
    const std::filesystem::path path = profilePath.toStdString();
    try {
        text += tr("File: %1\nSHA-256 of the bytes:     %2\n").arg(profilePath, QString::fromStdString(sha256FileHex(path)));
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    try {
        text += tr("SHA-256 of RFC 8785 form: %1\n").arg(QString::fromStdString(sha256Hex(canonicalizeJsonFile(path))));
    } catch (const std::exception& e) {
        text += tr("Canonical form: %1\n").arg(QString::fromStdString(e.what()));
    }
    if (!unsavedCanonicalSha256.isEmpty())
        text += tr("Editor (unsaved edits), RFC 8785: %1\n").arg(unsavedCanonicalSha256);
    return text;
}

bool privateKeyIsEncrypted(const QString& privateKey) {
    QFile file(privateKey);
    if (!file.open(QIODevice::ReadOnly)) return false;
    return file.read(4096).contains("ENCRYPTED");
}

QString signProfileWithKey(const QString& profilePath, const QString& privateKey, const QString& passphrase,
                           QString* error) {
    try {
        const PassphraseBytes pass(passphrase);
        const SignResult result = signProfileWithPassphrase(profilePath.toStdString(), privateKey.toStdString(), pass.view());
        return QString::fromStdString(result.signatureFile.string());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return {};
    }
}

QString generateKeys(const QString& baseName, const QString& passphrase, QString* error) {
    try {
        const PassphraseBytes pass(passphrase);
        const KeyPairFiles files = generateKeyPairWithPassphrase(baseName.toStdString(), pass.view());
        return QString::fromStdString(files.keyId);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return {};
    }
}

void showHashDialog(QWidget* parent, const QString& profilePath, const QString& unsavedCanonicalSha256) {
    QDialog dialog(parent);
    dialog.setWindowTitle(tr("SHA-256 and canonical digest"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* text = new QPlainTextEdit(hashReport(profilePath, unsavedCanonicalSha256), &dialog);
    text->setReadOnly(true);
    text->setFont(QFont(QStringLiteral("monospace")));
    text->setMinimumWidth(760);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.exec();
}

QString signDialog(QWidget* parent, const QString& profilePath) {
    const QString key = QFileDialog::getOpenFileName(parent, tr("Private key to sign with"), QString(),
                                                     tr("Private keys (*.pem);;All files (*)"));
    if (key.isEmpty()) return {};
    DialogPassphrase passphrase;
    if (privateKeyIsEncrypted(key)) {
        bool ok = false;
        passphrase.text = QInputDialog::getText(parent, tr("Passphrase"),
                                                tr("Passphrase for %1:").arg(QFileInfo(key).fileName()),
                                                QLineEdit::Password, QString(), &ok);
        if (!ok) return {};
    }
    QString error;
    const QString signature = signProfileWithKey(profilePath, key, passphrase.text, &error);
    if (signature.isEmpty())
        QMessageBox::warning(parent, tr("Sign profile"), error);
    else
        QMessageBox::information(parent, tr("Sign profile"), tr("Signature written to %1").arg(signature));
    return signature;
}

void verifyDialog(QWidget* parent, const QString& profilePath) {
    const QString key = QFileDialog::getOpenFileName(parent, tr("Public key to verify with"), QString(),
                                                     tr("Public keys (*.pub.pem *.pem);;All files (*)"));
    if (key.isEmpty()) return;
    try {
        const VerifyResult result = verifyProfile(profilePath.toStdString(), key.toStdString());
        if (result.ok) {
            const auto answer = QMessageBox::question(
                parent, tr("Verify signature"),
                tr("The signature holds: signed by key %1.\n\nTrust this public key for profiles you open later?")
                    .arg(QString::fromStdString(result.keyId)));
            if (answer == QMessageBox::Yes) {
                QStringList keys = trustedPublicKeys();
                if (!keys.contains(key)) keys << key;
                setTrustedPublicKeys(keys);
            }
        } else {
            QMessageBox::warning(parent, tr("Verify signature"),
                                 tr("The signature does NOT hold (key %1): %2")
                                     .arg(QString::fromStdString(result.keyId), QString::fromStdString(result.reason)));
        }
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, tr("Verify signature"), QString::fromStdString(e.what()));
    }
}

void keygenDialog(QWidget* parent) {
    const QString base = QFileDialog::getSaveFileName(parent, tr("Key pair name (NAME.pem and NAME.pub.pem)"));
    if (base.isEmpty()) return;
    bool ok = false;
    DialogPassphrase pass;
    pass.text = QInputDialog::getText(parent, tr("Passphrase"),
                                      tr("Passphrase to encrypt the private key (empty: unencrypted):"),
                                      QLineEdit::Password, QString(), &ok);
    if (!ok) return;
    if (!pass.text.isEmpty()) {
        DialogPassphrase again;
        again.text = QInputDialog::getText(parent, tr("Passphrase"), tr("The same passphrase again:"),
                                           QLineEdit::Password, QString(), &ok);
        if (!ok) return;
        if (again.text != pass.text) {
            QMessageBox::warning(parent, tr("Generate key pair"), tr("The passphrases differ; no key was written."));
            return;
        }
    }
    QString error;
    const QString id = generateKeys(base, pass.text, &error);
    if (id.isEmpty()) {
        QMessageBox::warning(parent, tr("Generate key pair"), error);
        return;
    }
    QStringList keys = trustedPublicKeys();
    const QString pub = base + QStringLiteral(".pub.pem");
    if (!keys.contains(pub)) keys << pub;
    setTrustedPublicKeys(keys);
    QMessageBox::information(parent, tr("Generate key pair"),
                             tr("Key %1 written: %2.pem (private, mode 0600) and %3 (public, now trusted).").arg(id, base, pub));
}

void trustedKeysDialog(QWidget* parent) {
    QDialog dialog(parent);
    dialog.setWindowTitle(tr("Trusted public keys"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Opening a signed profile verifies it with the key among these whose id the "
                                    "signature names."),
                                 &dialog));
    auto* list = new QListWidget(&dialog);
    for (const QString& key : trustedPublicKeys()) {
        QString id;
        try {
            id = QString::fromStdString(keyIdOfPublicKeyFile(key.toStdString()));
        } catch (const std::exception& e) {
            id = tr("unusable: %1").arg(QString::fromStdString(e.what()));
        }
        auto* item = new QListWidgetItem(key + QStringLiteral("  [") + id + QLatin1Char(']'), list);
        item->setData(Qt::UserRole, key);
    }
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    auto* add = buttons->addButton(tr("Add..."), QDialogButtonBox::ActionRole);
    auto* remove = buttons->addButton(tr("Remove"), QDialogButtonBox::ActionRole);
    QObject::connect(add, &QPushButton::clicked, &dialog, [&dialog, list] {
        const QString key = QFileDialog::getOpenFileName(&dialog, tr("Public key"), QString(), tr("Public keys (*.pem)"));
        if (key.isEmpty()) return;
        try {
            const QString id = QString::fromStdString(keyIdOfPublicKeyFile(key.toStdString()));
            auto* item = new QListWidgetItem(key + QStringLiteral("  [") + id + QLatin1Char(']'), list);
            item->setData(Qt::UserRole, key);
        } catch (const std::exception& e) {
            QMessageBox::warning(&dialog, tr("Trusted public keys"), QString::fromStdString(e.what()));
        }
    });
    QObject::connect(remove, &QPushButton::clicked, list, [list] { delete list->currentItem(); });
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted) return;
    QStringList keys;
    for (int row = 0; row < list->count(); ++row) keys << list->item(row)->data(Qt::UserRole).toString();
    setTrustedPublicKeys(keys);
}

}  // namespace tunescope::ui
