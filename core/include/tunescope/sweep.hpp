#pragma once
// The NB sweep: every config of a grid on every shape of a plan, measured with the measurement engine and streamed
// to an append-only results file (results.hpp) that a killed or interrupted sweep resumes from. See docs/sweep.md.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tunescope/device.hpp"
#include "tunescope/measurement.hpp"
#include "tunescope/results.hpp"
#include "tunescope/triton_binaries.hpp"

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
    bool coldL2 = true;
    StoppingRule rule;
    float eps = kL2NormDefaultEps;
    std::uint64_t seed = 20260901;  // input data seed (random bf16, never zeros)
    bool measureCopy = true;        // the device-to-device copy ceiling per shape
    ShardSpec shard;
    // What is measured: "native" (our l2norm family) or "triton" (FLA's kernel, the binaries of `triton`, a scanned
    // Triton cache: per grid config and NB the variant FLA would launch; docs/triton-kernels.md).
    std::string kernel = "native";
    std::shared_ptr<const TritonCacheScan> triton;
};

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

// FLA's 25 configs (BT {8,16,32,64,128} x num_warps {1,2,4,8,16}) x num_stages {2,3,4} = 75, in that nesting order.
std::vector<L2NormConfig> defaultGrid();
std::vector<L2NormConfig> gridFromLists(const std::vector<int>& bt, const std::vector<int>& warps,
                                        const std::vector<int>& stages);
// A grid file: JSON (an array of configs, plain {"BT","num_warps","num_stages"} or Triton's {"kwargs": {"BT"}, ...},
// or an object of lists {"BT": [...], "num_warps": [...], "num_stages": [...]}) or CSV (header naming BT,
// num_warps, num_stages[, num_ctas]; one config per line). Errors name the file and the JSON Pointer or CSV line.
std::vector<L2NormConfig> loadGridFile(const std::filesystem::path& file);

// "BT=8 num_warps=1 num_stages=3" (+ " num_ctas=N" when not 1).
std::string describe(const L2NormConfig& config);
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
    std::string key;  // recordKey()
};
// Every item of the plan for this shard, in run order: per shape, the copy ceiling, then the grid, then the
// profile's config when it is not in the grid. Shards split the l2norm items round-robin over the unsharded order
// (item k goes to shard k mod n); each shard measures the copy ceiling of every shape it touches.
std::vector<SweepItem> planItems(const SweepPlan& plan);

// --- running ----------------------------------------------------------------------------------------------------

struct SweepProgress {
    std::size_t done = 0;      // items finished in this run (measured or failed)
    std::size_t total = 0;     // items this run has to do (resumed ones excluded)
    std::size_t resumed = 0;   // items already in the file
    std::size_t failed = 0;
    double elapsedS = 0;
    double etaS = -1;          // -1 until something is measured
    const SweepItem* item = nullptr;
    const SweepShape* shape = nullptr;
    const ResultRecord* record = nullptr;  // null when the item failed
    std::string error;         // the failure message
    const DeviceInfo* device = nullptr;
};

struct SweepOptions {
    std::filesystem::path out;                     // the results file (created, or resumed when it has a header)
    const std::atomic<bool>* stopRequested = nullptr;  // checked between measurements (Ctrl-C)
    std::function<void(const SweepProgress&)> progress;  // called after each item, from worker threads (serialised)
    std::function<void(const std::string&)> note;        // one-line notices (resume, warm-up, giving up)
    double deviceWarmupMs = 200;                    // per device, before its first measurement: clocks ramp up
    int maxConsecutiveErrors = 3;                   // a worker gives its device up after this many in a row
};

struct SweepOutcome {
    std::size_t total = 0;     // items of the plan for this shard
    std::size_t resumed = 0;   // already in the file when the run started
    std::size_t measured = 0;  // measured by this run
    std::size_t failed = 0;    // error lines written by this run
    std::size_t notRun = 0;    // left when interrupted or when every device gave up
    bool interrupted = false;
    std::vector<std::string> errors;  // one line per failure
};

// Runs the plan on the devices (one worker thread per device, all pulling shapes from one queue). The plan is
// validated first. With an existing results file: resumes when its plan hash matches (its partial last line is
// cut off), throws Error otherwise. Device errors are recorded as error lines and the sweep goes on; the results
// file holds everything measured so far whatever happens.
SweepOutcome runSweep(const SweepPlan& plan, const std::vector<Device*>& devices, const SweepOptions& options);

// --- regret of a policy against the best measured config ---------------------------------------------------------

struct RegretRow {
    int nb = 0;
    std::int64_t rows = 0;
    L2NormConfig policyConfig;
    const ResultRecord* policy = nullptr;  // null when the policy's config was not measured for this shape
    const ResultRecord* best = nullptr;    // lowest median of the shape
    double regret = 0;                     // policy median / best median (1 = the policy is the best)
    Comparison verdict = Comparison::Ambiguous;  // policy vs best
    bool withinNoise = false;              // policy is best, or compare() says SAME or AMBIGUOUS
};
// One row per measured shape whose NB has a policy config. Records of other cold/hot modes than the majority are
// not mixed (the caller passes one results file, which has one mode).
std::vector<RegretRow> computeRegret(const ResultsFile& results, const std::map<int, L2NormConfig>& policy,
                                     double threshold = 0.005);

}  // namespace tunescope
