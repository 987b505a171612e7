// Triton binaries on CUDA through the driver API (docs/triton-kernels.md). libcuda.so.1 is opened at run time, as
// the runtime itself does, so the plugin loads (and says "no CUDA device") on machines with no driver.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

#include "triton_module.hpp"
#include "tunescope/base/errors.hpp"

namespace tunescope::triton {
namespace {

struct DriverApi {
    CUresult (*moduleLoadData)(CUmodule*, const void*) = nullptr;
    CUresult (*moduleUnload)(CUmodule) = nullptr;
    CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*funcGetAttribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
    CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
    CUresult (*funcSetCacheConfig)(CUfunction, CUfunc_cache) = nullptr;
    CUresult (*ctxGetDevice)(CUdevice*) = nullptr;
    CUresult (*deviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
    CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
    CUresult (*getErrorName)(CUresult, const char**) = nullptr;
    CUresult (*getErrorString)(CUresult, const char**) = nullptr;
    std::string missing;  // why the API is not usable; empty when it is
};

template <typename Fn>
void bind(void* library, const char* name, Fn& target, std::string& missing) {
    target = reinterpret_cast<Fn>(dlsym(library, name));
    if (!target && missing.empty()) missing = std::string("libcuda.so.1 has no ") + name;
}

const DriverApi& driver() {
    static DriverApi api;
    static std::once_flag once;
    std::call_once(once, [] {
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* why = dlerror();
            api.missing = std::string("cannot open libcuda.so.1: ") + (why ? why : "unknown reason");
            return;
        }
        bind(library, "cuModuleLoadData", api.moduleLoadData, api.missing);
        bind(library, "cuModuleUnload", api.moduleUnload, api.missing);
        bind(library, "cuModuleGetFunction", api.moduleGetFunction, api.missing);
        bind(library, "cuFuncGetAttribute", api.funcGetAttribute, api.missing);
        bind(library, "cuFuncSetAttribute", api.funcSetAttribute, api.missing);
        bind(library, "cuFuncSetCacheConfig", api.funcSetCacheConfig, api.missing);
        bind(library, "cuCtxGetDevice", api.ctxGetDevice, api.missing);
        bind(library, "cuDeviceGetAttribute", api.deviceGetAttribute, api.missing);
        bind(library, "cuLaunchKernel", api.launchKernel, api.missing);
        bind(library, "cuGetErrorName", api.getErrorName, api.missing);
        bind(library, "cuGetErrorString", api.getErrorString, api.missing);
    });
    return api;
}

std::string resultText(CUresult result) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (driver().getErrorName) driver().getErrorName(result, &name);
    if (driver().getErrorString) driver().getErrorString(result, &text);
    return std::string(name ? name : "CUDA_ERROR_" + std::to_string(int(result))) + (text ? std::string(": ") + text : "");
}

// Shared memory above this needs the opt-in attribute (Triton's launcher tests the same bound).
constexpr int kDefaultSharedLimit = 48 * 1024;

}  // namespace

struct TritonModule::Impl {
    TritonKernelBinary binary;  // launch settings; the image itself is dropped once loaded (the driver copies it)
    CUmodule module = nullptr;
    CUfunction function = nullptr;
};

