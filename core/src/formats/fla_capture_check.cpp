// The capture manifest's rules (docs/fla-capture.md section 4), in the order scripts/fla_manifest_check.py checks
// them: each function here is the Python function of the same name, so that both report the same JSON Pointers.
#include <algorithm>
#include <map>
#include <set>

#include "fla_capture_internal.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"

namespace tunescope {

namespace {

using detail::findFlaTorchDtype;
using detail::pyStr;

// ---- patterns (hand-written: std::regex recurses per character and a fuzzed string could exhaust the stack) ----

bool isAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlnum(char c) { return isAlpha(c) || isDigit(c); }
bool isLowerHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f'); }

template <typename First, typename Rest>
bool headAndTail(std::string_view s, First first, Rest rest) {
    return !s.empty() && first(s[0]) && std::all_of(s.begin() + 1, s.end(), rest);
}

struct Pattern {
    const char* text;
    bool (*match)(std::string_view);
};

const Pattern kIdent{"^[A-Za-z_][A-Za-z0-9_]*$", [](std::string_view s) {
    return headAndTail(s, [](char c) { return isAlpha(c) || c == '_'; }, [](char c) { return isAlnum(c) || c == '_'; });
}};
const Pattern kCaseId{"^[A-Za-z0-9][A-Za-z0-9_.-]*$", [](std::string_view s) {
    return headAndTail(s, isAlnum, [](char c) { return isAlnum(c) || c == '_' || c == '.' || c == '-'; });
}};
const Pattern kHex64{"^[0-9a-f]{64}$",
                     [](std::string_view s) { return s.size() == 64 && std::all_of(s.begin(), s.end(), isLowerHex); }};
const Pattern kHex32{"^[0-9a-f]{32}$",
                     [](std::string_view s) { return s.size() == 32 && std::all_of(s.begin(), s.end(), isLowerHex); }};
const Pattern kUtc{"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$", [](std::string_view s) {
    constexpr std::string_view shape = "dddd-dd-ddTdd:dd:ddZ";
    if (s.size() != shape.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (shape[i] == 'd' ? !isDigit(s[i]) : s[i] != shape[i]) return false;
    return true;
}};
const Pattern kFlaSource{"^fla/[A-Za-z0-9_/-]+\\.py$", [](std::string_view s) {
    if (s.size() < 4 + 1 + 3 || s.substr(0, 4) != "fla/" || s.substr(s.size() - 3) != ".py") return false;
    const std::string_view middle = s.substr(4, s.size() - 7);
    return std::all_of(middle.begin(), middle.end(), [](char c) { return isAlnum(c) || c == '_' || c == '/' || c == '-'; });
}};
const Pattern kPlainFile{"^[A-Za-z0-9_][A-Za-z0-9_.=-]*$", [](std::string_view s) {
    return headAndTail(s, [](char c) { return isAlnum(c) || c == '_'; },
                       [](char c) { return isAlnum(c) || c == '_' || c == '.' || c == '=' || c == '-'; });
}};
const Pattern kCudaArch{"^sm_[0-9]+[a-z]?$", [](std::string_view s) {
    if (s.size() < 4 || s.substr(0, 3) != "sm_") return false;
    std::string_view rest = s.substr(3);
    if (!rest.empty() && rest.back() >= 'a' && rest.back() <= 'z') rest.remove_suffix(1);
    return !rest.empty() && std::all_of(rest.begin(), rest.end(), isDigit);
}};
const Pattern kHipArch{"^gfx[0-9a-f]+$", [](std::string_view s) {
    return s.size() > 3 && s.substr(0, 3) == "gfx" && std::all_of(s.begin() + 3, s.end(), isLowerHex);
}};
const Pattern kEnvName{"^[A-Z][A-Z0-9_]*$", [](std::string_view s) {
    return headAndTail(s, [](char c) { return c >= 'A' && c <= 'Z'; },
                       [](char c) { return (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_'; });
}};
const Pattern kGpuName{"^[0-9A-Za-z_]+$", [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return isAlnum(c) || c == '_'; });
}};

using Names = std::vector<std::string_view>;
const Names kCaptureKinds{"device", "hand-made"};
const Names kGradModes{"no_grad"};
const Names kSteadyTimers{"cuda_events"};
const Names kSignatureSources{"compiled", "derived", "fla_source"};
const Names kAutotuneSources{"benchmarked", "fla_config_file", "memory", "triton_disk_cache", "single_config",
                             "not_run"};
const Names kArgKinds{"tensor", "scalar", "none", "constexpr", "config"};
const Names kOriginKinds{"op_input", "launch_arg", "new"};
const Names kDistributions{"uniform", "normal", "zeros"};
const Names kTransforms{"none", "sigmoid", "logsigmoid"};
const Names kNormalize{"none", "l2_last_dim"};
const Names kBackends{"cuda", "hip"};
const Names kOps{"chunk_gated_delta_rule", "l2norm_fwd"};

Names torchDtypeNames() {
    Names out;
    for (const auto& d : detail::flaTorchDtypes()) out.push_back(d.torch);
    return out;
}

struct ScalarRule {
    std::string_view type;
    enum { Bool, Float, Int } kind;
    std::int64_t lo = 0, hi = 0;
};
constexpr std::int64_t kInt64Max = 0x7fffffffffffffffLL;
const std::vector<ScalarRule> kScalarTypes{
    {"i1", ScalarRule::Bool}, {"u1", ScalarRule::Bool},
    {"i8", ScalarRule::Int, -128, 127}, {"i16", ScalarRule::Int, -32768, 32767},
    {"i32", ScalarRule::Int, -2147483648LL, 2147483647LL}, {"i64", ScalarRule::Int, -kInt64Max - 1, kInt64Max},
    {"u8", ScalarRule::Int, 0, 255}, {"u16", ScalarRule::Int, 0, 65535}, {"u32", ScalarRule::Int, 0, 4294967295LL},
    {"u64", ScalarRule::Int, 0, kInt64Max},  // JSON integers here are within 2^53 anyway
    {"fp16", ScalarRule::Float}, {"bf16", ScalarRule::Float}, {"fp32", ScalarRule::Float},
    {"fp64", ScalarRule::Float}};

Names scalarTypeNames() {
    Names out;
    for (const auto& r : kScalarTypes) out.push_back(r.type);
    return out;
}

bool contains(const Names& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool contains(const std::vector<std::string>& names, const Json& name) {
    return name.is_string() && std::find(names.begin(), names.end(), name.get_ref<const std::string&>()) != names.end();
}

std::string join(const Names& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

// ---- Python's types, as the checker sees JSON values ----

bool isInt(const Json& v) { return v.is_number_integer(); }  // integer and unsigned: Python's int
bool isNumber(const Json& v) { return v.is_number(); }
bool isScalar(const Json& v) { return v.is_null() || v.is_boolean() || v.is_number() || v.is_string(); }
std::int64_t intOf(const Json& v) { return v.get<std::int64_t>(); }
const std::string& str(const Json& v) { return v.get_ref<const std::string&>(); }

std::string kindName(const Json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

// Python's `got != want or type(got) is not type(want)` over JSON scalars: the same type (an integer is one type,
// signed or not) and the same value.
int pythonType(const Json& v) {
    if (v.is_boolean()) return 1;
    if (isInt(v)) return 2;
    if (v.is_number_float()) return 3;
    return static_cast<int>(v.type()) + 10;
}
bool sameTypedValue(const Json& a, const Json& b) {
    if (pythonType(a) != pythonType(b)) return false;
    if (isInt(a)) return intOf(a) == intOf(b);
    return a == b;
}

const Json kNull;
// dict.get(name): the member, or null.
const Json& member(const Json& object, std::string_view name) {
    if (!object.is_object()) return kNull;
    const auto it = object.find(std::string(name));
    return it == object.end() ? kNull : *it;
}
bool has(const Json& object, std::string_view name) {
    return object.is_object() && object.find(std::string(name)) != object.end();
}

std::string join(const std::string& pointer, std::string_view token) { return jsonPointerAppend(pointer, token); }
std::string join(const std::string& pointer, std::size_t index) { return jsonPointerAppend(pointer, index); }

class Checker {
public:
    std::vector<FlaCaptureFault> faults;

    bool fail(const std::string& pointer, std::string message) {
        faults.push_back({pointer, std::move(message)});
        return false;
    }

    bool members(const Json& v, const std::string& ptr, const Names& required) {
        if (!v.is_object()) return fail(ptr, "must be an object, not " + kindName(v));
        for (auto it = v.begin(); it != v.end(); ++it)
            if (!contains(required, it.key())) fail(join(ptr, it.key()), "unknown member");
        bool complete = true;
        for (const auto name : required)
            if (!has(v, name)) complete = fail(join(ptr, name), "is missing");
        return complete;
    }

    bool string(const Json& v, const std::string& ptr, const Pattern* pattern = nullptr, const Names* allowed = nullptr,
                bool null = false) {
        if (v.is_null() && null) return true;
        if (!v.is_string())
            return fail(ptr, "must be a string" + std::string(null ? " or null" : "") + ", not " + kindName(v));
        if (allowed && !contains(*allowed, str(v))) return fail(ptr, "'" + str(v) + "' is not one of " + join(*allowed));
        if (pattern && !pattern->match(str(v)))
            return fail(ptr, "'" + str(v) + "' does not match " + pattern->text);
        return true;
    }
    bool string(const Json& v, const std::string& ptr, const Pattern& pattern) { return string(v, ptr, &pattern); }
    bool oneOf(const Json& v, const std::string& ptr, const Names& allowed, bool null = false) {
        return string(v, ptr, nullptr, &allowed, null);
    }

    bool integer(const Json& v, const std::string& ptr, std::optional<std::int64_t> lo = std::nullopt,
                 std::optional<std::int64_t> hi = std::nullopt, bool null = false) {
        if (v.is_null() && null) return true;
        if (!isInt(v)) return fail(ptr, "must be an integer" + std::string(null ? " or null" : "") + ", not " + kindName(v));
        if (lo && intOf(v) < *lo)
            return fail(ptr, pyStr(v) + " is below the least legal value " + std::to_string(*lo));
        if (hi && intOf(v) > *hi)
            return fail(ptr, pyStr(v) + " is above the largest legal value " + std::to_string(*hi));
        return true;
    }

    bool number(const Json& v, const std::string& ptr, std::optional<double> lo = std::nullopt, bool positive = false,
                bool null = false) {
        if (v.is_null() && null) return true;
        if (!isNumber(v)) return fail(ptr, "must be a number" + std::string(null ? " or null" : "") + ", not " + kindName(v));
        const double x = v.get<double>();
        if (positive && !(x > 0)) return fail(ptr, pyStr(v) + " must be greater than 0");
        if (lo && x < *lo) return fail(ptr, pyStr(v) + " is below the least legal value " + pyStr(Json(static_cast<std::int64_t>(*lo))));
        return true;
    }

    bool boolean(const Json& v, const std::string& ptr) {
        return v.is_boolean() || fail(ptr, "must be true or false, not " + kindName(v));
    }

    bool array(const Json& v, const std::string& ptr, std::size_t minLen = 0, std::optional<std::size_t> maxLen = {}) {
        if (!v.is_array()) return fail(ptr, "must be an array, not " + kindName(v));
        if (v.size() < minLen)
            return fail(ptr, "must hold at least " + std::to_string(minLen) + " element" + (minLen != 1 ? "s" : ""));
        if (maxLen && v.size() > *maxLen) return fail(ptr, "must hold at most " + std::to_string(*maxLen) + " elements");
        return true;
    }

    bool sha256(const Json& v, const std::string& ptr) { return string(v, ptr, kHex64); }

    bool intList(const Json& v, const std::string& ptr, std::int64_t lo = 0, std::size_t minLen = 0,
                 std::optional<std::size_t> maxLen = {}) {
        if (!array(v, ptr, minLen, maxLen)) return false;
        bool ok = true;
        for (std::size_t i = 0; i < v.size(); ++i) ok = integer(v[i], join(ptr, i), lo) && ok;
        return ok;
    }

    // An array of unique identifiers, optionally drawn from `allowed`.
    bool names(const Json& v, const std::string& ptr, const std::vector<std::string>* allowed = nullptr) {
        if (!array(v, ptr)) return false;
        bool ok = true;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string p = join(ptr, i);
            if (!string(v[i], p, kIdent)) {
                ok = false;
            } else if (allowed && !contains(*allowed, v[i])) {
                ok = fail(p, "'" + str(v[i]) + "' is not an argument of the kernel");
            } else if (std::find(v.begin(), v.end(), v[i]) != v.begin() + static_cast<std::ptrdiff_t>(i)) {
                ok = fail(p, "'" + str(v[i]) + "' is listed twice");
            }
        }
        return ok;
    }
};

std::vector<std::string> stringsOf(const Json& names) {
    std::vector<std::string> out;
    if (names.is_array())
        for (const auto& n : names)
            if (n.is_string()) out.push_back(str(n));
    return out;
}

// ---- the top level's parts ----

void checkToolStackDevice(Checker& c, const Json& doc) {
    if (c.members(doc["tool"], "/tool", {"name", "version"})) {
        c.string(doc["tool"]["name"], "/tool/name");
        c.string(doc["tool"]["version"], "/tool/version");
    }
    const Json& stack = doc["stack"];
    if (c.members(stack, "/stack", {"fla_version", "triton_version", "torch_version", "cuda_version", "hip_version",
                                    "python_version", "fla_sources"})) {
        for (const char* name : {"fla_version", "triton_version"}) c.string(stack[name], std::string("/stack/") + name);
        for (const char* name : {"torch_version", "cuda_version", "hip_version", "python_version"})
            c.string(stack[name], std::string("/stack/") + name, nullptr, nullptr, true);
    }
    const Json& device = doc["device"];
    if (c.members(device, "/device", {"name", "fla_gpu_name", "backend", "arch", "capability", "warp_size",
                                      "multiprocessors", "max_shared_mem_bytes", "total_memory_bytes"})) {
        c.string(device["name"], "/device/name");
        c.string(device["fla_gpu_name"], "/device/fla_gpu_name", kGpuName);
        if (c.oneOf(device["backend"], "/device/backend", kBackends))
            c.string(device["arch"], "/device/arch", str(device["backend"]) == "cuda" ? kCudaArch : kHipArch);
        if (!device["capability"].is_null()) c.intList(device["capability"], "/device/capability", 0, 2, 2);
        if (c.integer(device["warp_size"], "/device/warp_size") && intOf(device["warp_size"]) != 32 &&
            intOf(device["warp_size"]) != 64)
            c.fail("/device/warp_size", "must be 32 or 64");
        c.integer(device["multiprocessors"], "/device/multiprocessors", 1, std::nullopt, true);
        c.integer(device["max_shared_mem_bytes"], "/device/max_shared_mem_bytes", 0, std::nullopt, true);
        c.integer(device["total_memory_bytes"], "/device/total_memory_bytes", 0, std::nullopt, true);
    }
    const Json& env = doc["environment"];
    if (env.is_object()) {
        for (auto it = env.begin(); it != env.end(); ++it) {
            const std::string p = join("/environment", it.key());
            if (!kEnvName.match(it.key())) c.fail(p, "'" + it.key() + "' is not an environment variable name");
            c.string(it.value(), p);
        }
    } else {
        c.fail("/environment", "must be an object, not " + kindName(env));
    }
}

std::vector<std::string> checkFlaSources(Checker& c, const Json& doc) {
    const Json& stack = doc["stack"];
    const Json& sources = member(stack, "fla_sources");
    std::vector<std::string> paths;
    if (!sources.is_object()) {
        if (has(stack, "fla_sources")) c.fail("/stack/fla_sources", "must be an object, not " + kindName(sources));
        return paths;
    }
    for (auto it = sources.begin(); it != sources.end(); ++it) {
        const std::string& path = it.key();
        const std::string p = join("/stack/fla_sources", path);
        const bool dotdot = ("/" + path + "/").find("/../") != std::string::npos;
        if (!kFlaSource.match(path) || dotdot)
            c.fail(p, "'" + path + "' is not a path inside the fla package (fla/.../*.py)");
        c.sha256(it.value(), p);
        paths.push_back(path);
    }
    return paths;
}

bool checkGenerator(Checker& c, const Json& g, const std::string& ptr) {
    Names required{"distribution", "transform", "scale", "normalize"};
    if (!has(g, "distribution")) return c.members(g, ptr, required);
    const Json& dist = g["distribution"];
    const bool uniform = dist == "uniform", normal = dist == "normal";
    if (uniform) required.insert(required.end(), {"low", "high"});
    if (normal) required.insert(required.end(), {"mean", "std"});
    if (!c.members(g, ptr, required)) return false;
    c.oneOf(dist, ptr + "/distribution", kDistributions);
    if (uniform && c.number(g["low"], ptr + "/low") && c.number(g["high"], ptr + "/high") &&
        !(g["low"].get<double>() < g["high"].get<double>()))
        c.fail(ptr + "/high", "must be greater than low");
    if (normal) {
        c.number(g["mean"], ptr + "/mean");
        c.number(g["std"], ptr + "/std", std::nullopt, true);
    }
    c.oneOf(g["transform"], ptr + "/transform", kTransforms);
    c.number(g["scale"], ptr + "/scale");
    c.oneOf(g["normalize"], ptr + "/normalize", kNormalize);
    return true;
}

bool checkParams(Checker& c, const std::string& op, const Json& params, const std::string& ptr) {
    enum Rule { Int, Chunk, Bool, NumberOrNull, Positive };
    const bool gdr = op == "chunk_gated_delta_rule";
    const std::vector<std::pair<std::string_view, Rule>> rules =
        gdr ? std::vector<std::pair<std::string_view, Rule>>{{"B", Int}, {"T", Int}, {"H", Int}, {"HV", Int},
                                                            {"K", Int}, {"V", Int}, {"chunk_size", Chunk},
                                                            {"use_qk_l2norm_in_kernel", Bool},
                                                            {"output_final_state", Bool}, {"initial_state", Bool},
                                                            {"scale", NumberOrNull}}
            : std::vector<std::pair<std::string_view, Rule>>{{"B", Int}, {"T", Int}, {"H", Int}, {"D", Int},
                                                            {"eps", Positive}};
    Names names;
    for (const auto& [name, rule] : rules) names.push_back(name);
    if (!c.members(params, ptr, names)) return false;
    bool ok = true;
    for (const auto& [name, rule] : rules) {
        const Json& v = params[std::string(name)];
        const std::string p = join(ptr, name);
        switch (rule) {
        case Int: ok = c.integer(v, p, 1) && ok; break;
        case Chunk:
            ok = (c.integer(v, p) && ((intOf(v) == 16 || intOf(v) == 32 || intOf(v) == 64) ||
                                      c.fail(p, pyStr(v) + " is not one of 16, 32, 64"))) && ok;
            break;
        case Bool: ok = c.boolean(v, p) && ok; break;
        case NumberOrNull: ok = c.number(v, p, std::nullopt, true, true) && ok; break;
        case Positive: ok = c.number(v, p, std::nullopt, true) && ok; break;
        }
    }
    if (gdr && ok && intOf(params["HV"]) % intOf(params["H"]) != 0)
        ok = c.fail(ptr + "/HV", "HV=" + pyStr(params["HV"]) + " is not a multiple of H=" + pyStr(params["H"]) +
                                     " (FLA refuses it)");
    return ok;
}

std::string listText(const std::vector<std::int64_t>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
}

void checkOutputs(Checker& c, const Json& outputs, const std::string& ptr, const std::vector<std::string>& names,
                  bool deviceCapture) {
    if (!c.array(outputs, ptr)) return;
    bool same = outputs.size() == names.size();
    for (std::size_t i = 0; same && i < outputs.size(); ++i) same = member(outputs[i], "name") == names[i];
    if (!same) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        c.fail(ptr, "must list the op's outputs " + list + ", in this order");
        return;
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const std::string p = join(ptr, i);
        const Json& out = outputs[i];
        if (c.members(out, p, {"name", "shape", "dtype", "sha256"})) {
            c.intList(out["shape"], p + "/shape", 0, 0, 8);
            static const Names dtypes = torchDtypeNames();
            c.oneOf(out["dtype"], p + "/dtype", dtypes);
            if (!out["sha256"].is_null() || deviceCapture) c.sha256(out["sha256"], p + "/sha256");
        }
    }
}

void checkTiming(Checker& c, const Json& timing, const std::string& tp, bool deviceCapture) {
    if (!c.members(timing, tp, {"first_call_s", "extra_compile_s", "repeat_calls", "steady_median_ms", "steady_timer"}))
        return;
    c.number(timing["first_call_s"], tp + "/first_call_s", 0.0, false, !deviceCapture);
    c.number(timing["extra_compile_s"], tp + "/extra_compile_s", 0.0, false, true);
    if (c.integer(timing["repeat_calls"], tp + "/repeat_calls", 0)) {
        const bool timed = intOf(timing["repeat_calls"]) > 0;
        c.number(timing["steady_median_ms"], tp + "/steady_median_ms", 0.0, false, !timed);
        if (!timed && !timing["steady_median_ms"].is_null())
            c.fail(tp + "/steady_median_ms", "must be null when repeat_calls is 0");
        c.oneOf(timing["steady_timer"], tp + "/steady_timer", kSteadyTimers, !timed);
    }
}

// The case, when its op, params and inputs passed (launches may refer to it), else null.
const Json* checkCase(Checker& c, const Json& kase, const std::string& ptr, bool deviceCapture) {
    if (!c.members(kase, ptr, {"id", "op", "params", "inputs", "outputs", "seed", "grad_mode", "timing",
                               "autotune_benchmarks", "other_autotuned_kernels", "launch_count"}))
        return nullptr;
    c.string(kase["id"], ptr + "/id", kCaseId);
    c.integer(kase["seed"], ptr + "/seed", 0);
    c.oneOf(kase["grad_mode"], ptr + "/grad_mode", kGradModes);
    c.integer(kase["launch_count"], ptr + "/launch_count", 0);
    c.names(kase["other_autotuned_kernels"], ptr + "/other_autotuned_kernels");
    checkTiming(c, kase["timing"], ptr + "/timing", deviceCapture);
    const Json& bench = kase["autotune_benchmarks"];
    const std::string bp = ptr + "/autotune_benchmarks";
    if (c.members(bench, bp, {"fla_cache_kernels", "other_kernels"})) {
        c.integer(bench["fla_cache_kernels"], bp + "/fla_cache_kernels", 0, std::nullopt, !deviceCapture);
        c.integer(bench["other_kernels"], bp + "/other_kernels", 0, std::nullopt, !deviceCapture);
    }
    if (!c.oneOf(kase["op"], ptr + "/op", kOps)) return nullptr;
    const std::string& op = str(kase["op"]);
    if (!checkParams(c, op, kase["params"], ptr + "/params")) return nullptr;
    const auto expected = detail::flaOpInputShapes(op, kase["params"]);
    const Json& inputs = kase["inputs"];
    const std::string ip = ptr + "/inputs";
    if (!c.array(inputs, ip)) return nullptr;
    if (inputs.size() != expected.size()) {
        std::string list;
        for (const auto& [name, shape] : expected) list += (list.empty() ? "" : ", ") + name;
        c.fail(ip, "holds " + std::to_string(inputs.size()) + " inputs; " + op + " with these params takes " +
                       std::to_string(expected.size()) + ": " + list);
        return nullptr;
    }
    static const Names dtypes = torchDtypeNames();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string p = join(ip, i);
        const Json& entry = inputs[i];
        if (!c.members(entry, p, {"name", "shape", "dtype", "generator"})) continue;
        const auto& [name, shape] = expected[i];
        if (entry["name"] != name) c.fail(p + "/name", "must be '" + name + "' (input " + std::to_string(i) + " of " + op + ")");
        if (entry["shape"] != Json(shape)) c.fail(p + "/shape", "must be " + listText(shape) + " for these params");
        c.oneOf(entry["dtype"], p + "/dtype", dtypes);
        checkGenerator(c, entry["generator"], p + "/generator");
    }
    checkOutputs(c, kase["outputs"], ptr + "/outputs", detail::flaOpOutputNames(op, kase["params"]), deviceCapture);
    return &kase;
}

// ---- a kernel, its configs and launches ----

bool checkConfig(Checker& c, const Json& cfg, const std::string& ptr, const std::vector<std::string>& constexprNames) {
    if (!c.members(cfg, ptr, {"kwargs", "num_warps", "num_ctas", "num_stages", "maxnreg", "pre_hook", "ir_override"}))
        return false;
    const Json& kwargs = cfg["kwargs"];
    if (kwargs.is_object()) {
        for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
            const std::string p = join(ptr + "/kwargs", it.key());
            if (!contains(constexprNames, Json(it.key())))
                c.fail(p, "'" + it.key() + "' is not a tl.constexpr argument of the kernel");
            else if (!isScalar(it.value()))
                c.fail(p, "must be a JSON scalar, not " + kindName(it.value()));
        }
    } else {
        c.fail(ptr + "/kwargs", "must be an object, not " + kindName(kwargs));
    }
    if (c.integer(cfg["num_warps"], ptr + "/num_warps", 1, 32) && (intOf(cfg["num_warps"]) & (intOf(cfg["num_warps"]) - 1)))
        c.fail(ptr + "/num_warps", pyStr(cfg["num_warps"]) + " is not a power of 2");
    c.integer(cfg["num_ctas"], ptr + "/num_ctas", 1, 16);
    c.integer(cfg["num_stages"], ptr + "/num_stages", 0, 16);
    c.integer(cfg["maxnreg"], ptr + "/maxnreg", 1, 255, true);
    if (!cfg["pre_hook"].is_null())
        c.fail(ptr + "/pre_hook", "must be null (a Python hook cannot be captured; FLA drops it on load)");
    c.string(cfg["ir_override"], ptr + "/ir_override", nullptr, nullptr, true);
    return true;
}

bool checkKernel(Checker& c, const Json& kernel, const std::string& ptr, const std::vector<std::string>& flaSources) {
    if (!c.members(kernel, ptr, {"kernel_name", "source_file", "arg_names", "constexpr_names", "do_not_specialize",
                                 "key_names", "configs", "launches"}))
        return false;
    bool ok = c.string(kernel["kernel_name"], ptr + "/kernel_name", kIdent);
    if (c.string(kernel["source_file"], ptr + "/source_file", kFlaSource) && !contains(flaSources, kernel["source_file"]))
        c.fail(ptr + "/source_file", "'" + str(kernel["source_file"]) + "' has no SHA-256 in /stack/fla_sources");
    if (!c.names(kernel["arg_names"], ptr + "/arg_names")) return false;
    const std::vector<std::string> argNames = stringsOf(kernel["arg_names"]);
    ok = c.names(kernel["constexpr_names"], ptr + "/constexpr_names", &argNames) && ok;
    ok = c.names(kernel["do_not_specialize"], ptr + "/do_not_specialize", &argNames) && ok;
    ok = c.names(kernel["key_names"], ptr + "/key_names", &argNames) && ok;
    if (!ok) return false;
    const Json& configs = kernel["configs"];
    const std::string cp = ptr + "/configs";
    if (!c.array(configs, cp, 1)) return false;
    const std::vector<std::string> constexprNames = stringsOf(kernel["constexpr_names"]);
    std::map<std::string, std::string> seen;
    std::set<std::set<std::string>> kwargSets;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const std::string p = join(cp, i);
        if (!checkConfig(c, configs[i], p, constexprNames)) continue;
        std::string text;
        try {
            text = canonicalize(configs[i]);
        } catch (const Error& e) {
            c.fail(p, e.message());
            continue;
        }
        if (const auto it = seen.find(text); it != seen.end()) c.fail(p, "is the same config as " + it->second);
        seen[text] = p;
        if (configs[i]["kwargs"].is_object()) {
            std::set<std::string> names;
            for (auto it = configs[i]["kwargs"].begin(); it != configs[i]["kwargs"].end(); ++it) names.insert(it.key());
            kwargSets.insert(names);
        }
    }
    if (kwargSets.size() > 1)
        c.fail(cp, "every config must set the same kwargs (Triton refuses a kwarg given by both call and config)");
    return true;
}

void checkScalarValue(Checker& c, const Json& v, const std::string& ptr, const std::string& tritonType) {
    const auto rule = std::find_if(kScalarTypes.begin(), kScalarTypes.end(),
                                   [&](const ScalarRule& r) { return r.type == tritonType; });
    if (rule->kind == ScalarRule::Bool) c.boolean(v, ptr);
    else if (rule->kind == ScalarRule::Float) c.number(v, ptr);
    else c.integer(v, ptr, rule->lo, rule->hi);
}

void checkOrigin(Checker& c, const Json& origin, const std::string& op, const std::vector<std::string>* caseInputs) {
    if (!has(origin, "kind")) {
        c.members(origin, op, {"kind"});
        return;
    }
    const Json& kind = origin["kind"];
    if (!c.oneOf(kind, op + "/kind", kOriginKinds)) return;
    if (kind == "op_input" && c.members(origin, op, {"kind", "input"})) {
        if (caseInputs && !contains(*caseInputs, origin["input"]))
            c.fail(op + "/input", "'" + pyStr(origin["input"]) + "' is not an input of the launch's case");
    } else if (kind == "launch_arg" && c.members(origin, op, {"kind", "sequence", "arg"})) {
        c.integer(origin["sequence"], op + "/sequence", 0);
        c.string(origin["arg"], op + "/arg", kIdent);
    } else if (kind == "new") {
        c.members(origin, op, {"kind"});
    }
}

void checkTensorArg(Checker& c, const Json& arg, const std::string& ptr, const std::vector<std::string>* caseInputs) {
    if (!c.members(arg, ptr, {"name", "kind", "dtype", "triton_type", "shape", "strides", "storage_offset",
                              "storage_bytes", "aligned_16", "origin"}))
        return;
    static const Names dtypes = torchDtypeNames();
    const bool dtypeOk = c.oneOf(arg["dtype"], ptr + "/dtype", dtypes);
    const detail::FlaTorchDtype* dtype = dtypeOk ? findFlaTorchDtype(str(arg["dtype"])) : nullptr;
    if (dtype && arg["triton_type"] != "*" + std::string(dtype->triton))
        c.fail(ptr + "/triton_type", "must be '*" + std::string(dtype->triton) + "' for " + str(arg["dtype"]));
    const bool shapeOk = c.intList(arg["shape"], ptr + "/shape", 0, 0, 8);
    bool stridesOk = c.intList(arg["strides"], ptr + "/strides", 0, 0, 8);
    if (shapeOk && stridesOk && arg["shape"].size() != arg["strides"].size()) {
        c.fail(ptr + "/strides", "holds " + std::to_string(arg["strides"].size()) + " strides for " +
                                     std::to_string(arg["shape"].size()) + " dimensions");
        stridesOk = false;
    }
    const bool offsetOk = c.integer(arg["storage_offset"], ptr + "/storage_offset", 0);
    if (c.integer(arg["storage_bytes"], ptr + "/storage_bytes", 0) && dtype && shapeOk && stridesOk && offsetOk) {
        std::vector<std::int64_t> shape, strides;
        for (const auto& v : arg["shape"]) shape.push_back(intOf(v));
        for (const auto& v : arg["strides"]) strides.push_back(intOf(v));
        const std::int64_t limit = std::int64_t{1} << 62;
        const std::int64_t offsetBytes = intOf(arg["storage_offset"]) * dtype->itemsize;  // both < 2^53 * 8
        const std::int64_t need = std::min(limit, offsetBytes + detail::flaTensorExtentBytes(shape, strides, dtype->itemsize));
        if (intOf(arg["storage_bytes"]) < need)
            c.fail(ptr + "/storage_bytes", std::to_string(intOf(arg["storage_bytes"])) + " bytes cannot hold the view (" +
                                               std::to_string(need) +
                                               " bytes from the storage's start to one past the last element)");
    }
    c.boolean(arg["aligned_16"], ptr + "/aligned_16");
    checkOrigin(c, arg["origin"], ptr + "/origin", caseInputs);
}

struct KernelView {
    const Json& kernel;
    std::vector<std::string> argNames, constexprNames, doNotSpecialize, keyNames;
    std::set<std::string> configNames;
};

// The argument's kind when its name and kind hold (its other members may still have faults), else nullopt.
std::optional<std::string> checkArg(Checker& c, const Json& arg, const std::string& ptr, const std::string& name,
                                    const KernelView& k, const std::vector<std::string>* caseInputs) {
    if (!has(arg, "kind") || !has(arg, "name")) {
        c.members(arg, ptr, {"name", "kind"});
        return std::nullopt;
    }
    if (arg["name"] != name) {
        c.fail(ptr + "/name", "must be '" + name + "': launch arguments follow the kernel's arg_names");
        return std::nullopt;
    }
    if (!c.oneOf(arg["kind"], ptr + "/kind", kArgKinds)) return std::nullopt;
    const std::string kind = str(arg["kind"]);
    const bool constexprArg = contains(k.constexprNames, Json(name));
    if ((kind == "constexpr" || kind == "config") != constexprArg) {
        c.fail(ptr + "/kind", "'" + kind + "' for " + (constexprArg ? "a tl.constexpr" : "a runtime") + " argument");
        return std::nullopt;
    }
    const bool configured = k.configNames.count(name) > 0;
    if (kind == "config" && !configured) {
        c.fail(ptr + "/kind", "'config', but no config sets '" + name + "'");
        return std::nullopt;
    }
    if (kind != "config" && configured) {
        c.fail(ptr + "/kind", "'" + kind + "', but every config sets '" + name + "': its kind is 'config'");
        return std::nullopt;
    }
    if (kind == "tensor") {
        checkTensorArg(c, arg, ptr, caseInputs);
    } else if (kind == "scalar") {
        if (c.members(arg, ptr, {"name", "kind", "triton_type", "value", "do_not_specialize"})) {
            static const Names types = scalarTypeNames();
            if (c.oneOf(arg["triton_type"], ptr + "/triton_type", types))
                checkScalarValue(c, arg["value"], ptr + "/value", str(arg["triton_type"]));
            if (c.boolean(arg["do_not_specialize"], ptr + "/do_not_specialize") &&
                arg["do_not_specialize"].get<bool>() != contains(k.doNotSpecialize, Json(name)))
                c.fail(ptr + "/do_not_specialize", "disagrees with the kernel's do_not_specialize");
        }
    } else if (kind == "constexpr") {
        if (c.members(arg, ptr, {"name", "kind", "value"})) {
            const Json& v = arg["value"];
            const bool repr = v.is_object() && v.size() == 1 && has(v, "repr") && v["repr"].is_string();
            if (!isScalar(v) && !repr) c.fail(ptr + "/value", "must be a JSON scalar or {\"repr\": string}");
        }
    } else {
        c.members(arg, ptr, {"name", "kind"});
    }
    return kind;
}

void checkKey(Checker& c, const Json& launch, const std::string& ptr, const KernelView& k,
              const std::map<std::string, const Json*>& argsByName) {
    const Json& key = launch["autotune_key"];
    const std::string kp = ptr + "/autotune_key";
    if (!c.array(key, kp)) return;
    bool ok = true;
    for (std::size_t i = 0; i < key.size(); ++i)
        if (!isScalar(key[i])) ok = c.fail(join(kp, i), "must be a JSON scalar, not " + kindName(key[i]));
    bool keyArgsOk = c.names(launch["key_arg_names"], ptr + "/key_arg_names", &k.keyNames);
    bool dtypeArgsOk = c.names(launch["dtype_arg_names"], ptr + "/dtype_arg_names", &k.argNames);
    const std::vector<std::string> keyArgs = stringsOf(launch["key_arg_names"]);
    const std::vector<std::string> dtypeArgs = stringsOf(launch["dtype_arg_names"]);
    if (keyArgsOk) {
        std::vector<std::ptrdiff_t> order;
        for (const auto& n : keyArgs) order.push_back(std::find(k.keyNames.begin(), k.keyNames.end(), n) - k.keyNames.begin());
        if (!std::is_sorted(order.begin(), order.end()))
            keyArgsOk = c.fail(ptr + "/key_arg_names", "must follow the order of the kernel's key_names");
    }
    if (dtypeArgsOk) {
        std::set<std::string> tensors;
        for (const auto& [n, a] : argsByName)
            if (member(*a, "kind") == "tensor") tensors.insert(n);
        if (std::set<std::string>(dtypeArgs.begin(), dtypeArgs.end()) != tensors) {
            std::string list;
            for (const auto& n : tensors) list += (list.empty() ? "" : ", ") + n;
            dtypeArgsOk = c.fail(ptr + "/dtype_arg_names",
                                 "must name every tensor argument exactly once (" + (list.empty() ? "none" : list) + ")");
        }
    }
    if (ok && keyArgsOk && dtypeArgsOk) {
        Json expected = Json::array();
        for (std::size_t i = 0; i < keyArgs.size(); ++i) {
            const Json& arg = *argsByName.at(keyArgs[i]);
            const std::string kind = str(arg["kind"]);
            if (kind == "tensor" || kind == "config") {
                c.fail(join(ptr + "/key_arg_names", i), "'" + keyArgs[i] + "' is a " + kind +
                                                             " argument: FLA's key holds the values of scalar, "
                                                             "constexpr and None arguments the call passed");
                return;
            }
            expected.push_back(member(arg, "value"));
        }
        for (const auto& n : dtypeArgs) expected.push_back(member(*argsByName.at(n), "dtype"));
        if (key.size() != expected.size()) {
            c.fail(kp, "holds " + std::to_string(key.size()) + " values; the key arguments and tensor dtypes make " +
                           std::to_string(expected.size()));
        } else {
            for (std::size_t i = 0; i < key.size(); ++i) {
                if (!sameTypedValue(key[i], expected[i])) {
                    c.fail(join(kp, i), flaCaptureValueText(key[i]) + " is not the launch's " +
                                            (i < keyArgs.size() ? "argument value" : "dtype") + " " +
                                            flaCaptureValueText(expected[i]));
                    break;
                }
            }
        }
    }
    if (c.string(launch["key_hash"], ptr + "/key_hash", kHex32) && ok) {
        const std::string want = flaKeyHash(key);
        if (str(launch["key_hash"]) != want) c.fail(ptr + "/key_hash", "is not FLA's md5 of the key (" + want + ")");
    }
}

void checkAutotune(Checker& c, const Json& at, const std::string& ptr, std::size_t nConfigs, bool deviceCapture) {
    if (!c.members(at, ptr, {"source", "benchmarks", "seconds", "chosen_config", "timings_ms"})) return;
    if (c.oneOf(at["source"], ptr + "/source", kAutotuneSources) && (at["source"] == "not_run") == deviceCapture)
        c.fail(ptr + "/source", deviceCapture ? "'not_run' belongs to hand-made manifests only"
                                              : "a hand-made manifest ran nothing: 'not_run'");
    if (c.integer(at["benchmarks"], ptr + "/benchmarks", 0) && at["source"] == "benchmarked" && intOf(at["benchmarks"]) < 1)
        c.fail(ptr + "/benchmarks", "a benchmarked launch ran at least one benchmark");
    c.number(at["seconds"], ptr + "/seconds", 0.0, false, true);
    c.integer(at["chosen_config"], ptr + "/chosen_config", 0, static_cast<std::int64_t>(nConfigs) - 1, true);
    const Json& timings = at["timings_ms"];
    const std::string tp = ptr + "/timings_ms";
    if (timings.is_null()) return;
    if (c.array(timings, tp, nConfigs, nConfigs))
        for (std::size_t i = 0; i < timings.size(); ++i)
            if (!timings[i].is_null() && c.array(timings[i], join(tp, i), 3, 3))
                for (std::size_t j = 0; j < timings[i].size(); ++j) c.number(timings[i][j], join(join(tp, i), j), 0.0);
}

void checkVariants(Checker& c, const Json& variants, const std::string& ptr, const KernelView& k, const Json& binaries,
                   bool deviceCapture) {
    const Json& configs = k.kernel["configs"];
    if (!c.array(variants, ptr)) return;
    if (variants.size() != configs.size()) {
        c.fail(ptr, "holds " + std::to_string(variants.size()) + " variants for " + std::to_string(configs.size()) +
                        " configs: one per config, in config order");
        return;
    }
    const std::string& kernelName = str(k.kernel["kernel_name"]);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::string p = join(ptr, i);
        const Json& var = variants[i];
        if (!c.members(var, p, {"config", "grid", "binary", "compile_error"})) continue;
        if (var["config"] != Json(i)) c.fail(p + "/config", "must be " + std::to_string(i) + ": variants follow the config order");
        c.intList(var["grid"], p + "/grid", 1, 1, 3);
        c.string(var["compile_error"], p + "/compile_error", nullptr, nullptr, true);
        const Json& binary = var["binary"];
        if (binary.is_null()) {
            if (var["compile_error"].is_null() && deviceCapture) c.fail(p + "/binary", "is null without a compile_error");
            continue;
        }
        if (!c.string(binary, p + "/binary", kHex64)) continue;
        if (!var["compile_error"].is_null()) c.fail(p + "/compile_error", "must be null when the variant has a binary");
        const Json& entry = member(binaries, str(binary));
        if (!entry.is_object()) {
            c.fail(p + "/binary", str(binary) + " is not in /binaries");
            continue;
        }
        if (member(entry, "kernel_name") != kernelName)
            c.fail(p + "/binary", str(binary) + " is a binary of " + pyStr(member(entry, "kernel_name")) + ", not of " + kernelName);
        const Json& cfg = configs[i].is_object() ? configs[i] : kNull;
        for (const char* name : {"num_warps", "num_stages", "num_ctas"})
            if (has(cfg, name) && has(entry, name) && cfg[name] != entry[name])
                c.fail(p + "/binary", str(binary) + " was compiled with " + name + "=" + pyStr(entry[name]) + ", config " +
                                          std::to_string(i) + " has " + pyStr(cfg[name]));
    }
}

struct CaseIndex {
    std::map<std::string, std::pair<std::size_t, const Json*>> byId;  // id -> (index in /cases, the case)
    std::vector<std::string> order;                                     // ids in insertion order
};

void checkLaunch(Checker& c, const Json& launch, const std::string& ptr, const KernelView& k, const CaseIndex& cases,
                 const Json& binaries, bool deviceCapture, std::map<std::pair<std::string, std::int64_t>, std::string>& sequences) {
    if (!c.members(launch, ptr, {"case", "sequence", "signature_source", "autotune_key", "key_hash", "key_arg_names",
                                 "dtype_arg_names", "args", "autotune", "variants"}))
        return;
    const Json* kase = nullptr;
    if (launch["case"].is_string())
        if (const auto it = cases.byId.find(str(launch["case"])); it != cases.byId.end()) kase = it->second.second;
    if (!kase) c.fail(ptr + "/case", flaCaptureValueText(launch["case"]) + " is not the id of a case");
    if (c.integer(launch["sequence"], ptr + "/sequence", 0) && kase) {
        const std::int64_t seq = intOf(launch["sequence"]);
        const std::pair<std::string, std::int64_t> id{str((*kase)["id"]), seq};
        const Json& count = member(*kase, "launch_count");
        if (isInt(count) && seq >= intOf(count))
            c.fail(ptr + "/sequence", std::to_string(seq) + " is not below the case's launch_count " + pyStr(count));
        else if (const auto it = sequences.find(id); it != sequences.end())
            c.fail(ptr + "/sequence", std::to_string(seq) + " is also the sequence of " + it->second);
        else
            sequences[id] = ptr;
    }
    c.oneOf(launch["signature_source"], ptr + "/signature_source", kSignatureSources);
    const Json& args = launch["args"];
    const std::string ap = ptr + "/args";
    std::map<std::string, const Json*> argsByName;
    if (c.array(args, ap)) {
        if (args.size() != k.argNames.size()) {
            c.fail(ap, "holds " + std::to_string(args.size()) + " arguments; the kernel has " +
                           std::to_string(k.argNames.size()));
        } else {
            std::vector<std::string> caseInputs;
            if (kase)
                for (const auto& e : (*kase)["inputs"])
                    if (member(e, "name").is_string()) caseInputs.push_back(str(e["name"]));
            for (std::size_t i = 0; i < args.size(); ++i)
                if (checkArg(c, args[i], join(ap, i), k.argNames[i], k, kase ? &caseInputs : nullptr))
                    argsByName[k.argNames[i]] = &args[i];
        }
    }
    if (argsByName.size() == k.argNames.size()) checkKey(c, launch, ptr, k, argsByName);
    checkAutotune(c, launch["autotune"], ptr + "/autotune", k.kernel["configs"].size(), deviceCapture);
    checkVariants(c, launch["variants"], ptr + "/variants", k, binaries, deviceCapture);
}

void checkBinaryNames(Checker& c, const Json& entry, const std::string& p, const std::set<std::string>& names) {
    const std::string kernel = entry["kernel_name"].is_string() ? str(entry["kernel_name"]) : "";
    const Json& md = entry["metadata_file"];
    const auto listed = [&](const Json& v) { return v.is_string() && names.count(str(v)) > 0; };
    if (c.string(md, p + "/metadata_file") && str(md) != kernel + ".json")
        c.fail(p + "/metadata_file", "must be '" + kernel + ".json' (Triton's metadata file)");
    else if (!listed(md))
        c.fail(p + "/metadata_file", "'" + pyStr(md) + "' is not in files");
    const Json& bin = entry["binary_file"];
    if (c.string(bin, p + "/binary_file") && str(bin) != kernel + ".cubin" && str(bin) != kernel + ".hsaco")
        c.fail(p + "/binary_file", "must be '" + kernel + ".cubin' or '" + kernel + ".hsaco'");
    else if (!listed(bin))
        c.fail(p + "/binary_file", "'" + pyStr(bin) + "' is not in files");
}

const Json& checkBinaries(Checker& c, const Json& binaries) {
    static const Json kEmpty = Json::object();
    if (!binaries.is_object()) {
        c.fail("/binaries", "must be an object, not " + kindName(binaries));
        return kEmpty;
    }
    for (auto it = binaries.begin(); it != binaries.end(); ++it) {
        const std::string p = join("/binaries", it.key());
        const Json& entry = it.value();
        if (!kHex64.match(it.key())) c.fail(p, "'" + it.key() + "' is not a Triton metadata hash (64 lowercase hex digits)");
        if (!c.members(entry, p, {"kernel_name", "folder", "metadata_file", "binary_file", "files", "target", "num_warps",
                                  "num_stages", "num_ctas", "shared"}))
            continue;
        c.string(entry["kernel_name"], p + "/kernel_name", kIdent);
        c.string(entry["folder"], p + "/folder", kPlainFile);
        std::set<std::string> names;
        if (c.array(entry["files"], p + "/files", 2)) {
            for (std::size_t i = 0; i < entry["files"].size(); ++i) {
                const Json& f = entry["files"][i];
                const std::string fp = join(p + "/files", i);
                if (!c.members(f, fp, {"name", "sha256", "bytes"})) continue;
                if (c.string(f["name"], fp + "/name", kPlainFile) && !names.insert(str(f["name"])).second)
                    c.fail(fp + "/name", "'" + str(f["name"]) + "' is listed twice");
                c.sha256(f["sha256"], fp + "/sha256");
                c.integer(f["bytes"], fp + "/bytes", 0);
            }
        }
        checkBinaryNames(c, entry, p, names);
        const Json& t = entry["target"];
        const std::string tp = p + "/target";
        if (c.members(t, tp, {"backend", "arch", "warp_size"})) {
            if (c.oneOf(t["backend"], tp + "/backend", kBackends)) {
                if (t["backend"] == "cuda") c.integer(t["arch"], tp + "/arch", 1);
                else c.string(t["arch"], tp + "/arch", kHipArch);
            }
            if (c.integer(t["warp_size"], tp + "/warp_size") && intOf(t["warp_size"]) != 32 && intOf(t["warp_size"]) != 64)
                c.fail(tp + "/warp_size", "must be 32 or 64");
        }
        c.integer(entry["num_warps"], p + "/num_warps", 1, 32);
        c.integer(entry["num_stages"], p + "/num_stages", 0, 16);
        c.integer(entry["num_ctas"], p + "/num_ctas", 1, 16);
        c.integer(entry["shared"], p + "/shared", 0);
    }
    return binaries;
}

// A launch_arg origin names an earlier launch of the same case and a tensor argument of it.
void checkOrigins(Checker& c, const Json& kernels) {
    std::map<std::string, std::set<std::string>> tensors;  // (case, sequence) as JSON text -> its tensor arguments
    const auto idOf = [](const Json& kase, const Json& seq) { return kase.dump() + "\x1f" + seq.dump(); };
    for (const auto& kernel : kernels) {
        if (!member(kernel, "launches").is_array()) continue;
        for (const auto& launch : kernel["launches"]) {
            if (!member(launch, "args").is_array()) continue;
            std::set<std::string> names;
            for (const auto& a : launch["args"])
                if (member(a, "kind") == "tensor" && member(a, "name").is_string()) names.insert(str(a["name"]));
            tensors[idOf(member(launch, "case"), member(launch, "sequence"))] = names;
        }
    }
    for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
        if (!member(kernels[ki], "launches").is_array()) continue;
        const Json& launches = kernels[ki]["launches"];
        for (std::size_t li = 0; li < launches.size(); ++li) {
            const Json& launch = launches[li];
            if (!member(launch, "args").is_array()) continue;
            for (std::size_t ai = 0; ai < launch["args"].size(); ++ai) {
                const Json& origin = member(launch["args"][ai], "origin");
                if (member(origin, "kind") != "launch_arg") continue;
                const std::string p = "/kernels/" + std::to_string(ki) + "/launches/" + std::to_string(li) + "/args/" +
                                      std::to_string(ai) + "/origin";
                const Json& seq = member(origin, "sequence");
                const Json& own = member(launch, "sequence");
                if (!isInt(seq) || !isInt(own)) continue;
                const auto found = tensors.find(idOf(member(launch, "case"), seq));
                if (intOf(seq) >= intOf(own))
                    c.fail(p + "/sequence", pyStr(seq) + " is not an earlier launch than this one (" + pyStr(own) + ")");
                else if (found == tensors.end())
                    c.fail(p + "/sequence", "the case has no launch " + pyStr(seq));
                else if (!member(origin, "arg").is_string() || !found->second.count(str(origin["arg"])))
                    c.fail(p + "/arg", "'" + pyStr(member(origin, "arg")) + "' is not a tensor argument of launch " + pyStr(seq));
            }
        }
    }
}

