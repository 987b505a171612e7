#include "tunescope/formats/signing.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"
#include "tunescope/formats/fla_config_dir.hpp"

namespace tunescope {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kEd25519PublicKeyBytes = 32;
constexpr std::size_t kEd25519SignatureBytes = 64;
constexpr std::uintmax_t kMaxKeyFileBytes = 64 << 10;
constexpr std::uintmax_t kMaxEnvelopeBytes = 128ull << 20;  // the payload is the whole profile, base64'd
// scrypt cost for encrypted keys: OpenSSL's own defaults for `openssl pkcs8 -scrypt`, and within the 32 MiB
// that OpenSSL allows scrypt when it decrypts a PEM key.
constexpr std::uint64_t kScryptN = 16384, kScryptR = 8, kScryptP = 1;

struct PkeyDeleter { void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); } };
struct BioDeleter { void operator()(BIO* bio) const { BIO_free(bio); } };
struct MdCtxDeleter { void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); } };
struct P8InfoDeleter { void operator()(PKCS8_PRIV_KEY_INFO* info) const { PKCS8_PRIV_KEY_INFO_free(info); } };
struct X509SigDeleter { void operator()(X509_SIG* sig) const { X509_SIG_free(sig); } };
struct AlgorDeleter { void operator()(X509_ALGOR* algor) const { X509_ALGOR_free(algor); } };
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using Bio = std::unique_ptr<BIO, BioDeleter>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

// Wipes secrets (passphrases, PEM text of private keys) when they go out of scope.
struct SecretString {
    std::string value;
    ~SecretString() {
        if (!value.empty()) OPENSSL_cleanse(value.data(), value.size());
    }
};

// The first queued OpenSSL error as text, and the queue cleared so it cannot leak into a later message.
std::string takeOpenSslError() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "";
    char buffer[256] = {0};
    ERR_error_string_n(code, buffer, sizeof buffer);
    return buffer;
}

std::string withOpenSslDetail(std::string message) {
    const std::string detail = takeOpenSslError();
    return detail.empty() ? message : message + " (" + detail + ")";
}

std::string bioContents(BIO* bio) {
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

Bio memoryBioOver(const std::string& bytes) {
    Bio bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
    if (!bio) throw Error("", "", withOpenSslDetail("out of memory"));
    return bio;
}

std::string keyIdOf(EVP_PKEY* key) {
    unsigned char raw[kEd25519PublicKeyBytes];
    std::size_t length = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key, raw, &length) != 1 || length != kEd25519PublicKeyBytes)
        throw Error("", "", withOpenSslDetail("cannot read the raw Ed25519 public key"));
    return sha256Hex(std::string_view(reinterpret_cast<const char*>(raw), length)).substr(0, 16);
}

void requireEd25519(EVP_PKEY* key, const std::string& file) {
    if (EVP_PKEY_is_a(key, "ED25519") != 1) {
        const char* type = EVP_PKEY_get0_type_name(key);
        throw Error(file, "", std::string("is a ") + (type ? type : "non-Ed25519") +
                                  " key; TuneScope signs with Ed25519 keys only (make one with tunescope-cli keygen)");
    }
}

struct PassphraseRequest {
    const std::string* passphrase = nullptr;
    bool asked = false;
    bool tooLong = false;
};

// OpenSSL asks through this callback only when the key is encrypted; it never prompts on a terminal.
int supplyPassphrase(char* buffer, int size, int /*rwflag*/, void* userData) {
    auto* request = static_cast<PassphraseRequest*>(userData);
    request->asked = true;
    if (request->passphrase == nullptr) return -1;
    if (request->passphrase->size() > static_cast<std::size_t>(size)) {
        request->tooLong = true;
        return -1;
    }
    std::copy(request->passphrase->begin(), request->passphrase->end(), buffer);
    return static_cast<int>(request->passphrase->size());
}

