#include "tunescope/formats/fla_cache.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "interop_internal.hpp"
#include "profile_internal.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope {

namespace fs = std::filesystem;
using detail::ModelReader;
using detail::Need;
using detail::objectOrEmpty;
using detail::put;

namespace {

void writeCompactSorted(const Json& value, std::string& out) {
    switch (value.type()) {
    case Json::value_t::object: {
        std::vector<const std::string*> keys;
        for (const auto& [key, item] : value.items()) keys.push_back(&key);
        // Python sorts str keys by code point; for UTF-8 that is byte order.
        std::sort(keys.begin(), keys.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
        out += '{';
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (i > 0) out += ',';
            out += serializeJson(Json(*keys[i]));
            out += ':';
            writeCompactSorted(value.at(*keys[i]), out);
        }
        out += '}';
        break;
    }
    case Json::value_t::array: {
        out += '[';
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (i > 0) out += ',';
            writeCompactSorted(value[i], out);
        }
        out += ']';
        break;
    }
    default: out += serializeJson(value); break;
    }
}

// The config FLA's loader reads: Triton's Config.__dict__ (kwargs, num_warps, num_ctas, num_stages, maxnreg,
// pre_hook, ir_override); pre_hook is forced to None by FLA anyway.
Json flaEntryConfig(const TritonConfig& config) { return toJson(config); }

Json defaultConfigJson(const TritonConfig& config) {
    const Json full = toJson(config);
    Json out = Json::object();
    out["kwargs"] = full["kwargs"];
    out["num_warps"] = full["num_warps"];
    out["num_ctas"] = full["num_ctas"];
    out["num_stages"] = full["num_stages"];
    return out;
}

}  // namespace

std::string pythonCompactSortedJson(const Json& value) {
    std::string out;
    writeCompactSorted(value, out);
    return out;
}

std::string flaKeyHash(const Json& key) { return md5Hex(pythonCompactSortedJson(key)); }

FlaConfigFile parseFlaConfig(const Json& doc, const std::string& fileName) {
    ModelReader r(fileName, /*collect=*/false);
    FlaConfigFile file;
    file.original = doc;
    file.fileName = fileName;
    r.isObject(doc, "");
    if (const auto v = r.string(doc, "", "kernel_name", Need::Optional)) file.kernel_name = *v;
    if (const auto v = r.nullableString(doc, "", "triton_version")) file.triton_version = *v;
    if (const Json* d = r.member(doc, "", "default_config", Need::Optional); d && !d->is_null()) {
        // FLA's default_config has no maxnreg/pre_hook/ir_override; read it like a config.
        file.default_config = detail::readTritonConfig(*d, "/default_config", r);
    }
    if (const Json* entries = r.object(doc, "", "autotune_entries")) {
        for (const auto& [hash, item] : entries->items()) {
            const std::string at = jsonPointerAppend("/autotune_entries", hash);
            if (!r.isObject(item, at)) continue;
            FlaConfigEntry e;
            e.hash = hash;
            e.original = item;
            if (const Json* key = r.array(item, at, "autotune_key")) {
                e.autotune_key = *key;
                e.parsedKey = AutotuneKey::fromJson(*key);
            }
            if (const Json* config = r.object(item, at, "config"))
                e.config = detail::readTritonConfig(*config, at + "/config", r);
            if (const Json* timing = r.member(item, at, "best_timing", Need::Optional)) {
                // Triton's timings as FLA keeps them: each a time or Infinity (a failed config), as import-triton reads.
                const auto check = [&](const Json& t, const std::string& path) {
                    if (t.is_number() && !isValidTimingMs(t.get<double>(), true))
                        r.fail(path, "a timing " + timingRuleText(t.get<double>(), true));
                };
                if (timing->is_array())
                    for (std::size_t j = 0; j < timing->size(); ++j)
                        check((*timing)[j], jsonPointerAppend(at + "/best_timing", j));
                else
                    check(*timing, at + "/best_timing");
                e.best_timing = *timing;
            }
            file.entries.push_back(std::move(e));
        }
    }
    return file;
}

