// export-cublaslt's work: cuBLASLt policies from explorer reports, and hipBLASLt's override file from a policy.
#include "tunescope/formats/cublaslt_policy_export.hpp"

#include <algorithm>
#include <map>

#include "cublaslt_policy_internal.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/version.hpp"

namespace tunescope {

using detail::ModelReader;
using detail::Need;

LtMatmul matmulForRowMajorProblem(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& layout,
                                  const std::string& dtype, std::int64_t workspaceLimitBytes) {
    // The same descriptors as the cuBLASLt plugin's createDescriptors (kernels/cuda/cublaslt/cublaslt_backend.cpp):
    // A = W, B = X, D[N x M] column-major = Y[M,N] row-major.
    LtMatmul m;
    m.m = N;
    m.n = M;
    m.k = K;
    if (layout == "TN") {
        m.transa = "CUBLAS_OP_T", m.transb = "CUBLAS_OP_N", m.lda = K, m.ldb = K;
    } else if (layout == "NN") {
        m.transa = "CUBLAS_OP_N", m.transb = "CUBLAS_OP_N", m.lda = N, m.ldb = K;
    } else if (layout == "NT") {
        m.transa = "CUBLAS_OP_N", m.transb = "CUBLAS_OP_T", m.lda = N, m.ldb = M;
    } else {
        throw Error("", "", "unknown layout \"" + layout + "\" (TN, NN or NT)");
    }
    m.ldc = m.ldd = N;
    std::string inputType;
    if (dtype == "bf16") inputType = "CUDA_R_16BF";
    else if (dtype == "fp8e4m3" || dtype == "fp8") inputType = "CUDA_R_8F_E4M3";
    else if (dtype == "nvfp4") inputType = "CUDA_R_4F_E2M1";
    else throw Error("", "", "unknown dtype \"" + dtype + "\" (bf16, fp8e4m3 or nvfp4)");
    m.a_type = m.b_type = inputType;
    m.c_type = m.d_type = "CUDA_R_16BF";
    if (dtype == "nvfp4") m.a_scale_mode = m.b_scale_mode = "CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3";
    m.workspace_limit_bytes = workspaceLimitBytes;
    m.original = Json::object();
    // Informative, in the explorer's terms (not part of the key).
    m.original["row_major_problem"] = {{"m", M}, {"n", N}, {"k", K}, {"layout", layout}, {"dtype", dtype}};
    if (dtype == "fp8e4m3" || dtype == "fp8")
        m.original["scale_pointers"] = "A and B: per-tensor scale factors in device memory (the explorer uses 1.0)";
    if (dtype == "nvfp4")
        m.original["scale_pointers"] = "A and B: VEC16_UE4M3 block-scale tensors in device memory";
    return m;
}

namespace lt_policy_export {  // named, not anonymous: a unity build of the core compiles its files as one

std::string architectureOf(const std::vector<std::int64_t>& capability) {
    if (capability.size() != 2) return "";
    return "sm_" + std::to_string(capability[0]) + std::to_string(capability[1]);
}

// A config object with the report's field names (algorithm_id, tile_id, ...), its names and raw bytes.
LtPolicyAlgo algoFromReportConfig(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicyAlgo algo;
    LtAlgoAttributes a;
    auto field = [&](const char* key, std::int64_t& out) {
        if (const auto x = r.integer(v, path, key)) out = *x;
    };
    field("algorithm_id", a.algo_id);
    field("tile_id", a.tile_id);
    field("stages_id", a.stages_id);
    field("split_k", a.split_k);
    field("reduction_scheme", a.reduction_scheme);
    field("cta_swizzle", a.cta_swizzle);
    field("custom_option", a.custom_option);
    a.inner_shape_id = r.nullableInteger(v, path, "inner_shape", 0, 0xffff);
    a.cluster_shape_id = r.nullableInteger(v, path, "cluster_shape", 0, 0xffff);
    algo.attributes = a;
    algo.tile = r.nullableString(v, path, "tile");
    algo.stages = r.nullableString(v, path, "stages");
    algo.cluster = r.nullableString(v, path, "cluster");
    algo.reduction = r.nullableString(v, path, "reduction");
    if (const auto hex = r.nullableString(v, path, "raw_algo_hex")) {
        try {
            algo.data = algoDataFromRawHex(*hex);
        } catch (const Error& e) {
            r.fail(jsonPointerAppend(path, "raw_algo_hex"), e.message());
        }
    }
    return algo;
}

LtPolicyEnvironment environmentFromReport(const Json& report, ModelReader& r) {
    LtPolicyEnvironment env;
    const Json* e = r.object(report, "", "environment");
    if (!e) return env;
    if (const auto device = r.string(*e, "/environment", "device")) env.gpu = *device;
    if (const auto cc = r.integerList(*e, "/environment", "device_capability", Need::Required)) {
        env.architecture = architectureOf(*cc);
        if (env.architecture.empty()) r.fail("/environment/device_capability", "expected [major, minor]");
    }
    env.driver = r.nullableString(*e, "/environment", "driver");
    env.multiprocessors = r.nullableInteger(*e, "/environment", "multiprocessors", 0);
    if (const Json* x = r.object(*e, "/environment", "extension", Need::Optional)) {
        env.cublaslt_version = r.nullableInteger(*x, "/environment/extension", "cublaslt_runtime_version", 0);
        env.cuda_runtime_version = r.nullableInteger(*x, "/environment/extension", "cuda_runtime_version", 0);
    }
    return env;
}

// The explorer's `ties` object (selected.ties or confirm.ties, docs/explorer.md) in the policy's terms.
std::optional<LtTieSet> tiesFromReport(const Json* ties, const std::string& path, ModelReader& r) {
    if (!ties || ties->is_null() || !r.isObject(*ties, path)) return std::nullopt;
    LtTieSet set;
    if (const auto rule = r.string(*ties, path, "rule")) set.rule = *rule;
    const Json* members = r.array(*ties, path, "members");
    if (!members) return set;
    for (std::size_t i = 0; i < members->size(); ++i) {
        const std::string at = jsonPointerAppend(jsonPointerAppend(path, "members"), i);
        const Json& m = (*members)[i];
        if (!r.isObject(m, at)) continue;
        const LtPolicyAlgo algo = algoFromReportConfig(m, at, r);
        LtTieMember member;
        member.attributes = *algo.attributes;
        member.data = algo.data;
        member.candidate_index = r.nullableInteger(m, at, "candidate_index", 0);
        if (const auto g = r.number(m, at, "gain_percent", Need::Optional)) member.gain_percent = *g;
        if (const Json* iv = r.array(m, at, "interval_95_percent", Need::Optional); iv && iv->size() == 2)
            member.interval_95_percent = std::pair{(*iv)[0].get<double>(), (*iv)[1].get<double>()};
        if (const auto c = r.boolean(m, at, "cleared", Need::Optional)) member.cleared = *c;
        // The heuristic top as a member (kTieRule): the loader's fallback is then a tied choice, and says so.
        if (r.boolean(m, at, "heuristic_top", Need::Optional).value_or(false)) member.original["heuristic_top"] = true;
        set.members.push_back(std::move(member));
    }
    return set;
}

std::optional<std::int64_t> regimeRounds(const Json& selected, const std::string& regime, ModelReader& r) {
    const Json* m = r.member(selected, "/selected", regime, Need::Optional);
    if (!m || !m->is_object()) return std::nullopt;
    return r.nullableInteger(*m, "/selected/" + regime, "rounds", 0);
}

LtPolicyGain gainFromExplorerReport(const Json& report, const Json& selected, ModelReader& r) {
    LtPolicyGain gain;
    // Reports from before the confirm stage have no regime (they timed back to back: sustained).
    gain.over_heuristic = r.boolean(selected, "/selected", "left_baseline", Need::Optional).value_or(false);
    gain.regime = r.string(selected, "/selected", "regime", Need::Optional).value_or("sustained");
    if (gain.over_heuristic) {
        gain.percent = r.number(selected, "/selected", "improvement_percent", Need::Optional).value_or(0.0);
        if (const Json* iv = r.array(selected, "/selected", "improvement_interval_95_percent", Need::Optional); iv && iv->size() == 2 &&
                                                                                                 (*iv)[0].is_number() && (*iv)[1].is_number())
            gain.interval_95_percent = std::pair{(*iv)[0].get<double>(), (*iv)[1].get<double>()};
        const bool verified = r.boolean(selected, "/selected", "verified", Need::Optional).value_or(false);
        gain.basis = verified ? "verified" : "confirm";
        gain.rounds = regimeRounds(selected, gain.regime, r);
        if (verified) {
            const Json& ver = report.value("confirm", Json::object()).value("verification", Json::object());
            if (ver.contains("gain") && ver["gain"].is_object() && ver["gain"].contains("rounds") && ver["gain"]["rounds"].is_number_integer())
                gain.rounds = ver["gain"]["rounds"].get<std::int64_t>();
        }
    } else {
        gain.basis = "heuristic-kept";
    }
    const Json& data = report.value("workload", Json::object()).value("data", Json::object());
    if (data.contains("cold_l2") && data["cold_l2"].is_boolean()) gain.l2 = data["cold_l2"].get<bool>() ? "cold" : "warm";
    const Json& power = report.value("power_state", Json::object());
    if (power.contains("power_limited") && power["power_limited"].is_boolean() &&
        power.value("measured", false))
        gain.power_limited = power["power_limited"].get<bool>();
    gain.original = Json::object();
    if (const auto reason = r.string(selected, "/selected", "reason", Need::Optional)) gain.original["reason"] = *reason;
    return gain;
}

LtPolicyEntry entryFromExplorerReport(const Json& report, ModelReader& r) {
    LtPolicyEntry entry;
    const Json* gemm = nullptr;
    if (const Json* workload = r.object(report, "", "workload")) gemm = r.object(*workload, "/workload", "gemm");
    const Json& selected = report.at("selected");
    std::int64_t M = 0, N = 0, K = 0;
    std::string layout = "TN", dtype = "bf16";
    std::vector<std::int64_t> logical;
    if (gemm) {
        M = r.integer(*gemm, "/workload/gemm", "m", Need::Required, 1).value_or(1);
        N = r.integer(*gemm, "/workload/gemm", "n", Need::Required, 1).value_or(1);
        K = r.integer(*gemm, "/workload/gemm", "k", Need::Required, 1).value_or(1);
        layout = r.string(*gemm, "/workload/gemm", "layout").value_or("TN");
        dtype = r.string(*gemm, "/workload/gemm", "dtype").value_or("bf16");
        logical = r.integerList(*gemm, "/workload/gemm", "logical_mnk").value_or(std::vector<std::int64_t>{M, N, K});
    }
    const std::int64_t workspace = r.integer(selected, "/selected", "workspace_bytes", Need::Required, 0).value_or(0);
    try {
        entry.matmul = matmulForRowMajorProblem(M, N, K, layout, dtype, workspace);
    } catch (const Error& e) {
        r.fail("/workload/gemm", e.message());
    }
    entry.algo = algoFromReportConfig(selected, "/selected", r);
    entry.algo.required_workspace_bytes = r.nullableInteger(selected, "/selected", "required_workspace_bytes", 0);
    if (const Json* base = r.object(report, "", "baseline_kernel_metadata", Need::Optional)) {
        if (const Json* config = r.object(*base, "/baseline_kernel_metadata", "config", Need::Optional)) {
            LtPolicyAlgo first = algoFromReportConfig(*config, "/baseline_kernel_metadata/config", r);
            if (const auto hex = r.nullableString(*base, "/baseline_kernel_metadata", "raw_algo_hex"))
                first.data = algoDataFromRawHex(*hex);
            entry.heuristic_first = std::move(first);
        }
    }
    entry.gain = gainFromExplorerReport(report, selected, r);
    const Json* ties = selected.contains("ties") ? &selected.at("ties") : nullptr;
    if (!ties && report.contains("confirm") && report["confirm"].is_object() && report["confirm"].contains("ties"))
        ties = &report["confirm"]["ties"];
    entry.ties = tiesFromReport(ties, selected.contains("ties") ? "/selected/ties" : "/confirm/ties", r);
    entry.environment = environmentFromReport(report, r);
    if (const auto version = r.nullableInteger(selected, "/selected", "cublaslt_version", 0))
        entry.environment.cublaslt_version = version;  // the version the raw bytes belong to
    LtPolicyParity parity;
    parity.output_sha256 = r.nullableString(selected, "/selected", "output_sha256");
    if (const auto same = r.boolean(selected, "/selected", "bitwise_equal_to_baseline", Need::Optional))
        parity.bitwise_equal_to_heuristic = same;
    const Json& data = report.value("workload", Json::object()).value("data", Json::object());
    if (data.contains("seed") && data["seed"].is_number_integer() && data["seed"].get<std::int64_t>() >= 0) parity.data_seed = data["seed"].get<std::int64_t>();
    parity.inputs = "tunescope-explorer-v1";
    if (logical.size() == 3) parity.logical_rows = logical[1], parity.logical_cols = logical[0];
    entry.parity = std::move(parity);
    entry.source.mode = "gemm-explore";
    entry.source.candidate_index = r.nullableInteger(selected, "/selected", "candidate_index", 0);
    return entry;
}

// The seed's report: one fc2 GEMM of a production run, NVFP4 on a GB10, with an end-to-end trajectory.
LtPolicyEntry entryFromTrajectoryReport(const Json& report, ModelReader& r) {
    LtPolicyEntry entry;
    const Json* fc2 = r.object(report, "", "fc2_boundary");
    std::vector<std::int64_t> mnk{1, 1, 1}, logical;
    if (fc2) {
        mnk = r.integerList(*fc2, "/fc2_boundary", "descriptor_mnk_after_padding", Need::Required).value_or(mnk);
        logical = r.integerList(*fc2, "/fc2_boundary", "logical_mnk").value_or(mnk);
        if (mnk.size() != 3) r.fail("/fc2_boundary/descriptor_mnk_after_padding", "expected [M, N, K]");
    }
    std::string dtype;
    const Json& descriptors = report.value("baseline_kernel_metadata", Json::object()).value("descriptors", Json::object());
    if (descriptors.value("block_scale_mode", "") == "VEC16_UE4M3") dtype = "nvfp4";
    else r.fail("/baseline_kernel_metadata/descriptors/block_scale_mode",
                "the report does not say the GEMM's types (expected the seed's \"VEC16_UE4M3\" NVFP4 block scales)");
    const Json* trajectory = r.object(report, "", "trajectory");
    const std::int64_t workspace =
        trajectory ? r.integer(*trajectory, "/trajectory", "supplied_workspace_bytes", Need::Required, 0).value_or(0) : 0;
    if (mnk.size() == 3 && !dtype.empty()) entry.matmul = matmulForRowMajorProblem(mnk[0], mnk[1], mnk[2], "TN", dtype, workspace);
    entry.algo = algoFromReportConfig(report.at("selected"), "/selected", r);
    // The heuristic's first choice at the workspace the run supplied.
    for (std::size_t i = 0; i < report.value("heuristics", Json::array()).size(); ++i) {
        const Json& set = report["heuristics"][i];
        if (set.value("max_workspace_bytes", std::int64_t(-1)) != workspace || !set.contains("algorithms") ||
            !set["algorithms"].is_array() || set["algorithms"].empty())
            continue;
        entry.heuristic_first = algoFromReportConfig(set["algorithms"][0], "/heuristics/" + std::to_string(i) + "/algorithms/0", r);
        break;
    }
    entry.gain.regime = "end-to-end";
    entry.gain.basis = "trajectory";
    entry.gain.over_heuristic = !entry.heuristic_first || !entry.heuristic_first->attributes ||
                                !entry.heuristic_first->attributes->sameValues(*entry.algo.attributes);
    if (trajectory) {
        entry.gain.percent = r.number(*trajectory, "/trajectory", "improvement_percent").value_or(0.0);
        entry.gain.original = Json::object();
        if (const auto steps = r.nullableInteger(*trajectory, "/trajectory", "steps", 0))
            entry.gain.original["note"] = "whole production run (" + std::to_string(*steps) +
                                          " steps), one run each: no interval";
    }
    entry.environment = environmentFromReport(report, r);
    LtPolicyParity parity;
    if (trajectory) parity.bitwise_equal_to_heuristic = r.boolean(*trajectory, "/trajectory", "bf16_exact", Need::Optional);
    if (logical.size() == 3) parity.logical_rows = logical[1], parity.logical_cols = logical[0];
    parity.original = Json::object();
    parity.original["note"] = "bitwise equality of the production run's outputs; the GEMM's inputs (model "
                              "activations) cannot be regenerated, so there is no output hash to check a run against";
    entry.parity = std::move(parity);
    entry.source.mode = "production-trajectory";
    return entry;
}

}  // namespace lt_policy_export

PolicyExportResult exportCublasLtPolicy(const std::vector<std::filesystem::path>& reports) {
    PolicyExportResult result;
    CublasLtPolicy& policy = result.policy;
    policy.original = Json::object();
    policy.original["format"] = std::string(kCublasLtPolicyFormat);
    policy.original["created_by"] = {{"tool", "tunescope-cli export-cublaslt"}, {"version", versionString()},
                                     {"git_sha", gitSha()}};
    policy.original["entries_sha256"] = "";
    std::map<std::string, std::string> seen;  // entry key -> report
    for (const auto& file : reports) {
        const std::string name = file.string();
        const std::string text = readTextFile(file);
        JsonReadOptions options;
        options.rejectDuplicateKeys = true;
        const Json report = parseJson(text, name, options);
        ModelReader r(name, /*collect=*/false);
        if (!r.isObject(report, "")) continue;
        const std::string mode = r.string(report, "", "mode").value_or("");
        const Json* selected = r.member(report, "", "selected", Need::Required);
        if (!selected || selected->is_null()) {
            const std::string failure = report.value("failure", Json()).is_string() ? report["failure"].get<std::string>() : "";
            result.messages.push_back(name + ": skipped: the report selected nothing" +
                                      (failure.empty() ? std::string() : " (" + failure + ")"));
            ++result.skipped;
            continue;
        }
        r.isObject(*selected, "/selected");
        LtPolicyEntry entry;
        if (mode == "gemm-explore") entry = lt_policy_export::entryFromExplorerReport(report, r);
        else if (mode == "production-trajectory") entry = lt_policy_export::entryFromTrajectoryReport(report, r);
        else r.fail("/mode", "\"" + mode + "\" is neither an explorer report (\"gemm-explore\") nor the seed's "
                              "(\"production-trajectory\")");
        entry.source.report = name;
        entry.source.report_sha256 = sha256Hex(text);
        const std::string key = detail::policyEntryKey(entry);
        if (const auto [it, fresh] = seen.emplace(key, name); !fresh) {
            result.duplicates.push_back(name + " and " + it->second + " both hold " + key);
            continue;
        }
        result.messages.push_back(name + ": " + describe(entry.matmul) + ": " + describe(*entry.algo.attributes) +
                                  (entry.gain.over_heuristic ? " (" + formatPythonFloat(entry.gain.percent) +
                                                                   "% over the heuristic's first choice)"
                                                             : " (the heuristic's first choice, kept)") +
                                  (entry.algo.data ? "" : "; no raw bytes in the report: rebuilt from attributes"));
        policy.entries.push_back(std::move(entry));
    }
    policy.entries_sha256 = cublasLtPolicyEntriesSha256(policy);
    return result;
}

// ---------------------------------------------------------------------------------------------------------------
// hipBLASLt's tuning-override file
// ---------------------------------------------------------------------------------------------------------------

namespace lt_policy_export {

// hipblaslt-bench's type strings for the types whose meaning is the same in every hipBLASLt release. FP8's "f8_r"
// is HIP_R_8F_E4M3_FNUZ in some releases and HIP_R_8F_E4M3 in others, so FP8 entries are not exported.
std::string hipblasltType(const std::string& cudaName) {
    if (cudaName == "CUDA_R_16BF") return "bf16_r";
    if (cudaName == "CUDA_R_16F") return "f16_r";
    if (cudaName == "CUDA_R_32F") return "f32_r";
    return "";
}

std::string hipblasltCompute(const std::string& name) { return name == "CUBLAS_COMPUTE_32F" ? "f32_r" : ""; }

// Why an entry cannot go into the file ("" when it can).
std::string hipblasltRefusal(const LtPolicyEntry& e) {
    if (e.isCublasLt())
        return "measured with cuBLASLt on " + e.environment.gpu +
               ": a cuBLASLt algorithm has no hipBLASLt solution index (hipBLASLt indices name kernels of one "
               "hipBLASLt build on one AMD architecture); measure the shape on ROCm";
    if (e.library != kLibraryHipblasLt) return "library \"" + e.library + "\" is not hipBLASLt";
    if (!e.algo.solution_index || *e.algo.solution_index <= 0)
        return "no positive solution_index (hipBLASLt ignores index 0 and below)";
    if (!e.algo.solution_name || e.algo.solution_name->empty())
        return "no solution_name (hipBLASLt validates an entry by it)";
    if (e.algo.solution_name->find_first_of(",\r\n") != std::string::npos)
        return "solution_name holds a comma or a line break";
    const LtMatmul& m = e.matmul;
    if (hipblasltType(m.a_type).empty() || hipblasltType(m.b_type).empty() || hipblasltType(m.c_type).empty())
        return "types " + m.a_type + "/" + m.b_type + "/" + m.c_type +
               " have no release-independent hipBLASLt type string (bf16_r, f16_r and f32_r only)";
    if (hipblasltCompute(m.compute_type).empty()) return "compute type " + m.compute_type + " is not exported";
    return "";
}

}  // namespace lt_policy_export

HipblasltOverrideExport hipblasltOverrideFile(const CublasLtPolicy& policy) {
    HipblasltOverrideExport out;
    std::string rows;
    std::optional<std::string> gitVersion;
    bool mixedVersions = false;
    for (std::size_t i = 0; i < policy.entries.size(); ++i) {
        const LtPolicyEntry& e = policy.entries[i];
        const std::string why = lt_policy_export::hipblasltRefusal(e);
        if (!why.empty()) {
            out.refused.push_back("entry " + std::to_string(i) + " (" + describe(e.matmul) + "): " + why);
            continue;
        }
        if (e.environment.hipblaslt_git_version) {
            if (gitVersion && *gitVersion != *e.environment.hipblaslt_git_version) mixedVersions = true;
            gitVersion = e.environment.hipblaslt_git_version;
        }
        const LtMatmul& m = e.matmul;
        auto op = [](const std::string& t) { return t == "CUBLAS_OP_T" ? "T" : "N"; };
        rows += "transA,transB,batch_count,m,n,k,a_type,b_type,c_type,compute_type,solution_index,solution_name\n";
        rows += std::string(op(m.transa)) + "," + op(m.transb) + "," + std::to_string(m.batch_count) + "," +
                std::to_string(m.m) + "," + std::to_string(m.n) + "," + std::to_string(m.k) + "," +
                lt_policy_export::hipblasltType(m.a_type) + "," + lt_policy_export::hipblasltType(m.b_type) + "," + lt_policy_export::hipblasltType(m.c_type) + "," +
                lt_policy_export::hipblasltCompute(m.compute_type) + "," + std::to_string(*e.algo.solution_index) + "," +
                *e.algo.solution_name + "\n";
        ++out.written;
    }
    if (mixedVersions) {
        out.refused.push_back("the hipBLASLt entries name different hipBLASLt git versions; one override file holds "
                              "one build's solutions: export them separately");
        out.written = 0;
        return out;
    }
    if (out.written > 0) out.text = (gitVersion ? "Git Version: " + *gitVersion + "\n" : std::string()) + rows;
    return out;
}

}  // namespace tunescope
