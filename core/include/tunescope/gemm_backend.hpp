#pragma once
// The boundary between the core and the cuBLASLt plugin (libtunescope_cublaslt.so), and the exploration driver.
//
// The plugin exports
//   extern "C" tunescope::GemmBackend* tunescope_create_gemm_backend(int* noDevice, char* why, size_t whyBytes);
//   extern "C" int tunescope_gemm_backend_interface(void);   // kGemmBackendInterfaceVersion
// create returns null with a reason (and *noDevice = 1 when there is no CUDA device at all) when it cannot work.
// The core finds the plugin in the folders of pluginFolders() (core/src/plugin_folders.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/device.hpp"
#include "tunescope/gemm_explorer.hpp"

namespace tunescope::gemm {

// Launches of one algorithm over the prepared buffers. beforeSample(true) moves to the next rotating input set
// (cold L2); timeSampleMs() brackets one cublasLtMatmul with CUDA events behind a short spin kernel that hides the
// host's enqueue time. Both throw Error on any CUDA or cuBLASLt failure.
class GemmWork : public TimedWork {
public:
    // One untimed launch, synchronised and error-checked (warm-up; loads the kernel's module).
    virtual void launch() = 0;
};

// Output check of the last launch. The SHA-256 is computed on a host thread; `sha256` becomes ready later.
struct PendingParity {
    OutputParity parity;  // all but sha256
    std::shared_future<std::string> sha256;
};

class GemmBackend {
public:
    virtual ~GemmBackend() = default;
    virtual GemmEnvironment environment() const = 0;
    // Why this spec cannot run on this device (dtype/architecture, layout, memory); empty when it can.
    virtual std::string unsupportedReason(const GemmSpec& spec) const = 0;
    // Allocates rotating input sets (random, never zero; together several times the L2), the output, the
    // workspace (largest of spec.workspaceBytes) and computes the FP32 reference on the GPU. Throws Error.
    virtual void prepare(const GemmSpec& spec, std::uint64_t dataSeed) = 0;
    virtual int rotatingSets() const = 0;
    virtual std::uint64_t rotatingBytes() const = 0;

    virtual HeuristicSet heuristics(std::uint64_t maxWorkspaceBytes, int requestedCount) = 0;
    virtual std::vector<int> algorithmIds(int requestedCount) = 0;
    // Capabilities of an algorithm id (AlgoInit with this problem's types).
    virtual AlgoCapabilities capabilities(int algorithmId) = 0;
    // AlgoInit + ConfigSetAttribute (every field) + AlgoCheck.
    virtual CheckResult check(const AlgoConfig& config) = 0;
    // AlgoCheck of stored bytes (replay), and decoding them through ConfigGetAttribute.
    virtual CheckResult checkRaw(const RawAlgo& raw) = 0;
    virtual AlgoConfig decode(const RawAlgo& raw) = 0;

    virtual std::unique_ptr<GemmWork> work(const RawAlgo& raw, std::uint64_t workspaceBytes) = 0;
    // Compares the output of the last launch with the FP32 reference and with the baseline; `makeBaseline`
    // stores this output as the baseline first (so it is bitwise equal to itself).
    virtual PendingParity checkOutput(bool makeBaseline) = 0;

