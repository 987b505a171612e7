// libtunescope_cublaslt.so: the CUDA half of the explorer. Implements tunescope::gemm::GemmBackend over cuBLASLt.
// Every CUDA and cuBLASLt call is checked; a failing algorithm becomes a recorded error, never a crash.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>

#include "cupti_timer.hpp"
#include "gemm_kernels.hpp"
#include "nvml_device.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/gemm/gemm_backend.hpp"

namespace tunescope::gemm {
namespace {

namespace kern = cublaslt_kernels;

// One timed launch's CUPTI tag (docs/explorer.md, "Timers"): the CUDA calls this thread makes while it lives are
// marked with a fresh id, so the launch's kernel records are found by it; with events (`on` false) it does nothing.
class CuptiTag {
public:
    explicit CuptiTag(bool on) : id_(on ? cuda::CuptiTimer::instance().beginTagged() : 0) {}
    ~CuptiTag() {
        if (id_) cuda::CuptiTimer::instance().endTagged();
    }
    CuptiTag(const CuptiTag&) = delete;
    CuptiTag& operator=(const CuptiTag&) = delete;
    std::uint64_t id() const { return id_; }

private:
    std::uint64_t id_;
};

std::string cudaText(cudaError_t err) {
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

std::string cublasText(cublasStatus_t status) {
    const char* name = cublasLtGetStatusName(status);
    return name ? std::string(name) : "cuBLAS status " + std::to_string(int(status));
}

void checkCuda(cudaError_t err, const std::string& what) {
    if (err != cudaSuccess) throw Error("", "", what + " failed: " + cudaText(err));
}

void checkCublas(cublasStatus_t status, const std::string& what) {
    if (status != CUBLAS_STATUS_SUCCESS) throw Error("", "", what + " failed: " + cublasText(status));
}

std::string gib(double bytes) {
    std::ostringstream out;
    out.precision(2);
    out << std::fixed << bytes / double(1ull << 30) << " GiB";
    return out.str();
}

// --- Host hashing: pinned slots and worker threads, so SHA-256 of large outputs overlaps the GPU's work ----------
class HashPool {
public:
    HashPool(std::size_t slotBytes, std::size_t slots, unsigned workers) : slotBytes_(slotBytes) {
        for (std::size_t i = 0; i < slots; ++i) {
            void* p = nullptr;
            if (cudaMallocHost(&p, slotBytes) != cudaSuccess) {
                (void)cudaGetLastError();
                p = std::malloc(slotBytes);
                if (!p) break;
                pageable_.push_back(p);
            }
            slots_.push_back(p);
            free_.push_back(p);
        }
        if (slots_.empty()) throw Error("", "", "could not allocate " + gib(double(slotBytes)) + " of host memory for output hashing");
        for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
    }
    ~HashPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_) t.join();
        for (void* p : slots_) {
            if (std::find(pageable_.begin(), pageable_.end(), p) != pageable_.end())
                std::free(p);
            else
                cudaFreeHost(p);
        }
    }
    std::size_t slotBytes() const { return slotBytes_; }
    void* acquire() {
        std::unique_lock<std::mutex> lock(mutex_);
        slotFree_.wait(lock, [this] { return !free_.empty(); });
        void* p = free_.front();
        free_.pop_front();
        return p;
    }
    void release(void* slot) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            free_.push_back(slot);
        }
        slotFree_.notify_one();
    }
    // Hashes `bytes` of `slot` on a worker, then gives the slot back.
    std::shared_future<std::string> submit(void* slot, std::size_t bytes) {
        auto promise = std::make_shared<std::promise<std::string>>();
        std::shared_future<std::string> future = promise->get_future().share();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            jobs_.push_back([this, slot, bytes, promise] {
                try {
                    promise->set_value(sha256Hex(std::string_view(static_cast<const char*>(slot), bytes)));
                } catch (...) {
                    promise->set_exception(std::current_exception());
                }
                release(slot);
            });
        }
        cv_.notify_one();
        return future;
    }

private:
    void loop() {
        while (true) {
            std::function<void()> job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
                if (jobs_.empty()) return;
                job = std::move(jobs_.front());
                jobs_.pop_front();
            }
            job();
        }
    }
    std::size_t slotBytes_;
    std::vector<void*> slots_, pageable_;
    std::deque<void*> free_;
    std::deque<std::function<void()>> jobs_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable cv_, slotFree_;
    bool stopping_ = false;
};

struct DeviceBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
    void allocate(std::size_t size, const std::string& what) {
        if (ptr) cudaFree(ptr);
        ptr = nullptr;
        bytes = 0;
        const cudaError_t err = cudaMalloc(&ptr, std::max<std::size_t>(size, 256));
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            ptr = nullptr;
            throw Error("", "", "could not allocate " + gib(double(size)) + " of device memory for " + what + ": " +
                                    cudaText(err));
        }
        bytes = size;
    }
};

template <typename T>
cublasStatus_t setConfig(cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, T value) {
    return cublasLtMatmulAlgoConfigSetAttribute(algo, attr, &value, sizeof(T));
}

template <typename T>
T getConfig(const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, cublasStatus_t* status) {
    T value{};
    std::size_t written = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoConfigGetAttribute(algo, attr, &value, sizeof(T), &written);
    if (s != CUBLAS_STATUS_SUCCESS && *status == CUBLAS_STATUS_SUCCESS) *status = s;
    return value;
}

template <typename T>
T getCap(const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoCapAttributes_t attr) {
    T value{};
    std::size_t written = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, &value, sizeof(T), &written) != CUBLAS_STATUS_SUCCESS) return T{};
    return value;
}

std::vector<std::uint32_t> getCapList(const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoCapAttributes_t attr) {
    std::size_t needed = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, nullptr, 0, &needed) != CUBLAS_STATUS_SUCCESS || needed == 0)
        return {};
    std::vector<std::uint32_t> values(needed / sizeof(std::uint32_t));
    std::size_t written = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, values.data(), values.size() * sizeof(std::uint32_t), &written) !=
        CUBLAS_STATUS_SUCCESS)
        return {};
    values.resize(written / sizeof(std::uint32_t));
    // A lone UNDEFINED means "no choice".
    if (values.size() == 1 && values[0] == 0) values.clear();
    return values;
}

RawAlgo toRaw(const cublasLtMatmulAlgo_t& algo) {
    RawAlgo raw{};
    static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(RawAlgo));
    std::memcpy(raw.data(), &algo, raw.size());
    return raw;
}

cublasLtMatmulAlgo_t fromRaw(const RawAlgo& raw) {
    cublasLtMatmulAlgo_t algo;
    std::memcpy(&algo, raw.data(), raw.size());
    return algo;
}

class CublasLtBackend;

class CublasLtWork final : public GemmWork {
public:
    CublasLtWork(CublasLtBackend& backend, const RawAlgo& raw, std::uint64_t workspaceBytes)
        : backend_(backend), algo_(fromRaw(raw)), workspaceBytes_(workspaceBytes) {}
    void launch() override;
    void beforeSample(L2Regime regime) override;
    double timeSampleMs() override;
    int lastSmClockMHz() const override { return lastClock_; }
    std::uint64_t bytesMoved() const override;

private:
    CublasLtBackend& backend_;
    cublasLtMatmulAlgo_t algo_;
    std::uint64_t workspaceBytes_;
    int set_ = 0;
    int lastClock_ = -1;
};

