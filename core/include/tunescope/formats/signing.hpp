#pragma once
// Ed25519 signatures over profiles, through OpenSSL 3 EVP. A signature is a DSSE envelope
// (secure-systems-lab/dsse) beside the profile, PROFILE.sig.json, whose payload is the RFC 8785 canonical form
// of the profile: re-indenting or reordering keys keeps the signature, changing any value breaks it.
// Key files are PEM: NAME.pem (PKCS#8, optionally passphrase-encrypted, mode 0600) and NAME.pub.pem
// (SubjectPublicKeyInfo). A key id is the first 16 hex digits of SHA-256 over the raw 32-byte public key.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tunescope {

// DSSE payloadType of a signed profile. It is inside the signed bytes (PAE), so a signature made for another
// kind of document cannot be passed off as a profile signature.
inline constexpr std::string_view kProfilePayloadType = "application/vnd.tunescope.profile+json";
// A cuBLASLt policy ("format": "tunescope-cublaslt-policy-v1") is signed under kCublasLtPolicyPayloadType
// (cublaslt_policy.hpp) instead, the manifest of an FLA_CONFIG_DIR ("format": "tunescope-fla-config-dir-v1") under
// kFlaConfigDirPayloadType (fla_config_dir.hpp); every other JSON document under kProfilePayloadType, as before.

struct KeyPairFiles {
    std::filesystem::path privateKeyFile;  // NAME.pem, mode 0600
    std::filesystem::path publicKeyFile;   // NAME.pub.pem
    std::string keyId;                     // 16 lowercase hex digits
    bool encrypted = false;
};

// Creates an Ed25519 key pair as NAME.pem and NAME.pub.pem. With a passphrase file the private key is
// encrypted (PKCS#8 PBES2: scrypt N=16384 r=8 p=1, AES-256-CBC). Refuses to replace existing key files unless
// `overwrite`. Throws Error naming the file on any I/O problem.
KeyPairFiles generateKeyPair(const std::filesystem::path& name,
                             const std::optional<std::filesystem::path>& passphraseFile = std::nullopt,
                             bool overwrite = false);

// The same with a passphrase held in memory (the GUI's dialog), so it is never written to disk; empty means none.
// The core wipes the copies it makes (OPENSSL_cleanse); the caller wipes its own.
KeyPairFiles generateKeyPairWithPassphrase(const std::filesystem::path& name, std::string_view passphrase,
                                           bool overwrite = false);

// Reads a passphrase file: its bytes minus one trailing newline. Throws Error when missing, empty or > 1 KiB.
std::string readPassphraseFile(const std::filesystem::path& file);

// Warnings for a private key or passphrase file that others can read (a regular file with group/other read bits).
std::vector<std::string> secretFileWarnings(const std::filesystem::path& privateKeyFile,
                                            const std::optional<std::filesystem::path>& passphraseFile);

// Key id of a public key file (NAME.pub.pem). Throws Error when it is not an Ed25519 public key.
std::string keyIdOfPublicKeyFile(const std::filesystem::path& publicKeyFile);

// Where a profile's signature lives by default: the profile path with ".sig.json" appended.
std::filesystem::path defaultSignaturePath(const std::filesystem::path& profile);

struct SignResult {
    std::filesystem::path signatureFile;
    std::string keyId;
    std::string canonicalSha256;  // SHA-256 of the signed canonical bytes (= `hash --canonical PROFILE`)
};

// Signs the profile's canonical bytes and writes the envelope atomically (default: defaultSignaturePath).
// Throws Error for unreadable/non-canonicalisable profiles, bad key files, an encrypted key without or with the
// wrong passphrase.
SignResult signProfile(const std::filesystem::path& profile, const std::filesystem::path& privateKeyFile,
                       const std::optional<std::filesystem::path>& passphraseFile = std::nullopt,
                       const std::optional<std::filesystem::path>& signatureFile = std::nullopt);

// The same with a passphrase held in memory (see generateKeyPairWithPassphrase); empty means none.
SignResult signProfileWithPassphrase(const std::filesystem::path& profile, const std::filesystem::path& privateKeyFile,
                                     std::string_view passphrase,
                                     const std::optional<std::filesystem::path>& signatureFile = std::nullopt);

struct VerifyResult {
    bool ok = false;
    std::string keyId;   // id of the public key the check used
    std::string reason;  // why it failed (empty when ok)
};

// Checks the envelope against the public key and the profile as it is now. Anything wrong with the envelope
// (not JSON, wrong payloadType, malformed base64, signature by another key, tampered payload, profile changed
// since signing) is a failed VerifyResult with a reason. Throws Error only when a file cannot be used at all:
// missing/unreadable profile, signature file or public key, or a profile that has no canonical form.
VerifyResult verifyProfile(const std::filesystem::path& profile, const std::filesystem::path& publicKeyFile,
                           const std::optional<std::filesystem::path>& signatureFile = std::nullopt);

// What the GUI shows when it opens a profile. Never throws.
struct SignatureStatus {
    std::filesystem::path signatureFile;     // PROFILE.sig.json
    bool signatureFound = false;             // the file exists
    std::vector<std::string> claimedKeyIds;  // keyid fields of the envelope: unauthenticated hints
    bool checked = false;                    // a public key was given and the check ran to a verdict
    VerifyResult verification;               // the verdict when checked
    std::string problem;                     // why no verdict could be given (unreadable files, bad key file)
};

// Looks for PROFILE.sig.json beside the profile; with a public key, verifies it; without one, reports only the
// key ids the envelope names.
SignatureStatus inspectProfileSignature(const std::filesystem::path& profile,
                                        const std::optional<std::filesystem::path>& publicKeyFile = std::nullopt) noexcept;

// DSSE pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body (LEN in decimal bytes).
std::string dssePreAuthEncoding(std::string_view payloadType, std::string_view payload);

// Standard base64 with padding.
std::string base64Encode(std::string_view bytes);
// Accepts the standard and URL-safe alphabets, with or without padding; nullopt for anything else.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace tunescope
