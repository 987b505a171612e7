// policy_gemm: loads a cuBLASLt policy (tunescope-cli export-cublaslt) with include/tunescope/cublaslt_policy.hpp
// and runs the GEMM of each entry the way a user's program would (docs/cublaslt-policy.md, "Example program"):
//
//   policy_gemm POLICY [--entry N] [--rounds 10] [--block-seconds 0.5] [--idle-rounds 0] [--expect policy|heuristic]
//               [--json out.json]
//
// Per cuBLASLt entry: the descriptors the explorer used (its inputs too: the explorer's generator and seed, rotating
// sets at least 4x the L2), the loader's choice for them (the policy's algorithm, or the heuristic's first choice
// with the reason), one launch hashed like the explorer (SHA-256 of the logical block of D) and compared with the
// output hash the policy records, whether the chosen cublasLtMatmulAlgo_t is byte-identical to the heuristic's first
// choice, then a paired A/B of the chosen algorithm against the heuristic's first choice with an A/A control (the
// heuristic's again): after 1 s of it, `--rounds` rounds of one ~block-seconds block per arm, back to back, the
// three arms in every order and its reverse, each block's per-launch median; the gain is 100 x (1 - geometric mean
// of B/A) with a Student t 95% interval over the rounds, stated beside the A/A's, and "tie" when B's interval does
// not clear the A/A spread.
// `--idle-rounds`: rounds of 1.5 s idle then a 5-launch burst per algorithm (boost clocks).
// Exit: 0 done (and every policy algorithm bitwise equal where the policy has a hash), 1 a hash differs or
// --expect was not met, 2 usage or unreadable policy, 77 no CUDA device.
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm_kernels.hpp"  // the explorer's input generator: the same inputs give the same output hash
#include "tunescope/cublaslt_policy.hpp"

namespace tcp = tunescope::cublaslt_policy;
namespace kern = tunescope::cublaslt_kernels;
using Json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error(why); }
void cuda(cudaError_t err, const char* what) {
    if (err != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorName(err) + " " + cudaGetErrorString(err));
}
void lt(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) fail(std::string(what) + ": " + tcp::detail::statusName(int(s)));
}

struct Options {
    std::string policy, json;
    int entry = -1, rounds = 10, idleRounds = 0;
    double blockSeconds = 0.5;
    std::string expect;  // "policy" | "heuristic" | ""
};

Options parseArgs(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value");
            return argv[++i];
        };
        if (a == "--entry") o.entry = std::stoi(next());
        else if (a == "--rounds") o.rounds = std::stoi(next());
        else if (a == "--block-seconds") o.blockSeconds = std::stod(next());
        else if (a == "--idle-rounds") o.idleRounds = std::stoi(next());
        else if (a == "--expect") o.expect = next();
        else if (a == "--json") o.json = next();
        else if (!a.empty() && a[0] != '-' && o.policy.empty()) o.policy = a;
        else fail("unknown argument " + a);
    }
    if (o.policy.empty()) fail("usage: policy_gemm POLICY [--entry N] [--rounds 10] [--block-seconds 0.5] "
                               "[--idle-rounds 0] [--expect policy|heuristic] [--json out.json]");
    if (o.rounds < 2 || o.blockSeconds <= 0) fail("--rounds must be at least 2 and --block-seconds positive");
    if (!o.expect.empty() && o.expect != "policy" && o.expect != "heuristic") fail("--expect policy|heuristic");
    return o;
}

