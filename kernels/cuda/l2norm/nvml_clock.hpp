#pragma once
// The SM clock through NVML, loaded at run time (dlopen libnvidia-ml.so.1) so that the plugin links no NVML and
// still loads where NVML is absent (containers without the driver's utility libraries): then every query is -1.
#include <string>

namespace tunescope::cuda {

class NvmlClock {
public:
    // `pciBusId` as cudaDeviceGetPCIBusId writes it ("0000:1B:00.0"): NVML's and CUDA's device orders may differ.
    explicit NvmlClock(const std::string& pciBusId);
    ~NvmlClock();
    NvmlClock(const NvmlClock&) = delete;
    NvmlClock& operator=(const NvmlClock&) = delete;

    bool available() const { return device_ != nullptr; }
    // Why available() is false ("libnvidia-ml.so.1: cannot open shared object file ..."), else empty.
    const std::string& unavailableReason() const { return reason_; }
    // The current SM clock in MHz, or -1.
    int smClockMHz() const;
    // "580.159.04", or empty.
    std::string driverVersion() const;

private:
    struct Api;
    void* library_ = nullptr;
    Api* api_ = nullptr;
    void* device_ = nullptr;
    std::string reason_;
};

}  // namespace tunescope::cuda
