// cuBLASLt policies (docs/cublaslt-policy.md): export-cublaslt (explorer reports in, one signable policy out),
// export-hipblaslt (hipBLASLt's override file for the policy's ROCm entries), and the policy halves of lookup and
// diff. Exit codes: 0 ok, 1 nothing exportable / refused / fallback / different, 2 usage or unreadable input.
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"
#include "tunescope/formats/cublaslt_policy_export.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope::cli {

namespace {

// Prints the errors of a policy that failed validation; true when it has none.
bool reportValidation(const CublasLtPolicy& policy, const std::string& name) {
    const ValidationResult check = validateCublasLtPolicyJson(toJson(policy), name);
    for (const auto& d : check.diagnostics)
        if (d.severity != Severity::Info) std::cerr << name << ": " << formatDiagnostic(d) << '\n';
    return check.valid();
}

void registerExportCublasLt(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::vector<std::string> reports;
        std::string out;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("export-cublaslt", "Make one signable cuBLASLt policy from explorer reports");
    sub->footer(
        "One entry per report: its selection (or the heuristic top it kept), with the matmul as cuBLASLt sees it,\n"
        "the raw cublasLtMatmulAlgo_t data words (when the report has them) and attribute values, the gain with its\n"
        "interval and regime, the tie set, and the GPU, architecture, cuBLASLt version and driver it holds for.\n"
        "Reports that selected nothing are skipped. Load the policy with include/tunescope/cublaslt_policy.hpp or\n"
        "python/tunescope_cublaslt_policy.py; sign it with `tunescope-cli sign`.\n"
        "Exit: 0 written, 1 nothing to export or two reports for the same matmul and environment (nothing written),\n"
        "2 usage, unreadable or malformed report (the message names the file and the JSON Pointer).");
    sub->add_option("reports", args->reports, "explorer reports (tunescope-cli explore --out), or the seed's")
        ->required();
    sub->add_option("--out", args->out, "policy file to write (atomically)")->required();
    sub->callback([args, &ctx] {
        std::vector<std::filesystem::path> files(args->reports.begin(), args->reports.end());
        const PolicyExportResult result = exportCublasLtPolicy(files);
        for (const auto& line : result.messages) std::cout << line << '\n';
        for (const auto& d : result.duplicates) std::cerr << "tunescope-cli: export-cublaslt: " << d << '\n';
        if (!result.duplicates.empty() || result.policy.entries.empty()) {
            std::cerr << "tunescope-cli: export-cublaslt: "
                      << (result.duplicates.empty() ? "no report had a selection to export"
                                                    : "one entry per matmul and environment: export them separately")
                      << "; " << args->out << " was not written\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        if (!reportValidation(result.policy, args->out)) {
            std::cerr << "tunescope-cli: export-cublaslt: the policy made from these reports breaks the rules above; "
                      << args->out << " was not written\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        const std::string bytes = serializeCublasLtPolicy(result.policy);
        writeFileAtomic(args->out, bytes);
        std::cout << "wrote " << args->out << " (" << result.policy.entries.size() << " entries, " << result.skipped
                  << " reports skipped; entries sha256 " << result.policy.entries_sha256 << ", canonical sha256 "
                  << sha256Hex(canonicalizeJsonText(bytes, args->out)) << ")\n";
        ctx.exitCode = kExitOk;
    });
}

void registerExportHipblasLt(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string policy, out;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("export-hipblaslt",
                                   "Write hipBLASLt's tuning-override file for a policy's hipBLASLt (ROCm) entries");
    sub->footer(
        "For HIPBLASLT_TUNING_OVERRIDE_FILE: a \"Git Version: \" line when the entries name the hipBLASLt build, then\n"
        "per entry a header line and a value line (transA,transB,batch_count,m,n,k,a_type,b_type,c_type,compute_type,\n"
        "solution_index,solution_name). Only entries measured with hipBLASLt carry a solution; cuBLASLt entries are\n"
        "refused with the reason (a cuBLASLt algorithm does not map to a hipBLASLt solution index).\n"
        "Exit: 0 written, 1 no exportable entry or an invalid policy (nothing written), 2 usage or unreadable policy.");
    sub->add_option("policy", args->policy, "the cuBLASLt policy")->required();
    sub->add_option("--out", args->out, "override file to write (atomically)")->required();
    sub->callback([args, &ctx] {
        const CublasLtPolicy policy = loadCublasLtPolicy(args->policy);
        if (!reportValidation(policy, args->policy)) {
            std::cerr << "tunescope-cli: export-hipblaslt: " << args->policy << " is invalid; nothing written\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        const HipblasltOverrideExport file = hipblasltOverrideFile(policy);
        for (const auto& why : file.refused) std::cerr << "tunescope-cli: export-hipblaslt: refused " << why << '\n';
        if (file.written == 0) {
            std::cerr << "tunescope-cli: export-hipblaslt: no entry of " << args->policy
                      << " has a hipBLASLt solution; " << args->out << " was not written\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        writeFileAtomic(args->out, file.text);
        std::cout << "wrote " << args->out << " (" << file.written << " entries, " << file.refused.size()
                  << " refused)\nuse: HIPBLASLT_TUNING_OVERRIDE_FILE=" << args->out << '\n';
        ctx.exitCode = kExitOk;
    });
}

}  // namespace

void addPolicyLookupOptions(CLI::App* sub, PolicyLookupArgs& a) {
    const std::string group = "cuBLASLt policies";
    sub->add_option("--m", a.m, "rows of Y = X @ W^T (the explorer's M)")->group(group);
    sub->add_option("--n", a.n, "columns of Y (the explorer's N)")->group(group);
    sub->add_option("--k", a.k, "reduction size")->group(group);
    sub->add_option("--dtype", a.dtype, "bf16 | fp8e4m3 | nvfp4 (default bf16)")->group(group);
    sub->add_option("--layout", a.layout, "TN | NN | NT (default TN)")->group(group);
    sub->add_option("--workspace", a.workspaceBytes, "workspace bytes the caller offers (default: not checked)")->group(group);
    sub->add_option("--gpu", a.gpu, "the caller's GPU name, e.g. \"NVIDIA H200\" (default: not checked)")->group(group);
    sub->add_option("--arch", a.arch, "the caller's architecture, e.g. sm_90 (default: not checked)")->group(group);
    sub->add_option("--cublaslt-version", a.cublasLtVersion, "the caller's cublasLtGetVersion() (default: not checked)")
        ->group(group);
}

int runPolicyLookup(const std::string& policyFile, const PolicyLookupArgs& a, bool json) {
    const CublasLtPolicy policy = loadCublasLtPolicy(policyFile);
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) throw Error("", "", "lookup of a cuBLASLt policy needs --m, --n and --k (at least 1)");
    std::string dtype = a.dtype == "fp8" ? "fp8e4m3" : a.dtype;
    LtPolicyQuery query;
    query.matmul = matmulForRowMajorProblem(a.m, a.n, a.k, a.layout, dtype,
                                            a.workspaceBytes < 0 ? std::numeric_limits<std::int64_t>::max() : a.workspaceBytes);
    if (!a.gpu.empty()) query.gpu = a.gpu;
    if (!a.arch.empty()) query.architecture = a.arch;
    if (a.cublasLtVersion >= 0) query.cublasLtVersion = a.cublasLtVersion;
    const LtPolicyAnswer answer = lookupCublasLtPolicy(policy, query);
    if (json) {
        std::cout << dumpJson(toJson(answer, policy), 2) << '\n';
    } else {
        std::cout << describe(query.matmul) << '\n';
        std::cout << (answer.used() ? "policy: " : "fallback (" + answer.fallback + "): ") << answer.detail << '\n';
    }
    return answer.used() ? kExitOk : kExitInvalid;
}

int runPolicyDiff(const std::string& a, const std::string& b, bool json) {
    const CublasLtPolicyDiff diff = diffCublasLtPolicies(loadCublasLtPolicy(a), loadCublasLtPolicy(b));
    if (json) {
        std::cout << dumpJson(toJson(diff), 2) << '\n';
    } else if (diff.empty()) {
        std::cout << "identical\n";
    } else {
        for (const auto& change : diff.entries) std::cout << formatEntryChange(change) << '\n';
        for (const auto& other : diff.other) std::cout << "other: " << other.op << ' ' << other.path << '\n';
        std::cout << diff.entries.size() << " entries differ, " << diff.other.size() << " other changes\n";
    }
    return diff.empty() ? kExitOk : kExitInvalid;
}

void registerCublasLtPolicyCommands(CLI::App& app, CliContext& ctx) {
    registerExportCublasLt(app, ctx);
    registerExportHipblasLt(app, ctx);
}

}  // namespace tunescope::cli
