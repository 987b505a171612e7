#include "tunescope/formats/fla_config_dir.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/fla_capture.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxConfigDirFileBytes = 64ull << 20;

bool isLowerHex(const std::string& text, std::size_t digits) {
    return text.size() == digits &&
           std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A Python identifier in ASCII: the names FLA's kernels have, so the stems of the files FLA may load.
bool isIdentifier(std::string_view text) {
    if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// The faults of one file, each an Error(file, pointer, message).
class FaultList {
public:
    FaultList(std::vector<Error>& out, std::string file) : out_(out), file_(std::move(file)) {}
    void add(const std::string& pointer, const std::string& message) { out_.emplace_back(file_, pointer, message); }
    std::size_t size() const { return out_.size(); }

    // Unknown members are refused and missing ones named, as the project's other readers do. False: not an object.
    bool members(const Json& object, const std::string& pointer, const std::vector<std::string>& required,
                 const std::vector<std::string>& optional = {}) {
        if (!object.is_object()) {
            add(pointer, "must be an object, not " + jsonTypeName(object));
            return false;
        }
        for (auto it = object.begin(); it != object.end(); ++it)
            if (std::find(required.begin(), required.end(), it.key()) == required.end() &&
                std::find(optional.begin(), optional.end(), it.key()) == optional.end())
                add(jsonPointerAppend(pointer, it.key()), "unknown member");
        for (const auto& name : required)
            if (!object.contains(name)) add(jsonPointerAppend(pointer, name), "is missing");
        return true;
    }
    std::optional<std::string> string(const Json& object, const std::string& pointer, const std::string& name) {
        if (!object.is_object() || !object.contains(name)) return std::nullopt;  // members() named it
        const Json& v = object[name];
        if (v.is_string()) return v.get<std::string>();
        add(jsonPointerAppend(pointer, name), "must be a string, not " + jsonTypeName(v));
        return std::nullopt;
    }
    std::optional<std::string> hex(const Json& object, const std::string& pointer, const std::string& name,
                                   std::size_t digits, bool nullable = false) {
        if (nullable && object.is_object() && object.contains(name) && object[name].is_null()) return std::nullopt;
        const auto v = string(object, pointer, name);
        if (v && !isLowerHex(*v, digits)) {
            add(jsonPointerAppend(pointer, name), "must be " + std::to_string(digits) + " lowercase hex digits");
            return std::nullopt;
        }
        return v;
    }
    std::optional<std::size_t> count(const Json& object, const std::string& pointer, const std::string& name) {
        if (!object.is_object() || !object.contains(name)) return std::nullopt;
        const Json& v = object[name];
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) return v.get<std::size_t>();
        add(jsonPointerAppend(pointer, name), "must be an integer >= 0");
        return std::nullopt;
    }

private:
    std::vector<Error>& out_;
    std::string file_;
};

struct ListedFile {
    std::string pointer;  // /files/i
    std::string name, kernel_name, sha256;
    std::size_t bytes = 0, entries = 0;
};

struct ManifestModel {
    Json document;
    std::vector<ListedFile> files;   // the well-formed listings, whose files are checked
    std::set<std::string> listedNames;  // every name listed, also in a faulty listing: not reported as unlisted
    std::vector<std::pair<std::string, std::string>> withoutChoice;
    std::string tritonVersion;  // stack.triton_version, when a string
};

void checkCaptureAndChoices(const Json& m, FaultList& faults) {
    if (m.contains("capture") && faults.members(m["capture"], "/capture",
                                                {"file", "digest", "capture_kind", "captured_by", "created_utc"})) {
        for (const char* name : {"file", "capture_kind", "captured_by", "created_utc"})
            faults.string(m["capture"], "/capture", name);
        faults.hex(m["capture"], "/capture", "digest", 64);
    }
    if (m.contains("choices") && faults.members(m["choices"], "/choices", {"source", "file", "sha256"})) {
        const Json& c = m["choices"];
        const auto source = faults.string(c, "/choices", "source");
        if (source && *source != kFlaChoicesScripted && *source != kFlaChoicesCaptured && *source != kFlaChoicesEdited)
            faults.add("/choices/source", "must be \"scripted\" (a choices file), \"captured\" (FLA's own choices) or "
                                          "\"edited\" (entries changed by hand in the GUI)");
        const bool scripted = source && *source == kFlaChoicesScripted;
        if (c.contains("file") && !(scripted ? c["file"].is_string() : c["file"].is_null()))
            faults.add("/choices/file", scripted ? "must be the choices file's name (a string)"
                                                 : "must be null: captured and edited choices come from no file");
        if (c.contains("sha256") && (scripted || !c["sha256"].is_null())) faults.hex(c, "/choices", "sha256", 64);
    }
    for (const char* name : {"device", "stack"})
        if (m.contains(name) && !m[name].is_object())
            faults.add(std::string("/") + name, "must be an object, not " + jsonTypeName(m[name]));
}

void checkListedFiles(const Json& m, FaultList& faults, ManifestModel& model) {
    if (!m.contains("files")) return;
    if (!m["files"].is_array()) return faults.add("/files", "must be an array, not " + jsonTypeName(m["files"]));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < m["files"].size(); ++i) {
        const std::string p = jsonPointerAppend("/files", i);
        const Json& f = m["files"][i];
        const std::size_t before = faults.size();
        if (!faults.members(f, p, {"name", "kernel_name", "sha256", "bytes", "entries"})) continue;
        ListedFile listed;
        listed.pointer = p;
        listed.name = faults.string(f, p, "name").value_or("");
        model.listedNames.insert(listed.name);
        listed.kernel_name = faults.string(f, p, "kernel_name").value_or("");
        listed.sha256 = faults.hex(f, p, "sha256", 64).value_or("");
        listed.bytes = faults.count(f, p, "bytes").value_or(0);
        listed.entries = faults.count(f, p, "entries").value_or(0);
        if (faults.size() != before) continue;
        if (!isIdentifier(listed.kernel_name))
            faults.add(p + "/kernel_name", "'" + listed.kernel_name + "' is not a kernel name (a Python identifier)");
        else if (listed.name != listed.kernel_name + ".json")
            faults.add(p + "/name", "must be '" + listed.kernel_name + ".json': FLA loads {kernel_name}.json, never '" +
                                        listed.name + "'");
        else if (!seen.insert(listed.kernel_name).second)
            faults.add(p + "/kernel_name", "lists " + listed.kernel_name + " a second time");
        if (faults.size() == before) model.files.push_back(std::move(listed));
    }
}