void checkTritonCache(Checker& c, const Json& tc, bool deviceCapture) {
    if (!c.members(tc, "/triton_cache", {"archives"})) return;
    if (!c.array(tc["archives"], "/triton_cache/archives", deviceCapture ? 1 : 0)) return;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < tc["archives"].size(); ++i) {
        const Json& a = tc["archives"][i];
        const std::string p = join("/triton_cache/archives", i);
        if (!c.members(a, p, {"file", "sha256", "bytes"})) continue;
        if (c.string(a["file"], p + "/file", kPlainFile) && seen.count(str(a["file"])))
            c.fail(p + "/file", "'" + str(a["file"]) + "' is listed twice");
        seen.insert(a["file"].is_string() ? str(a["file"]) : a["file"].dump());
        c.sha256(a["sha256"], p + "/sha256");
        c.integer(a["bytes"], p + "/bytes", 0);
    }
}

// A case's fla_cache_kernels count is the sum of its launches' benchmarks.
void checkBenchTotals(Checker& c, const Json& doc, const CaseIndex& cases) {
    std::map<std::string, std::int64_t> totals;
    for (const auto& id : cases.order) totals[id] = 0;
    if (doc["kernels"].is_array())
        for (const auto& kernel : doc["kernels"]) {
            if (!member(kernel, "launches").is_array()) continue;
            for (const auto& launch : kernel["launches"]) {
                const Json& kase = member(launch, "case");
                const Json& benchmarks = member(member(launch, "autotune"), "benchmarks");
                if (kase.is_string() && totals.count(str(kase)) && isInt(benchmarks)) totals[str(kase)] += intOf(benchmarks);
            }
        }
    for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
        const Json& id = member(doc["cases"][i], "id");
        if (!id.is_string() || !totals.count(str(id))) continue;
        const Json& count = member(member(doc["cases"][i], "autotune_benchmarks"), "fla_cache_kernels");
        if (isInt(count) && intOf(count) != totals[str(id)])
            c.fail("/cases/" + std::to_string(i) + "/autotune_benchmarks/fla_cache_kernels",
                   "is " + pyStr(count) + ", but the case's launches ran " + std::to_string(totals[str(id)]) + " benchmarks");
    }
}