class CublasLtBackend final : public GemmBackend {
public:
    explicit CublasLtBackend(int deviceIndex) : device_(deviceIndex) {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        cudaDeviceProp prop{};
        checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
        env_.device = prop.name;
        env_.ccMajor = prop.major;
        env_.ccMinor = prop.minor;
        env_.multiprocessors = prop.multiProcessorCount;
        env_.l2Bytes = std::uint64_t(prop.l2CacheSize);
        env_.memoryBytes = prop.totalGlobalMem;
        int clockKHz = 0;
        if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, device_) == cudaSuccess) env_.clockMHz = clockKHz / 1000;
        spinCycles_ = std::max<long long>(20000, (long long)clockKHz * 15 / 1000);  // ~15 us at the max clock
        int cluster = 0;
        if (cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, device_) == cudaSuccess) env_.clusterLaunch = cluster != 0;
        cudaDriverGetVersion(&env_.driverApiVersion);
        cudaRuntimeGetVersion(&env_.cudaRuntimeVersion);
        env_.compiledCudaVersion = CUDART_VERSION;
        env_.compiledCublasVersion = CUBLAS_VERSION;
        env_.cublasLtVersion = cublasLtGetVersion();
        env_.cublasLtCudartVersion = cublasLtGetCudartVersion();
        char bus[64] = {0};
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, device_) == cudaSuccess) nvml_ = std::make_unique<cuda::NvmlDevice>(bus);
        const std::string nvmlDriver = nvml_ ? nvml_->driverVersion() : std::string();
        env_.driver = !nvmlDriver.empty() ? nvmlDriver : "CUDA driver API " + std::to_string(env_.driverApiVersion);
        checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        checkCuda(cudaEventCreate(&start_), "cudaEventCreate");
        checkCuda(cudaEventCreate(&stop_), "cudaEventCreate");
        checkCublas(cublasLtCreate(&handle_), "cublasLtCreate");
    }

    ~CublasLtBackend() override {
        hashes_.reset();
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
        destroyDescriptors();
        if (handle_) cublasLtDestroy(handle_);
        if (start_) cudaEventDestroy(start_);
        if (stop_) cudaEventDestroy(stop_);
        if (stream_) cudaStreamDestroy(stream_);
    }

    GemmEnvironment environment() const override { return env_; }

    std::string unsupportedReason(const GemmSpec& spec) const override {
        const std::string arch = "sm_" + std::to_string(env_.ccMajor) + std::to_string(env_.ccMinor);
        if (spec.dtype == GemmDtype::Nvfp4 && env_.ccMajor < 10)
            return "NVFP4 (E2M1 with VEC16_UE4M3 block scales) needs a Blackwell GPU (sm_100 or later); this " +
                   env_.device + " is " + arch +
                   ", where cuBLASLt has no block-scaled FP4 kernels, so it is not attempted. Use --dtype bf16 or fp8.";
        if (spec.dtype == GemmDtype::Nvfp4 && spec.layout != GemmLayout::TN)
            return "NVFP4 runs only in the TN layout (A transposed, B not), as the seed's row-major X @ W^T";
        if (spec.dtype == GemmDtype::Fp8E4M3) {
            if (env_.ccMajor * 10 + env_.ccMinor < 89)
                return "FP8 E4M3 needs sm_89 or later; this " + env_.device + " is " + arch;
            // Non-TN FP8 exists on sm_100 (and, by TransformerEngine's rule, from 13.0 on); Hopper and sm_12x are TN only.
            if (spec.layout != GemmLayout::TN && !(env_.ccMajor == 10 || env_.ccMajor >= 13))
                return "FP8 on " + arch + " runs only in the TN layout (cuBLASLt: \"A must be transposed and B "
                       "non-transposed\"); asked for " + toString(spec.layout);
        }
        const double need = double(memoryNeeded(spec, 1));
        if (need > double(env_.memoryBytes))
            return describe(spec) + " needs at least " + gib(need) + " of device memory; the " + env_.device + " has " +
                   gib(double(env_.memoryBytes));
        return {};
    }

    void prepare(const GemmSpec& spec, std::uint64_t dataSeed) override {
        validateGemmSpec(spec);
        if (const std::string why = unsupportedReason(spec); !why.empty()) throw Error("", "", why);
        hashes_.reset();
        destroyDescriptors();
        spec_ = spec;
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");

        // Rotating input sets: together at least 4x the L2 so that no launch finds its inputs cached. A set that is
        // that large by itself needs no second copy (what one launch leaves in L2 is under a quarter of its inputs).
        const std::uint64_t setBytes = inputSetBytes(spec);
        std::size_t freeBytes = 0, totalBytes = 0;
        checkCuda(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
        const std::uint64_t fixed = memoryNeeded(spec, 0);
        if (double(fixed + setBytes) > 0.92 * double(freeBytes))
            throw Error("", "", describe(spec) + " needs " + gib(double(fixed + setBytes)) + " of device memory; " +
                                    gib(double(freeBytes)) + " is free on the " + env_.device);
        int sets = int(std::max<std::uint64_t>(1, (4 * env_.l2Bytes + setBytes - 1) / std::max<std::uint64_t>(setBytes, 1)));
        sets = std::min(sets, 64);
        while (sets > 1 && double(fixed + setBytes * std::uint64_t(sets)) > 0.85 * double(freeBytes)) --sets;
        a_.clear();
        b_.clear();
        aScale_.clear();
        bScale_.clear();
        for (int i = 0; i < sets; ++i) {
            a_.push_back(std::make_unique<DeviceBuffer>());
            b_.push_back(std::make_unique<DeviceBuffer>());
            a_.back()->allocate(spec.inputBytesA(), "A (input set " + std::to_string(i) + ")");
            b_.back()->allocate(spec.inputBytesB(), "B (input set " + std::to_string(i) + ")");
            if (spec.dtype == GemmDtype::Nvfp4) {
                aScale_.push_back(std::make_unique<DeviceBuffer>());
                bScale_.push_back(std::make_unique<DeviceBuffer>());
                aScale_.back()->allocate(blockScaleBytes(spec.k, spec.n), "A block scales");
                bScale_.back()->allocate(blockScaleBytes(spec.k, spec.m), "B block scales");
            }
        }
        d_.allocate(spec.outputBytes(), "D");
        baseline_.allocate(spec.outputBytes(), "the baseline output");
        ref_.allocate(std::uint64_t(spec.m) * std::uint64_t(spec.n) * 4u, "the FP32 reference");
        workspace_.allocate(spec.maxWorkspaceBytes(), "the workspace");
        scalars_.allocate(64, "scale factors");
        compareScratch_.allocate(sizeof(kern::CompareResult), "comparison scratch");
        const float ones[2] = {1.0f, 1.0f};
        checkCuda(cudaMemcpy(scalars_.ptr, ones, sizeof ones, cudaMemcpyHostToDevice), "cudaMemcpy(scales)");
        haveBaseline_ = false;

        // Set 0 random, the others copies of it: every launch computes the same output.
        const kern::ElementType type = elementType(spec.dtype);
        const std::uint64_t aCount = std::uint64_t(spec.n) * std::uint64_t(spec.k);
        const std::uint64_t bCount = std::uint64_t(spec.m) * std::uint64_t(spec.k);
        checkCuda(kern::fillRandom(a_[0]->ptr, type, aCount, dataSeed * 2 + 1, stream_), "filling A");
        checkCuda(kern::fillRandom(b_[0]->ptr, type, bCount, dataSeed * 2 + 2, stream_), "filling B");
        if (spec.dtype == GemmDtype::Nvfp4) {
            // Uniform block scales of 1.0 (UE4M3 0x38): the reference needs no knowledge of the swizzled layout.
            checkCuda(kern::fillBytes(aScale_[0]->ptr, 0x38, aScale_[0]->bytes, stream_), "filling A scales");
            checkCuda(kern::fillBytes(bScale_[0]->ptr, 0x38, bScale_[0]->bytes, stream_), "filling B scales");
        }
        for (int i = 1; i < sets; ++i) {
            checkCuda(cudaMemcpyAsync(a_[i]->ptr, a_[0]->ptr, a_[0]->bytes, cudaMemcpyDeviceToDevice, stream_), "copying A");
            checkCuda(cudaMemcpyAsync(b_[i]->ptr, b_[0]->ptr, b_[0]->bytes, cudaMemcpyDeviceToDevice, stream_), "copying B");
            if (spec.dtype == GemmDtype::Nvfp4) {
                checkCuda(cudaMemcpyAsync(aScale_[i]->ptr, aScale_[0]->ptr, aScale_[0]->bytes, cudaMemcpyDeviceToDevice, stream_), "copying scales");
                checkCuda(cudaMemcpyAsync(bScale_[i]->ptr, bScale_[0]->ptr, bScale_[0]->bytes, cudaMemcpyDeviceToDevice, stream_), "copying scales");
            }
        }
        // Poison D so that an algorithm that writes nothing cannot look right.
        checkCuda(cudaMemsetAsync(d_.ptr, 0xff, d_.bytes, stream_), "poisoning D");

        // FP32 reference.
        kern::OperandView av{a_[0]->ptr, type, 0, 0, 1.0f};
        kern::OperandView bv{b_[0]->ptr, type, 0, 0, 1.0f};
        const std::int64_t M = spec.m, N = spec.n, K = spec.k;
        if (spec.layout == GemmLayout::TN) {
            av.strideRow = K, av.strideCol = 1;  // W[N,K] row-major
        } else {
            av.strideRow = 1, av.strideCol = N;  // A stored N x K column-major
        }
        if (spec.layout == GemmLayout::NT) {
            bv.strideRow = M, bv.strideCol = 1;  // B stored M x K column-major: op(B)[k,m] = B[k*M + m]
        } else {
            bv.strideRow = 1, bv.strideCol = K;  // X[M,K] row-major: op(B)[k,m] = X[m*K + k]
        }
        checkCuda(kern::referenceGemm(av, bv, static_cast<float*>(ref_.ptr), N, M, K, N, stream_), "reference GEMM");
        checkCuda(cudaStreamSynchronize(stream_), "preparing inputs and the reference");

        createDescriptors();

        // Host hashing of the logical output block.
        const std::size_t logicalBytes = std::size_t(spec.logicalM()) * std::size_t(spec.logicalN()) * 2u;
        const std::size_t slots = std::clamp<std::size_t>((std::size_t(2) << 30) / std::max<std::size_t>(logicalBytes, 1), 1, 8);
        const unsigned workers = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
        hashes_ = std::make_unique<HashPool>(logicalBytes, slots, workers);

        // Device copies of each batched candidate's output (its logical block), for hashing after the batch.
        std::size_t freeNow = 0, totalNow = 0;
        checkCuda(cudaMemGetInfo(&freeNow, &totalNow), "cudaMemGetInfo");
        const std::size_t outputSlots =
            std::clamp<std::size_t>(std::size_t(0.25 * double(freeNow)) / std::max<std::size_t>(logicalBytes, 1), 1, 16);
        outputSlots_.clear();
        for (std::size_t i = 0; i < outputSlots; ++i) {
            outputSlots_.push_back(std::make_unique<DeviceBuffer>());
            outputSlots_.back()->allocate(logicalBytes, "batched output copies");
        }
        batchScratch_.allocate(outputSlots * sizeof(kern::CompareResult), "batch comparison scratch");
        prepared_ = true;
    }

    int rotatingSets() const override { return int(a_.size()); }
    std::uint64_t rotatingBytes() const override { return inputSetBytes(spec_) * a_.size(); }

    HeuristicSet heuristics(std::uint64_t maxWorkspaceBytes, int requestedCount) override {
        requirePrepared();
        HeuristicSet set;
        set.maxWorkspaceBytes = maxWorkspaceBytes;
        set.requestedCount = requestedCount;
        cublasLtMatmulPreference_t pref = nullptr;
        checkCublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
        std::uint64_t ws = maxWorkspaceBytes;
        cublasStatus_t status =
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
        std::vector<cublasLtMatmulHeuristicResult_t> results(std::size_t(std::max(1, requestedCount)));
        int returned = 0;
        if (status == CUBLAS_STATUS_SUCCESS)
            status = cublasLtMatmulAlgoGetHeuristic(handle_, op_, aDesc_, bDesc_, cDesc_, dDesc_, pref, requestedCount,
                                                    results.data(), &returned);
        cublasLtMatmulPreferenceDestroy(pref);
        set.apiStatus = int(status);
        if (status != CUBLAS_STATUS_SUCCESS) {
            set.error = "cublasLtMatmulAlgoGetHeuristic: " + cublasText(status);
            return set;
        }
        set.returnedCount = returned;
        for (int i = 0; i < returned; ++i) {
            HeuristicAlgo h;
            h.raw = toRaw(results[std::size_t(i)].algo);
            h.state = int(results[std::size_t(i)].state);
            h.requiredWorkspaceBytes = results[std::size_t(i)].workspaceSize;
            h.waves = results[std::size_t(i)].wavesCount;
            cublasStatus_t decodeStatus = CUBLAS_STATUS_SUCCESS;
            h.config = decodeAlgo(results[std::size_t(i)].algo, &decodeStatus);
            h.apiStatus = int(decodeStatus);
            h.capabilities = readCapabilities(results[std::size_t(i)].algo);
            set.algorithms.push_back(std::move(h));
        }
        return set;
    }

    std::vector<int> algorithmIds(int requestedCount) override {
        requirePrepared();
        std::vector<int> ids(std::size_t(std::max(1, requestedCount)));
        int returned = 0;
        const cublasStatus_t s = cublasLtMatmulAlgoGetIds(handle_, CUBLAS_COMPUTE_32F, CUDA_R_32F, abType_, abType_,
                                                          CUDA_R_16BF, CUDA_R_16BF, requestedCount, ids.data(), &returned);
        if (s != CUBLAS_STATUS_SUCCESS) return {};
        ids.resize(std::size_t(returned));
        return ids;
    }

    AlgoCapabilities capabilities(int algorithmId) override {
        requirePrepared();
        cublasLtMatmulAlgo_t algo;
        const cublasStatus_t s = cublasLtMatmulAlgoInit(handle_, CUBLAS_COMPUTE_32F, CUDA_R_32F, abType_, abType_,
                                                        CUDA_R_16BF, CUDA_R_16BF, algorithmId, &algo);
        if (s != CUBLAS_STATUS_SUCCESS) {
            AlgoCapabilities caps;
            caps.error = "cublasLtMatmulAlgoInit(" + std::to_string(algorithmId) + "): " + cublasText(s);
            return caps;
        }
        return readCapabilities(algo);
    }

    CheckResult check(const AlgoConfig& config) override {
        requirePrepared();
        CheckResult r;
        cublasLtMatmulAlgo_t algo;
        cublasStatus_t s = cublasLtMatmulAlgoInit(handle_, CUBLAS_COMPUTE_32F, CUDA_R_32F, abType_, abType_,
                                                  CUDA_R_16BF, CUDA_R_16BF, config.algorithmId, &algo);
        auto failed = [&](const char* call) {
            r.apiStatus = int(s);
            r.failedCall = call;
            return r;
        };
        if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulAlgoInit");
        if ((s = setConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, config.tileId))) return failed("ConfigSetAttribute(TILE_ID)");
        if ((s = setConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, config.stagesId))) return failed("ConfigSetAttribute(STAGES_ID)");
        if ((s = setConfig<std::int32_t>(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, config.splitK))) return failed("ConfigSetAttribute(SPLITK_NUM)");
        if ((s = setConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, config.reductionScheme))) return failed("ConfigSetAttribute(REDUCTION_SCHEME)");
        if ((s = setConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, config.ctaSwizzle))) return failed("ConfigSetAttribute(CTA_SWIZZLING)");
        if ((s = setConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, config.customOption))) return failed("ConfigSetAttribute(CUSTOM_OPTION)");
        if ((s = setConfig<std::uint16_t>(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, config.innerShape))) return failed("ConfigSetAttribute(INNER_SHAPE_ID)");
        if ((s = setConfig<std::uint16_t>(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, config.clusterShape))) return failed("ConfigSetAttribute(CLUSTER_SHAPE_ID)");
        cublasLtMatmulHeuristicResult_t result{};
        s = cublasLtMatmulAlgoCheck(handle_, op_, aDesc_, bDesc_, cDesc_, dDesc_, &algo, &result);
        if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulAlgoCheck");
        r.requiredWorkspaceBytes = result.workspaceSize;
        r.waves = result.wavesCount;
        r.raw = toRaw(algo);
        return r;
    }

    CheckResult checkRaw(const RawAlgo& raw) override {
        requirePrepared();
        CheckResult r;
        const cublasLtMatmulAlgo_t algo = fromRaw(raw);
        cublasLtMatmulHeuristicResult_t result{};
        const cublasStatus_t s = cublasLtMatmulAlgoCheck(handle_, op_, aDesc_, bDesc_, cDesc_, dDesc_, &algo, &result);
        r.apiStatus = int(s);
        if (s != CUBLAS_STATUS_SUCCESS) {
            r.failedCall = "cublasLtMatmulAlgoCheck";
            return r;
        }
        r.requiredWorkspaceBytes = result.workspaceSize;
        r.waves = result.wavesCount;
        r.raw = raw;
        return r;
    }

    AlgoConfig decode(const RawAlgo& raw) override {
        const cublasLtMatmulAlgo_t algo = fromRaw(raw);
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        return decodeAlgo(algo, &status);
    }

    std::unique_ptr<GemmWork> work(const RawAlgo& raw, std::uint64_t workspaceBytes) override {
        requirePrepared();
        if (workspaceBytes > workspace_.bytes)
            throw Error("", "", "workspace of " + std::to_string(workspaceBytes) + " bytes asked, " +
                                    std::to_string(workspace_.bytes) + " prepared");
        return std::make_unique<CublasLtWork>(*this, raw, workspaceBytes);
    }

    PendingParity checkOutput(bool makeBaseline) override {
        requirePrepared();
        PendingParity out;
        if (makeBaseline) {
            checkCuda(cudaMemcpyAsync(baseline_.ptr, d_.ptr, d_.bytes, cudaMemcpyDeviceToDevice, stream_), "keeping the baseline output");
            haveBaseline_ = true;
        }
        kern::CompareResult result{};
        checkCuda(kern::compareOutput(static_cast<const std::uint16_t*>(d_.ptr),
                                      haveBaseline_ ? static_cast<const std::uint16_t*>(baseline_.ptr) : nullptr,
                                      static_cast<const float*>(ref_.ptr), spec_.n, spec_.logicalN(), spec_.logicalM(),
                                      static_cast<kern::CompareResult*>(compareScratch_.ptr), &result, stream_),
                  "comparing the output");
        out.parity.checked = true;
        out.parity.differingElements = haveBaseline_ ? result.differing : 0;
        out.parity.bitwiseEqualToBaseline = haveBaseline_ && result.differing == 0;
        out.parity.finite = result.nonFinite == 0;
        out.parity.maxAbsError = result.maxAbsError;
        out.parity.maxRelError = result.maxAbsRef > 0 ? double(result.maxAbsError) / double(result.maxAbsRef) : 0.0;
        if (out.parity.bitwiseEqualToBaseline && !makeBaseline && baselineSha_.valid()) {
            out.sha256 = baselineSha_;  // same bits, same hash
            return out;
        }
        void* slot = hashes_->acquire();
        const std::size_t rowBytes = std::size_t(spec_.logicalN()) * 2u;
        const cudaError_t err = cudaMemcpy2DAsync(slot, rowBytes, d_.ptr, std::size_t(spec_.n) * 2u, rowBytes,
                                                  std::size_t(spec_.logicalM()), cudaMemcpyDeviceToHost, stream_);
        const cudaError_t sync = err == cudaSuccess ? cudaStreamSynchronize(stream_) : err;
        if (sync != cudaSuccess) {
            hashes_->release(slot);
            checkCuda(sync, "copying the output to the host");
        }
        out.sha256 = hashes_->submit(slot, rowBytes * std::size_t(spec_.logicalM()));
        if (makeBaseline) baselineSha_ = out.sha256;
        return out;
    }

    int firstPassBatchLimit() const override { return int(std::max<std::size_t>(outputSlots_.size(), 1)); }

    std::vector<FirstPassResult> firstPass(const std::vector<FirstPassItem>& items) override {
        requirePrepared();
        if (items.size() > outputSlots_.size())
            throw Error("", "", "first-pass batch of " + std::to_string(items.size()) + " candidates; at most " +
                                    std::to_string(outputSlots_.size()) + " fit in device memory");
        std::vector<FirstPassResult> results(items.size());
        std::size_t eventsNeeded = 0;
        for (const auto& item : items) eventsNeeded += std::size_t(std::max(1, item.samples)) + 1;
        ensureEvents(eventsNeeded);
        auto* scratch = static_cast<kern::CompareResult*>(batchScratch_.ptr);
        checkCuda(cudaMemsetAsync(scratch, 0, items.size() * sizeof(kern::CompareResult), stream_), "clearing scratch");

        const std::size_t rowBytes = std::size_t(spec_.logicalN()) * 2u;
        const std::size_t logicalBytes = rowBytes * std::size_t(spec_.logicalM());
        std::vector<std::size_t> firstEvent(items.size(), 0);
        std::vector<std::vector<std::uint64_t>> tags(items.size());  // CUPTI: one per sample
        const bool cupti = timesWithCupti();
        std::vector<bool> enqueued(items.size(), false), hadBaseline(items.size(), false);
        std::size_t nextEvent = 0;
        // Everything goes into one stream without a host round trip: the GPU never idles between candidates.
        for (std::size_t i = 0; i < items.size(); ++i) {
            const FirstPassItem& item = items[i];
            const cublasLtMatmulAlgo_t algo = fromRaw(item.raw);
            const int samples = std::max(1, item.samples);
            try {
                if (item.workspaceBytes > workspace_.bytes)
                    throw Error("", "", "workspace of " + std::to_string(item.workspaceBytes) + " bytes asked, " +
                                            std::to_string(workspace_.bytes) + " prepared");
                poisonOutput();
                for (int w = 0; w < item.warmups; ++w) matmul(algo, item.workspaceBytes, nextSet());
                firstEvent[i] = nextEvent;
                for (int k = 0; k < samples; ++k) {
                    checkCuda(cudaEventRecord(events_[nextEvent + std::size_t(k)], stream_), "cudaEventRecord");
                    const CuptiTag tag(cupti);
                    matmul(algo, item.workspaceBytes, nextSet());
                    if (cupti) tags[i].push_back(tag.id());
                }
                checkCuda(cudaEventRecord(events_[nextEvent + std::size_t(samples)], stream_), "cudaEventRecord");
                nextEvent += std::size_t(samples) + 1;
                if (item.makeBaseline) {
                    checkCuda(cudaMemcpyAsync(baseline_.ptr, d_.ptr, d_.bytes, cudaMemcpyDeviceToDevice, stream_),
                              "keeping the baseline output");
                    haveBaseline_ = true;
                }
                hadBaseline[i] = haveBaseline_;
                checkCuda(kern::compareOutputAsync(static_cast<const std::uint16_t*>(d_.ptr),
                                                   haveBaseline_ ? static_cast<const std::uint16_t*>(baseline_.ptr) : nullptr,
                                                   static_cast<const float*>(ref_.ptr), spec_.n, spec_.logicalN(),
                                                   spec_.logicalM(), scratch + i, stream_),
                          "comparing the output");
                checkCuda(cudaMemcpy2DAsync(outputSlots_[i]->ptr, rowBytes, d_.ptr, std::size_t(spec_.n) * 2u, rowBytes,
                                            std::size_t(spec_.logicalM()), cudaMemcpyDeviceToDevice, stream_),
                          "copying the output");
                enqueued[i] = true;
            } catch (const Error& e) {
                results[i].error = e.message();
                if (item.makeBaseline) haveBaseline_ = false;
            }
        }
        const cudaError_t sync = cudaStreamSynchronize(stream_);
        if (sync != cudaSuccess) {
            // A fault inside a kernel: no result of this batch can be trusted, and the context is likely lost.
            for (std::size_t i = 0; i < items.size(); ++i)
                if (enqueued[i]) results[i].error = "device fault while running the batch: " + cudaText(sync);
            return results;
        }
        std::vector<kern::CompareResult> compared(items.size());
        checkCuda(cudaMemcpy(compared.data(), scratch, items.size() * sizeof(kern::CompareResult), cudaMemcpyDeviceToHost),
                  "reading comparisons");
        const int clock = smClock();
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (!enqueued[i]) continue;
            FirstPassResult& r = results[i];
            r.smClockMHz = clock;
            const int samples = std::max(1, items[i].samples);
            if (cupti) r.samplesMs = kernelTimesMs(tags[i]);
            for (int k = 0; !cupti && k < samples; ++k) {
                float ms = 0.0f;
                checkCuda(cudaEventElapsedTime(&ms, events_[firstEvent[i] + std::size_t(k)],
                                               events_[firstEvent[i] + std::size_t(k) + 1]),
                          "cudaEventElapsedTime");
                r.samplesMs.push_back(double(ms));
            }
            const kern::CompareResult& c = compared[i];
            OutputParity& parity = r.parity.parity;
            parity.checked = true;
            parity.differingElements = hadBaseline[i] ? c.differing : 0;
            parity.bitwiseEqualToBaseline = hadBaseline[i] && c.differing == 0;
            parity.finite = c.nonFinite == 0;
            parity.maxAbsError = c.maxAbsError;
            parity.maxRelError = c.maxAbsRef > 0 ? double(c.maxAbsError) / double(c.maxAbsRef) : 0.0;
            if (parity.bitwiseEqualToBaseline && !items[i].makeBaseline && baselineSha_.valid()) {
                r.parity.sha256 = baselineSha_;
                continue;
            }
            void* slot = hashes_->acquire();
            const cudaError_t copied = cudaMemcpy(slot, outputSlots_[i]->ptr, logicalBytes, cudaMemcpyDeviceToHost);
            if (copied != cudaSuccess) {
                hashes_->release(slot);
                checkCuda(copied, "copying an output to the host");
            }
            r.parity.sha256 = hashes_->submit(slot, logicalBytes);
            if (items[i].makeBaseline) baselineSha_ = r.parity.sha256;
        }
        return results;
    }

    void keepBusy(const RawAlgo& raw, std::uint64_t workspaceBytes, int launches) override {
        requirePrepared();
        const cublasLtMatmulAlgo_t algo = fromRaw(raw);
        for (int i = 0; i < launches; ++i) matmul(algo, std::min<std::uint64_t>(workspaceBytes, workspace_.bytes), nextSet());
    }

    std::vector<BlockResult> runBlocks(const std::vector<Block>& blocks) override {
        requirePrepared();
        const std::size_t n = blocks.size();
        std::vector<BlockResult> results(n);
        if (n == 0) return results;
        // Events per launch, or per group of launches when there are many (at most 128 timed intervals a block).
        constexpr int kMaxIntervals = 128;
        std::vector<int> intervals(n);
        std::vector<std::size_t> firstEvent(n);
        std::size_t needed = 0;
        for (std::size_t i = 0; i < n; ++i) {
            intervals[i] = std::min(std::max(1, blocks[i].launches), kMaxIntervals);
            firstEvent[i] = needed;
            needed += std::size_t(intervals[i]) + 1;
        }
        ensureEvents(needed);
        const long long limitMw = nvml_ ? nvml_->enforcedPowerLimitMilliwatts() : -1;
        const bool cupti = timesWithCupti();
        std::vector<std::vector<std::uint64_t>> tags(n);  // CUPTI: one per timed launch

        // A host thread reads NVML while the blocks run: the energy counter when a block's timed part starts and
        // ends (it watches the block's first and last events), clock, power and reasons every 10 ms in between.
        // The main thread meanwhile enqueues (and blocks when the stream's queue is full).
        std::atomic<long> startRecorded{-1}, endRecorded{-1};
        std::atomic<bool> abort{false};
        std::vector<long long> energyStart(n, -1), energyEnd(n, -1);
        std::vector<std::vector<long long>> clocks(n), powers(n);
        std::vector<int> readings(n, 0), capReadings(n, 0);
        std::vector<std::uint64_t> reasons(n, 0);
        const int device = device_;
        auto sampler = [&] {
            cudaSetDevice(device);
            std::size_t b = 0;
            bool running = false;
            auto lastReading = std::chrono::steady_clock::now() - std::chrono::milliseconds(20);
            while (b < n && !abort.load()) {
                if (!running) {
                    if (startRecorded.load() >= long(b)) {
                        const cudaError_t q = cudaEventQuery(events_[firstEvent[b]]);
                        if (q == cudaSuccess) {
                            energyStart[b] = nvml_ ? nvml_->energyMillijoules() : -1;
                            running = true;
                            continue;
                        }
                        if (q != cudaErrorNotReady) break;
                    }
                } else {
                    const auto now = std::chrono::steady_clock::now();
                    if (nvml_ && now - lastReading >= std::chrono::milliseconds(10)) {
                        lastReading = now;
                        const int clock = nvml_->smClockMHz();
                        const long long power = nvml_->powerMilliwatts();
                        const long long why = nvml_->clockEventReasons();
                        if (clock > 0) clocks[b].push_back(clock);
                        if (power > 0) powers[b].push_back(power);
                        if (why >= 0) {
                            reasons[b] |= std::uint64_t(why);
                            capReadings[b] += (std::uint64_t(why) & cuda::kClockEventSwPowerCap) != 0;
                        }
                        readings[b] += clock > 0 || power > 0 || why >= 0;
                    }
                    if (endRecorded.load() >= long(b)) {
                        const cudaError_t q = cudaEventQuery(events_[firstEvent[b] + std::size_t(intervals[b])]);
                        if (q == cudaSuccess) {
                            energyEnd[b] = nvml_ ? nvml_->energyMillijoules() : -1;
                            running = false;
                            ++b;
                            continue;
                        }
                        if (q != cudaErrorNotReady) break;
                    }
                }
                std::this_thread::sleep_for(std::chrono::microseconds(250));
            }
        };
        std::thread thread(sampler);
        cudaError_t sync = cudaSuccess;
        try {
            for (std::size_t i = 0; i < n; ++i) {
                const Block& block = blocks[i];
                const int launches = std::max(1, block.launches);
                const std::size_t e0 = firstEvent[i];
                int recorded = 0;  // events of this block recorded so far
                try {
                    if (block.workspaceBytes > workspace_.bytes)
                        throw Error("", "", "workspace of " + std::to_string(block.workspaceBytes) + " bytes asked, " +
                                                std::to_string(workspace_.bytes) + " prepared");
                    const cublasLtMatmulAlgo_t algo = fromRaw(block.raw);
                    if (block.idleBeforeSeconds > 0) {
                        checkCuda(cudaStreamSynchronize(stream_), "synchronising before an idle gap");
                        std::this_thread::sleep_for(std::chrono::duration<double>(block.idleBeforeSeconds));
                    }
                    for (int w = 0; w < block.warmups; ++w) matmul(algo, block.workspaceBytes, nextSet());
                    checkCuda(cudaEventRecord(events_[e0], stream_), "cudaEventRecord");
                    recorded = 1;
                    startRecorded = long(i);
                    const int base = launches / intervals[i], extra = launches % intervals[i];
                    for (int k = 0; k < intervals[i]; ++k) {
                        for (int l = 0; l < base + (k < extra ? 1 : 0); ++l) {
                            const CuptiTag tag(cupti);
                            matmul(algo, block.workspaceBytes, nextSet());
                            if (cupti) tags[i].push_back(tag.id());
                        }
                        checkCuda(cudaEventRecord(events_[e0 + std::size_t(k) + 1], stream_), "cudaEventRecord");
                        recorded = k + 2;
                    }
                } catch (const Error& e) {
                    results[i].error = e.message();
                    // Complete the block's events (with no work) so that the sampler moves on.
                    for (int k = recorded; k <= intervals[i]; ++k)
                        (void)cudaEventRecord(events_[e0 + std::size_t(k)], stream_);
                    startRecorded = long(i);
                }
                endRecorded = long(i);
            }
            sync = cudaStreamSynchronize(stream_);
        } catch (...) {
            abort = true;
            thread.join();
            throw;
        }
        if (sync != cudaSuccess) abort = true;
        thread.join();
        if (sync != cudaSuccess) {
            // A fault inside a kernel: no block's timing can be trusted.
            for (auto& r : results)
                if (r.error.empty()) r.error = "device fault while running the blocks: " + cudaText(sync);
            return results;
        }
        auto mean = [](const std::vector<long long>& values) {
            return values.empty() ? -1.0 : double(std::accumulate(values.begin(), values.end(), 0LL)) / double(values.size());
        };
        for (std::size_t i = 0; i < n; ++i) {
            BlockResult& r = results[i];
            if (!r.error.empty()) continue;
            const int launches = std::max(1, blocks[i].launches);
            const int base = launches / intervals[i], extra = launches % intervals[i];
            std::vector<double> perLaunch;
            if (cupti) perLaunch = kernelTimesMs(tags[i]);
            for (int k = 0; !cupti && k < intervals[i]; ++k) {
                float ms = 0.0f;
                checkCuda(cudaEventElapsedTime(&ms, events_[firstEvent[i] + std::size_t(k)],
                                               events_[firstEvent[i] + std::size_t(k) + 1]),
                          "cudaEventElapsedTime");
                perLaunch.push_back(double(ms) / double(base + (k < extra ? 1 : 0)));
            }
            float total = 0.0f;
            checkCuda(cudaEventElapsedTime(&total, events_[firstEvent[i]], events_[firstEvent[i] + std::size_t(intervals[i])]),
                      "cudaEventElapsedTime");
            std::sort(perLaunch.begin(), perLaunch.end());
            const std::size_t m = perLaunch.size();
            r.medianMsPerLaunch = m % 2 ? perLaunch[m / 2] : 0.5 * (perLaunch[m / 2 - 1] + perLaunch[m / 2]);
            r.launches = launches;
            r.seconds = double(total) / 1000.0;
            r.meanMsPerLaunch = double(total) / double(launches);
            if (energyStart[i] >= 0 && energyEnd[i] > energyStart[i])
                r.joulesPerLaunch = double(energyEnd[i] - energyStart[i]) / 1000.0 / double(launches);
            if (!powers[i].empty()) r.meanPowerReadingW = mean(powers[i]) / 1000.0;
            if (!clocks[i].empty()) r.meanSmClockMHz = mean(clocks[i]);
            if (limitMw > 0) r.powerLimitW = double(limitMw) / 1000.0;
            r.readings = readings[i];
            r.powerCapReadings = capReadings[i];
            r.clockEventReasons = reasons[i];
        }
        return results;
    }

    // CUPTI's kernel durations where libcupti loads and starts, else events; events stay the default because a GEMM
    // block is long enough for them (docs/explorer.md, "Timers").
    std::vector<TimerOption> timers() const override {
        const cuda::CuptiTimer& cupti = cuda::CuptiTimer::instance();
        const bool usable = cupti.loaded() && cuptiFailure_.empty();
        return {{kTimerEvents, true, "CUDA events recorded around each launch (or group of launches)"},
                {kTimerCupti, usable,
                 usable ? "each timed launch's kernels' own span on the GPU from CUPTI activity records (" +
                              cupti.version() + ")"
                        : "CUPTI not available (" + (cupti.loaded() ? cuptiFailure_ : cupti.reason()) + ")"}};
    }
    std::string useTimer(const std::string& name) override {
        const std::string chosen = chooseTimer(timers(), name).name;
        if (chosen == kTimerCupti) {
            try {
                cuda::CuptiTimer::instance().activate();
            } catch (const Error& e) {
                cuptiFailure_ = e.what();
                throw;
            }
        }
        timer_ = chosen;
        return chosen;
    }
    std::string timer() const override { return timer_; }
    bool timesWithCupti() const { return timer_ == kTimerCupti; }
    // The GPU spans of the tagged launches, in ms, in order.
    static std::vector<double> kernelTimesMs(const std::vector<std::uint64_t>& tags) {
        std::vector<double> times;
        times.reserve(tags.size());
        for (const cuda::GpuSpan& span : cuda::CuptiTimer::instance().collect(tags)) times.push_back(span.ms());
        return times;
    }

    // For CublasLtWork.
    void matmul(const cublasLtMatmulAlgo_t& algo, std::uint64_t workspaceBytes, int set) {
        const float alpha = 1.0f, beta = 0.0f;
        const std::size_t s = std::size_t(set) % a_.size();
        if (spec_.dtype == GemmDtype::Nvfp4) {
            void* as = aScale_[s]->ptr;
            void* bs = bScale_[s]->ptr;
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as), "setting A scales");
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs), "setting B scales");
        }
        checkCublas(cublasLtMatmul(handle_, op_, &alpha, a_[s]->ptr, aDesc_, b_[s]->ptr, bDesc_, &beta, d_.ptr, cDesc_,
                                   d_.ptr, dDesc_, &algo, workspaceBytes ? workspace_.ptr : nullptr, workspaceBytes, stream_),
                    "cublasLtMatmul");
    }
    void poisonOutput() { checkCuda(cudaMemsetAsync(d_.ptr, 0xff, d_.bytes, stream_), "poisoning D"); }
    cudaStream_t stream() const { return stream_; }
    cudaEvent_t startEvent() const { return start_; }
    cudaEvent_t stopEvent() const { return stop_; }
    long long spinCycles() const { return spinCycles_; }
    int rotatingCount() const { return int(a_.size()); }
    int smClock() const { return nvml_ ? nvml_->smClockMHz() : -1; }
    std::uint64_t bytesPerLaunch() const { return inputSetBytes(spec_) + spec_.outputBytes(); }

