#pragma once
// One Triton-compiled kernel (cubin / hsaco bytes) loaded into the current device's context and launched with the
// parameter list Triton 3.6's launcher passes: the kernel's own arguments (x, y, rstd, eps, T for l2norm_fwd_kernel)
// then global_scratch and profile_scratch. CUDA: the driver API (libcuda.so.1, opened at run time so the plugin still
// loads where only the runtime is installed); HIP: hipModuleLoadData / hipModuleLaunchKernel. docs/triton-kernels.md.
#include <cstdint>
#include <memory>

#include "tunescope/device/device.hpp"

namespace tunescope::triton {

class TritonModule {
public:
    // Loads the image into the current context and looks the entry up; throws Error naming the binary.
    explicit TritonModule(const TritonKernelBinary& binary);
    ~TritonModule();
    TritonModule(const TritonModule&) = delete;
    TritonModule& operator=(const TritonModule&) = delete;

    // Programs of the launch grid for `rows` rows: cdiv(rows, BT).
    std::uint64_t programs(std::int64_t rows) const;
    // Enqueues one launch on `stream` (cudaStream_t / hipStream_t); throws Error naming the binary on failure.
    void launch(const void* x, void* y, float* rstd, float eps, std::int64_t rows, void* globalScratch,
                void* profileScratch, void* stream) const;
#if !defined(TUNESCOPE_BACKEND_HIP)
    // Any captured kernel (docs/fla-capture.md, section 10): `params` as Triton 3.6's launcher builds them
    // (triton_generic_launch.hpp), grid x,y,z, block 32 x num_warps, dynamic shared memory from the metadata. An
    // empty grid launches nothing, as in Triton. CUDA only for now: the HIP plugin does not replay captured kernels.
    void launchWithParams(const std::uint32_t grid[3], void** params, void* stream) const;
#endif

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tunescope::triton
