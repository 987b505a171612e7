#include "nvml_clock.hpp"

#include <dlfcn.h>

namespace tunescope::cuda {

namespace {
// The few NVML declarations used (nvml.h is not part of the CUDA toolkit here). NVML_SUCCESS = 0, NVML_CLOCK_SM = 1.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
}  // namespace

struct NvmlClock::Api {
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    NvmlReturn (*deviceByPciBusId)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*clockInfo)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*driverVersion)(char*, unsigned) = nullptr;
};

template <typename Fn>
static bool bindSymbol(void* library, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(library, name));
    return fn != nullptr;
}

NvmlClock::NvmlClock(const std::string& pciBusId) {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) {
        const char* error = dlerror();
        reason_ = error ? error : "libnvidia-ml.so.1 could not be loaded";
        return;
    }
    api_ = new Api;
    if (!bindSymbol(library_, "nvmlInit_v2", api_->init) || !bindSymbol(library_, "nvmlShutdown", api_->shutdown) ||
        !bindSymbol(library_, "nvmlDeviceGetHandleByPciBusId_v2", api_->deviceByPciBusId) ||
        !bindSymbol(library_, "nvmlDeviceGetClockInfo", api_->clockInfo) ||
        !bindSymbol(library_, "nvmlSystemGetDriverVersion", api_->driverVersion)) {
        reason_ = "libnvidia-ml.so.1 lacks an expected symbol";
        return;
    }
    if (api_->init() != kNvmlSuccess) {
        reason_ = "nvmlInit failed";
        api_->init = nullptr;
        return;
    }
    NvmlDevice device = nullptr;
    if (api_->deviceByPciBusId(pciBusId.c_str(), &device) != kNvmlSuccess || !device) {
        reason_ = "NVML does not know the device at PCI " + pciBusId;
        return;
    }
    device_ = device;
}

NvmlClock::~NvmlClock() {
    if (api_ && api_->init && api_->shutdown) api_->shutdown();
    delete api_;
    // The library stays loaded: NVML may keep threads of its own alive until process exit.
}

int NvmlClock::smClockMHz() const {
    if (!device_) return -1;
    unsigned mhz = 0;
    if (api_->clockInfo(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return -1;
    return int(mhz);
}

std::string NvmlClock::driverVersion() const {
    if (!device_) return {};
    char text[96] = {};
    if (api_->driverVersion(text, sizeof text) != kNvmlSuccess) return {};
    return text;
}

}  // namespace tunescope::cuda
