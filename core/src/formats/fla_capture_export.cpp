#include "tunescope/formats/fla_capture_export.hpp"

#include <algorithm>
#include <set>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/version.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace {

std::string kindOf(const Json& v) { return jsonTypeName(v); }

void requireMembers(const Json& object, const std::string& file, const std::string& ptr,
                    const std::vector<std::string>& required, const std::vector<std::string>& optional) {
    if (!object.is_object()) throw Error(file, ptr, "must be an object, not " + kindOf(object));
    for (auto it = object.begin(); it != object.end(); ++it)
        if (std::find(required.begin(), required.end(), it.key()) == required.end() &&
            std::find(optional.begin(), optional.end(), it.key()) == optional.end())
            throw Error(file, jsonPointerAppend(ptr, it.key()), "unknown member");
    for (const auto& name : required)
        if (!object.contains(name)) throw Error(file, jsonPointerAppend(ptr, name), "is missing");
}

const FlaCaptureLaunch* firstLaunchOf(const FlaCaptureKernel& kernel, const std::string& keyHash) {
    for (const auto& l : kernel.launches)
        if (l.key_hash == keyHash) return &l;
    return nullptr;
}

std::string where(const FlaChoice& choice, const std::string& member) {
    return choice.pointer.empty() ? "" : choice.pointer + (member.empty() ? "" : "/" + member);
}

// The rule of what may be chosen, in one place (exportableFlaConfigs and checkFlaChoices both ask it): the first
// launch of the key for which config `config` has no compiled binary, or null when every launch of the key has one.
const FlaCaptureLaunch* launchWithoutBinary(const FlaCaptureKernel& kernel, const std::string& keyHash,
                                            std::size_t config) {
    for (const auto& launch : kernel.launches)
        if (launch.key_hash == keyHash && !launch.variants.at(config).binary) return &launch;
    return nullptr;
}

}  // namespace

FlaChoices parseFlaChoices(const Json& doc, const std::string& file) {
    requireMembers(doc, file, "", {"format", "choices"}, {"capture_digest"});
    if (doc["format"] != kFlaChoicesFormat)
        throw Error(file, "/format", "must be \"" + std::string(kFlaChoicesFormat) + "\"");
    FlaChoices out;
    out.fileName = file;
    out.source = std::string(kFlaChoicesScripted);
    if (doc.contains("capture_digest")) {
        if (!doc["capture_digest"].is_string()) throw Error(file, "/capture_digest", "must be a string");
        out.capture_digest = doc["capture_digest"].get<std::string>();
    }
    const Json& list = doc["choices"];
    if (!list.is_array()) throw Error(file, "/choices", "must be an array, not " + kindOf(list));
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string p = jsonPointerAppend("/choices", i);
        const Json& c = list[i];
        requireMembers(c, file, p, {"kernel_name", "key_hash", "config"}, {"best_timing"});
        FlaChoice choice;
        choice.pointer = p;
        if (!c["kernel_name"].is_string()) throw Error(file, p + "/kernel_name", "must be a string");
        if (!c["key_hash"].is_string()) throw Error(file, p + "/key_hash", "must be a string");
        if (!c["config"].is_number_integer() || c["config"].get<std::int64_t>() < 0)
            throw Error(file, p + "/config", "must be an integer >= 0 (an index into the kernel's configs)");
        choice.kernel_name = c["kernel_name"].get<std::string>();
        choice.key_hash = c["key_hash"].get<std::string>();
        choice.config = c["config"].get<std::size_t>();
        if (c.contains("best_timing") && !c["best_timing"].is_null()) {
            const Json& t = c["best_timing"];
            const bool ok = t.is_array() && t.size() == 3 &&
                            std::all_of(t.begin(), t.end(), [](const Json& x) { return x.is_number() && x.get<double>() >= 0; });
            if (!ok) throw Error(file, p + "/best_timing", "must be [p50, p20, p80]: three numbers >= 0 (ms), or null");
            choice.best_timing = t;
        }
        out.choices.push_back(std::move(choice));
    }
    return out;
}

FlaChoices readFlaChoices(const fs::path& file) {
    const std::string text = readTextFile(file, 16u << 20);
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;
    FlaChoices out = parseFlaChoices(parseJson(text, file.string(), options), file.string());
    out.sha256 = sha256Hex(text);
    return out;
}

