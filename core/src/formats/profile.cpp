#include "tunescope/formats/profile.hpp"

#include <algorithm>
#include <charconv>
#include <climits>

#include "profile_internal.hpp"

namespace tunescope {

using detail::ModelReader;
using detail::Need;
using detail::objectOrEmpty;
using detail::put;

namespace {

constexpr std::int64_t kRowsPerBucket = 65536;  // FLA v0.5.2: NB = triton.cdiv(T, 2048 * 32)

// a * b * c, or nullopt when it does not fit in 63 bits (the inputs come from files and the command line).
std::optional<std::int64_t> checkedProduct(std::int64_t a, std::int64_t b, std::int64_t c) {
    if (a < 0 || b < 0 || c < 0) return std::nullopt;
    std::int64_t ab = 0, abc = 0;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return std::nullopt;
    return abc;
}

std::optional<std::int64_t> parseDecimal(const Json& item) {
    if (item.is_number_integer() || item.is_number_unsigned()) {
        if (item.is_number_unsigned() && item.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            return std::nullopt;
        return item.get<std::int64_t>();
    }
    if (item.is_string()) {
        const auto& text = item.get_ref<const std::string&>();
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && ptr == text.data() + text.size() && !text.empty()) return value;
    }
    return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// TritonConfig

Json toJson(const TritonConfig& config) {
    Json kwargs = Json::object();
    kwargs["BT"] = config.BT;
    for (const auto& [key, value] : config.extraKwargs.items()) kwargs[key] = value;
    Json out = Json::object();
    out["kwargs"] = kwargs;
    out["num_warps"] = config.num_warps;
    out["num_ctas"] = config.num_ctas;
    out["num_stages"] = config.num_stages;
    out["maxnreg"] = config.maxnreg ? Json(*config.maxnreg) : Json(nullptr);
    out["pre_hook"] = config.pre_hook;
    out["ir_override"] = config.ir_override ? Json(*config.ir_override) : Json(nullptr);
    for (const auto& [key, value] : config.extraFields.items()) out[key] = value;
    return out;
}

void writeTritonConfig(Json& slot, const TritonConfig& config) {
    if (!slot.is_object()) {
        slot = toJson(config);
        return;
    }
    Json kwargs = slot.contains("kwargs") ? objectOrEmpty(slot["kwargs"]) : Json::object();
    put(kwargs, "BT", config.BT);
    for (const auto& [key, value] : config.extraKwargs.items()) put(kwargs, key, value);
    for (auto it = kwargs.begin(); it != kwargs.end();) {
        if (it.key() != "BT" && !config.extraKwargs.contains(it.key())) it = kwargs.erase(it);
        else ++it;
    }
    put(slot, "kwargs", kwargs);
    put(slot, "num_warps", config.num_warps);
    put(slot, "num_ctas", config.num_ctas);
    put(slot, "num_stages", config.num_stages);
    // Triton always writes these three, possibly null; a file that left them out keeps leaving out the nulls.
    if (config.maxnreg || slot.contains("maxnreg")) put(slot, "maxnreg", config.maxnreg ? Json(*config.maxnreg) : Json());
    if (!config.pre_hook.is_null() || slot.contains("pre_hook")) put(slot, "pre_hook", config.pre_hook);
    if (config.ir_override || slot.contains("ir_override"))
        put(slot, "ir_override", config.ir_override ? Json(*config.ir_override) : Json());
    static const char* const kKnown[] = {"kwargs", "num_warps", "num_ctas", "num_stages", "maxnreg", "pre_hook",
                                         "ir_override"};
    for (auto it = slot.begin(); it != slot.end();) {
        const bool known = std::find(std::begin(kKnown), std::end(kKnown), it.key()) != std::end(kKnown);
        if (!known && !config.extraFields.contains(it.key())) it = slot.erase(it);
        else ++it;
    }
    for (const auto& [key, value] : config.extraFields.items()) put(slot, key, value);
}

std::string describe(const TritonConfig& config) {
    std::string text = "BT=" + std::to_string(config.BT) + " num_warps=" + std::to_string(config.num_warps) +
                       " num_stages=" + std::to_string(config.num_stages) + " num_ctas=" + std::to_string(config.num_ctas);
    if (config.maxnreg) text += " maxnreg=" + std::to_string(*config.maxnreg);
    if (config.ir_override) text += " ir_override=" + *config.ir_override;
    if (!config.pre_hook.is_null()) text += " pre_hook=" + config.pre_hook.dump();
    for (const auto& [key, value] : config.extraKwargs.items()) text += " " + key + "=" + value.dump();
    for (const auto& [key, value] : config.extraFields.items()) text += " " + key + "=" + value.dump();
    return text;
}

L2NormConfig toL2NormConfig(const TritonConfig& config) {
    L2NormConfig out;
    out.blockRows = config.BT;
    out.numWarps = config.num_warps;
    out.numStages = config.num_stages;
    out.numCtas = config.num_ctas;
    return out;
}

TritonConfig fromL2NormConfig(const L2NormConfig& config) {
    TritonConfig out;
    out.BT = config.blockRows;
    out.num_warps = config.numWarps;
    out.num_stages = config.numStages;
    out.num_ctas = config.numCtas;
    return out;
}

TritonConfig tritonConfigFromJson(const Json& json, const std::string& fileName, const std::string& path) {
    ModelReader reader(fileName, /*collect=*/false);
    return detail::readTritonConfig(json, path, reader);
}

// ---------------------------------------------------------------------------------------------------------------
// AutotuneKey, Supported

Json AutotuneKey::toJson() const { return Json::array({headDimension, NB, bodyDtype, outputDtype, rstdDtype}); }

std::optional<AutotuneKey> AutotuneKey::fromJson(const Json& key) {
    if (!key.is_array() || key.size() != 5) return std::nullopt;
    const auto d = parseDecimal(key[0]);
    const auto nb = parseDecimal(key[1]);
    if (!d || !nb || !key[2].is_string() || !key[3].is_string() || !key[4].is_string()) return std::nullopt;
    AutotuneKey out;
    out.headDimension = *d;
    out.NB = *nb;
    out.bodyDtype = key[2].get<std::string>();
    out.outputDtype = key[3].get<std::string>();
    out.rstdDtype = key[4].get<std::string>();
    return out;
}

std::string torchDtype(std::string_view dtype) {
    if (dtype.rfind("torch.", 0) == 0) return std::string(dtype);
    return "torch." + std::string(dtype);
}

std::optional<std::int64_t> Supported::nbFor(std::int64_t batch, std::int64_t paddedTokens) const {
    const auto rows = checkedProduct(batch, paddedTokens, key_heads);
    if (!rows) return std::nullopt;
    // Rounded up without adding first: rows + 65535 overflows for rows near 2^63.
    return *rows / kRowsPerBucket + (*rows % kRowsPerBucket != 0 ? 1 : 0);
}

std::optional<std::int64_t> Supported::expectedNbMax() const { return nbFor(batch_size_max, padded_tokens_max); }

std::string Supported::expectedNbFormula() const {
    return "ceil(B*padded_tokens*" + std::to_string(key_heads) + "/" + std::to_string(kRowsPerBucket) + ")";
}

AutotuneKey Supported::keyFor(std::int64_t nb) const {
    AutotuneKey key;
    key.headDimension = head_dimension;
    key.NB = nb;
    key.bodyDtype = torchDtype(body_dtype);
    key.outputDtype = torchDtype(output_dtype);
    key.rstdDtype = torchDtype(rstd_dtype);
    return key;
}

// ---------------------------------------------------------------------------------------------------------------
// Profile accessors

const PolicyEntry* Profile::policyFor(std::int64_t nb) const {
    for (const auto& entry : per_NB_policy)
        if (entry.NB == nb) return &entry;
    return nullptr;
}

PolicyEntry* Profile::policyFor(std::int64_t nb) {
    return const_cast<PolicyEntry*>(static_cast<const Profile*>(this)->policyFor(nb));
}

const SourceEvidence* Profile::evidenceFor(std::int64_t nb) const {
    for (const auto& evidence : source_evidence)
        if (evidence.key.NB == nb) return &evidence;
    return nullptr;
}

void Profile::setPolicy(std::int64_t nb, const TritonConfig& config, std::string basis,
                        std::optional<MeasuredEvidence> evidence) {
    PolicyEntry* entry = policyFor(nb);
    if (!entry) {
        PolicyEntry fresh;
        fresh.NB = nb;
        const auto pos = std::find_if(per_NB_policy.begin(), per_NB_policy.end(),
                                      [nb](const PolicyEntry& e) { return e.NB > nb; });
        entry = &*per_NB_policy.insert(pos, std::move(fresh));
    }
    entry->config = config;
    entry->basis = std::move(basis);
    entry->evidence = std::move(evidence);
}

void Profile::setMeasuredBest(std::int64_t nb, const TritonConfig& config, const MeasuredEvidence& evidence) {
    setPolicy(nb, config, std::string(kBasisMeasured), evidence);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

namespace detail {

TritonConfig readTritonConfig(const Json& value, const std::string& path, ModelReader& r) {
    TritonConfig config;
    if (!r.isObject(value, path)) return config;
    if (const Json* kwargs = r.object(value, path, "kwargs")) {
        const std::string at = jsonPointerAppend(path, "kwargs");
        if (const auto bt = r.integer(*kwargs, at, "BT", Need::Required, 1, INT_MAX)) config.BT = static_cast<int>(*bt);
        for (const auto& [key, item] : kwargs->items())
            if (key != "BT") config.extraKwargs[key] = item;
    }
    if (const auto v = r.integer(value, path, "num_warps", Need::Required, 1, INT_MAX)) config.num_warps = static_cast<int>(*v);
    if (const auto v = r.integer(value, path, "num_ctas", Need::Required, 1, INT_MAX)) config.num_ctas = static_cast<int>(*v);
    if (const auto v = r.integer(value, path, "num_stages", Need::Required, 0, INT_MAX)) config.num_stages = static_cast<int>(*v);
    if (const auto v = r.nullableInteger(value, path, "maxnreg", 1, INT_MAX)) config.maxnreg = static_cast<int>(*v);
    if (const Json* hook = r.member(value, path, "pre_hook", Need::Optional)) config.pre_hook = *hook;
    config.ir_override = r.nullableString(value, path, "ir_override");
    static const char* const kKnown[] = {"kwargs", "num_warps", "num_ctas", "num_stages", "maxnreg", "pre_hook",
                                         "ir_override"};
    for (const auto& [key, item] : value.items())
        if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) config.extraFields[key] = item;
    return config;
}

std::optional<AutotuneKey> readAutotuneKey(const Json& value, const std::string& path, ModelReader& r) {
    auto key = AutotuneKey::fromJson(value);
    if (!key)
        r.fail(path,
               "an autotune key must be [head_dimension, NB, body dtype, output dtype, rstd dtype], e.g. "
               "[128, 1, \"torch.bfloat16\", \"torch.bfloat16\", \"torch.float32\"]; got " +
                   (value.is_array() ? value.dump(-1, ' ', true, Json::error_handler_t::replace).substr(0, 120)
                                     : ModelReader::describe(value)),
               "autotune-key");
    return key;
}

namespace {

Supported readSupported(const Json& value, const std::string& path, ModelReader& r) {
    Supported s;
    s.original = value;
    auto integer = [&](const char* key, std::int64_t& out, std::int64_t min) {
        if (const auto v = r.integer(value, path, key, Need::Required, min)) out = *v;
    };
    auto text = [&](const char* key, std::string& out) {
        if (const auto v = r.string(value, path, key)) out = *v;
    };
    integer("head_dimension", s.head_dimension, 1);
    integer("key_heads", s.key_heads, 1);
    text("body_dtype", s.body_dtype);
    text("output_dtype", s.output_dtype);
    text("rstd_dtype", s.rstd_dtype);
    integer("batch_size_min", s.batch_size_min, 1);
    integer("batch_size_max", s.batch_size_max, 1);
    integer("padded_tokens_max", s.padded_tokens_max, 1);
    integer("NB_min", s.NB_min, 1);
    integer("NB_max", s.NB_max, 1);
    text("NB_formula", s.NB_formula);
    text("unknown_key", s.unknown_key);
    return s;
}

RuntimeVersions readRuntime(const Json& value, const std::string& path, ModelReader& r) {
    RuntimeVersions v;
    v.original = value;
    v.torch = r.string(value, path, "torch", Need::Optional);
    v.hip = r.string(value, path, "hip", Need::Optional);
    v.cuda = r.string(value, path, "cuda", Need::Optional);
    if (const auto s = r.string(value, path, "triton")) v.triton = *s;
    if (const auto s = r.string(value, path, "fla")) v.fla = *s;
    if (const auto s = r.string(value, path, "gpu_arch")) v.gpu_arch = *s;
    return v;
}

MeasuredEvidence readMeasuredEvidence(const Json& value, const std::string& path, ModelReader& r) {
    MeasuredEvidence e;
    e.original = value;
    if (const auto v = r.number(value, path, "median_ms")) e.median_ms = *v;
    if (const auto v = r.number(value, path, "p20_ms")) e.p20_ms = *v;
    if (const auto v = r.number(value, path, "p80_ms")) e.p80_ms = *v;
    if (const auto v = r.integer(value, path, "samples", Need::Required, 1)) e.samples = *v;
    if (const auto v = r.string(value, path, "device")) e.device = *v;
    if (const auto v = r.string(value, path, "results_sha256")) e.results_sha256 = *v;
    return e;
}

}  // namespace

Profile readProfile(const Json& doc, ModelReader& r) {
    Profile p;
    p.fileName = r.file();
    p.original = doc;
    if (!r.isObject(doc, "")) return p;
    if (const auto format = r.string(doc, "", "format")) {
        p.format = *format;
        if (*format != kProfileFormat)
            r.fail("/format", "unknown format \"" + *format + "\"; this reader knows \"" + std::string(kProfileFormat) + "\"",
                   "format");
    }
    if (const auto v = r.string(doc, "", "status")) p.status = *v;
    if (const auto v = r.string(doc, "", "target")) p.target = *v;
    if (const auto v = r.boolean(doc, "", "model_changes")) p.model_changes = *v;
    if (const auto v = r.number(doc, "", "numerical_tolerance_unchanged")) p.numerical_tolerance_unchanged = *v;
    if (const auto v = r.string(doc, "", "cache_mode")) p.cache_mode = *v;
    if (const Json* v = r.object(doc, "", "supported")) p.supported = readSupported(*v, "/supported", r);
    if (const Json* v = r.object(doc, "", "runtime")) p.runtime = readRuntime(*v, "/runtime", r);
    if (const Json* list = r.array(doc, "", "files")) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/files", i);
            const Json& item = (*list)[i];
            if (!r.isObject(item, at)) continue;
            FileEntry f;
            f.original = item;
            if (const auto v = r.string(item, at, "file")) f.file = *v;
            if (const auto v = r.string(item, at, "sha256")) f.sha256 = *v;
            p.files.push_back(std::move(f));
        }
    }
    if (const Json* digests = r.object(doc, "", "fla_source_sha256", Need::Optional)) {
        p.fla_source_sha256.emplace();
        for (const auto& [name, item] : digests->items())
            if (const auto v = r.asString(item, jsonPointerAppend("/fla_source_sha256", name)))
                p.fla_source_sha256->push_back(NamedDigest{name, *v});
    }
    if (const Json* list = r.array(doc, "", "source_evidence")) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/source_evidence", i);
            const Json& item = (*list)[i];
            if (!r.isObject(item, at)) continue;
            SourceEvidence e;
            e.original = item;
            if (const Json* key = r.member(item, at, "key", Need::Required))
                if (const auto k = readAutotuneKey(*key, jsonPointerAppend(at, "key"), r)) e.key = *k;
            if (const auto v = r.string(item, at, "source_autotune_sha256")) e.source_autotune_sha256 = *v;
            if (const Json* c = r.member(item, at, "chosen_config", Need::Required))
                e.chosen_config = readTritonConfig(*c, jsonPointerAppend(at, "chosen_config"), r);
            if (const Json* t = r.array(item, at, "chosen_timing_ms", Need::Optional)) {
                std::vector<double> timings;
                for (std::size_t j = 0; j < t->size(); ++j)
                    if (const auto ms = r.asNumber((*t)[j], jsonPointerAppend(jsonPointerAppend(at, "chosen_timing_ms"), j)))
                        timings.push_back(*ms);
                if (timings.size() == t->size()) e.chosen_timing_ms = std::move(timings);
            }
            p.source_evidence.push_back(std::move(e));
        }
    }
    if (const Json* list = r.array(doc, "", "per_NB_policy")) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/per_NB_policy", i);
            const Json& item = (*list)[i];
            if (!r.isObject(item, at)) continue;
            PolicyEntry e;
            e.original = item;
            if (const auto v = r.integer(item, at, "NB")) e.NB = *v;
            if (const auto v = r.string(item, at, "basis")) e.basis = *v;
            if (const Json* c = r.member(item, at, "config", Need::Required))
                e.config = readTritonConfig(*c, jsonPointerAppend(at, "config"), r);
            if (const Json* ev = r.object(item, at, "evidence", Need::Optional))
                e.evidence = readMeasuredEvidence(*ev, jsonPointerAppend(at, "evidence"), r);
            p.per_NB_policy.push_back(std::move(e));
        }
    }
    p.unseen_NB_claim = r.string(doc, "", "unseen_NB_claim", Need::Optional);
    p.other_kernels = r.string(doc, "", "other_kernels", Need::Optional);
    p.compiled_binaries_included = r.boolean(doc, "", "compiled_binaries_included", Need::Optional);
    p.private_paths_included = r.boolean(doc, "", "private_paths_included", Need::Optional);
    p.builder_sha256 = r.string(doc, "", "builder_sha256", Need::Optional);
    return p;
}

