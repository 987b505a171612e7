// libFuzzer target: the cuBLASLt policy loader, writer, validator, lookup and diff on arbitrary bytes.
// Invariants: no crash, no sanitizer report; a loaded policy serialises and reloads to the same JSON value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/formats/cublaslt_policy.hpp"
#include "tunescope/formats/cublaslt_policy_export.hpp"
#include "tunescope/formats/validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const CublasLtPolicy policy = parseCublasLtPolicyText(text, "fuzz.json");
        const std::string bytes = serializeCublasLtPolicy(policy);
        const CublasLtPolicy again = parseCublasLtPolicyText(bytes, "again.json");
        if (!(toJson(again) == toJson(policy))) std::abort();
        (void)validateCublasLtPolicyJson(toJson(policy), "fuzz.json");
        (void)hipblasltOverrideFile(policy);
        (void)diffCublasLtPolicies(policy, again);
        for (const LtPolicyEntry& e : policy.entries) {
            LtPolicyQuery query;
            query.matmul = e.matmul;
            (void)lookupCublasLtPolicy(policy, query);
        }
    } catch (const Error&) {
    }
    return 0;
}
