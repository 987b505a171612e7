// The CPU backend: the multithreaded reference l2norm timed with steady_clock. Its numbers are CPU numbers
// (the device is named "... (CPU)", architecture x86_64/aarch64), never to be mixed with GPU timings.
// The launch knobs have no meaning on the CPU: every legal config runs the same code.
#include "cpu_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/device/l2norm_contract.hpp"
#include "tunescope/device/l2norm_cpu.hpp"

namespace tunescope {
namespace {

std::string cpuModelName() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(" \t"));
                if (!name.empty()) return name;
            }
        }
    }
    return "unknown CPU";
}

int cpuThreads() {
    if (const char* text = std::getenv("TUNESCOPE_CPU_THREADS")) {
        const int threads = std::atoi(text);
        if (threads > 0) return threads;
    }
    return cpu::defaultThreadCount();
}

DeviceInfo cpuInfo() {
    DeviceInfo info;
    info.backend = "cpu";
    info.index = 0;
    const int threads = cpuThreads();
    info.name = cpuModelName() + " (CPU, " + std::to_string(threads) + " threads)";
    utsname system{};
    if (uname(&system) == 0) {
        info.architecture = system.machine;
        info.driverVersion = std::string("Linux ") + system.release;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) info.memoryBytes = std::uint64_t(pages) * std::uint64_t(pageSize);
    info.multiprocessors = threads;
    long lastLevel = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (lastLevel <= 0) lastLevel = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info.l2Bytes = lastLevel > 0 ? std::uint64_t(lastLevel) : 0;
    info.clockMHz = 0;
    info.warpSize = 1;
#if defined(__clang__)
    info.runtimeVersion = "C++ threads, clang " __clang_version__;
#elif defined(__GNUC__)
    info.runtimeVersion = "C++ threads, GCC " __VERSION__;
#endif
    return info;
}

template <typename T>
void resizeOrThrow(std::vector<T>& buffer, std::size_t count, const char* what) {
    try {
        buffer.resize(count);
    } catch (const std::bad_alloc&) {
        throw Error("", "", std::string("too little host memory for the ") + what + ": it needs " +
                                formatMiB(count * sizeof(T)));
    }
}

class CpuDevice;

class CpuTimedWork : public TimedWork {
public:
    explicit CpuTimedWork(CpuDevice& device) : device_(device) {}
    void beforeSample(L2Regime regime) override;
    double timeSampleMs() override {
        const auto start = std::chrono::steady_clock::now();
        run();
        const auto stop = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::milli>(stop - start).count();
    }

protected:
    virtual void run() = 0;
    // The warm regime's producer: writes this work's input again with the same values, so the caches hold it.
    virtual void produceInput() = 0;
    CpuDevice& device_;
};

class CpuDevice final : public Device {
public:
    CpuDevice() : info_(cpuInfo()), threads_(info_.multiprocessors) {}

    const DeviceInfo& info() const override { return info_; }

    bool supports(const L2NormConfig& config, std::string* why) const override {
        auto in = [](int value, const auto& choices) {
            return std::find(std::begin(choices), std::end(choices), value) != std::end(choices);
        };
        std::string reason;
        if (config.numCtas != 1) reason = "num_ctas must be 1";
        else if (!in(config.blockRows, l2norm::kBlockRowsChoices)) reason = "BT must be one of 8, 16, 32, 64, 128";
        else if (!in(config.numWarps, l2norm::kWarpChoices)) reason = "num_warps must be one of 1, 2, 4, 8, 16, 32";
        else if (!in(config.numStages, l2norm::kStageChoices)) reason = "num_stages must be 1, 2, 3 or 4";
        if (reason.empty()) return true;
        if (why) *why = reason;
        return false;
    }

