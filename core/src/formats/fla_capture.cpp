// Reading the FLA capture manifest: the text's faults (unreadable, not UTF-8, malformed, duplicates, NaN, inexact
// numbers), the schema's (fla_capture_check.cpp), then the plain model of a valid manifest.
#include "tunescope/formats/fla_capture.hpp"

#include <algorithm>
#include <cmath>

#include "fla_capture_internal.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_layout.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace detail {

const std::vector<FlaTorchDtype>& flaTorchDtypes() {
    static const std::vector<FlaTorchDtype> table{
        {"torch.bfloat16", "bf16", 2}, {"torch.float16", "fp16", 2}, {"torch.float32", "fp32", 4},
        {"torch.float64", "fp64", 8},  {"torch.int8", "i8", 1},      {"torch.int16", "i16", 2},
        {"torch.int32", "i32", 4},     {"torch.int64", "i64", 8},    {"torch.uint8", "u8", 1},
        {"torch.bool", "i1", 1}};
    return table;
}

const FlaTorchDtype* findFlaTorchDtype(std::string_view torch) {
    for (const auto& d : flaTorchDtypes())
        if (d.torch == torch) return &d;
    return nullptr;
}

std::vector<std::pair<std::string, std::vector<std::int64_t>>> flaOpInputShapes(std::string_view op, const Json& p) {
    const auto get = [&](const char* name) { return p.at(name).get<std::int64_t>(); };
    if (op == "l2norm_fwd") return {{"x", {get("B"), get("T"), get("H"), get("D")}}};
    const std::int64_t B = get("B"), T = get("T"), H = get("H"), HV = get("HV"), K = get("K"), V = get("V");
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> inputs{
        {"q", {B, T, H, K}}, {"k", {B, T, H, K}}, {"v", {B, T, HV, V}}, {"g", {B, T, HV}}, {"beta", {B, T, HV}}};
    if (p.at("initial_state").get<bool>()) inputs.push_back({"initial_state", {B, HV, K, V}});
    return inputs;
}

std::vector<std::string> flaOpOutputNames(std::string_view op, const Json& p) {
    if (op == "l2norm_fwd") return {"y", "rstd"};
    std::vector<std::string> out{"o"};
    if (p.at("output_final_state").get<bool>()) out.push_back("final_state");
    return out;
}

std::int64_t flaTensorExtentBytes(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                                  int itemsize) {
    constexpr std::int64_t kLimit = std::int64_t{1} << 62;
    if (std::any_of(shape.begin(), shape.end(), [](std::int64_t n) { return n == 0; })) return 0;
    std::int64_t last = 0;  // element offset of the last element
    for (std::size_t i = 0; i < shape.size() && i < strides.size(); ++i) {
        const std::int64_t n = shape[i] - 1, st = strides[i];
        if (n > 0 && st > 0 && n > (kLimit - last) / st) return kLimit;
        last += n * st;
    }
    if (last + 1 > kLimit / itemsize) return kLimit;
    return (last + 1) * itemsize;
}

std::string pyStr(const Json& value) { return value.is_string() ? value.get<std::string>() : dumpJson(value, -1); }

}  // namespace detail

std::string flaCaptureValueText(const Json& value) { return dumpJson(value, -1); }

std::string_view toString(FlaArgKind kind) {
    switch (kind) {
    case FlaArgKind::Config: return "config";
    case FlaArgKind::Constexpr: return "constexpr";
    case FlaArgKind::None: return "none";
    case FlaArgKind::Scalar: return "scalar";
    case FlaArgKind::Tensor: return "tensor";
    }
    return "none";
}

const FlaCaptureKernel* FlaCapture::kernel(std::string_view name) const {
    for (const auto& k : kernels)
        if (k.kernel_name == name) return &k;
    return nullptr;
}

