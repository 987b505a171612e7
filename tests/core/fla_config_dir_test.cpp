// The FLA_CONFIG_DIR reader and checker (issue 24, docs/fla-capture.md section 9, "The folder"): a folder that
// capture export-fla writes from CI's H100 fixture reads back; copies of it with one planted fault are refused with
// an Error naming the file and the JSON Pointer; signing covers every file through the manifest, and no other
// kind's signature passes for a folder's; lookup and diff. Plain C++ (no Qt), so it runs wherever the core builds.
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/formats/signing.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

using plain_test::g_failures;

fs::path captureData() { return plain_test::sourceDir() / "tests" / "data" / "fla-capture"; }

const fs::path& scratch() {
    static const fs::path dir = plain_test::tempDir("tunescope-fla-config-dir", "all");
    return dir;
}

// The folder export-fla writes for the fixture and its scripted choices, exported once and copied per case.
const fs::path& exported() {
    static const fs::path dir = [] {
        const FlaCapture capture = readFlaCapture(captureData() / "h100-gdr-fwd-T4096.json");
        const FlaChoices choices = readFlaChoices(captureData() / "choices" / "h100-gdr-fwd-T4096-scripted.json");
        exportFlaConfigDir(capture, choices, scratch() / "exported");
        return scratch() / "exported";
    }();
    return dir;
}

fs::path copyOf(const std::string& name) {
    const fs::path dir = scratch() / name;
    fs::remove_all(dir);
    fs::copy(exported(), dir, fs::copy_options::recursive);
    return dir;
}

fs::path manifestOf(const fs::path& dir) { return dir / std::string(kFlaConfigDirManifestName); }

void writeJson(const fs::path& file, const Json& doc) { writeFileAtomic(file, dumpJson(doc, 2) + "\n"); }

// The manifest's digest recomputed, so that only the fault a case plants remains.
void redigest(const fs::path& dir, const std::function<void(Json&)>& change) {
    Json m = readJsonFile(manifestOf(dir));
    change(m);
    m.erase("digest");
    const std::string value = sha256Hex(canonicalize(m));
    m["digest"] = {{"algorithm", kFlaCaptureDigestAlgorithm}, {"value", value}};
    writeJson(manifestOf(dir), m);
}

// A kernel file changed and the manifest's listing of it (SHA-256, size) and digest made to match again: only the
// content rule the change breaks remains.
void changeKernelFileResealed(const fs::path& dir, const std::string& kernel, const std::function<void(Json&)>& change) {
    const fs::path file = dir / (kernel + ".json");
    Json doc = readJsonFile(file);
    change(doc);
    const std::string text = dumpJson(doc, 2) + "\n";
    writeFileAtomic(file, text);
    redigest(dir, [&](Json& m) {
        for (Json& f : m["files"])
            if (f["kernel_name"] == kernel) {
                f["sha256"] = sha256Hex(text);
                f["bytes"] = text.size();
            }
    });
}

bool hasFault(const FlaConfigDirCheck& check, const fs::path& file, const std::string& pointer,
              const std::string& needle = "") {
    for (const auto& e : check.faults)
        if (e.file() == file.string() && e.jsonPath() == pointer && e.message().find(needle) != std::string::npos)
            return true;
    std::cerr << "  expected a fault " << file.string() << " at '" << pointer << "' (" << needle << "); got:\n";
    for (const auto& e : check.faults) std::cerr << "    " << e.what() << "\n";
    return false;
}

