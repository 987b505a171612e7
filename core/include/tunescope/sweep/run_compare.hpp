#pragma once
// Run-vs-run comparison of two sweep results files (H200 vs H100, before vs after a driver update, run 1 vs run 2):
// for every shape x config measured in both, the ratio B/A of the medians with the conservative verdict of
// compareMeasurements() (two independent measurements, nvbench-compare style) and an interval for the ratio; then
// per NB what changed: each run's winner and what keeping A's winner costs on B. The CLI (`compare`) and the GUI's
// compare view both call compareRuns(), so both say the same thing (docs/sweep.md, docs/gui.md).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/device/measurement.hpp"
#include "tunescope/sweep/results.hpp"

namespace tunescope {

// A record is fit to be called anyone's "best" or to enter a regret only when its sampling converged: a point that
// stalled, timed out or hit the sample cap after a few samples has a median nobody should rank by.
bool isTrustworthy(const Measurement& m);

struct RunComparisonRow {
    ResultRecord::Kind kind = ResultRecord::Kind::L2Norm;
    int nb = 0;
    std::int64_t rows = 0;
    L2NormConfig config;             // meaningless for Copy rows
    L2Regime l2 = L2Regime::Cold;    // A's regime (B's is the same unless RunComparison::acrossRegimes says otherwise)
    const ResultRecord* a = nullptr; // the records compared (pointers into the two ResultsFile objects)
    const ResultRecord* b = nullptr;
    double ratio = 0;                // b.median / a.median: below 1 means B is faster
    double ratioLow = 0, ratioHigh = 0;  // B's interval over A's: [b.ciLow / a.ciHigh, b.ciHigh / a.ciLow]
    Comparison verdict = Comparison::Ambiguous;  // of B against A: FASTER means B is faster than A
    std::string reason;              // compareMeasurements' one-line reason
    bool bothTrustworthy = false;    // both sides converged
};

// Per NB and L2 regime: the winners (fastest trustworthy l2norm record of each run) and what they tell.
struct RunComparisonNb {
    int nb = 0;
    L2Regime l2 = L2Regime::Cold;
    std::optional<L2NormConfig> winnerA, winnerB;  // empty when a run has no trustworthy record at this NB
    double winnerAMedianMs = 0, winnerBMedianMs = 0;
    bool winnerChanged = false;
    // Keeping A's winner on B: B's median of A's winner over B's best, minus 1 (0 when the winner did not change,
    // empty when B did not measure A's winner trustworthily).
    std::optional<double> regretOfAWinnerOnB;
    // compareMeasurements(B's winner, A's winner as measured on B): FASTER = the new winner is really faster, SAME
    // or AMBIGUOUS = the change is within the noise (a tie), so there is nothing to re-tune.
    Comparison winnerChangeVerdict = Comparison::Same;
    // How alike the two runs rank this NB's configs: Spearman's rank correlation of the medians over the
    // configs both runs measured trustworthily (ties get their mean rank); empty with fewer than 3 such configs.
    // Comparing a sweep of the stand-in kernel (A) with one of FLA's Triton kernel (B) this says whether the
    // stand-in would pick the real kernel's configs (docs/triton-kernels.md).
    std::optional<double> rankCorrelation;
    std::size_t rankedConfigs = 0;
};

struct RunComparison {
    std::string fileA, fileB;
    std::string deviceA, deviceB;    // the first device of each header ("NVIDIA H200"), for captions
    std::string kernelA, kernelB;    // what each run measured: "native" (the stand-in) or "triton" (FLA's binaries)
    std::string timerA, timerB;      // the timer of each run's records (cupti, events, steady_clock)
    // Records pair by L2 regime; when each file holds one regime and they differ, they pair across them and this
    // says so ("cold (A) against warm (B)"); empty otherwise.
    std::string acrossRegimes;
    std::vector<RunComparisonRow> rows;        // matched pairs, sorted by kind, NB, rows, config
    std::vector<RunComparisonNb> perNb;        // sorted by NB, then regime
    std::size_t onlyInA = 0, onlyInB = 0;      // records without a partner in the other file
    std::size_t duplicatesIgnored = 0;         // a second record of the same key in one file (the first is used)
    std::size_t faster = 0, slower = 0, same = 0, ambiguous = 0;  // verdict counts over `rows` (B against A)
    std::size_t untrustworthyPairs = 0;        // rows where a side did not converge
    double geomeanRatio = 0;                   // geometric mean of the l2norm ratios (B/A), 0 when none
    std::size_t winnersChanged = 0;            // NBs whose winner changed
    std::size_t winnersChangedSignificantly = 0;  // ... and the new winner is FASTER on B (not a tie)
    std::optional<double> lowestRankCorrelation;  // over the NBs that have one
    int lowestRankNb = 0;
};

struct RunCompareOptions {
    CompareOptions compare;  // thresholds of compareMeasurements
};

// Compares two loaded results files; the files must outlive the result (rows point into them).
RunComparison compareRuns(const ResultsFile& a, const ResultsFile& b, const RunCompareOptions& options = {});

// Spearman's rank correlation of two equally long series (mean ranks for ties); NaN when either is constant or
// shorter than 2.
double spearmanRankCorrelation(const std::vector<double>& a, const std::vector<double>& b);
// A run's kernel in words, from its plan ("native" -> "TuneScope's stand-in kernel").
std::string describeKernel(const std::string& kernel);


}  // namespace tunescope