const FlaCaptureBinary* FlaCapture::binary(std::string_view hash) const {
    for (const auto& b : binaries)
        if (b.hash == hash) return &b;
    return nullptr;
}

const FlaCaptureCase* FlaCapture::findCase(std::string_view id) const {
    for (const auto& c : cases)
        if (c.id == id) return &c;
    return nullptr;
}

bool isFlaCaptureDocument(const Json& document) {
    if (!document.is_object()) return false;
    const auto it = document.find("format");
    return it != document.end() && it->is_string() && it->get<std::string>().rfind("tunescope-fla-capture-v", 0) == 0;
}

std::string flaCaptureDigest(const Json& document) {
    Json body = document;
    if (body.is_object()) body.erase("digest");
    return sha256Hex(canonicalize(body));
}

namespace {

// The byte offset of the first byte that is not strict UTF-8 (Python's decoder: no overlongs, no surrogates).
std::optional<std::size_t> firstNonUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        std::size_t length = 0;
        char32_t cp = 0, minimum = 0;
        if (byte < 0x80) { ++i; continue; }
        if ((byte & 0xe0) == 0xc0) { length = 2; cp = byte & 0x1f; minimum = 0x80; }
        else if ((byte & 0xf0) == 0xe0) { length = 3; cp = byte & 0x0f; minimum = 0x800; }
        else if ((byte & 0xf8) == 0xf0) { length = 4; cp = byte & 0x07; minimum = 0x10000; }
        else return i;
        if (i + length > text.size()) return i;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xc0) != 0x80) return i;
            cp = (cp << 6) | (next & 0x3f);
        }
        if (cp < minimum || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
        i += length;
    }
    return std::nullopt;
}

// NaN and Infinity tokens (read as IEEE values) are not JSON: every one is a fault.
void findNonFinite(const Json& value, const std::string& pointer, std::vector<FlaCaptureFault>& faults,
                   std::size_t depth = 0) {
    if (value.is_number_float() && !std::isfinite(value.get<double>())) {
        const double x = value.get<double>();
        const std::string token = std::isnan(x) ? "NaN" : (x > 0 ? "Infinity" : "-Infinity");
        faults.push_back({pointer, token + " is not JSON (no NaN or Infinity in a manifest)"});
    } else if (value.is_object() && depth < kMaxJsonDepth) {
        for (auto it = value.begin(); it != value.end(); ++it)
            findNonFinite(it.value(), jsonPointerAppend(pointer, it.key()), faults, depth + 1);
    } else if (value.is_array() && depth < kMaxJsonDepth) {
        for (std::size_t i = 0; i < value.size(); ++i)
            findNonFinite(value[i], jsonPointerAppend(pointer, i), faults, depth + 1);
    }
}

std::optional<std::string> optString(const Json& v) {
    return v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
}
std::optional<std::int64_t> optInt(const Json& v) {
    return v.is_null() ? std::nullopt : std::optional<std::int64_t>(v.get<std::int64_t>());
}
std::optional<double> optDouble(const Json& v) {
    return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
}
std::vector<std::string> strings(const Json& v) { return v.get<std::vector<std::string>>(); }
std::vector<std::int64_t> ints(const Json& v) { return v.get<std::vector<std::int64_t>>(); }
std::vector<std::pair<std::string, std::string>> stringMap(const Json& v) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = v.begin(); it != v.end(); ++it) out.emplace_back(it.key(), it.value().get<std::string>());
    return out;
}

FlaCaptureTensor tensorOf(const Json& t, bool input) {
    FlaCaptureTensor out;
    out.name = t["name"].get<std::string>();
    out.shape = ints(t["shape"]);
    out.dtype = t["dtype"].get<std::string>();
    if (input) {
        const Json& g = t["generator"];
        FlaCaptureGenerator& gen = out.generator;
        gen.distribution = g["distribution"].get<std::string>();
        gen.low = g.value("low", 0.0);
        gen.high = g.value("high", 0.0);
        gen.mean = g.value("mean", 0.0);
        gen.std = g.value("std", 0.0);
        gen.transform = g["transform"].get<std::string>();
        gen.scale = g["scale"].get<double>();
        gen.normalize = g["normalize"].get<std::string>();
    } else {
        out.sha256 = optString(t["sha256"]);
    }
    return out;
}