// `passphrase` is null when none was given; `hint` ends the message for that case (the CLI names its option).
Pkey loadPrivateKey(const fs::path& file, const std::string* passphrase, const char* hint) {
    const std::string name = file.string();
    SecretString pem{readTextFile(file, kMaxKeyFileBytes)};
    PassphraseRequest request{passphrase};
    Bio bio = memoryBioOver(pem.value);
    Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, supplyPassphrase, &request));
    if (!key) {
        const std::string detail = takeOpenSslError();
        if (request.asked && passphrase == nullptr)
            throw Error(name, "", std::string("the private key is encrypted") + hint);
        if (request.tooLong) throw Error(name, "", "the passphrase is longer than OpenSSL accepts");
        if (request.asked)
            throw Error(name, "", "cannot decrypt the private key: wrong passphrase (or a damaged key file)");
        if (pem.value.find("PUBLIC KEY-----") != std::string::npos)
            throw Error(name, "", "is a public key; signing needs the private key (NAME.pem, not NAME.pub.pem)");
        throw Error(name, "", "is not a PEM private key" + (detail.empty() ? std::string() : " (" + detail + ")"));
    }
    requireEd25519(key.get(), name);
    return key;
}

Pkey loadPublicKey(const fs::path& file) {
    const std::string name = file.string();
    const std::string pem = readTextFile(file, kMaxKeyFileBytes);
    Bio bio = memoryBioOver(pem);
    Pkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    if (!key) {
        const std::string detail = takeOpenSslError();
        if (pem.find("PRIVATE KEY-----") != std::string::npos)
            throw Error(name, "", "is a private key; verifying needs the public key (NAME.pub.pem)");
        throw Error(name, "", "is not a PEM public key" + (detail.empty() ? std::string() : " (" + detail + ")"));
    }
    requireEd25519(key.get(), name);
    return key;
}

std::string encodePrivateKey(EVP_PKEY* key, const std::string* passphrase) {
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio) throw Error("", "", withOpenSslDetail("out of memory"));
    if (passphrase == nullptr) {
        if (PEM_write_bio_PKCS8PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
            throw Error("", "", withOpenSslDetail("cannot encode the private key"));
    } else {
        // PKCS#8 EncryptedPrivateKeyInfo with PBES2 = scrypt + AES-256-CBC, as `openssl pkcs8 -topk8 -scrypt` makes.
        std::unique_ptr<PKCS8_PRIV_KEY_INFO, P8InfoDeleter> info(EVP_PKEY2PKCS8(key));
        if (!info) throw Error("", "", withOpenSslDetail("cannot encode the private key"));
        std::unique_ptr<X509_ALGOR, AlgorDeleter> pbe(
            PKCS5_pbe2_set_scrypt(EVP_aes_256_cbc(), nullptr, 0, nullptr, kScryptN, kScryptR, kScryptP));
        if (!pbe) throw Error("", "", withOpenSslDetail("cannot set up scrypt key encryption"));
        std::unique_ptr<X509_SIG, X509SigDeleter> encrypted(
            PKCS8_set0_pbe(passphrase->data(), static_cast<int>(passphrase->size()), info.get(), pbe.get()));
        if (!encrypted) throw Error("", "", withOpenSslDetail("cannot encrypt the private key"));
        pbe.release();  // owned by `encrypted` now
        if (PEM_write_bio_PKCS8(bio.get(), encrypted.get()) != 1)
            throw Error("", "", withOpenSslDetail("cannot encode the encrypted private key"));
    }
    return bioContents(bio.get());
}

std::string encodePublicKey(EVP_PKEY* key) {
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PUBKEY(bio.get(), key) != 1)
        throw Error("", "", withOpenSslDetail("cannot encode the public key"));
    return bioContents(bio.get());
}

std::string signBytes(EVP_PKEY* key, std::string_view message) {
    MdCtx ctx(EVP_MD_CTX_new());
    // Ed25519 is one-shot in OpenSSL: no digest (md = NULL) and a single EVP_DigestSign call.
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key) != 1)
        throw Error("", "", withOpenSslDetail("cannot start Ed25519 signing"));
    std::string signature(kEd25519SignatureBytes, '\0');
    std::size_t length = signature.size();
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
        length != kEd25519SignatureBytes)
        throw Error("", "", withOpenSslDetail("Ed25519 signing failed"));
    return signature;
}

bool verifyBytes(EVP_PKEY* key, std::string_view message, std::string_view signature) {
    MdCtx ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key) != 1)
        throw Error("", "", withOpenSslDetail("cannot start Ed25519 verification"));
    const int result = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                                        signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                                        message.size());
    ERR_clear_error();  // a bad signature queues an error that is not ours to report
    return result == 1;
}

