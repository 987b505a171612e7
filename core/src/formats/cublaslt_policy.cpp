#include "tunescope/formats/cublaslt_policy.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

#include "cublaslt_policy_internal.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"

namespace tunescope {

using detail::ModelReader;
using detail::Need;
using detail::objectOrEmpty;
using detail::put;
using detail::putNullable;
using detail::putOptional;

std::string describe(const LtMatmul& m) {
    auto op = [](const std::string& name) { return name == "CUBLAS_OP_T" ? "T" : name == "CUBLAS_OP_N" ? "N" : name.c_str(); };
    std::string text = "m=" + std::to_string(m.m) + " n=" + std::to_string(m.n) + " k=" + std::to_string(m.k) +
                       " batch=" + std::to_string(m.batch_count) + " " + op(m.transa) + "/" + op(m.transb) + " " +
                       m.a_type + "," + m.b_type + "->" + m.c_type + "," + m.d_type + " " + m.compute_type;
    if (m.epilogue != "CUBLASLT_EPILOGUE_DEFAULT") text += " " + m.epilogue;
    if (m.bias_type) text += " bias " + *m.bias_type;
    return text;
}

bool sameMatmulKey(const LtMatmul& a, const LtMatmul& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k && a.batch_count == b.batch_count && a.transa == b.transa &&
           a.transb == b.transb && a.order == b.order && a.lda == b.lda && a.ldb == b.ldb && a.ldc == b.ldc &&
           a.ldd == b.ldd && a.a_type == b.a_type && a.b_type == b.b_type && a.c_type == b.c_type &&
           a.d_type == b.d_type && a.compute_type == b.compute_type && a.scale_type == b.scale_type &&
           a.a_scale_mode == b.a_scale_mode && a.b_scale_mode == b.b_scale_mode && a.epilogue == b.epilogue &&
           a.bias_type == b.bias_type && a.pointer_mode == b.pointer_mode;
}

bool LtAlgoAttributes::sameValues(const LtAlgoAttributes& o) const {
    return algo_id == o.algo_id && tile_id == o.tile_id && stages_id == o.stages_id && split_k == o.split_k &&
           reduction_scheme == o.reduction_scheme && cta_swizzle == o.cta_swizzle && custom_option == o.custom_option &&
           inner_shape_id.value_or(0) == o.inner_shape_id.value_or(0) &&
           cluster_shape_id.value_or(0) == o.cluster_shape_id.value_or(0);
}

std::string describe(const LtAlgoAttributes& a) {
    std::string text = "algo " + std::to_string(a.algo_id) + " tile " + std::to_string(a.tile_id) + " stages " +
                       std::to_string(a.stages_id) + " split_k " + std::to_string(a.split_k) + " reduction " +
                       std::to_string(a.reduction_scheme) + " swizzle " + std::to_string(a.cta_swizzle) + " custom " +
                       std::to_string(a.custom_option);
    if (a.inner_shape_id) text += " inner " + std::to_string(*a.inner_shape_id);
    if (a.cluster_shape_id) text += " cluster " + std::to_string(*a.cluster_shape_id);
    return text;
}

std::string algoDataWordText(std::uint64_t word) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(word));
    return text;
}

namespace lt_policy_file {  // named, not anonymous: a unity build of the core compiles its files as one

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// "0x" and exactly 16 hex digits.
std::optional<std::uint64_t> parseDataWord(std::string_view text) {
    if (text.size() != 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text.substr(2)) {
        const int d = hexDigit(c);
        if (d < 0) return std::nullopt;
        value = (value << 4) | std::uint64_t(d);
    }
    return value;
}

}  // namespace lt_policy_file