FlaChoices capturedFlaChoices(const FlaCapture& capture) {
    FlaChoices out;
    out.source = std::string(kFlaChoicesCaptured);
    out.capture_digest = capture.digest;
    for (const auto& kernel : capture.kernels) {
        std::set<std::string> seen;
        for (const auto& launch : kernel.launches) {
            if (!launch.chosen_config || seen.count(launch.key_hash)) continue;
            seen.insert(launch.key_hash);
            FlaChoice choice;
            choice.kernel_name = kernel.kernel_name;
            choice.key_hash = launch.key_hash;
            choice.config = static_cast<std::size_t>(*launch.chosen_config);
            if (launch.timings_ms.is_array() && !launch.timings_ms.empty())
                choice.best_timing = launch.timings_ms.at(choice.config);
            out.choices.push_back(std::move(choice));
        }
    }
    return out;
}

std::vector<std::size_t> exportableFlaConfigs(const FlaCapture& capture, const std::string& kernelName,
                                              const std::string& keyHash) {
    std::vector<std::size_t> out;
    const FlaCaptureKernel* kernel = capture.kernel(kernelName);
    if (!kernel || !firstLaunchOf(*kernel, keyHash)) return out;
    for (std::size_t i = 0; i < kernel->configs.size(); ++i)
        if (!launchWithoutBinary(*kernel, keyHash, i)) out.push_back(i);
    return out;
}

void checkFlaChoices(const FlaCapture& capture, const FlaChoices& choices) {
    const std::string& file = choices.fileName;
    if (!choices.capture_digest.empty() && choices.capture_digest != capture.digest)
        throw Error(file, choices.fileName.empty() ? "" : "/capture_digest",
                    "is not the digest of " + capture.fileName + " (" + capture.digest + "): these choices were made for another capture");
    if (choices.choices.empty())
        throw Error(file, choices.fileName.empty() ? "" : "/choices",
                    choices.source == kFlaChoicesCaptured ? "the capture records no choice of FLA's (a hand-made capture, or "
                                                   "no launch with a known chosen_config): nothing to export"
                                                 : "holds no choice: nothing to export");
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& choice : choices.choices) {
        const FlaCaptureKernel* kernel = capture.kernel(choice.kernel_name);
        if (!kernel)
            throw Error(file, where(choice, "kernel_name"),
                        "'" + choice.kernel_name + "' is not a kernel of " + capture.fileName);
        const FlaCaptureLaunch* first = firstLaunchOf(*kernel, choice.key_hash);
        if (!first)
            throw Error(file, where(choice, "key_hash"),
                        "'" + choice.key_hash + "' is not a key of " + choice.kernel_name + " in " + capture.fileName);
        if (!seen.insert({choice.kernel_name, choice.key_hash}).second)
            throw Error(file, where(choice, ""),
                        "chooses for " + choice.kernel_name + " key " + choice.key_hash + " a second time");
        if (choice.config >= kernel->configs.size())
            throw Error(file, where(choice, "config"),
                        std::to_string(choice.config) + " is not a config of " + choice.kernel_name + " (it has " +
                            std::to_string(kernel->configs.size()) + ")");
        if (const FlaCaptureLaunch* launch = launchWithoutBinary(*kernel, choice.key_hash, choice.config)) {
            const FlaCaptureVariant& variant = launch->variants.at(choice.config);
            throw Error(file, where(choice, "config"),
                        "config " + std::to_string(choice.config) + " of " + choice.kernel_name +
                            " has no compiled binary for launch " + launch->case_id + "#" +
                            std::to_string(launch->sequence) +
                            (variant.compile_error ? " (it did not compile: " + *variant.compile_error + ")"
                                                   : " (the capture holds none)") +
                            ": a config that was never compiled and measured cannot be exported");
        }
    }
}

std::map<std::string, Json> flaConfigDocuments(const FlaCapture& capture, const FlaChoices& choices) {
    std::map<std::string, Json> out;
    for (const auto& kernel : capture.kernels) {
        std::map<std::string, Json> entries;  // by key_hash: FLA's exporter writes them in hash order
        for (const auto& choice : choices.choices) {
            if (choice.kernel_name != kernel.kernel_name || entries.count(choice.key_hash)) continue;
            const FlaCaptureLaunch* first = firstLaunchOf(kernel, choice.key_hash);
            if (!first) continue;
            Json entry = Json::object();
            entry["autotune_key"] = first->autotune_key;
            entry["config"] = kernel.configs.at(choice.config).original;
            entry["best_timing"] = choice.best_timing;
            entries[choice.key_hash] = std::move(entry);
        }
        if (entries.empty()) continue;
        const Json& first = entries.begin()->second["config"];
        Json defaults = Json::object();
        for (const char* name : {"kwargs", "num_warps", "num_ctas", "num_stages"}) defaults[name] = first[name];
        Json autotune = Json::object();
        for (auto& [hash, entry] : entries) autotune[hash] = std::move(entry);
        Json doc = Json::object();
        doc["kernel_name"] = kernel.kernel_name;
        doc["triton_version"] = capture.stack.triton_version;
        doc["default_config"] = defaults;
        doc["autotune_entries"] = autotune;
        out[kernel.kernel_name] = std::move(doc);
    }
    return out;
}