    // The first pass of several candidates, run back to back on the GPU with no host round trip in between, so
    // that the card stays in the power state that sustained GEMM work sees (short bursts after idle gaps run at
    // boost clocks and rank kernels differently). Per item, in stream order: poison D, `warmups` untimed launches,
    // `samples` launches each bracketed by events (cold L2: every launch on the next input set), the output check
    // (an item with makeBaseline first becomes the baseline). One synchronisation at the end. A launch refused at
    // enqueue fails only its item; a device fault fails the items not finished.
    struct FirstPassItem {
        RawAlgo raw{};
        std::uint64_t workspaceBytes = 0;
        int warmups = 2;
        int samples = 3;
        bool makeBaseline = false;
    };
    struct FirstPassResult {
        std::vector<double> samplesMs;
        std::string error;
        PendingParity parity;
        int smClockMHz = -1;  // read once after the batch (NVML), -1 when unknown
    };
    virtual std::vector<FirstPassResult> firstPass(const std::vector<FirstPassItem>& items) = 0;
    virtual int firstPassBatchLimit() const = 0;
    // Enqueues `launches` untimed launches of `raw` and returns at once: the GPU stays busy (and in its sustained
    // power state) while the host checks the next configurations.
    virtual void keepBusy(const RawAlgo& raw, std::uint64_t workspaceBytes, int launches) = 0;
    // Blocks of launches run back to back in stream order (the GPU never idles between blocks, unless a block asks
    // for idle time first). Per block: `idleBeforeSeconds` with the GPU drained, `warmups` untimed launches, then
    // `launches` timed ones (cold L2: each on the next input set), bracketed by events per launch, or per group
    // of launches when there are many. While the blocks run, NVML's energy counter is read at each block's
    // timed start and end, and SM clock, power and clock-event reasons every ~10 ms. A block that fails to
    // enqueue fails alone; a device fault fails the blocks not finished.
    struct Block {
        RawAlgo raw{};
        std::uint64_t workspaceBytes = 0;
        int warmups = 0;
        int launches = 1;
        double idleBeforeSeconds = 0.0;
    };
    struct BlockResult {
        double medianMsPerLaunch = 0.0;  // median over the timed launches (or groups, per launch)
        double meanMsPerLaunch = 0.0;    // the timed part's events over its launches
        int launches = 0;
        double seconds = 0.0;            // of the timed part
        double joulesPerLaunch = -1.0;   // -1 when the driver does not tell
        double meanPowerReadingW = -1.0;
        double powerLimitW = -1.0;
        double meanSmClockMHz = -1.0;
        int readings = 0, powerCapReadings = 0;
        std::uint64_t clockEventReasons = 0;
        std::string error;
    };
    virtual std::vector<BlockResult> runBlocks(const std::vector<Block>& blocks) = 0;
};

// The plugin also exports `int tunescope_gemm_backend_interface(void)` returning this number; the loader refuses a
// plugin built for another one (its virtual functions would not match).
inline constexpr int kGemmBackendInterfaceVersion = 4;  // 3: TimedWork::lastConditions (GemmWork is a TimedWork); 4: runBlocks
inline constexpr const char* kGemmBackendInterfaceSymbol = "tunescope_gemm_backend_interface";
using GemmBackendInterfaceFn = int (*)();

using CreateGemmBackendFn = GemmBackend* (*)(int* noDevice, char* why, std::size_t whyBytes);
inline constexpr const char* kCreateGemmBackendSymbol = "tunescope_create_gemm_backend";
inline constexpr const char* kGemmPluginFileName = "libtunescope_cublaslt.so";

// Owns the plugin's handle and the backend it made; the backend is destroyed before the library is closed.
class LoadedGemmBackend {
public:
    LoadedGemmBackend() = default;
    LoadedGemmBackend(void* library, GemmBackend* backend) : library_(library), backend_(backend) {}
    LoadedGemmBackend(LoadedGemmBackend&& other) noexcept;
    LoadedGemmBackend& operator=(LoadedGemmBackend&& other) noexcept;
    LoadedGemmBackend(const LoadedGemmBackend&) = delete;
    LoadedGemmBackend& operator=(const LoadedGemmBackend&) = delete;
    ~LoadedGemmBackend();
    GemmBackend* get() const { return backend_; }
    GemmBackend* operator->() const { return backend_; }
    explicit operator bool() const { return backend_ != nullptr; }

private:
    void reset();
    void* library_ = nullptr;
    GemmBackend* backend_ = nullptr;
};

struct GemmBackendProbe {
    LoadedGemmBackend backend;
    std::string reason;                 // why there is none
    bool noDevice = false;              // the plugin loaded but found no CUDA device
    std::vector<std::string> searched;  // the paths tried
    std::vector<std::string> refused;   // plugin files found but not used, each with why (e.g. another interface)
};

// Never throws. `exeDir` is the folder of the running executable (for <exe dir>/../lib/tunescope and ../lib).
GemmBackendProbe loadGemmBackend(const std::string& exeDir);

// ---------------------------------------------------------------------------------------------------------------
// The exploration driver
// ---------------------------------------------------------------------------------------------------------------

struct ExploreOptions {
    GemmSpec spec;
    SelectionRule rule;
    double budgetSeconds = 60.0;   // the whole exploration, setup to selection
    std::uint64_t dataSeed = 20261202;
    int screenCandidates = 16;     // the best of the search's first pass, re-screened against the top
    int screenPasses = 2;          // randomly ordered passes of the screen (the search's first pass is one more)
    int finalists = 3;             // confirmed against the top (requested configs come on top of these)
    ConfirmSettings confirm;
    bool coldL2 = true;
    SearchOptions search;          // clusterShapeIds/workspaceCap filled in from the device and spec
    // Configurations to time whatever the search does (e.g. a winner claimed elsewhere); they are always finalists
    // when they pass AlgoCheck, run and meet the parity rule.
    std::vector<AlgoConfig> requestedConfigs;
};

using ExploreProgressFn = std::function<void(const std::string&)>;

// Runs the whole exploration. When nothing can be measured (unsupported spec, too little memory, no heuristic
// answer, the baseline fails) it returns early with `failure` set and what it had; failures of single algorithms
// are recorded in the candidates. Throws Error only for an invalid spec.
ExplorationResult runExploration(GemmBackend& backend, const ExploreOptions& options,
                                 const ExploreProgressFn& progress = {});

// The confirm stage on its own (explore and replay both use it): entries[0] is the heuristic top, the A/A control
// (the top again) is added, and every entry gets a block in each round, in one regime. Rounds come in ABBA pairs (a
// fresh random order, then it reversed). Returns one measurement per entry, each finalist paired per round with the
// geometric mean of the two top blocks, and the A/A control last (its second top block over the first); an entry
// whose block failed has its error set instead.
struct ConfirmEntry {
    RawAlgo raw{};
    std::uint64_t workspaceBytes = 0;
    double estimateMs = 1.0;  // expected time per launch (sizes the blocks)
};
struct ConfirmRun {
    std::vector<RegimeMeasurement> entries;  // entries.size() + 1: the last is the A/A control
    std::vector<std::string> errors;         // per entry, empty when it ran
    std::vector<PowerWindow> power;          // sustained: per entry, its blocks summed up
    double seconds = 0.0;
    std::vector<std::size_t> extended;       // entries given the sequential confirm's extra rounds
    int extraRounds = 0;                     // how many rounds were added to them
};
ConfirmRun runConfirm(GemmBackend& backend, const std::vector<ConfirmEntry>& entries, Regime regime,
                      const ConfirmSettings& settings, std::uint64_t orderSeed);
// runConfirm, then the sequential step: entries (not the top) whose gain interval has its lower end below
// `thresholdPercent` and its upper end at or above it get settings.extraRounds more rounds with the top and the A/A
// control (at most settings.extraMaxEntries, highest gain first), appended to their first rounds; their gains and
// the A/A's are recomputed over all rounds. Nothing is added when the A/A control already fails (99%).
ConfirmRun runSequentialConfirm(GemmBackend& backend, const std::vector<ConfirmEntry>& entries, Regime regime,
                                const ConfirmSettings& settings, std::uint64_t orderSeed, double thresholdPercent);

struct ReplayOutcome {
    bool versionMatches = false;
    std::string refusal;  // set when it refused (version mismatch, AlgoCheck failed)
    FinalMeasurement selected, baseline;  // sustained blocks
    std::optional<RegimeMeasurement> sustained, burst;      // the selection against the top
    std::optional<RegimeMeasurement> aaSustained, aaBurst;  // the A/A control
    double gainPercent = 0.0;  // sustained paired gain
    std::string verdict;       // FASTER / SLOWER / SAME (interval vs 0), or TOO NOISY (the A/A excluded 0)
    std::string sha256;
    bool sha256MatchesReport = false;
    std::optional<PowerWindow> baselinePower;  // the heuristic top's sustained blocks
};

// Re-runs the explorer's confirm stage (both regimes) on the report's selection against its baseline.
ReplayOutcome runReplay(GemmBackend& backend, const ReplayPlan& plan, const ConfirmSettings& settings,
                        const ExploreProgressFn& progress = {});

}  // namespace tunescope::gemm
