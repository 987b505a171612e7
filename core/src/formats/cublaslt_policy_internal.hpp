#pragma once
// Private: the collecting reader behind parseCublasLtPolicy(), used by validation to report every schema problem at
// once, and the entry key shared by lookup, diff and the duplicate rule.
#include <string>

#include "model_reader.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"

namespace tunescope::detail {

CublasLtPolicy readCublasLtPolicy(const Json& document, ModelReader& reader);

// describe(matmul) + " on " + GPU (architecture) + " cuBLASLt " + version: what two entries may not share.
std::string policyEntryKey(const LtPolicyEntry& entry);

}  // namespace tunescope::detail