FlaConfigFile loadFlaConfig(const fs::path& path) {
    const std::string text = readTextFile(path);
    JsonReadOptions options;
    options.allowNonFiniteTokens = true;  // best_timing may hold Infinity, as Python writes it
    options.rejectDuplicateKeys = true;
    FlaConfigFile file = parseFlaConfig(parseJson(text, path.string(), options), path.string());
    file.layout = detectJsonLayout(text);
    return file;
}

Json toJson(const FlaConfigFile& file) {
    Json doc = objectOrEmpty(file.original);
    put(doc, "kernel_name", file.kernel_name);
    put(doc, "triton_version", file.triton_version);
    if (file.default_config) {
        Json slot = doc.contains("default_config") && doc["default_config"].is_object() ? doc["default_config"]
                                                                                       : defaultConfigJson(*file.default_config);
        writeTritonConfig(slot, *file.default_config);
        put(doc, "default_config", slot);
    } else if (doc.contains("default_config")) {
        doc.erase("default_config");
    }
    const Json originalEntries = doc.contains("autotune_entries") ? doc["autotune_entries"] : Json::object();
    Json entries = Json::object();
    for (const auto& e : file.entries) {
        Json item = objectOrEmpty(e.original);
        if (item.empty() && originalEntries.is_object() && originalEntries.contains(e.hash))
            item = originalEntries[e.hash];
        put(item, "autotune_key", e.autotune_key);
        Json config = item.contains("config") ? item["config"] : Json();
        writeTritonConfig(config, e.config);
        put(item, "config", config);
        put(item, "best_timing", e.best_timing);
        entries[e.hash] = std::move(item);
    }
    put(doc, "autotune_entries", entries);
    return doc;
}

std::string serializeFlaConfig(const FlaConfigFile& file) { return serializeJson(toJson(file), file.layout); }

FlaConfigFile flaConfigFromProfile(const Profile& profile) {
    FlaConfigFile file;
    file.kernel_name = std::string(kL2NormKernelName);
    file.triton_version = profile.runtime.triton;
    std::vector<const PolicyEntry*> entries;
    for (const auto& e : profile.per_NB_policy) entries.push_back(&e);
    std::stable_sort(entries.begin(), entries.end(), [](const PolicyEntry* a, const PolicyEntry* b) { return a->NB < b->NB; });
    std::map<std::string, TritonConfig> byHash;
    for (const PolicyEntry* e : entries) {
        FlaConfigEntry out;
        out.parsedKey = profile.supported.keyFor(e->NB);
        out.autotune_key = out.parsedKey->toJson();
        out.hash = flaKeyHash(out.autotune_key);
        if (byHash.count(out.hash)) continue;  // a duplicate NB: FLA can hold one entry per key
        out.config = e->config;
        out.best_timing = e->evidence ? Json::array({e->evidence->median_ms, e->evidence->p20_ms, e->evidence->p80_ms})
                                      : Json(nullptr);
        // Without a measurement, Triton's own timings of the same config (import-triton keeps them).
        if (const SourceEvidence* source = profile.evidenceFor(e->NB);
            !e->evidence && source && source->chosen_timing_ms && source->chosen_config == e->config)
            out.best_timing = Json(*source->chosen_timing_ms);
        out.original = Json::object();
        out.original["autotune_key"] = out.autotune_key;
        out.original["config"] = flaEntryConfig(e->config);
        out.original["best_timing"] = out.best_timing;
        byHash.emplace(out.hash, out.config);
        file.entries.push_back(std::move(out));
    }
    if (!byHash.empty()) file.default_config = byHash.begin()->second;
    file.original = Json::object();
    file.original["kernel_name"] = file.kernel_name;
    file.original["triton_version"] = file.triton_version;
    if (file.default_config) file.original["default_config"] = defaultConfigJson(*file.default_config);
    file.layout = JsonLayout::indented(2);
    return file;
}

