#pragma once
// TuneScope's cuBLASLt policy loader: header-only, C++17, no dependency beyond cuBLASLt (and the CUDA runtime it
// runs on) and a JSON type you bring: nlohmann::json or anything with its interface (parse, is_object, contains,
// at, get<T>, is_string, is_number_integer, is_null, is_array, size, operator[]).
//
//   #include <nlohmann/json.hpp>
//   #include "tunescope/cublaslt_policy.hpp"
//   namespace tcp = tunescope::cublaslt_policy;
//   const auto policy = tcp::Policy<nlohmann::json>::fromFile("policy.json");   // tunescope-cli export-cublaslt
//   tcp::Matmul mm = ...;  // or tcp::matmulFromDescriptors(op, Adesc, Bdesc, Cdesc, Ddesc, workspaceBytes)
//   const tcp::Choice choice = policy.select(handle, mm, &myDescriptors);
//   if (!choice.ok()) { ... no algorithm at all: choice.detail says why ... }
//   cublasLtMatmul(..., &choice.cublasAlgo(), workspace, workspaceBytes, stream);
//   if (choice.source != tcp::Source::Policy) log(toString(choice.reason), choice.detail);
//
// select() returns the policy's algorithm only when an entry has exactly this matmul, the entry holds for this GPU
// and cuBLASLt version, the algorithm rebuilds to the attributes the policy states, the caller's buffers meet its
// alignment and workspace, and cublasLtMatmulAlgoCheck passes on the caller's descriptors. Otherwise it returns the
// heuristic's first choice (cublasLtMatmulAlgoGetHeuristic with the caller's workspace and alignment) with the
// reason. Never a wrong algorithm silently. The policy's entries_sha256 and signature are not checked here (that
// needs SHA-256): check them where the policy is deployed (`tunescope-cli verify`). docs/cublaslt-policy.md.
//
// Every cuBLASLt call goes through a small function table (Api): realApi() by default; tests pass a scripted one.
// Define TUNESCOPE_CUBLASLT_POLICY_NO_CUBLASLT to compile without cuBLASLt's headers (then there is no realApi()).
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if !defined(TUNESCOPE_CUBLASLT_POLICY_NO_CUBLASLT)
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#define TUNESCOPE_CUBLASLT_POLICY_HAVE_CUBLASLT 1
#endif

namespace tunescope::cublaslt_policy {

inline constexpr const char* kFormat = "tunescope-cublaslt-policy-v1";

// The values of cuBLASLt's enums this loader uses (cublasLt.h, CUDA 13.0 / cuBLAS 13.1; checked against the header
// below when it is included).
namespace id {
inline constexpr int kConfigId = 0, kConfigTileId = 1, kConfigSplitK = 2, kConfigReductionScheme = 3,
                     kConfigCtaSwizzling = 4, kConfigCustomOption = 5, kConfigStagesId = 6, kConfigInnerShapeId = 7,
                     kConfigClusterShapeId = 8;
inline constexpr int kCapMinAlignmentA = 16, kCapMinAlignmentB = 17, kCapMinAlignmentC = 18, kCapMinAlignmentD = 19;
inline constexpr int kStatusSuccess = 0;
}  // namespace id

// The names a policy stores and their cuBLASLt/CUDA values.
struct NamedValue {
    const char* name;
    int value;
};
inline const std::vector<NamedValue>& enumNames() {
    static const std::vector<NamedValue> names{
        {"CUBLAS_OP_N", 0}, {"CUBLAS_OP_T", 1},
        {"CUBLASLT_ORDER_COL", 0}, {"CUBLASLT_ORDER_ROW", 1},
        {"CUDA_R_32F", 0}, {"CUDA_R_64F", 1}, {"CUDA_R_16F", 2}, {"CUDA_R_8I", 3}, {"CUDA_R_32I", 10},
        {"CUDA_R_16BF", 14}, {"CUDA_R_8F_E4M3", 28}, {"CUDA_R_8F_E5M2", 29}, {"CUDA_R_4F_E2M1", 33},
        {"CUBLAS_COMPUTE_16F", 64}, {"CUBLAS_COMPUTE_32F", 68}, {"CUBLAS_COMPUTE_64F", 70},
        {"CUBLAS_COMPUTE_32I", 72}, {"CUBLAS_COMPUTE_32F_FAST_16F", 74}, {"CUBLAS_COMPUTE_32F_FAST_16BF", 75},
        {"CUBLAS_COMPUTE_32F_FAST_TF32", 77},
        {"CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F", 0}, {"CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3", 1},
        {"CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0", 2}, {"CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F", 3},
        {"CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F", 4}, {"CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F", 5},
        {"CUBLASLT_EPILOGUE_DEFAULT", 1}, {"CUBLASLT_EPILOGUE_RELU", 2}, {"CUBLASLT_EPILOGUE_BIAS", 4},
        {"CUBLASLT_EPILOGUE_RELU_BIAS", 6}, {"CUBLASLT_EPILOGUE_GELU", 32}, {"CUBLASLT_EPILOGUE_GELU_BIAS", 36},
        {"CUBLASLT_POINTER_MODE_HOST", 0}, {"CUBLASLT_POINTER_MODE_DEVICE", 1}};
    return names;
}
// The value of a name, or -1 when this loader does not know it.
inline int valueOf(const std::string& name) {
    for (const auto& n : enumNames())
        if (name == n.name) return n.value;
    return -1;
}

// cublasLtMatmulAlgo_t: uint64_t data[8].
struct AlgoData {
    std::uint64_t data[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};

// The matmul as cuBLASLt sees it (column-major D[m x n] = op(A) op(B)), in cuBLASLt's values, plus what the caller's
// buffers offer: their alignment and the workspace.
struct Matmul {
    std::int64_t m = 0, n = 0, k = 0, batch_count = 1;
    int transa = 0, transb = 0;  // CUBLAS_OP_N 0, CUBLAS_OP_T 1
    int order = 0;               // CUBLASLT_ORDER_COL
    std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
    int a_type = 14, b_type = 14, c_type = 14, d_type = 14;  // cudaDataType_t (CUDA_R_16BF = 14)
    int compute_type = 68;                                    // CUBLAS_COMPUTE_32F
    int scale_type = 0;                                       // CUDA_R_32F
    int a_scale_mode = 0, b_scale_mode = 0;                   // CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F
    int epilogue = 1;                                         // CUBLASLT_EPILOGUE_DEFAULT
    int bias_type = -1;                                       // cudaDataType_t, -1: no bias
    int pointer_mode = 0;                                     // CUBLASLT_POINTER_MODE_HOST
    std::uint32_t alignment_a = 256, alignment_b = 256, alignment_c = 256, alignment_d = 256;  // of your buffers
    std::uint64_t workspace_bytes = 0;                                                           // you pass to matmul

