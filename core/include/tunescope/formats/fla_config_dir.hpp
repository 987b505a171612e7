#pragma once
// An FLA_CONFIG_DIR that `capture export-fla` wrote (docs/fla-capture.md, "The folder: validate, sign, lookup,
// diff"): its manifest tunescope-fla-config-dir.json (tunescope-fla-config-dir-v1) read and checked, every file it
// lists checked against it (present, size, SHA-256, FLA's cache format, entry count), files it does not list found;
// the folder signed and verified through its manifest; FLA's config for one (kernel, key) looked up; two folders
// compared per kernel and key.
//
// Files the manifest does not list: an unlisted `<identifier>.json` is a fault, because FLA loads
// FLA_CONFIG_DIR/{kernel_name}.json for any kernel it runs, so such a file would change what FLA runs while neither
// the manifest's hashes nor a signature cover it. The manifest's own signature (tunescope-fla-config-dir.json.sig.json)
// is expected; anything else (a README, a subfolder, a name FLA never builds) is a warning.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/signing.hpp"

namespace tunescope {

// DSSE payloadType of a signed folder (its manifest's canonical form). Inside the signed bytes, like the profile's
// and the cuBLASLt policy's, so neither of their signatures passes for a folder's, nor a folder's for theirs.
inline constexpr std::string_view kFlaConfigDirPayloadType = "application/vnd.tunescope.fla-config-dir+json";

// One autotune entry of a kernel file: what FLA_CACHE_MODE=strict loads for the key whose md5 is key_hash.
struct FlaConfigDirEntry {
    std::string key_hash;
    Json autotune_key;
    Json config;       // Triton's Config.__dict__ as the capture recorded it
    Json best_timing;  // [p50, p20, p80] ms, or null
};

struct FlaConfigDirKernel {
    std::string kernel_name;
    std::filesystem::path file;  // <folder>/<kernel_name>.json
    std::string sha256;
    std::size_t bytes = 0;
    std::string triton_version;
    Json default_config;
    std::vector<FlaConfigDirEntry> entries;  // in file order (FLA's exporter writes hash order)

    const FlaConfigDirEntry* entry(const std::string& keyHash) const;
};

struct FlaConfigDir {
    std::filesystem::path folder, manifestFile;
    Json manifest;  // as read
    std::vector<FlaConfigDirKernel> kernels;  // in the manifest's order
    std::vector<std::pair<std::string, std::string>> keysWithoutChoice;  // (kernel, key_hash): FLA autotunes them