LtAlgoData algoDataFromRawHex(std::string_view hex) {
    if (hex.size() != 128) throw Error("", "", "raw algorithm hex must be 128 hex digits, got " + std::to_string(hex.size()));
    LtAlgoData data{};
    for (std::size_t word = 0; word < 8; ++word) {
        std::uint64_t value = 0;
        for (std::size_t byte = 0; byte < 8; ++byte) {  // little-endian: byte 0 is the low byte
            const std::size_t at = (word * 8 + byte) * 2;
            const int hi = lt_policy_file::hexDigit(hex[at]), lo = lt_policy_file::hexDigit(hex[at + 1]);
            if (hi < 0 || lo < 0) throw Error("", "", "raw algorithm hex has a non-hex digit at " + std::to_string(at));
            value |= std::uint64_t(hi * 16 + lo) << (8 * byte);
        }
        data[word] = value;
    }
    return data;
}

namespace lt_policy_file {

// --- reading -----------------------------------------------------------------------------------------------------

// An optional object member; null counts as absent.
const Json* optionalObject(ModelReader& r, const Json& parent, const std::string& path, std::string_view key) {
    const Json* v = r.member(parent, path, key, Need::Optional);
    if (!v || v->is_null()) return nullptr;
    return r.isObject(*v, jsonPointerAppend(path, key)) ? v : nullptr;
}

std::optional<std::pair<double, double>> readInterval(const Json& parent, const std::string& path,
                                                      std::string_view key, ModelReader& r) {
    const Json* v = r.member(parent, path, key, Need::Optional);
    if (!v || v->is_null()) return std::nullopt;
    const std::string at = jsonPointerAppend(path, key);
    if (!r.isArray(*v, at)) return std::nullopt;
    if (v->size() != 2) {
        r.fail(at, "expected [low, high], got " + std::to_string(v->size()) + " numbers");
        return std::nullopt;
    }
    const auto low = r.asNumber((*v)[0], jsonPointerAppend(at, std::size_t(0)));
    const auto high = r.asNumber((*v)[1], jsonPointerAppend(at, std::size_t(1)));
    if (!low || !high) return std::nullopt;
    return std::pair{*low, *high};
}

std::optional<LtAlgoData> readDataWords(const Json& parent, const std::string& path, ModelReader& r) {
    const Json* v = r.member(parent, path, "data_words", Need::Optional);
    if (!v || v->is_null()) return std::nullopt;
    const std::string at = jsonPointerAppend(path, "data_words");
    if (!r.isArray(*v, at)) return std::nullopt;
    if (v->size() != 8) {
        r.fail(at, "cublasLtMatmulAlgo_t has 8 data words, got " + std::to_string(v->size()), "algo-data");
        return std::nullopt;
    }
    LtAlgoData data{};
    for (std::size_t i = 0; i < 8; ++i) {
        const std::string wp = jsonPointerAppend(at, i);
        const auto text = r.asString((*v)[i], wp);
        if (!text) return std::nullopt;
        const auto word = parseDataWord(*text);
        if (!word) {
            r.fail(wp, "\"" + *text + "\" is not a data word (\"0x\" and 16 hex digits)", "algo-data");
            return std::nullopt;
        }
        data[i] = *word;
    }
    return data;
}

LtAlgoAttributes readAttributes(const Json& v, const std::string& path, ModelReader& r) {
    LtAlgoAttributes a;
    a.original = v;
    auto field = [&](const char* key, std::int64_t& out, std::int64_t min, std::int64_t max) {
        if (const auto x = r.integer(v, path, key, Need::Required, min, max)) out = *x;
    };
    constexpr std::int64_t u32 = 0xffffffffLL;
    field("algo_id", a.algo_id, -2147483648LL, 2147483647LL);
    field("tile_id", a.tile_id, 0, u32);
    field("stages_id", a.stages_id, 0, u32);
    field("split_k", a.split_k, -2147483648LL, 2147483647LL);
    field("reduction_scheme", a.reduction_scheme, 0, u32);
    field("cta_swizzle", a.cta_swizzle, 0, u32);
    field("custom_option", a.custom_option, 0, u32);
    a.inner_shape_id = r.nullableInteger(v, path, "inner_shape_id", 0, 0xffff);
    a.cluster_shape_id = r.nullableInteger(v, path, "cluster_shape_id", 0, 0xffff);
    return a;
}

LtPolicyAlgo readAlgo(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicyAlgo a;
    a.original = v;
    a.data = readDataWords(v, path, r);
    if (const Json* attrs = optionalObject(r, v, path, "attributes"))
        a.attributes = readAttributes(*attrs, jsonPointerAppend(path, "attributes"), r);
    if (const Json* names = optionalObject(r, v, path, "names")) {
        const std::string at = jsonPointerAppend(path, "names");
        a.tile = r.nullableString(*names, at, "tile");
        a.stages = r.nullableString(*names, at, "stages");
        a.cluster = r.nullableString(*names, at, "cluster");
        a.reduction = r.nullableString(*names, at, "reduction");
    }
    a.required_workspace_bytes = r.nullableInteger(v, path, "required_workspace_bytes", 0);
    a.solution_index = r.nullableInteger(v, path, "solution_index", -2147483648LL, 2147483647LL);
    a.solution_name = r.nullableString(v, path, "solution_name");
    return a;
}

LtMatmul readMatmul(const Json& v, const std::string& path, ModelReader& r) {
    LtMatmul m;
    m.original = v;
    constexpr std::int64_t dim = (std::int64_t{1} << 31) - 1;
    auto integer = [&](const char* key, std::int64_t& out, std::int64_t min, std::int64_t max) {
        if (const auto x = r.integer(v, path, key, Need::Required, min, max)) out = *x;
    };
    auto text = [&](const char* key, std::string& out) {
        if (const auto x = r.string(v, path, key)) out = *x;
    };
    integer("m", m.m, 1, dim);
    integer("n", m.n, 1, dim);
    integer("k", m.k, 1, dim);
    integer("batch_count", m.batch_count, 1, dim);
    text("transa", m.transa);
    text("transb", m.transb);
    text("order", m.order);
    integer("lda", m.lda, 1, detail::kIntMax);
    integer("ldb", m.ldb, 1, detail::kIntMax);
    integer("ldc", m.ldc, 1, detail::kIntMax);
    integer("ldd", m.ldd, 1, detail::kIntMax);
    text("a_type", m.a_type);
    text("b_type", m.b_type);
    text("c_type", m.c_type);
    text("d_type", m.d_type);
    text("compute_type", m.compute_type);
    text("scale_type", m.scale_type);
    text("a_scale_mode", m.a_scale_mode);
    text("b_scale_mode", m.b_scale_mode);
    text("epilogue", m.epilogue);
    if (r.member(v, path, "bias_type", Need::Required)) m.bias_type = r.nullableString(v, path, "bias_type");
    text("pointer_mode", m.pointer_mode);
    if (const Json* align = r.object(v, path, "min_alignment_bytes")) {
        const std::string at = jsonPointerAppend(path, "min_alignment_bytes");
        for (auto [key, slot] : {std::pair{"a", &m.min_alignment_a_bytes}, std::pair{"b", &m.min_alignment_b_bytes},
                                 std::pair{"c", &m.min_alignment_c_bytes}, std::pair{"d", &m.min_alignment_d_bytes}})
            if (const auto x = r.integer(*align, at, key, Need::Required, 1, 1 << 20)) *slot = *x;
    }
    integer("workspace_limit_bytes", m.workspace_limit_bytes, 0, detail::kIntMax);
    return m;
}

LtPolicyGain readGain(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicyGain g;
    g.original = v;
    if (const auto x = r.number(v, path, "percent")) g.percent = *x;
    g.interval_95_percent = readInterval(v, path, "interval_95_percent", r);
    if (const auto x = r.string(v, path, "regime")) g.regime = *x;
    if (const auto x = r.string(v, path, "basis")) g.basis = *x;
    if (const auto x = r.boolean(v, path, "over_heuristic")) g.over_heuristic = *x;
    g.l2 = r.nullableString(v, path, "l2");
    if (const Json* p = r.member(v, path, "power_limited", Need::Optional); p && !p->is_null())
        g.power_limited = r.asBool(*p, jsonPointerAppend(path, "power_limited"));
    g.rounds = r.nullableInteger(v, path, "rounds", 0);
    return g;
}

std::optional<LtTieSet> readTies(const Json& entry, const std::string& path, ModelReader& r) {
    const Json* v = optionalObject(r, entry, path, "ties");
    if (!v) return std::nullopt;
    const std::string at = jsonPointerAppend(path, "ties");
    LtTieSet t;
    t.original = *v;
    if (const auto x = r.string(*v, at, "rule")) t.rule = *x;
    if (const Json* members = r.array(*v, at, "members")) {
        const std::string mp = jsonPointerAppend(at, "members");
        for (std::size_t i = 0; i < members->size(); ++i) {
            const Json& item = (*members)[i];
            const std::string ip = jsonPointerAppend(mp, i);
            if (!r.isObject(item, ip)) continue;
            LtTieMember m;
            m.original = item;
            if (const Json* attrs = r.object(item, ip, "attributes"))
                m.attributes = readAttributes(*attrs, jsonPointerAppend(ip, "attributes"), r);
            m.data = readDataWords(item, ip, r);
            m.candidate_index = r.nullableInteger(item, ip, "candidate_index", 0);
            if (const Json* g = r.member(item, ip, "gain_percent", Need::Optional); g && !g->is_null())
                m.gain_percent = r.asNumber(*g, jsonPointerAppend(ip, "gain_percent"));
            m.interval_95_percent = readInterval(item, ip, "interval_95_percent", r);
            if (const auto x = r.boolean(item, ip, "cleared")) m.cleared = *x;
            t.members.push_back(std::move(m));
        }
    }
    return t;
}

LtPolicyEnvironment readEnvironment(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicyEnvironment e;
    e.original = v;
    if (const auto x = r.string(v, path, "gpu")) e.gpu = *x;
    if (const auto x = r.string(v, path, "architecture")) e.architecture = *x;
    e.cublaslt_version = r.nullableInteger(v, path, "cublaslt_version", 0);
    e.cuda_runtime_version = r.nullableInteger(v, path, "cuda_runtime_version", 0);
    e.driver = r.nullableString(v, path, "driver");
    e.multiprocessors = r.nullableInteger(v, path, "multiprocessors", 0);
    e.hipblaslt_version = r.nullableString(v, path, "hipblaslt_version");
    e.hipblaslt_git_version = r.nullableString(v, path, "hipblaslt_git_version");
    return e;
}

std::optional<LtPolicyParity> readParity(const Json& entry, const std::string& path, ModelReader& r) {
    const Json* v = optionalObject(r, entry, path, "parity");
    if (!v) return std::nullopt;
    const std::string at = jsonPointerAppend(path, "parity");
    LtPolicyParity p;
    p.original = *v;
    p.output_sha256 = r.nullableString(*v, at, "output_sha256");
    if (const Json* b = r.member(*v, at, "bitwise_equal_to_heuristic", Need::Optional); b && !b->is_null())
        p.bitwise_equal_to_heuristic = r.asBool(*b, jsonPointerAppend(at, "bitwise_equal_to_heuristic"));
    p.data_seed = r.nullableInteger(*v, at, "data_seed", 0);
    p.inputs = r.nullableString(*v, at, "inputs");
    p.logical_rows = r.nullableInteger(*v, at, "logical_rows", 1);
    p.logical_cols = r.nullableInteger(*v, at, "logical_cols", 1);
    return p;
}

LtPolicySource readSource(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicySource s;
    s.original = v;
    if (const auto x = r.string(v, path, "report")) s.report = *x;
    s.report_sha256 = r.nullableString(v, path, "report_sha256");
    s.mode = r.nullableString(v, path, "mode");
    s.candidate_index = r.nullableInteger(v, path, "candidate_index", 0);
    return s;
}

LtPolicyEntry readEntry(const Json& v, const std::string& path, ModelReader& r) {
    LtPolicyEntry e;
    e.original = v;
    if (const auto x = r.string(v, path, "library")) e.library = *x;
    if (const Json* m = r.object(v, path, "matmul")) e.matmul = readMatmul(*m, jsonPointerAppend(path, "matmul"), r);
    if (const Json* a = r.object(v, path, "algo")) e.algo = readAlgo(*a, jsonPointerAppend(path, "algo"), r);
    if (const Json* h = optionalObject(r, v, path, "heuristic_first"))
        e.heuristic_first = readAlgo(*h, jsonPointerAppend(path, "heuristic_first"), r);
    if (const Json* g = r.object(v, path, "gain")) e.gain = readGain(*g, jsonPointerAppend(path, "gain"), r);
    e.ties = readTies(v, path, r);
    if (const Json* env = r.object(v, path, "environment"))
        e.environment = readEnvironment(*env, jsonPointerAppend(path, "environment"), r);
    e.parity = readParity(v, path, r);
    if (const Json* s = r.object(v, path, "source")) e.source = readSource(*s, jsonPointerAppend(path, "source"), r);
    return e;
}

// --- writing -----------------------------------------------------------------------------------------------------

Json intervalJson(const std::optional<std::pair<double, double>>& interval) {
    return interval ? Json::array({interval->first, interval->second}) : Json(nullptr);
}

Json dataWordsJson(const std::optional<LtAlgoData>& data) {
    if (!data) return nullptr;
    Json words = Json::array();
    for (std::uint64_t w : *data) words.push_back(algoDataWordText(w));
    return words;
}

Json attributesToJson(const LtAlgoAttributes& a) {
    Json out = objectOrEmpty(a.original);
    put(out, "algo_id", a.algo_id);
    put(out, "tile_id", a.tile_id);
    put(out, "stages_id", a.stages_id);
    put(out, "split_k", a.split_k);
    put(out, "reduction_scheme", a.reduction_scheme);
    put(out, "cta_swizzle", a.cta_swizzle);
    put(out, "custom_option", a.custom_option);
    put(out, "inner_shape_id", a.inner_shape_id ? Json(*a.inner_shape_id) : Json(nullptr));
    put(out, "cluster_shape_id", a.cluster_shape_id ? Json(*a.cluster_shape_id) : Json(nullptr));
    return out;
}

Json algoToJson(const LtPolicyAlgo& a) {
    Json out = objectOrEmpty(a.original);
    if (a.data || out.contains("data_words")) put(out, "data_words", dataWordsJson(a.data));
    if (a.attributes) put(out, "attributes", attributesToJson(*a.attributes));
    if (a.tile || a.stages || a.cluster || a.reduction || out.contains("names")) {
        Json names = objectOrEmpty(out.value("names", Json::object()));
        putNullable(names, "tile", a.tile);
        putNullable(names, "stages", a.stages);
        putNullable(names, "cluster", a.cluster);
        putNullable(names, "reduction", a.reduction);
        put(out, "names", names);
    }
    putNullable(out, "required_workspace_bytes", a.required_workspace_bytes);
    putOptional(out, "solution_index", a.solution_index);
    putOptional(out, "solution_name", a.solution_name);
    return out;
}

Json matmulToJson(const LtMatmul& m) {
    Json out = objectOrEmpty(m.original);
    put(out, "m", m.m);
    put(out, "n", m.n);
    put(out, "k", m.k);
    put(out, "batch_count", m.batch_count);
    put(out, "transa", m.transa);
    put(out, "transb", m.transb);
    put(out, "order", m.order);
    put(out, "lda", m.lda);
    put(out, "ldb", m.ldb);
    put(out, "ldc", m.ldc);
    put(out, "ldd", m.ldd);
    put(out, "a_type", m.a_type);
    put(out, "b_type", m.b_type);
    put(out, "c_type", m.c_type);
    put(out, "d_type", m.d_type);
    put(out, "compute_type", m.compute_type);
    put(out, "scale_type", m.scale_type);
    put(out, "a_scale_mode", m.a_scale_mode);
    put(out, "b_scale_mode", m.b_scale_mode);
    put(out, "epilogue", m.epilogue);
    put(out, "bias_type", m.bias_type ? Json(*m.bias_type) : Json(nullptr));
    put(out, "pointer_mode", m.pointer_mode);
    Json align = objectOrEmpty(out.value("min_alignment_bytes", Json::object()));
    put(align, "a", m.min_alignment_a_bytes);
    put(align, "b", m.min_alignment_b_bytes);
    put(align, "c", m.min_alignment_c_bytes);
    put(align, "d", m.min_alignment_d_bytes);
    put(out, "min_alignment_bytes", align);
    put(out, "workspace_limit_bytes", m.workspace_limit_bytes);
    return out;
}

Json gainToJson(const LtPolicyGain& g) {
    Json out = objectOrEmpty(g.original);
    put(out, "percent", g.percent);
    put(out, "interval_95_percent", intervalJson(g.interval_95_percent));
    put(out, "regime", g.regime);
    put(out, "basis", g.basis);
    put(out, "over_heuristic", g.over_heuristic);
    putNullable(out, "l2", g.l2);
    putNullable(out, "power_limited", g.power_limited);
    putNullable(out, "rounds", g.rounds);
    return out;
}

Json tiesToJson(const LtTieSet& t) {
    Json out = objectOrEmpty(t.original);
    put(out, "rule", t.rule);
    Json members = Json::array();
    for (const LtTieMember& m : t.members) {
        Json item = objectOrEmpty(m.original);
        put(item, "attributes", attributesToJson(m.attributes));
        if (m.data || item.contains("data_words")) put(item, "data_words", dataWordsJson(m.data));
        putNullable(item, "candidate_index", m.candidate_index);
        putNullable(item, "gain_percent", m.gain_percent);
        put(item, "interval_95_percent", intervalJson(m.interval_95_percent));
        put(item, "cleared", m.cleared);
        members.push_back(std::move(item));
    }
    put(out, "members", members);
    return out;
}

Json environmentToJson(const LtPolicyEnvironment& e) {
    Json out = objectOrEmpty(e.original);
    put(out, "gpu", e.gpu);
    put(out, "architecture", e.architecture);
    putNullable(out, "cublaslt_version", e.cublaslt_version);
    putNullable(out, "cuda_runtime_version", e.cuda_runtime_version);
    putNullable(out, "driver", e.driver);
    putNullable(out, "multiprocessors", e.multiprocessors);
    putOptional(out, "hipblaslt_version", e.hipblaslt_version);
    putOptional(out, "hipblaslt_git_version", e.hipblaslt_git_version);
    return out;
}

Json parityToJson(const LtPolicyParity& p) {
    Json out = objectOrEmpty(p.original);
    putNullable(out, "output_sha256", p.output_sha256);
    putNullable(out, "bitwise_equal_to_heuristic", p.bitwise_equal_to_heuristic);
    putNullable(out, "data_seed", p.data_seed);
    putNullable(out, "inputs", p.inputs);
    putNullable(out, "logical_rows", p.logical_rows);
    putNullable(out, "logical_cols", p.logical_cols);
    return out;
}

Json sourceToJson(const LtPolicySource& s) {
    Json out = objectOrEmpty(s.original);
    put(out, "report", s.report);
    putNullable(out, "report_sha256", s.report_sha256);
    putNullable(out, "mode", s.mode);
    putNullable(out, "candidate_index", s.candidate_index);
    return out;
}

}  // namespace lt_policy_file