void checkKeysWithoutChoice(const Json& m, FaultList& faults, ManifestModel& model) {
    if (!m.contains("keys_without_choice")) return;
    const Json& list = m["keys_without_choice"];
    if (!list.is_array()) return faults.add("/keys_without_choice", "must be an array, not " + jsonTypeName(list));
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string p = jsonPointerAppend("/keys_without_choice", i);
        if (!faults.members(list[i], p, {"kernel_name", "key_hash"})) continue;
        const auto kernel = faults.string(list[i], p, "kernel_name");
        const auto key = faults.hex(list[i], p, "key_hash", 32);
        if (kernel && key) model.withoutChoice.emplace_back(*kernel, *key);
    }
}

// The digest of section "Export": SHA-256 of the canonical manifest without its digest. Checked whenever /digest
// is well formed, also when other rules failed, so a hand-edited manifest reports it too.
void checkDigest(const Json& m, FaultList& faults, const std::string& file) {
    if (!m.contains("digest") || !faults.members(m["digest"], "/digest", {"algorithm", "value"})) return;
    const auto algorithm = faults.string(m["digest"], "/digest", "algorithm");
    const auto value = faults.hex(m["digest"], "/digest", "value", 64);
    if (algorithm && *algorithm != kFlaCaptureDigestAlgorithm)
        faults.add("/digest/algorithm", "must be \"" + std::string(kFlaCaptureDigestAlgorithm) + "\"");
    if (!value || !algorithm || *algorithm != kFlaCaptureDigestAlgorithm) return;
    Json body = m;
    body.erase("digest");
    try {
        const std::string actual = sha256Hex(canonicalize(body, file));
        if (actual != *value)
            faults.add("/digest/value", "is not the SHA-256 of the manifest's RFC 8785 canonical form without its digest (" +
                                            actual + "): the manifest was changed after it was written");
    } catch (const Error& e) {
        faults.add(e.jsonPath(), e.message());
    }
}