    bool sameKey(const Matmul& o) const {
        return m == o.m && n == o.n && k == o.k && batch_count == o.batch_count && transa == o.transa &&
               transb == o.transb && order == o.order && lda == o.lda && ldb == o.ldb && ldc == o.ldc &&
               ldd == o.ldd && a_type == o.a_type && b_type == o.b_type && c_type == o.c_type &&
               d_type == o.d_type && compute_type == o.compute_type && scale_type == o.scale_type &&
               a_scale_mode == o.a_scale_mode && b_scale_mode == o.b_scale_mode && epilogue == o.epilogue &&
               bias_type == o.bias_type && pointer_mode == o.pointer_mode;
    }
};

inline std::string describe(const Matmul& mm) {
    std::ostringstream out;
    out << "m=" << mm.m << " n=" << mm.n << " k=" << mm.k << " batch=" << mm.batch_count << " op "
        << (mm.transa ? "T" : "N") << "/" << (mm.transb ? "T" : "N") << " types " << mm.a_type << "," << mm.b_type
        << "->" << mm.c_type << "," << mm.d_type << " compute " << mm.compute_type;
    return out.str();
}

// CUBLASLT_ALGO_CONFIG_* values; inner/cluster < 0: not set.
struct Attributes {
    std::int64_t algo_id = 0, tile_id = 0, stages_id = 0, split_k = 1, reduction_scheme = 0, cta_swizzle = 0,
                 custom_option = 0, inner_shape_id = -1, cluster_shape_id = -1;
};

struct Entry {
    std::string library;  // "cublaslt" or "hipblaslt" (hipBLASLt entries are never selected here)
    Matmul matmul;        // alignment/workspace: what it was measured with
    bool keyKnown = true; // every name in the matmul is one this loader knows
    std::string unknownName;
    bool haveData = false;
    AlgoData data;
    Attributes attributes;
    std::string gpu, architecture;
    std::int64_t cublasLtVersion = -1;
    double gainPercent = 0.0;
    std::string pointer;  // "/entries/3", for messages
};

struct DeviceIdentity {
    std::string name;  // cudaDeviceProp::name, e.g. "NVIDIA H200"
    int ccMajor = 0, ccMinor = 0;
    std::string architecture() const { return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor); }
};

// Descriptors cuBLASLt checks the algorithm against: yours (recommended: what you run cublasLtMatmul with), or
// ones the loader makes from the Matmul (packed strides when batch_count > 1; no scale pointers).
struct Descriptors {
    void* op = nullptr;
    void* a = nullptr;
    void* b = nullptr;
    void* c = nullptr;
    void* d = nullptr;
};

struct CheckResult {
    std::uint64_t workspaceSize = 0;
    float waves = 0.0f;
};

// The cuBLASLt calls select() makes. Each returns a cublasStatus_t value (0: success).
struct Api {
    std::function<std::size_t()> getVersion;                       // cublasLtGetVersion
    std::function<int(DeviceIdentity&)> device;                     // the current CUDA device
    std::function<int(const Matmul&, Descriptors&)> createDescriptors;
    std::function<void(Descriptors&)> destroyDescriptors;
    std::function<int(void* handle, const Matmul&, int algoId, AlgoData&)> algoInit;
    std::function<int(AlgoData&, int attribute, const void* value, std::size_t bytes)> configSet;
    std::function<int(const AlgoData&, int attribute, void* value, std::size_t bytes)> configGet;
    std::function<int(const AlgoData&, int capability, void* value, std::size_t bytes)> capGet;
    std::function<int(void* handle, const Descriptors&, const AlgoData&, CheckResult&)> algoCheck;
    // cublasLtMatmulAlgoGetHeuristic for one answer, with the Matmul's workspace and alignments as preferences.
    std::function<int(void* handle, const Descriptors&, const Matmul&, AlgoData&, CheckResult&)> heuristicFirst;
};

enum class Source { Policy, Heuristic, None };
enum class Reason {
    None,                  // the policy's algorithm
    NoEntry,               // no entry has this matmul
    OtherLibrary,          // only a hipBLASLt entry has it
    OtherGpu,              // entries hold for other GPUs / architectures
    OtherCublasLtVersion,  // entries hold for this GPU with another cuBLASLt version
    UnknownName,           // the entry names an enum value this loader does not know
    AttributesDisagree,    // the raw bytes decode to other attributes than the policy states
    RebuildFailed,         // AlgoInit / ConfigSetAttribute refused the attributes
    Alignment,             // your buffers are less aligned than the algorithm needs
    WorkspaceTooSmall,     // the algorithm needs more workspace than you offer
    CheckFailed,           // cublasLtMatmulAlgoCheck refused it on these descriptors
    DescriptorsFailed,     // the loader could not make descriptors from the Matmul
};
inline const char* toString(Reason r) {
    switch (r) {
    case Reason::None: return "policy";
    case Reason::NoEntry: return "no-entry";
    case Reason::OtherLibrary: return "other-library";
    case Reason::OtherGpu: return "other-gpu";
    case Reason::OtherCublasLtVersion: return "other-cublaslt-version";
    case Reason::UnknownName: return "unknown-name";
    case Reason::AttributesDisagree: return "attributes-disagree";
    case Reason::RebuildFailed: return "rebuild-failed";
    case Reason::Alignment: return "alignment";
    case Reason::WorkspaceTooSmall: return "workspace-too-small";
    case Reason::CheckFailed: return "check-failed";
    case Reason::DescriptorsFailed: return "descriptors-failed";
    }
    return "?";
}
inline const char* toString(Source s) {
    return s == Source::Policy ? "policy" : s == Source::Heuristic ? "heuristic" : "none";
}

struct Choice {
    Source source = Source::None;  // None: not even the heuristic gave an algorithm (do not run)
    AlgoData algo;
    CheckResult check;             // AlgoCheck's (policy) or the heuristic's workspace and waves
    Reason reason = Reason::None;  // why not the policy's algorithm
    std::string detail;            // one line for people
    int entry = -1;                // the entry used, or the one that was refused
    bool ok() const { return source != Source::None; }
#if defined(TUNESCOPE_CUBLASLT_POLICY_HAVE_CUBLASLT)
    cublasLtMatmulAlgo_t cublasAlgo() const {
        cublasLtMatmulAlgo_t out;
        std::memcpy(&out, algo.data, sizeof out);
        return out;
    }
#endif
};

struct PolicyError : std::runtime_error {
    PolicyError(const std::string& file, const std::string& pointer, const std::string& message)
        : std::runtime_error(file + (pointer.empty() ? "" : ": at " + pointer) + ": " + message),
          file(file), pointer(pointer) {}
    std::string file, pointer;
};

namespace detail {

inline std::string statusName(int status) {
    switch (status) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    }
    return "cuBLAS status " + std::to_string(status);
}

// Reads what select() needs from one JSON document; errors name the file and the JSON Pointer.
template <class JsonT>
class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}
    [[noreturn]] void fail(const std::string& at, const std::string& why) const { throw PolicyError(file_, at, why); }
    const JsonT& member(const JsonT& object, const std::string& at, const char* key) const {
        if (!object.is_object()) fail(at, "expected an object");
        if (!object.contains(key)) fail(at + "/" + key, "missing");
        return object.at(key);
    }
    bool isNull(const JsonT& object, const char* key) const { return !object.contains(key) || object.at(key).is_null(); }
    std::string text(const JsonT& object, const std::string& at, const char* key) const {
        const JsonT& v = member(object, at, key);
        if (!v.is_string()) fail(at + "/" + key, "expected a string");
        return v.template get<std::string>();
    }
    std::int64_t integer(const JsonT& object, const std::string& at, const char* key) const {
        const JsonT& v = member(object, at, key);
        if (!v.is_number_integer()) fail(at + "/" + key, "expected an integer");
        return v.template get<std::int64_t>();
    }
    // An enum stored by name; an unknown name makes the entry unusable (not the policy unreadable).
    int named(const JsonT& object, const std::string& at, const char* key, Entry& e) const {
        const std::string name = text(object, at, key);
        const int value = valueOf(name);
        if (value < 0 && e.keyKnown) e.keyKnown = false, e.unknownName = name;
        return value;
    }
    Matmul matmul(const JsonT& v, const std::string& at, Entry& e) const {
        Matmul m;
        m.m = integer(v, at, "m");
        m.n = integer(v, at, "n");
        m.k = integer(v, at, "k");
        m.batch_count = integer(v, at, "batch_count");
        m.transa = named(v, at, "transa", e);
        m.transb = named(v, at, "transb", e);
        m.order = named(v, at, "order", e);
        m.lda = integer(v, at, "lda");
        m.ldb = integer(v, at, "ldb");
        m.ldc = integer(v, at, "ldc");
        m.ldd = integer(v, at, "ldd");
        m.a_type = named(v, at, "a_type", e);
        m.b_type = named(v, at, "b_type", e);
        m.c_type = named(v, at, "c_type", e);
        m.d_type = named(v, at, "d_type", e);
        m.compute_type = named(v, at, "compute_type", e);
        m.scale_type = named(v, at, "scale_type", e);
        m.a_scale_mode = named(v, at, "a_scale_mode", e);
        m.b_scale_mode = named(v, at, "b_scale_mode", e);
        m.epilogue = named(v, at, "epilogue", e);
        m.bias_type = isNull(v, "bias_type") ? -1 : named(v, at, "bias_type", e);
        m.pointer_mode = named(v, at, "pointer_mode", e);
        m.workspace_bytes = std::uint64_t(integer(v, at, "workspace_limit_bytes"));
        return m;
    }
    Attributes attributes(const JsonT& v, const std::string& at) const {
        Attributes a;
        a.algo_id = integer(v, at, "algo_id");
        a.tile_id = integer(v, at, "tile_id");
        a.stages_id = integer(v, at, "stages_id");
        a.split_k = integer(v, at, "split_k");
        a.reduction_scheme = integer(v, at, "reduction_scheme");
        a.cta_swizzle = integer(v, at, "cta_swizzle");
        a.custom_option = integer(v, at, "custom_option");
        a.inner_shape_id = isNull(v, "inner_shape_id") ? -1 : integer(v, at, "inner_shape_id");
        a.cluster_shape_id = isNull(v, "cluster_shape_id") ? -1 : integer(v, at, "cluster_shape_id");
        return a;
    }
    void dataWords(const JsonT& algo, const std::string& at, Entry& e) const {
        if (isNull(algo, "data_words")) return;
        const JsonT& words = member(algo, at, "data_words");
        if (!words.is_array() || words.size() != 8) fail(at + "/data_words", "expected 8 data words");
        for (std::size_t i = 0; i < 8; ++i) {
            const std::string wp = at + "/data_words/" + std::to_string(i);
            if (!words[i].is_string()) fail(wp, "expected a string \"0x\" + 16 hex digits");
            const std::string w = words[i].template get<std::string>();
            if (w.size() != 18 || w[0] != '0' || (w[1] != 'x' && w[1] != 'X') ||
                w.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
                fail(wp, "\"" + w + "\" is not \"0x\" + 16 hex digits");
            e.data.data[i] = std::stoull(w.substr(2), nullptr, 16);
        }
        e.haveData = true;
    }
    Entry entry(const JsonT& v, const std::string& at) const {
        Entry e;
        e.pointer = at;
        e.library = text(v, at, "library");
        e.matmul = matmul(member(v, at, "matmul"), at + "/matmul", e);
        const JsonT& env = member(v, at, "environment");
        e.gpu = text(env, at + "/environment", "gpu");
        e.architecture = text(env, at + "/environment", "architecture");
        if (!isNull(env, "cublaslt_version")) e.cublasLtVersion = integer(env, at + "/environment", "cublaslt_version");
        const JsonT& gain = member(v, at, "gain");
        const JsonT& percent = member(gain, at + "/gain", "percent");
        if (percent.is_number()) e.gainPercent = percent.template get<double>();
        if (e.library != "cublaslt") return e;
        const JsonT& algo = member(v, at, "algo");
        dataWords(algo, at + "/algo", e);
        e.attributes = attributes(member(algo, at + "/algo", "attributes"), at + "/algo/attributes");
        return e;
    }

private:
    std::string file_;
};

}  // namespace detail

