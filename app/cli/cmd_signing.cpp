// hash, keygen, sign, verify: digests of files and of their RFC 8785 canonical form, Ed25519 keys, and DSSE
// signatures beside profiles, cuBLASLt policies and FLA_CONFIG_DIRs (through their manifest). Exit codes: 0 ok,
// 1 bad signature / wrong key / a signed folder's file changed, 2 usage or I/O error.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/formats/signing.hpp"

namespace tunescope::cli {
namespace {

std::optional<std::filesystem::path> optionalPath(const std::string& text) {
    if (text.empty()) return std::nullopt;
    return std::filesystem::path(text);
}

void registerHash(CLI::App& app, CliContext& ctx) {
    struct Options {
        std::string file;
        bool canonical = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* command = app.add_subcommand(
        "hash", "Print the SHA-256 of a file, or with --canonical of its RFC 8785 canonical JSON form");
    command->add_option("FILE", options->file, "File to hash")->required();
    command->add_flag("--canonical", options->canonical,
                      "Hash the RFC 8785 (JCS) canonical form of a JSON file: the bytes a profile signature covers, "
                      "independent of indentation and key order. Numbers a double cannot hold exactly are an error");
    command->footer("Prints 64 lowercase hex digits. Exit codes: 0 ok, 2 usage or I/O error (missing file, folder, "
                    "invalid JSON, inexact number).");
    command->callback([options, &ctx] {
        const std::string digest = options->canonical ? sha256Hex(canonicalizeJsonFile(options->file))
                                                      : sha256FileHex(options->file);
        std::cout << digest << '\n';
        ctx.exitCode = kExitOk;
    });
}

void registerKeygen(CLI::App& app, CliContext& ctx) {
    struct Options {
        std::string name;
        std::string passphraseFile;
        bool force = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* command = app.add_subcommand("keygen", "Create an Ed25519 key pair: NAME.pem (private) and NAME.pub.pem");
    command->add_option("--out", options->name, "Key name: writes NAME.pem (PKCS#8, mode 0600) and NAME.pub.pem")
        ->required();
    command->add_option("--passphrase-file", options->passphraseFile,
                        "Encrypt the private key (scrypt + AES-256-CBC) with the passphrase in this file "
                        "(its content minus one trailing newline)");
    command->add_flag("--force", options->force, "Replace existing key files of that name");
    command->footer("Prints the key id: the first 16 hex digits of SHA-256 over the raw 32-byte public key. "
                    "Exit codes: 0 ok, 2 usage or I/O error (key files exist, unwritable folder, bad passphrase file).");
    command->callback([options, &ctx] {
        const KeyPairFiles files = generateKeyPair(options->name, optionalPath(options->passphraseFile), options->force);
        std::cout << "wrote " << files.privateKeyFile.string() << " (private key, mode 0600, "
                  << (files.encrypted ? "encrypted" : "not encrypted") << ") and " << files.publicKeyFile.string()
                  << "\nkey id " << files.keyId << '\n';
        ctx.exitCode = kExitOk;
    });
}

void registerSign(CLI::App& app, CliContext& ctx) {
    struct Options {
        std::string profile;
        std::string key;
        std::string passphraseFile;
        std::string out;
    };
    auto options = std::make_shared<Options>();
    CLI::App* command = app.add_subcommand(
        "sign", "Sign a profile's canonical form with an Ed25519 key; writes a DSSE envelope PROFILE.sig.json");
    command->add_option("PROFILE", options->profile,
                        "Profile (any JSON file) to sign, or an FLA_CONFIG_DIR (the folder or its manifest)")
        ->required();
    command->add_option("--key", options->key, "Private key file (NAME.pem from keygen)")->required();
    command->add_option("--passphrase-file", options->passphraseFile, "Passphrase of an encrypted private key: a file, or a pipe or descriptor such as /dev/fd/3 "
                        "(the passphrase need never be on disk)");
    command->add_option("--out", options->out, "Signature file to write (default: PROFILE.sig.json)");
    command->footer("An FLA_CONFIG_DIR is signed through its manifest (DIR/tunescope-fla-config-dir.json.sig.json, "
                    "payloadType application/vnd.tunescope.fla-config-dir+json), which lists every file's SHA-256; "
                    "a folder that does not validate is refused. Exit codes: 0 ok, 2 usage or I/O error (unreadable "
                    "profile or key, encrypted key without or with the wrong passphrase, numbers that have no exact "
                    "canonical form, a folder that does not validate).");
    command->callback([options, &ctx] {
        for (const std::string& warning : secretFileWarnings(options->key, optionalPath(options->passphraseFile)))
            std::cerr << "tunescope-cli: warning: " << warning << '\n';
        const bool folder = isFlaConfigDirPath(options->profile);
        const SignResult result =
            folder ? signFlaConfigDir(options->profile, options->key, optionalPath(options->passphraseFile),
                                      optionalPath(options->out))
                   : signProfile(options->profile, options->key, optionalPath(options->passphraseFile),
                                 optionalPath(options->out));
        std::cout << "wrote " << result.signatureFile.string() << ", key id " << result.keyId
                  << ", canonical sha256 " << result.canonicalSha256
                  << (folder ? " (the folder's manifest, which lists every file's SHA-256)" : "") << '\n';
        ctx.exitCode = kExitOk;
    });
}

// A folder's verdict: the manifest's signature, then its files against the signed manifest.
int printFolderVerdict(const FlaConfigDirVerifyResult& result) {
    const VerifyResult& signature = result.signature;
    if (!signature.ok) {
        std::cout << "BAD signature (key id " << signature.keyId << "): " << signature.reason << '\n';
        return kExitInvalid;
    }
    if (!result.folderFaults.empty()) {
        std::cout << "BAD signature (key id " << signature.keyId << "): the manifest's signature holds, but the folder "
                  << "does not match the signed manifest (" << result.folderFaults.size() << " fault"
                  << (result.folderFaults.size() == 1 ? "" : "s") << "):\n";
        for (const auto& fault : result.folderFaults) std::cout << "BAD " << fault.what() << '\n';
        return kExitInvalid;
    }
    std::cout << "good signature, key id " << signature.keyId << "; " << result.files << " kernel file"
              << (result.files == 1 ? "" : "s") << " match the signed manifest\n";
    return kExitOk;
}

void registerVerify(CLI::App& app, CliContext& ctx) {
    struct Options {
        std::string profile;
        std::string publicKey;
        std::string signature;
    };
    auto options = std::make_shared<Options>();
    CLI::App* command = app.add_subcommand(
        "verify", "Check a profile's signature (PROFILE.sig.json) against a public key and the profile as it is now");
    command->add_option("PROFILE", options->profile, "Signed profile, or FLA_CONFIG_DIR (the folder or its manifest)")
        ->required();
    command->add_option("--pubkey", options->publicKey, "Public key file (NAME.pub.pem)")->required();
    command->add_option("--sig", options->signature, "Signature file (default: PROFILE.sig.json)");
    command->footer("Prints \"good signature, key id XXXX\" when the signature holds, else the reason. Exit codes: "
                    "0 good signature; 1 bad signature (wrong key, altered signature file, profile changed since "
                    "signing); 2 usage or I/O error (missing files, unreadable key, invalid profile JSON). "
                    "An FLA_CONFIG_DIR: its manifest's signature (default DIR/tunescope-fla-config-dir.json.sig.json), "
                    "then every file against the signed manifest: a changed, missing or unlisted kernel file is BAD "
                    "(exit 1), one line naming each file.");
    command->callback([options, &ctx] {
        if (isFlaConfigDirPath(options->profile)) {
            ctx.exitCode = printFolderVerdict(
                verifyFlaConfigDir(options->profile, options->publicKey, optionalPath(options->signature)));
            return;
        }
        const VerifyResult result = verifyProfile(options->profile, options->publicKey, optionalPath(options->signature));
        if (result.ok) {
            std::cout << "good signature, key id " << result.keyId << '\n';
            ctx.exitCode = kExitOk;
        } else {
            std::cout << "BAD signature (key id " << result.keyId << "): " << result.reason << '\n';
            ctx.exitCode = kExitInvalid;
        }
    });
}

}  // namespace

void registerSigningCommands(CLI::App& app, CliContext& ctx) {
    registerHash(app, ctx);
    registerKeygen(app, ctx);
    registerSign(app, ctx);
    registerVerify(app, ctx);
}

}  // namespace tunescope::cli