private:
    static kern::ElementType elementType(GemmDtype dtype) {
        switch (dtype) {
            case GemmDtype::Bf16: return kern::ElementType::Bf16;
            case GemmDtype::Fp8E4M3: return kern::ElementType::Fp8E4M3;
            case GemmDtype::Nvfp4: return kern::ElementType::Fp4E2M1;
        }
        return kern::ElementType::Bf16;
    }
    static std::uint64_t roundUp(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }
    // VEC16 UE4M3 scale tensor: roundup(inner, 64)/16 x roundup(outer, 128) bytes (CUDALibrarySamples helpers.h).
    static std::uint64_t blockScaleBytes(std::int64_t inner, std::int64_t outer) {
        return roundUp(std::uint64_t(inner), 64) / 16 * roundUp(std::uint64_t(outer), 128);
    }
    static std::uint64_t inputSetBytes(const GemmSpec& spec) {
        std::uint64_t bytes = spec.inputBytesA() + spec.inputBytesB();
        if (spec.dtype == GemmDtype::Nvfp4) bytes += blockScaleBytes(spec.k, spec.n) + blockScaleBytes(spec.k, spec.m);
        return bytes;
    }
    // Output, baseline, FP32 reference, workspace and `sets` input sets.
    static std::uint64_t memoryNeeded(const GemmSpec& spec, int sets) {
        return 2 * spec.outputBytes() + std::uint64_t(spec.m) * std::uint64_t(spec.n) * 4u + spec.maxWorkspaceBytes() +
               inputSetBytes(spec) * std::uint64_t(sets) + (16ull << 20);
    }

    int nextSet() {
        rotation_ = (rotation_ + 1) % std::max<int>(1, int(a_.size()));
        return rotation_;
    }

    void ensureEvents(std::size_t count) {
        while (events_.size() < count) {
            cudaEvent_t e = nullptr;
            checkCuda(cudaEventCreate(&e), "cudaEventCreate");
            events_.push_back(e);
        }
    }

    void requirePrepared() const {
        if (!prepared_) throw Error("", "", "the cuBLASLt backend was used before prepare()");
    }

    void createDescriptors() {
        abType_ = spec_.dtype == GemmDtype::Bf16 ? CUDA_R_16BF
                  : spec_.dtype == GemmDtype::Fp8E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_4F_E2M1;
        checkCublas(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t transa = spec_.layout == GemmLayout::TN ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t transb = spec_.layout == GemmLayout::NT ? CUBLAS_OP_T : CUBLAS_OP_N;
        checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "TRANSA");
        checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "TRANSB");
        if (spec_.dtype == GemmDtype::Fp8E4M3) {
            // Per-tensor scales of 1.0 in device memory (float, the compute type).
            const void* scale = scalars_.ptr;
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale), "A_SCALE_POINTER");
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale), "B_SCALE_POINTER");
        }
        if (spec_.dtype == GemmDtype::Nvfp4) {
            const std::int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode), "A_SCALE_MODE");
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode), "B_SCALE_MODE");
            void* as = aScale_[0]->ptr;
            void* bs = bScale_[0]->ptr;
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as), "A_SCALE_POINTER");
            checkCublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs), "B_SCALE_POINTER");
        }
        const std::uint64_t M = std::uint64_t(spec_.m), N = std::uint64_t(spec_.n), K = std::uint64_t(spec_.k);
        if (spec_.layout == GemmLayout::TN)
            checkCublas(cublasLtMatrixLayoutCreate(&aDesc_, abType_, K, N, std::int64_t(K)), "layout A");
        else
            checkCublas(cublasLtMatrixLayoutCreate(&aDesc_, abType_, N, K, std::int64_t(N)), "layout A");
        if (spec_.layout == GemmLayout::NT)
            checkCublas(cublasLtMatrixLayoutCreate(&bDesc_, abType_, M, K, std::int64_t(M)), "layout B");
        else
            checkCublas(cublasLtMatrixLayoutCreate(&bDesc_, abType_, K, M, std::int64_t(K)), "layout B");
        checkCublas(cublasLtMatrixLayoutCreate(&cDesc_, CUDA_R_16BF, N, M, std::int64_t(N)), "layout C");
        checkCublas(cublasLtMatrixLayoutCreate(&dDesc_, CUDA_R_16BF, N, M, std::int64_t(N)), "layout D");
    }

    void destroyDescriptors() {
        if (op_) cublasLtMatmulDescDestroy(op_);
        if (aDesc_) cublasLtMatrixLayoutDestroy(aDesc_);
        if (bDesc_) cublasLtMatrixLayoutDestroy(bDesc_);
        if (cDesc_) cublasLtMatrixLayoutDestroy(cDesc_);
        if (dDesc_) cublasLtMatrixLayoutDestroy(dDesc_);
        op_ = nullptr;
        aDesc_ = bDesc_ = cDesc_ = dDesc_ = nullptr;
        prepared_ = false;
    }

    static AlgoConfig decodeAlgo(const cublasLtMatmulAlgo_t& algo, cublasStatus_t* status) {
        AlgoConfig c;
        c.algorithmId = getConfig<std::int32_t>(&algo, CUBLASLT_ALGO_CONFIG_ID, status);
        c.tileId = getConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, status);
        c.stagesId = getConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, status);
        c.splitK = getConfig<std::int32_t>(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, status);
        c.reductionScheme = getConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, status);
        c.ctaSwizzle = getConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, status);
        c.customOption = getConfig<std::uint32_t>(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, status);
        c.innerShape = getConfig<std::uint16_t>(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, status);
        c.clusterShape = getConfig<std::uint16_t>(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, status);
        return c;
    }

    static AlgoCapabilities readCapabilities(const cublasLtMatmulAlgo_t& algo) {
        AlgoCapabilities caps;
        std::size_t written = 0;
        std::int32_t splitK = 0;
        const cublasStatus_t s =
            cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitK, sizeof splitK, &written);
        if (s != CUBLAS_STATUS_SUCCESS) {
            caps.error = "cublasLtMatmulAlgoCapGetAttribute(SPLITK_SUPPORT): " + cublasText(s);
            return caps;
        }
        caps.read = true;
        caps.splitKSupport = splitK;
        caps.reductionSchemeMask = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
        caps.ctaSwizzleSupport = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT);
        caps.stridedBatchSupport = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT);
        caps.outOfPlaceResultSupport = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT);
        caps.uploSupport = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_UPLO_SUPPORT);
        caps.tileIds = getCapList(&algo, CUBLASLT_ALGO_CAP_TILE_IDS);
        caps.customOptionMax = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
        caps.customMemoryOrder = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER);
        caps.pointerModeMask = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_POINTER_MODE_MASK);
        caps.epilogueMask = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_EPILOGUE_MASK);
        caps.stagesIds = getCapList(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
        caps.ldNegative = getCap<std::int32_t>(&algo, CUBLASLT_ALGO_CAP_LD_NEGATIVE);
        caps.numericalImplFlags = getCap<std::uint64_t>(&algo, CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS);
        caps.minAlignmentABytes = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES);
        caps.minAlignmentBBytes = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES);
        caps.minAlignmentCBytes = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES);
        caps.minAlignmentDBytes = getCap<std::uint32_t>(&algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES);
        return caps;
    }

    int device_ = 0;
    GemmEnvironment env_;
    std::unique_ptr<cuda::NvmlDevice> nvml_;
    long long spinCycles_ = 30000;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
    cublasLtHandle_t handle_ = nullptr;
    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t aDesc_ = nullptr, bDesc_ = nullptr, cDesc_ = nullptr, dDesc_ = nullptr;
    cudaDataType_t abType_ = CUDA_R_16BF;
    GemmSpec spec_;
    bool prepared_ = false;
    std::vector<std::unique_ptr<DeviceBuffer>> a_, b_, aScale_, bScale_;
    DeviceBuffer d_, baseline_, ref_, workspace_, scalars_, compareScratch_;
    bool haveBaseline_ = false;
    std::shared_future<std::string> baselineSha_;
    std::unique_ptr<HashPool> hashes_;
    std::vector<std::unique_ptr<DeviceBuffer>> outputSlots_;
    DeviceBuffer batchScratch_;
    std::vector<cudaEvent_t> events_;
    std::string timer_ = kTimerEvents;
    std::string cuptiFailure_;  // why CUPTI would not start here, once it did not
    int rotation_ = 0;
};

