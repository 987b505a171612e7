#pragma once
// The device interface: what the sweep, the self-test and the GUI see of a CPU, CUDA or HIP device.
// Backends other than the CPU live in plugins (libtunescope_backend_cuda.so, libtunescope_backend_hip.so)
// loaded at run time, so one build runs on machines with or without those runtimes.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tunescope/base/errors.hpp"

namespace tunescope {

// One launch of the l2norm kernel family, in Triton's terms (see kernels/README.md for what each knob means).
struct L2NormConfig {
    int blockRows = 32;   // BT: rows per program (block)
    int numWarps = 4;     // warps per program; a warp is 32 lanes on NVIDIA, 64 on AMD gfx9
    int numStages = 3;    // depth of the load pipeline (rows in flight per lane)
    int numCtas = 1;      // cluster size; 1 everywhere we run
    friend bool operator==(const L2NormConfig&, const L2NormConfig&) = default;
};

// How a config is written in messages and tables, one function for every place that writes one:
// Keys "BT=32 num_warps=4 num_stages=3" (Triton's names), Short "BT=32 w=4 s=3", Slashes "32/4/3". Keys and Short
// add the cluster size (num_ctas=, ctas=) when it is not 1. Inline: the device plugins link none of the core.
enum class ConfigText { Keys, Short, Slashes };
inline std::string configText(const L2NormConfig& config, ConfigText style = ConfigText::Keys) {
    const std::string bt = std::to_string(config.blockRows), warps = std::to_string(config.numWarps),
                      stages = std::to_string(config.numStages), ctas = std::to_string(config.numCtas);
    switch (style) {
        case ConfigText::Slashes: return bt + "/" + warps + "/" + stages;
        case ConfigText::Short: return "BT=" + bt + " w=" + warps + " s=" + stages + (config.numCtas != 1 ? " ctas=" + ctas : "");
        case ConfigText::Keys: break;
    }
    return "BT=" + bt + " num_warps=" + warps + " num_stages=" + stages + (config.numCtas != 1 ? " num_ctas=" + ctas : "");
}

inline constexpr int kL2NormHeadDim = 128;
inline constexpr float kL2NormDefaultEps = 1e-6f;

struct DeviceInfo {
    std::string backend;          // "cpu", "cuda", "hip"
    int index = 0;                // ordinal within the backend
    std::string name;             // "NVIDIA H200", "AMD EPYC ... (16 threads)"
    std::string architecture;     // "sm_90", "gfx942", "x86_64"
    std::uint64_t memoryBytes = 0;
    int multiprocessors = 0;      // SMs / CUs / CPU threads used
    std::uint64_t l2Bytes = 0;
    int clockMHz = 0;             // max SM clock
    int warpSize = 0;             // 32, 64; 1 on the CPU
    std::string driverVersion;
    std::string runtimeVersion;
};

// "cuda:0 NVIDIA H200 (sm_90)"; without " (...)" when the architecture is not known.
inline std::string deviceLabel(const DeviceInfo& info) {
    std::string label = info.backend + ":" + std::to_string(info.index) + " " + info.name;
    if (!info.architecture.empty()) label += " (" + info.architecture + ")";
    return label;
}

// What the driver says about the device around one sample (NVML on CUDA); -1 where it does not tell.
// clockEventReasons uses NVML's bit layout (nvmlClocksEventReasons: 0x4 SW power cap, 0x8 HW slowdown,
// 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake); see docs/sweep.md for which bits drop a sample.
struct SampleConditions {
    int smClockMHz = -1;
    int memClockMHz = -1;
    double powerW = -1;
    double temperatureC = -1;
    long long clockEventReasons = -1;
};

// What the L2 holds when a sample starts (docs/sweep.md, "L2 regimes"). Plugins link none of the core, so the names
// and their reader are inline here; readers of files refuse any other name (one list: kL2RegimeNames).
enum class L2Regime {
    Cold,  // flushed: a buffer several times the L2 written then read (no useful line, no dirty line left)
    Warm,  // a producer kernel wrote the input right before (as after the layer that made it in a model)
    Hot,   // nothing in between: whatever the previous sample of the same work left (the old --hot)
};
inline constexpr const char* kL2RegimeNames[] = {"cold", "warm", "hot"};
inline std::string toString(L2Regime regime) { return kL2RegimeNames[static_cast<int>(regime)]; }
inline bool l2RegimeFromString(const std::string& text, L2Regime* out) {
    for (int i = 0; i < 3; ++i)
        if (text == kL2RegimeNames[i]) {
            *out = static_cast<L2Regime>(i);
            return true;
        }
    return false;
}

// The clocks a sample can be timed with (docs/sweep.md, "Timers"); records name theirs with these words.
inline constexpr const char* kTimerCupti = "cupti";           // CUPTI activity records: the kernel's own GPU start/end
inline constexpr const char* kTimerEvents = "events";         // CUDA/HIP events recorded around the launch
inline constexpr const char* kTimerSteadyClock = "steady_clock";  // the CPU backend: std::chrono around the call
inline constexpr const char* kTimerNames[] = {kTimerCupti, kTimerEvents, kTimerSteadyClock};
inline bool isTimerName(const std::string& text) {
    for (const char* name : kTimerNames)
        if (text == name) return true;
    return false;
}
// What a file written before timers were recorded was timed with: steady_clock on the CPU, device events elsewhere.
inline std::string legacyTimerFor(const std::string& backend) { return backend == "cpu" ? kTimerSteadyClock : kTimerEvents; }

// One timer a device offers: whether it works here and, when not, why (shown to the user).
struct TimerOption {
    std::string name;      // one of kTimerNames
    bool available = true;
    std::string note;      // what it measures, or why it is not available
};
// The timer `requested` names among `options` ("auto": the first available one). Throws Error naming why not.
inline const TimerOption& chooseTimer(const std::vector<TimerOption>& options, const std::string& requested) {
    std::string offered;
    for (const TimerOption& option : options) {
        if (requested == "auto" ? option.available : option.name == requested) {
            if (option.available) return option;
            throw Error("", "", "--timer " + requested + " is not available here: " + option.note);
        }
        offered += (offered.empty() ? "" : ", ") + option.name;
    }
    throw Error("", "", requested == "auto" ? std::string("no timer is available on this device")
                                            : "--timer " + requested + " is not offered by this device (it has: " +
                                                  offered + ")");
}

// Something timed repeatedly on one device: one kernel launch (or copy, or GEMM) per sample.
class TimedWork {
public:
    virtual ~TimedWork() = default;
    // Untimed preparation before each sample, queued ahead of it: Cold writes then reads a buffer of at least twice
    // the L2, so that no dirty line's write-back lands in the next sample (shared/reference/h200-cold-l2-flush.md);
    // Warm has a producer write the work's input with the same values (the L2 then holds it, dirty, as after the
    // layer that produced it); Hot does nothing. A work that has no producer treats Warm as Hot (the default).
    virtual void beforeSample(L2Regime regime) = 0;
    // One sample in milliseconds, by the device's timer (Device::timer: device events around the launch, the
    // kernel's own CUPTI record, steady_clock on the CPU). Throws on device errors.
    virtual double timeSampleMs() = 0;
    // The SM clock read around the last sample, or -1 when the driver does not tell.
    virtual int lastSmClockMHz() const { return -1; }
    // Clocks, power, temperature and clock-event reasons read around the last sample (added in plugin ABI 2).
    virtual SampleConditions lastConditions() const {
        SampleConditions conditions;
        conditions.smClockMHz = lastSmClockMHz();
        return conditions;
    }
    // Bytes read + written by one sample, for achieved bandwidth.
    virtual std::uint64_t bytesMoved() const = 0;
    // `count` samples queued back to back with no wait in between (each with its preparation): the device
    // keeps working while the host queues the next, as under Triton's do_bench and in production, where the host
    // runs ahead of the GPU (docs/sweep.md, "Pipelined samples"). Appends one time and one conditions entry
    // per sample (conditions read once, after the batch). This default runs them one at a time (added in ABI 4).
    virtual void timeSamplesMs(int count, L2Regime regime, std::vector<double>& samplesMs,
                               std::vector<SampleConditions>& conditions) {
        for (int i = 0; i < count; ++i) {
            beforeSample(regime);
            samplesMs.push_back(timeSampleMs());
            conditions.push_back(lastConditions());
        }
    }
};

// A kernel compiled by Triton (a .cubin or .hsaco from its cache), with what launching it needs. Filled by the
// core's Triton cache reader (triton_binaries.hpp), which has checked the argument list: FLA's l2norm_fwd_kernel,
// (x: *bf16, y: *bf16, rstd: *f32, eps: f32, T: i32) followed by the two scratch pointers Triton 3.6 appends.
// See docs/triton-kernels.md.
struct TritonKernelBinary {
    std::string label;          // the binary's path, for messages
    std::string kernelName;     // the entry symbol ("l2norm_fwd_kernel")
    std::string tritonVersion;  // "3.6.0"
    std::string targetBackend;  // "cuda" or "hip"
    std::string targetArch;     // in DeviceInfo::architecture's terms: "sm_90", "gfx942"
    int warpSize = 32;
    std::vector<std::uint8_t> image;  // the cubin / hsaco bytes
    int blockRows = 0;                // BT: grid = cdiv(T, BT)
    int numWarps = 4;                 // block = numWarps * warpSize threads
    int numCtas = 1;
    std::uint32_t sharedBytes = 0;    // dynamic shared memory per block
    std::uint64_t globalScratchBytes = 0, globalScratchAlign = 1;    // per program; 0: a null pointer is passed
    std::uint64_t profileScratchBytes = 0, profileScratchAlign = 1;
};

// --- replaying captured Triton kernels (docs/fla-capture.md, section 10) -------------------------------------------
// The core builds everything Triton-specific (triton_launch.hpp: which arguments are passed and how scalars are
// encoded); a plugin only fills in device pointers and launches, so these types say nothing about Triton's types.

// One kernel parameter as the launcher passes it: bytes of a value, or a device pointer filled in at launch time.
struct KernelParam {
    enum class Kind { Value, Buffer, GlobalScratch, ProfileScratch };
    Kind kind = Kind::Value;
    std::string name;                 // the kernel argument's name ("x", "global_scratch"), for messages
    std::vector<std::uint8_t> bytes;  // Value: exactly the parameter's bytes, little-endian
    int buffer = -1;                  // Buffer: index into the prepared replay buffers
    std::uint64_t byteOffset = 0;     // Buffer: where the tensor's view starts in its buffer
};

// One launch of a captured kernel: its binary (TritonKernelBinary; blockRows is not used), the grid, the parameters.
struct CapturedKernelLaunch {
    TritonKernelBinary binary;
    std::uint32_t grid[3] = {1, 1, 1};
    std::vector<KernelParam> params;
    std::string label;  // "chunk_fwd_kernel_o config 2 at case#6", for messages
};

// One device allocation of a replay: `bytes` long, holding `initial` at its start (zeros elsewhere; all zeros when
// `initial` is empty).
struct ReplayBuffer {
    std::string name;
    std::uint64_t bytes = 0;
    std::vector<std::uint8_t> initial;
};

class Device {
public:
    virtual ~Device() = default;
    virtual const DeviceInfo& info() const = 0;
    // Whether this device can run the config; `why` explains a refusal (e.g. 32 warps on a wave64 GPU).
    virtual bool supports(const L2NormConfig& config, std::string* why) const = 0;