template <class JsonT>
class Policy {
public:
    // Throws PolicyError (file and JSON Pointer) for a wrong format or a malformed entry.
    static Policy fromJson(const JsonT& document, const std::string& file = "policy") {
        const detail::Reader<JsonT> r(file);
        Policy p;
        if (r.text(document, "", "format") != kFormat)
            r.fail("/format", "not a TuneScope cuBLASLt policy (expected \"" + std::string(kFormat) + "\")");
        const JsonT& entries = r.member(document, "", "entries");
        if (!entries.is_array()) r.fail("/entries", "expected an array");
        for (std::size_t i = 0; i < entries.size(); ++i)
            p.entries_.push_back(r.entry(entries[i], "/entries/" + std::to_string(i)));
        return p;
    }
    static Policy fromFile(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw PolicyError(path, "", "cannot be read");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        JsonT document;
        try {
            document = JsonT::parse(text);
        } catch (const std::exception& e) {
            throw PolicyError(path, "", std::string("not JSON: ") + e.what());
        }
        return fromJson(document, path);
    }

    const std::vector<Entry>& entries() const { return entries_; }

    // The algorithm for this matmul (see the top of this file). `yours`: the descriptors you will run; null makes
    // descriptors from `matmul`. Never throws for cuBLASLt answers; every refusal is a reason.
#if defined(TUNESCOPE_CUBLASLT_POLICY_HAVE_CUBLASLT)
    Choice select(void* handle, const Matmul& matmul, const Descriptors* yours = nullptr) const;
#endif
    Choice select(void* handle, const Matmul& matmul, const Descriptors* yours, const Api& api) const {
        Descriptors made;
        const bool own = yours == nullptr;
        if (own && api.createDescriptors(matmul, made) != id::kStatusSuccess) {
            Choice none;
            none.reason = Reason::DescriptorsFailed;
            none.detail = "could not make cuBLASLt descriptors for " + describe(matmul);
            return none;
        }
        struct Release {
            const Api& api;
            Descriptors& d;
            bool own;
            ~Release() {
                if (own) api.destroyDescriptors(d);
            }
        } release{api, made, own};
        const Descriptors& descriptors = own ? made : *yours;
        Choice choice = decide(matmul, api);
        if (choice.reason == Reason::None) {
            choice = policyAlgo(handle, matmul, descriptors, api, choice.entry);
            if (choice.ok()) return choice;
        }
        return heuristic(handle, matmul, descriptors, api, choice);
    }

private:
    // The entry to try, or the reason there is none (Choice.reason).
    Choice decide(const Matmul& matmul, const Api& api) const {
        Choice c;
        std::vector<int> same;
        bool otherLibrary = false;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const Entry& e = entries_[i];
            if (!e.keyKnown || !e.matmul.sameKey(matmul)) continue;
            if (e.library != "cublaslt") otherLibrary = true;
            else same.push_back(int(i));
        }
        if (same.empty()) {
            c.reason = otherLibrary ? Reason::OtherLibrary : Reason::NoEntry;
            c.detail = (otherLibrary ? "only a hipBLASLt entry has " : "no entry has ") + describe(matmul);
            return c;
        }
        DeviceIdentity device;
        const int deviceStatus = api.device(device);
        const std::int64_t version = std::int64_t(api.getVersion());
        bool sameGpu = false;
        for (int i : same) {
            const Entry& e = entries_[std::size_t(i)];
            if (deviceStatus != 0 || e.gpu != device.name || e.architecture != device.architecture()) continue;
            sameGpu = true;
            if (e.cublasLtVersion != version) continue;
            c.entry = i;
            return c;
        }
        const Entry& first = entries_[std::size_t(same.front())];
        c.entry = same.front();
        c.reason = sameGpu ? Reason::OtherCublasLtVersion : Reason::OtherGpu;
        c.detail = sameGpu ? "the policy's entries for " + device.name + " hold for cuBLASLt " +
                                 std::to_string(first.cublasLtVersion) + ", this is " + std::to_string(version)
                           : "the policy's entries for this matmul hold for " + first.gpu + " (" + first.architecture +
                                 "), this is " + (deviceStatus ? "an unknown device" : device.name + " (" + device.architecture() + ")");
        return c;
    }

    static Choice refused(int entry, Reason reason, std::string detail) {
        Choice c;
        c.entry = entry;
        c.reason = reason;
        c.detail = std::move(detail);
        return c;
    }

    // The entry's algorithm: its data words checked against its attributes, or rebuilt from them; then the
    // alignment, AlgoCheck and the workspace.
    Choice policyAlgo(void* handle, const Matmul& matmul, const Descriptors& d, const Api& api, int index) const {
        const Entry& e = entries_[std::size_t(index)];
        const Attributes& a = e.attributes;
        const std::pair<int, std::int64_t> fields[] = {
            {id::kConfigId, a.algo_id},           {id::kConfigTileId, a.tile_id},
            {id::kConfigStagesId, a.stages_id},   {id::kConfigSplitK, a.split_k},
            {id::kConfigReductionScheme, a.reduction_scheme}, {id::kConfigCtaSwizzling, a.cta_swizzle},
            {id::kConfigCustomOption, a.custom_option},       {id::kConfigInnerShapeId, a.inner_shape_id},
            {id::kConfigClusterShapeId, a.cluster_shape_id}};
        AlgoData algo;
        if (e.haveData) {
            algo = e.data;
            for (const auto& [attribute, want] : fields) {
                if (want < 0 && (attribute == id::kConfigInnerShapeId || attribute == id::kConfigClusterShapeId)) continue;
                const std::int64_t got = readConfig(api, algo, attribute);
                if (got != want)
                    return refused(index, Reason::AttributesDisagree,
                                   e.pointer + ": the data words decode to attribute " + std::to_string(attribute) +
                                       " = " + std::to_string(got) + ", the policy says " + std::to_string(want));
            }
        } else {
            if (const int s = api.algoInit(handle, matmul, int(a.algo_id), algo); s != 0)
                return refused(index, Reason::RebuildFailed, e.pointer + ": cublasLtMatmulAlgoInit(" +
                                                                 std::to_string(a.algo_id) + "): " + detail::statusName(s));
            for (const auto& [attribute, value] : fields) {
                const bool unset = value < 0 && (attribute == id::kConfigInnerShapeId || attribute == id::kConfigClusterShapeId);
                if (attribute == id::kConfigId || unset) continue;
                if (const int s = writeConfig(api, algo, attribute, value); s != 0)
                    return refused(index, Reason::RebuildFailed, e.pointer + ": ConfigSetAttribute(" +
                                                                     std::to_string(attribute) + "): " + detail::statusName(s));
            }
        }
        const std::pair<int, std::uint32_t> alignments[] = {{id::kCapMinAlignmentA, matmul.alignment_a},
                                                            {id::kCapMinAlignmentB, matmul.alignment_b},
                                                            {id::kCapMinAlignmentC, matmul.alignment_c},
                                                            {id::kCapMinAlignmentD, matmul.alignment_d}};
        for (const auto& [capability, offered] : alignments) {
            std::uint32_t needed = 0;
            if (api.capGet(algo, capability, &needed, sizeof needed) == 0 && offered < needed)
                return refused(index, Reason::Alignment,
                               e.pointer + ": the algorithm needs " + std::to_string(needed) + "-byte aligned " +
                                   "ABCD"[capability - id::kCapMinAlignmentA] + ", the buffers are " +
                                   std::to_string(offered) + "-byte aligned");
        }
        Choice c;
        if (const int s = api.algoCheck(handle, d, algo, c.check); s != 0)
            return refused(index, Reason::CheckFailed, e.pointer + ": cublasLtMatmulAlgoCheck: " + detail::statusName(s));
        if (c.check.workspaceSize > matmul.workspace_bytes)
            return refused(index, Reason::WorkspaceTooSmall,
                           e.pointer + ": the algorithm needs " + std::to_string(c.check.workspaceSize) +
                               " bytes of workspace, " + std::to_string(matmul.workspace_bytes) + " are offered");
        c.source = Source::Policy;
        c.algo = algo;
        c.entry = index;
        c.detail = e.pointer + ": the policy's algorithm (" + std::to_string(e.gainPercent) + "% when measured)";
        return c;
    }

    static Choice heuristic(void* handle, const Matmul& matmul, const Descriptors& d, const Api& api, Choice why) {
        AlgoData algo;
        CheckResult check;
        const int s = api.heuristicFirst(handle, d, matmul, algo, check);
        if (s != 0) {
            why.source = Source::None;
            why.detail += (why.detail.empty() ? "" : "; ") + std::string("and cublasLtMatmulAlgoGetHeuristic gave no "
                                                                          "algorithm: ") + detail::statusName(s);
            return why;
        }
        why.source = Source::Heuristic;
        why.algo = algo;
        why.check = check;
        return why;
    }

    static std::int64_t readConfig(const Api& api, const AlgoData& algo, int attribute) {
        if (attribute == id::kConfigInnerShapeId || attribute == id::kConfigClusterShapeId) {
            std::uint16_t v = 0;
            return api.configGet(algo, attribute, &v, sizeof v) == 0 ? std::int64_t(v) : -1;
        }
        if (attribute == id::kConfigId || attribute == id::kConfigSplitK) {
            std::int32_t v = 0;
            return api.configGet(algo, attribute, &v, sizeof v) == 0 ? std::int64_t(v) : -(std::int64_t(1) << 40);
        }
        std::uint32_t v = 0;
        return api.configGet(algo, attribute, &v, sizeof v) == 0 ? std::int64_t(v) : -1;
    }

    static int writeConfig(const Api& api, AlgoData& algo, int attribute, std::int64_t value) {
        if (attribute == id::kConfigInnerShapeId || attribute == id::kConfigClusterShapeId) {
            const std::uint16_t v = std::uint16_t(value);
            return api.configSet(algo, attribute, &v, sizeof v);
        }
        if (attribute == id::kConfigSplitK) {
            const std::int32_t v = std::int32_t(value);
            return api.configSet(algo, attribute, &v, sizeof v);
        }
        const std::uint32_t v = std::uint32_t(value);
        return api.configSet(algo, attribute, &v, sizeof v);
    }

    std::vector<Entry> entries_;
};