void testValidFolder() {
    const FlaConfigDirCheck check = checkFlaConfigDir(exported());
    for (const auto& e : check.faults) std::cerr << "exported: " << e.what() << "\n";
    CHECK(check.faults.empty() && check.warnings.empty() && check.dir.has_value());
    if (!check.dir) return;
    const FlaConfigDir& dir = *check.dir;
    CHECK(dir.kernels.size() == 6 && dir.entryCount() == 6 && dir.keysWithoutChoice.empty());
    CHECK(flaConfigDirSummary(dir) ==
          "6 kernels, 6 entries, 0 keys without a choice, scripted choices, capture h100-gdr-fwd-T4096.json "
          "(db75d57dc05a), NVIDIA H100 80GB HBM3 sm_90, FLA 0.5.2, Triton 3.6.0");
    const FlaConfigDirKernel* o = dir.kernel("chunk_fwd_kernel_o");
    CHECK(o && o->entries.size() == 1 && o->triton_version == "3.6.0");
    if (o) CHECK(o->sha256 == sha256FileHex(exported() / "chunk_fwd_kernel_o.json"));
    // the manifest file names the same folder
    const FlaConfigDir viaManifest = readFlaConfigDir(manifestOf(exported()));
    CHECK(viaManifest.folder == exported() && viaManifest.kernels.size() == 6);
    CHECK(isFlaConfigDirPath(exported()) && isFlaConfigDirPath(manifestOf(exported())));
    CHECK(!isFlaConfigDirPath(plain_test::seedProfile()) && !isFlaConfigDirPath(scratch() / "none.json"));
    // a partial choice: the keys FLA autotunes are listed and read
    const FlaCapture capture = readFlaCapture(captureData() / "h100-gdr-fwd-T4096.json");
    FlaChoices one = capturedFlaChoices(capture);
    one.choices.resize(1);
    exportFlaConfigDir(capture, one, scratch() / "partial");
    const FlaConfigDir partial = readFlaConfigDir(scratch() / "partial");
    CHECK(partial.kernels.size() == 1 && partial.keysWithoutChoice.size() == 5);
}

void testChangedKernelFile() {
    const fs::path dir = copyOf("changed");
    const fs::path file = dir / "chunk_fwd_kernel_o.json";
    std::string text = readTextFile(file);
    text.replace(text.find("\"num_warps\": 2"), 14, "\"num_warps\": 4");  // same size, another SHA-256
    writeFileAtomic(file, text);
    const FlaConfigDirCheck check = checkFlaConfigDir(dir);
    CHECK(!check.dir && check.faults.size() == 1);
    CHECK(hasFault(check, file, "", "(at /files/5/sha256)"));
    // one byte more: the size is named too
    writeFileAtomic(file, text + " ");
    const FlaConfigDirCheck longer = checkFlaConfigDir(dir);
    CHECK(hasFault(longer, file, "", "(at /files/5/bytes)") && hasFault(longer, file, "", "(at /files/5/sha256)"));
    bool threw = false;
    try {
        readFlaConfigDir(dir);
    } catch (const Error& e) {
        threw = e.file() == file.string();
    }
    CHECK(threw);
}

void testManifestFaults() {
    const fs::path edited = copyOf("digest-edited");
    Json m = readJsonFile(manifestOf(edited));
    m["created_by"] = "someone else";  // the digest no longer holds
    writeJson(manifestOf(edited), m);
    CHECK(hasFault(checkFlaConfigDir(edited), manifestOf(edited), "/digest/value", "changed after it was written"));

    const fs::path unknown = copyOf("unknown-member");
    redigest(unknown, [](Json& doc) {
        doc["signed_off_by"] = "me";
        doc["files"][2]["mode"] = 420;
        doc["capture"].erase("created_utc");
    });
    const FlaConfigDirCheck u = checkFlaConfigDir(unknown);
    CHECK(u.faults.size() == 3);
    CHECK(hasFault(u, manifestOf(unknown), "/signed_off_by", "unknown member"));
    CHECK(hasFault(u, manifestOf(unknown), "/files/2/mode", "unknown member"));
    CHECK(hasFault(u, manifestOf(unknown), "/capture/created_utc", "is missing"));

    const fs::path format = copyOf("format");
    redigest(format, [](Json& doc) {
        doc["format"] = "tunescope-fla-config-dir-v2";
        doc["files"][0]["name"] = "other.json";
        doc["files"][1]["sha256"] = "ABC";
    });
    const FlaConfigDirCheck f = checkFlaConfigDir(format);
    CHECK(hasFault(f, manifestOf(format), "/format"));
    CHECK(hasFault(f, manifestOf(format), "/files/0/name", "FLA loads {kernel_name}.json"));
    CHECK(hasFault(f, manifestOf(format), "/files/1/sha256", "64 lowercase hex"));

    const fs::path malformed = copyOf("malformed");
    writeFileAtomic(manifestOf(malformed), "{\"format\": \"tunescope-fla-config-dir-v1\",");
    const FlaConfigDirCheck bad = checkFlaConfigDir(malformed);
    CHECK(bad.faults.size() == 1 && bad.faults[0].file() == manifestOf(malformed).string());
    CHECK(isFlaConfigDirPath(manifestOf(malformed)));  // so validate reports its syntax error as this reader's

    const FlaConfigDirCheck none = checkFlaConfigDir(scratch() / "no-such-folder");
    CHECK(none.faults.size() == 1 && none.faults[0].message().find("is missing") != std::string::npos);
    fs::create_directories(scratch() / "plain-folder");  // a folder without a manifest
    const FlaConfigDirCheck folder = checkFlaConfigDir(scratch() / "plain-folder");
    CHECK(folder.faults.size() == 1 && folder.faults[0].file() == (scratch() / "plain-folder").string() &&
          folder.faults[0].message().find("is a folder, not a file, and no FLA_CONFIG_DIR") == 0);
}