std::optional<ManifestModel> checkManifest(const fs::path& manifestFile, std::vector<Error>& out) {
    const std::string file = manifestFile.string();
    FaultList faults(out, file);
    std::error_code ec;
    if (!fs::exists(manifestFile, ec)) {
        faults.add("", "is missing: not an FLA_CONFIG_DIR that tunescope-cli capture export-fla wrote");
        return std::nullopt;
    }
    ManifestModel model;
    try {
        JsonReadOptions options;
        options.rejectDuplicateKeys = true;
        model.document = parseJson(readTextFile(manifestFile, kMaxConfigDirFileBytes), file, options);
    } catch (const Error& e) {
        out.push_back(e);
        return std::nullopt;
    }
    const Json& m = model.document;
    if (!faults.members(m, "", {"format", "created_by", "capture", "choices", "device", "stack", "files",
                                "keys_without_choice", "digest"}))
        return std::nullopt;
    if (m.contains("format") && m["format"] != kFlaConfigDirFormat)
        faults.add("/format", "must be \"" + std::string(kFlaConfigDirFormat) + "\"");
    faults.string(m, "", "created_by");
    checkCaptureAndChoices(m, faults);
    checkListedFiles(m, faults, model);
    checkKeysWithoutChoice(m, faults, model);
    if (m.contains("stack") && m["stack"].is_object() && m["stack"].value("triton_version", Json()).is_string())
        model.tritonVersion = m["stack"]["triton_version"].get<std::string>();
    checkDigest(m, faults, file);
    return model;
}

// A Triton config as FLA's loader reads it: kwargs, num_warps, num_stages and num_ctas are needed (maxnreg and
// ir_override are read with .get); the other members are those of Triton's Config.__dict__.
void checkConfig(const Json& config, const std::string& pointer, FaultList& faults) {
    if (!faults.members(config, pointer, {"kwargs", "num_warps", "num_ctas", "num_stages"},
                        {"maxnreg", "pre_hook", "ir_override"}))
        return;
    if (config.contains("kwargs") && !config["kwargs"].is_object())
        faults.add(pointer + "/kwargs", "must be an object, not " + jsonTypeName(config["kwargs"]));
    for (const char* name : {"num_warps", "num_ctas", "num_stages"})
        if (config.contains(name) && !config[name].is_number_integer())
            faults.add(jsonPointerAppend(pointer, name), "must be an integer, not " + jsonTypeName(config[name]));
}

struct KernelFileContext {
    const ListedFile& listed;
    const ManifestModel& manifest;
    std::string manifestName;  // for messages: which file lists it
};

void checkEntries(const Json& entries, FaultList& faults, const KernelFileContext& ctx, FlaConfigDirKernel& kernel) {
    for (auto it = entries.begin(); it != entries.end(); ++it) {
        const std::string p = jsonPointerAppend("/autotune_entries", it.key());
        const Json& e = it.value();
        if (!isLowerHex(it.key(), 32)) faults.add(p, "is not a key hash (32 lowercase hex digits): FLA never looks it up");
        if (!faults.members(e, p, {"autotune_key", "config", "best_timing"})) continue;
        const std::size_t before = faults.size();
        if (e.contains("autotune_key") && !e["autotune_key"].is_array())
            faults.add(p + "/autotune_key", "must be an array, not " + jsonTypeName(e["autotune_key"]));
        else if (e.contains("autotune_key") && isLowerHex(it.key(), 32) && flaKeyHash(e["autotune_key"]) != it.key())
            faults.add(p, "is not FLA's md5 of its autotune_key (" + flaKeyHash(e["autotune_key"]) +
                              "): FLA's strict lookup would never find this entry");
        if (e.contains("config")) checkConfig(e["config"], p + "/config", faults);
        if (e.contains("best_timing") && !e["best_timing"].is_null() &&
            !(e["best_timing"].is_array() &&
              std::all_of(e["best_timing"].begin(), e["best_timing"].end(), [](const Json& t) { return t.is_number(); })))
            faults.add(p + "/best_timing", "must be [p50, p20, p80] (numbers, ms) or null");
        for (const auto& [k, hash] : ctx.manifest.withoutChoice)
            if (k == ctx.listed.kernel_name && hash == it.key())
                faults.add(p, ctx.manifestName + " lists this key among keys_without_choice, yet the file holds an entry");
        if (faults.size() != before) continue;
        kernel.entries.push_back({it.key(), e["autotune_key"], e["config"], e["best_timing"]});
    }
}

