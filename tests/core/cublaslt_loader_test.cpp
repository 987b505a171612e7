// The header-only cuBLASLt policy loader (include/tunescope/cublaslt_policy.hpp) against a scripted cuBLASLt: every
// fallback with its reason, on the committed policy fixture (tests/data/cublaslt-policy/policy.json). Plain C++
// without Qt, CUDA or the core, so it runs everywhere, GPU nodes included; it uses nothing but the header and
// nlohmann/json, as a user's program would.
#define TUNESCOPE_CUBLASLT_POLICY_NO_CUBLASLT 1
#include "tunescope/cublaslt_policy.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace tcp = tunescope::cublaslt_policy;
using Json = nlohmann::json;

namespace {

int failures = 0;
#define CHECK(condition)                                                                        \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            std::cerr << __FILE__ << ":" << __LINE__ << ": CHECK(" #condition ") failed\n";    \
            ++failures;                                                                         \
        }                                                                                       \
    } while (0)

std::string dataDir() {
    const char* dir = std::getenv("TUNESCOPE_TESTDATA");
    return std::string(dir ? dir : "tests/data") + "/cublaslt-policy/";
}

// A scripted cuBLASLt. Algorithms it makes itself (AlgoInit) carry their attributes in their words (word 0 marks
// them); data words it did not make decode to what `recorded` says (a recorded cuBLASLt answer for the fixture's
// bytes). Everything else is a knob a test turns.
struct Script {
    std::size_t version = 130100;
    tcp::DeviceIdentity device{"NVIDIA H200", 9, 0};
    int createStatus = 0, initStatus = 0, setStatus = 0, checkStatus = 0, heuristicStatus = 0;
    std::uint64_t checkWorkspace = 0;
    std::uint32_t capAlignment = 16;
    std::map<std::uint64_t, tcp::Attributes> recorded;  // by data word 0
    tcp::AlgoData heuristicAlgo;
    int creates = 0, destroys = 0, inits = 0, sets = 0, checks = 0, heuristics = 0;
    const tcp::Descriptors* checkedOn = nullptr;
    static constexpr std::uint64_t kMade = 0xabcd000000000000ull;

    tcp::Api api() {
        tcp::Api a;
        a.getVersion = [this] { return version; };
        a.device = [this](tcp::DeviceIdentity& d) { return d = device, 0; };
        a.createDescriptors = [this](const tcp::Matmul&, tcp::Descriptors& d) {
            ++creates;
            d.op = this;
            return createStatus;
        };
        a.destroyDescriptors = [this](tcp::Descriptors&) { ++destroys; };
        a.algoInit = [this](void*, const tcp::Matmul&, int algoId, tcp::AlgoData& algo) {
            ++inits;
            algo = tcp::AlgoData{};
            algo.data[0] = kMade | std::uint64_t(std::uint32_t(algoId));
            return initStatus;
        };
        // Made algorithms: attribute N (1..7) in word N, the cluster shape (8) in bits 32..47 of word 0.
        a.configSet = [this](tcp::AlgoData& algo, int attribute, const void* value, std::size_t bytes) {
            ++sets;
            std::int64_t v = 0;
            if (bytes == 2) v = *static_cast<const std::uint16_t*>(value);
            else if (attribute == tcp::id::kConfigSplitK) v = *static_cast<const std::int32_t*>(value);
            else v = *static_cast<const std::uint32_t*>(value);
            if (attribute >= 1 && attribute <= 7) algo.data[attribute] = std::uint64_t(v);
            if (attribute == 8) algo.data[0] = (algo.data[0] & ~(0xffffull << 32)) | (std::uint64_t(v & 0xffff) << 32);
            return setStatus;
        };
        a.configGet = [this](const tcp::AlgoData& algo, int attribute, void* value, std::size_t bytes) {
            std::int64_t v = 0;
            if ((algo.data[0] & kMade) == kMade) {
                v = attribute == 0   ? std::int64_t(std::uint32_t(algo.data[0]))
                    : attribute == 8 ? std::int64_t((algo.data[0] >> 32) & 0xffff)
                                     : std::int64_t(algo.data[attribute]);
            } else {
                const auto it = recorded.find(algo.data[0]);
                if (it == recorded.end()) return 7;
                const tcp::Attributes& r = it->second;
                const std::int64_t values[] = {r.algo_id, r.tile_id, r.split_k, r.reduction_scheme, r.cta_swizzle,
                                               r.custom_option, r.stages_id, r.inner_shape_id, r.cluster_shape_id};
                v = values[attribute];
            }
            if (bytes == 2) *static_cast<std::uint16_t*>(value) = std::uint16_t(v);
            else if (bytes == 4) *static_cast<std::int32_t*>(value) = std::int32_t(v);
            return 0;
        };
        a.capGet = [this](const tcp::AlgoData&, int, void* value, std::size_t) {
            *static_cast<std::uint32_t*>(value) = capAlignment;
            return 0;
        };
        a.algoCheck = [this](void*, const tcp::Descriptors& d, const tcp::AlgoData&, tcp::CheckResult& c) {
            ++checks;
            checkedOn = &d;
            c.workspaceSize = checkWorkspace;
            c.waves = 1.0f;
            return checkStatus;
        };
        a.heuristicFirst = [this](void*, const tcp::Descriptors&, const tcp::Matmul&, tcp::AlgoData& algo, tcp::CheckResult& c) {
            ++heuristics;
            algo = heuristicAlgo;
            c.workspaceSize = 0;
            return heuristicStatus;
        };
        return a;
    }
};

