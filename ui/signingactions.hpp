#pragma once
// Hash, sign and verify from the UI, through the core's hashing, canonical JSON and signing. Public keys the user
// trusts are remembered (QSettings) so that opening a signed profile can say who signed it and whether the
// signature holds.
#include <QString>
#include <QStringList>

class QWidget;

namespace tunescope::ui {

struct SignatureSummary {
    enum class State { NotSigned, Good, Bad, UnknownKey, Problem } state = State::NotSigned;
    QString text;   // one line for the banner and the status bar
    QString keyId;  // the key that verified it, or the first key id the envelope claims
};

// Inspects PROFILE.sig.json beside the profile; when the envelope names a key id that one of `trustedKeys` (public
// key files) has, verifies it with that key.
SignatureSummary summarizeSignature(const QString& profilePath, const QStringList& trustedKeys);

// The SHA-256 of the file and of its RFC 8785 canonical form (and of the editor's unsaved state when given).
QString hashReport(const QString& profilePath, const QString& unsavedCanonicalSha256 = {});

// Signs with a private key file; `passphrase` is used only when the key is encrypted. Returns the signature file
// path, or empty with `error` set.
QString signProfileWithKey(const QString& profilePath, const QString& privateKey, const QString& passphrase,
                           QString* error);
// Whether a private key file is passphrase-encrypted (PKCS#8 "ENCRYPTED PRIVATE KEY").
bool privateKeyIsEncrypted(const QString& privateKey);
// Creates NAME.pem / NAME.pub.pem; returns the key id, or empty with `error` set.
QString generateKeys(const QString& baseName, const QString& passphrase, QString* error);

// Remembered public keys.
QStringList trustedPublicKeys();
void setTrustedPublicKeys(const QStringList& files);

// The dialogs behind the Signing menu.
void showHashDialog(QWidget* parent, const QString& profilePath, const QString& unsavedCanonicalSha256);
QString signDialog(QWidget* parent, const QString& profilePath);  // returns the signature file or empty
void verifyDialog(QWidget* parent, const QString& profilePath);
void keygenDialog(QWidget* parent);
void trustedKeysDialog(QWidget* parent);

}  // namespace tunescope::ui