#if defined(TUNESCOPE_CUBLASLT_POLICY_HAVE_CUBLASLT)

static_assert(sizeof(AlgoData) == sizeof(cublasLtMatmulAlgo_t), "cublasLtMatmulAlgo_t is 8 uint64_t");
static_assert(id::kConfigClusterShapeId == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID && id::kConfigStagesId == CUBLASLT_ALGO_CONFIG_STAGES_ID &&
                  id::kConfigInnerShapeId == CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID && id::kConfigSplitK == CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
              "cuBLASLt's config attribute ids");
static_assert(id::kCapMinAlignmentA == CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES &&
                  id::kCapMinAlignmentD == CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES,
              "cuBLASLt's alignment capability ids");

namespace detail {

// cuBLASLt's own struct, copied in and out (no type punning of AlgoData).
inline cublasLtMatmulAlgo_t lt(const AlgoData& a) {
    cublasLtMatmulAlgo_t out;
    std::memcpy(&out, a.data, sizeof out);
    return out;
}
inline void fromLt(const cublasLtMatmulAlgo_t& in, AlgoData& a) { std::memcpy(a.data, &in, sizeof a.data); }

template <typename T>
int setDesc(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attribute, T value) {
    return int(cublasLtMatmulDescSetAttribute(op, attribute, &value, sizeof value));
}

inline int makeLayout(void*& out, int type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld, const Matmul& m) {
    cublasLtMatrixLayout_t layout = nullptr;
    int s = int(cublasLtMatrixLayoutCreate(&layout, cudaDataType_t(type), rows, cols, ld));
    if (s != 0) return s;
    out = layout;
    const std::int32_t order = m.order, batch = std::int32_t(m.batch_count);
    if (m.order != 0) s = int(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order));
    if (s == 0 && m.batch_count > 1) {
        const std::int64_t stride = ld * std::int64_t(m.order == 0 ? cols : rows);  // packed
        s = int(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
        if (s == 0) s = int(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    }
    return s;
}

inline void destroyDescriptors(Descriptors& d) {
    if (d.op) cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t(d.op));
    for (void* layout : {d.a, d.b, d.c, d.d})
        if (layout) cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t(layout));
    d = Descriptors{};
}