    // Allocates device buffers for `rows` rows of D=128: x (random bf16 from `seed`, never zeros), y, rstd.
    // Throws tunescope::Error with a clear message on too little memory.
    virtual void prepareL2Norm(std::int64_t rows, std::uint64_t seed) = 0;
    // Timed launches of one config over the prepared buffers.
    virtual std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& config, float eps) = 0;
    // A device-to-device copy of the same byte count as the prepared l2norm moves (the bandwidth ceiling).
    virtual std::unique_ptr<TimedWork> copyWork() = 0;

    // Host in, host out, for the self-test: runs one config on `x` (rows x 128 bf16 bits) into y and rstd.
    virtual void runL2Norm(const L2NormConfig& config, std::span<const std::uint16_t> x, std::span<std::uint16_t> y,
                           std::span<float> rstd, float eps) = 0;

    // The same two for a Triton binary over the prepared buffers / host data. A binary whose target is not this
    // device is refused with the reason. The defaults throw: only the CUDA and HIP plugins load Triton binaries.
    virtual std::unique_ptr<TimedWork> tritonL2NormWork(const TritonKernelBinary& binary, float eps);
    virtual void runTritonL2Norm(const TritonKernelBinary& binary, std::span<const std::uint16_t> x,
                                 std::span<std::uint16_t> y, std::span<float> rstd, float eps);