// The fixture's first entry: 64x5376x14336 TN BF16 (cuBLASLt's m, n, k = 5376, 64, 14336), as a caller builds it.
tcp::Matmul firstShape() {
    tcp::Matmul m;
    m.m = 5376, m.n = 64, m.k = 14336;
    m.transa = 1, m.transb = 0;
    m.lda = 14336, m.ldb = 14336, m.ldc = 5376, m.ldd = 5376;
    m.workspace_bytes = 64ull << 20;
    return m;
}

tcp::Policy<Json> fixture() { return tcp::Policy<Json>::fromFile(dataDir() + "policy.json"); }

void policyAlgorithmAfterItsCheck() {
    const auto policy = fixture();
    CHECK(policy.entries().size() == 3);
    const tcp::Entry& e = policy.entries()[0];
    CHECK(e.haveData && e.data.data[0] == 0x000000a400000042ull);
    Script s;
    s.recorded[e.data.data[0]] = e.attributes;
    s.checkWorkspace = 2752528;
    s.heuristicAlgo.data[0] = 0x1234;
    const tcp::Descriptors mine{&s, &s, &s, &s, &s};
    const tcp::Choice c = policy.select(nullptr, firstShape(), &mine, s.api());
    CHECK(c.source == tcp::Source::Policy);
    CHECK(c.reason == tcp::Reason::None);
    CHECK(c.entry == 0);
    for (int i = 0; i < 8; ++i) CHECK(c.algo.data[i] == e.data.data[i]);
    CHECK(s.checks == 1 && s.checkedOn == &mine);  // checked on the caller's descriptors
    CHECK(s.heuristics == 0 && s.creates == 0);
    CHECK(c.check.workspaceSize == 2752528);
}