inline int createDescriptors(const Matmul& m, Descriptors& d) {
    cublasLtMatmulDesc_t op = nullptr;
    int s = int(cublasLtMatmulDescCreate(&op, cublasComputeType_t(m.compute_type), cudaDataType_t(m.scale_type)));
    if (s != 0) return s;
    d.op = op;
    if (s == 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_TRANSA, m.transa);
    if (s == 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_TRANSB, m.transb);
    if (s == 0 && m.epilogue != 1) s = setDesc<std::uint32_t>(op, CUBLASLT_MATMUL_DESC_EPILOGUE, std::uint32_t(m.epilogue));
    if (s == 0 && m.bias_type >= 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, m.bias_type);
    if (s == 0 && m.pointer_mode != 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, m.pointer_mode);
    if (s == 0 && m.a_scale_mode != 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, m.a_scale_mode);
    if (s == 0 && m.b_scale_mode != 0) s = setDesc<std::int32_t>(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, m.b_scale_mode);
    const bool ta = m.transa != 0, tb = m.transb != 0;
    if (s == 0) s = makeLayout(d.a, m.a_type, std::uint64_t(ta ? m.k : m.m), std::uint64_t(ta ? m.m : m.k), m.lda, m);
    if (s == 0) s = makeLayout(d.b, m.b_type, std::uint64_t(tb ? m.n : m.k), std::uint64_t(tb ? m.k : m.n), m.ldb, m);
    if (s == 0) s = makeLayout(d.c, m.c_type, std::uint64_t(m.m), std::uint64_t(m.n), m.ldc, m);
    if (s == 0) s = makeLayout(d.d, m.d_type, std::uint64_t(m.m), std::uint64_t(m.n), m.ldd, m);
    if (s != 0) destroyDescriptors(d);
    return s;
}