// The first JSON Pointer where two values differ, to tell the user what changed since signing.
std::string firstDifference(const Json& signedValue, const Json& currentValue, const std::string& pointer) {
    if (signedValue.type() != currentValue.type()) return pointer.empty() ? "/" : pointer;
    if (signedValue.is_object()) {
        for (auto it = signedValue.begin(); it != signedValue.end(); ++it) {
            const std::string child = jsonPointerAppend(pointer, it.key());
            if (!currentValue.contains(it.key())) return child + " (removed)";
            const std::string found = firstDifference(it.value(), currentValue.at(it.key()), child);
            if (!found.empty()) return found;
        }
        for (auto it = currentValue.begin(); it != currentValue.end(); ++it)
            if (!signedValue.contains(it.key())) return jsonPointerAppend(pointer, it.key()) + " (added)";
        return "";
    }
    if (signedValue.is_array()) {
        const std::size_t common = std::min(signedValue.size(), currentValue.size());
        for (std::size_t i = 0; i < common; ++i) {
            const std::string found = firstDifference(signedValue[i], currentValue[i], jsonPointerAppend(pointer, i));
            if (!found.empty()) return found;
        }
        if (signedValue.size() != currentValue.size())
            return jsonPointerAppend(pointer, common) + (signedValue.size() > currentValue.size() ? " (removed)" : " (added)");
        return "";
    }
    return signedValue == currentValue ? "" : (pointer.empty() ? "/" : pointer);
}

// The payloadType a document of this kind is signed under (canonical bytes are valid JSON).
std::string_view payloadTypeOfCanonical(const std::string& canonical) {
    try {
        const Json document = parseJson(canonical, "");
        const Json format = document.is_object() ? document.value("format", Json()) : Json();
        if (format == Json(std::string(kCublasLtPolicyFormat))) return kCublasLtPolicyPayloadType;
        if (format == Json(std::string(kFlaConfigDirFormat))) return kFlaConfigDirPayloadType;
    } catch (const Error&) {
    }
    return kProfilePayloadType;
}

VerifyResult failure(const std::string& keyId, std::string reason) {
    return VerifyResult{false, keyId, std::move(reason)};
}

// Checks envelope text against the canonical bytes of the profile as it is now. Never throws for envelope content.
VerifyResult verifyEnvelope(const std::string& envelopeText, const std::string& signatureName,
                            const std::string& canonicalProfile, EVP_PKEY* publicKey) {
    const std::string keyId = keyIdOf(publicKey);
    Json envelope;
    try {
        envelope = parseJson(envelopeText, signatureName);
    } catch (const Error& e) {
        return failure(keyId, "the signature file is not valid JSON: " + e.message());
    }
    if (!envelope.is_object())
        return failure(keyId, "the signature file is not a DSSE envelope (expected a JSON object, found " +
                                  jsonTypeName(envelope) + ")");
    const auto typeIt = envelope.find("payloadType");
    if (typeIt == envelope.end() || !typeIt->is_string())
        return failure(keyId, "at /payloadType: missing or not a string");
    const std::string& payloadType = typeIt->get_ref<const std::string&>();
    const std::string_view expectedType = payloadTypeOfCanonical(canonicalProfile);
    const bool tuneScopeType = payloadType == kProfilePayloadType || payloadType == kCublasLtPolicyPayloadType ||
                               payloadType == kFlaConfigDirPayloadType;
    if (payloadType != expectedType)
        return failure(keyId, "at /payloadType: \"" + payloadType + "\" is not \"" + std::string(expectedType) + "\"; " +
                                  (tuneScopeType ? "a signature made for another kind of document"
                                                 : "this is not a TuneScope signature"));
    const auto payloadIt = envelope.find("payload");
    if (payloadIt == envelope.end() || !payloadIt->is_string()) return failure(keyId, "at /payload: missing or not a string");
    const std::optional<std::string> payload = base64Decode(payloadIt->get_ref<const std::string&>());
    if (!payload) return failure(keyId, "at /payload: not valid base64");
    const auto signaturesIt = envelope.find("signatures");
    if (signaturesIt == envelope.end() || !signaturesIt->is_array() || signaturesIt->empty())
        return failure(keyId, "at /signatures: missing, not an array, or empty");

    const std::string message = dssePreAuthEncoding(payloadType, *payload);
    std::string firstProblem;
    std::vector<std::string> otherKeyIds;
    bool verified = false;
    for (std::size_t i = 0; i < signaturesIt->size() && !verified; ++i) {
        const Json& entry = (*signaturesIt)[i];
        const std::string pointer = jsonPointerAppend("/signatures", i);
        if (!entry.is_object() || !entry.contains("sig") || !entry["sig"].is_string()) {
            if (firstProblem.empty()) firstProblem = "at " + pointer + ": not an object with a string \"sig\"";
            continue;
        }
        if (entry.contains("keyid") && entry["keyid"].is_string() && entry["keyid"].get<std::string>() != keyId)
            otherKeyIds.push_back(entry["keyid"].get<std::string>());
        const std::optional<std::string> signature = base64Decode(entry["sig"].get_ref<const std::string&>());
        if (!signature) {
            if (firstProblem.empty()) firstProblem = "at " + pointer + "/sig: not valid base64";
            continue;
        }
        if (signature->size() != kEd25519SignatureBytes) {
            if (firstProblem.empty())
                firstProblem = "at " + pointer + "/sig: " + std::to_string(signature->size()) +
                               " bytes, not a 64-byte Ed25519 signature";
            continue;
        }
        verified = verifyBytes(publicKey, message, *signature);
    }
    if (!verified) {
        if (!firstProblem.empty() && signaturesIt->size() == 1) return failure(keyId, firstProblem);
        std::string reason = "the signature does not verify with key " + keyId;
        if (!otherKeyIds.empty())
            reason += " (the envelope names key id " + otherKeyIds.front() + ": signed with another key?)";
        else
            reason += " (the signature or its payload was altered)";
        return failure(keyId, reason);
    }
    if (*payload != canonicalProfile) {
        std::string where;
        try {
            where = firstDifference(Json::parse(*payload), Json::parse(canonicalProfile), "");
        } catch (const nlohmann::json::exception&) {
        }
        return failure(keyId, "the profile has changed since it was signed" +
                                  (where.empty() ? std::string() : " (first change at " + where + ")"));
    }
    return VerifyResult{true, keyId, ""};
}

}  // namespace