void CublasLtWork::launch() {
    // Poison D first: an algorithm that leaves part of it unwritten shows up as NaN, not as the last one's output.
    backend_.poisonOutput();
    backend_.matmul(algo_, workspaceBytes_, set_);
    checkCuda(cudaStreamSynchronize(backend_.stream()), "cublasLtMatmul (warm-up launch)");
}

void CublasLtWork::beforeSample(L2Regime regime) {
    // Cold: the next rotating input set (together several times the L2); the explorer has no warm producer.
    if (regime == L2Regime::Cold) set_ = (set_ + 1) % backend_.rotatingCount();
}

double CublasLtWork::timeSampleMs() {
    cudaStream_t stream = backend_.stream();
    // The spin kernel keeps the GPU busy while the host enqueues the events and the GEMM.
    checkCuda(cublaslt_kernels::spin(backend_.spinCycles(), stream), "spin kernel");
    checkCuda(cudaEventRecord(backend_.startEvent(), stream), "cudaEventRecord");
    std::uint64_t tagId = 0;
    {
        const CuptiTag tag(backend_.timesWithCupti());
        backend_.matmul(algo_, workspaceBytes_, set_);
        tagId = tag.id();
    }
    checkCuda(cudaEventRecord(backend_.stopEvent(), stream), "cudaEventRecord");
    checkCuda(cudaEventSynchronize(backend_.stopEvent()), "cublasLtMatmul (timed launch)");
    lastClock_ = backend_.smClock();
    if (tagId) return CublasLtBackend::kernelTimesMs({tagId}).front();
    float ms = 0.0f;
    checkCuda(cudaEventElapsedTime(&ms, backend_.startEvent(), backend_.stopEvent()), "cudaEventElapsedTime");
    return double(ms);
}

