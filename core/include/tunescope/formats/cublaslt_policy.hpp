#pragma once
// The cuBLASLt policy ("tunescope-cublaslt-policy-v1", docs/cublaslt-policy.md): the cuBLASLt algorithms a program
// loads, one entry per GEMM. Each entry holds the matmul as cuBLASLt sees it (the lookup key), the algorithm (the raw
// cublasLtMatmulAlgo_t data words when the report recorded them, and always its CUBLASLT_ALGO_CONFIG_* attribute
// values), the gain it was selected on with its interval and regime, the tie set the explorer declared, and the
// environment it holds for (GPU, architecture, cuBLASLt version, driver). Made by `tunescope-cli export-cublaslt`
// from explorer reports; loaded by include/tunescope/cublaslt_policy.hpp and python/tunescope_cublaslt_policy.py.
//
// A model of its own in formats (not gemm's types): formats and gemm never include each other
// (docs/architecture.md), and the policy is a document users keep, validate, diff and sign like a profile. Like the
// other models it is lossless: each struct keeps the JSON object it came from (`original`), toJson() writes the
// typed fields back into it, and an unchanged policy saves to the same bytes.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/base/json_layout.hpp"

namespace tunescope {

inline constexpr std::string_view kCublasLtPolicyFormat = "tunescope-cublaslt-policy-v1";
// DSSE payloadType of a signed policy (inside the signed bytes: a profile signature cannot pass for a policy's).
inline constexpr std::string_view kCublasLtPolicyPayloadType = "application/vnd.tunescope.cublaslt-policy+json";
// Which library an entry's algorithm is for. cuBLASLt entries carry an algorithm the loaders rebuild; hipBLASLt
// entries (measured on ROCm, never by this explorer) carry a solution index and name for hipBLASLt's override file.
inline constexpr std::string_view kLibraryCublasLt = "cublaslt";
inline constexpr std::string_view kLibraryHipblasLt = "hipblaslt";

// The matmul as cuBLASLt sees it: column-major D[m x n] = op(A) * op(B) (+ C). Enum values are stored by their
// cuBLASLt/CUDA names ("CUDA_R_16BF", "CUBLAS_OP_T"); docs/cublaslt-policy.md lists the legal ones.
struct LtMatmul {
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t batch_count = 1;
    std::string transa = "CUBLAS_OP_N", transb = "CUBLAS_OP_N";
    std::string order = "CUBLASLT_ORDER_COL";
    std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
    std::string a_type, b_type, c_type, d_type;
    std::string compute_type = "CUBLAS_COMPUTE_32F";
    std::string scale_type = "CUDA_R_32F";
    std::string a_scale_mode = "CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F";
    std::string b_scale_mode = "CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F";
    std::string epilogue = "CUBLASLT_EPILOGUE_DEFAULT";
    std::optional<std::string> bias_type;  // null: no bias
    std::string pointer_mode = "CUBLASLT_POINTER_MODE_HOST";
    // The alignment of the buffers the entry was measured with (cudaMalloc: 256; also cuBLASLt's default preference).
    std::int64_t min_alignment_a_bytes = 256, min_alignment_b_bytes = 256, min_alignment_c_bytes = 256,
                 min_alignment_d_bytes = 256;
    std::int64_t workspace_limit_bytes = 0;  // what the measurement passed to cublasLtMatmul (and heuristics)
    Json original = Json::object();
};
// "m=5376 n=64 k=14336 batch=1 T/N CUDA_R_16BF,CUDA_R_16BF->CUDA_R_16BF,CUDA_R_16BF CUBLAS_COMPUTE_32F"
std::string describe(const LtMatmul& matmul);
// The loaders' match rule: every member but the alignment and workspace limit equal (those two are conditions the
// caller's buffers must meet, checked against the algorithm, not part of the key).
bool sameMatmulKey(const LtMatmul& a, const LtMatmul& b);

// CUBLASLT_ALGO_CONFIG_* values. inner_shape_id / cluster_shape_id null: not set (AlgoInit's default).
struct LtAlgoAttributes {
    std::int64_t algo_id = 0;
    std::int64_t tile_id = 0;
    std::int64_t stages_id = 0;
    std::int64_t split_k = 1;  // negative values (heuristic sentinels) are kept as they are
    std::int64_t reduction_scheme = 0;
    std::int64_t cta_swizzle = 0;
    std::int64_t custom_option = 0;
    std::optional<std::int64_t> inner_shape_id;
    std::optional<std::int64_t> cluster_shape_id;
    Json original = Json::object();
    // Compares the values, not `original`.
    bool sameValues(const LtAlgoAttributes& other) const;
};
// "algo 66 tile 164 stages 35 split_k 2 reduction 2 swizzle 0 custom 0 inner 0 cluster 4"
std::string describe(const LtAlgoAttributes& attributes);

using LtAlgoData = std::array<std::uint64_t, 8>;  // cublasLtMatmulAlgo_t::data
std::string algoDataWordText(std::uint64_t word);  // "0x000000a400000042"
// cublasLtMatmulAlgo_t as the explorer's raw_algo_hex writes it (its 64 bytes in memory order, little-endian hosts).
LtAlgoData algoDataFromRawHex(std::string_view hex);  // throws Error("", "", ...) unless 128 hex digits

struct LtPolicyAlgo {
    // cuBLASLt: the raw data words (nullopt: the report had no raw bytes; loaders rebuild the algorithm from the
    // attributes with cublasLtMatmulAlgoInit + cublasLtMatmulAlgoConfigSetAttribute) and the attribute values.
    std::optional<LtAlgoData> data;
    std::optional<LtAlgoAttributes> attributes;  // required for cuBLASLt entries
    std::optional<std::string> tile, stages, cluster, reduction;  // readable names, as the report gave them
    std::optional<std::int64_t> required_workspace_bytes;
    // hipBLASLt: the solution index and name hipblaslt-bench printed.
    std::optional<std::int64_t> solution_index;
    std::optional<std::string> solution_name;
    Json original = Json::object();
};

// The gain the entry was selected on, paired against the heuristic's first choice.
struct LtPolicyGain {
    double percent = 0.0;  // positive: the policy's algorithm is faster
    std::optional<std::pair<double, double>> interval_95_percent;
    std::string regime = "sustained";  // "sustained" | "burst" | "end-to-end"
    std::string basis;                 // "verified" | "confirm" | "trajectory" | "heuristic-kept"
    bool over_heuristic = false;       // false: the policy pins the heuristic's own first choice
    std::optional<std::string> l2;     // "cold" (rotating inputs at least 4x the L2) | "warm"
    std::optional<bool> power_limited;
    std::optional<std::int64_t> rounds;
    Json original = Json::object();
};

struct LtTieMember {
    LtAlgoAttributes attributes;
    std::optional<LtAlgoData> data;
    std::optional<std::int64_t> candidate_index;
    std::optional<double> gain_percent;
    std::optional<std::pair<double, double>> interval_95_percent;
    bool cleared = false;  // its own interval cleared the selection threshold against the heuristic top
    Json original = Json::object();
};

// Finalists the measurement could not tell apart, and the stable rule that picked one of them.
struct LtTieSet {
    std::string rule;
    std::vector<LtTieMember> members;
    Json original = Json::object();
};

struct LtPolicyEnvironment {
    std::string gpu;           // "NVIDIA H200"
    std::string architecture;  // "sm_90", or "gfx942" for hipBLASLt entries
    std::optional<std::int64_t> cublaslt_version;  // cublasLtGetVersion(): required for cuBLASLt entries
    std::optional<std::int64_t> cuda_runtime_version;
    std::optional<std::string> driver;
    std::optional<std::int64_t> multiprocessors;
    std::optional<std::string> hipblaslt_version;      // hipBLASLt entries
    std::optional<std::string> hipblaslt_git_version;  // the "Git Version: " hipBLASLt's override file names
    Json original = Json::object();
};

// What the example program needs to check a run bitwise against the explorer's output.
struct LtPolicyParity {
    std::optional<std::string> output_sha256;  // of the logical block of D (BF16), column by column
    std::optional<bool> bitwise_equal_to_heuristic;
    std::optional<std::int64_t> data_seed;
    std::optional<std::string> inputs;  // "tunescope-explorer-v1": the explorer's input generator
    std::optional<std::int64_t> logical_rows, logical_cols;  // the hashed block of D (cuBLASLt's m x n terms)
    Json original = Json::object();
};

struct LtPolicySource {
    std::string report;  // file name as given to export-cublaslt
    std::optional<std::string> report_sha256;
    std::optional<std::string> mode;  // the report's mode: "gemm-explore", "production-trajectory"
    std::optional<std::int64_t> candidate_index;
    Json original = Json::object();
};

struct LtPolicyEntry {
    std::string library{kLibraryCublasLt};
    LtMatmul matmul;
    LtPolicyAlgo algo;
    std::optional<LtPolicyAlgo> heuristic_first;  // what the gain is against (the heuristic top at the same cap)
    LtPolicyGain gain;
    std::optional<LtTieSet> ties;                 // null: the report declared none (older explorer versions)
    LtPolicyEnvironment environment;
    std::optional<LtPolicyParity> parity;
    LtPolicySource source;
    Json original = Json::object();
    bool isCublasLt() const { return library == kLibraryCublasLt; }
};

struct CublasLtPolicy {
    std::string format{kCublasLtPolicyFormat};
    // SHA-256 of the RFC 8785 canonical form of `entries`: a hand edit that did not go through export shows.
    std::string entries_sha256;
    std::vector<LtPolicyEntry> entries;
    Json original = Json::object();
    JsonLayout layout{JsonLayout::Style::Indented, 2, /*trailingNewline=*/true, nullptr};
    std::string fileName;
};

// Reads a policy. Throws Error(fileName, JSON Pointer, message) for a wrong format, missing members, wrong types,
// out-of-range integers or malformed data words; the other rules are validation's (validateCublasLtPolicyJson).
CublasLtPolicy parseCublasLtPolicy(const Json& document, const std::string& fileName = "");
CublasLtPolicy parseCublasLtPolicyText(std::string_view text, const std::string& fileName);
CublasLtPolicy loadCublasLtPolicy(const std::filesystem::path& file);

Json toJson(const CublasLtPolicy& policy);
Json toJson(const LtPolicyEntry& entry);
std::string serializeCublasLtPolicy(const CublasLtPolicy& policy);
void saveCublasLtPolicy(const CublasLtPolicy& policy, const std::filesystem::path& file);  // atomic
// The digest `entries_sha256` must hold: SHA-256 of the canonical (RFC 8785) JSON of the entries array.
std::string cublasLtPolicyEntriesSha256(const CublasLtPolicy& policy);

// ---------------------------------------------------------------------------------------------------------------
// Lookup: what the loaders decide for one matmul, without a GPU (no AlgoCheck: that needs the device).
// ---------------------------------------------------------------------------------------------------------------

struct LtPolicyQuery {
    LtMatmul matmul;                     // the key members; alignment and workspace are the caller's buffers
    std::optional<std::string> gpu;      // unset: not checked
    std::optional<std::string> architecture;
    std::optional<std::int64_t> cublasLtVersion;
};

struct LtPolicyAnswer {
    int entry = -1;                  // the entry the loader would use, -1 when it falls back
    std::vector<int> sameMatmul;     // entries with this matmul (any environment)
    // "" when the entry is used, else the loaders' reason: "no-entry", "other-gpu", "other-cublaslt-version",
    // "workspace-too-small", "alignment", "other-library".
    std::string fallback;
    std::string detail;              // one line for people
    bool used() const { return entry >= 0; }
};
LtPolicyAnswer lookupCublasLtPolicy(const CublasLtPolicy& policy, const LtPolicyQuery& query);
Json toJson(const LtPolicyAnswer& answer, const CublasLtPolicy& policy);

// ---------------------------------------------------------------------------------------------------------------
// Diff: per-entry changes (keyed by matmul and environment), plus other members that differ.
// ---------------------------------------------------------------------------------------------------------------

struct LtPolicyEntryChange {
    enum class Kind { Changed, Added, Removed };
    Kind kind = Kind::Changed;
    std::string key;  // describe(matmul) + " on " + GPU + " cuBLASLt " + version
    std::optional<LtPolicyEntry> before, after;
    bool algoChanged = false, gainChanged = false, tiesChanged = false;
    std::vector<std::string> otherPaths;  // JSON Pointers inside the entry that differ besides those
};

struct LtPolicyOtherChange {
    std::string op, path;
    friend bool operator==(const LtPolicyOtherChange&, const LtPolicyOtherChange&) = default;
};

struct CublasLtPolicyDiff {
    std::vector<LtPolicyEntryChange> entries;
    std::vector<LtPolicyOtherChange> other;  // never under /entries
    bool empty() const { return entries.empty() && other.empty(); }
};
CublasLtPolicyDiff diffCublasLtPolicies(const CublasLtPolicy& before, const CublasLtPolicy& after);
std::string formatEntryChange(const LtPolicyEntryChange& change);
Json toJson(const CublasLtPolicyDiff& diff);

}  // namespace tunescope