void fallbacksSayWhy() {
    const auto policy = fixture();
    const tcp::Entry& e = policy.entries()[0];
    auto run = [&](auto&& setup, tcp::Matmul m = firstShape()) {
        Script s;
        s.recorded[e.data.data[0]] = e.attributes;
        s.heuristicAlgo.data[0] = 0x1234;
        setup(s, m);
        const tcp::Descriptors mine{&s, &s, &s, &s, &s};
        tcp::Choice c = policy.select(nullptr, m, &mine, s.api());
        CHECK(c.source == tcp::Source::Heuristic);
        CHECK(c.algo.data[0] == 0x1234);  // the heuristic's first choice, never the refused algorithm
        CHECK(s.heuristics == 1);
        return c;
    };
    tcp::Choice c = run([](Script&, tcp::Matmul& m) { m.k = 8192; });
    CHECK(c.reason == tcp::Reason::NoEntry);
    CHECK(c.detail.find("no entry has m=5376 n=64 k=8192") != std::string::npos);
    c = run([](Script& s, tcp::Matmul&) { s.device = {"NVIDIA H100 80GB HBM3", 9, 0}; });
    CHECK(c.reason == tcp::Reason::OtherGpu);
    CHECK(c.detail.find("NVIDIA H200 (sm_90)") != std::string::npos && c.detail.find("H100") != std::string::npos);
    c = run([](Script& s, tcp::Matmul&) { s.device = {"NVIDIA H200", 10, 0}; });
    CHECK(c.reason == tcp::Reason::OtherGpu);  // same name, other architecture
    c = run([](Script& s, tcp::Matmul&) { s.version = 130200; });
    CHECK(c.reason == tcp::Reason::OtherCublasLtVersion);
    CHECK(c.detail.find("130100") != std::string::npos && c.detail.find("130200") != std::string::npos);
    c = run([](Script& s, tcp::Matmul&) { s.checkStatus = 15; });
    CHECK(c.reason == tcp::Reason::CheckFailed);
    CHECK(c.detail.find("CUBLAS_STATUS_NOT_SUPPORTED") != std::string::npos);
    c = run([](Script& s, tcp::Matmul& m) { s.checkWorkspace = 2752528, m.workspace_bytes = 1 << 20; });
    CHECK(c.reason == tcp::Reason::WorkspaceTooSmall);
    c = run([](Script& s, tcp::Matmul& m) { s.capAlignment = 256, m.alignment_b = 16; });
    CHECK(c.reason == tcp::Reason::Alignment);
    CHECK(c.detail.find("256-byte aligned B") != std::string::npos);
    c = run([&](Script& s, tcp::Matmul&) {
        tcp::Attributes other = e.attributes;
        other.tile_id = 165;
        s.recorded[e.data.data[0]] = other;  // the bytes decode to another tile than the policy states
    });
    CHECK(c.reason == tcp::Reason::AttributesDisagree);
    CHECK(c.detail.find("= 165, the policy says 164") != std::string::npos);
    c = run([](Script&, tcp::Matmul& m) { m.a_type = 28, m.b_type = 28; });  // FP8 of the same shape: no entry
    CHECK(c.reason == tcp::Reason::NoEntry);
}

void seedEntryIsRebuiltFromItsAttributes() {
    const auto policy = fixture();
    const tcp::Entry& e = policy.entries()[2];
    CHECK(!e.haveData);
    CHECK(e.attributes.algo_id == 70 && e.attributes.tile_id == 20 && e.attributes.inner_shape_id < 0);
    tcp::Matmul m = firstShape();
    m.n = 37824, m.ldb = 14336;
    m.a_type = m.b_type = 33;  // CUDA_R_4F_E2M1
    m.a_scale_mode = m.b_scale_mode = 1;
    m.workspace_bytes = 0;
    Script s;
    s.device = {"NVIDIA GB10", 12, 1};
    s.version = 130000;
    const tcp::Descriptors mine{&s, &s, &s, &s, &s};
    tcp::Choice c = policy.select(nullptr, m, &mine, s.api());
    CHECK(c.source == tcp::Source::Policy);
    CHECK(s.inits == 1 && s.sets == 6);  // tile, stages, split-k, reduction, swizzle, custom: inner/cluster unset
    CHECK((c.algo.data[0] & 0xffffffffu) == 70 && c.algo.data[1] == 20 && c.algo.data[6] == 37);
    Script refusing = s;
    refusing.initStatus = 15;
    refusing.heuristicAlgo.data[0] = 0x99;
    c = policy.select(nullptr, m, &mine, refusing.api());
    CHECK(c.source == tcp::Source::Heuristic && c.reason == tcp::Reason::RebuildFailed);
    CHECK(c.detail.find("cublasLtMatmulAlgoInit(70): CUBLAS_STATUS_NOT_SUPPORTED") != std::string::npos);
}