std::uint64_t CublasLtWork::bytesMoved() const { return backend_.bytesPerLaunch(); }

}  // namespace
}  // namespace tunescope::gemm

extern "C" __attribute__((visibility("default"))) int tunescope_gemm_backend_interface() {
    return tunescope::gemm::kGemmBackendInterfaceVersion;
}

extern "C" __attribute__((visibility("default"))) tunescope::gemm::GemmBackend* tunescope_create_gemm_backend(
    int* noDevice, char* why, std::size_t whyBytes) {
    auto explain = [&](const std::string& text) {
        if (why && whyBytes) {
            std::strncpy(why, text.c_str(), whyBytes - 1);
            why[whyBytes - 1] = '\0';
        }
    };
    if (noDevice) *noDevice = 0;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (noDevice) *noDevice = 1;
        explain(err != cudaSuccess ? "no CUDA device (cudaGetDeviceCount: " + tunescope::gemm::cudaText(err) + ")"
                                   : std::string("no CUDA device (cudaGetDeviceCount found 0)"));
        return nullptr;
    }
    int index = 0;
    if (const char* env = std::getenv("TUNESCOPE_CUDA_DEVICE"); env && *env) index = std::atoi(env);
    if (index < 0 || index >= count) {
        explain("TUNESCOPE_CUDA_DEVICE=" + std::to_string(index) + " but there are " + std::to_string(count) + " CUDA devices");
        return nullptr;
    }
    try {
        return new tunescope::gemm::CublasLtBackend(index);
    } catch (const std::exception& e) {
        explain(e.what());
        return nullptr;
    }
}