    // Replay of captured Triton kernels (added in ABI 6; the defaults throw: only the CUDA plugin replays them).
    // Allocates the buffers (replacing any earlier ones) and keeps their initial contents on the device.
    virtual void prepareReplayBuffers(const std::vector<ReplayBuffer>& buffers);
    // Every buffer back to its initial contents.
    virtual void resetReplayBuffers();
    // Every byte of buffer `index` set to `byte` (poison before a checked launch).
    virtual void fillReplayBuffer(int index, std::uint8_t byte);
    // Buffer `index`'s bytes, after everything queued so far has finished.
    virtual std::vector<std::uint8_t> readReplayBuffer(int index);
    // Timed launches of one captured kernel over the prepared buffers (the module is loaded once, here). One
    // timeSampleMs() is one launch, finished when it returns. Refuses a binary for another target.
    virtual std::unique_ptr<TimedWork> capturedKernelWork(const CapturedKernelLaunch& launch);

    // The timers this device offers, its default first (added in ABI 5). The default: device events only.
    virtual std::vector<TimerOption> timers() const {
        return {{kTimerEvents, true, "device events recorded around each launch"}};
    }
    // Works made after this call time their samples with `name` ("auto": the first available of timers()). Returns
    // the timer chosen; throws Error naming why when it is not available here.
    virtual std::string useTimer(const std::string& name) { return chooseTimer(timers(), name).name; }
    // The timer works made now use (the name records carry).
    virtual std::string timer() const { return chooseTimer(timers(), "auto").name; }