void testFolderFaults() {
    const fs::path missing = copyOf("missing");
    fs::remove(missing / "recompute_w_u_fwd_kernel.json");
    const FlaConfigDirCheck m = checkFlaConfigDir(missing);
    CHECK(m.faults.size() == 1 && hasFault(m, missing / "recompute_w_u_fwd_kernel.json", "", "is missing"));

    const fs::path unlisted = copyOf("unlisted");
    writeFileAtomic(unlisted / "chunk_kda_fwd_kernel.json", "{}\n");  // FLA would load it
    writeFileAtomic(unlisted / "README.md", "notes\n");                // FLA never loads it
    writeFileAtomic(unlisted / "notes.v2.json", "{}\n");               // no kernel has this name
    const FlaConfigDirCheck u = checkFlaConfigDir(unlisted);
    CHECK(u.faults.size() == 1 && hasFault(u, unlisted / "chunk_kda_fwd_kernel.json", "", "FLA loads it"));
    CHECK(u.warnings.size() == 2);

    const fs::path count = copyOf("entry-count");
    redigest(count, [](Json& doc) { doc["files"][0]["entries"] = 2; });
    CHECK(hasFault(checkFlaConfigDir(count), count / "l2norm_fwd_kernel.json", "/autotune_entries",
                   "holds 1 entries, but tunescope-fla-config-dir.json lists 2 (at /files/0/entries)"));
}

void testKernelFileFormat() {
    const fs::path dir = copyOf("format-kernel");
    const fs::path file = dir / "chunk_fwd_kernel_o.json";
    std::string hash;
    changeKernelFileResealed(dir, "chunk_fwd_kernel_o", [&](Json& doc) {
        Json& entries = doc["autotune_entries"];
        hash = entries.begin().key();
        entries[hash]["config"].erase("num_stages");
        entries[hash]["note"] = "hand-edited";
        Json moved = entries[hash];
        entries["0123456789abcdef0123456789abcdef"] = moved;  // FLA's md5 of the key is another
        doc["triton_version"] = "3.7.0";
        doc["kernel_name"] = "chunk_fwd_kernel_h";
    });
    const FlaConfigDirCheck c = checkFlaConfigDir(dir);
    const std::string at = "/autotune_entries/" + hash;
    CHECK(hasFault(c, file, at + "/config/num_stages", "is missing"));
    CHECK(hasFault(c, file, at + "/note", "unknown member"));
    CHECK(hasFault(c, file, "/autotune_entries/0123456789abcdef0123456789abcdef", "not FLA's md5"));
    CHECK(hasFault(c, file, "/triton_version", "Triton 3.6.0"));
    CHECK(hasFault(c, file, "/kernel_name", "FLA loads it for chunk_fwd_kernel_o"));
    CHECK(hasFault(c, file, "/autotune_entries", "holds 2 entries"));

    const fs::path dup = copyOf("duplicate-key");
    const fs::path dupFile = dup / "l2norm_fwd_kernel.json";
    changeKernelFileResealed(dup, "l2norm_fwd_kernel", [](Json&) {});
    std::string text = readTextFile(dupFile);
    text.replace(text.find("\"kernel_name\""), 13, "\"kernel_name\": \"l2norm_fwd_kernel\",\n  \"kernel_name\"");
    writeFileAtomic(dupFile, text);
    const FlaConfigDirCheck d = checkFlaConfigDir(dup);
    bool duplicate = false;
    for (const auto& e : d.faults) duplicate = duplicate || (e.file() == dupFile.string() && e.message().find("duplicate") != std::string::npos);
    CHECK(duplicate);
}

