#include "tunescope/formats/report.hpp"

#include "report_internal.hpp"

namespace tunescope {

using detail::ModelReader;
using detail::Need;
using detail::objectOrEmpty;
using detail::put;
using detail::putNullable;
using detail::putOptional;

std::string describe(const CublasLtAlgoConfig& c) {
    std::string text = "algo " + std::to_string(c.algorithm_id) + " tile " + std::to_string(c.tile_id) + " stages " +
                       std::to_string(c.stages_id) + " split_k " + std::to_string(c.split_k) + " reduction " +
                       std::to_string(c.reduction_scheme) + " custom " + std::to_string(c.custom_option) +
                       " swizzle " + std::to_string(c.cta_swizzle);
    if (c.inner_shape) text += " inner " + std::to_string(*c.inner_shape);
    if (c.cluster_shape) text += " cluster " + std::to_string(*c.cluster_shape);
    return text;
}

namespace {

// An optional object member; null counts as absent (reports write null for "nothing here").
const Json* optionalObject(ModelReader& r, const Json& parent, const std::string& path, std::string_view key) {
    const Json* v = r.member(parent, path, key, Need::Optional);
    if (!v || v->is_null()) return nullptr;
    return r.isObject(*v, jsonPointerAppend(path, key)) ? v : nullptr;
}

template <typename T, typename Write>
void putOptionalObject(Json& object, const std::string& key, const std::optional<T>& value, Write write) {
    if (value) put(object, key, write(*value));
    else if (object.contains(key) && !object[key].is_null()) object.erase(key);
}

// --- reading -----------------------------------------------------------------------------------------------------

CublasLtAlgoConfig readAlgoConfig(const Json& v, const std::string& path, ModelReader& r) {
    CublasLtAlgoConfig c;
    auto id = [&](const char* key, std::int64_t& out) {
        if (const auto x = r.integer(v, path, key)) out = *x;
    };
    id("algorithm_id", c.algorithm_id);
    id("tile_id", c.tile_id);
    id("stages_id", c.stages_id);
    id("split_k", c.split_k);
    id("reduction_scheme", c.reduction_scheme);
    id("custom_option", c.custom_option);
    id("cta_swizzle", c.cta_swizzle);
    c.inner_shape = r.nullableInteger(v, path, "inner_shape");
    c.cluster_shape = r.nullableInteger(v, path, "cluster_shape");
    return c;
}

std::optional<AlgoConfigObject> readConfigObject(const Json& parent, const std::string& path, std::string_view key,
                                                 ModelReader& r) {
    const Json* v = optionalObject(r, parent, path, key);
    if (!v) return std::nullopt;
    AlgoConfigObject out;
    out.original = *v;
    out.config = readAlgoConfig(*v, jsonPointerAppend(path, key), r);
    return out;
}

ReportedCapabilities readCapabilities(const Json& v, const std::string& path, ModelReader& r) {
    ReportedCapabilities c;
    c.original = v;
    c.split_k_support = r.integer(v, path, "split_k_support", Need::Optional);
    c.reduction_scheme_mask = r.integer(v, path, "reduction_scheme_mask", Need::Optional);
    c.cta_swizzle_support = r.integer(v, path, "cta_swizzle_support", Need::Optional);
    c.custom_option_max = r.integer(v, path, "custom_option_max", Need::Optional);
    c.strided_batch_support = r.integer(v, path, "strided_batch_support", Need::Optional);
    c.out_of_place_result_support = r.integer(v, path, "out_of_place_result_support", Need::Optional);
    c.tile_ids = r.integerList(v, path, "tile_ids");
    c.stages_ids = r.integerList(v, path, "stages_ids");
    c.inner_cluster_shape_capability_note = r.string(v, path, "inner_cluster_shape_capability_note", Need::Optional);
    return c;
}

HeuristicAlgorithm readAlgorithm(const Json& v, const std::string& path, ModelReader& r) {
    HeuristicAlgorithm a;
    a.original = v;
    if (!r.isObject(v, path)) return a;
    a.config = readAlgoConfig(v, path, r);
    a.required_workspace_bytes = r.integer(v, path, "required_workspace_bytes", Need::Optional, 0);
    a.waves = r.number(v, path, "waves", Need::Optional);
    a.state = r.integer(v, path, "state", Need::Optional);
    a.api_status = r.integer(v, path, "api_status", Need::Optional);
    a.valid = r.boolean(v, path, "valid", Need::Optional);
    if (const Json* caps = optionalObject(r, v, path, "capabilities"))
        a.capabilities = readCapabilities(*caps, jsonPointerAppend(path, "capabilities"), r);
    return a;
}

ReportEnvironment readEnvironment(const Json& v, const std::string& path, ModelReader& r) {
    ReportEnvironment e;
    e.original = v;
    e.platform = r.string(v, path, "platform", Need::Optional);
    e.python = r.string(v, path, "python", Need::Optional);
    e.torch = r.string(v, path, "torch", Need::Optional);
    e.torch_cuda = r.string(v, path, "torch_cuda", Need::Optional);
    e.device = r.string(v, path, "device", Need::Optional);
    e.device_capability = r.integerList(v, path, "device_capability");
    e.driver = r.nullableString(v, path, "driver");
    e.git_commit = r.nullableString(v, path, "git_commit");
    e.checkpoint_path = r.nullableString(v, path, "checkpoint_path");
    e.checkpoint_sha256 = r.nullableString(v, path, "checkpoint_sha256");
    e.checkpoint_hash_note = r.nullableString(v, path, "checkpoint_hash_note");
    if (const Json* sw = optionalObject(r, v, path, "environment_switches")) {
        e.environment_switches.emplace();
        const std::string at = jsonPointerAppend(path, "environment_switches");
        for (const auto& [name, value] : sw->items())
            if (const auto text = r.asString(value, jsonPointerAppend(at, name)))
                e.environment_switches->emplace_back(name, *text);
    }
    if (const Json* x = optionalObject(r, v, path, "extension")) {
        const std::string at = jsonPointerAppend(path, "extension");
        ReportExtension ext;
        ext.original = *x;
        ext.cuda_version = r.integer(*x, at, "cuda_version", Need::Optional);
        ext.cublas_version = r.integer(*x, at, "cublas_version", Need::Optional);
        ext.cuda_runtime_version = r.integer(*x, at, "cuda_runtime_version", Need::Optional);
        ext.cublaslt_runtime_version = r.integer(*x, at, "cublaslt_runtime_version", Need::Optional);
        ext.stream_k_public_control = r.boolean(*x, at, "stream_k_public_control", Need::Optional);
        ext.stream_k_note = r.string(*x, at, "stream_k_note", Need::Optional);
        e.extension = std::move(ext);
    }
    e.comfy_kitchen = r.nullableString(v, path, "comfy_kitchen");
    return e;
}

std::optional<std::vector<std::vector<std::int64_t>>> readIntegerTable(const Json& v, const std::string& path,
                                                                      std::string_view key, ModelReader& r) {
    const Json* list = r.array(v, path, key, Need::Optional);
    if (!list) return std::nullopt;
    const std::string at = jsonPointerAppend(path, key);
    std::vector<std::vector<std::int64_t>> out;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string rowAt = jsonPointerAppend(at, i);
        if (!r.isArray((*list)[i], rowAt)) return std::nullopt;
        std::vector<std::int64_t> row;
        for (std::size_t j = 0; j < (*list)[i].size(); ++j)
            if (const auto x = r.asInteger((*list)[i][j], jsonPointerAppend(rowAt, j))) row.push_back(*x);
        out.push_back(std::move(row));
    }
    return out;
}

ReportWorkload readWorkload(const Json& v, const std::string& path, ModelReader& r) {
    ReportWorkload w;
    w.original = v;
    w.resolution = r.integerList(v, path, "resolution");
    w.frames = r.integer(v, path, "frames", Need::Optional);
    w.steps = r.integer(v, path, "steps", Need::Optional);
    w.sampler_step = r.integer(v, path, "sampler_step", Need::Optional);
    w.seed = r.integer(v, path, "seed", Need::Optional);
    w.text_tokens = r.integer(v, path, "text_tokens", Need::Optional);
    w.tokens = r.integer(v, path, "tokens", Need::Optional);
    w.hidden_shape = r.integerList(v, path, "hidden_shape");
    w.segments = readIntegerTable(v, path, "segments", r);
    return w;
}

Fc2Boundary readFc2(const Json& v, const std::string& path, ModelReader& r) {
    Fc2Boundary f;
    f.original = v;
    f.block = r.integer(v, path, "block", Need::Optional);
    f.gate_up_shape = r.integerList(v, path, "gate_up_shape");
    f.activation_qdata_shape = r.integerList(v, path, "activation_qdata_shape");
    f.weight_qdata_shape = r.integerList(v, path, "weight_qdata_shape");
    f.logical_mnk = r.integerList(v, path, "logical_mnk");
    f.descriptor_mnk_after_padding = r.integerList(v, path, "descriptor_mnk_after_padding");
    f.producer = r.string(v, path, "producer", Need::Optional);
    f.no_bias = r.boolean(v, path, "no_bias", Need::Optional);
    return f;
}

BaselineKernelMetadata readBaseline(const Json& v, const std::string& path, ModelReader& r) {
    BaselineKernelMetadata b;
    b.original = v;
    b.path = r.string(v, path, "path", Need::Optional);
    if (const Json* d = optionalObject(r, v, path, "descriptors")) b.descriptors = *d;
    b.profiler_cuda_events_available = r.boolean(v, path, "profiler_cuda_events_available", Need::Optional);
    b.profiler_note = r.string(v, path, "profiler_note", Need::Optional);
    if (const Json* events = r.array(v, path, "top_cuda_events", Need::Optional)) b.top_cuda_events = *events;
    b.output_sha256 = r.nullableString(v, path, "output_sha256");
    return b;
}

ParityCheck readParity(const Json& v, const std::string& path, ModelReader& r) {
    ParityCheck p;
    p.original = v;
    p.bf16_exact = r.boolean(v, path, "bf16_exact", Need::Optional);
    p.different_elements = r.integer(v, path, "different_elements", Need::Optional, 0);
    p.max_abs = r.number(v, path, "max_abs", Need::Optional);
    p.mean_abs = r.number(v, path, "mean_abs", Need::Optional);
    p.actual_sha256 = r.nullableString(v, path, "actual_sha256");
    p.expected_sha256 = r.nullableString(v, path, "expected_sha256");
    return p;
}

Trajectory readTrajectory(const Json& v, const std::string& path, ModelReader& r) {
    Trajectory t;
    t.original = v;
    t.steps = r.integer(v, path, "steps", Need::Optional);
    t.resolution = r.integerList(v, path, "resolution");
    t.frames = r.integer(v, path, "frames", Need::Optional);
    t.seed = r.integer(v, path, "seed", Need::Optional);
    t.baseline_seconds = r.number(v, path, "baseline_seconds", Need::Optional);
    t.candidate_seconds = r.number(v, path, "candidate_seconds", Need::Optional);
    t.improvement_percent = r.number(v, path, "improvement_percent", Need::Optional);
    if (const Json* p = optionalObject(r, v, path, "video_parity"))
        t.video_parity = readParity(*p, jsonPointerAppend(path, "video_parity"), r);
    if (const Json* p = optionalObject(r, v, path, "audio_parity"))
        t.audio_parity = readParity(*p, jsonPointerAppend(path, "audio_parity"), r);
    t.bf16_exact = r.boolean(v, path, "bf16_exact", Need::Optional);
    t.selected_config = readConfigObject(v, path, "selected_config", r);
    t.supplied_workspace_bytes = r.integer(v, path, "supplied_workspace_bytes", Need::Optional, 0);
    t.production_dispatch = r.boolean(v, path, "production_dispatch", Need::Optional);
    if (const Json* d = optionalObject(r, v, path, "dispatch_delta")) {
        const std::string at = jsonPointerAppend(path, "dispatch_delta");
        DispatchDelta delta;
        delta.original = *d;
        delta.attempts = r.integer(*d, at, "attempts", Need::Optional, 0);
        delta.successes = r.integer(*d, at, "successes", Need::Optional, 0);
        delta.fallbacks = r.integer(*d, at, "fallbacks", Need::Optional, 0);
        t.dispatch_delta = std::move(delta);
    }
    return t;
}

}  // namespace