FlaCaptureCase caseOf(const Json& c) {
    FlaCaptureCase out;
    out.id = c["id"].get<std::string>();
    out.op = c["op"].get<std::string>();
    out.params = c["params"];
    for (const auto& t : c["inputs"]) out.inputs.push_back(tensorOf(t, true));
    for (const auto& t : c["outputs"]) out.outputs.push_back(tensorOf(t, false));
    out.seed = c["seed"].get<std::int64_t>();
    const Json& timing = c["timing"];
    out.first_call_s = optDouble(timing["first_call_s"]);
    out.extra_compile_s = optDouble(timing["extra_compile_s"]);
    out.repeat_calls = timing["repeat_calls"].get<std::int64_t>();
    out.steady_median_ms = optDouble(timing["steady_median_ms"]);
    out.fla_cache_benchmarks = optInt(c["autotune_benchmarks"]["fla_cache_kernels"]);
    out.other_benchmarks = optInt(c["autotune_benchmarks"]["other_kernels"]);
    out.other_autotuned_kernels = strings(c["other_autotuned_kernels"]);
    out.launch_count = c["launch_count"].get<std::int64_t>();
    return out;
}

FlaCaptureConfig configOf(const Json& c) {
    FlaCaptureConfig out;
    out.kwargs = c["kwargs"];
    out.num_warps = c["num_warps"].get<int>();
    out.num_ctas = c["num_ctas"].get<int>();
    out.num_stages = c["num_stages"].get<int>();
    if (!c["maxnreg"].is_null()) out.maxnreg = c["maxnreg"].get<int>();
    out.ir_override = optString(c["ir_override"]);
    out.original = c;
    return out;
}

FlaCaptureArgument argumentOf(const Json& a) {
    FlaCaptureArgument out;
    out.name = a["name"].get<std::string>();
    const std::string kind = a["kind"].get<std::string>();
    out.kind = kind == "config" ? FlaArgKind::Config
             : kind == "constexpr" ? FlaArgKind::Constexpr
             : kind == "scalar" ? FlaArgKind::Scalar
             : kind == "tensor" ? FlaArgKind::Tensor
                                : FlaArgKind::None;
    if (a.contains("value")) out.value = a["value"];
    if (out.kind == FlaArgKind::Scalar) {
        out.triton_type = a["triton_type"].get<std::string>();
        out.do_not_specialize = a["do_not_specialize"].get<bool>();
    }
    if (out.kind != FlaArgKind::Tensor) return out;
    out.dtype = a["dtype"].get<std::string>();
    out.triton_type = a["triton_type"].get<std::string>();
    out.shape = ints(a["shape"]);
    out.strides = ints(a["strides"]);
    out.storage_offset = a["storage_offset"].get<std::int64_t>();
    out.storage_bytes = a["storage_bytes"].get<std::int64_t>();
    out.aligned_16 = a["aligned_16"].get<bool>();
    const Json& o = a["origin"];
    const std::string originKind = o["kind"].get<std::string>();
    if (originKind == "op_input") {
        out.origin.kind = FlaTensorOrigin::Kind::OpInput;
        out.origin.input = o["input"].get<std::string>();
    } else if (originKind == "launch_arg") {
        out.origin.kind = FlaTensorOrigin::Kind::LaunchArg;
        out.origin.sequence = o["sequence"].get<std::int64_t>();
        out.origin.arg = o["arg"].get<std::string>();
    }
    return out;
}