void testSignAndVerify() {
    const fs::path dir = copyOf("signed");
    const fs::path keys = scratch() / "keys";
    fs::create_directories(keys);
    const KeyPairFiles key = generateKeyPair(keys / "k", std::nullopt, true);
    const KeyPairFiles other = generateKeyPair(keys / "other", std::nullopt, true);
    const SignResult signed_ = signFlaConfigDir(dir, key.privateKeyFile);
    CHECK(signed_.signatureFile == flaConfigDirSignaturePath(dir));
    const Json envelope = readJsonFile(signed_.signatureFile);
    CHECK(envelope["payloadType"] == kFlaConfigDirPayloadType);
    CHECK(checkFlaConfigDir(dir).faults.empty() && checkFlaConfigDir(dir).warnings.empty());  // the signature is expected
    const FlaConfigDirVerifyResult good = verifyFlaConfigDir(dir, key.publicKeyFile);
    CHECK(good.ok() && good.files == 6);
    CHECK(verifyFlaConfigDir(manifestOf(dir), key.publicKeyFile).ok());
    CHECK(!verifyFlaConfigDir(dir, other.publicKeyFile).ok());

    // A changed kernel file: the manifest's signature holds, the folder does not match it.
    const fs::path file = dir / "chunk_gated_delta_rule_fwd_kkt_solve_kernel.json";
    const std::string original = readTextFile(file);
    std::string text = original;
    text.replace(text.find("\"BK\": 64"), 8, "\"BK\": 32");
    writeFileAtomic(file, text);
    const FlaConfigDirVerifyResult changed = verifyFlaConfigDir(dir, key.publicKeyFile);
    CHECK(changed.signature.ok && !changed.ok() && changed.folderFaults.size() == 1 &&
          changed.folderFaults[0].file() == file.string());
    writeFileAtomic(file, original);

    // A changed manifest: the signature fails, in the manifest's words.
    const fs::path edited = copyOf("signed-edited");
    fs::copy_file(signed_.signatureFile, flaConfigDirSignaturePath(edited), fs::copy_options::overwrite_existing);
    redigest(edited, [](Json& m) { m["files"][0]["entries"] = 1; m["created_by"] = "x"; });
    const FlaConfigDirVerifyResult e = verifyFlaConfigDir(edited, key.publicKeyFile);
    CHECK(!e.signature.ok && e.signature.reason.find("the manifest has changed since it was signed") == 0);

    // Neither a profile's signature passes for a folder's, nor a folder's for a profile's.
    const fs::path profile = scratch() / "profile.json";
    fs::copy_file(plain_test::seedProfile(), profile, fs::copy_options::overwrite_existing);
    const SignResult profileSig = signProfile(profile, key.privateKeyFile);
    const FlaConfigDirVerifyResult cross = verifyFlaConfigDir(dir, key.publicKeyFile, profileSig.signatureFile);
    CHECK(!cross.ok() && cross.signature.reason.find("a signature made for another kind of document") != std::string::npos);
    const VerifyResult back = verifyProfile(profile, key.publicKeyFile, signed_.signatureFile);
    CHECK(!back.ok && back.reason.find("a signature made for another kind of document") != std::string::npos);
    // the manifest signed as "a profile" still gets the folder's payloadType (one DSSE code path decides it)
    const SignResult asProfile = signProfile(manifestOf(dir), key.privateKeyFile, std::nullopt, scratch() / "m.sig.json");
    CHECK(readJsonFile(asProfile.signatureFile)["payloadType"] == kFlaConfigDirPayloadType);

    // A folder that does not check is not signed.
    const fs::path faulty = copyOf("faulty");
    writeFileAtomic(faulty / "extra_kernel.json", "{}\n");
    bool refused = false;
    try {
        signFlaConfigDir(faulty, key.privateKeyFile);
    } catch (const Error& err) {
        refused = err.file() == (faulty / "extra_kernel.json").string();
    }
    CHECK(refused && !fs::exists(flaConfigDirSignaturePath(faulty)));
}