// FLA's config-cache format, as fla/ops/utils/cache.py loads it and export-fla writes it (docs/fla-capture.md
// section 7), plus the manifest's kernel name, Triton version and entry count.
void checkKernelDocument(const Json& doc, FaultList& faults, const KernelFileContext& ctx, FlaConfigDirKernel& kernel) {
    if (!faults.members(doc, "", {"kernel_name", "triton_version", "default_config", "autotune_entries"})) return;
    if (const auto name = faults.string(doc, "", "kernel_name"); name && *name != ctx.listed.kernel_name)
        faults.add("/kernel_name", "is '" + *name + "', but the file is " + ctx.listed.kernel_name +
                                       "'s (FLA loads it for " + ctx.listed.kernel_name + ")");
    if (const auto triton = faults.string(doc, "", "triton_version")) {
        kernel.triton_version = *triton;
        if (!ctx.manifest.tritonVersion.empty() && *triton != ctx.manifest.tritonVersion)
            faults.add("/triton_version", "is '" + *triton + "', but the manifest's stack has Triton " +
                                              ctx.manifest.tritonVersion);
    }
    if (doc.contains("default_config")) {
        checkConfig(doc["default_config"], "/default_config", faults);
        kernel.default_config = doc["default_config"];
    }
    if (!doc.contains("autotune_entries")) return;
    const Json& entries = doc["autotune_entries"];
    if (!entries.is_object())
        return faults.add("/autotune_entries", "must be an object keyed by key hash, not " + jsonTypeName(entries));
    checkEntries(entries, faults, ctx, kernel);
    if (entries.size() != ctx.listed.entries)
        faults.add("/autotune_entries", "holds " + std::to_string(entries.size()) + " entries, but " + ctx.manifestName +
                                            " lists " + std::to_string(ctx.listed.entries) + " (at " +
                                            ctx.listed.pointer + "/entries)");
}

std::optional<FlaConfigDirKernel> checkKernelFile(const fs::path& folder, const KernelFileContext& ctx,
                                                  std::vector<Error>& out) {
    FlaConfigDirKernel kernel;
    kernel.kernel_name = ctx.listed.kernel_name;
    kernel.file = folder / ctx.listed.name;
    FaultList faults(out, kernel.file.string());
    const std::size_t before = faults.size();
    std::error_code ec;
    if (!fs::is_regular_file(kernel.file, ec)) {
        faults.add("", std::string(fs::exists(kernel.file, ec) ? "is not a file" : "is missing") + ", but " +
                           ctx.manifestName + " lists it (at " + ctx.listed.pointer + ")");
        return std::nullopt;
    }
    std::string text;
    try {
        text = readTextFile(kernel.file, kMaxConfigDirFileBytes);
    } catch (const Error& e) {
        out.push_back(e);
        return std::nullopt;
    }
    kernel.sha256 = sha256Hex(text);
    kernel.bytes = text.size();
    if (kernel.bytes != ctx.listed.bytes)
        faults.add("", "is " + std::to_string(kernel.bytes) + " bytes, but " + ctx.manifestName + " lists " +
                           std::to_string(ctx.listed.bytes) + " (at " + ctx.listed.pointer +
                           "/bytes): the file was changed after the folder was written");
    if (kernel.sha256 != ctx.listed.sha256)
        faults.add("", "has SHA-256 " + kernel.sha256 + ", but " + ctx.manifestName + " lists " + ctx.listed.sha256 +
                           " (at " + ctx.listed.pointer + "/sha256): the file was changed after the folder was written");
    try {
        JsonReadOptions options;
        options.allowNonFiniteTokens = true;  // best_timing may hold Infinity, as Python writes it
        options.rejectDuplicateKeys = true;
        checkKernelDocument(parseJson(text, kernel.file.string(), options), faults, ctx, kernel);
    } catch (const Error& e) {
        out.push_back(e);
    }
    if (faults.size() != before) return std::nullopt;
    return kernel;
}