std::string readPassphraseFile(const fs::path& file) {
    // A regular file, or a pipe, FIFO or descriptor (/dev/fd/3, <(pass show key)): the passphrase need never be
    // written to disk. Read in one pass, at most 1024 bytes, so a pipe that never ends is refused, not waited on.
    constexpr std::size_t kMaxPassphraseBytes = 1024;
    const std::string name = file.string();
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (ec || !fs::exists(status)) throw Error(name, "", "file not found");
    if (fs::is_directory(status)) throw Error(name, "", "is a folder, not a file");
    if (!fs::is_regular_file(status) && !fs::is_fifo(status) && !fs::is_character_file(status))
        throw Error(name, "", "is neither a file nor a pipe");
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(name, "", std::string("cannot open for reading: ") + std::strerror(errno));
    SecretString read;
    read.value.resize(kMaxPassphraseBytes + 1);
    std::size_t got = 0;
    while (got < read.value.size()) {
        const ssize_t n = ::read(fd, read.value.data() + got, read.value.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error(name, "", std::string("cannot read: ") + std::strerror(err));
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (got > kMaxPassphraseBytes)
        throw Error(name, "", "is over the limit of " + std::to_string(kMaxPassphraseBytes) + " bytes for a passphrase");
    std::string passphrase(read.value.data(), got);
    if (passphrase.size() >= 2 && passphrase.compare(passphrase.size() - 2, 2, "\r\n") == 0)
        passphrase.resize(passphrase.size() - 2);
    else if (!passphrase.empty() && passphrase.back() == '\n')
        passphrase.pop_back();
    if (passphrase.empty()) throw Error(file.string(), "", "the passphrase file is empty");
    return passphrase;
}

std::vector<std::string> secretFileWarnings(const fs::path& privateKeyFile, const std::optional<fs::path>& passphraseFile) {
    std::vector<std::string> warnings;
    auto check = [&](const fs::path& file, const char* what) {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // pipes and descriptors are private
        if (st.st_mode & (S_IRGRP | S_IROTH))
            warnings.push_back(file.string() + ": the " + what + " is readable by " +
                               ((st.st_mode & S_IROTH) ? "everyone" : "its group") + " (mode " +
                               [&] {
                                   char octal[8];
                                   std::snprintf(octal, sizeof octal, "%04o", st.st_mode & 07777);
                                   return std::string(octal);
                               }() +
                               "); chmod 600 it");
    };
    check(privateKeyFile, "private key");
    if (passphraseFile) check(*passphraseFile, "passphrase file");
    return warnings;
}

std::string keyIdOfPublicKeyFile(const fs::path& publicKeyFile) {
    return keyIdOf(loadPublicKey(publicKeyFile).get());
}

fs::path defaultSignaturePath(const fs::path& profile) {
    return fs::path(profile.string() + ".sig.json");
}

namespace {

KeyPairFiles generateKeyPairImpl(const fs::path& name, const std::string* passphrase, bool overwrite) {
    KeyPairFiles files;
    files.privateKeyFile = fs::path(name.string() + ".pem");
    files.publicKeyFile = fs::path(name.string() + ".pub.pem");
    files.encrypted = passphrase != nullptr;
    for (const fs::path& target : {files.privateKeyFile, files.publicKeyFile}) {
        std::error_code ec;
        if (fs::is_directory(target, ec)) throw Error(target.string(), "", "is a folder; choose another key name");
        if (!overwrite && fs::exists(target, ec))
            throw Error(target.string(), "", "already exists; not replacing a key (choose another name, or --force)");
    }
    Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
    if (!key) throw Error("", "", withOpenSslDetail("cannot generate an Ed25519 key"));
    files.keyId = keyIdOf(key.get());
    SecretString privatePem{encodePrivateKey(key.get(), passphrase)};
    // Private first and owner-only: a crash between the two writes leaves no public key without its private key.
    writeFileAtomic(files.privateKeyFile, privatePem.value, 0600);
    writeFileAtomic(files.publicKeyFile, encodePublicKey(key.get()), 0644);
    return files;
}

SignResult signProfileImpl(const fs::path& profile, const fs::path& privateKeyFile, const std::string* passphrase,
                           const char* passphraseHint, const std::optional<fs::path>& signatureFile) {
    SignResult result;
    result.signatureFile = signatureFile ? *signatureFile : defaultSignaturePath(profile);
    std::error_code ec;
    if (fs::exists(result.signatureFile, ec) && fs::equivalent(result.signatureFile, profile, ec))
        throw Error(result.signatureFile.string(), "", "is the profile itself; the signature needs its own file");
    const std::string canonical = canonicalizeJsonFile(profile);
    const Pkey key = loadPrivateKey(privateKeyFile, passphrase, passphraseHint);
    result.keyId = keyIdOf(key.get());
    result.canonicalSha256 = sha256Hex(canonical);
    const std::string_view payloadType = payloadTypeOfCanonical(canonical);
    const std::string signature = signBytes(key.get(), dssePreAuthEncoding(payloadType, canonical));

    Json envelope = Json::object();
    envelope["payloadType"] = std::string(payloadType);
    envelope["payload"] = base64Encode(canonical);
    envelope["signatures"] = Json::array({Json{{"keyid", result.keyId}, {"sig", base64Encode(signature)}}});
    writeFileAtomic(result.signatureFile, dumpJson(envelope, 2) + "\n");
    return result;
}

// The in-memory passphrase of the *WithPassphrase calls, copied into a buffer that is wiped on return; none when
// empty.
struct MemoryPassphrase {
    SecretString copy;
    bool given = false;
    explicit MemoryPassphrase(std::string_view passphrase) : given(!passphrase.empty()) {
        copy.value.assign(passphrase.data(), passphrase.size());  // straight into the wiped buffer, no temporary
    }
    const std::string* get() const { return given ? &copy.value : nullptr; }
};

}  // namespace

KeyPairFiles generateKeyPair(const fs::path& name, const std::optional<fs::path>& passphraseFile, bool overwrite) {
    SecretString passphrase;
    if (passphraseFile) passphrase.value = readPassphraseFile(*passphraseFile);
    return generateKeyPairImpl(name, passphraseFile ? &passphrase.value : nullptr, overwrite);
}

KeyPairFiles generateKeyPairWithPassphrase(const fs::path& name, std::string_view passphrase, bool overwrite) {
    const MemoryPassphrase secret(passphrase);
    return generateKeyPairImpl(name, secret.get(), overwrite);
}

SignResult signProfile(const fs::path& profile, const fs::path& privateKeyFile,
                       const std::optional<fs::path>& passphraseFile, const std::optional<fs::path>& signatureFile) {
    SecretString passphrase;
    if (passphraseFile) passphrase.value = readPassphraseFile(*passphraseFile);
    return signProfileImpl(profile, privateKeyFile, passphraseFile ? &passphrase.value : nullptr,
                           "; give its passphrase with --passphrase-file", signatureFile);
}

SignResult signProfileWithPassphrase(const fs::path& profile, const fs::path& privateKeyFile,
                                     std::string_view passphrase, const std::optional<fs::path>& signatureFile) {
    const MemoryPassphrase secret(passphrase);
    return signProfileImpl(profile, privateKeyFile, secret.get(), ", and no passphrase was given",
                           signatureFile);
}

VerifyResult verifyProfile(const fs::path& profile, const fs::path& publicKeyFile,
                           const std::optional<fs::path>& signatureFile) {
    const fs::path signaturePath = signatureFile ? *signatureFile : defaultSignaturePath(profile);
    const std::string canonical = canonicalizeJsonFile(profile);
    const Pkey key = loadPublicKey(publicKeyFile);
    const std::string envelopeText = readTextFile(signaturePath, kMaxEnvelopeBytes);
    return verifyEnvelope(envelopeText, signaturePath.string(), canonical, key.get());
}

SignatureStatus inspectProfileSignature(const fs::path& profile, const std::optional<fs::path>& publicKeyFile) noexcept {
    SignatureStatus status;
    try {
        status.signatureFile = defaultSignaturePath(profile);
        std::error_code ec;
        status.signatureFound = fs::exists(status.signatureFile, ec);
        if (!status.signatureFound) return status;
        const std::string envelopeText = readTextFile(status.signatureFile, kMaxEnvelopeBytes);
        try {
            const Json envelope = parseJson(envelopeText, status.signatureFile.string());
            if (envelope.is_object() && envelope.contains("signatures") && envelope["signatures"].is_array())
                for (const Json& entry : envelope["signatures"])
                    if (entry.is_object() && entry.contains("keyid") && entry["keyid"].is_string())
                        status.claimedKeyIds.push_back(entry["keyid"].get<std::string>());
        } catch (const Error&) {
            // verification below reports the broken envelope; without a key there is no id to show
        }
        if (!publicKeyFile) return status;
        const std::string canonical = canonicalizeJsonFile(profile);
        const Pkey key = loadPublicKey(*publicKeyFile);
        status.verification = verifyEnvelope(envelopeText, status.signatureFile.string(), canonical, key.get());
        status.checked = true;
    } catch (const std::exception& e) {
        status.problem = e.what();
    }
    return status;
}

std::string dssePreAuthEncoding(std::string_view payloadType, std::string_view payload) {
    std::string encoded = "DSSEv1 ";
    encoded += std::to_string(payloadType.size());
    encoded += ' ';
    encoded += payloadType;
    encoded += ' ';
    encoded += std::to_string(payload.size());
    encoded += ' ';
    encoded += payload;
    return encoded;
}

std::string base64Encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(written));
    return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
    // Normalise URL-safe to standard (DSSE verifiers must accept both) and check the alphabet strictly:
    // EVP_DecodeBlock alone would skip whitespace and accept odd padding.
    std::string standard;
    standard.reserve(text.size() + 2);
    std::size_t padding = 0;
    for (const char c : text) {
        if (c == '=') { ++padding; standard.push_back(c); continue; }
        if (padding > 0) return std::nullopt;  // data after padding
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/')
            standard.push_back(c);
        else if (c == '-') standard.push_back('+');
        else if (c == '_') standard.push_back('/');
        else return std::nullopt;
    }
    const std::size_t dataLength = standard.size() - padding;
    if (padding > 2 || dataLength % 4 == 1) return std::nullopt;
    if (padding > 0 && standard.size() % 4 != 0) return std::nullopt;
    if (padding == 0) {
        padding = (4 - dataLength % 4) % 4;
        standard.append(padding, '=');
    }
    if (standard.empty()) return std::string();
    std::string out(standard.size() / 4 * 3, '\0');
    const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(standard.data()),
                                        static_cast<int>(standard.size()));
    if (decoded < 0) return std::nullopt;
    out.resize(static_cast<std::size_t>(decoded) - padding);  // EVP_DecodeBlock counts padding as zero bytes
    return out;
}

}  // namespace tunescope
