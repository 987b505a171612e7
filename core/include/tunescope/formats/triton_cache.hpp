#pragma once
// Triton's autotune disk cache (Triton 3.7: <cache dir>/<hash>/l2norm_fwd_kernel.autotune.json):
//   {"key": [128, 1, "torch.bfloat16", "torch.bfloat16", "torch.float32"],
//    "configs_timings": [[<Config.__dict__>, [p50, p20, p80]], ...]}
// A config that failed to compile is timed [Infinity, Infinity, Infinity] (Python's bare token); newer Triton writes
// key items as strings ("128"). Both are accepted. Importing turns each file into source evidence (the config
// Triton chose, with the file's SHA-256) and a per-NB policy entry.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope {

inline constexpr std::string_view kL2NormKernelName = "l2norm_fwd_kernel";

struct TritonTimedConfig {
    TritonConfig config;
    std::vector<double> timings;  // [p50, p20, p80] in ms; +inf for configs that failed
};

struct TritonAutotuneCache {
    std::string file;                       // where it was read from (for messages)
    std::string sha256;                     // SHA-256 of the file's bytes (source_autotune_sha256)
    Json key;                               // as written (numbers or strings)
    std::optional<AutotuneKey> parsedKey;   // when the key has l2norm's shape
    std::vector<TritonTimedConfig> configsTimings;

    // Triton's choice: the smallest timing list (lexicographic, so the median decides), first one on ties.
    // nullptr when there is none or every config failed (all timings infinite).
    const TritonTimedConfig* best() const;
};

// Parses one cache file's text (Infinity tokens allowed). Throws Error with file and JSON Pointer.
TritonAutotuneCache parseTritonAutotuneCache(std::string_view text, const std::string& fileName);
TritonAutotuneCache loadTritonAutotuneCache(const std::filesystem::path& file);
// Every <kernel>.autotune.json below `folder` (recursively, symlinked folders not followed), sorted by path.
std::vector<std::filesystem::path> findTritonAutotuneFiles(const std::filesystem::path& folder,
                                                           std::string_view kernel = kL2NormKernelName);
// A single file, or every matching file in a folder. Throws Error when a folder holds no such file.
std::vector<TritonAutotuneCache> loadTritonAutotuneCaches(const std::filesystem::path& fileOrFolder,
                                                          std::string_view kernel = kL2NormKernelName);

// What an import did, one line per decision (stable wording; the CLI prints them).
struct ImportSummary {
    std::size_t evidenceAdded = 0;
    std::size_t evidenceReplaced = 0;
    std::size_t policySet = 0;
    std::size_t skipped = 0;
    std::vector<std::string> messages;
};

// Settings for a profile made from scratch by an import (when there is no profile to import into).
struct NewProfileOptions {
    std::int64_t keyHeads = 16;
    std::int64_t batchSizeMin = 1;
    std::int64_t batchSizeMax = 8;
    std::int64_t paddedTokensMax = 16384;
    std::string gpuArch = "unknown";
    std::string triton = "unknown";
    std::string fla = "unknown";
    std::optional<std::string> torch;
    std::optional<std::string> hip;
    std::optional<std::string> cuda;
    std::string target;
};

// Adds source evidence and sets policy entries (basis original-production-chosen) from the caches. Keys that do not
// match the profile's `supported` (head dimension, dtypes, NB range) are skipped with a message; "measured-best"
// entries keep their config (the evidence is still recorded); two caches for one NB: the first (by path) wins.
ImportSummary importTritonCaches(Profile& profile, const std::vector<TritonAutotuneCache>& caches);

// A new profile from caches: `supported` from the first usable key and the options; every NB without a cache gets
// the config of the largest imported NB, basis "prospective-fixed-original-NB<k>-setting" (as the seed does).
Profile profileFromTritonCaches(const std::vector<TritonAutotuneCache>& caches, const NewProfileOptions& options,
                                ImportSummary* summary = nullptr);

}  // namespace tunescope