    void prepareL2Norm(std::int64_t rows, std::uint64_t seed) override {
        if (rows <= 0) throw Error("", "", "T must be at least 1 row (got " + std::to_string(rows) + ")");
        const std::size_t elements = std::size_t(rows) * l2norm::kHeadDim;
        resizeOrThrow(x_, elements, "input x");
        resizeOrThrow(y_, elements, "output y");
        resizeOrThrow(rstd_, std::size_t(rows), "output rstd");
        cpu::fillRandomInput(x_.data(), elements, seed, threads_);
        rows_ = rows;
        seed_ = seed;
    }

    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& config, float eps) override;
    std::unique_ptr<TimedWork> copyWork() override;

    // One clock: steady_clock around the multithreaded call (there is no kernel duration to read on the CPU).
    std::vector<TimerOption> timers() const override {
        return {{kTimerSteadyClock, true, "std::chrono::steady_clock around the multithreaded call"}};
    }

    void runL2Norm(const L2NormConfig& config, std::span<const std::uint16_t> x, std::span<std::uint16_t> y,
                   std::span<float> rstd, float eps) override {
        std::string why;
        if (!supports(config, &why)) throw Error("", "", why);
        if (x.size() % l2norm::kHeadDim != 0) {
            throw Error("", "", "x holds " + std::to_string(x.size()) + " values, not a whole number of rows of 128");
        }
        const std::size_t rows = x.size() / l2norm::kHeadDim;
        if (rows == 0) throw Error("", "", "T must be at least 1 row (got 0)");
        if (y.size() != x.size() || rstd.size() != rows) {
            throw Error("", "", "y must hold as many values as x and rstd one per row");
        }
        cpu::l2normForward(x.data(), y.data(), rstd.data(), std::int64_t(rows), eps, threads_);
    }

    void flush() {
        // Several times the last-level cache, written then read: nothing of the next sample's data stays cached.
        // Capped: a VM reports its host's whole L3 (hundreds of MiB) although two cores see a slice of it.
        const std::size_t bytes =
            std::clamp<std::size_t>(4 * info_.l2Bytes, std::size_t(64) << 20, std::size_t(256) << 20);
        if (flush_.size() < bytes) resizeOrThrow(flush_, bytes, "cache flush buffer");
        flushSink_ += cpu::flushCaches(flush_.data(), flush_.size(), threads_);
    }

    // The warm regime's producers: the input written again with the values prepareL2Norm (prepareCopy) gave it.
    void produceInput() { cpu::fillRandomInput(x_.data(), x_.size(), seed_, threads_); }
    void produceCopySource() {
        cpu::fillRandomInput(reinterpret_cast<std::uint16_t*>(copySrc_.data()), copySrc_.size() / 2, 1, threads_);
    }

    void runPrepared(float eps) { cpu::l2normForward(x_.data(), y_.data(), rstd_.data(), rows_, eps, threads_); }
    void copyPrepared() { cpu::parallelCopy(copyDst_.data(), copySrc_.data(), copySrc_.size(), threads_); }
    std::int64_t rows() const { return rows_; }

    std::uint64_t prepareCopy() {
        const std::size_t bytes = std::size_t(rows_) * l2norm::kBytesPerRow / 2;
        if (copySrc_.size() != bytes) {
            resizeOrThrow(copySrc_, bytes, "copy source");
            resizeOrThrow(copyDst_, bytes, "copy destination");
            cpu::fillRandomInput(reinterpret_cast<std::uint16_t*>(copySrc_.data()), bytes / 2, 1, threads_);
            std::fill(copyDst_.begin(), copyDst_.end(), std::uint8_t(1));  // fault the pages in now, not timed
        }
        return bytes;
    }

private:
    DeviceInfo info_;
    int threads_ = 1;
    std::vector<std::uint16_t> x_, y_;
    std::vector<float> rstd_;
    std::vector<std::uint8_t> flush_, copySrc_, copyDst_;
    std::uint64_t flushSink_ = 0;
    std::int64_t rows_ = 0;
    std::uint64_t seed_ = 0;
};

void CpuTimedWork::beforeSample(L2Regime regime) {
    if (regime == L2Regime::Cold) device_.flush();
    else if (regime == L2Regime::Warm) produceInput();
}

class CpuL2NormWork final : public CpuTimedWork {
public:
    CpuL2NormWork(CpuDevice& device, float eps) : CpuTimedWork(device), eps_(eps) {}
    std::uint64_t bytesMoved() const override { return std::uint64_t(device_.rows()) * l2norm::kBytesPerRow; }

private:
    void run() override { device_.runPrepared(eps_); }
    void produceInput() override { device_.produceInput(); }
    float eps_;
};

class CpuCopyWork final : public CpuTimedWork {
public:
    explicit CpuCopyWork(CpuDevice& device) : CpuTimedWork(device), bytes_(device.prepareCopy()) {}
    std::uint64_t bytesMoved() const override { return 2 * bytes_; }

private:
    void run() override { device_.copyPrepared(); }
    void produceInput() override { device_.produceCopySource(); }
    std::uint64_t bytes_;
};

std::unique_ptr<TimedWork> CpuDevice::l2normWork(const L2NormConfig& config, float eps) {
    std::string why;
    if (!supports(config, &why)) throw Error("", "", why);
    if (rows_ <= 0) throw Error("", "", "no l2norm input prepared (prepareL2Norm first)");
    // Fault y and rstd in before timing: the first touch of fresh pages is not the kernel's cost.
    runPrepared(eps);
    return std::make_unique<CpuL2NormWork>(*this, eps);
}

std::unique_ptr<TimedWork> CpuDevice::copyWork() {
    if (rows_ <= 0) throw Error("", "", "no l2norm input prepared (prepareL2Norm first)");
    return std::make_unique<CpuCopyWork>(*this);
}

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    bool available() const override { return true; }
    std::string unavailableReason() const override { return {}; }
    std::vector<DeviceInfo> devices() const override { return {cpuInfo()}; }
    std::unique_ptr<Device> openDevice(int index) override {
        if (index != 0) throw Error("", "", "no CPU device " + std::to_string(index) + " (the CPU backend has device 0 only)");
        return std::make_unique<CpuDevice>();
    }
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace tunescope
