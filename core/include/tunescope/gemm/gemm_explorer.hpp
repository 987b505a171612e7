#pragma once
// The cuBLASLt explorer's Qt-free, CUDA-free half: decoded algorithm configurations, the guided search planner,
// the selection rule and the report (the seed report's field names and structure, extended with ours).
// The CUDA half (libtunescope_cublaslt.so) implements GemmBackend (gemm_backend.hpp); gemm_driver.hpp drives it.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/gemm/gemm_algo.hpp"
#include "tunescope/gemm/gemm_spec.hpp"

namespace tunescope::gemm {

// ---------------------------------------------------------------------------------------------------------------
// Split-k checks (the algorithm types themselves are in gemm_algo.hpp)
// ---------------------------------------------------------------------------------------------------------------

// One explicit split-k check (split 1, 2, 4, ... x allowed reduction schemes) of the heuristic top's config.
struct SplitKCheck {
    AlgoConfig requested;
    CheckResult result;
    std::uint64_t workspaceCapBytes = 0;
    AlgoCapabilities capabilities;
    // AlgoCheck passed but the configuration needs more workspace than the cap: "needs N bytes", not invalid.
    bool overWorkspaceCap() const { return result.ok() && result.requiredWorkspaceBytes > workspaceCapBytes; }
    bool reducedPrecision() const { return requested.splitK > 1 && isReducedPrecisionReduction(requested.reductionScheme); }
};

// The split-k values and reduction schemes the explicit checks cover for one algorithm's capabilities.
std::vector<AlgoConfig> explicitSplitKConfigs(const AlgoConfig& base, const AlgoCapabilities& caps,
                                              const std::vector<int>& splits = {1, 2, 4, 8, 16, 32});

// ---------------------------------------------------------------------------------------------------------------
// Candidates and measurements
// ---------------------------------------------------------------------------------------------------------------
struct FirstPass {
    std::vector<double> samplesMs;
    double medianMs = 0.0;
    int warmups = 0;        // untimed launches right before the samples, back to back with them
    int smClockMHz = -1;    // SM clock read after the candidate's batch, -1 when unknown
    // medianMs over the mean of the heuristic top's items next to it in the same batch (0: not measured so): what
    // the search ranks by, since the power state drifts between batches.
    double relativeToTop = 0.0;
    double topReferenceMs = 0.0;  // the heuristic top's own first-pass median, which relativeToTop scales
    // What the search ranks by: the time relative to the neighbouring top items, in the top's milliseconds.
    double rankMs() const { return relativeToTop > 0 && topReferenceMs > 0 ? relativeToTop * topReferenceMs : medianMs; }
};

// ---------------------------------------------------------------------------------------------------------------
// Paired comparisons over rounds (the confirm stage; docs/explorer.md)
// ---------------------------------------------------------------------------------------------------------------

// A candidate against the heuristic top, one ratio per round (both blocks of a round measured back to back, so the
// ratio is free of drift slower than a round). Rounds are the unit: the interval comes from the spread of the
// per-round log ratios (Student t, rounds - 1 degrees of freedom), never from launches pooled as if independent.
struct PairedGain {
    int rounds = 0;
    double gainPercent = 0.0;  // 100 x (1 - geometric mean of candidate / top): positive = the candidate is faster
    double lowPercent = 0.0, highPercent = 0.0;  // 95% interval of gainPercent
    double low99Percent = 0.0, high99Percent = 0.0;  // 99% interval (the A/A control is judged on it)
    int roundsFaster = 0;      // rounds in which the candidate's block was faster than the top's
    bool valid() const { return rounds >= 2; }
    bool containsZero() const { return lowPercent <= 0.0 && highPercent >= 0.0; }
    bool containsZero99() const { return low99Percent <= 0.0 && high99Percent >= 0.0; }
};
// Throws Error unless both have the same size; fewer than 2 rounds give an invalid (rounds < 2) result.
PairedGain pairedGain(const std::vector<double>& topMs, const std::vector<double>& candidateMs);

// The two power regimes users see: sustained (back to back: a serving GPU at its power cap) and short bursts
// after idle (boost clocks).
enum class Regime { Sustained, Burst };
std::string toString(Regime regime);  // "sustained", "burst"
Regime regimeFromString(std::string_view text);  // throws Error naming the value

// How the confirm stage runs (defaults: about 30 s of the explorer's 60 s budget on the shapes).
struct ConfirmSettings {
    int rounds = 6;                // sustained: balanced rounds, each one block of every entry
    double blockSeconds = 0.5;     // timed part of a sustained block
    double warmupSeconds = 0.1;    // launches before it, dropped (at least 2)
    double preheatSeconds = 1.0;   // the heuristic top runs this long before the first round (steady power state)
    int burstRounds = 4;           // burst: rounds of one burst per entry
    double burstIdleSeconds = 1.5; // the GPU idles this long before each burst
    int burstLaunches = 5;         // launches per burst; the burst's per-launch median is its time
    // Sequential confirm: finalists whose 95% interval straddles the selection threshold after `rounds` (neither
    // clearly above nor clearly below it) get this many more balanced rounds, with the top and the A/A control, and
    // are judged on all their rounds (0: off). At most `extraMaxEntries` of them, the highest gains first.
    int extraRounds = 12;
    int extraMaxEntries = 2;
    // Verification: once a finalist is selected, the top, the selection and an A/A control get this many fresh
    // balanced rounds in the deciding regime. The reported gain and interval are theirs, not those of the rounds the
    // selection was made on (the best of several finalists, and extended only when near the bar: an estimate biased
    // upward), and the selection stands only when the fresh rounds show it faster (interval above 0). 0: off.
    int verifyRounds = 8;
};

// One entry of the confirm stage in one regime: its block in every round, and the top's block of the same round.
struct RegimeMeasurement {
    Regime regime = Regime::Sustained;
    std::vector<double> msPerRound;          // the block's per-launch median (warm-up dropped)
    std::vector<double> joulesPerRound;      // energy per launch over the block, -1 when unknown
    std::vector<double> smClockMHzPerRound;  // mean SM clock during the block, -1 when unknown
    // What it is paired with in each round: the geometric mean of the round's two heuristic-top blocks (the top and
    // its A/A copy); for the A/A control, the first top block.
    std::vector<double> topMsPerRound;
    PairedGain vsTop;                        // empty (rounds 0) for the heuristic top itself
    double medianMs() const;
};

// The screen: the candidate's time over its neighbouring heuristic-top items, one ratio per pass (the search's
// first pass and the screen's randomly ordered passes). Finalists are chosen on `score`, the median of the ratios.
struct ScreenResult {
    std::vector<double> ratios;
    double score = 0.0;  // < 1: faster than the top
};

// A finalist's back-to-back re-timing (measurement engine numbers).
struct FinalMeasurement {
    double medianMs = 0.0, p20Ms = 0.0, p80Ms = 0.0;
    double noise = 0.0;  // relative spread the engine measured (e.g. 0.01 = 1%)
    int samples = 0;
    double meanSmClockMHz = -1.0;   // over the samples, -1 when the driver does not tell
    std::string verdictVsBaseline;  // FASTER / SLOWER / SAME / AMBIGUOUS, empty for the baseline itself
};

// One window of back-to-back launches of a finalist (at least about a second), with the board's power, energy, SM
// clock and clock-event reasons read through NVML meanwhile. On a card at its power limit a GEMM's time is its
// energy over that limit, so there a faster kernel must use less energy per launch: these numbers say whether the
// card was power-limited and what each finalist costs in joules and in clock cycles.
struct PowerWindow {
    int launches = 0;
    double seconds = 0.0;               // CUDA events around the window
    double msPerLaunch = 0.0;
    double joulesPerLaunch = -1.0;      // NVML's energy counter over the window; -1 when the driver does not tell
    double meanPowerW = -1.0;           // energy / time, or the mean of the power readings without a counter
    double meanPowerReadingW = -1.0;    // the mean of NVML's power readings (a cross-check of the counter)
    double powerLimitW = -1.0;          // the limit the board enforced
    double meanSmClockMHz = -1.0;       // readings every ~10 ms during the window
    double megacyclesPerLaunch = -1.0;  // msPerLaunch x meanSmClockMHz / 1000: the cost in clock cycles
    std::uint64_t clockEventReasons = 0;  // OR of the NVML clock-event reasons read during the window
    int readings = 0;                   // NVML readings taken
    int powerCapReadings = 0;           // ... of them with the software power cap active
    std::string error;                  // the window failed (recorded; the finalist's timing stands)
    // Limited by its power cap: the SW power-cap reason in at least half the readings, or the mean power within 3%
    // of the limit.
    bool powerLimited() const;
};

// Names of the clock-event reason bits NVML reports ("sw_power_cap", "hw_slowdown", ...).
std::vector<std::string> clockEventReasonNames(std::uint64_t reasons);

struct Candidate {
    int index = 0;
    AlgoConfig config;
    RawAlgo raw{};
    std::uint64_t requiredWorkspaceBytes = 0;
    double waves = 0.0;
    std::string source;  // "heuristic 64MiB #0", "cluster of #12", ...
    std::optional<FirstPass> firstPass;
    OutputParity parity;
    std::optional<ScreenResult> screen;  // shortlisted candidates
    std::optional<FinalMeasurement> final;  // finalists: their sustained confirm blocks summed up
    std::optional<RegimeMeasurement> sustained, burst;  // finalists: the confirm stage, per regime
    std::optional<PowerWindow> power;  // finalists: their sustained confirm blocks' power, energy and clocks
    std::string error;  // the launch failed: recorded, not fatal
};

// A candidate for a configuration that passed AlgoCheck, not yet timed.
Candidate checkedCandidate(int index, const AlgoConfig& config, const CheckResult& check, std::string source);

// What the finalists' power windows say about the comparison (the report's "power_state").
struct PowerSummary {
    bool measured = false;         // the baseline has a power window with a power reading
    bool powerLimited = false;     // ... and it ran at its power limit
    int windows = 0, powerLimitedWindows = 0;
    double baselineJoulesPerLaunch = -1.0, baselineMeanPowerW = -1.0, powerLimitW = -1.0;
    double baselineMegacycles = -1.0;
    int fastestFinalist = -1;      // the non-baseline finalist with the lowest final median, -1 when none
    double energyChangePercent = 0.0;  // fastest finalist's joules per launch vs the baseline's (negative: less)
    double cyclesChangePercent = 0.0;  // ... and its clock cycles per launch
    std::string note;              // one paragraph for people
};
PowerSummary summarizePower(const std::vector<Candidate>& candidates, int baselineIndex);

// ---------------------------------------------------------------------------------------------------------------
// Selection rule
// ---------------------------------------------------------------------------------------------------------------

struct SelectionRule {
    bool exactParity = true;    // the seed's production rule: bitwise equal to the baseline
    double errorBound = 1e-2;   // otherwise: max_rel_error at most this
    // Leave the baseline only when the lower end of the gain's 95% interval is above this fraction.
    double noiseThreshold = 0.01;
    Regime regime = Regime::Sustained;  // the regime whose confirm rounds decide
};

struct Selection {
    int candidateIndex = -1;
    int baselineIndex = -1;
    Regime regime = Regime::Sustained;
    double gainPercent = 0.0;  // the confirmed paired gain of the selection (0 for the baseline itself)
    double lowPercent = 0.0, highPercent = 0.0;  // its 95% interval
    double requiredGainPercent = 0.0;  // what the interval's lower end had to clear
    bool leftBaseline = false;
    bool tooNoisy = false;     // the A/A control's interval excluded 0: nothing can be decided on this machine
    int bestAlternative = -1;  // the confirmed finalist with the highest gain in the regime (-1: none), selected or not
    std::string reason;
    // When a verification ran (applyVerification): the gain above is the verification's; these are the confirm-stage
    // numbers the selection was made on.
    bool verified = false;          // the selection stands after its fresh rounds
    bool verificationRan = false;
    int verificationCandidate = -1;  // the finalist that was verified (it stays there when the verification fails)
    double selectedOnGainPercent = 0.0, selectedOnLowPercent = 0.0, selectedOnHighPercent = 0.0;
    // Ties (kTieRule): the finalists the confirm rounds cannot tell apart from the anchor, the anchor first, and per
    // member the anchor's paired gain over it in their common rounds (invalid for the anchor itself). The selection
    // is the member the stable rule picks among those that cleared the threshold.
    int tieAnchor = -1;
    std::vector<int> tieSet;
    std::vector<PairedGain> tieAnchorOver;
    // The heuristic top in the tie set: the final gain over it (`topTieGain`, of finalist `topTieCandidate`, from
    // the `topTieStage` rounds: "verification" or "confirm") has its 95% interval's lower end at or below the
    // threshold, or the A/A control failed (tooNoisy), so it is a member like any finalist the anchor cannot be
    // told from.
    bool topInTieSet = false;
    int topTieCandidate = -1;
    std::string topTieStage;
    PairedGain topTieGain;
};

// How ties are broken, as the report states it.
inline constexpr const char* kTieRule =
    "finalists tie with the anchor (the highest-gain finalist whose interval cleared the threshold, or the "
    "highest-gain finalist when none did) unless the anchor's paired gain over them, in the confirm rounds both "
    "ran, has its 95% interval's lower end above the threshold; among tied finalists that cleared the threshold, "
    "the lowest configuration is selected: by algorithm id, then tile id, stages id, split-k, reduction scheme, "
    "custom option, CTA swizzle, inner shape and cluster shape. The heuristic top is a member too when the final "
    "gain over it (the verification's when one ran, else the confirm rounds') has its 95% interval's lower end at "
    "or below the threshold, and when the A/A control failed (the rounds cannot tell the top from itself); when "
    "the verification returns the selection to the heuristic top, no finalist cleared, or the A/A control failed, "
    "the heuristic top is the pick of that tie set. Two runs that find the same tie set select the same "
    "configuration";

// Candidates that may be selected under the rule: timed, no error, parity within the rule.
bool eligibleUnderRule(const Candidate& candidate, const SelectionRule& rule);

// Among eligible finalists confirmed in the rule's regime, those whose gain interval's lower end clears the
// threshold; of them the highest gain, or by kTieRule a lower configuration the rounds cannot tell from it,
// replaces the baseline, but only when the A/A
// control (`aaControl`: the top against itself in the same rounds) has a 99% interval that contains 0 (at 99%, a
// machine with no systematic error is called too noisy 1 time in 100, not 1 in 20). Otherwise
// the baseline stays, with the reason ("too noisy to decide" when the A/A failed).
Selection selectCandidate(const std::vector<Candidate>& candidates, int baselineIndex, const SelectionRule& rule,
                          const std::optional<PairedGain>& aaControl);

// The verification of a selection (ConfirmSettings::verifyRounds): `gain` is the selection against the top and
// `aaControl` the top against itself, both from fresh rounds measured after the selection was made. The selection
// stands when the lower end of the gain's 95% interval is above 0 and above what identical work differs by in the
// same rounds (|A/A gain|); its reported gain and interval become the verification's. Otherwise the baseline stays,
// with the reason. A selection that did not leave the baseline is returned as it is.
Selection applyVerification(Selection selection, const PairedGain& gain, const PairedGain& aaControl);

// True when a verification failed on its A/A control alone: the fresh rounds saw the selection faster than the top
// (the gain's 95% lower end above 0) but not by more than the top differed from itself (|A/A gain|). Those rounds
// are measured again once (ExploreOptions::aaRetries), as a failed confirm-stage A/A control is.
bool verificationFailedOnAaControl(const PairedGain& gain, const PairedGain& aaControl);

// ---------------------------------------------------------------------------------------------------------------
// Guided search
// ---------------------------------------------------------------------------------------------------------------

// Ways to move from one configuration to its neighbours, tried in this order on the best configurations.
enum class SearchMove {
    Cluster, CustomOption, Swizzle, Stages, Tile, TileStages, TileCluster, CustomCluster, StagesCluster,
    TileCustom, SplitK, OtherAlgorithms
};
std::string toString(SearchMove move);

struct SearchOptions {
    int firstPassSamples = 3;
    int batchSize = 16;         // candidates timed per back-to-back batch
    int beamWidth = 4;          // configurations (best first) whose neighbourhoods may be expanded
    std::vector<std::uint16_t> clusterShapeIds;  // 0..51 where cluster launch exists, {0} elsewhere
    std::uint64_t workspaceCapBytes = 0;
    std::vector<int> splitKValues{2, 4, 8, 16, 32};
    int maxCandidatesPerMove = 400;  // valid configurations timed per expansion, nearest first
};

// One algorithm the search may use, with its capabilities.
struct SearchAlgorithm {
    int algorithmId = -1;
    AlgoCapabilities capabilities;
};

// Neighbours of `config` for one move (not yet checked, without `config` itself). Pure, for tests.
std::vector<AlgoConfig> neighbours(const AlgoConfig& config, const AlgoCapabilities& caps, SearchMove move,
                                   const SearchOptions& options);

struct SearchStats {
    std::uint64_t checks = 0;
    std::uint64_t checksPassed = 0;
    std::uint64_t overWorkspaceCap = 0;
    std::uint64_t timed = 0;
    std::uint64_t launchFailures = 0;
    int expansions = 0;
    double seconds = 0.0;
    bool budgetExhausted = false;
    bool stoppedByFailures = false;  // 64 launches in a row failed: the device is not usable any more
    std::vector<std::string> log;  // one line per expansion: which config, which move, how many valid/timed/better
};

// The planner: heuristic answers first, then neighbourhoods of the best so far, all through `check`, timed in
// batches by `evaluate` (fills each candidate's firstPass/parity, or its error), while `secondsLeft` > 0.
// Candidates are appended to `candidates` (which already holds the timed heuristic answers). `beforeChecks` is
// told how many configurations are about to be checked (the driver keeps the GPU busy meanwhile).
class GuidedSearch {
public:
    using CheckFn = std::function<CheckResult(const AlgoConfig&)>;
    using EvaluateFn = std::function<void(std::vector<Candidate>& batch)>;
    using ClockFn = std::function<double()>;  // seconds left in the search budget
    using ProgressFn = std::function<void(const std::string&)>;
    using BeforeChecksFn = std::function<void(std::size_t proposals)>;