void checkDigest(Checker& c, const Json& doc) {
    const Json& digest = doc["digest"];
    if (!c.members(digest, "/digest", {"algorithm", "value"})) return;
    static const Names algorithms{kFlaCaptureDigestAlgorithm};
    c.oneOf(digest["algorithm"], "/digest/algorithm", algorithms);
    if (!c.sha256(digest["value"], "/digest/value")) return;
    std::string want;
    try {
        want = flaCaptureDigest(doc);
    } catch (const Error& e) {
        c.fail(e.jsonPath(), e.message());
        return;
    }
    if (str(digest["value"]) != want)
        c.fail("/digest/value", "is not the SHA-256 of the manifest's canonical body (" + want +
                                    "): the manifest was changed after it was written");
}

KernelView kernelView(const Json& kernel) {
    KernelView k{kernel, stringsOf(kernel["arg_names"]), stringsOf(kernel["constexpr_names"]),
                 stringsOf(kernel["do_not_specialize"]), stringsOf(kernel["key_names"]), {}};
    for (const auto& cfg : kernel["configs"])
        if (member(cfg, "kwargs").is_object())
            for (auto it = cfg["kwargs"].begin(); it != cfg["kwargs"].end(); ++it) k.configNames.insert(it.key());
    return k;
}

void checkKernels(Checker& c, const Json& doc, const std::vector<std::string>& flaSources, const CaseIndex& cases,
                  const Json& binaries, bool deviceCapture,
                  std::map<std::pair<std::string, std::int64_t>, std::string>& sequences) {
    std::set<std::string> referenced;
    std::map<std::string, std::string> kernelNames;
    const Json& kernels = doc["kernels"];
    if (c.array(kernels, "/kernels")) {
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            const std::string p = join("/kernels", i);
            const Json& kernel = kernels[i];
            if (!checkKernel(c, kernel, p, flaSources)) continue;
            const std::string& name = str(kernel["kernel_name"]);
            if (const auto it = kernelNames.find(name); it != kernelNames.end())
                c.fail(p + "/kernel_name", "'" + name + "' is also " + it->second + ": FLA reads one " + name + ".json for both");
            kernelNames[name] = p;
            if (!c.array(kernel["launches"], p + "/launches", 1)) continue;
            const KernelView k = kernelView(kernel);
            for (std::size_t j = 0; j < kernel["launches"].size(); ++j) {
                const Json& launch = kernel["launches"][j];
                checkLaunch(c, launch, join(p + "/launches", j), k, cases, binaries, deviceCapture, sequences);
                if (member(launch, "variants").is_array())
                    for (const auto& v : launch["variants"])
                        if (member(v, "binary").is_string()) referenced.insert(str(v["binary"]));
            }
        }
        checkOrigins(c, kernels);
    }
    for (auto it = binaries.begin(); it != binaries.end(); ++it)
        if (!referenced.count(it.key())) c.fail(join("/binaries", it.key()), "no variant uses this binary");
}

}  // namespace