Json policyEntryToJson(const PolicyEntry& entry) {
    Json out = objectOrEmpty(entry.original);
    put(out, "NB", entry.NB);
    put(out, "basis", entry.basis);
    Json config = out.contains("config") ? out["config"] : Json();
    writeTritonConfig(config, entry.config);
    put(out, "config", config);
    if (entry.evidence) {
        Json ev = objectOrEmpty(entry.evidence->original);
        put(ev, "median_ms", entry.evidence->median_ms);
        put(ev, "p20_ms", entry.evidence->p20_ms);
        put(ev, "p80_ms", entry.evidence->p80_ms);
        put(ev, "samples", entry.evidence->samples);
        put(ev, "device", entry.evidence->device);
        put(ev, "results_sha256", entry.evidence->results_sha256);
        put(out, "evidence", ev);
    } else if (out.contains("evidence")) {
        out.erase("evidence");
    }
    return out;
}

}  // namespace detail

Profile parseProfile(const Json& document, const std::string& fileName) {
    ModelReader reader(fileName, /*collect=*/false);
    return detail::readProfile(document, reader);
}

Profile parseProfileText(std::string_view text, const std::string& fileName) {
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;
    Profile profile = parseProfile(parseJson(text, fileName, options), fileName);
    profile.layout = detectJsonLayout(text);
    return profile;
}