    GuidedSearch(std::vector<SearchAlgorithm> algorithms, SearchOptions options);
    // `eligible` says whether a timed candidate may become a neighbourhood centre (parity rule).
    SearchStats run(std::vector<Candidate>& candidates, const CheckFn& check, const EvaluateFn& evaluate,
                    const ClockFn& secondsLeft, const std::function<bool(const Candidate&)>& eligible,
                    const ProgressFn& progress = {}, const BeforeChecksFn& beforeChecks = {});

private:
    const AlgoCapabilities* capsOf(int algorithmId) const;
    std::vector<SearchAlgorithm> algorithms_;
    SearchOptions options_;
};

// ---------------------------------------------------------------------------------------------------------------
// Environment, result and report
// ---------------------------------------------------------------------------------------------------------------

struct UnsupportedNote {
    std::string feature;
    bool supportedPublicControl = false;
    std::string reason;
};

// Why the explorer claims no Stream-K control: the reason of its "Stream-K" note and the report's stream_k_note.
inline constexpr const char* kStreamKNote =
    "CUDA 13 cuBLASLt exposes no documented MatmulAlgoConfig attribute that directly selects Stream-K. Negative "
    "SPLITK_NUM values returned by heuristics are preserved as undocumented library sentinels, not claimed as "
    "public Stream-K control.";

struct ExplorationResult {
    GemmSpec spec;
    GemmEnvironment environment;
    std::uint64_t dataSeed = 0;
    bool coldL2 = true;
    std::string timer = kTimerEvents;  // what timed the samples (device.hpp's kTimerNames)
    int rotatingBufferSets = 0;
    std::uint64_t rotatingBytes = 0;
    SelectionRule rule;
    double budgetSeconds = 0.0;
    std::vector<HeuristicSet> heuristics;
    std::vector<SplitKCheck> splitKChecks;
    std::vector<SearchAlgorithm> algorithms;
    std::vector<Candidate> candidates;
    int baselineIndex = -1;
    std::uint64_t baselineWorkspaceBytes = 0;
    Selection selection;
    SearchStats stats;
    std::string finalistMethod;  // how finalists were screened and confirmed
    // The sibling step (ExploreOptions::siblingFinalists): the screened finalists' other custom options and CTA
    // swizzles, re-timed with them in passes of their own.
    struct Siblings {
        std::vector<int> of;             // the screened finalists whose siblings were taken; empty: the step did not run
        int generated = 0, checked = 0;  // their siblings; of them not candidates before, checked
        std::vector<int> added;          // ... passing the check within the workspace cap: new candidates
        std::vector<int> retimed;        // siblings (new or earlier candidates) that ran with parity, re-timed
        std::vector<int> finalists;      // ... of them added as finalists
        int best = -1;                   // the finalist with the lowest median ratio in those passes
        std::vector<double> bestRatios;  // ... its ratios to the top there
    } siblings;
    ConfirmSettings confirmSettings;
    std::optional<RegimeMeasurement> aaSustained, aaBurst;  // the A/A control (the top entered twice)
    // ExploreOptions::aaRetries: the A/A controls of confirm runs discarded because they failed, oldest first.
    std::vector<RegimeMeasurement> discardedAaControls;
    // ... and the verifications discarded because only their A/A control failed (verificationFailedOnAaControl):
    // the selection's measurement and the A/A control's, oldest first.
    std::vector<std::pair<RegimeMeasurement, RegimeMeasurement>> discardedVerifications;
    std::vector<int> heuristicFinalists;  // finalists taken as cuBLASLt's first answers (ExploreOptions::heuristicFinalists)
    // The verification rounds (ConfirmSettings::verifyRounds) of the selection and of their A/A control, when they ran.
    std::optional<RegimeMeasurement> verification, verificationAa;
    std::vector<int> extendedSustained, extendedBurst;  // finalists given the sequential confirm's extra rounds
    int screenPasses = 0;
    double powerWindowSeconds = 0.0;  // each finalist's sustained blocks in all, 0 when not measured
    PowerSummary power;
    std::vector<UnsupportedNote> errorsAndUnsupported;
    double wallSeconds = 0.0;
    std::string failure;       // why the exploration stopped early (nothing selected); empty when it finished
    bool unsupported = false;  // ... because this device cannot run the spec at all (NVFP4 before sm_100)
};

// Config fields under the seed's names (algorithm_id, tile_id, ...), plus our readable names.
Json algoConfigToJson(const AlgoConfig& config, bool withNames = true);
AlgoConfig algoConfigFromJson(const Json& value, const std::string& file, const std::string& path);
Json capabilitiesToJson(const AlgoCapabilities& caps);
AlgoCapabilities capabilitiesFromJson(const Json& value, const std::string& file, const std::string& path);
Json heuristicSetToJson(const HeuristicSet& set, std::uint64_t cublasLtVersion);
HeuristicSet heuristicSetFromJson(const Json& value, const std::string& file, const std::string& path);

// A finalist's "power" object (unknown values as null).
Json powerWindowToJson(const PowerWindow& window);

// The whole report: mode "gemm-explore", environment, workload.gemm, baseline_kernel_metadata, heuristics[],
// explicit_split_k_checks[], search, candidates[], selected, errors_and_unsupported[].
Json buildExplorerReport(const ExplorationResult& result);

// What `replay` needs from a report; errors name the file and the JSON Pointer.
struct ReplayPlan {
    GemmSpec spec;
    std::uint64_t dataSeed = 0;
    std::uint64_t cublasLtVersion = 0;
    AlgoConfig selected;
    RawAlgo selectedRaw{};
    std::uint64_t selectedWorkspaceBytes = 0;
    std::string selectedSha256;
    double selectedMedianMs = 0.0;
    // The report's confirmed gain of the selection (sustained unless the report selected on bursts) and interval.
    double reportedGainPercent = 0.0, reportedLowPercent = 0.0, reportedHighPercent = 0.0;
    bool reportedInterval = false;
    AlgoConfig baseline;
    RawAlgo baselineRaw{};
    std::uint64_t baselineWorkspaceBytes = 0;
    double baselineMedianMs = 0.0;
};
ReplayPlan replayPlanFromReport(const Json& report, const std::string& file);

}  // namespace tunescope::gemm
