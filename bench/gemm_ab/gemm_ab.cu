// gemm_ab: paired A/B of two cuBLASLt algorithms on one GEMM, outside the explorer (issue 12's protocol).
//
//   gemm_ab --report explore.json [--rounds 10] [--idle-rounds 10] [--from-config] [--json out.json]
//   gemm_ab --m M --n N --k K [--dtype bf16|fp8] [--layout TN|NN|NT] --a-hex HEX --b-hex HEX [--workspace BYTES]
//
// A = the heuristic top (the report's baseline), B = the report's selection, or its best confirmed alternative when
// it selected nothing. Both run on the same inputs (random, never zero, rotating sets at least 4x the L2 so every
// launch reads cold inputs). Sustained: `--rounds` rounds, in each one burst of ~0.5 s back to back per config,
// order rotated every round; each burst's per-launch median, and the paired per-round ratio B/A. After idle:
// `--idle-rounds` rounds of 1.5 s idle then a 5-launch burst per config (boost clocks). Prints, per protocol, the
// gain of B over A (100 x (1 - geometric mean of B/A)), its 95% interval (Student t over the rounds' log ratios)
// and the rounds in which B was faster. The algorithms are rebuilt from the report's raw 64-byte
// cublasLtMatmulAlgo_t (default; its decoded config attributes must equal the report's) or, with --from-config,
// by cublasLtMatmulAlgoInit + cublasLtMatmulAlgoConfigSetAttribute from the report's config fields.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

using Json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error(why); }

void cuda(cudaError_t err, const char* what) {
    if (err != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorName(err) + " " + cudaGetErrorString(err));
}
void lt(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        const char* name = cublasLtGetStatusName(status);
        fail(std::string(what) + ": " + (name ? name : std::to_string(int(status))));
    }
}

// --- inputs ----------------------------------------------------------------------------------------------------
__device__ std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}
// Magnitude in [1/16, 1], random sign: never zero.
__device__ float value(std::uint64_t seed, std::uint64_t i) {
    const std::uint64_t h = mix(seed * 0x9e3779b97f4a7c15ULL + i);
    const float magnitude = 0.0625f + 0.9375f * float(h >> 40) / float(1ull << 24);
    return (h & 1) ? -magnitude : magnitude;
}
__global__ void fillBf16(__nv_bfloat16* p, std::uint64_t n, std::uint64_t seed) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
        p[i] = __float2bfloat16(value(seed, i));
}
__global__ void fillFp8(__nv_fp8_e4m3* p, std::uint64_t n, std::uint64_t seed) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
        p[i] = __nv_fp8_e4m3(value(seed, i));
}
__global__ void countDifferent(const std::uint16_t* a, const std::uint16_t* b, std::uint64_t n, unsigned long long* out) {
    unsigned long long local = 0;
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
        local += a[i] != b[i];
    if (local) atomicAdd(out, local);
}