FlaCaptureLaunch launchOf(const Json& l) {
    FlaCaptureLaunch out;
    out.case_id = l["case"].get<std::string>();
    out.sequence = l["sequence"].get<std::int64_t>();
    out.signature_source = l["signature_source"].get<std::string>();
    out.autotune_key = l["autotune_key"];
    out.key_hash = l["key_hash"].get<std::string>();
    out.key_arg_names = strings(l["key_arg_names"]);
    out.dtype_arg_names = strings(l["dtype_arg_names"]);
    for (const auto& a : l["args"]) out.args.push_back(argumentOf(a));
    const Json& at = l["autotune"];
    out.autotune_source = at["source"].get<std::string>();
    out.autotune_benchmarks = at["benchmarks"].get<std::int64_t>();
    out.autotune_seconds = optDouble(at["seconds"]);
    out.chosen_config = optInt(at["chosen_config"]);
    out.timings_ms = at["timings_ms"];
    for (const auto& v : l["variants"])
        out.variants.push_back({v["config"].get<std::int64_t>(), ints(v["grid"]), optString(v["binary"]),
                                optString(v["compile_error"])});
    return out;
}

FlaCaptureKernel kernelOf(const Json& k) {
    FlaCaptureKernel out;
    out.kernel_name = k["kernel_name"].get<std::string>();
    out.source_file = k["source_file"].get<std::string>();
    out.arg_names = strings(k["arg_names"]);
    out.constexpr_names = strings(k["constexpr_names"]);
    out.do_not_specialize = strings(k["do_not_specialize"]);
    out.key_names = strings(k["key_names"]);
    for (const auto& c : k["configs"]) out.configs.push_back(configOf(c));
    for (const auto& l : k["launches"]) out.launches.push_back(launchOf(l));
    return out;
}

std::vector<FlaCaptureFileEntry> filesOf(const Json& files) {
    std::vector<FlaCaptureFileEntry> out;
    for (const auto& f : files)
        out.push_back({f.at(f.contains("name") ? "name" : "file").get<std::string>(), f["sha256"].get<std::string>(),
                       f["bytes"].get<std::int64_t>()});
    return out;
}

FlaCaptureBinary binaryOf(const std::string& hash, const Json& b) {
    FlaCaptureBinary out;
    out.hash = hash;
    out.kernel_name = b["kernel_name"].get<std::string>();
    out.folder = b["folder"].get<std::string>();
    out.metadata_file = b["metadata_file"].get<std::string>();
    out.binary_file = b["binary_file"].get<std::string>();
    out.files = filesOf(b["files"]);
    out.target_backend = b["target"]["backend"].get<std::string>();
    out.target_arch = b["target"]["arch"];
    out.target_warp_size = b["target"]["warp_size"].get<int>();
    out.num_warps = b["num_warps"].get<int>();
    out.num_stages = b["num_stages"].get<int>();
    out.num_ctas = b["num_ctas"].get<int>();
    out.shared = b["shared"].get<std::int64_t>();
    return out;
}