    // Buffer placements (added in ABI 7; docs/sweep.md, "Placements"). Where the l2norm's x, y and rstd lie in
    // device memory can move a config's time by about 1% in one process and not in the next, so a decision made
    // on one placement can be that placement's. With `count` > 1 the next prepareL2Norm allocates the three
    // buffers `count` times, each its own allocation at another offset, all filled alike; usePlacement(i) picks the
    // copy that works made afterwards read and write. Returns how many this device keeps: the default keeps one
    // (the CPU's host buffers), and then usePlacement has nothing to switch.
    virtual int setL2NormPlacements(int count) {
        (void)count;
        return 1;
    }
    virtual void useL2NormPlacement(int index) { (void)index; }
};

// The defaults of the Triton entry points (inline: plugins link none of the core's code).
[[noreturn]] inline void throwNoTritonSupport(const DeviceInfo& info) {
    throw Error("", "", "the " + info.backend + " backend cannot run Triton binaries (only the cuda and hip "
                        "plugins load them)");
}
inline std::unique_ptr<TimedWork> Device::tritonL2NormWork(const TritonKernelBinary&, float) {
    throwNoTritonSupport(info());
}
inline void Device::runTritonL2Norm(const TritonKernelBinary&, std::span<const std::uint16_t>,
                                    std::span<std::uint16_t>, std::span<float>, float) {
    throwNoTritonSupport(info());
}

[[noreturn]] inline void throwNoCapturedReplay(const DeviceInfo& info) {
    throw Error("", "", "the " + info.backend + " backend cannot replay captured Triton kernels (the generic "
                        "launcher is CUDA-only for now)");
}
inline void Device::prepareReplayBuffers(const std::vector<ReplayBuffer>&) { throwNoCapturedReplay(info()); }
inline void Device::resetReplayBuffers() { throwNoCapturedReplay(info()); }
inline void Device::fillReplayBuffer(int, std::uint8_t) { throwNoCapturedReplay(info()); }
inline std::vector<std::uint8_t> Device::readReplayBuffer(int) { throwNoCapturedReplay(info()); }
inline std::unique_ptr<TimedWork> Device::capturedKernelWork(const CapturedKernelLaunch&) {
    throwNoCapturedReplay(info());
}

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;            // "cpu", "cuda", "hip"
    virtual bool available() const = 0;              // runtime loaded and at least one device
    virtual std::string unavailableReason() const = 0;  // e.g. "no HIP device (hipGetDeviceCount: hipErrorNoDevice)"
    virtual std::vector<DeviceInfo> devices() const = 0;
    virtual std::unique_ptr<Device> openDevice(int index) = 0;
};

struct BackendProbe {
    std::string name;
    std::unique_ptr<Backend> backend;  // null when the plugin itself could not be loaded
    std::string reason;                // why it is missing or unavailable; empty when usable
    std::string pluginPath;            // the plugin file found (GPU backends); empty for the CPU or when not found
};

// The CPU backend always, then the CUDA and HIP plugins if they load. Never throws.
std::vector<BackendProbe> probeBackends();
// Opens one backend by name or throws Error naming the reason it is unavailable.
std::unique_ptr<Backend> openBackend(const std::string& name);

// The C entry point every plugin exports.
using CreateBackendFn = Backend* (*)();
inline constexpr const char* kCreateBackendSymbol = "tunescope_create_backend";
// Plugins also export `int tunescope_plugin_abi()`; a plugin built against another version of this interface is
// refused with a clear reason instead of crashing. Bump when Device, Backend or TimedWork change shape.
using PluginAbiFn = int (*)();
inline constexpr const char* kPluginAbiSymbol = "tunescope_plugin_abi";
// 2: TimedWork::lastConditions; 3: the Triton binary entry points; 4: TimedWork::timeSamplesMs (pipelined samples);
// 5: L2Regime in beforeSample/timeSamplesMs (the warm regime), Device::timers/useTimer/timer (the CUPTI timer)
// 6: the replay of captured Triton kernels (prepareReplayBuffers ... capturedKernelWork)
// 7: buffer placements (setL2NormPlacements, useL2NormPlacement)
inline constexpr int kPluginAbiVersion = 7;

}  // namespace tunescope