// --- statistics (written here on purpose, not shared with the explorer) ----------------------------------------
double t975(int df) {
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    return df <= 30 ? table[std::max(df, 1) - 1] : 1.96 + 0.082 * 30.0 / df;
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
struct Gain {
    double gain = 0, low = 0, high = 0;
    int faster = 0, rounds = 0;
};
Gain paired(const std::vector<double>& a, const std::vector<double>& b) {
    Gain g;
    std::vector<double> x;
    for (std::size_t i = 0; i < a.size(); ++i) {
        x.push_back(std::log(b[i] / a[i]));
        g.faster += b[i] < a[i];
    }
    g.rounds = int(x.size());
    double mean = 0, ss = 0;
    for (double v : x) mean += v / x.size();
    for (double v : x) ss += (v - mean) * (v - mean);
    const double half = x.size() > 1 ? t975(int(x.size()) - 1) * std::sqrt(ss / (x.size() - 1) / x.size()) : 0.0;
    g.gain = 100 * (1 - std::exp(mean));
    g.low = 100 * (1 - std::exp(mean + half));
    g.high = 100 * (1 - std::exp(mean - half));
    return g;
}

// --- the GEMM --------------------------------------------------------------------------------------------------
struct Problem {
    std::int64_t m = 0, n = 0, k = 0;  // row-major Y[M,N] = X[M,K] @ W[N,K]^T (the explorer's terms)
    std::string dtype = "bf16", layout = "TN";
};

struct AlgoFields {
    bool known = false;
    std::int32_t id = 0, splitK = 1;
    std::uint32_t tile = 0, stages = 0, reduction = 0, custom = 0, swizzle = 0;
    std::uint16_t inner = 0, cluster = 0;
};

std::vector<std::uint8_t> fromHex(const std::string& hex) {
    if (hex.size() != 128) fail("raw algo hex must be 128 hex digits, got " + std::to_string(hex.size()));
    std::vector<std::uint8_t> bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2) bytes.push_back(std::uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
    return bytes;
}

AlgoFields fieldsFromJson(const Json& j) {
    AlgoFields f;
    f.known = true;
    f.id = j.at("algorithm_id").get<std::int32_t>();
    f.tile = j.at("tile_id").get<std::uint32_t>();
    f.stages = j.at("stages_id").get<std::uint32_t>();
    f.splitK = j.at("split_k").get<std::int32_t>();
    f.reduction = j.at("reduction_scheme").get<std::uint32_t>();
    f.custom = j.at("custom_option").get<std::uint32_t>();
    f.swizzle = j.at("cta_swizzle").get<std::uint32_t>();
    f.inner = j.at("inner_shape").get<std::uint16_t>();
    f.cluster = j.at("cluster_shape").get<std::uint16_t>();
    return f;
}

template <typename T>
T getAttr(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
    T v{};
    std::size_t written = 0;
    lt(cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &written), "cublasLtMatmulAlgoConfigGetAttribute");
    return v;
}
template <typename T>
void setAttr(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, T v) {
    lt(cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &v, sizeof v), "cublasLtMatmulAlgoConfigSetAttribute");
}

AlgoFields decode(const cublasLtMatmulAlgo_t& a) {
    AlgoFields f;
    f.known = true;
    f.id = getAttr<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_ID);
    f.tile = getAttr<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID);
    f.stages = getAttr<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID);
    f.splitK = getAttr<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
    f.reduction = getAttr<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
    f.custom = getAttr<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
    f.swizzle = getAttr<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
    f.inner = getAttr<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
    f.cluster = getAttr<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
    return f;
}

std::string describe(const AlgoFields& f) {
    char text[256];
    std::snprintf(text, sizeof text, "algo %d tile %u stages %u splitk %d red %u custom %u swizzle %u inner %u cluster %u",
                  f.id, f.tile, f.stages, f.splitK, f.reduction, f.custom, f.swizzle, unsigned(f.inner), unsigned(f.cluster));
    return text;
}

bool sameFields(const AlgoFields& a, const AlgoFields& b) {
    return a.id == b.id && a.tile == b.tile && a.stages == b.stages && a.splitK == b.splitK &&
           a.reduction == b.reduction && a.custom == b.custom && a.swizzle == b.swizzle && a.inner == b.inner &&
           a.cluster == b.cluster;
}

