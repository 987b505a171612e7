// Signing from the GUI keeps the passphrase off the disk (issue 16, "Bad input and data safety" item 10): the
// signing actions hand it to the core in memory. inotify watches the temporary folder (TMPDIR, a fresh one), the
// key's folder and the profile's folder while the GUI's keygen and sign run: nothing may appear in the temporary
// folder, only the key files and the signature (with its atomic-write temporary) elsewhere, and no file left in
// any of them may hold the passphrase.
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "signingactions.hpp"
#include "tunescope/formats/signing.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

const QString kPassphrase = QStringLiteral("tunescope-test-passphrase-5f1c9e");

QString sample(const char* name) {
    return QDir(qEnvironmentVariable("TUNESCOPE_PROFILES")).filePath(QString::fromLatin1(name));
}

// Names created in (or moved into) watched folders, read after the fact from one inotify descriptor.
class FolderWatch {
public:
    FolderWatch() : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
    ~FolderWatch() {
        if (fd_ >= 0) ::close(fd_);
    }
    FolderWatch(const FolderWatch&) = delete;
    FolderWatch& operator=(const FolderWatch&) = delete;
    bool valid() const { return fd_ >= 0; }
    bool watch(const QString& folder) {
        const int wd = inotify_add_watch(fd_, QFile::encodeName(folder).constData(), IN_CREATE | IN_MOVED_TO);
        if (wd < 0) return false;
        folders_.append({wd, folder});
        return true;
    }
    // "folder/name" for every creation since the last call.
    QStringList created() {
        QStringList names;
        alignas(inotify_event) char buffer[16384];
        for (;;) {
            const ssize_t n = ::read(fd_, buffer, sizeof buffer);
            if (n <= 0) break;  // EAGAIN: nothing more queued
            for (ssize_t at = 0; at < n;) {
                const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
                QString folder;
                for (const auto& [wd, path] : folders_)
                    if (wd == event->wd) folder = path;
                names << folder + QLatin1Char('/') + QString::fromLocal8Bit(event->len ? event->name : "");
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            }
        }
        return names;
    }

private:
    int fd_;
    QList<std::pair<int, QString>> folders_;
};

// Files under `folder` whose bytes hold the passphrase, as UTF-8 or as UTF-16 (QString's own encoding).
QStringList filesHoldingPassphrase(const QString& folder) {
    const QByteArray utf8 = kPassphrase.toUtf8();
    const QByteArray utf16(reinterpret_cast<const char*>(kPassphrase.utf16()), kPassphrase.size() * 2);
    QStringList found;
    QDirIterator it(folder, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QByteArray bytes = file.readAll();
        if (bytes.contains(utf8) || bytes.contains(utf16)) found << path;
    }
    return found;
}

}  // namespace

class TestUiSigning : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(tempRoot.isValid());
        // QDir::tempPath() (QTemporaryDir, QTemporaryFile) follows TMPDIR: a fresh folder nothing else writes to.
        tempDir = tempRoot.filePath(QStringLiteral("tmp"));
        keyDir = tempRoot.filePath(QStringLiteral("keys"));
        profileDir = tempRoot.filePath(QStringLiteral("profile"));
        for (const QString& folder : {tempDir, keyDir, profileDir}) QVERIFY(QDir().mkpath(folder));
        qputenv("TMPDIR", QFile::encodeName(tempDir));
        QCOMPARE(QDir::tempPath(), tempDir);
        profilePath = QDir(profileDir).filePath(QStringLiteral("seed.json"));
        QVERIFY(QFile::copy(sample("fla-l2norm-gfx942-profile.json"), profilePath));
        QFile::setPermissions(profilePath, QFile::ReadOwner | QFile::WriteOwner);
    }

    void keygenAndSignWriteNoPassphraseAnywhere() {
        FolderWatch watch;
        QVERIFY(watch.valid());
        for (const QString& folder : {tempDir, keyDir, profileDir}) QVERIFY(watch.watch(folder));

        const QString keyBase = QDir(keyDir).filePath(QStringLiteral("signer"));
        QString error;
        const QString keyId = generateKeys(keyBase, kPassphrase, &error);
        QVERIFY2(!keyId.isEmpty(), qPrintable(error));
        QVERIFY(privateKeyIsEncrypted(keyBase + QStringLiteral(".pem")));
        const QString signature = signProfileWithKey(profilePath, keyBase + QStringLiteral(".pem"), kPassphrase, &error);
        QVERIFY2(!signature.isEmpty(), qPrintable(error));

        // The signature holds with the public key, so the passphrase really reached the core.
        const VerifyResult verified = verifyProfile(profilePath.toStdString(), QString(keyBase + QStringLiteral(".pub.pem")).toStdString());
        QVERIFY2(verified.ok, verified.reason.c_str());
        QCOMPARE(QString::fromStdString(verified.keyId), keyId);

        const QStringList created = watch.created();
        QVERIFY(!created.isEmpty());  // the watch sees the key files and the signature, so it works
        for (const QString& path : created) {
            QString name = QFileInfo(path).fileName();
            if (name.startsWith(QLatin1Char('.'))) name.remove(0, 1);  // the atomic write's ".NAME.tmp-..."
            QVERIFY2(!path.startsWith(tempDir + QLatin1Char('/')),
                     qPrintable(QStringLiteral("signing created %1 in the temporary folder").arg(path)));
            if (path.startsWith(keyDir + QLatin1Char('/')))
                QVERIFY2(name.startsWith(QStringLiteral("signer.")), qPrintable(path));
            else
                QVERIFY2(name.startsWith(QStringLiteral("seed.json.sig.json")), qPrintable(path));
        }
        for (const QString& folder : {tempDir, keyDir, profileDir}) {
            const QStringList leaks = filesHoldingPassphrase(folder);
            QVERIFY2(leaks.isEmpty(), qPrintable(leaks.join(QStringLiteral(", "))));
        }
    }

    void wrongOrMissingPassphraseIsRefused() {
        const QString key = QDir(keyDir).filePath(QStringLiteral("signer.pem"));
        QVERIFY(QFile::exists(key));
        QString error;
        QVERIFY(signProfileWithKey(profilePath, key, QStringLiteral("not the passphrase"), &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("wrong passphrase")) && error.contains(key), qPrintable(error));
        error.clear();
        QVERIFY(signProfileWithKey(profilePath, key, QString(), &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("encrypted")) && !error.contains(QStringLiteral("--passphrase-file")),
                 qPrintable(error));
    }

    // A key made without a passphrase signs without one, in memory as well.
    void unencryptedKeySignsWithoutPassphrase() {
        const QString keyBase = QDir(keyDir).filePath(QStringLiteral("plain"));
        QString error;
        QVERIFY2(!generateKeys(keyBase, QString(), &error).isEmpty(), qPrintable(error));
        QVERIFY(!privateKeyIsEncrypted(keyBase + QStringLiteral(".pem")));
        QVERIFY2(!signProfileWithKey(profilePath, keyBase + QStringLiteral(".pem"), QString(), &error).isEmpty(),
                 qPrintable(error));
        QVERIFY(verifyProfile(profilePath.toStdString(), QString(keyBase + QStringLiteral(".pub.pem")).toStdString()).ok);
    }

private:
    QTemporaryDir tempRoot;
    QString tempDir, keyDir, profileDir, profilePath;
};

QTEST_MAIN(TestUiSigning)
#include "tst_ui_signing.moc"