namespace detail {

CublasLtReport readReport(const Json& doc, ModelReader& r) {
    CublasLtReport rep;
    rep.original = doc;
    rep.fileName = r.file();
    if (!r.isObject(doc, "")) return rep;
    rep.mode = r.string(doc, "", "mode", Need::Optional);
    if (const Json* v = optionalObject(r, doc, "", "environment")) rep.environment = readEnvironment(*v, "/environment", r);
    if (const Json* v = optionalObject(r, doc, "", "workload")) rep.workload = readWorkload(*v, "/workload", r);
    if (const Json* v = optionalObject(r, doc, "", "fc2_boundary")) rep.fc2_boundary = readFc2(*v, "/fc2_boundary", r);
    if (const Json* v = optionalObject(r, doc, "", "baseline_kernel_metadata"))
        rep.baseline_kernel_metadata = readBaseline(*v, "/baseline_kernel_metadata", r);
    if (const Json* list = r.array(doc, "", "heuristics")) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/heuristics", i);
            const Json& item = (*list)[i];
            if (!r.isObject(item, at)) continue;
            HeuristicSet set;
            set.original = item;
            if (const auto v = r.integer(item, at, "max_workspace_bytes", Need::Required, 0)) set.max_workspace_bytes = *v;
            set.requested_count = r.integer(item, at, "requested_count", Need::Optional, 0);
            set.returned_count = r.integer(item, at, "returned_count", Need::Optional, 0);
            if (const Json* algos = r.array(item, at, "algorithms")) {
                const std::string algosAt = jsonPointerAppend(at, "algorithms");
                for (std::size_t j = 0; j < algos->size(); ++j)
                    set.algorithms.push_back(readAlgorithm((*algos)[j], jsonPointerAppend(algosAt, j), r));
            }
            rep.heuristics.push_back(std::move(set));
        }
    }
    if (const Json* list = r.array(doc, "", "explicit_split_k_checks", Need::Optional)) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/explicit_split_k_checks", i);
            SplitKCheck check;
            check.result = readAlgorithm((*list)[i], at, r);
            if ((*list)[i].is_object()) check.requested_config = readConfigObject((*list)[i], at, "requested_config", r);
            rep.explicit_split_k_checks.push_back(std::move(check));
        }
    }
    rep.selected = readConfigObject(doc, "", "selected", r);
    if (const Json* v = optionalObject(r, doc, "", "trajectory")) rep.trajectory = readTrajectory(*v, "/trajectory", r);
    if (const Json* list = r.array(doc, "", "errors_and_unsupported", Need::Optional)) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/errors_and_unsupported", i);
            const Json& item = (*list)[i];
            if (!r.isObject(item, at)) continue;
            UnsupportedFeature f;
            f.original = item;
            if (const auto v = r.string(item, at, "feature")) f.feature = *v;
            f.supported_public_control = r.boolean(item, at, "supported_public_control", Need::Optional);
            f.reason = r.nullableString(item, at, "reason");
            rep.errors_and_unsupported.push_back(std::move(f));
        }
    }
    return rep;
}

}  // namespace detail

