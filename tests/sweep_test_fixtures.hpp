#pragma once
// TEST FIXTURE, not a backend: a scripted Device whose "kernels" return fixed, config-dependent sample times, so
// that sweep, resume, shard/merge, fault handling and promote can be checked exactly and fast. Real timing runs
// use the CPU backend (tst_sweep's end-to-end cases) or a GPU.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/device.hpp"

namespace tunescope::testing {

struct ScriptedDeviceScript {
    // Median time of one config at `rows`, ms. Samples zig-zag +-jitter around it, deterministically.
    std::function<double(const L2NormConfig&, std::int64_t rows)> timeMs = [](const L2NormConfig& c, std::int64_t rows) {
        return 0.001 * static_cast<double>(rows) / 65536.0 * (1.0 + 0.01 * c.blockRows + 0.001 * c.numWarps +
                                                               0.0001 * c.numStages);
    };
    // When set, replaces timeMs: also given how many works of this config and row count came before (with one
    // work per measurement, 0 is round 1), for rounds that differ in level.
    std::function<double(const L2NormConfig&, std::int64_t rows, int earlierWorks)> timeOfWorkMs;
    double jitter = 0.0;                // relative half-spread of the zig-zag
    double copyTimeMs = 0.0005;         // per 65536 rows
    std::function<bool(const L2NormConfig&)> failLaunch;  // l2normWork throws for these configs
    std::int64_t maxRows = -1;          // prepareL2Norm throws "out of memory" above this
    int loseDeviceAfterWorks = -1;      // every work created after this many throws "device lost"
    int smClockMHz = -1;
    std::string architecture = "sm_90";  // DeviceInfo::architecture (promote compares it with a profile's target)
};

class ScriptedWork final : public TimedWork {
public:
    ScriptedWork(double medianMs, double jitter, int clock, std::uint64_t bytes)
        : medianMs_(medianMs), jitter_(jitter), clock_(clock), bytes_(bytes) {}
    void beforeSample(L2Regime) override {}
    double timeSampleMs() override {
        const int step = static_cast<int>((calls_++ * 37) % 21) - 10;
        return medianMs_ * (1.0 + jitter_ * step / 10.0);
    }
    int lastSmClockMHz() const override { return clock_; }
    std::uint64_t bytesMoved() const override { return bytes_; }

private:
    double medianMs_, jitter_;
    int clock_;
    std::uint64_t bytes_;
    long calls_ = 0;
};

class ScriptedDevice final : public Device {
public:
    explicit ScriptedDevice(int index = 0, ScriptedDeviceScript script = {}) : script_(std::move(script)) {
        info_.backend = "scripted";
        info_.index = index;
        info_.name = "Scripted test device " + std::to_string(index);
        info_.architecture = script_.architecture;
        info_.memoryBytes = 1ull << 30;
        info_.multiprocessors = 1;
        info_.warpSize = 32;
    }
    const DeviceInfo& info() const override { return info_; }
    bool supports(const L2NormConfig& config, std::string* why) const override {
        if (config.numWarps > 16) {
            if (why) *why = "the scripted device stops at 16 warps";
            return false;
        }
        return true;
    }
    void prepareL2Norm(std::int64_t rows, std::uint64_t) override {
        ++prepareCalls;
        if (script_.maxRows >= 0 && rows > script_.maxRows)
            throw Error("", "", "out of memory: " + std::to_string(rows) + " rows do not fit");
        rows_ = rows;
    }
    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& config, float) override {
        checkLost();
        if (script_.failLaunch && script_.failLaunch(config)) throw Error("", "", "kernel launch failed: scripted fault");
        const int earlier = worksOfConfig_[{config.blockRows, config.numWarps, config.numStages, config.numCtas, rows_}]++;
        const double medianMs =
            script_.timeOfWorkMs ? script_.timeOfWorkMs(config, rows_, earlier) : script_.timeMs(config, rows_);
        return std::make_unique<ScriptedWork>(medianMs, script_.jitter, script_.smClockMHz,
                                              static_cast<std::uint64_t>(rows_) * 516);
    }
    std::unique_ptr<TimedWork> copyWork() override {
        checkLost();
        return std::make_unique<ScriptedWork>(script_.copyTimeMs * static_cast<double>(rows_) / 65536.0, 0.0,
                                              script_.smClockMHz, static_cast<std::uint64_t>(rows_) * 512);
    }
    void runL2Norm(const L2NormConfig&, std::span<const std::uint16_t>, std::span<std::uint16_t>, std::span<float>,
                   float) override {
        throw Error("", "", "the scripted device computes nothing");
    }

    int prepareCalls = 0;
    int worksCreated = 0;

private:
    void checkLost() {
        if (script_.loseDeviceAfterWorks >= 0 && worksCreated >= script_.loseDeviceAfterWorks)
            throw Error("", "", "device lost: scripted fault");
        ++worksCreated;
    }
    DeviceInfo info_;
    ScriptedDeviceScript script_;
    std::int64_t rows_ = 0;
    std::map<std::tuple<int, int, int, int, std::int64_t>, int> worksOfConfig_;
};

}  // namespace tunescope::testing
