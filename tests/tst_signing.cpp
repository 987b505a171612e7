// Ed25519 keys and DSSE profile signatures: every single-value change of a signed seed profile breaks the
// signature, re-indenting keeps it; wrong keys, tampered envelopes and wrong passphrases fail clearly.
#include <QtTest>

#include <QCryptographicHash>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/signing.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

template <typename Action>
Error expectError(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e;
    }
    throw std::runtime_error("expected a tunescope::Error, nothing was thrown");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string seedPath() {
    return qEnvironmentVariable("TUNESCOPE_PROFILES").toStdString() + "/fla-l2norm-gfx942-profile.json";
}

// Plain write (no fsync): the mutation walk rewrites the profile hundreds of times.
void writeBytes(const fs::path& file, const std::string& bytes) {
    QFile out(QString::fromStdString(file.string()));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) throw std::runtime_error("cannot write " + file.string());
    out.write(bytes.data(), static_cast<qint64>(bytes.size()));
}

std::string readBytes(const fs::path& file) { return readTextFile(file); }

struct PkeyFree { void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); } };
using OwnedKey = std::unique_ptr<EVP_PKEY, PkeyFree>;

OwnedKey readPublicKeyDirectly(const fs::path& file) {
    const std::string pem = readBytes(file);
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    OwnedKey key(PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr));
    BIO_free(bio);
    return key;
}

// Every scalar leaf of a JSON value, by JSON Pointer.
void collectLeaves(const Json& value, const std::string& pointer, std::vector<std::string>& leaves) {
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) collectLeaves(it.value(), jsonPointerAppend(pointer, it.key()), leaves);
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i) collectLeaves(value[i], jsonPointerAppend(pointer, i), leaves);
    } else {
        leaves.push_back(pointer);
    }
}

void collectContainers(const Json& value, const std::string& pointer, std::vector<std::string>& objects,
                       std::vector<std::string>& arrays) {
    if (value.is_object()) {
        objects.push_back(pointer);
        for (auto it = value.begin(); it != value.end(); ++it)
            collectContainers(it.value(), jsonPointerAppend(pointer, it.key()), objects, arrays);
    } else if (value.is_array()) {
        arrays.push_back(pointer);
        for (std::size_t i = 0; i < value.size(); ++i) collectContainers(value[i], jsonPointerAppend(pointer, i), objects, arrays);
    }
}

// One changed value: bool flipped, number changed, string changed, null replaced.
Json mutatedLeaf(const Json& leaf) {
    switch (leaf.type()) {
    case Json::value_t::boolean: return !leaf.get<bool>();
    case Json::value_t::number_integer: return leaf.get<std::int64_t>() + 1;
    case Json::value_t::number_unsigned: return leaf.get<std::uint64_t>() + 1;
    case Json::value_t::number_float: return leaf.get<double>() * 2;
    case Json::value_t::string: return leaf.get<std::string>() + "x";
    case Json::value_t::null: return 0;
    default: throw std::logic_error("not a scalar");
    }
}

}  // namespace