// Files the manifest does not list: a possible kernel file is a fault, anything else a warning (see the header).
void checkUnlistedFiles(const fs::path& folder, const fs::path& manifestFile, const ManifestModel& model,
                        FlaConfigDirCheck& check) {
    std::set<std::string> known = {manifestFile.filename().string(), manifestFile.filename().string() + ".sig.json"};
    known.insert(model.listedNames.begin(), model.listedNames.end());
    std::error_code ec;
    std::vector<fs::path> unlisted;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (!known.count(it->path().filename().string())) unlisted.push_back(it->path());
    std::sort(unlisted.begin(), unlisted.end());
    for (const fs::path& path : unlisted) {
        const std::string name = path.filename().string();
        const bool kernelFile = path.extension() == ".json" && isIdentifier(path.stem().string()) &&
                                !fs::is_directory(path, ec);
        if (kernelFile)
            check.faults.emplace_back(path.string(), "",
                                      "is not listed in " + manifestFile.filename().string() + ", yet FLA loads it for "
                                      "kernel " + path.stem().string() + ": neither the manifest's hashes nor a "
                                      "signature cover it (remove it, or export the folder again)");
        else
            check.warnings.push_back(path.string() + ": not listed in " + manifestFile.filename().string() +
                                     " (FLA does not load it)");
    }
}

}  // namespace

const FlaConfigDirEntry* FlaConfigDirKernel::entry(const std::string& keyHash) const {
    for (const auto& e : entries)
        if (e.key_hash == keyHash) return &e;
    return nullptr;
}

const FlaConfigDirKernel* FlaConfigDir::kernel(const std::string& name) const {
    for (const auto& k : kernels)
        if (k.kernel_name == name) return &k;
    return nullptr;
}

std::size_t FlaConfigDir::entryCount() const {
    std::size_t n = 0;
    for (const auto& k : kernels) n += k.entries.size();
    return n;
}

fs::path flaConfigDirManifestPath(const fs::path& folderOrManifest) {
    std::error_code ec;
    return fs::is_directory(folderOrManifest, ec) ? folderOrManifest / std::string(kFlaConfigDirManifestName)
                                                  : folderOrManifest;
}

bool isFlaConfigDirPath(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return true;
    if (!fs::is_regular_file(path, ec)) return false;
    std::string text;
    try {
        text = readTextFile(path, kMaxConfigDirFileBytes);
    } catch (const Error&) {
        return false;
    }
    try {
        const Json doc = parseJson(text, path.string());
        return doc.is_object() && doc.value("format", Json()) == Json(std::string(kFlaConfigDirFormat));
    } catch (const Error&) {
        // Malformed: a folder's manifest if its opening names the format (the writer puts "format" first).
        return text.substr(0, 256).find("\"" + std::string(kFlaConfigDirFormat) + "\"") != std::string::npos;
    }
}

FlaConfigDirCheck checkFlaConfigDir(const fs::path& folderOrManifest) {
    FlaConfigDirCheck check;
    check.manifestFile = flaConfigDirManifestPath(folderOrManifest);
    check.folder = check.manifestFile.parent_path().empty() ? fs::path(".") : check.manifestFile.parent_path();
    std::error_code ec;
    if (check.manifestFile != folderOrManifest && !fs::exists(check.manifestFile, ec)) {
        // Any folder reaches this reader (validate, lookup, diff, sign of a folder): say what it is not.
        check.faults.emplace_back(folderOrManifest.string(), "",
                                  "is a folder, not a file, and no FLA_CONFIG_DIR: it holds no " +
                                      std::string(kFlaConfigDirManifestName) + " (capture export-fla writes one)");
        return check;
    }
    const std::optional<ManifestModel> model = checkManifest(check.manifestFile, check.faults);
    if (!model) return check;
    FlaConfigDir dir;
    dir.folder = check.folder;
    dir.manifestFile = check.manifestFile;
    dir.manifest = model->document;
    dir.keysWithoutChoice = model->withoutChoice;
    for (const ListedFile& listed : model->files) {
        const KernelFileContext ctx{listed, *model, check.manifestFile.filename().string()};
        if (auto kernel = checkKernelFile(check.folder, ctx, check.faults)) dir.kernels.push_back(std::move(*kernel));
    }
    checkUnlistedFiles(check.folder, check.manifestFile, *model, check);
    if (check.faults.empty()) check.dir = std::move(dir);
    return check;
}

FlaConfigDir readFlaConfigDir(const fs::path& folderOrManifest) {
    FlaConfigDirCheck check = checkFlaConfigDir(folderOrManifest);
    if (!check.faults.empty()) throw check.faults.front();
    return std::move(*check.dir);
}