inline int heuristicFirst(void* handle, const Descriptors& d, const Matmul& m, AlgoData& algo, CheckResult& check) {
    cublasLtMatmulPreference_t pref = nullptr;
    int s = int(cublasLtMatmulPreferenceCreate(&pref));
    if (s != 0) return s;
    const std::uint64_t workspace = m.workspace_bytes;
    s = int(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
    const std::pair<cublasLtMatmulPreferenceAttributes_t, std::uint32_t> alignments[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, m.alignment_a}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, m.alignment_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, m.alignment_c}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, m.alignment_d}};
    for (const auto& [attribute, value] : alignments)
        if (s == 0) s = int(cublasLtMatmulPreferenceSetAttribute(pref, attribute, &value, sizeof value));
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    if (s == 0)
        s = int(cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t(handle), cublasLtMatmulDesc_t(d.op), cublasLtMatrixLayout_t(d.a),
                                               cublasLtMatrixLayout_t(d.b), cublasLtMatrixLayout_t(d.c),
                                               cublasLtMatrixLayout_t(d.d), pref, 1, &result, &returned));
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != 0) return s;
    if (returned < 1) return int(CUBLAS_STATUS_NOT_SUPPORTED);
    if (result.state != CUBLAS_STATUS_SUCCESS) return int(result.state);
    fromLt(result.algo, algo);
    check.workspaceSize = result.workspaceSize;
    check.waves = result.wavesCount;
    return 0;
}

}  // namespace detail

