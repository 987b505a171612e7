#pragma once
// FLA's config-cache file (FLA >= 0.5.2, fla/ops/utils/cache.py): <FLA_CONFIG_DIR>/l2norm_fwd_kernel.json
//   {"kernel_name": "l2norm_fwd_kernel", "triton_version": "3.7.1",
//    "default_config": {"kwargs": {...}, "num_warps": .., "num_ctas": .., "num_stages": ..},
//    "autotune_entries": {"<md5 of the key>": {"autotune_key": [...], "config": {...}, "best_timing": [...]}}}
// Entries are keyed by md5(json.dumps(key, separators=(",", ":"), sort_keys=True)); FLA with FLA_CACHE_MODE=strict
// uses an entry only on an exact key match and needs kwargs, num_warps, num_stages and num_ctas in each config.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/base/json_layout.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/triton_cache.hpp"

namespace tunescope {

inline constexpr std::string_view kFlaConfigFileName = "l2norm_fwd_kernel.json";

// Python's json.dumps(value, separators=(",", ":"), sort_keys=True) (ensure_ascii, repr floats).
std::string pythonCompactSortedJson(const Json& value);
// FLA's entry id: md5 of the above. [128,1,"torch.bfloat16","torch.bfloat16","torch.float32"] ->
// 878a9638751a7375a0fb15d3a7767659.
std::string flaKeyHash(const Json& key);

struct FlaConfigEntry {
    std::string hash;                      // the member name in autotune_entries
    Json autotune_key;                     // as written
    std::optional<AutotuneKey> parsedKey;  // when it has l2norm's shape
    TritonConfig config;
    Json best_timing;                      // [p50, p20, p80], or null
    Json original = Json::object();
};

struct FlaConfigFile {
    std::string kernel_name{kL2NormKernelName};
    std::string triton_version;
    std::optional<TritonConfig> default_config;
    std::vector<FlaConfigEntry> entries;  // in file order
    Json original = Json::object();
    JsonLayout layout;
    std::string fileName;
};

FlaConfigFile parseFlaConfig(const Json& document, const std::string& fileName = "");
FlaConfigFile loadFlaConfig(const std::filesystem::path& file);
// The file as FLA reads it; default_config carries kwargs, num_warps, num_ctas, num_stages.
Json toJson(const FlaConfigFile& file);
std::string serializeFlaConfig(const FlaConfigFile& file);

// One entry per per_NB_policy entry, in NB order, keyed by FLA's hash; best_timing from measured evidence
// ([median, p20, p80]) or null; default_config = the config of the first entry in hash order (as FLA's exporter).
FlaConfigFile flaConfigFromProfile(const Profile& profile);

struct FlaExportResult {
    std::filesystem::path configFile;    // <dir>/l2norm_fwd_kernel.json
    std::filesystem::path manifestFile;  // <dir>/<manifest name>
    std::string configSha256;            // the SHA-256 recorded in the manifest's files[]
    Profile manifest;                    // the profile as written
};

// Writes the FLA config file and the profile manifest side by side (both atomically; the folder is created).
// The manifest's files[] entry for l2norm_fwd_kernel.json carries the SHA-256 of the bytes written.
// `manifestName` defaults to the profile's own file name, or "profile.json". The FLA file's triton_version is the
// profile's runtime.triton: after promote, the version of the Triton binaries that were measured. A profile whose
// entries come from more than one GPU architecture (policyArchitectures) is refused with an Error unless
// `allowMixedArchitectures`: FLA would load all of them on one GPU.
FlaExportResult exportFla(const Profile& profile, const std::filesystem::path& dir, std::string manifestName = "",
                          bool allowMixedArchitectures = false);

// Sets the policy of every NB whose config in the file differs from the profile's (basis "imported-fla-config", or
// "original-production-chosen" when it equals production's recorded choice); equal configs keep their entry.
// "measured-best" entries are kept. Entries whose hash is not FLA's hash of their key are imported with a message
// (FLA itself would never find them). Keys outside `supported` are skipped.
ImportSummary importFlaConfig(Profile& profile, const FlaConfigFile& file);
// A new profile from an FLA file (gaps filled with the largest NB's config, basis
// "prospective-fixed-imported-NB<k>-setting").
Profile profileFromFlaConfig(const FlaConfigFile& file, const NewProfileOptions& options,
                             ImportSummary* summary = nullptr);

}  // namespace tunescope