// The model of a manifest that passed every rule.
FlaCapture captureOf(const Json& doc, const std::string& fileName) {
    FlaCapture out;
    out.fileName = fileName;
    out.document = doc;
    out.capture_kind = doc["capture_kind"].get<std::string>();
    out.captured_by = doc["captured_by"].get<std::string>();
    out.created_utc = doc["created_utc"].get<std::string>();
    out.tool_name = doc["tool"]["name"].get<std::string>();
    out.tool_version = doc["tool"]["version"].get<std::string>();
    const Json& s = doc["stack"];
    out.stack = {s["fla_version"].get<std::string>(), s["triton_version"].get<std::string>(), optString(s["torch_version"]),
                 optString(s["cuda_version"]), optString(s["hip_version"]), optString(s["python_version"]),
                 stringMap(s["fla_sources"])};
    const Json& d = doc["device"];
    FlaCaptureDevice& device = out.device;
    device.name = d["name"].get<std::string>();
    device.fla_gpu_name = d["fla_gpu_name"].get<std::string>();
    device.backend = d["backend"].get<std::string>();
    device.arch = d["arch"].get<std::string>();
    if (!d["capability"].is_null()) device.capability = {d["capability"][0].get<int>(), d["capability"][1].get<int>()};
    device.warp_size = d["warp_size"].get<int>();
    device.multiprocessors = optInt(d["multiprocessors"]);
    device.max_shared_mem_bytes = optInt(d["max_shared_mem_bytes"]);
    device.total_memory_bytes = optInt(d["total_memory_bytes"]);
    out.environment = stringMap(doc["environment"]);
    for (const auto& c : doc["cases"]) out.cases.push_back(caseOf(c));
    for (const auto& k : doc["kernels"]) out.kernels.push_back(kernelOf(k));
    for (auto it = doc["binaries"].begin(); it != doc["binaries"].end(); ++it)
        out.binaries.push_back(binaryOf(it.key(), it.value()));
    out.archives = filesOf(doc["triton_cache"]["archives"]);
    out.digest = doc["digest"]["value"].get<std::string>();
    return out;
}

}  // namespace

FlaCaptureCheck checkFlaCaptureText(std::string_view text, const std::string& fileName) {
    FlaCaptureCheck result;
    result.file = fileName;
    if (const auto bad = firstNonUtf8(text)) {
        result.faults.push_back({"", "is not UTF-8 (byte " + std::to_string(*bad) + ")"});
        return result;
    }
    JsonReadOptions options;
    options.allowNonFiniteTokens = true;  // each one is reported with its pointer below
    Json doc;
    try {
        doc = parseJson(text, fileName, options);
    } catch (const Error& e) {
        // A fault of the whole file, as the Python checker reports it; where the parser stopped goes into the text.
        result.faults.push_back({"", e.message() + (e.jsonPath().empty() ? "" : " (inside " + e.jsonPath() + ")")});
        return result;
    }
    findNonFinite(doc, "", result.faults);
    if (result.faults.empty())
        for (const Error& e : jsonSourceFaults(text, fileName)) result.faults.push_back({e.jsonPath(), e.message()});
    if (!result.faults.empty()) return result;
    result.faults = checkFlaCaptureJson(doc);
    if (result.faults.empty()) result.capture = captureOf(doc, fileName);
    return result;
}

FlaCaptureCheck checkFlaCaptureFile(const fs::path& file) {
    std::string text;
    try {
        text = readTextFile(file);
    } catch (const Error& e) {
        FlaCaptureCheck result;
        result.file = file.string();
        result.faults.push_back({e.jsonPath(), e.message()});
        return result;
    }
    return checkFlaCaptureText(text, file.string());
}

FlaCapture readFlaCapture(const fs::path& file) {
    FlaCaptureCheck result = checkFlaCaptureFile(file);
    if (!result.faults.empty()) {
        const auto& first = result.faults.front();
        std::string message = first.message;
        if (result.faults.size() > 1)
            message += " (and " + std::to_string(result.faults.size() - 1) + " more fault" +
                       (result.faults.size() > 2 ? "s" : "") + ": tunescope-cli validate lists them)";
        throw Error(result.file, first.pointer, message);
    }
    return std::move(*result.capture);
}

std::string flaCaptureSummary(const FlaCapture& capture) {
    std::size_t launches = 0, variants = 0;
    for (const auto& k : capture.kernels) {
        launches += k.launches.size();
        for (const auto& l : k.launches) variants += l.variants.size();
    }
    return capture.capture_kind + " capture, " + std::to_string(capture.cases.size()) + " cases, " +
           std::to_string(capture.kernels.size()) + " kernels, " + std::to_string(launches) + " launches, " +
           std::to_string(variants) + " variants, " + std::to_string(capture.binaries.size()) + " binaries";
}

}  // namespace tunescope