struct DeviceBuffer {
    void* p = nullptr;
    explicit DeviceBuffer(std::size_t bytes) { cuda(cudaMalloc(&p, std::max<std::size_t>(bytes, 256)), "cudaMalloc"); }
    ~DeviceBuffer() { cudaFree(p); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

kern::ElementType elementOf(int cudaType) {
    if (cudaType == CUDA_R_16BF) return kern::ElementType::Bf16;
    if (cudaType == CUDA_R_8F_E4M3) return kern::ElementType::Fp8E4M3;
    if (cudaType == CUDA_R_4F_E2M1) return kern::ElementType::Fp4E2M1;
    fail("this example makes inputs for BF16, FP8 E4M3 and NVFP4 only (type " + std::to_string(cudaType) + ")");
}
std::uint64_t elementBytes(int cudaType, std::uint64_t count) {
    return cudaType == CUDA_R_16BF ? count * 2 : cudaType == CUDA_R_8F_E4M3 ? count : (count + 1) / 2;
}
// VEC16 UE4M3 scale tensor, as the explorer sizes it.
std::uint64_t blockScaleBytes(std::uint64_t inner, std::uint64_t outer) {
    return (inner + 63) / 64 * 64 / 16 * ((outer + 127) / 128 * 128);
}

// One entry's GEMM: the explorer's descriptors and inputs (set 0 from the explorer's seed, copies after it).
class Gemm {
public:
    Gemm(cublasLtHandle_t handle, const tcp::Matmul& mm, std::uint64_t seed) : handle_(handle), mm_(mm) {
        if (tcp::detail::createDescriptors(mm, desc_) != 0) fail("could not make the descriptors");
        int device = 0, l2 = 0;
        cuda(cudaGetDevice(&device), "cudaGetDevice");
        cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
        const std::uint64_t aCount = std::uint64_t(mm.m) * std::uint64_t(mm.k), bCount = std::uint64_t(mm.n) * std::uint64_t(mm.k);
        const bool fp4 = mm.a_type == CUDA_R_4F_E2M1;
        const std::uint64_t setBytes = elementBytes(mm.a_type, aCount) + elementBytes(mm.b_type, bCount);
        const int sets = int(std::min<std::uint64_t>(16, std::max<std::uint64_t>(1, (4ull * std::uint64_t(l2) + setBytes - 1) / setBytes)));
        cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        for (int i = 0; i < sets; ++i) {
            a_.push_back(std::make_unique<DeviceBuffer>(elementBytes(mm.a_type, aCount)));
            b_.push_back(std::make_unique<DeviceBuffer>(elementBytes(mm.b_type, bCount)));
            if (fp4) {
                aScale_.push_back(std::make_unique<DeviceBuffer>(blockScaleBytes(mm.k, mm.m)));
                bScale_.push_back(std::make_unique<DeviceBuffer>(blockScaleBytes(mm.k, mm.n)));
                cuda(kern::fillBytes(aScale_.back()->p, 0x38, blockScaleBytes(mm.k, mm.m), stream_), "A scales");
                cuda(kern::fillBytes(bScale_.back()->p, 0x38, blockScaleBytes(mm.k, mm.n), stream_), "B scales");
            }
            if (i == 0) {
                cuda(kern::fillRandom(a_[0]->p, elementOf(mm.a_type), aCount, seed * 2 + 1, stream_), "filling A");
                cuda(kern::fillRandom(b_[0]->p, elementOf(mm.b_type), bCount, seed * 2 + 2, stream_), "filling B");
            } else {
                cuda(cudaMemcpyAsync(a_[i]->p, a_[0]->p, elementBytes(mm.a_type, aCount), cudaMemcpyDeviceToDevice, stream_), "copy A");
                cuda(cudaMemcpyAsync(b_[i]->p, b_[0]->p, elementBytes(mm.b_type, bCount), cudaMemcpyDeviceToDevice, stream_), "copy B");
            }
        }
        d_ = std::make_unique<DeviceBuffer>(std::size_t(mm.ldd) * std::size_t(mm.n) * 2);
        workspace_ = std::make_unique<DeviceBuffer>(mm.workspace_bytes);
        scale_ = std::make_unique<DeviceBuffer>(sizeof(float));
        const float one = 1.0f;
        cuda(cudaMemcpy(scale_->p, &one, sizeof one, cudaMemcpyHostToDevice), "scale");
        if (mm.a_type == CUDA_R_8F_E4M3) {  // per-tensor scales of 1.0 in device memory, as the explorer sets them
            const void* s = scale_->p;
            lt(cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t(desc_.op), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s, sizeof s), "A scale");
            lt(cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t(desc_.op), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s, sizeof s), "B scale");
        }
        cuda(cudaStreamSynchronize(stream_), "preparing inputs");
        cuda(cudaEventCreate(&start_), "cudaEventCreate");
        cuda(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    ~Gemm() {
        tcp::detail::destroyDescriptors(desc_);
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
        cudaStreamDestroy(stream_);
    }
    const tcp::Descriptors& descriptors() const { return desc_; }

    void launch(const tcp::AlgoData& algo) {
        const std::size_t s = std::size_t(set_++) % a_.size();
        const float alpha = 1.0f, beta = 0.0f;
        if (!aScale_.empty()) {
            void* as = aScale_[s]->p;
            void* bs = bScale_[s]->p;
            lt(cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t(desc_.op), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as), "A scales");
            lt(cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t(desc_.op), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs), "B scales");
        }
        const cublasLtMatmulAlgo_t a = tcp::detail::lt(algo);
        lt(cublasLtMatmul(handle_, cublasLtMatmulDesc_t(desc_.op), &alpha, a_[s]->p, cublasLtMatrixLayout_t(desc_.a), b_[s]->p,
                          cublasLtMatrixLayout_t(desc_.b), &beta, d_->p, cublasLtMatrixLayout_t(desc_.c), d_->p,
                          cublasLtMatrixLayout_t(desc_.d), &a,
                          mm_.workspace_bytes ? workspace_->p : nullptr, mm_.workspace_bytes, stream_),
           "cublasLtMatmul");
    }