namespace {

Json configDirManifest(const FlaCapture& capture, const FlaChoices& choices, const FlaConfigDirExport& result) {
    const Json& doc = capture.document;
    Json files = Json::array();
    for (const auto& f : result.files)
        files.push_back({{"name", f.path.filename().string()}, {"kernel_name", f.kernel_name}, {"sha256", f.sha256},
                         {"bytes", f.bytes}, {"entries", f.entries}});
    Json without = Json::array();
    for (const auto& [kernel, key] : result.withoutChoice) without.push_back({{"kernel_name", kernel}, {"key_hash", key}});
    Json m = Json::object();
    m["format"] = kFlaConfigDirFormat;
    m["created_by"] = "tunescope-cli " + versionString() + " (" + gitSha() + ")";
    m["capture"] = {{"file", fs::path(capture.fileName).filename().string()}, {"digest", capture.digest},
                    {"capture_kind", capture.capture_kind}, {"captured_by", capture.captured_by},
                    {"created_utc", capture.created_utc}};
    // Only scripted choices come from a file: captured and edited ones name none (docs/fla-capture.md).
    const bool fromFile = choices.source == kFlaChoicesScripted && !choices.fileName.empty();
    m["choices"] = {{"source", choices.source},
                    {"file", fromFile ? Json(fs::path(choices.fileName).filename().string()) : Json()},
                    {"sha256", fromFile && !choices.sha256.empty() ? Json(choices.sha256) : Json()}};
    m["device"] = doc["device"];  // the device the binaries were compiled for and FLA's choices measured on
    m["stack"] = doc["stack"];
    m["files"] = files;
    m["keys_without_choice"] = without;
    m["digest"] = {{"algorithm", kFlaCaptureDigestAlgorithm}, {"value", sha256Hex(canonicalize(m))}};
    return m;
}

}  // namespace

FlaConfigDirExport exportFlaConfigDir(const FlaCapture& capture, const FlaChoices& choices, const fs::path& dir) {
    if (choices.source != kFlaChoicesScripted && choices.source != kFlaChoicesCaptured &&
        choices.source != kFlaChoicesEdited)
        throw Error(choices.fileName, "", "choices of source '" + choices.source +
                                              "' cannot be exported: a folder's choices are scripted, captured or edited");
    checkFlaChoices(capture, choices);
    const std::map<std::string, Json> documents = flaConfigDocuments(capture, choices);
    FlaConfigDirExport result;
    std::set<std::pair<std::string, std::string>> chosen;
    for (const auto& c : choices.choices) chosen.insert({c.kernel_name, c.key_hash});
    std::vector<std::pair<fs::path, std::string>> bytes;
    for (const auto& kernel : capture.kernels) {
        std::set<std::string> keys;
        for (const auto& l : kernel.launches)
            if (!chosen.count({kernel.kernel_name, l.key_hash}) && keys.insert(l.key_hash).second)
                result.withoutChoice.emplace_back(kernel.kernel_name, l.key_hash);
        const auto it = documents.find(kernel.kernel_name);
        if (it == documents.end()) continue;
        const std::string text = dumpJson(it->second, 2) + "\n";
        FlaConfigDirFile f{kernel.kernel_name, dir / (kernel.kernel_name + ".json"), sha256Hex(text), text.size(),
                           it->second["autotune_entries"].size()};
        bytes.emplace_back(f.path, text);
        result.files.push_back(std::move(f));
    }
    result.manifest = configDirManifest(capture, choices, result);
    result.manifestFile = dir / std::string(kFlaConfigDirManifestName);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string(), "", "cannot create the folder: " + ec.message());
    // Every file staged (written and flushed) before any is renamed into place: a failure leaves the folder as it was.
    std::vector<std::unique_ptr<StagedFile>> staged;
    for (const auto& [path, text] : bytes) staged.push_back(std::make_unique<StagedFile>(path, text));
    staged.push_back(std::make_unique<StagedFile>(result.manifestFile, dumpJson(result.manifest, 2) + "\n"));
    for (auto& s : staged) s->commit();
    return result;
}

}  // namespace tunescope