namespace {
// The file `target` would replace is the input profile itself (same inode), so writing it would destroy the input.
bool isSameFile(const fs::path& target, const std::string& input) {
    std::error_code ec;
    return !input.empty() && fs::exists(target, ec) && fs::equivalent(target, input, ec);
}
}  // namespace

FlaExportResult exportFla(const Profile& profile, const fs::path& dir, std::string manifestName,
                          bool allowMixedArchitectures) {
    // Every check comes before the first byte is written: a refused export changes nothing.
    std::error_code ec;
    if (const auto architectures = policyArchitectures(profile); architectures.size() > 1 && !allowMixedArchitectures)
        throw Error(profile.fileName, "/per_NB_policy",
                    "its entries were chosen on more than one GPU architecture (" +
                        describePolicyArchitectures(architectures) +
                        "); FLA would load all of them on one GPU (--allow-mixed-architectures exports anyway)");
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw Error(dir.string(), "", "exists and is not a folder; choose another --out");
    if (manifestName.empty()) {
        manifestName = profile.fileName.empty() ? std::string("profile.json") : fs::path(profile.fileName).filename().string();
        if (manifestName == kFlaConfigFileName) manifestName = "profile.json";
    }
    if (manifestName == kFlaConfigFileName || manifestName == "." || manifestName == ".." ||
        manifestName.find('/') != std::string::npos || manifestName.find('\0') != std::string::npos)
        throw Error(manifestName, "", "the manifest needs a plain file name other than " + std::string(kFlaConfigFileName));

    FlaExportResult result;
    result.configFile = dir / std::string(kFlaConfigFileName);
    result.manifestFile = dir / manifestName;
    for (const fs::path& target : {result.configFile, result.manifestFile}) {
        if (fs::is_directory(target, ec))
            throw Error(target.string(), "", "is a folder; the export cannot write a file there");
        if (isSameFile(target, profile.fileName))
            throw Error(target.string(), "",
                        "is the input profile itself; exporting here would overwrite it (choose another --out, or "
                        "another --manifest-name)");
    }
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string(), "", "cannot create the folder: " + ec.message());

    const FlaConfigFile config = flaConfigFromProfile(profile);
    const std::string bytes = serializeFlaConfig(config);
    result.configSha256 = sha256Hex(bytes);

    Profile manifest = profile;
    auto it = std::find_if(manifest.files.begin(), manifest.files.end(),
                           [](const FileEntry& f) { return f.file == kFlaConfigFileName; });
    if (it == manifest.files.end()) {
        FileEntry entry;
        entry.file = std::string(kFlaConfigFileName);
        manifest.files.push_back(entry);
        it = manifest.files.end() - 1;
    }
    it->sha256 = result.configSha256;
    manifest.fileName = result.manifestFile.string();

    // Both files are written and flushed under temp names first; a failure or kill there changes nothing. Then
    // two renames, the manifest first: FLA reads only the config, so in the instant between them it still loads
    // the previous export's config (which the previous manifest and signature describe), never a new config
    // that no manifest describes. The new manifest's SHA-256 then names the new config (docs/formats.md).
    StagedFile stagedConfig(result.configFile, bytes);
    StagedFile stagedManifest(result.manifestFile, serializeProfile(manifest));
    stagedManifest.commit();
    stagedConfig.commit();
    result.manifest = std::move(manifest);
    return result;
}

