#include "cupti_timer.hpp"

#include <cupti.h>  // types and constants only: every CUPTI function is reached through dlsym
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "tunescope/base/errors.hpp"

namespace tunescope::cuda {

namespace {

// The kernel record type of this CUDA's header. CUPTI appends fields from one record version to the next; start,
// end, contextId, streamId and correlationId keep their offsets, so records of a newer CUPTI read the same.
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
constexpr CUpti_ExternalCorrelationKind kTagKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
constexpr std::size_t kBufferBytes = 1u << 20;
constexpr std::size_t kMaxUnclaimed = 1u << 18;  // records nobody waits for (flushes, producers) kept at most

struct Api {
    CUptiResult (*getVersion)(uint32_t*) = nullptr;
    CUptiResult (*resultString)(CUptiResult, const char**) = nullptr;
    CUptiResult (*registerCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
    CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
    CUptiResult (*flushAll)(uint32_t) = nullptr;
    CUptiResult (*nextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
    CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
    CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;
    CUptiResult (*dropped)(CUcontext, uint32_t, size_t*) = nullptr;  // optional
};

// A kernel or memcpy record, or several merged (one tagged call that launched more than one).
struct Span {
    std::uint64_t start = 0, end = 0;
    std::uint32_t context = 0, stream = 0, correlation = 0;
    void merge(const Span& other) {
        start = start == 0 ? other.start : std::min(start, other.start);
        end = std::max(end, other.end);
        context = other.context;
        stream = other.stream;
        correlation = std::max(correlation, other.correlation);
    }
};

// What the buffer callbacks have delivered (they may run on CUPTI's own thread): records matched to tags, and the
// halves that wait for their other half (a tag record for an API call, a kernel record for a correlation id).
struct Records {
    std::mutex mutex;
    std::unordered_map<std::uint32_t, std::uint64_t> tagOfCorrelation;
    std::unordered_map<std::uint32_t, Span> unclaimed;  // by correlation id
    std::unordered_map<std::uint64_t, Span> byTag;
    std::vector<std::uint8_t*> freeBuffers;
};

Api g_api;
Records g_records;
std::atomic<std::uint64_t> g_nextTag{1};

std::string resultText(CUptiResult result) {
    const char* text = nullptr;
    if (g_api.resultString && g_api.resultString(result, &text) == CUPTI_SUCCESS && text) return text;
    return "CUPTI error " + std::to_string(static_cast<int>(result));
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    std::uint8_t* out = nullptr;
    {
        std::lock_guard lock(g_records.mutex);
        if (!g_records.freeBuffers.empty()) {
            out = g_records.freeBuffers.back();
            g_records.freeBuffers.pop_back();
        }
    }
    if (!out) out = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *buffer = out;
    *size = out ? kBufferBytes : 0;
    *maxRecords = 0;
}

void takeSpan(const Span& span) {
    const auto tag = g_records.tagOfCorrelation.find(span.correlation);
    if (tag != g_records.tagOfCorrelation.end()) {
        g_records.byTag[tag->second].merge(span);
        return;
    }
    if (g_records.unclaimed.size() >= kMaxUnclaimed) g_records.unclaimed.clear();
    g_records.unclaimed[span.correlation].merge(span);
}

void takeTag(std::uint32_t correlation, std::uint64_t tag) {
    g_records.tagOfCorrelation[correlation] = tag;
    const auto waiting = g_records.unclaimed.find(correlation);
    if (waiting == g_records.unclaimed.end()) return;
    g_records.byTag[tag].merge(waiting->second);
    g_records.unclaimed.erase(waiting);
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    std::lock_guard lock(g_records.mutex);
    CUpti_Activity* record = nullptr;
    while (buffer && validSize > 0 && g_api.nextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        Span span;
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const auto* k = reinterpret_cast<const KernelRecord*>(record);
            span = {k->start, k->end, k->contextId, k->streamId, k->correlationId};
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const auto* m = reinterpret_cast<const MemcpyRecord*>(record);
            span = {m->start, m->end, m->contextId, m->streamId, m->correlationId};
        } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
            if (x->externalKind == kTagKind) takeTag(x->correlationId, x->externalId);
            continue;
        } else {
            continue;  // API records: only there so that tagged calls get their external-correlation records
        }
        if (span.start == 0 && span.end == 0) continue;  // CUPTI could not time it
        takeSpan(span);
    }
    if (buffer) g_records.freeBuffers.push_back(buffer);
}

template <typename Fn>
bool bind(void* library, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(library, name));
    return fn != nullptr;
}

// libcupti from the loader's paths (the plugin's run path holds the CUDA library folder), then the toolkit's usual
// places; TUNESCOPE_CUPTI_LIBRARY names one file instead.
void* openCupti(std::string& reason) {
    std::vector<std::string> candidates;
    if (const char* forced = std::getenv("TUNESCOPE_CUPTI_LIBRARY"); forced && *forced) {
        candidates.push_back(forced);
    } else {
#if defined(TUNESCOPE_CUPTI_SONAME)
        candidates = {TUNESCOPE_CUPTI_SONAME, "libcupti.so"};  // this toolkit's major version first
#else
        candidates = {"libcupti.so"};
#endif
        const char* homes[] = {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"), "/usr/local/cuda"};
        for (const char* home : homes)
            if (home && *home)
                for (const char* dir : {"/extras/CUPTI/lib64/", "/lib64/", "/lib/"})
                    candidates.push_back(std::string(home) + dir + "libcupti.so");
    }
    for (const std::string& name : candidates) {
        if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
        if (reason.empty()) {
            const char* error = dlerror();
            reason = error ? error : name + " could not be loaded";
        }
    }
    return nullptr;
}

}  // namespace

CuptiTimer& CuptiTimer::instance() {
    static CuptiTimer timer;
    return timer;
}

CuptiTimer::CuptiTimer() {
    void* library = openCupti(reason_);
    if (!library) return;
    if (!bind(library, "cuptiGetVersion", g_api.getVersion) || !bind(library, "cuptiGetResultString", g_api.resultString) ||
        !bind(library, "cuptiActivityRegisterCallbacks", g_api.registerCallbacks) ||
        !bind(library, "cuptiActivityEnable", g_api.enable) || !bind(library, "cuptiActivityFlushAll", g_api.flushAll) ||
        !bind(library, "cuptiActivityGetNextRecord", g_api.nextRecord) ||
        !bind(library, "cuptiActivityPushExternalCorrelationId", g_api.push) ||
        !bind(library, "cuptiActivityPopExternalCorrelationId", g_api.pop)) {
        reason_ = "libcupti lacks an activity-API symbol this plugin uses";
        return;
    }
    bind(library, "cuptiActivityGetNumDroppedRecords", g_api.dropped);
    uint32_t api = 0;
    if (g_api.getVersion(&api) != CUPTI_SUCCESS) {
        reason_ = "cuptiGetVersion failed";
        return;
    }
    version_ = "CUPTI API " + std::to_string(api);
    loaded_ = true;
}

void CuptiTimer::activate() {
    if (!loaded_) throw Error("", "", "CUPTI is not available: " + reason_);
    static std::mutex once;
    std::lock_guard lock(once);
    if (active_) return;
    const auto check = [](CUptiResult result, const char* what) {
        if (result != CUPTI_SUCCESS)
            throw Error("", "", std::string("CUPTI error in ") + what + ": " + resultText(result) +
                                    " (another profiler attached? use --timer events)");
    };
    check(g_api.registerCallbacks(bufferRequested, bufferCompleted), "cuptiActivityRegisterCallbacks");
    // API records are what a tagged call's external-correlation record is attached to; kernels and memcpys are timed.
    for (const auto& [kind, name] : {std::pair{CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"},
                                     std::pair{CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
                                     std::pair{CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"},
                                     std::pair{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
                                     std::pair{CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"}})
        check(g_api.enable(kind), (std::string("cuptiActivityEnable(") + name + ")").c_str());
    active_ = true;
}

std::uint64_t CuptiTimer::beginTagged() {
    const std::uint64_t tag = g_nextTag.fetch_add(1);
    const CUptiResult result = g_api.push(kTagKind, tag);
    if (result != CUPTI_SUCCESS)
        throw Error("", "", "CUPTI error in cuptiActivityPushExternalCorrelationId: " + resultText(result));
    return tag;
}

void CuptiTimer::endTagged() {
    uint64_t last = 0;
    const CUptiResult result = g_api.pop(kTagKind, &last);
    if (result != CUPTI_SUCCESS)
        throw Error("", "", "CUPTI error in cuptiActivityPopExternalCorrelationId: " + resultText(result));
}

std::vector<GpuSpan> CuptiTimer::collect(const std::vector<std::uint64_t>& ids) {
    using Clock = std::chrono::steady_clock;
    // Generous: the first records of a process can be slow to come; a complete batch returns at once.
    const auto deadline = Clock::now() + std::chrono::milliseconds(2000);
    for (int attempt = 0;; ++attempt) {
        // Records of completed work come out of CUPTI's buffers on a (non-forced) flush; a record that is not yet
        // complete stays for the next one.
        const CUptiResult flushed = g_api.flushAll(0);
        if (flushed != CUPTI_SUCCESS) throw Error("", "", "CUPTI error in cuptiActivityFlushAll: " + resultText(flushed));
        std::lock_guard lock(g_records.mutex);
        const bool complete = std::all_of(ids.begin(), ids.end(), [](std::uint64_t id) {
            const auto it = g_records.byTag.find(id);
            return it != g_records.byTag.end() && it->second.end > it->second.start;
        });
        if (complete) {
            std::vector<GpuSpan> spans;
            Span last;
            for (std::uint64_t id : ids) {
                const auto it = g_records.byTag.find(id);
                spans.push_back({it->second.start, it->second.end});
                last.merge(it->second);
                g_records.byTag.erase(it);
            }
            // The tags are done with; untagged records of this stream older than the last timed launch (the flush
            // and producer kernels queued before each sample) will never be asked for.
            std::erase_if(g_records.tagOfCorrelation, [&](const auto& entry) {
                return std::find(ids.begin(), ids.end(), entry.second) != ids.end();
            });
            std::erase_if(g_records.unclaimed, [&](const auto& entry) {
                const Span& s = entry.second;
                return s.context == last.context && s.stream == last.stream && s.correlation < last.correlation;
            });
            return spans;
        }
        if (Clock::now() > deadline) {
            std::size_t dropped = 0;
            if (g_api.dropped) g_api.dropped(nullptr, 0, &dropped);
            throw Error("", "", "CUPTI delivered no complete kernel record for a timed launch within 2 s (" +
                                    std::to_string(ids.size()) + " launches waited for, " + std::to_string(dropped) +
                                    " records dropped); time with --timer events");
        }
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

}  // namespace tunescope::cuda
