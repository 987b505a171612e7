#pragma once
// The GEMM the cuBLASLt explorer works on.
//
// Shapes are given in the seed's row-major terms: Y[M,N] = X[M,K] @ W^T (TN), with M the token count.
// cuBLASLt is column-major, so the plugin describes the same product as D[N x M] = op(A)[N x K] * op(B)[K x M]
// with A = W and B = X; the layout names cuBLASLt's (transa, transb):
//   TN: A stored K x N (= row-major W[N,K]), op T;  B stored K x M (= row-major X[M,K]), op N.   (the seed)
//   NN: A stored N x K (= row-major W[K,N]), op N;  B stored K x M (= row-major X[M,K]), op N.
//   NT: A stored N x K (= row-major W[K,N]), op N;  B stored M x K (= row-major X^T[K,M]), op T.
// "Logical" sizes are the rows that matter (37810 tokens); the descriptor sizes are padded (37824). Parity and
// errors are computed over the logical block of the output only.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"

namespace tunescope {

enum class GemmDtype { Bf16, Fp8E4M3, Nvfp4 };
enum class GemmLayout { TN, NN, NT };

// "bf16", "fp8" (alias "fp8e4m3", "e4m3"), "nvfp4"; throws Error naming the accepted values.
GemmDtype gemmDtypeFromString(std::string_view text);
std::string toString(GemmDtype dtype);       // "bf16", "fp8e4m3", "nvfp4"
GemmLayout gemmLayoutFromString(std::string_view text);  // "TN", "NN", "NT" (case-insensitive)
std::string toString(GemmLayout layout);

inline constexpr std::uint64_t kMiB = 1024ull * 1024ull;

struct GemmSpec {
    std::int64_t m = 0, n = 0, k = 0;                       // descriptor sizes (after padding)
    std::int64_t mLogical = 0, nLogical = 0, kLogical = 0;  // 0 = same as the descriptor size
    GemmLayout layout = GemmLayout::TN;
    GemmDtype dtype = GemmDtype::Bf16;
    std::vector<std::uint64_t> workspaceBytes{0, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB, 64 * kMiB};
    int heuristicCount = 32;

    std::int64_t logicalM() const { return mLogical > 0 ? mLogical : m; }
    std::int64_t logicalN() const { return nLogical > 0 ? nLogical : n; }
    std::int64_t logicalK() const { return kLogical > 0 ? kLogical : k; }
    // The largest workspace in the list: the cap the guided search works under.
    std::uint64_t maxWorkspaceBytes() const;
    // Bytes of one element of A/B (FP4 counts as half a byte: rounded up per matrix) and of D (always BF16).
    std::uint64_t inputBytesA() const;
    std::uint64_t inputBytesB() const;
    std::uint64_t outputBytes() const { return static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n) * 2u; }
    double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

// Checks sizes and combinations that need no device: M, N, K > 0 and below 2^31, logical <= descriptor sizes,
// workspaces listed, heuristic count 1..1024. Throws Error(file "", JSON Pointer-ish path "/m" etc., message).
void validateGemmSpec(const GemmSpec& spec);

// A one-line description for progress output: "37824x5376x14336 TN bf16".
std::string describe(const GemmSpec& spec);

// Report encoding (the "gemm" object under "workload").
Json gemmSpecToJson(const GemmSpec& spec);
// Reads it back; errors name `file` and the JSON Pointer of the offending value (base `path`).
GemmSpec gemmSpecFromJson(const Json& value, const std::string& file, const std::string& path);

// "0,4,8,16" in MiB -> bytes; throws Error for non-numbers, negatives or duplicates.
std::vector<std::uint64_t> parseWorkspaceListMiB(std::string_view text);

}  // namespace tunescope