    // SHA-256 of the logical rows x cols block of D (BF16, column-major ld), column by column: the explorer's hash.
    std::string outputSha256(const tcp::AlgoData& algo, std::int64_t rows, std::int64_t cols) {
        cuda(cudaMemsetAsync(d_->p, 0xff, std::size_t(mm_.ldd) * std::size_t(mm_.n) * 2, stream_), "poisoning D");
        launch(algo);
        std::vector<unsigned char> host(std::size_t(rows) * std::size_t(cols) * 2);
        cuda(cudaMemcpy2DAsync(host.data(), std::size_t(rows) * 2, d_->p, std::size_t(mm_.ldd) * 2, std::size_t(rows) * 2,
                               std::size_t(cols), cudaMemcpyDeviceToHost, stream_), "copying D");
        cuda(cudaStreamSynchronize(stream_), "the hashed launch");
        unsigned char digest[32];
        unsigned int length = 0;
        EVP_Digest(host.data(), host.size(), digest, &length, EVP_sha256(), nullptr);
        char hex[65];
        for (int i = 0; i < 32; ++i) std::snprintf(hex + 2 * i, 3, "%02x", digest[i]);
        return hex;
    }

    // Per-launch median of a block: `launches` timed back to back (events per launch), after ~10% untimed.
    double blockMs(const tcp::AlgoData& algo, int launches, int warmups) {
        for (int i = 0; i < warmups; ++i) launch(algo);
        std::vector<cudaEvent_t> events(std::size_t(launches) + 1);
        for (auto& e : events) cuda(cudaEventCreate(&e), "cudaEventCreate");
        cuda(cudaEventRecord(events[0], stream_), "record");
        for (int i = 0; i < launches; ++i) {
            launch(algo);
            cuda(cudaEventRecord(events[std::size_t(i) + 1], stream_), "record");
        }
        cuda(cudaStreamSynchronize(stream_), "a timed block");
        std::vector<double> ms;
        for (int i = 0; i < launches; ++i) {
            float t = 0;
            cuda(cudaEventElapsedTime(&t, events[std::size_t(i)], events[std::size_t(i) + 1]), "elapsed");
            ms.push_back(t);
        }
        for (auto& e : events) cudaEventDestroy(e);
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    }

private:
    cublasLtHandle_t handle_;
    tcp::Matmul mm_;
    tcp::Descriptors desc_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
    std::vector<std::unique_ptr<DeviceBuffer>> a_, b_, aScale_, bScale_;
    std::unique_ptr<DeviceBuffer> d_, workspace_, scale_;
    std::size_t set_ = 0;
};

