#pragma once
// The tuning plan of an FLA capture (docs/fla-capture.md, "The C++ side"): FLA's config file holds one config per
// (kernel, key_hash), so every launch of a kernel with the same key, in any case, is one decision. A decision lists
// its launches, its configs and, per config, how many of those launches have a compiled binary for it: a config a
// sweep can measure for the decision needs a binary for every launch (a binary is specialised to its launch's
// arguments, so launches of one key may need different binaries).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/formats/fla_capture.hpp"

namespace tunescope {

struct FlaPlanLaunch {
    std::string case_id;
    std::int64_t sequence = 0;
    std::size_t launchIndex = 0;  // in the kernel's launches
    std::string autotune_source;
    std::optional<std::int64_t> chosen_config;  // FLA's own choice in the capture, when known
};

struct FlaPlanConfig {
    std::size_t index = 0;  // into the kernel's configs
    std::string label;      // "BT=64 num_warps=4 num_stages=3"
    std::size_t binaries = 0;       // launches of the decision with a binary of this config
    std::size_t compileErrors = 0;  // launches whose variant did not compile
    bool measurable(std::size_t launches) const { return binaries == launches && launches > 0; }
};

struct FlaDecision {
    std::string kernel_name, key_hash;
    Json autotune_key = Json::array();
    std::vector<FlaPlanLaunch> launches;
    std::vector<FlaPlanConfig> configs;
    std::optional<std::size_t> capturedChoice;  // FLA's choice at the decision's first launch that records one
    std::size_t measurableConfigs() const;
};

struct FlaCapturePlan {
    std::string manifest;  // the file the plan was made from
    std::string capture_kind, device, arch, triton_version, fla_version;
    std::vector<FlaDecision> decisions;  // kernels in manifest order, a kernel's keys in order of first launch
    std::size_t kernels = 0, launches = 0, variants = 0, variantsWithBinary = 0;

    const FlaDecision* decision(const std::string& kernelName, const std::string& keyHash) const;
};

FlaCapturePlan planFlaCapture(const FlaCapture& capture);

// "BT=64 num_warps=4 num_stages=3" (kwargs in the config's order, then the launch parameters; num_ctas, maxnreg
// and ir_override only when they are not Triton's defaults).
std::string flaConfigLabel(const FlaCaptureConfig& config);

// The plan as text: a header line, then per decision its key, its launches and its configs (with "no binary" /
// "compile error" marks), and a closing count.
std::string formatFlaCapturePlan(const FlaCapturePlan& plan);
Json toJson(const FlaCapturePlan& plan);

// Why a sweep of the capture cannot run on these devices (probeBackends' devices, `unavailable` the reasons of the
// backends that are missing: "cuda: plugin not built ..."), or nullopt when it can. Captured kernels are Triton
// binaries (cubin or hsaco) for the capture's backend and architecture: the CPU device cannot run them, nor a GPU
// of another backend or architecture. A matching HIP GPU is refused too, naming why: the generic launcher
// (docs/fla-capture.md, section 10) is CUDA-only for now.
std::optional<std::string> flaCaptureSweepRefusal(const FlaCapture& capture, const std::vector<DeviceInfo>& devices,
                                                  const std::vector<std::string>& unavailable = {});

}  // namespace tunescope