Profile loadProfile(const std::filesystem::path& file) {
    return parseProfileText(readTextFile(file), file.string());
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

namespace {

Json supportedToJson(const Supported& s) {
    Json out = objectOrEmpty(s.original);
    put(out, "head_dimension", s.head_dimension);
    put(out, "key_heads", s.key_heads);
    put(out, "body_dtype", s.body_dtype);
    put(out, "output_dtype", s.output_dtype);
    put(out, "rstd_dtype", s.rstd_dtype);
    put(out, "batch_size_min", s.batch_size_min);
    put(out, "batch_size_max", s.batch_size_max);
    put(out, "padded_tokens_max", s.padded_tokens_max);
    put(out, "NB_min", s.NB_min);
    put(out, "NB_max", s.NB_max);
    put(out, "NB_formula", s.NB_formula);
    put(out, "unknown_key", s.unknown_key);
    return out;
}

Json runtimeToJson(const RuntimeVersions& v) {
    Json out = objectOrEmpty(v.original);
    detail::putOptional(out, "torch", v.torch);
    detail::putOptional(out, "hip", v.hip);
    detail::putOptional(out, "cuda", v.cuda);
    put(out, "triton", v.triton);
    put(out, "fla", v.fla);
    put(out, "gpu_arch", v.gpu_arch);
    return out;
}

Json evidenceToJson(const SourceEvidence& e) {
    Json out = objectOrEmpty(e.original);
    // Keep the key's original spelling (e.g. "128" strings) while it still says the same thing.
    const auto originalKey = out.contains("key") ? AutotuneKey::fromJson(out["key"]) : std::nullopt;
    if (!originalKey || !(*originalKey == e.key)) put(out, "key", e.key.toJson());
    put(out, "source_autotune_sha256", e.source_autotune_sha256);
    Json config = out.contains("chosen_config") ? out["chosen_config"] : Json();
    writeTritonConfig(config, e.chosen_config);
    put(out, "chosen_config", config);
    detail::putOptional(out, "chosen_timing_ms", e.chosen_timing_ms);
    return out;
}

}  // namespace

Json toJson(const Profile& p) {
    Json doc = objectOrEmpty(p.original);
    put(doc, "format", p.format);
    put(doc, "status", p.status);
    put(doc, "target", p.target);
    put(doc, "model_changes", p.model_changes);
    put(doc, "numerical_tolerance_unchanged", p.numerical_tolerance_unchanged);
    put(doc, "cache_mode", p.cache_mode);
    put(doc, "supported", supportedToJson(p.supported));
    put(doc, "runtime", runtimeToJson(p.runtime));
    Json files = Json::array();
    for (const auto& f : p.files) {
        Json item = objectOrEmpty(f.original);
        put(item, "file", f.file);
        put(item, "sha256", f.sha256);
        files.push_back(std::move(item));
    }
    put(doc, "files", files);
    if (p.fla_source_sha256) {
        Json digests = Json::object();
        for (const auto& d : *p.fla_source_sha256) digests[d.path] = d.sha256;
        put(doc, "fla_source_sha256", digests);
    } else if (doc.contains("fla_source_sha256")) {
        doc.erase("fla_source_sha256");
    }
    Json evidence = Json::array();
    for (const auto& e : p.source_evidence) evidence.push_back(evidenceToJson(e));
    put(doc, "source_evidence", evidence);
    Json policy = Json::array();
    for (const auto& e : p.per_NB_policy) policy.push_back(detail::policyEntryToJson(e));
    put(doc, "per_NB_policy", policy);
    detail::putOptional(doc, "unseen_NB_claim", p.unseen_NB_claim);
    detail::putOptional(doc, "other_kernels", p.other_kernels);
    detail::putOptional(doc, "compiled_binaries_included", p.compiled_binaries_included);
    detail::putOptional(doc, "private_paths_included", p.private_paths_included);
    detail::putOptional(doc, "builder_sha256", p.builder_sha256);
    return doc;
}

std::string serializeProfile(const Profile& profile) { return serializeJson(toJson(profile), profile.layout); }

void saveProfile(const Profile& profile, const std::filesystem::path& file) {
    writeFileAtomic(file, serializeProfile(profile));
}

Profile makeProfile(const Supported& supported, const RuntimeVersions& runtime) {
    Profile p;
    p.status = "draft";
    p.target = "";
    p.supported = supported;
    p.runtime = runtime;
    return p;
}

}  // namespace tunescope