namespace {

// The capture config an entry holds: the index whose recorded dict equals the entry's config, as flaConfigDocuments
// writes it (configs[i].original); the first such index.
std::optional<std::size_t> capturedConfigIndex(const FlaCaptureKernel& kernel, const Json& config) {
    for (std::size_t i = 0; i < kernel.configs.size(); ++i)
        if (kernel.configs[i].original == config) return i;
    return std::nullopt;
}

// One entry of a kernel file as the capture's config index; throws Error(kernel file, pointer, message).
FlaChoice choiceOfEntry(const FlaCapture& capture, const FlaCaptureKernel& kernel, const FlaConfigDirKernel& file,
                        const FlaConfigDirEntry& entry) {
    const std::string at = jsonPointerAppend("/autotune_entries", entry.key_hash);
    const std::string where = fs::path(capture.fileName).filename().string();
    const bool launched = std::any_of(kernel.launches.begin(), kernel.launches.end(),
                                      [&](const FlaCaptureLaunch& l) { return l.key_hash == entry.key_hash; });
    if (!launched)
        throw Error(file.file.string(), at, "is not a key of " + kernel.kernel_name + " in " + where);
    const std::optional<std::size_t> index = capturedConfigIndex(kernel, entry.config);
    if (!index)
        throw Error(file.file.string(), at + "/config",
                    "is none of the " + std::to_string(kernel.configs.size()) + " configs of " + kernel.kernel_name +
                        " in " + where + " (" + flaConfigText(entry.config) + ")");
    const std::vector<std::size_t> legal = exportableFlaConfigs(capture, kernel.kernel_name, entry.key_hash);
    if (std::find(legal.begin(), legal.end(), *index) == legal.end())
        throw Error(file.file.string(), at + "/config",
                    "is config " + std::to_string(*index) + " of " + kernel.kernel_name + " in " + where +
                        ", which has no compiled binary for every launch of this key: it cannot be exported");
    return {kernel.kernel_name, entry.key_hash, *index, entry.best_timing, ""};
}

}  // namespace

FlaChoices flaChoicesOfConfigDir(const FlaCapture& capture, const FlaConfigDir& dir) {
    const Json& m = dir.manifest;
    const std::string manifest = dir.manifestFile.string();
    const Json digest = m.contains("capture") && m["capture"].is_object() ? m["capture"].value("digest", Json()) : Json();
    if (digest != Json(capture.digest))
        throw Error(manifest, "/capture/digest",
                    "is " + (digest.is_string() ? digest.get<std::string>() : std::string("not a digest")) + ", but " +
                        capture.fileName + " has digest " + capture.digest +
                        ": the folder was exported from another capture");
    FlaChoices out;
    const Json& choices = m.contains("choices") && m["choices"].is_object() ? m["choices"] : Json::object();
    const auto member = [&](const char* name) {
        return choices.contains(name) && choices[name].is_string() ? choices[name].get<std::string>() : std::string();
    };
    out.source = member("source");
    out.fileName = member("file");  // the choices file's name, as the manifest keeps it (scripted choices only)
    out.sha256 = member("sha256");
    out.capture_digest = capture.digest;
    for (const FlaConfigDirKernel& file : dir.kernels) {
        const FlaCaptureKernel* kernel = capture.kernel(file.kernel_name);
        if (!kernel)
            throw Error(file.file.string(), "/kernel_name",
                        "'" + file.kernel_name + "' is not a kernel of " + fs::path(capture.fileName).filename().string());
        for (const FlaConfigDirEntry& entry : file.entries) out.choices.push_back(choiceOfEntry(capture, *kernel, file, entry));
    }
    return out;
}

std::string flaConfigDirSummary(const FlaConfigDir& dir) {
    const Json& m = dir.manifest;
    const auto text = [](const Json& object, const char* name) {
        return object.is_object() && object.contains(name) && object[name].is_string() ? object[name].get<std::string>()
                                                                                       : std::string("?");
    };
    const std::size_t entries = dir.entryCount();
    std::string out = std::to_string(dir.kernels.size()) + " kernels, " + std::to_string(entries) + " entries, " +
                      std::to_string(dir.keysWithoutChoice.size()) + " keys without a choice, " +
                      text(m["choices"], "source") + " choices, capture " + text(m["capture"], "file") + " (" +
                      text(m["capture"], "digest").substr(0, 12) + "), " + text(m["device"], "name") + " " +
                      text(m["device"], "arch") + ", FLA " + text(m["stack"], "fla_version") + ", Triton " +
                      text(m["stack"], "triton_version");
    return out;
}

fs::path flaConfigDirSignaturePath(const fs::path& folderOrManifest) {
    return defaultSignaturePath(flaConfigDirManifestPath(folderOrManifest));
}

