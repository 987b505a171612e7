#include "nvml_device.hpp"

#include <dlfcn.h>

namespace tunescope::cuda {

namespace {
// The few NVML declarations used (nvml.h is not part of the CUDA toolkit here). NVML_SUCCESS = 0, NVML_CLOCK_SM = 1.
using NvmlReturn = int;
using NvmlHandle = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;
}  // namespace

struct NvmlDevice::Api {
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    NvmlReturn (*deviceByPciBusId)(const char*, NvmlHandle*) = nullptr;
    NvmlReturn (*clockInfo)(NvmlHandle, int, unsigned*) = nullptr;
    NvmlReturn (*driverVersion)(char*, unsigned) = nullptr;
    // Optional: older drivers lack some of these, and the plugin works without them.
    NvmlReturn (*powerUsage)(NvmlHandle, unsigned*) = nullptr;
    NvmlReturn (*totalEnergy)(NvmlHandle, unsigned long long*) = nullptr;
    NvmlReturn (*enforcedPowerLimit)(NvmlHandle, unsigned*) = nullptr;
    NvmlReturn (*clockEventReasons)(NvmlHandle, unsigned long long*) = nullptr;
    NvmlReturn (*temperature)(NvmlHandle, int, unsigned*) = nullptr;
};

template <typename Fn>
static bool bindSymbol(void* library, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(library, name));
    return fn != nullptr;
}

NvmlDevice::NvmlDevice(const std::string& pciBusId) {
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
    bindSymbol(library_, "nvmlDeviceGetPowerUsage", api_->powerUsage);
    bindSymbol(library_, "nvmlDeviceGetTotalEnergyConsumption", api_->totalEnergy);
    bindSymbol(library_, "nvmlDeviceGetEnforcedPowerLimit", api_->enforcedPowerLimit);
    bindSymbol(library_, "nvmlDeviceGetTemperature", api_->temperature);
    // The R535+ name first, then the deprecated one (same signature and bits).
    if (!bindSymbol(library_, "nvmlDeviceGetCurrentClocksEventReasons", api_->clockEventReasons))
        bindSymbol(library_, "nvmlDeviceGetCurrentClocksThrottleReasons", api_->clockEventReasons);
    if (api_->init() != kNvmlSuccess) {
        reason_ = "nvmlInit failed";
        api_->init = nullptr;
        return;
    }
    NvmlHandle device = nullptr;
    if (api_->deviceByPciBusId(pciBusId.c_str(), &device) != kNvmlSuccess || !device) {
        reason_ = "NVML does not know the device at PCI " + pciBusId;
        return;
    }
    device_ = device;
}

NvmlDevice::~NvmlDevice() {
    if (api_ && api_->init && api_->shutdown) api_->shutdown();
    delete api_;
    // The library stays loaded: NVML may keep threads of its own alive until process exit.
}

int NvmlDevice::memClockMHz() const {
    if (!device_) return -1;
    unsigned mhz = 0;
    if (api_->clockInfo(device_, kNvmlClockMem, &mhz) != kNvmlSuccess) return -1;
    return int(mhz);
}

int NvmlDevice::temperatureC() const {
    if (!device_ || !api_->temperature) return -1;
    unsigned celsius = 0;
    if (api_->temperature(device_, kNvmlTemperatureGpu, &celsius) != kNvmlSuccess) return -1;
    return int(celsius);
}

int NvmlDevice::smClockMHz() const {
    if (!device_) return -1;
    unsigned mhz = 0;
    if (api_->clockInfo(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return -1;
    return int(mhz);
}

std::string NvmlDevice::driverVersion() const {
    if (!device_) return {};
    char text[96] = {};
    if (api_->driverVersion(text, sizeof text) != kNvmlSuccess) return {};
    return text;
}

long long NvmlDevice::powerMilliwatts() const {
    unsigned milliwatts = 0;
    if (!device_ || !api_->powerUsage || api_->powerUsage(device_, &milliwatts) != kNvmlSuccess) return -1;
    return (long long)milliwatts;
}

long long NvmlDevice::energyMillijoules() const {
    unsigned long long millijoules = 0;
    if (!device_ || !api_->totalEnergy || api_->totalEnergy(device_, &millijoules) != kNvmlSuccess) return -1;
    return (long long)millijoules;
}

long long NvmlDevice::enforcedPowerLimitMilliwatts() const {
    unsigned milliwatts = 0;
    if (!device_ || !api_->enforcedPowerLimit || api_->enforcedPowerLimit(device_, &milliwatts) != kNvmlSuccess)
        return -1;
    return (long long)milliwatts;
}

long long NvmlDevice::clockEventReasons() const {
    unsigned long long reasons = 0;
    if (!device_ || !api_->clockEventReasons || api_->clockEventReasons(device_, &reasons) != kNvmlSuccess) return -1;
    return (long long)(reasons & 0x7fffffffffffffffull);
}

}  // namespace tunescope::cuda
