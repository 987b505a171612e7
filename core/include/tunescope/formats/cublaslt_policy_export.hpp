#pragma once
// Making and exporting cuBLASLt policies (docs/cublaslt-policy.md):
//  - exportCublasLtPolicy: explorer reports ("gemm-explore") and the seed's "production-trajectory" report in, one
//    policy entry per report (its selection, or the heuristic top it kept) out;
//  - hipblasltOverrideFile: hipBLASLt's tuning-override file (HIPBLASLT_TUNING_OVERRIDE_FILE) for the entries that
//    carry a hipBLASLt solution. A cuBLASLt algorithm has no hipBLASLt solution index: such entries are refused.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tunescope/formats/cublaslt_policy.hpp"

namespace tunescope {

// The matmul cuBLASLt sees for the explorer's row-major problem Y[M,N] = op(X) op(W) (docs/explorer.md): m, n, k =
// N, M, K; layout "TN" | "NN" | "NT"; dtype "bf16" | "fp8e4m3" | "nvfp4" (C and D BF16, FP32 compute and scale),
// as the cuBLASLt plugin builds its descriptors. Throws Error for an unknown layout or dtype.
LtMatmul matmulForRowMajorProblem(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& layout,
                                  const std::string& dtype, std::int64_t workspaceLimitBytes);

struct PolicyExportResult {
    CublasLtPolicy policy;
    std::vector<std::string> messages;  // one line per report: exported what, or skipped why
    int skipped = 0;                    // reports without a selection (the exploration stopped early)
    // Two reports for the same matmul and environment: the policy would hold two answers for one question.
    std::vector<std::string> duplicates;
};

// Reads each report (errors name the file and the JSON Pointer: exit 2 in the CLI). Entries keep the report's raw
// cublasLtMatmulAlgo_t bytes when it has them and always its attribute values; the seed's report has no raw bytes,
// so its entry carries attributes only (the loaders rebuild it with cublasLtMatmulAlgoInit + ConfigSetAttribute).
PolicyExportResult exportCublasLtPolicy(const std::vector<std::filesystem::path>& reports);

struct HipblasltOverrideExport {
    std::string text;                  // the file's bytes; empty when nothing was exportable
    int written = 0;
    std::vector<std::string> refused;  // "entry N (...): why"
};

// Header line and value line per entry, in hipBLASLt's column names (transA,transB,batch_count,m,n,k,a_type,b_type,
// c_type,compute_type,solution_index,solution_name), after a "Git Version: " line when the entries name one.
// Only hipBLASLt entries (library "hipblaslt": measured on ROCm, with a solution index and name) are written.
HipblasltOverrideExport hipblasltOverrideFile(const CublasLtPolicy& policy);

}  // namespace tunescope