struct Gain {
    double gain = 0, low = 0, high = 0;
    int faster = 0, rounds = 0;
};
double t975(int df) {
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
    return df <= 20 ? table[std::max(df, 1) - 1] : 1.96 + 2.4 / df;
}
Gain paired(const std::vector<double>& a, const std::vector<double>& b) {
    Gain g;
    std::vector<double> x;
    for (std::size_t i = 0; i < a.size(); ++i) x.push_back(std::log(b[i] / a[i])), g.faster += b[i] < a[i];
    g.rounds = int(x.size());
    double mean = 0, ss = 0;
    for (double v : x) mean += v / double(x.size());
    for (double v : x) ss += (v - mean) * (v - mean);
    const double half = x.size() > 1 ? t975(int(x.size()) - 1) * std::sqrt(ss / double(x.size() - 1) / double(x.size())) : 0;
    g.gain = 100 * (1 - std::exp(mean));
    g.low = 100 * (1 - std::exp(mean + half));
    g.high = 100 * (1 - std::exp(mean - half));
    return g;
}
Json gainJson(const Gain& g) {
    return {{"gain_percent", g.gain}, {"interval_95_percent", {g.low, g.high}}, {"rounds", g.rounds}, {"rounds_faster", g.faster}};
}

// The chosen algorithm (B) against the heuristic's first choice (A), sustained and after idle, with an A/A control:
// a third arm that is A again (A'), timed in the same rounds. The sustained rounds come after 1 s of A back to back
// (the card's steady power state) and run the three arms in every order, each order followed by its reverse, so a
// linear drift over a pair of rounds cancels for every arm. B vs A is stated with the A'/A interval beside it, and
// is a "tie" when B's interval does not clear the A/A spread (the larger end of the A/A interval, either side):
// H100 run 14 read the sustained A/B 1-3% apart where A and B were the same algorithm.
Json pairedAb(Gemm& gemm, const tcp::AlgoData& a, const tcp::AlgoData& b, const Options& o) {
    const double estimate = std::max(1e-3, 0.5 * (gemm.blockMs(a, 3, 2) + gemm.blockMs(b, 3, 2)));
    const int launches = std::clamp(int(o.blockSeconds * 1000.0 / estimate), 3, 4096);
    const int warmups = std::max(2, launches / 10);
    gemm.blockMs(a, std::clamp(int(1000.0 / estimate), 3, 100000), 0);  // preheat: 1 s of A
    const tcp::AlgoData again = a;  // A', a copy of A's bytes
    const tcp::AlgoData* arms[3] = {&a, &b, &again};
    static const int orders[6][3] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};
    std::vector<double> ms[3];
    for (int r = 0; r < o.rounds; ++r) {
        double round[3] = {0, 0, 0};
        for (int arm : orders[r % 6]) round[arm] = gemm.blockMs(*arms[arm], launches, warmups);
        for (int arm = 0; arm < 3; ++arm) ms[arm].push_back(round[arm]);
    }
    const Gain ab = paired(ms[0], ms[1]), aa = paired(ms[0], ms[2]);
    const double spread = std::max(std::fabs(aa.low), std::fabs(aa.high));
    const char* verdict = ab.low > spread ? "faster" : ab.high < -spread ? "slower" : "tie";
    Json out = {{"launches_per_block", launches}, {"preheat_seconds", 1.0},     {"sustained", gainJson(ab)},
                {"aa_sustained", gainJson(aa)},   {"aa_spread_percent", spread}, {"verdict", verdict},
                {"a_ms", ms[0]},                  {"b_ms", ms[1]},               {"a2_ms", ms[2]}};
    if (o.idleRounds > 0) {
        std::vector<double> ai, bi;
        for (int r = 0; r < o.idleRounds; ++r) {
            const bool aFirst = r % 2 == 0;
            std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            const double first = gemm.blockMs(aFirst ? a : b, 5, 0);
            std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            const double second = gemm.blockMs(aFirst ? b : a, 5, 0);
            ai.push_back(aFirst ? first : second);
            bi.push_back(aFirst ? second : first);
        }
        out["after_idle"] = gainJson(paired(ai, bi));
    }
    return out;
}