// Real cuBLASLt (and the CUDA runtime for the device's name and compute capability).
inline Api realApi() {
    Api api;
    api.getVersion = [] { return cublasLtGetVersion(); };
    api.device = [](DeviceIdentity& out) {
        int device = 0;
        cudaDeviceProp prop{};
        if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return 1;
        out.name = prop.name;
        out.ccMajor = prop.major;
        out.ccMinor = prop.minor;
        return 0;
    };
    api.createDescriptors = detail::createDescriptors;
    api.destroyDescriptors = detail::destroyDescriptors;
    api.algoInit = [](void* handle, const Matmul& m, int algoId, AlgoData& algo) {
        cublasLtMatmulAlgo_t a{};
        const int s = int(cublasLtMatmulAlgoInit(cublasLtHandle_t(handle), cublasComputeType_t(m.compute_type),
                                                 cudaDataType_t(m.scale_type), cudaDataType_t(m.a_type),
                                                 cudaDataType_t(m.b_type), cudaDataType_t(m.c_type),
                                                 cudaDataType_t(m.d_type), algoId, &a));
        detail::fromLt(a, algo);
        return s;
    };
    api.configSet = [](AlgoData& algo, int attribute, const void* value, std::size_t bytes) {
        cublasLtMatmulAlgo_t a = detail::lt(algo);
        const int s = int(cublasLtMatmulAlgoConfigSetAttribute(&a, cublasLtMatmulAlgoConfigAttributes_t(attribute), value, bytes));
        detail::fromLt(a, algo);
        return s;
    };
    api.configGet = [](const AlgoData& algo, int attribute, void* value, std::size_t bytes) {
        const cublasLtMatmulAlgo_t a = detail::lt(algo);
        std::size_t written = 0;
        return int(cublasLtMatmulAlgoConfigGetAttribute(&a, cublasLtMatmulAlgoConfigAttributes_t(attribute), value, bytes, &written));
    };
    api.capGet = [](const AlgoData& algo, int capability, void* value, std::size_t bytes) {
        const cublasLtMatmulAlgo_t a = detail::lt(algo);
        std::size_t written = 0;
        return int(cublasLtMatmulAlgoCapGetAttribute(&a, cublasLtMatmulAlgoCapAttributes_t(capability), value, bytes, &written));
    };
    api.algoCheck = [](void* handle, const Descriptors& d, const AlgoData& algo, CheckResult& check) {
        cublasLtMatmulHeuristicResult_t result{};
        const cublasLtMatmulAlgo_t a = detail::lt(algo);
        const int s = int(cublasLtMatmulAlgoCheck(cublasLtHandle_t(handle), cublasLtMatmulDesc_t(d.op),
                                                  cublasLtMatrixLayout_t(d.a), cublasLtMatrixLayout_t(d.b),
                                                  cublasLtMatrixLayout_t(d.c), cublasLtMatrixLayout_t(d.d), &a, &result));
        check.workspaceSize = result.workspaceSize;
        check.waves = result.wavesCount;
        return s;
    };
    api.heuristicFirst = detail::heuristicFirst;
    return api;
}