ImportSummary importFlaConfig(Profile& profile, const FlaConfigFile& file) {
    ImportSummary summary;
    const std::string where = file.fileName.empty() ? std::string("the FLA file") : file.fileName;
    if (file.kernel_name != kL2NormKernelName)
        summary.messages.push_back("note: kernel_name is \"" + file.kernel_name + "\", not " + std::string(kL2NormKernelName));
    std::vector<const FlaConfigEntry*> ordered;
    for (const auto& e : file.entries) ordered.push_back(&e);
    std::stable_sort(ordered.begin(), ordered.end(), [](const FlaConfigEntry* a, const FlaConfigEntry* b) {
        return (a->parsedKey ? a->parsedKey->NB : INT64_MAX) < (b->parsedKey ? b->parsedKey->NB : INT64_MAX);
    });
    std::vector<std::int64_t> seen;
    for (const FlaConfigEntry* e : ordered) {
        const std::string at = "/autotune_entries/" + e->hash;
        auto skip = [&](const std::string& why) {
            ++summary.skipped;
            summary.messages.push_back("skipped " + where + ": at " + at + ": " + why);
        };
        if (!e->parsedKey) {
            skip("autotune_key " + e->autotune_key.dump() + " is not l2norm's [D, NB, x dtype, y dtype, rstd dtype]");
            continue;
        }
        // FLA writes the timings Triton measured; all Infinity (or NaN) means the config failed to compile or run
        // when FLA tuned it, so it is no evidence for anything (import-triton skips the same data).
        if (e->best_timing.is_array() && !e->best_timing.empty() &&
            std::all_of(e->best_timing.begin(), e->best_timing.end(), [](const Json& t) {
                return t.is_number() && !std::isfinite(t.get<double>());
            })) {
            skip("best_timing has no finite timing (the config failed when FLA tuned it)");
            continue;
        }
        const AutotuneKey& key = *e->parsedKey;
        std::string why;
        if (!detail::keyFitsProfile(profile, key, why)) {
            skip(why);
            continue;
        }
        if (std::find(seen.begin(), seen.end(), key.NB) != seen.end()) {
            skip("a second entry for NB " + std::to_string(key.NB));
            continue;
        }
        seen.push_back(key.NB);
        const std::string expectedHash = flaKeyHash(key.toJson());
        if (e->hash != expectedHash)
            summary.messages.push_back("warning: " + at + " is filed under " + e->hash + " but FLA looks NB " +
                                       std::to_string(key.NB) + " up as " + expectedHash +
                                       ": FLA never used this entry");
        const SourceEvidence* evidence = profile.evidenceFor(key.NB);
        const std::string basis = evidence && evidence->chosen_config == e->config ? std::string(kBasisOriginal)
                                                                                   : std::string(kBasisImportedFla);
        const PolicyEntry* entry = profile.policyFor(key.NB);
        if (entry && entry->basis == kBasisMeasured && !(entry->config == e->config)) {
            summary.messages.push_back("NB " + std::to_string(key.NB) + ": kept the measured-best config; " + where +
                                       " has " + describe(e->config));
            continue;
        }
        if (entry && entry->config == e->config) continue;  // same launch: keep the entry and what backs it
        profile.setPolicy(key.NB, e->config, basis);
        ++summary.policySet;
        summary.messages.push_back("NB " + std::to_string(key.NB) + ": policy " + describe(e->config) + " (" + basis + ")");
    }
    return summary;
}

Profile profileFromFlaConfig(const FlaConfigFile& file, const NewProfileOptions& options, ImportSummary* summary) {
    const FlaConfigEntry* first = nullptr;
    for (const auto& e : file.entries)
        if (e.parsedKey && (!first || e.parsedKey->NB < first->parsedKey->NB)) first = &e;
    if (!first) throw Error(file.fileName, "/autotune_entries", "no entry has an l2norm key to build a profile from");
    NewProfileOptions o = options;
    if (o.triton == "unknown" && !file.triton_version.empty()) o.triton = file.triton_version;
    Profile profile = detail::newProfileFor(*first->parsedKey, o);
    ImportSummary result = importFlaConfig(profile, file);
    detail::fillPolicyGaps(profile, "imported", &result);
    if (summary) *summary = std::move(result);
    return profile;
}

}  // namespace tunescope