void testLookupAndDiff() {
    const FlaConfigDir dir = readFlaConfigDir(exported());
    const FlaConfigDirKernel* o = dir.kernel("chunk_fwd_kernel_o");
    CHECK(o != nullptr);
    if (!o) return;
    const FlaConfigDirEntry& entry = o->entries.front();
    const FlaConfigDirLookup byHash = lookupFlaConfigDir(dir, "chunk_fwd_kernel_o", entry.key_hash);
    CHECK(byHash.outcome == FlaConfigDirLookup::Outcome::Found && byHash.entry && byHash.entry->config == entry.config);
    CHECK(flaConfigText(entry.config) == "BK=32 BV=32 num_warps=2 num_ctas=1 num_stages=3");  // the scripted config 2
    const FlaConfigDirLookup byKey = lookupFlaConfigDir(dir, "chunk_fwd_kernel_o", entry.autotune_key.dump());
    CHECK(byKey.ok() && byKey.key_hash == entry.key_hash);
    CHECK(lookupFlaConfigDir(dir, "chunk_fwd_kernel_o", "").outcome == FlaConfigDirLookup::Outcome::Keys);
    const FlaConfigDirLookup noKey = lookupFlaConfigDir(dir, "chunk_fwd_kernel_o", std::string(32, '0'));
    CHECK(noKey.outcome == FlaConfigDirLookup::Outcome::UnknownKey && noKey.error.find("strict") != std::string::npos);
    const FlaConfigDirLookup noKernel = lookupFlaConfigDir(dir, "chunk_kda_fwd_kernel", "");
    CHECK(noKernel.outcome == FlaConfigDirLookup::Outcome::UnknownKernel && !noKernel.ok());
    bool badKey = false;
    try {
        lookupFlaConfigDir(dir, "chunk_fwd_kernel_o", "c88ad89");
    } catch (const Error& e) {
        badKey = e.message().find("--key") == 0;
    }
    CHECK(badKey);
    // a kernel whose keys all lack a choice has no file: FLA autotunes it
    const FlaConfigDir partial = readFlaConfigDir(scratch() / "partial");
    const FlaConfigDirLookup autotuned = lookupFlaConfigDir(partial, "chunk_fwd_kernel_o", "");
    CHECK(autotuned.outcome == FlaConfigDirLookup::Outcome::UnknownKernel &&
          autotuned.error.find("FLA autotunes it") != std::string::npos);

    CHECK(diffFlaConfigDirs(dir, dir).empty());
    const FlaConfigDirDiff d = diffFlaConfigDirs(dir, partial);
    std::size_t removed = 0, changedConfigs = 0;
    for (const auto& c : d.entries) {
        removed += c.what == "removed" ? 1 : 0;
        changedConfigs += c.what == "config" ? 1 : 0;
    }
    CHECK(removed == 5 && changedConfigs == 1);  // l2norm: the scripted config 9 against FLA's own 8
    CHECK(d.other.size() == 2);                  // /choices and /keys_without_choice
}

}  // namespace

int main() {
    testValidFolder();
    testChangedKernelFile();
    testManifestFaults();
    testFolderFaults();
    testKernelFileFormat();
    testSignAndVerify();
    testLookupAndDiff();
    if (g_failures) std::cerr << g_failures << " check(s) failed\n";
    else std::cout << "fla_config_dir: all checks passed\n";
    fs::remove_all(scratch());
    return g_failures ? 1 : 0;
}