Json toJson(const LtPolicyEntry& e) {
    Json out = objectOrEmpty(e.original);
    put(out, "library", e.library);
    put(out, "matmul", lt_policy_file::matmulToJson(e.matmul));
    put(out, "algo", lt_policy_file::algoToJson(e.algo));
    put(out, "heuristic_first", e.heuristic_first ? lt_policy_file::algoToJson(*e.heuristic_first) : Json(nullptr));
    put(out, "gain", lt_policy_file::gainToJson(e.gain));
    put(out, "ties", e.ties ? lt_policy_file::tiesToJson(*e.ties) : Json(nullptr));
    put(out, "environment", lt_policy_file::environmentToJson(e.environment));
    put(out, "parity", e.parity ? lt_policy_file::parityToJson(*e.parity) : Json(nullptr));
    put(out, "source", lt_policy_file::sourceToJson(e.source));
    return out;
}

namespace detail {

CublasLtPolicy readCublasLtPolicy(const Json& doc, ModelReader& r) {
    CublasLtPolicy p;
    p.fileName = r.file();
    if (!r.isObject(doc, "")) return p;
    p.original = doc;
    if (const auto format = r.string(doc, "", "format")) {
        p.format = *format;
        if (*format != kCublasLtPolicyFormat)
            r.fail("/format", "\"" + *format + "\" is not a cuBLASLt policy (expected \"" +
                                  std::string(kCublasLtPolicyFormat) + "\")");
    }
    if (const auto digest = r.string(doc, "", "entries_sha256")) p.entries_sha256 = *digest;
    if (const Json* entries = r.array(doc, "", "entries")) {
        for (std::size_t i = 0; i < entries->size(); ++i) {
            const std::string at = jsonPointerAppend("/entries", i);
            if (r.isObject((*entries)[i], at)) p.entries.push_back(lt_policy_file::readEntry((*entries)[i], at, r));
        }
    }
    return p;
}

std::string policyEntryKey(const LtPolicyEntry& e) {
    std::string key = describe(e.matmul) + " on " + e.environment.gpu + " (" + e.environment.architecture + ")";
    if (e.isCublasLt())
        key += " cuBLASLt " + (e.environment.cublaslt_version ? std::to_string(*e.environment.cublaslt_version) : "?");
    else
        key += " " + e.library + " " + e.environment.hipblaslt_version.value_or("?");
    return key;
}

}  // namespace detail