class Gemm {
public:
    Gemm(const Problem& p, std::uint64_t workspaceBytes) : p_(p), workspaceBytes_(workspaceBytes) {
        const bool fp8 = p.dtype == "fp8" || p.dtype == "fp8e4m3";
        if (!fp8 && p.dtype != "bf16") fail("gemm_ab supports bf16 and fp8 (e4m3), not " + p.dtype);
        abType_ = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
        const std::size_t elem = fp8 ? 1 : 2;
        lt(cublasLtCreate(&handle_), "cublasLtCreate");
        cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        int device = 0, l2 = 0;
        cuda(cudaGetDevice(&device), "cudaGetDevice");
        cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
        const std::uint64_t setBytes = std::uint64_t(p.m * p.k + p.n * p.k) * elem;
        const int sets = int(std::clamp<std::uint64_t>((4ull * std::uint64_t(l2) + setBytes - 1) / setBytes, 1, 64));
        for (int s = 0; s < sets; ++s) {
            void *a = nullptr, *b = nullptr;
            cuda(cudaMalloc(&a, std::size_t(p.n * p.k) * elem), "cudaMalloc A");
            cuda(cudaMalloc(&b, std::size_t(p.m * p.k) * elem), "cudaMalloc B");
            fill(a, std::uint64_t(p.n * p.k), fp8, 2 * s + 1);
            fill(b, std::uint64_t(p.m * p.k), fp8, 2 * s + 2);
            a_.push_back(a);
            b_.push_back(b);
        }
        cuda(cudaMalloc(&d_, std::size_t(p.m * p.n) * 2), "cudaMalloc D");
        cuda(cudaMalloc(&keep_, std::size_t(p.m * p.n) * 2), "cudaMalloc D copy");
        if (workspaceBytes_) cuda(cudaMalloc(&workspace_, workspaceBytes_), "cudaMalloc workspace");
        cuda(cudaMalloc(&scale_, sizeof(float)), "cudaMalloc scale");
        const float one = 1.0f;
        cuda(cudaMemcpy(scale_, &one, sizeof one, cudaMemcpyHostToDevice), "scale");
        // The explorer's descriptors: cuBLASLt D[N x M] = op(A)[N x K] op(B)[K x M], A = W, B = X.
        lt(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t ta = p.layout == "TN" ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t tb = p.layout == "NT" ? CUBLAS_OP_T : CUBLAS_OP_N;
        if (p.layout != "TN" && p.layout != "NN" && p.layout != "NT") fail("unknown layout " + p.layout);
        lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
        lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
        if (fp8) {
            const void* s = scale_;
            lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s, sizeof s), "A scale");
            lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s, sizeof s), "B scale");
        }
        const std::uint64_t M = p.m, N = p.n, K = p.k;
        if (p.layout == "TN") lt(cublasLtMatrixLayoutCreate(&aDesc_, abType_, K, N, K), "layout A");
        else lt(cublasLtMatrixLayoutCreate(&aDesc_, abType_, N, K, N), "layout A");
        if (p.layout == "NT") lt(cublasLtMatrixLayoutCreate(&bDesc_, abType_, M, K, M), "layout B");
        else lt(cublasLtMatrixLayoutCreate(&bDesc_, abType_, K, M, K), "layout B");
        lt(cublasLtMatrixLayoutCreate(&dDesc_, CUDA_R_16BF, N, M, N), "layout D");
        cuda(cudaDeviceSynchronize(), "filling inputs");
    }

    cublasLtMatmulAlgo_t fromConfig(const AlgoFields& f) {
        cublasLtMatmulAlgo_t algo;
        lt(cublasLtMatmulAlgoInit(handle_, CUBLAS_COMPUTE_32F, CUDA_R_32F, abType_, abType_, CUDA_R_16BF, CUDA_R_16BF,
                                  f.id, &algo),
           "cublasLtMatmulAlgoInit");
        setAttr(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, f.tile);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, f.stages);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, f.splitK);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, f.reduction);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, f.custom);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, f.swizzle);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, f.inner);
        setAttr(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, f.cluster);
        return algo;
    }

    void check(const cublasLtMatmulAlgo_t& algo, const char* who) {
        cublasLtMatmulHeuristicResult_t result{};
        lt(cublasLtMatmulAlgoCheck(handle_, op_, aDesc_, bDesc_, dDesc_, dDesc_, &algo, &result),
           (std::string("cublasLtMatmulAlgoCheck of ") + who).c_str());
        if (result.workspaceSize > workspaceBytes_)
            fail(std::string(who) + " needs " + std::to_string(result.workspaceSize) + " bytes of workspace, " +
                 std::to_string(workspaceBytes_) + " given");
    }

    void launch(const cublasLtMatmulAlgo_t& algo) {
        const float alpha = 1.0f, beta = 0.0f;
        set_ = (set_ + 1) % int(a_.size());
        lt(cublasLtMatmul(handle_, op_, &alpha, a_[set_], aDesc_, b_[set_], bDesc_, &beta, d_, dDesc_, d_, dDesc_, &algo,
                          workspace_, workspaceBytes_, stream_),
           "cublasLtMatmul");
    }

    // `launches` back to back, events every `group` launches; the per-launch median of the groups.
    double burstMedianMs(const cublasLtMatmulAlgo_t& algo, int launches) {
        const int groups = std::min(launches, 128);
        while (int(events_.size()) < groups + 1) {
            cudaEvent_t e;
            cuda(cudaEventCreate(&e), "cudaEventCreate");
            events_.push_back(e);
        }
        const int base = launches / groups, extra = launches % groups;
        cuda(cudaEventRecord(events_[0], stream_), "cudaEventRecord");
        for (int g = 0; g < groups; ++g) {
            for (int l = 0; l < base + (g < extra); ++l) launch(algo);
            cuda(cudaEventRecord(events_[g + 1], stream_), "cudaEventRecord");
        }
        cuda(cudaStreamSynchronize(stream_), "the burst");
        std::vector<double> perLaunch;
        for (int g = 0; g < groups; ++g) {
            float ms = 0;
            cuda(cudaEventElapsedTime(&ms, events_[g], events_[g + 1]), "cudaEventElapsedTime");
            perLaunch.push_back(ms / double(base + (g < extra)));
        }
        return median(perLaunch);
    }

    // Launches A and B once each on the same inputs; how many output elements differ.
    unsigned long long differing(const cublasLtMatmulAlgo_t& a, const cublasLtMatmulAlgo_t& b) {
        set_ = -1;
        launch(a);
        cuda(cudaMemcpyAsync(keep_, d_, std::size_t(p_.m * p_.n) * 2, cudaMemcpyDeviceToDevice, stream_), "copy D");
        set_ = -1;
        launch(b);
        unsigned long long* count = nullptr;
        cuda(cudaMallocManaged(&count, sizeof *count), "cudaMallocManaged");
        *count = 0;
        countDifferent<<<1024, 256, 0, stream_>>>(static_cast<std::uint16_t*>(d_), static_cast<std::uint16_t*>(keep_),
                                                   std::uint64_t(p_.m * p_.n), count);
        cuda(cudaStreamSynchronize(stream_), "comparing outputs");
        const unsigned long long n = *count;
        cudaFree(count);
        return n;
    }

    void drain() { cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

private:
    void fill(void* p, std::uint64_t n, bool fp8, std::uint64_t seed) {
        if (fp8) fillFp8<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
        else fillBf16<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
        cuda(cudaGetLastError(), "fill kernel");
    }
    Problem p_;
    std::uint64_t workspaceBytes_ = 0;
    cublasLtHandle_t handle_ = nullptr;
    cudaStream_t stream_ = nullptr;
    cudaDataType_t abType_ = CUDA_R_16BF;
    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t aDesc_ = nullptr, bDesc_ = nullptr, dDesc_ = nullptr;
    std::vector<void*> a_, b_;
    void *d_ = nullptr, *keep_ = nullptr, *workspace_ = nullptr, *scale_ = nullptr;
    std::vector<cudaEvent_t> events_;
    int set_ = -1;
};