// Whether two algorithms are the same bytes as cuBLASLt holds them (cublasLtMatmulAlgo_t).
bool sameAlgoBytes(const tcp::AlgoData& x, const tcp::AlgoData& y) {
    const cublasLtMatmulAlgo_t a = tcp::detail::lt(x), b = tcp::detail::lt(y);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::string words(const tcp::AlgoData& a) {
    std::string text;
    for (std::uint64_t w : a.data) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%s0x%016llx", text.empty() ? "" : ",", static_cast<unsigned long long>(w));
        text += buf;
    }
    return text;
}

}  // namespace

int runEntry(const tcp::Policy<Json>& policy, const Json& entryJson, int index, cublasLtHandle_t handle,
             const Options& o, Json& out);

int main(int argc, char** argv) {
    Options o;
    Json document;
    std::unique_ptr<tcp::Policy<Json>> policy;
    try {
        o = parseArgs(argc, argv);
        policy = std::make_unique<tcp::Policy<Json>>(tcp::Policy<Json>::fromFile(o.policy));
        document = Json::parse(std::ifstream(o.policy));
    } catch (const std::exception& e) {
        std::cerr << "policy_gemm: " << e.what() << '\n';
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::cerr << "policy_gemm: no CUDA device (" << cudaGetErrorString(cudaGetLastError()) << "): skipped\n";
        return 77;
    }
    cublasLtHandle_t handle = nullptr;
    if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        std::cerr << "policy_gemm: cublasLtCreate failed\n";
        return 77;
    }
    int worst = 0;
    Json results = Json::array();
    for (std::size_t i = 0; i < policy->entries().size(); ++i) {
        if (o.entry >= 0 && int(i) != o.entry) continue;
        Json result;
        try {
            worst = std::max(worst, runEntry(*policy, document["entries"][i], int(i), handle, o, result));
        } catch (const std::exception& e) {
            result["error"] = e.what();
            std::cout << "entry " << i << ": error: " << e.what() << '\n';
            worst = std::max(worst, 1);
        }
        results.push_back(result);
    }
    cublasLtDestroy(handle);
    if (!o.json.empty()) std::ofstream(o.json) << results.dump(2) << '\n';
    return worst;
}