SignResult signFlaConfigDir(const fs::path& folderOrManifest, const fs::path& privateKeyFile,
                            const std::optional<fs::path>& passphraseFile, const std::optional<fs::path>& signatureFile) {
    const FlaConfigDir dir = readFlaConfigDir(folderOrManifest);
    // signProfile picks the payloadType from the manifest's "format" (kFlaConfigDirPayloadType): one DSSE code path.
    return signProfile(dir.manifestFile, privateKeyFile, passphraseFile, signatureFile);
}

FlaConfigDirVerifyResult verifyFlaConfigDir(const fs::path& folderOrManifest, const fs::path& publicKeyFile,
                                            const std::optional<fs::path>& signatureFile) {
    FlaConfigDirVerifyResult result;
    const fs::path manifestFile = flaConfigDirManifestPath(folderOrManifest);
    result.signature = verifyProfile(manifestFile, publicKeyFile, signatureFile);
    if (!result.signature.ok) {
        const std::string profileWords = "the profile has changed";
        if (result.signature.reason.rfind(profileWords, 0) == 0)
            result.signature.reason.replace(0, profileWords.size(), "the manifest has changed");
        return result;
    }
    // The signature covers the manifest only; the files are covered through the SHA-256 it lists for each.
    const FlaConfigDirCheck check = checkFlaConfigDir(folderOrManifest);
    result.folderFaults = check.faults;
    if (check.dir) result.files = check.dir->kernels.size();
    return result;
}

std::string flaConfigText(const Json& config) {
    if (!config.is_object()) return config.dump();
    std::string out;
    const auto append = [&out](const std::string& name, const Json& value) {
        out += (out.empty() ? "" : " ") + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    };
    if (config.contains("kwargs") && config["kwargs"].is_object())
        for (auto it = config["kwargs"].begin(); it != config["kwargs"].end(); ++it) append(it.key(), it.value());
    for (const char* name : {"num_warps", "num_ctas", "num_stages", "maxnreg", "ir_override"})
        if (config.contains(name) && !config[name].is_null()) append(name, config[name]);
    return out;
}