    const FlaConfigDirKernel* kernel(const std::string& name) const;
    std::size_t entryCount() const;
};

struct FlaConfigDirCheck {
    std::filesystem::path folder, manifestFile;
    std::vector<Error> faults;          // Error(file, JSON Pointer in it, message); empty: `dir` holds the folder
    std::vector<std::string> warnings;  // unlisted files FLA never loads
    std::optional<FlaConfigDir> dir;
};

// The manifest of a folder, or the file itself when `folderOrManifest` is not a folder.
std::filesystem::path flaConfigDirManifestPath(const std::filesystem::path& folderOrManifest);

// A folder (any folder: its check says what is missing), or a JSON file whose "format" is
// tunescope-fla-config-dir-v1 (a malformed one that names the format in its opening too, so its syntax error is
// reported by this reader). Never throws.
bool isFlaConfigDirPath(const std::filesystem::path& path);

// Every fault of the folder: the manifest (unreadable, malformed, unknown or missing members, wrong types, its
// digest), then each listed file (missing, size, SHA-256, FLA's cache format, entry count), then unlisted files.
FlaConfigDirCheck checkFlaConfigDir(const std::filesystem::path& folderOrManifest);

// The folder when it has no fault; throws the first fault otherwise.
FlaConfigDir readFlaConfigDir(const std::filesystem::path& folderOrManifest);

// The folder's entries as choices of the capture it was exported from: each entry's config is the capture kernel's
// config whose recorded dict it equals (configs[i].original, what flaConfigDocuments writes), best_timing kept, in
// the folder's kernel and entry order. source, fileName (the choices file's name) and sha256 are the manifest's
// /choices; capture_digest the capture's. Throws Error(manifest, "/capture/digest", ...) when the folder names another
// capture, and Error(kernel file, "/autotune_entries/<hash>/config", ...) for an entry whose config the capture does
// not have or may not export (exportableFlaConfigs); an unknown kernel or key names its pointer too.
FlaChoices flaChoicesOfConfigDir(const FlaCapture& capture, const FlaConfigDir& dir);

// "6 kernels, 6 entries, 0 keys without a choice, scripted choices, capture db75d57dc05a, NVIDIA H100 80GB HBM3
// sm_90, FLA 0.5.2, Triton 3.6.0".
std::string flaConfigDirSummary(const FlaConfigDir& dir);

// "BK=64 BV=128 num_warps=4 num_ctas=1 num_stages=2" (+ maxnreg, ir_override when set): a config for messages.
std::string flaConfigText(const Json& config);

// Signing. The signature covers the manifest's canonical form (signProfile's DSSE envelope, payloadType
// kFlaConfigDirPayloadType), and the manifest holds every file's SHA-256, so verifying re-checks every file too.
// Default signature file: <manifest>.sig.json, inside the folder.
std::filesystem::path flaConfigDirSignaturePath(const std::filesystem::path& folderOrManifest);

// Refuses (throws the first fault) a folder that does not check: a signature over a manifest its files contradict
// would vouch for files nobody wrote. Then signs the manifest as signProfile does.
SignResult signFlaConfigDir(const std::filesystem::path& folderOrManifest, const std::filesystem::path& privateKeyFile,
                            const std::optional<std::filesystem::path>& passphraseFile = std::nullopt,
                            const std::optional<std::filesystem::path>& signatureFile = std::nullopt);

struct FlaConfigDirVerifyResult {
    VerifyResult signature;           // the manifest's signature (verifyProfile's verdict)
    std::vector<Error> folderFaults;  // with a good signature: what of the folder no longer matches the manifest
    std::size_t files = 0;            // kernel files checked against the signed manifest (when ok)
    bool ok() const { return signature.ok && folderFaults.empty(); }
};

// Throws Error only where verifyProfile does (missing files, unreadable key, a manifest with no canonical form).
FlaConfigDirVerifyResult verifyFlaConfigDir(const std::filesystem::path& folderOrManifest,
                                            const std::filesystem::path& publicKeyFile,
                                            const std::optional<std::filesystem::path>& signatureFile = std::nullopt);

// Lookup: the entry FLA_CACHE_MODE=strict loads for one key of one kernel. `key` is FLA's key as a JSON array
// ("[64, 128, \"torch.bfloat16\"]", hashed as FLA hashes it) or its 32-digit key hash; empty lists the kernel's keys.
struct FlaConfigDirLookup {
    enum class Outcome { Found, Keys, UnknownKernel, UnknownKey };
    Outcome outcome = Outcome::UnknownKernel;
    std::string kernel_name, key_hash;
    const FlaConfigDirKernel* kernel = nullptr;  // into the FlaConfigDir looked up in
    const FlaConfigDirEntry* entry = nullptr;    // Found
    std::vector<std::string> keysWithoutChoice;  // of this kernel
    std::string error;                           // UnknownKernel, UnknownKey: what the user reads
    bool ok() const { return outcome == Outcome::Found || outcome == Outcome::Keys; }
};
// Throws Error("", "", ...) for a key that is neither a JSON array nor 32 lowercase hex digits.
FlaConfigDirLookup lookupFlaConfigDir(const FlaConfigDir& dir, const std::string& kernelName, const std::string& key);
Json toJson(const FlaConfigDirLookup& lookup);

// Diff: per kernel and key, which configs (and timings) differ, and the manifest members that differ besides the
// files (capture, choices, device, stack, keys_without_choice; created_by and the digest are not compared).
struct FlaConfigDirChange {
    std::string kernel_name, key_hash;
    std::string what;  // "added", "removed", "config", "best_timing", "autotune_key"
    Json before, after;
};
struct FlaConfigDirDiff {
    std::vector<FlaConfigDirChange> entries;
    std::vector<std::string> other;  // manifest members that differ: "/capture", "/stack", ...
    bool empty() const { return entries.empty() && other.empty(); }
};
FlaConfigDirDiff diffFlaConfigDirs(const FlaConfigDir& before, const FlaConfigDir& after);
std::string formatFlaConfigDirChange(const FlaConfigDirChange& change);
Json toJson(const FlaConfigDirDiff& diff);

}  // namespace tunescope
