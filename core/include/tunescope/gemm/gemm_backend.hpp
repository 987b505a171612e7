#pragma once
// The boundary between the core and the cuBLASLt plugin (libtunescope_cublaslt.so): the plugin ABI. It includes only
// the types a plugin sees (gemm_algo.hpp, gemm_spec.hpp); the exploration driver is in gemm_driver.hpp.
//
// The plugin exports
//   extern "C" tunescope::GemmBackend* tunescope_create_gemm_backend(int* noDevice, char* why, size_t whyBytes);
//   extern "C" int tunescope_gemm_backend_interface(void);   // kGemmBackendInterfaceVersion
// create returns null with a reason (and *noDevice = 1 when there is no CUDA device at all) when it cannot work.
// The core finds the plugin in the folders of pluginFolders() (core/include/tunescope/device/plugin_folders.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/device/device.hpp"
#include "tunescope/gemm/gemm_algo.hpp"
#include "tunescope/gemm/gemm_spec.hpp"

namespace tunescope::gemm {

// Launches of one algorithm over the prepared buffers. beforeSample(L2Regime::Cold) moves to the next rotating input set
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

    // The timers this backend offers (docs/explorer.md, "Timers"). With `cupti` every timed launch of firstPass,
    // runBlocks and GemmWork::timeSampleMs is its own kernels' GPU span (first start to last end, so a split-k
    // reduction kernel counts) from CUPTI activity records; the events stay recorded around it, so the GPU sees the
    // same commands with either timer, and a block's `seconds` and `meanMsPerLaunch` stay the events' (the stream's
    // throughput, gaps included). Until useTimer is called: events.
    virtual std::vector<TimerOption> timers() const { return {{kTimerEvents, true, "CUDA events around each launch"}}; }
    // Chooses one (`auto`: the first available), starts it and returns its name; throws Error when the named one
    // cannot run here.
    virtual std::string useTimer(const std::string& name) { return chooseTimer(timers(), name).name; }
    virtual std::string timer() const { return kTimerEvents; }
};

// The plugin also exports `int tunescope_gemm_backend_interface(void)` returning this number; the loader refuses a
// plugin built for another one (its virtual functions would not match).
inline constexpr int kGemmBackendInterfaceVersion = 6;  // 3: TimedWork::lastConditions (GemmWork is a TimedWork); 4: runBlocks;
// 5: TimedWork::beforeSample(L2Regime) (plugin ABI 5); 6: timers / useTimer / timer
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

}  // namespace tunescope::gemm