void nothingAtAllIsNoAlgorithm() {
    const auto policy = fixture();
    Script s;
    s.heuristicStatus = 15;
    tcp::Matmul m = firstShape();
    m.k = 1;
    tcp::Choice c = policy.select(nullptr, m, nullptr, s.api());
    CHECK(!c.ok() && c.source == tcp::Source::None);
    CHECK(c.reason == tcp::Reason::NoEntry);
    CHECK(c.detail.find("cublasLtMatmulAlgoGetHeuristic gave no algorithm") != std::string::npos);
    CHECK(s.creates == 1 && s.destroys == 1);  // descriptors made from the Matmul, and released
    Script broken;
    broken.createStatus = 7;
    c = policy.select(nullptr, m, nullptr, broken.api());
    CHECK(!c.ok() && c.reason == tcp::Reason::DescriptorsFailed && broken.heuristics == 0 && broken.destroys == 0);
}

void hipblasltEntriesAreNotCuBlasLt() {
    const auto policy = tcp::Policy<Json>::fromFile(dataDir() + "rocm-policy.json");
    Script s;
    const tcp::Descriptors mine{&s, &s, &s, &s, &s};
    const tcp::Choice c = policy.select(nullptr, firstShape(), &mine, s.api());
    CHECK(c.source == tcp::Source::Heuristic && c.reason == tcp::Reason::OtherLibrary);
}

void malformedPoliciesNameThePointer() {
    Json doc = Json::parse(std::ifstream(dataDir() + "policy.json"));
    auto error = [](const Json& d) {
        try {
            tcp::Policy<Json>::fromJson(d, "p.json");
        } catch (const tcp::PolicyError& e) {
            return e.pointer;
        }
        return std::string("(no error)");
    };
    Json wrongFormat = doc;
    wrongFormat["format"] = "decision-fla-l2norm-profile-v1";
    CHECK(error(wrongFormat) == "/format");
    Json shortWords = doc;
    shortWords["entries"][0]["algo"]["data_words"].erase(0);
    CHECK(error(shortWords) == "/entries/0/algo/data_words");
    Json badWord = doc;
    badWord["entries"][0]["algo"]["data_words"][3] = "0x12";
    CHECK(error(badWord) == "/entries/0/algo/data_words/3");
    Json noTile = doc;
    noTile["entries"][1]["algo"]["attributes"].erase("tile_id");
    CHECK(error(noTile) == "/entries/1/algo/attributes/tile_id");
    Json textM = doc;
    textM["entries"][0]["matmul"]["m"] = "5376";
    CHECK(error(textM) == "/entries/0/matmul/m");
    // A name this loader does not know makes the entry unusable, not the policy unreadable.
    Json unknown = doc;
    unknown["entries"][0]["matmul"]["a_type"] = "CUDA_R_99X";
    const auto policy = tcp::Policy<Json>::fromJson(unknown, "p.json");
    CHECK(!policy.entries()[0].keyKnown && policy.entries()[0].unknownName == "CUDA_R_99X");
    Script s;
    const tcp::Descriptors mine{&s, &s, &s, &s, &s};
    CHECK(policy.select(nullptr, firstShape(), &mine, s.api()).reason == tcp::Reason::NoEntry);
    bool threw = false;
    try {
        tcp::Policy<Json>::fromFile(dataDir() + "no-such-policy.json");
    } catch (const tcp::PolicyError& e) {
        threw = std::string(e.what()).find("no-such-policy.json") != std::string::npos;
    }
    CHECK(threw);
}

}  // namespace

int main() {
    try {
        policyAlgorithmAfterItsCheck();
        fallbacksSayWhy();
        seedEntryIsRebuiltFromItsAttributes();
        nothingAtAllIsNoAlgorithm();
        hipblasltEntriesAreNotCuBlasLt();
        malformedPoliciesNameThePointer();
    } catch (const std::exception& e) {
        std::cerr << "unexpected exception: " << e.what() << '\n';
        return 1;
    }
    if (failures) {
        std::cerr << failures << " checks failed\n";
        return 1;
    }
    std::cout << "cublaslt loader: all checks passed\n";
    return 0;
}
