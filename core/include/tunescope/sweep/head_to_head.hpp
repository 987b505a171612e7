#pragma once
// Head to head: two policies re-measured against each other (`tunescope-cli confirm`, docs/sweep.md "Head to head").
// The candidate (e.g. an exported profile) and the baseline (e.g. FLA's own autotune picks, imported) are measured
// per NB in the same rounds, each with an A/A replica, and judged on their per-round ratios: a claimed speedup
// stands only when a fresh, paired measurement shows it, and the A/A control says whether the machine was quiet
// enough to tell.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tunescope/device/measurement.hpp"
#include "tunescope/sweep/results.hpp"

namespace tunescope {

// One side of a head-to-head: the config it launches per NB (D = 128, bf16), read from
//   - a profile (decision-fla-l2norm-profile-v1): every per_NB_policy entry;
//   - FLA's config-cache file (l2norm_fwd_kernel.json, what FLA's autotune writes and export-fla exports): every
//     entry whose key is l2norm's D = 128, bf16 -> bf16, float32 rstd, under its key's NB;
//   - a folder holding l2norm_fwd_kernel.json (an FLA_CONFIG_DIR, e.g. export-fla's output): that file, which is
//     exactly what FLA loads;
//   - Triton's autotune cache, what FLA's own autotune leaves behind: a l2norm_fwd_kernel.autotune.json file, or a
//     folder (TRITON_CACHE_DIR) of them without an l2norm_fwd_kernel.json; per NB the config Triton chose.
struct PolicyConfigs {
    std::string file;    // the file read (for an FLA folder, its l2norm_fwd_kernel.json; a Triton cache folder itself)
    std::string sha256;  // of that file's bytes (a Triton cache folder: of its files' SHA-256s, in path order)
    std::string kind;    // "profile", "fla-config" or "triton-autotune"
    std::map<int, L2NormConfig> configs;
    std::map<int, std::string> sources;  // triton-autotune: NB -> the cache file its config came from
    std::vector<std::string> skipped;    // triton-autotune: "FILE: why" for each cache file that gave no config
    // "NB 1 (file), NB 14 (file)" or "NB 1-32" and the skipped files: what a message about a missing NB shows.
    std::string describeContents(std::size_t maxItems = 4) const;
};
// Throws Error naming the file (and the JSON Pointer) when it cannot be read or holds no usable entry.
PolicyConfigs loadPolicyConfigs(const std::filesystem::path& path);

enum class HeadToHeadVerdict {
    SameConfig,   // both policies launch the same config at this NB
    Faster,       // the candidate is faster: its whole interval lies below 1 - threshold
    Tie,          // the interval lies within 1 -+ threshold
    Slower,       // the candidate is slower: its whole interval lies above 1 + threshold
    Undecided,    // the interval straddles a threshold: neither shown faster nor slower
    Noisy,        // an A/A control (identical work) came out FASTER or SLOWER: the machine was too noisy to decide
    NotMeasured,  // a policy's config has no measurement at this NB (failed or not run), or no round measured both
};
std::string toString(HeadToHeadVerdict verdict);  // "same config", "FASTER", "TIE", "SLOWER", ...
// A paired comparison's verdict as a head-to-head verdict (SAME is TIE, AMBIGUOUS is UNDECIDED).
HeadToHeadVerdict fromPaired(Comparison comparison);

struct HeadToHeadRow {
    int nb = 0;
    std::int64_t rows = 0;
    L2Regime l2 = L2Regime::Cold;  // a `--l2 both` run has one row per NB and regime
    L2NormConfig candidate, baseline;
    const ResultRecord* candidateRecord = nullptr;
    const ResultRecord* baselineRecord = nullptr;
    PairedComparison paired;                 // candidate / baseline per round: below 1, the candidate is faster
    std::vector<PairedComparison> controls;  // A/A: every replica k > 0 of either config against its replica 0
    double worstControl = 1;                 // the control ratio farthest from 1 (1 when there is none)
    HeadToHeadVerdict verdict = HeadToHeadVerdict::NotMeasured;
    int rounds = 0;
};

struct HeadToHeadReport {
    std::string candidateFile, baselineFile;  // as the plan recorded them
    double threshold = 0.005;
    std::string timer;                 // the plan's timer (cupti, events, steady_clock)
    std::vector<L2Regime> regimes;     // the plan's L2 regimes
    int placements = 1;                // the plan's buffer placements (docs/sweep.md, "Placements")
    std::vector<HeadToHeadRow> rows;  // one per measured NB (and T) and L2 regime, ascending
    std::size_t count(HeadToHeadVerdict verdict) const;
    // The candidate is shown no slower than the baseline at every NB: no SLOWER, and nothing left unjudged
    // (NOISY, NOT MEASURED). UNDECIDED passes: its interval does not clear the threshold either way.
    bool atLeastAsFast() const;
};

// Judges a results file written by a head-to-head plan (its header's plan has "profile" and "baseline"). Throws
// Error naming the file when it is not one.
// The rows point into `results`, which must outlive the report (a temporary file is refused at compile time).
HeadToHeadReport judgeHeadToHead(const ResultsFile& results, double threshold = 0.005);
HeadToHeadReport judgeHeadToHead(ResultsFile&& results, double threshold = 0.005) = delete;

}  // namespace tunescope
