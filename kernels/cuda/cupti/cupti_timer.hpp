#pragma once
// The CUDA plugin's kernel-duration timer (docs/sweep.md, "Timers"): CUPTI activity records give each timed
// kernel's own start and end on the GPU (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL; MEMCPY for the copy ceiling), so a
// sample is the kernel alone: no launch gap, no event overhead, no queue position. The timed launch is marked with an
// external correlation id (cuptiActivityPushExternalCorrelationId around it), so the cold-L2 flush and the warm
// producer queued before it are never taken for it. libcupti is loaded at run time (dlopen), so the plugin loads
// where CUPTI is absent; then loaded() is false, reason() says why and the device times with events.
#include <cstdint>
#include <string>
#include <vector>

namespace tunescope::cuda {

struct GpuSpan {
    std::uint64_t startNs = 0, endNs = 0;  // GPU timestamps of the first record's start and the last one's end
    double ms() const { return static_cast<double>(endNs - startNs) * 1e-6; }
};

class CuptiTimer {
public:
    // The process's one CUPTI client (CUPTI allows one), loaded on first use. Never throws.
    static CuptiTimer& instance();
    bool loaded() const { return loaded_; }
    const std::string& reason() const { return reason_; }    // why not loaded ("libcupti.so.13: cannot open ...")
    const std::string& version() const { return version_; }  // "CUPTI API 130001"

    // Starts collecting kernel, memcpy, API and external-correlation records (once: a process that times with
    // events never pays CUPTI's overhead). Throws Error naming the CUPTI call that failed.
    void activate();
    // Marks the CUDA calls this thread makes until endTagged() with a fresh id, which it returns.
    std::uint64_t beginTagged();
    void endTagged();
    // The GPU span of each id's records, in order, once the tagged work has completed on the device (the caller has
    // waited for it). Throws Error when CUPTI delivers no complete record for an id within a short wait.
    std::vector<GpuSpan> collect(const std::vector<std::uint64_t>& ids);

    CuptiTimer(const CuptiTimer&) = delete;
    CuptiTimer& operator=(const CuptiTimer&) = delete;

private:
    CuptiTimer();
    bool loaded_ = false;
    bool active_ = false;
    std::string reason_, version_;
};

}  // namespace tunescope::cuda