TritonModule::TritonModule(const TritonKernelBinary& binary) : impl_(std::make_unique<Impl>()) {
    const DriverApi& api = driver();
    if (!api.missing.empty()) throw Error(binary.label, "", "cannot load a Triton binary: " + api.missing);
    if (binary.image.empty()) throw Error(binary.label, "", "is empty");
    auto fail = [&](const char* what, CUresult result) {
        throw Error(binary.label, "", std::string(what) + " failed: " + resultText(result));
    };
    CUresult result = api.moduleLoadData(&impl_->module, binary.image.data());
    if (result != CUDA_SUCCESS) fail("cuModuleLoadData", result);
    result = api.moduleGetFunction(&impl_->function, impl_->module, binary.kernelName.c_str());
    if (result != CUDA_SUCCESS) {
        api.moduleUnload(impl_->module);
        fail(("cuModuleGetFunction(" + binary.kernelName + ")").c_str(), result);
    }
    // Set up as Triton's own loader does (its NVIDIA driver.c, loadBinary), so that a binary runs here as it runs
    // under Triton and FLA: above 48 KiB of shared memory, and where the device can opt in to more, prefer shared
    // memory over L1 and allow the device's whole opt-in size. Without the cache preference the driver gave such
    // configs more L1, and spilling ones ran up to 28% faster here than under Triton (BENCHMARKS.md run 18).
    if (binary.sharedBytes > std::uint64_t(kDefaultSharedLimit)) {
        CUdevice device = 0;
        int optIn = 0, staticShared = 0;
        const char* step = "cuCtxGetDevice";
        result = api.ctxGetDevice(&device);
        if (result == CUDA_SUCCESS) {
            step = "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)";
            result = api.deviceGetAttribute(&optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
        }
        if (result == CUDA_SUCCESS && optIn > kDefaultSharedLimit) {
            step = "cuFuncSetCacheConfig(PREFER_SHARED)";
            result = api.funcSetCacheConfig(impl_->function, CU_FUNC_CACHE_PREFER_SHARED);
            if (result == CUDA_SUCCESS) {
                step = "cuFuncGetAttribute(SHARED_SIZE_BYTES)";
                result = api.funcGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, impl_->function);
            }
            if (result == CUDA_SUCCESS) {
                step = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)";
                result = api.funcSetAttribute(impl_->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              optIn - staticShared);
            }
        }
        if (result != CUDA_SUCCESS) {
            api.moduleUnload(impl_->module);
            fail(step, result);
        }
    }
    // Probe knob (off by default, docs/triton-kernels.md): the function's preferred shared-memory carveout in percent
    // (-1: the driver's default), to test whether the L1/shared split the driver picks after the flush kernels is
    // what makes a spilling config read slower here than under do_bench (bench/device/PLAN.md).
    if (const char* carveout = std::getenv("TUNESCOPE_TRITON_CARVEOUT"); carveout && *carveout) {
        char* end = nullptr;
        const long percent = std::strtol(carveout, &end, 10);
        if (*end != '\0' || percent < -1 || percent > 100) {
            api.moduleUnload(impl_->module);
            throw Error(binary.label, "", std::string("TUNESCOPE_TRITON_CARVEOUT must be -1 or 0..100, not '") + carveout + "'");
        }
        result = api.funcSetAttribute(impl_->function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, int(percent));
        if (result != CUDA_SUCCESS) {
            api.moduleUnload(impl_->module);
            fail("cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)", result);
        }
    }
    impl_->binary = binary;
    impl_->binary.image.clear();  // the driver keeps its own copy
}

TritonModule::~TritonModule() {
    if (impl_ && impl_->module) driver().moduleUnload(impl_->module);
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
    CUdeviceptr xArg = reinterpret_cast<CUdeviceptr>(x), yArg = reinterpret_cast<CUdeviceptr>(y),
                rstdArg = reinterpret_cast<CUdeviceptr>(rstd), globalArg = reinterpret_cast<CUdeviceptr>(globalScratch),
                profileArg = reinterpret_cast<CUdeviceptr>(profileScratch);
    float epsArg = eps;
    std::int32_t rowsArg = std::int32_t(rows);
    // Exactly Triton 3.6's order: the kernel's parameters, then global_scratch, then profile_scratch.
    void* params[] = {&xArg, &yArg, &rstdArg, &epsArg, &rowsArg, &globalArg, &profileArg};
    const unsigned grid = unsigned(programs(rows));
    const CUresult result = driver().launchKernel(impl_->function, grid, 1, 1, unsigned(b.warpSize * b.numWarps), 1, 1,
                                                  b.sharedBytes, static_cast<CUstream>(stream), params, nullptr);
    if (result != CUDA_SUCCESS) throw Error(b.label, "", "cuLaunchKernel failed: " + resultText(result));
}

void TritonModule::launchWithParams(const std::uint32_t grid[3], void** params, void* stream) const {
    const TritonKernelBinary& b = impl_->binary;
    if (std::uint64_t(grid[0]) * grid[1] * grid[2] == 0) return;
    const CUresult result = driver().launchKernel(impl_->function, grid[0], grid[1], grid[2],
                                                  unsigned(b.warpSize * b.numWarps), 1, 1, b.sharedBytes,
                                                  static_cast<CUstream>(stream), params, nullptr);
    if (result != CUDA_SUCCESS) throw Error(b.label, "", "cuLaunchKernel failed: " + resultText(result));
}

}  // namespace tunescope::triton