CublasLtPolicy parseCublasLtPolicy(const Json& document, const std::string& fileName) {
    ModelReader reader(fileName, /*collect=*/false);
    return detail::readCublasLtPolicy(document, reader);
}

CublasLtPolicy parseCublasLtPolicyText(std::string_view text, const std::string& fileName) {
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;
    CublasLtPolicy policy = parseCublasLtPolicy(parseJson(text, fileName, options), fileName);
    policy.layout = detectJsonLayout(text);
    return policy;
}

CublasLtPolicy loadCublasLtPolicy(const std::filesystem::path& file) {
    return parseCublasLtPolicyText(readTextFile(file), file.string());
}

Json toJson(const CublasLtPolicy& p) {
    Json doc = objectOrEmpty(p.original);
    put(doc, "format", p.format);
    put(doc, "entries_sha256", p.entries_sha256);
    Json entries = Json::array();
    for (const LtPolicyEntry& e : p.entries) entries.push_back(toJson(e));
    put(doc, "entries", entries);
    return doc;
}

std::string serializeCublasLtPolicy(const CublasLtPolicy& policy) {
    return serializeJson(toJson(policy), policy.layout);
}

void saveCublasLtPolicy(const CublasLtPolicy& policy, const std::filesystem::path& file) {
    writeFileAtomic(file, serializeCublasLtPolicy(policy));
}

std::string cublasLtPolicyEntriesSha256(const CublasLtPolicy& policy) {
    Json entries = Json::array();
    for (const LtPolicyEntry& e : policy.entries) entries.push_back(toJson(e));
    return sha256Hex(canonicalize(entries, policy.fileName));
}

}  // namespace tunescope
