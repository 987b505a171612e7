#pragma once
// The NB sweep: every config of a grid on every shape of a plan, measured with the measurement engine and streamed
// to an append-only results file (results.hpp) that a killed or interrupted sweep resumes from. See docs/sweep.md.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tunescope/device/device.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/device/triton_binaries.hpp"
#include "tunescope/sweep/grid_file.hpp"
#include "tunescope/sweep/results.hpp"

namespace tunescope {

inline constexpr std::int64_t kRowsPerNb = 65536;  // FLA: NB = ceil(T / 65536)
inline constexpr int kKeyHeads = 16;               // T = B * L * 16 for the profile's q/k shapes

// One problem size: T rows of D = 128.
struct SweepShape {
    int nb = 1;
    std::int64_t rows = kRowsPerNb;
    int batch = 0;         // B and L when the shape came from --batch/--padded-tokens, else 0
    int paddedTokens = 0;
    friend bool operator==(const SweepShape&, const SweepShape&) = default;
};

struct ShardSpec {
    int index = 0;  // 0-based
    int count = 1;
};

struct SweepPlan {
    std::string backend = "cpu";
    std::vector<SweepShape> shapes;
    std::vector<L2NormConfig> grid;
    std::map<int, L2NormConfig> profileConfigs;  // NB -> the --profile's config (also measured, for regret)
    std::string profileFile;                     // recorded in the header, for the reader
    std::string profileSha256;
    // A head-to-head plan (`confirm`, docs/sweep.md "Head to head"): NB -> the baseline policy's config, measured
    // beside the profile's (the candidate's) in the same rounds. The grid may then be empty.
    std::map<int, L2NormConfig> baselineConfigs;
    std::string baselineFile;
    std::string baselineSha256;
    // The L2 regimes measured (docs/sweep.md, "L2 regimes"): one of cold, warm or hot, or cold and warm (`--l2
    // both`: every item once per regime, in the same rounds and shuffled together). Records carry their regime and
    // decisions never mix them.
    std::vector<L2Regime> l2Regimes{L2Regime::Cold};
    // Which clock times the samples: one of kTimerNames, or "auto" (the devices' default: CUPTI on CUDA where it
    // loads, events elsewhere, steady_clock on the CPU) until resolvePlanTimer() picks it. Part of the plan (a
    // file of another timer is not resumed), recorded in every record.
    std::string timer = "auto";
    StoppingRule rule;
    float eps = kL2NormDefaultEps;
    std::uint64_t seed = 20260901;  // input data seed (random bf16, never zeros)
    bool measureCopy = true;        // the device-to-device copy ceiling per shape
    // Rounds (docs/sweep.md, "Rounds"): every config of a shape is measured once per round, in a new order each
    // round (shuffled from orderSeed); after round 1 a config whose median's interval lies above the round's best
    // interval by more than raceMargin runs no more rounds (the profile's config and the copy run every round).
    int rounds = 3;
    double raceMargin = 0.03;
    std::uint64_t orderSeed = 20261203;
    // A/A plans: every l2norm config is measured this many times per round as separate, identical items
    // (replica 0, 1, ...), so that decisions between identical work can be counted (docs/sweep.md, "A/A").
    int replicas = 1;
    // Buffer placements (docs/sweep.md, "Placements"): round r reads and writes copy r mod K of the input and
    // output, each its own allocation, so that where the buffers lie varies between rounds as it does between
    // processes, and the rounds' spread, which every decision is judged on, carries it. 1: one copy (as before).
    int placements = 1;
    ShardSpec shard;
    // What is measured: "native" (our l2norm family) or "triton" (FLA's kernel, the binaries of `triton`, a scanned
    // Triton cache: per grid config and NB the variant FLA would launch; docs/triton-kernels.md).
    std::string kernel = "native";
    std::shared_ptr<const TritonCacheScan> triton;
};

// The regimes of `--l2`: "cold", "warm", "hot" or "both" (cold and warm). Throws Error naming the bad word.
std::vector<L2Regime> parseL2Regimes(const std::string& text);
// "cold", "warm", "cold+warm": how messages and tables name a plan's regimes.
std::string describeL2Regimes(const std::vector<L2Regime>& regimes);

// Sets every device to the plan's timer (plan.timer "auto": each device's default) and writes the one chosen into
// plan.timer; returns the option chosen, for the note that says which timer runs and why. Throws Error when a
// device lacks it or the devices would time with different clocks.
TimerOption resolvePlanTimer(SweepPlan& plan, const std::vector<Device*>& devices);

// Samples queued per host wait by default: 16 for FLA's Triton kernel, whose reference is Triton's do_bench (it
// queues every sample before it waits; on an H200 the per-sample wait reads 0.5-0.8 us less at NB 1-6, BENCHMARKS.md
// run 12), 1 for our stand-in kernel (the protocol issue 11's reproducibility runs validated).
int defaultPipelineDepth(const std::string& kernel);

// The timed work of one l2norm item: our kernel's config, or (kernel "triton") the cache's binary for (config, NB),
// whose identity goes to `kernelSource` (null for our kernel). Throws Error naming what is missing.
std::unique_ptr<TimedWork> makeSweepL2NormWork(Device& device, const SweepPlan& plan, const L2NormConfig& config,
                                               int nb, Json* kernelSource);

// --- building a plan (every function throws Error with a message naming the bad value) -------------------------

// "1-32", "1,2,4-8", "16": ascending, unique. `what` names the option in messages ("--nb").
std::vector<int> parseIntList(const std::string& text, const std::string& what);
ShardSpec parseShard(const std::string& text);  // "i/n", 0 <= i < n
// NB * rowsPerNb rows per NB.
std::vector<SweepShape> shapesFromNbList(const std::vector<int>& nbs, std::int64_t rowsPerNb = kRowsPerNb);
// Every B x L: T = B * L * keyHeads, NB = ceil(T / 65536). Equal T are measured once.
std::vector<SweepShape> shapesFromBatch(const std::vector<int>& batches, const std::vector<int>& paddedTokens,
                                        int keyHeads = kKeyHeads);

// Whether the l2norm kernel family instantiates this config at all (BT {8..128} powers of two, num_warps
// {1..32} powers of two, num_stages 1..4, num_ctas 1); `why` says what is wrong.
bool isLegalConfig(const L2NormConfig& config, std::string* why);

// Checks the whole plan before anything runs: shapes (T > 0, NB matching T), grid (legal, no duplicates, not
// empty), profile configs, stopping rule, and every config against every device's supports(). Throws Error naming
// the first problem (the config, the NB, the device).
void validatePlan(const SweepPlan& plan, const std::vector<const Device*>& devices = {});

// The plan as recorded in the results header, and its hash (everything that decides what is measured and how,
// except the shard: shards of one plan share the hash, which is what merge checks).
Json planToJson(const SweepPlan& plan);
std::string planHash(const SweepPlan& plan);

// One unit of work.
struct SweepItem {
    ResultRecord::Kind kind = ResultRecord::Kind::L2Norm;
    std::size_t shapeIndex = 0;
    L2NormConfig config;
    bool inGrid = true;
    bool profileConfig = false;
    bool baselineConfig = false;
    int replica = 0;
    L2Regime l2 = L2Regime::Cold;
    std::string key;  // recordKey()
};
// Every item of the plan for this shard, in plan order: per shape and regime, the copy ceiling, then the grid, then
// the profile's config when it is not in the grid, then the baseline's when it is neither. Items outside the grid
// (and their A/A replicas) run every round: racing never drops them. Shards split by shape (shape k goes to shard k mod n), so that all
// configs of a shape are measured on one device and every decision compares measurements of one device.
std::vector<SweepItem> planItems(const SweepPlan& plan);

// The order in which round `round` (0-based) of shape `shapeIndex` measures `count` items: a permutation of
// 0..count-1 drawn from plan.orderSeed, the shape and the round (the same on every machine and standard library).
std::vector<std::size_t> roundOrder(const SweepPlan& plan, std::size_t shapeIndex, int round, std::size_t count);

// The one place where the sweep makes an item's TimedWork (the l2norm kernel or the copy ceiling).
std::unique_ptr<TimedWork> makeWork(Device& device, const SweepPlan& plan, const SweepItem& item);

// --- running ----------------------------------------------------------------------------------------------------

struct SweepProgress {
    std::size_t done = 0;      // measurements (item x round) finished in this run (measured or failed)
    std::size_t total = 0;     // measurements this run has to do, as far as known (racing lowers it)
    std::size_t resumed = 0;   // items already in the file
    std::size_t failed = 0;
    double elapsedS = 0;
    double etaS = -1;          // -1 until something is measured
    const SweepItem* item = nullptr;
    const SweepShape* shape = nullptr;
    const ResultRecord* record = nullptr;  // this round's measurement; null when the item failed
    std::string error;         // the failure message
    int round = 0;             // 0-based
    int rounds = 1;
    const DeviceInfo* device = nullptr;
};

struct SweepOptions {
    std::filesystem::path out;                     // the results file (created, or resumed when it has a header)
    const std::atomic<bool>* stopRequested = nullptr;  // checked between measurements (Ctrl-C)
    // Called after each measurement (item x round; SweepProgress::record is that round's measurement), from worker
    // threads (serialised).
    std::function<void(const SweepProgress&)> progress;
    // Called once per final record (all rounds pooled) right after its shape's block is written, from worker
    // threads (serialised): what a results view streams in.
    std::function<void(const ResultRecord&)> recordWritten;
    std::function<void(const std::string&)> note;        // one-line notices (resume, warm-up, giving up)
    double deviceWarmupMs = 200;                    // per device, before its first measurement: clocks ramp up
    int maxConsecutiveErrors = 3;                   // a worker gives its device up after this many in a row
    bool allowMixedDevices = false;                 // resume a file measured on devices of another identity
    // When set, this call measures only these shapes (indices into plan.shapes); the plan's other pending shapes
    // are left for a later call on the same file (they count as not run). runInterleavedSweeps uses it.
    std::optional<std::set<std::size_t>> onlyShapes;
};

struct SweepOutcome {
    std::size_t measurements = 0;  // timed measurements (item x round) of this run
    std::size_t racedOut = 0;      // items that left after round 1
    std::size_t total = 0;     // items of the plan for this shard
    std::size_t resumed = 0;   // already in the file when the run started
    std::size_t measured = 0;  // measured by this run
    std::size_t failed = 0;    // error lines written by this run
    std::size_t notRun = 0;    // left when interrupted or when every device gave up
    bool interrupted = false;
    std::vector<std::string> errors;  // one line per failure
};

// Runs the plan on the devices (one worker thread per device, all pulling shapes from one queue). The plan is
// validated first. A shape is the unit of work: its records are written together once its last round is done.
// With an existing results file: resumes when its plan hash and devices match (else throws Error), keeping every
// complete shape and measuring the others again (lines of an incomplete shape and a partial last line are cut
// out). Device errors are recorded as error lines and the sweep goes on.
SweepOutcome runSweep(const SweepPlan& plan, const std::vector<Device*>& devices, const SweepOptions& options);

// One of several sweeps measured in turn (`sweep --kernel both`: FLA's Triton kernel and the stand-in).
struct InterleavedSweep {
    const SweepPlan* plan = nullptr;
    SweepOptions options;  // its own results file; progress and notes may be shared
};
// Sweeps over the same shapes (and shard), measured shape by shape in turn on the same devices, so that every sweep
// sees each shape in the same stretch of time: for shape k, the sweeps run in turn starting with sweep k mod n (the
// order rotates, so no sweep always goes first). Each sweep writes its own ordinary results file, resumable alone or
// by the same call; progress counts over all of them. The device warm-up runs once, before the first shape. Throws
// Error when the plans' shapes or shards differ. Outcomes are in the order of `sweeps`.
std::vector<SweepOutcome> runInterleavedSweeps(const std::vector<InterleavedSweep>& sweeps,
                                               const std::vector<Device*>& devices);

// --- decisions per shape (docs/sweep.md, "Decisions") ------------------------------------------------------------

struct ShapeDecision {
    std::vector<const ResultRecord*> configs;  // the shape's l2norm records
    const ResultRecord* fastest = nullptr;     // lowest estimate among configs measured in every round
    std::vector<const ResultRecord*> ties;     // configs indistinguishable from the fastest (it included), in the
                                               // tie rule's order: by estimate, then (BT, num_warps, ...)
    int rounds = 0;                            // the most rounds any config ran
    double pooledLogSd = -1;                   // round-to-round noise of the shape (poolRoundNoise)
    int pooledDf = 0;
    double threshold = 0.005;
};
// The records must be one shape's l2norm records of one device, one L2 regime and one timer (l2normRecordsByShape
// groups them so): records that mix regimes or timers are refused with an Error naming them. Configs that raced out
// are never ties.
ShapeDecision decideShape(const std::vector<const ResultRecord*>& records, double threshold = 0.005);
// Paired comparison of a against b within a decided shape (a / b per round; FASTER: a is faster).
PairedComparison comparePairedRecords(const ResultRecord& a, const ResultRecord& b, const ShapeDecision& shape);
// The tie rule's order between configs of equal estimate: true when a comes before b.
bool tieRuleBefore(const L2NormConfig& a, const L2NormConfig& b);

// --- how a sample's place in its queued batch moves it (pipelined plans) ------------------------------------------

// With samples queued `depth` per host wait (StoppingRule::pipelineDepth), the time between a sample's two events can
// also hold some of the device front-end's work, differently at different places in the batch (BENCHMARKS.md, "Run
// 13's samples read again": every fourth of 16 read 7% more at NB 1 on an H200). Per position in the batch, the
// median over a shape's records of sample / its record's median; configs cover every position alike, so ranks are
// not moved, but per-sample spreads and small-NB medians are.
struct QueuePositionEffect {
    int depth = 1;
    std::vector<double> ratio;   // per position 0 .. depth-1 (1 where no sample sat there)
    double worst = 0;            // max |ratio - 1|
    int worstPosition = -1;
    std::size_t samples = 0;     // samples counted
};
// The records' timed samples, round by round (each round's samples are whole batches of `depth`, the last one
// possibly shorter). depth <= 1: nothing to measure (worst 0).
QueuePositionEffect queuePositionEffect(const std::vector<const ResultRecord*>& records, int depth);

// --- regret of a policy against the best measured config ---------------------------------------------------------

struct RegretRow {
    int nb = 0;
    std::int64_t rows = 0;
    L2Regime l2 = L2Regime::Cold;
    L2NormConfig policyConfig;
    const ResultRecord* policy = nullptr;  // null when the policy's config was not measured for this shape
    const ResultRecord* best = nullptr;    // the fastest config of the shape (ShapeDecision::fastest)
    double regret = 0;                     // policy estimate / best estimate (1 = the policy is the best)
    Comparison verdict = Comparison::Ambiguous;  // policy vs best, paired over rounds
    bool withinNoise = false;              // the policy's config is in the tie set of the fastest
    double regretLow = 0, regretHigh = 0;  // the paired interval of policy / best
    std::vector<L2NormConfig> ties;        // configs indistinguishable from the fastest (tie rule's order)
};
// One row per measured shape and L2 regime whose NB has a policy config (a `--l2 both` file gives two rows per NB).
std::vector<RegretRow> computeRegret(const ResultsFile& results, const std::map<int, L2NormConfig>& policy,
                                     double threshold = 0.005);

}  // namespace tunescope