namespace {

std::string keyHashOfArgument(const std::string& key) {
    if (!key.empty() && key.front() == '[') {
        Json parsed;
        try {
            parsed = parseJson(key, "--key");
        } catch (const Error& e) {
            throw Error("", "", "--key: not a JSON array (" + e.message() + ")");
        }
        if (!parsed.is_array()) throw Error("", "", "--key: not a JSON array");
        return flaKeyHash(parsed);
    }
    if (isLowerHex(key, 32)) return key;
    throw Error("", "", "--key must be FLA's autotune key as a JSON array ('[64, 128, \"torch.bfloat16\"]') or its "
                        "32-digit key hash, not '" + key + "'");
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace

FlaConfigDirLookup lookupFlaConfigDir(const FlaConfigDir& dir, const std::string& kernelName, const std::string& key) {
    FlaConfigDirLookup out;
    out.kernel_name = kernelName;
    if (!key.empty()) out.key_hash = keyHashOfArgument(key);
    for (const auto& [k, hash] : dir.keysWithoutChoice)
        if (k == kernelName) out.keysWithoutChoice.push_back(hash);
    out.kernel = dir.kernel(kernelName);
    if (!out.kernel) {
        std::vector<std::string> names;
        for (const auto& k : dir.kernels) names.push_back(k.kernel_name);
        out.outcome = FlaConfigDirLookup::Outcome::UnknownKernel;
        out.error = out.keysWithoutChoice.empty()
                        ? "no kernel '" + kernelName + "' in the folder (its kernels: " + joined(names) + ")"
                        : "kernel '" + kernelName + "' has no file in the folder: none of its keys has a choice, so "
                          "FLA autotunes it (and FLA_CACHE_MODE=strict finds no entry)";
        return out;
    }
    if (key.empty()) {
        out.outcome = FlaConfigDirLookup::Outcome::Keys;
        return out;
    }
    out.entry = out.kernel->entry(out.key_hash);
    if (out.entry) {
        out.outcome = FlaConfigDirLookup::Outcome::Found;
        return out;
    }
    out.outcome = FlaConfigDirLookup::Outcome::UnknownKey;
    std::vector<std::string> hashes;
    for (const auto& e : out.kernel->entries) hashes.push_back(e.key_hash);
    const bool withoutChoice =
        std::find(out.keysWithoutChoice.begin(), out.keysWithoutChoice.end(), out.key_hash) != out.keysWithoutChoice.end();
    out.error = kernelName + " has no entry for key hash " + out.key_hash +
                (withoutChoice ? " (the capture had this key, but it has no choice)" : "") +
                ": FLA autotunes it, and FLA_CACHE_MODE=strict finds no entry (its keys: " + joined(hashes) + ")";
    return out;
}

Json toJson(const FlaConfigDirLookup& lookup) {
    static const char* const kOutcomes[] = {"found", "keys", "unknown kernel", "unknown key"};
    Json out = Json::object();
    out["kernel_name"] = lookup.kernel_name;
    out["outcome"] = kOutcomes[static_cast<int>(lookup.outcome)];
    out["file"] = lookup.kernel ? Json(lookup.kernel->file.filename().string()) : Json();
    out["key_hash"] = lookup.key_hash.empty() ? Json() : Json(lookup.key_hash);
    out["autotune_key"] = lookup.entry ? lookup.entry->autotune_key : Json();
    out["config"] = lookup.entry ? lookup.entry->config : Json();
    out["best_timing"] = lookup.entry ? lookup.entry->best_timing : Json();
    Json keys = Json::array();
    if (lookup.kernel)
        for (const auto& e : lookup.kernel->entries)
            keys.push_back({{"key_hash", e.key_hash}, {"autotune_key", e.autotune_key}, {"config", e.config}});
    out["keys"] = keys;
    out["keys_without_choice"] = lookup.keysWithoutChoice;
    out["error"] = lookup.error.empty() ? Json() : Json(lookup.error);
    return out;
}

FlaConfigDirDiff diffFlaConfigDirs(const FlaConfigDir& before, const FlaConfigDir& after) {
    FlaConfigDirDiff diff;
    std::vector<std::string> kernels;
    for (const auto* dir : {&before, &after})
        for (const auto& k : dir->kernels)
            if (std::find(kernels.begin(), kernels.end(), k.kernel_name) == kernels.end()) kernels.push_back(k.kernel_name);
    for (const std::string& name : kernels) {
        std::map<std::string, std::pair<const FlaConfigDirEntry*, const FlaConfigDirEntry*>> byHash;
        if (const auto* k = before.kernel(name))
            for (const auto& e : k->entries) byHash[e.key_hash].first = &e;
        if (const auto* k = after.kernel(name))
            for (const auto& e : k->entries) byHash[e.key_hash].second = &e;
        for (const auto& [hash, pair] : byHash) {
            const auto [a, b] = pair;
            if (!a || !b) {
                diff.entries.push_back({name, hash, a ? "removed" : "added", a ? a->config : Json(), b ? b->config : Json()});
                continue;
            }
            if (a->autotune_key != b->autotune_key)
                diff.entries.push_back({name, hash, "autotune_key", a->autotune_key, b->autotune_key});
            if (a->config != b->config) diff.entries.push_back({name, hash, "config", a->config, b->config});
            if (a->best_timing != b->best_timing)
                diff.entries.push_back({name, hash, "best_timing", a->best_timing, b->best_timing});
        }
    }
    for (const char* member : {"capture", "choices", "device", "stack", "keys_without_choice"})
        if (before.manifest.value(member, Json()) != after.manifest.value(member, Json()))
            diff.other.push_back(std::string("/") + member);
    return diff;
}

std::string formatFlaConfigDirChange(const FlaConfigDirChange& c) {
    const std::string head = c.kernel_name + " key " + c.key_hash + ": ";
    if (c.what == "added") return head + "added, config " + flaConfigText(c.after);
    if (c.what == "removed") return head + "removed (was config " + flaConfigText(c.before) + ")";
    if (c.what == "config") return head + "config " + flaConfigText(c.before) + " -> " + flaConfigText(c.after);
    return head + c.what + " " + c.before.dump() + " -> " + c.after.dump();
}

Json toJson(const FlaConfigDirDiff& diff) {
    Json entries = Json::array();
    for (const auto& c : diff.entries)
        entries.push_back({{"kernel_name", c.kernel_name}, {"key_hash", c.key_hash}, {"what", c.what},
                           {"before", c.before}, {"after", c.after}});
    return {{"identical", diff.empty()}, {"entries", entries}, {"other", diff.other}};
}

}  // namespace tunescope