template <class JsonT>
Choice Policy<JsonT>::select(void* handle, const Matmul& matmul, const Descriptors* yours) const {
    static const Api api = realApi();
    return select(handle, matmul, yours, api);
}

// The Matmul your descriptors describe (types, transposes, sizes, leading dimensions, epilogue, scale modes), so
// the lookup key cannot disagree with what you run. Alignment and workspace are yours to fill in.
inline Matmul matmulFromDescriptors(const Descriptors& d, std::uint64_t workspaceBytes, std::uint32_t alignment = 256) {
    Matmul m;
    auto desc = [&](cublasLtMatmulDescAttributes_t attribute, auto& out) {
        std::size_t written = 0;
        cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t(d.op), attribute, &out, sizeof out, &written);
    };
    std::int32_t i32 = 0;
    std::uint32_t u32 = 0;
    desc(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, i32), m.compute_type = i32;
    desc(CUBLASLT_MATMUL_DESC_SCALE_TYPE, i32), m.scale_type = i32;
    desc(CUBLASLT_MATMUL_DESC_TRANSA, i32), m.transa = i32;
    desc(CUBLASLT_MATMUL_DESC_TRANSB, i32), m.transb = i32;
    desc(CUBLASLT_MATMUL_DESC_POINTER_MODE, i32), m.pointer_mode = i32;
    desc(CUBLASLT_MATMUL_DESC_EPILOGUE, u32), m.epilogue = int(u32);
    desc(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, i32), m.a_scale_mode = i32;
    desc(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, i32), m.b_scale_mode = i32;
    if (m.epilogue & 4) desc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, i32), m.bias_type = i32;
    auto layout = [&](void* l, int& type, std::int64_t& ld, std::uint64_t& rows, std::uint64_t& cols) {
        std::size_t written = 0;
        std::int32_t t = 0, order = 0, batch = 1;
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_TYPE, &t, sizeof t, &written);
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_LD, &ld, sizeof ld, &written);
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows, &written);
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols, &written);
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order, &written);
        cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t(l), CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch, &written);
        type = t;
        m.order = order;
        m.batch_count = batch;
    };
    std::uint64_t rows = 0, cols = 0;
    layout(d.a, m.a_type, m.lda, rows, cols);
    m.k = std::int64_t(m.transa ? rows : cols);
    layout(d.b, m.b_type, m.ldb, rows, cols);
    layout(d.c, m.c_type, m.ldc, rows, cols);
    layout(d.d, m.d_type, m.ldd, rows, cols);
    m.m = std::int64_t(rows);
    m.n = std::int64_t(cols);
    m.workspace_bytes = workspaceBytes;
    m.alignment_a = m.alignment_b = m.alignment_c = m.alignment_d = alignment;
    return m;
}

#endif  // TUNESCOPE_CUBLASLT_POLICY_HAVE_CUBLASLT

}  // namespace tunescope::cublaslt_policy
