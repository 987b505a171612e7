#pragma once
// One GPU seen through NVML (SM clock, driver version, power, energy, clock-event reasons), loaded at run time
// (dlopen libnvidia-ml.so.1) so that the CUDA plugins link no NVML and still load where NVML is absent (containers
// without the driver's utility libraries): then every query answers "unknown".
#include <cstdint>
#include <string>

namespace tunescope::cuda {

// NVML's clock-event ("throttle") reason bits that explain a lower clock under load.
inline constexpr std::uint64_t kClockEventSwPowerCap = 0x4;
inline constexpr std::uint64_t kClockEventHwSlowdown = 0x8;
inline constexpr std::uint64_t kClockEventSwThermal = 0x20;
inline constexpr std::uint64_t kClockEventHwThermal = 0x40;
inline constexpr std::uint64_t kClockEventHwPowerBrake = 0x80;

class NvmlDevice {
public:
    // `pciBusId` as cudaDeviceGetPCIBusId writes it ("0000:1B:00.0"): NVML's and CUDA's device orders may differ.
    explicit NvmlDevice(const std::string& pciBusId);
    ~NvmlDevice();
    NvmlDevice(const NvmlDevice&) = delete;
    NvmlDevice& operator=(const NvmlDevice&) = delete;

    bool available() const { return device_ != nullptr; }
    // Why available() is false ("libnvidia-ml.so.1: cannot open shared object file ..."), else empty.
    const std::string& unavailableReason() const { return reason_; }
    // The current SM clock in MHz, or -1.
    int smClockMHz() const;
    // The current memory clock in MHz, or -1.
    int memClockMHz() const;
    // The GPU die temperature in degrees C, or -1.
    int temperatureC() const;
    // "580.159.04", or empty.
    std::string driverVersion() const;
    // Board power draw now, in milliwatts, or -1.
    long long powerMilliwatts() const;
    // Energy used since the driver was loaded, in millijoules, or -1 (before Volta, or not exposed).
    long long energyMillijoules() const;
    // The power limit the board enforces now, in milliwatts, or -1.
    long long enforcedPowerLimitMilliwatts() const;
    // The clock-event reasons active now (kClockEvent* bits and others), or -1 when NVML cannot tell.
    long long clockEventReasons() const;

private:
    struct Api;
    void* library_ = nullptr;
    Api* api_ = nullptr;
    void* device_ = nullptr;
    std::string reason_;
};

}  // namespace tunescope::cuda