int runEntry(const tcp::Policy<Json>& policy, const Json& entryJson, int index, cublasLtHandle_t handle,
             const Options& o, Json& out) {
    const tcp::Entry& e = policy.entries()[std::size_t(index)];
    out = {{"entry", index}, {"matmul", tcp::describe(e.matmul)}};
    std::cout << "entry " << index << ": " << tcp::describe(e.matmul) << '\n';
    if (e.library != "cublaslt" || !e.keyKnown) {
        out["skipped"] = "not a cuBLASLt entry this example can run";
        std::cout << "  skipped: not a cuBLASLt entry this example can run\n";
        return 0;
    }
    const Json& parity = entryJson.value("parity", Json());
    const std::uint64_t seed = parity.is_object() && parity.value("data_seed", Json()).is_number_integer()
                                   ? parity["data_seed"].get<std::uint64_t>() : 20261202;
    Gemm gemm(handle, e.matmul, seed);
    const tcp::Choice choice = policy.select(handle, e.matmul, &gemm.descriptors());
    out["source"] = tcp::toString(choice.source);
    out["reason"] = tcp::toString(choice.reason);
    out["detail"] = choice.detail;
    std::cout << "  loader: " << tcp::toString(choice.source) << " (" << tcp::toString(choice.reason) << "): " << choice.detail << '\n';
    if (!choice.ok()) {
        std::cout << "  no algorithm at all: not run\n";
        return o.expect.empty() ? 0 : 1;
    }
    int code = (!o.expect.empty() && o.expect != tcp::toString(choice.source)) ? 1 : 0;
    // The heuristic's first choice, for the A/B and to compare with the explorer's baseline.
    tcp::Choice first;
    if (tcp::detail::heuristicFirst(handle, gemm.descriptors(), e.matmul, first.algo, first.check) != 0)
        fail("cublasLtMatmulAlgoGetHeuristic gave no algorithm");
    const Json& hf = entryJson.value("heuristic_first", Json());
    if (hf.is_object() && hf.value("data_words", Json()).is_array()) {
        std::string recorded;
        for (const auto& w : hf["data_words"]) recorded += (recorded.empty() ? "" : ",") + w.get<std::string>();
        out["heuristic_first_is_the_explorers_baseline"] = recorded == words(first.algo);
        std::cout << "  heuristic first " << (recorded == words(first.algo) ? "is" : "is NOT") << " the explorer's baseline\n";
    }
    if (parity.is_object() && parity.value("logical_rows", Json()).is_number_integer() &&
        parity.value("logical_cols", Json()).is_number_integer()) {
        const std::string sha = gemm.outputSha256(choice.algo, parity["logical_rows"].get<std::int64_t>(),
                                                  parity["logical_cols"].get<std::int64_t>());
        out["output_sha256"] = sha;
        if (parity.value("output_sha256", Json()).is_string()) {
            const bool equal = sha == parity["output_sha256"].get<std::string>();
            out["bitwise_equal_to_explorer"] = equal;
            std::cout << "  output SHA-256 " << sha << (equal ? " equals" : " DIFFERS from") << " the explorer's\n";
            if (!equal && choice.source == tcp::Source::Policy) code = 1;
        }
    }
    const bool identical = sameAlgoBytes(first.algo, choice.algo);
    out["same_algorithm_bytes"] = identical;
    std::cout << "  chosen and heuristic-first cublasLtMatmulAlgo_t: " << (identical ? "identical" : "different")
              << " bytes\n";
    const Json ab = pairedAb(gemm, first.algo, choice.algo, o);
    out["ab"] = ab;
    const Json& g = entryJson.value("gain", Json());
    const double reported = g.is_object() && g.value("percent", Json()).is_number() ? g["percent"].get<double>() : 0.0;
    const double measured = ab["sustained"]["gain_percent"].get<double>();
    out["reported_gain_percent"] = reported;
    out["difference_pp"] = std::fabs(measured - reported);
    const Json& aa = ab["aa_sustained"];
    std::printf("  A/B %s vs heuristic first: %+.2f%% [%+.2f, %+.2f] sustained, faster in %d of %d; A/A (heuristic first "
                "vs itself) %+.2f%% [%+.2f, %+.2f]: %s; policy said %+.2f%%\n",
                tcp::toString(choice.source), measured, ab["sustained"]["interval_95_percent"][0].get<double>(),
                ab["sustained"]["interval_95_percent"][1].get<double>(), ab["sustained"]["rounds_faster"].get<int>(),
                ab["sustained"]["rounds"].get<int>(), aa["gain_percent"].get<double>(),
                aa["interval_95_percent"][0].get<double>(), aa["interval_95_percent"][1].get<double>(),
                ab["verdict"].get<std::string>().c_str(), reported);
    return code;
}
