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

// Something timed repeatedly on one device: one kernel launch (or copy, or GEMM) per sample.
class TimedWork {
public:
    virtual ~TimedWork() = default;
    // Untimed preparation before each sample. Cold: write then read a buffer of at least twice the L2, so that
    // no dirty line's write-back lands in the next sample (shared/reference/h200-cold-l2-flush.md).
    virtual void beforeSample(bool coldL2) = 0;
    // One sample in milliseconds, bracketed by device events (steady_clock on the CPU). Throws on device errors.
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
    // `count` samples queued back to back with no wait in between (each with its flush when cold): the device
    // keeps working while the host queues the next, as under Triton's do_bench and in production, where the host
    // runs ahead of the GPU (docs/sweep.md, "Pipelined samples"). Appends one time and one conditions entry
    // per sample (conditions read once, after the batch). This default runs them one at a time (added in ABI 4).
    virtual void timeSamplesMs(int count, bool coldL2, std::vector<double>& samplesMs,
                               std::vector<SampleConditions>& conditions) {
        for (int i = 0; i < count; ++i) {
            beforeSample(coldL2);
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
// 2: TimedWork::lastConditions; 3: the Triton binary entry points; 4: TimedWork::timeSamplesMs (pipelined samples)
inline constexpr int kPluginAbiVersion = 4;

}  // namespace tunescope