std::vector<FlaCaptureFault> checkFlaCaptureJson(const Json& doc) {
    Checker c;
    if (has(doc, "format") && doc["format"] != kFlaCaptureFormat) {
        c.fail("/format", doc["format"].is_string()
                              ? "'" + str(doc["format"]) + "' is not " + std::string(kFlaCaptureFormat)
                              : "must be the string " + std::string(kFlaCaptureFormat));
        return c.faults;
    }
    if (!c.members(doc, "", {"format", "capture_kind", "captured_by", "created_utc", "tool", "stack", "device",
                             "environment", "cases", "kernels", "binaries", "triton_cache", "digest"}))
        return c.faults;
    c.oneOf(doc["capture_kind"], "/capture_kind", kCaptureKinds);
    const bool deviceCapture = doc["capture_kind"] == "device";
    c.string(doc["captured_by"], "/captured_by");
    c.string(doc["created_utc"], "/created_utc", kUtc);
    checkToolStackDevice(c, doc);
    const std::vector<std::string> flaSources = checkFlaSources(c, doc);
    CaseIndex cases;
    if (c.array(doc["cases"], "/cases", 1)) {
        for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
            const std::string p = join("/cases", i);
            const Json& kase = doc["cases"][i];
            const Json* checked = checkCase(c, kase, p, deviceCapture);
            if (!member(kase, "id").is_string()) continue;
            const std::string& id = str(kase["id"]);
            if (cases.byId.count(id)) {
                c.fail(p + "/id", "'" + id + "' is also the id of another case");
            } else if (checked) {
                cases.byId[id] = {i, checked};
                cases.order.push_back(id);
            }
        }
    }
    const Json& binaries = checkBinaries(c, doc["binaries"]);
    std::map<std::pair<std::string, std::int64_t>, std::string> sequences;
    checkKernels(c, doc, flaSources, cases, binaries, deviceCapture, sequences);
    for (const auto& id : cases.order) {
        const auto& [index, kase] = cases.byId.at(id);
        const Json& count = member(*kase, "launch_count");
        std::int64_t have = 0;
        for (const auto& [key, where] : sequences) have += key.first == id ? 1 : 0;
        if (isInt(count) && have != intOf(count))
            c.fail("/cases/" + std::to_string(index) + "/launch_count", "is " + pyStr(count) + ", but the kernels record " +
                                                                           std::to_string(have) + " launches of case '" + id + "'");
    }
    if (doc["cases"].is_array()) checkBenchTotals(c, doc, cases);
    checkTritonCache(c, doc["triton_cache"], deviceCapture);
    checkDigest(c, doc);
    return c.faults;
}

}  // namespace tunescope