class TestSigning : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    fs::path root_, profile_;
    KeyPairFiles keys_, otherKeys_;

    fs::path path(const char* name) const { return root_ / name; }

    // Rewrites the working profile and checks it against the signature made over the seed.
    VerifyResult verifyWith(const std::string& profileBytes) {
        writeBytes(profile_, profileBytes);
        return verifyProfile(profile_, keys_.publicKeyFile);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        profile_ = path("profile.json");
        writeBytes(profile_, readBytes(seedPath()));
        keys_ = generateKeyPair(path("alice"));
        otherKeys_ = generateKeyPair(path("bob"));
        signProfile(profile_, keys_.privateKeyFile);
    }

    void keyFiles() {
        QCOMPARE(keys_.privateKeyFile, path("alice.pem"));
        QCOMPARE(keys_.publicKeyFile, path("alice.pub.pem"));
        QVERIFY(!keys_.encrypted);
        struct stat info {};
        QCOMPARE(::stat(keys_.privateKeyFile.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0600));
        QVERIFY(readBytes(keys_.privateKeyFile).rfind("-----BEGIN PRIVATE KEY-----\n", 0) == 0);  // PKCS#8
        QVERIFY(readBytes(keys_.publicKeyFile).rfind("-----BEGIN PUBLIC KEY-----\n", 0) == 0);
        QVERIFY(keys_.keyId != otherKeys_.keyId);
    }

    // Key id = first 16 hex digits of SHA-256 over the raw 32-byte public key, computed here independently.
    void keyIdFormat() {
        QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{16}$")).match(QString::fromStdString(keys_.keyId)).hasMatch());
        OwnedKey key = readPublicKeyDirectly(keys_.publicKeyFile);
        QVERIFY(key);
        unsigned char raw[32];
        std::size_t length = sizeof raw;
        QCOMPARE(EVP_PKEY_get_raw_public_key(key.get(), raw, &length), 1);
        QCOMPARE(length, std::size_t(32));
        const QByteArray digest = QCryptographicHash::hash(
            QByteArray(reinterpret_cast<const char*>(raw), 32), QCryptographicHash::Sha256).toHex();
        QCOMPARE(QString::fromStdString(keys_.keyId), QString::fromLatin1(digest.left(16)));
        QCOMPARE(keyIdOfPublicKeyFile(keys_.publicKeyFile), keys_.keyId);
    }

    void refusesToReplaceKeys() {
        const Error error = expectError([&] { generateKeyPair(path("alice")); });
        QVERIFY(contains(error.message(), "already exists"));
        const KeyPairFiles replaced = generateKeyPair(path("carol"));
        const KeyPairFiles again = generateKeyPair(path("carol"), std::nullopt, /*overwrite=*/true);
        QVERIFY(replaced.keyId != again.keyId);
        QCOMPARE(keyIdOfPublicKeyFile(again.publicKeyFile), again.keyId);
        QVERIFY(contains(expectError([&] { generateKeyPair(path("nowhere/k")); }).message(), "cannot save"));
    }

    // The envelope is plain DSSE: checked here with OpenSSL directly, not through verifyProfile.
    void envelopeFormat() {
        const Json envelope = readJsonFile(defaultSignaturePath(profile_));
        QCOMPARE(defaultSignaturePath(profile_), path("profile.json.sig.json"));
        QCOMPARE(envelope["payloadType"].get<std::string>(), std::string("application/vnd.tunescope.profile+json"));
        const auto payload = base64Decode(envelope["payload"].get<std::string>());
        QVERIFY(payload);
        QCOMPARE(*payload, canonicalizeJsonFile(seedPath()));
        QCOMPARE(envelope["signatures"].size(), std::size_t(1));
        QCOMPARE(envelope["signatures"][0]["keyid"].get<std::string>(), keys_.keyId);
        const auto signature = base64Decode(envelope["signatures"][0]["sig"].get<std::string>());
        QVERIFY(signature);
        QCOMPARE(signature->size(), std::size_t(64));

        const std::string type = "application/vnd.tunescope.profile+json";
        const std::string pae = "DSSEv1 " + std::to_string(type.size()) + " " + type + " " +
                                std::to_string(payload->size()) + " " + *payload;
        OwnedKey key = readPublicKeyDirectly(keys_.publicKeyFile);
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        QCOMPARE(EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, key.get()), 1);
        const int verified = EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature->data()), 64,
                                              reinterpret_cast<const unsigned char*>(pae.data()), pae.size());
        EVP_MD_CTX_free(ctx);
        QCOMPARE(verified, 1);
    }

    void goodSignature() {
        const VerifyResult result = verifyProfile(profile_, keys_.publicKeyFile);
        QVERIFY2(result.ok, result.reason.c_str());
        QCOMPARE(result.keyId, keys_.keyId);
        QVERIFY(result.reason.empty());
    }

    // Re-indenting, compacting and reordering keys keep the signature: it covers the canonical form.
    void reformattingKeepsSignature() {
        const Json seed = readJsonFile(seedPath());
        Json reversed = Json::object();
        for (auto it = seed.rbegin(); it != seed.rend(); ++it) reversed[it.key()] = it.value();
        for (const std::string& bytes : {dumpJson(seed, 4), dumpJson(seed, 2), seed.dump(), seed.dump(1, '\t'),
                                         dumpJson(reversed, 2)}) {
            const VerifyResult result = verifyWith(bytes);
            QVERIFY2(result.ok, result.reason.c_str());
        }
    }

    // The required test: each value of the signed profile changed on its own must fail verification,
    // and the reason must name the changed value.
    void everySingleValueChangeFails() {
        const Json seed = readJsonFile(seedPath());
        std::vector<std::string> leaves;
        collectLeaves(seed, "", leaves);
        QVERIFY(leaves.size() > 400);
        int booleans = 0, integers = 0, floats = 0, strings = 0, nulls = 0;
        for (const std::string& pointer : leaves) {
            const Json::json_pointer at(pointer);
            Json changed = seed;
            const Json& leaf = seed.at(at);
            booleans += leaf.is_boolean();
            integers += leaf.is_number_integer();
            floats += leaf.is_number_float();
            strings += leaf.is_string();
            nulls += leaf.is_null();
            changed[at] = mutatedLeaf(leaf);
            const VerifyResult result = verifyWith(dumpJson(changed, 2));
            QVERIFY2(!result.ok, ("change at " + pointer + " kept the signature").c_str());
            QVERIFY2(contains(result.reason, "first change at " + pointer), (pointer + ": " + result.reason).c_str());
        }
        // The seed exercises every kind of leaf.
        QVERIFY(booleans > 0 && integers > 0 && floats > 0 && strings > 0 && nulls > 0);
    }

    void everyRemovedOrAddedMemberFails() {
        const Json seed = readJsonFile(seedPath());
        std::vector<std::string> objects, arrays;
        collectContainers(seed, "", objects, arrays);
        int checks = 0;
        for (const std::string& pointer : objects) {
            const Json::json_pointer at(pointer);
            Json added = seed;
            added[at]["tunescope_extra"] = 1;
            VerifyResult result = verifyWith(dumpJson(added, 2));
            QVERIFY2(!result.ok && contains(result.reason, "(added)"), (pointer + ": " + result.reason).c_str());
            for (auto it = seed.at(at).begin(); it != seed.at(at).end(); ++it) {
                Json removed = seed;
                removed[at].erase(it.key());
                result = verifyWith(dumpJson(removed, 2));
                QVERIFY2(!result.ok && contains(result.reason, "(removed)"), (pointer + "/" + it.key()).c_str());
                ++checks;
            }
        }
        for (const std::string& pointer : arrays) {
            const Json::json_pointer at(pointer);
            Json appended = seed;
            appended[at].push_back(nullptr);
            QVERIFY2(!verifyWith(dumpJson(appended, 2)).ok, pointer.c_str());
            if (seed.at(at).size() >= 2) {
                Json swapped = seed;
                std::swap(swapped[at][0], swapped[at][1]);
                if (swapped != seed) QVERIFY2(!verifyWith(dumpJson(swapped, 2)).ok, pointer.c_str());
                Json shortened = seed;
                shortened[at].erase(shortened[at].size() - 1);
                QVERIFY2(!verifyWith(dumpJson(shortened, 2)).ok, pointer.c_str());
            }
            ++checks;
        }
        QVERIFY(checks > 100);
        QVERIFY(verifyWith(readBytes(seedPath())).ok);  // and the original still holds
    }

    void wrongKeyFails() {
        writeBytes(profile_, readBytes(seedPath()));
        const VerifyResult result = verifyProfile(profile_, otherKeys_.publicKeyFile);
        QVERIFY(!result.ok);
        QCOMPARE(result.keyId, otherKeys_.keyId);
        QVERIFY2(contains(result.reason, "does not verify with key " + otherKeys_.keyId), result.reason.c_str());
        QVERIFY2(contains(result.reason, keys_.keyId), result.reason.c_str());  // names the key that signed it
    }

    void tamperedEnvelopes_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("reasonPart");
        QTest::newRow("signature bit") << QStringLiteral("sig-bit") << QStringLiteral("does not verify");
        QTest::newRow("payload swapped") << QStringLiteral("payload-swap") << QStringLiteral("does not verify");
        QTest::newRow("payloadType") << QStringLiteral("type") << QStringLiteral("/payloadType");
        QTest::newRow("payloadType missing") << QStringLiteral("type-missing") << QStringLiteral("/payloadType");
        QTest::newRow("payload base64") << QStringLiteral("payload-b64") << QStringLiteral("/payload: not valid base64");
        QTest::newRow("sig base64") << QStringLiteral("sig-b64") << QStringLiteral("/signatures/0/sig: not valid base64");
        QTest::newRow("sig length") << QStringLiteral("sig-short") << QStringLiteral("64-byte");
        QTest::newRow("no signatures") << QStringLiteral("no-sigs") << QStringLiteral("/signatures");
        QTest::newRow("not json") << QStringLiteral("not-json") << QStringLiteral("not valid JSON");
        QTest::newRow("array") << QStringLiteral("array") << QStringLiteral("not a DSSE envelope");
        QTest::newRow("sig not string") << QStringLiteral("sig-number") << QStringLiteral("/signatures/0");
    }
    void tamperedEnvelopes() {
        QFETCH(QString, what);
        QFETCH(QString, reasonPart);
        writeBytes(profile_, readBytes(seedPath()));
        const fs::path good = defaultSignaturePath(profile_);
        const fs::path bad = path("tampered.sig.json");
        Json envelope = readJsonFile(good);
        std::string text;
        const std::string kind = what.toStdString();
        if (kind == "sig-bit") {
            std::string sig = *base64Decode(envelope["signatures"][0]["sig"].get<std::string>());
            sig[10] = static_cast<char>(sig[10] ^ 0x01);
            envelope["signatures"][0]["sig"] = base64Encode(sig);
        } else if (kind == "payload-swap") {
            Json changed = readJsonFile(seedPath());
            changed["cache_mode"] = "lenient";
            writeBytes(profile_, dumpJson(changed, 2));  // profile and payload agree; the signature does not
            envelope["payload"] = base64Encode(canonicalize(changed));
        } else if (kind == "type") {
            envelope["payloadType"] = "application/json";
        } else if (kind == "type-missing") {
            envelope.erase("payloadType");
        } else if (kind == "payload-b64") {
            envelope["payload"] = "e30=!";
        } else if (kind == "sig-b64") {
            envelope["signatures"][0]["sig"] = "not base64 at all";
        } else if (kind == "sig-short") {
            envelope["signatures"][0]["sig"] = base64Encode("0123456789");
        } else if (kind == "no-sigs") {
            envelope["signatures"] = Json::array();
        } else if (kind == "not-json") {
            text = "{\"payloadType\": ";
        } else if (kind == "array") {
            envelope = Json::array({envelope});
        } else if (kind == "sig-number") {
            envelope["signatures"][0]["sig"] = 42;
        }
        if (text.empty()) text = envelope.dump(2);
        writeBytes(bad, text);
        VerifyResult result;
        try {
            result = verifyProfile(profile_, keys_.publicKeyFile, bad);
        } catch (const std::exception& e) {
            QFAIL((std::string("a tampered envelope must be a failed verification, not an exception: ") + e.what()).c_str());
        }
        QVERIFY(!result.ok);
        QVERIFY2(contains(result.reason, reasonPart.toStdString()), result.reason.c_str());
    }

    // DSSE: keyid is only a hint; verifiers accept URL-safe base64 and any one good signature among several.
    void envelopeVariantsThatHold() {
        writeBytes(profile_, readBytes(seedPath()));
        const fs::path variant = path("variant.sig.json");
        Json envelope = readJsonFile(defaultSignaturePath(profile_));
        Json urlSafe = envelope;
        for (const char* field : {"payload"}) {
            std::string text = urlSafe[field].get<std::string>();
            for (char& c : text) c = c == '+' ? '-' : c == '/' ? '_' : c;
            while (!text.empty() && text.back() == '=') text.pop_back();
            urlSafe[field] = text;
        }
        writeBytes(variant, urlSafe.dump());
        QVERIFY(verifyProfile(profile_, keys_.publicKeyFile, variant).ok);

        Json twoSignatures = envelope;
        Json junk = {{"keyid", "0000000000000000"}, {"sig", base64Encode(std::string(64, 'x'))}};
        twoSignatures["signatures"].insert(twoSignatures["signatures"].begin(), junk);
        writeBytes(variant, twoSignatures.dump());
        QVERIFY(verifyProfile(profile_, keys_.publicKeyFile, variant).ok);

        Json otherHint = envelope;
        otherHint["signatures"][0]["keyid"] = "ffffffffffffffff";
        writeBytes(variant, otherHint.dump());
        QVERIFY(verifyProfile(profile_, keys_.publicKeyFile, variant).ok);
    }

    void encryptedKey() {
        const fs::path passphrase = path("pass.txt");
        writeBytes(passphrase, "correct horse battery staple\n");
        const KeyPairFiles locked = generateKeyPair(path("locked"), passphrase);
        QVERIFY(locked.encrypted);
        QVERIFY(readBytes(locked.privateKeyFile).rfind("-----BEGIN ENCRYPTED PRIVATE KEY-----\n", 0) == 0);
        struct stat info {};
        QCOMPARE(::stat(locked.privateKeyFile.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0600));

        writeBytes(profile_, readBytes(seedPath()));
        const fs::path signature = path("locked.sig.json");
        const fs::path noNewline = path("pass-no-newline.txt");
        writeBytes(noNewline, "correct horse battery staple");  // one trailing newline is not part of it
        const SignResult signedResult = signProfile(profile_, locked.privateKeyFile, noNewline, signature);
        QCOMPARE(signedResult.keyId, locked.keyId);
        QCOMPARE(signedResult.signatureFile, signature);
        QVERIFY(verifyProfile(profile_, locked.publicKeyFile, signature).ok);

        const fs::path wrong = path("wrong.txt");
        writeBytes(wrong, "Tr0ub4dor&3\n");
        Error error = expectError([&] { signProfile(profile_, locked.privateKeyFile, wrong, signature); });
        QCOMPARE(error.file(), locked.privateKeyFile.string());
        QVERIFY2(contains(error.message(), "wrong passphrase"), error.what());
        error = expectError([&] { signProfile(profile_, locked.privateKeyFile, std::nullopt, signature); });
        QVERIFY2(contains(error.message(), "encrypted") && contains(error.message(), "--passphrase-file"), error.what());
        const fs::path empty = path("empty.txt");
        writeBytes(empty, "\n");
        QVERIFY(contains(expectError([&] { generateKeyPair(path("never"), empty); }).message(), "empty"));
        QVERIFY(!fs::exists(path("never.pem")));
    }

    // The GUI's in-memory passphrase (issue 16): the same keys and signatures as with a passphrase file, and a key
    // encrypted one way opens the other way.
    void passphraseInMemory() {
        const KeyPairFiles locked = generateKeyPairWithPassphrase(path("memory"), "correct horse battery staple");
        QVERIFY(locked.encrypted);
        QVERIFY(readBytes(locked.privateKeyFile).rfind("-----BEGIN ENCRYPTED PRIVATE KEY-----\n", 0) == 0);
        writeBytes(profile_, readBytes(seedPath()));
        const fs::path signature = path("memory.sig.json");
        const SignResult signedResult =
            signProfileWithPassphrase(profile_, locked.privateKeyFile, "correct horse battery staple", signature);
        QCOMPARE(signedResult.keyId, locked.keyId);
        QVERIFY(verifyProfile(profile_, locked.publicKeyFile, signature).ok);
        const fs::path passphrase = path("memory-pass.txt");
        writeBytes(passphrase, "correct horse battery staple\n");
        QCOMPARE(signProfile(profile_, locked.privateKeyFile, passphrase, signature).keyId, locked.keyId);

        Error error = expectError([&] { signProfileWithPassphrase(profile_, locked.privateKeyFile, "Tr0ub4dor&3", signature); });
        QCOMPARE(error.file(), locked.privateKeyFile.string());
        QVERIFY2(contains(error.message(), "wrong passphrase"), error.what());
        error = expectError([&] { signProfileWithPassphrase(profile_, locked.privateKeyFile, "", signature); });
        QVERIFY2(contains(error.message(), "encrypted") && contains(error.message(), "no passphrase was given"), error.what());
        // An empty passphrase makes an unencrypted key, as in the GUI's keygen dialog.
        const KeyPairFiles plain = generateKeyPairWithPassphrase(path("memory-plain"), "");
        QVERIFY(!plain.encrypted);
        QVERIFY(readBytes(plain.privateKeyFile).rfind("-----BEGIN PRIVATE KEY-----\n", 0) == 0);
    }

    void badKeyFiles() {
        writeBytes(profile_, readBytes(seedPath()));
        // A public key where the private one belongs, and the other way round.
        QVERIFY(contains(expectError([&] { signProfile(profile_, keys_.publicKeyFile); }).message(), "public key"));
        QVERIFY(contains(expectError([&] { verifyProfile(profile_, keys_.privateKeyFile); }).message(), "private key"));
        const fs::path garbage = path("garbage.pem");
        writeBytes(garbage, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        QVERIFY(contains(expectError([&] { signProfile(profile_, garbage); }).message(), "not a PEM private key"));
        QVERIFY(contains(expectError([&] { signProfile(profile_, path("absent.pem")); }).message(), "not found"));
        // Another algorithm's key is refused by name.
        OwnedKey ec(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", const_cast<char*>("P-256")));
        QVERIFY(ec);
        BIO* bio = BIO_new(BIO_s_mem());
        QCOMPARE(PEM_write_bio_PKCS8PrivateKey(bio, ec.get(), nullptr, nullptr, 0, nullptr, nullptr), 1);
        char* data = nullptr;
        const long size = BIO_get_mem_data(bio, &data);
        writeBytes(path("ec.pem"), std::string(data, static_cast<std::size_t>(size)));
        BIO_free(bio);
        QVERIFY(contains(expectError([&] { signProfile(profile_, path("ec.pem")); }).message(), "Ed25519"));
    }

    void badProfilesAndPaths() {
        const fs::path inexact = path("inexact.json");
        writeBytes(inexact, R"({"format": "x", "tolerance": {"value": 0.1000000000000000000001}})");
        Error error = expectError([&] { signProfile(inexact, keys_.privateKeyFile); });
        QCOMPARE(error.jsonPath(), std::string("/tolerance/value"));
        QVERIFY(!fs::exists(defaultSignaturePath(inexact)));
        error = expectError([&] { signProfile(profile_, keys_.privateKeyFile, std::nullopt, profile_); });
        QVERIFY(contains(error.message(), "profile itself"));
        error = expectError([&] { verifyProfile(path("missing.json"), keys_.publicKeyFile); });
        QVERIFY(contains(error.message(), "not found"));
        writeBytes(profile_, readBytes(seedPath()));
        error = expectError([&] { verifyProfile(profile_, keys_.publicKeyFile, path("missing.sig.json")); });
        QCOMPARE(error.file(), path("missing.sig.json").string());
        error = expectError([&] { verifyProfile(profile_, root_); });
        QVERIFY(contains(error.message(), "folder"));
        const fs::path broken = path("broken.json");
        writeBytes(broken, "{\"a\": [1, 2,]}");
        QVERIFY(contains(expectError([&] { signProfile(broken, keys_.privateKeyFile); }).message(), "line 1"));
    }

    void guiStatus() {
        writeBytes(profile_, readBytes(seedPath()));
        SignatureStatus status = inspectProfileSignature(profile_);
        QVERIFY(status.signatureFound);
        QVERIFY(!status.checked);
        QVERIFY(status.problem.empty());
        QCOMPARE(status.claimedKeyIds, std::vector<std::string>{keys_.keyId});

        status = inspectProfileSignature(profile_, keys_.publicKeyFile);
        QVERIFY(status.checked);
        QVERIFY(status.verification.ok);
        QCOMPARE(status.verification.keyId, keys_.keyId);

        status = inspectProfileSignature(profile_, otherKeys_.publicKeyFile);
        QVERIFY(status.checked);
        QVERIFY(!status.verification.ok);

        status = inspectProfileSignature(profile_, path("no-such.pub.pem"));
        QVERIFY(!status.checked);
        QVERIFY(contains(status.problem, "not found"));

        const fs::path unsignedProfile = path("unsigned.json");
        writeBytes(unsignedProfile, "{}");
        status = inspectProfileSignature(unsignedProfile, keys_.publicKeyFile);
        QVERIFY(!status.signatureFound);
        QVERIFY(!status.checked);
        QCOMPARE(status.signatureFile, path("unsigned.json.sig.json"));
    }

    void preAuthEncoding() {
        // The example in secure-systems-lab/dsse protocol.md.
        QCOMPARE(dssePreAuthEncoding("http://example.com/HelloWorld", "hello world"),
                 std::string("DSSEv1 29 http://example.com/HelloWorld 11 hello world"));
        QCOMPARE(dssePreAuthEncoding("", ""), std::string("DSSEv1 0  0 "));
    }

    void base64() {
        // RFC 4648 section 10.
        const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},
                                                               {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                               {"foobar", "Zm9vYmFy"}};
        for (const auto& [plain, encoded] : vectors) {
            QCOMPARE(base64Encode(plain), std::string(encoded));
            QCOMPARE(base64Decode(encoded).value_or("<none>"), std::string(plain));
        }
        QCOMPARE(base64Decode("Zg").value_or("<none>"), std::string("f"));  // unpadded
        QCOMPARE(base64Decode("-_8").value_or("<none>"), std::string("\xfb\xff"));  // URL-safe
        QCOMPARE(base64Decode("+/8=").value_or("<none>"), std::string("\xfb\xff"));
        for (const char* bad : {"Z", "Zg=", "Zg===", "Zm9v!", "Zg==Zg==", " Zg==", "Zg==\n", "=Zg"})
            QVERIFY2(!base64Decode(bad), bad);
    }
};

QTEST_GUILESS_MAIN(TestSigning)
#include "tst_signing.moc"