namespace {

// --- writing -----------------------------------------------------------------------------------------------------

void writeAlgoConfig(Json& out, const CublasLtAlgoConfig& c) {
    put(out, "algorithm_id", c.algorithm_id);
    put(out, "tile_id", c.tile_id);
    put(out, "stages_id", c.stages_id);
    put(out, "split_k", c.split_k);
    put(out, "reduction_scheme", c.reduction_scheme);
    put(out, "custom_option", c.custom_option);
    put(out, "cta_swizzle", c.cta_swizzle);
    putNullable(out, "inner_shape", c.inner_shape);
    putNullable(out, "cluster_shape", c.cluster_shape);
}

Json configObjectToJson(const AlgoConfigObject& o) {
    Json out = objectOrEmpty(o.original);
    writeAlgoConfig(out, o.config);
    return out;
}

Json capabilitiesToJson(const ReportedCapabilities& c) {
    Json out = objectOrEmpty(c.original);
    putOptional(out, "split_k_support", c.split_k_support);
    putOptional(out, "reduction_scheme_mask", c.reduction_scheme_mask);
    putOptional(out, "cta_swizzle_support", c.cta_swizzle_support);
    putOptional(out, "custom_option_max", c.custom_option_max);
    putOptional(out, "strided_batch_support", c.strided_batch_support);
    putOptional(out, "out_of_place_result_support", c.out_of_place_result_support);
    putOptional(out, "tile_ids", c.tile_ids);
    putOptional(out, "stages_ids", c.stages_ids);
    putOptional(out, "inner_cluster_shape_capability_note", c.inner_cluster_shape_capability_note);
    return out;
}

Json algorithmToJson(const HeuristicAlgorithm& a) {
    Json out = objectOrEmpty(a.original);
    writeAlgoConfig(out, a.config);
    putOptional(out, "required_workspace_bytes", a.required_workspace_bytes);
    putOptional(out, "waves", a.waves);
    putOptional(out, "state", a.state);
    putOptional(out, "api_status", a.api_status);
    putOptional(out, "valid", a.valid);
    putOptionalObject(out, "capabilities", a.capabilities, capabilitiesToJson);
    return out;
}

Json environmentToJson(const ReportEnvironment& e) {
    Json out = objectOrEmpty(e.original);
    putOptional(out, "platform", e.platform);
    putOptional(out, "python", e.python);
    putOptional(out, "torch", e.torch);
    putOptional(out, "torch_cuda", e.torch_cuda);
    putOptional(out, "device", e.device);
    putOptional(out, "device_capability", e.device_capability);
    putNullable(out, "driver", e.driver);
    putNullable(out, "git_commit", e.git_commit);
    putNullable(out, "checkpoint_path", e.checkpoint_path);
    putNullable(out, "checkpoint_sha256", e.checkpoint_sha256);
    putNullable(out, "checkpoint_hash_note", e.checkpoint_hash_note);
    if (e.environment_switches) {
        Json sw = Json::object();
        for (const auto& [name, value] : *e.environment_switches) sw[name] = value;
        put(out, "environment_switches", sw);
    } else if (out.contains("environment_switches") && !out["environment_switches"].is_null()) {
        out.erase("environment_switches");
    }
    putOptionalObject(out, "extension", e.extension, [](const ReportExtension& x) {
        Json j = objectOrEmpty(x.original);
        putOptional(j, "cuda_version", x.cuda_version);
        putOptional(j, "cublas_version", x.cublas_version);
        putOptional(j, "cuda_runtime_version", x.cuda_runtime_version);
        putOptional(j, "cublaslt_runtime_version", x.cublaslt_runtime_version);
        putOptional(j, "stream_k_public_control", x.stream_k_public_control);
        putOptional(j, "stream_k_note", x.stream_k_note);
        return j;
    });
    putNullable(out, "comfy_kitchen", e.comfy_kitchen);
    return out;
}

Json workloadToJson(const ReportWorkload& w) {
    Json out = objectOrEmpty(w.original);
    putOptional(out, "resolution", w.resolution);
    putOptional(out, "frames", w.frames);
    putOptional(out, "steps", w.steps);
    putOptional(out, "sampler_step", w.sampler_step);
    putOptional(out, "seed", w.seed);
    putOptional(out, "text_tokens", w.text_tokens);
    putOptional(out, "tokens", w.tokens);
    putOptional(out, "hidden_shape", w.hidden_shape);
    putOptional(out, "segments", w.segments);
    return out;
}

Json fc2ToJson(const Fc2Boundary& f) {
    Json out = objectOrEmpty(f.original);
    putOptional(out, "block", f.block);
    putOptional(out, "gate_up_shape", f.gate_up_shape);
    putOptional(out, "activation_qdata_shape", f.activation_qdata_shape);
    putOptional(out, "weight_qdata_shape", f.weight_qdata_shape);
    putOptional(out, "logical_mnk", f.logical_mnk);
    putOptional(out, "descriptor_mnk_after_padding", f.descriptor_mnk_after_padding);
    putOptional(out, "producer", f.producer);
    putOptional(out, "no_bias", f.no_bias);
    return out;
}

Json baselineToJson(const BaselineKernelMetadata& b) {
    Json out = objectOrEmpty(b.original);
    putOptional(out, "path", b.path);
    if (b.descriptors.is_object()) put(out, "descriptors", b.descriptors);
    else if (out.contains("descriptors") && !out["descriptors"].is_null()) out.erase("descriptors");
    putOptional(out, "profiler_cuda_events_available", b.profiler_cuda_events_available);
    putOptional(out, "profiler_note", b.profiler_note);
    if (b.top_cuda_events.is_array()) put(out, "top_cuda_events", b.top_cuda_events);
    else if (out.contains("top_cuda_events")) out.erase("top_cuda_events");
    putNullable(out, "output_sha256", b.output_sha256);
    return out;
}

Json parityToJson(const ParityCheck& p) {
    Json out = objectOrEmpty(p.original);
    putOptional(out, "bf16_exact", p.bf16_exact);
    putOptional(out, "different_elements", p.different_elements);
    putOptional(out, "max_abs", p.max_abs);
    putOptional(out, "mean_abs", p.mean_abs);
    putNullable(out, "actual_sha256", p.actual_sha256);
    putNullable(out, "expected_sha256", p.expected_sha256);
    return out;
}

Json trajectoryToJson(const Trajectory& t) {
    Json out = objectOrEmpty(t.original);
    putOptional(out, "steps", t.steps);
    putOptional(out, "resolution", t.resolution);
    putOptional(out, "frames", t.frames);
    putOptional(out, "seed", t.seed);
    putOptional(out, "baseline_seconds", t.baseline_seconds);
    putOptional(out, "candidate_seconds", t.candidate_seconds);
    putOptional(out, "improvement_percent", t.improvement_percent);
    putOptionalObject(out, "video_parity", t.video_parity, parityToJson);
    putOptionalObject(out, "audio_parity", t.audio_parity, parityToJson);
    putOptional(out, "bf16_exact", t.bf16_exact);
    putOptionalObject(out, "selected_config", t.selected_config, configObjectToJson);
    putOptional(out, "supplied_workspace_bytes", t.supplied_workspace_bytes);
    putOptional(out, "production_dispatch", t.production_dispatch);
    putOptionalObject(out, "dispatch_delta", t.dispatch_delta, [](const DispatchDelta& d) {
        Json j = objectOrEmpty(d.original);
        putOptional(j, "attempts", d.attempts);
        putOptional(j, "successes", d.successes);
        putOptional(j, "fallbacks", d.fallbacks);
        return j;
    });
    return out;
}

}  // namespace

