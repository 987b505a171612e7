// Triton binaries (.hsaco) on HIP through the module API (docs/triton-kernels.md). Built in CI with Debian's hipcc;
// run only where an AMD GPU exists.
#include <hip/hip_runtime.h>

#include <string>

#include "triton_module.hpp"
#include "tunescope/base/errors.hpp"

namespace tunescope::triton {
namespace {

std::string errorText(hipError_t error) {
    const std::string name = hipGetErrorName(error), text = hipGetErrorString(error);
    return text == name ? name : name + ": " + text;
}

// LDS per workgroup on gfx9 (and what Triton's AMD backend allocates against).
constexpr std::uint32_t kMaxSharedBytes = 64 * 1024;

}  // namespace

struct TritonModule::Impl {
    TritonKernelBinary binary;  // launch settings; the image itself is dropped once loaded (the runtime copies it)
    hipModule_t module = nullptr;
    hipFunction_t function = nullptr;
};

TritonModule::TritonModule(const TritonKernelBinary& binary) : impl_(std::make_unique<Impl>()) {
    if (binary.image.empty()) throw Error(binary.label, "", "is empty");
    if (binary.sharedBytes > kMaxSharedBytes) {
        throw Error(binary.label, "", "needs " + std::to_string(binary.sharedBytes) +
                                          " bytes of shared memory, over the 64 KiB of a gfx9 workgroup");
    }
    hipError_t error = hipModuleLoadData(&impl_->module, binary.image.data());
    if (error != hipSuccess) throw Error(binary.label, "", "hipModuleLoadData failed: " + errorText(error));
    error = hipModuleGetFunction(&impl_->function, impl_->module, binary.kernelName.c_str());
    if (error != hipSuccess) {
        (void)hipModuleUnload(impl_->module);
        throw Error(binary.label, "", "hipModuleGetFunction(" + binary.kernelName + ") failed: " + errorText(error));
    }
    impl_->binary = binary;
    impl_->binary.image.clear();
}

TritonModule::~TritonModule() {
    if (impl_ && impl_->module) (void)hipModuleUnload(impl_->module);
}

std::uint64_t TritonModule::programs(std::int64_t rows) const {
    return (std::uint64_t(rows) + std::uint64_t(impl_->binary.blockRows) - 1) / std::uint64_t(impl_->binary.blockRows);
}

void TritonModule::launch(const void* x, void* y, float* rstd, float eps, std::int64_t rows, void* globalScratch,
                          void* profileScratch, void* stream) const {
    const TritonKernelBinary& b = impl_->binary;
    if (rows <= 0 || rows > 0x7fffffff) {
        throw Error(b.label, "", "T = " + std::to_string(rows) + " rows does not fit the kernel's i32 T");
    }
    const void* xArg = x;
    void* yArg = y;
    float* rstdArg = rstd;
    float epsArg = eps;
    std::int32_t rowsArg = std::int32_t(rows);
    void* globalArg = globalScratch;
    void* profileArg = profileScratch;
    // Triton 3.6's order: the kernel's parameters, then global_scratch, then profile_scratch.
    void* params[] = {&xArg, &yArg, &rstdArg, &epsArg, &rowsArg, &globalArg, &profileArg};
    const hipError_t error =
        hipModuleLaunchKernel(impl_->function, unsigned(programs(rows)), 1, 1, unsigned(b.warpSize * b.numWarps), 1,
                              1, b.sharedBytes, static_cast<hipStream_t>(stream), params, nullptr);
    if (error != hipSuccess) throw Error(b.label, "", "hipModuleLaunchKernel failed: " + errorText(error));
}

}  // namespace tunescope::triton