struct Args {
    std::string report, json, aHex, bHex;
    Problem problem;
    std::uint64_t workspace = 64ull << 20;
    int rounds = 10, idleRounds = 10, idleLaunches = 5;
    double burstSeconds = 0.5, idleSeconds = 1.5;
    bool fromConfig = false;
};

Args parse(int argc, char** argv) {
    Args a;
    auto next = [&](int& i) -> std::string {
        if (i + 1 >= argc) fail(std::string(argv[i]) + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--report") a.report = next(i);
        else if (s == "--json") a.json = next(i);
        else if (s == "--m") a.problem.m = std::stoll(next(i));
        else if (s == "--n") a.problem.n = std::stoll(next(i));
        else if (s == "--k") a.problem.k = std::stoll(next(i));
        else if (s == "--dtype") a.problem.dtype = next(i);
        else if (s == "--layout") a.problem.layout = next(i);
        else if (s == "--a-hex") a.aHex = next(i);
        else if (s == "--b-hex") a.bHex = next(i);
        else if (s == "--workspace") a.workspace = std::stoull(next(i));
        else if (s == "--rounds") a.rounds = std::stoi(next(i));
        else if (s == "--idle-rounds") a.idleRounds = std::stoi(next(i));
        else if (s == "--burst-seconds") a.burstSeconds = std::stod(next(i));
        else if (s == "--idle-seconds") a.idleSeconds = std::stod(next(i));
        else if (s == "--idle-launches") a.idleLaunches = std::stoi(next(i));
        else if (s == "--from-config") a.fromConfig = true;
        else fail("unknown argument " + s + " (see the comment at the top of bench/gemm_ab/gemm_ab.cu)");
    }
    if (a.rounds < 2 || a.idleRounds < 0) fail("--rounds must be at least 2, --idle-rounds at least 0");
    return a;
}

void printGain(const char* what, const Gain& g, double aMs, double bMs) {
    std::printf("%-26s A %.4f ms  B %.4f ms  gain %+.2f%% [%+.2f, %+.2f]  B faster in %d of %d rounds\n", what, aMs, bMs,
                g.gain, g.low, g.high, g.faster, g.rounds);
}

Json gainJson(const Gain& g, const std::vector<double>& a, const std::vector<double>& b) {
    return {{"gain_percent", g.gain}, {"interval_95_percent", {g.low, g.high}}, {"rounds_faster", g.faster},
            {"rounds", g.rounds}, {"a_ms_per_round", a}, {"b_ms_per_round", b}};
}

int run(int argc, char** argv) {
    Args args = parse(argc, argv);
    AlgoFields aFields, bFields;
    std::string bWhat = "explicit";
    Json reportSelected = nullptr;
    if (!args.report.empty()) {
        std::ifstream in(args.report);
        if (!in) fail("cannot read " + args.report);
        const Json r = Json::parse(in);
        const Json& g = r.at("workload").at("gemm");
        args.problem.m = g.at("m").get<std::int64_t>();
        args.problem.n = g.at("n").get<std::int64_t>();
        args.problem.k = g.at("k").get<std::int64_t>();
        args.problem.dtype = g.at("dtype").get<std::string>();
        args.problem.layout = g.at("layout").get<std::string>();
        const Json& base = r.at("baseline_kernel_metadata");
        args.aHex = base.at("raw_algo_hex").get<std::string>();
        args.workspace = base.at("workspace_bytes").get<std::uint64_t>();
        aFields = fieldsFromJson(base.at("config"));
        const Json& sel = r.at("selected");
        if (sel.is_object() && sel.value("left_baseline", false)) {
            args.bHex = sel.at("raw_algo_hex").get<std::string>();
            bFields = fieldsFromJson(sel);
            bWhat = "selection";
            reportSelected = {{"improvement_percent", sel.at("improvement_percent")},
                              {"interval", sel.value("improvement_interval_95_percent", Json(nullptr))}};
        } else if (r.contains("confirm") && r["confirm"].contains("best_alternative") &&
                   r["confirm"]["best_alternative"].is_object()) {
            const Json& alt = r["confirm"]["best_alternative"];
            args.bHex = alt.at("raw_algo_hex").get<std::string>();
            bFields = fieldsFromJson(alt);
            bWhat = "best alternative (nothing selected)";
            if (alt.contains("sustained") && alt["sustained"].is_object())
                reportSelected = {{"improvement_percent", alt["sustained"].at("gain_percent")},
                                  {"interval", alt["sustained"].at("interval_95_percent")}};
        } else {
            fail(args.report + ": the report has neither a selection that left the heuristic top nor /confirm/best_alternative");
        }
    }
    if (args.problem.m <= 0 || args.problem.n <= 0 || args.problem.k <= 0 || args.aHex.empty() || args.bHex.empty())
        fail("give --report, or --m --n --k --a-hex --b-hex");

    Gemm gemm(args.problem, args.workspace);
    cublasLtMatmulAlgo_t algo[2];
    const std::string hex[2] = {args.aHex, args.bHex};
    const AlgoFields fields[2] = {aFields, bFields};
    const char* names[2] = {"A (heuristic top)", "B"};
    for (int i = 0; i < 2; ++i) {
        if (args.fromConfig) {
            if (!fields[i].known) fail("--from-config needs a report");
            algo[i] = gemm.fromConfig(fields[i]);
        } else {
            const std::vector<std::uint8_t> bytes = fromHex(hex[i]);
            std::memcpy(&algo[i], bytes.data(), sizeof algo[i]);
        }
        const AlgoFields decoded = decode(algo[i]);
        if (fields[i].known && !sameFields(decoded, fields[i]))
            fail(std::string(names[i]) + ": the algorithm decodes to " + describe(decoded) + ", the report says " +
                 describe(fields[i]));
        gemm.check(algo[i], names[i]);
        std::printf("%s: %s\n", names[i], describe(decoded).c_str());
    }
    std::printf("B is the report's %s\n", bWhat.c_str());
    const unsigned long long diff = gemm.differing(algo[0], algo[1]);
    std::printf("outputs: %llu elements differ\n", diff);

    // Per-launch estimate, then the card's sustained state (1 s of A).
    gemm.burstMedianMs(algo[0], 3);
    const double estA = gemm.burstMedianMs(algo[0], 10), estB = gemm.burstMedianMs(algo[1], 10);
    const int launchesA = std::max(3, int(std::ceil(1000.0 * args.burstSeconds / estA)));
    const int launchesB = std::max(3, int(std::ceil(1000.0 * args.burstSeconds / estB)));
    gemm.burstMedianMs(algo[0], std::max(3, int(1000.0 / estA)));

    std::vector<double> sa, sb;
    for (int r = 0; r < args.rounds; ++r) {
        const bool aFirst = r % 2 == 0;  // order rotated every round
        for (int k = 0; k < 2; ++k) {
            const bool isA = (k == 0) == aFirst;
            const double ms = gemm.burstMedianMs(algo[isA ? 0 : 1], isA ? launchesA : launchesB);
            (isA ? sa : sb).push_back(ms);
        }
    }
    const Gain sustained = paired(sa, sb);
    printGain("sustained (0.5 s bursts)", sustained, median(sa), median(sb));

    std::vector<double> ia, ib;
    for (int r = 0; r < args.idleRounds; ++r) {
        const bool aFirst = r % 2 == 0;
        for (int k = 0; k < 2; ++k) {
            const bool isA = (k == 0) == aFirst;
            gemm.drain();
            std::this_thread::sleep_for(std::chrono::duration<double>(args.idleSeconds));
            (isA ? ia : ib).push_back(gemm.burstMedianMs(algo[isA ? 0 : 1], args.idleLaunches));
        }
    }
    Gain idle;
    if (args.idleRounds >= 2) {
        idle = paired(ia, ib);
        char label[64];
        std::snprintf(label, sizeof label, "after %.1f s idle (%d)", args.idleSeconds, args.idleLaunches);
        printGain(label, idle, median(ia), median(ib));
    }
    if (!reportSelected.is_null()) std::printf("report: %s\n", reportSelected.dump().c_str());
    if (!args.json.empty()) {
        Json out = {{"report", args.report},
                    {"b_is", bWhat},
                    {"a", describe(decode(algo[0]))},
                    {"b", describe(decode(algo[1]))},
                    {"from_config", args.fromConfig},
                    {"differing_output_elements", diff},
                    {"sustained", gainJson(sustained, sa, sb)},
                    {"after_idle", args.idleRounds >= 2 ? gainJson(idle, ia, ib) : Json(nullptr)},
                    {"report_said", reportSelected},
                    {"settings", {{"rounds", args.rounds}, {"burst_seconds", args.burstSeconds},
                                  {"idle_rounds", args.idleRounds}, {"idle_seconds", args.idleSeconds},
                                  {"idle_launches", args.idleLaunches}}}};
        std::ofstream(args.json) << out.dump(1) << "\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemm_ab: %s\n", e.what());
        return 1;
    }
}