CublasLtReport parseReport(const Json& document, const std::string& fileName) {
    ModelReader reader(fileName, /*collect=*/false);
    return detail::readReport(document, reader);
}

CublasLtReport parseReportText(std::string_view text, const std::string& fileName) {
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;
    CublasLtReport report = parseReport(parseJson(text, fileName, options), fileName);
    report.layout = detectJsonLayout(text);
    return report;
}

CublasLtReport loadReport(const std::filesystem::path& file) {
    return parseReportText(readTextFile(file), file.string());
}

Json toJson(const CublasLtReport& rep) {
    Json doc = objectOrEmpty(rep.original);
    putOptional(doc, "mode", rep.mode);
    putOptionalObject(doc, "environment", rep.environment, environmentToJson);
    putOptionalObject(doc, "workload", rep.workload, workloadToJson);
    putOptionalObject(doc, "fc2_boundary", rep.fc2_boundary, fc2ToJson);
    putOptionalObject(doc, "baseline_kernel_metadata", rep.baseline_kernel_metadata, baselineToJson);
    Json heuristics = Json::array();
    for (const auto& set : rep.heuristics) {
        Json item = objectOrEmpty(set.original);
        put(item, "max_workspace_bytes", set.max_workspace_bytes);
        putOptional(item, "requested_count", set.requested_count);
        putOptional(item, "returned_count", set.returned_count);
        Json algos = Json::array();
        for (const auto& a : set.algorithms) algos.push_back(algorithmToJson(a));
        put(item, "algorithms", algos);
        heuristics.push_back(std::move(item));
    }
    put(doc, "heuristics", heuristics);
    if (!rep.explicit_split_k_checks.empty() || doc.contains("explicit_split_k_checks")) {
        Json checks = Json::array();
        for (const auto& c : rep.explicit_split_k_checks) {
            Json item = algorithmToJson(c.result);
            putOptionalObject(item, "requested_config", c.requested_config, configObjectToJson);
            checks.push_back(std::move(item));
        }
        put(doc, "explicit_split_k_checks", checks);
    }
    if (rep.selected) put(doc, "selected", configObjectToJson(*rep.selected));
    else if (doc.contains("selected")) doc["selected"] = nullptr;
    putOptionalObject(doc, "trajectory", rep.trajectory, trajectoryToJson);
    if (!rep.errors_and_unsupported.empty() || doc.contains("errors_and_unsupported")) {
        Json errors = Json::array();
        for (const auto& f : rep.errors_and_unsupported) {
            Json item = objectOrEmpty(f.original);
            put(item, "feature", f.feature);
            putOptional(item, "supported_public_control", f.supported_public_control);
            putNullable(item, "reason", f.reason);
            errors.push_back(std::move(item));
        }
        put(doc, "errors_and_unsupported", errors);
    }
    return doc;
}

std::string serializeReport(const CublasLtReport& report) { return serializeJson(toJson(report), report.layout); }

void saveReport(const CublasLtReport& report, const std::filesystem::path& file) {
    writeFileAtomic(file, serializeReport(report));
}

}  // namespace tunescope
