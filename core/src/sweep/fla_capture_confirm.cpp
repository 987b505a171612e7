// Head to head over an FLA capture (docs/fla-capture.md section 11): two sides' configs per kernel and key, read
// from FLA_CONFIG_DIRs, choices files or the capture's own record of FLA's autotune, replayed in the same rounds and
// judged on per-round ratios with an A/A control, as the l2norm head to head (head_to_head.cpp) judges NBs.
#include "tunescope/sweep/fla_capture_confirm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace {

// What FLA launches for a config document: its kwargs and launch parameters (maxnreg absent = null).
bool sameLaunch(const Json& config, const FlaCaptureConfig& captured) {
    if (!config.is_object()) return false;
    const Json kwargs = config.value("kwargs", Json());
    if (kwargs != captured.kwargs) return false;
    const auto integer = [&](const char* name, int fallback) -> std::optional<int> {
        const auto it = config.find(name);
        if (it == config.end() || it->is_null()) return fallback;
        if (!it->is_number_integer()) return std::nullopt;
        return it->get<int>();
    };
    if (integer("num_warps", 4) != captured.num_warps || integer("num_ctas", 1) != captured.num_ctas ||
        integer("num_stages", 3) != captured.num_stages)
        return false;
    const auto maxnreg = config.find("maxnreg");
    const bool hasMaxnreg = maxnreg != config.end() && !maxnreg->is_null();
    if (hasMaxnreg != captured.maxnreg.has_value()) return false;
    return !hasMaxnreg || (maxnreg->is_number_integer() && maxnreg->get<int>() == *captured.maxnreg);
}

std::optional<std::size_t> matchConfig(const FlaCaptureKernel& kernel, const Json& config) {
    for (std::size_t i = 0; i < kernel.configs.size(); ++i)
        if (kernel.configs[i].original == config) return i;
    for (std::size_t i = 0; i < kernel.configs.size(); ++i)
        if (sameLaunch(config, kernel.configs[i])) return i;
    return std::nullopt;
}

// One entry of an FLA config file for a key the capture launched, as a capture config index.
void addEntry(const FlaCaptureKernel& kernel, const std::string& file, const std::string& keyHash, const Json& config,
              FlaChoices& out) {
    const bool launched = std::any_of(kernel.launches.begin(), kernel.launches.end(),
                                      [&](const FlaCaptureLaunch& l) { return l.key_hash == keyHash; });
    if (!launched) return;  // a key the capture never launched: not judged here
    const std::string at = jsonPointerAppend(jsonPointerAppend("/autotune_entries", keyHash), "config");
    const auto index = matchConfig(kernel, config);
    if (!index)
        throw Error(file, at,
                    "is none of the capture's " + std::to_string(kernel.configs.size()) + " configs of " +
                        kernel.kernel_name + " (" + flaConfigText(config) + "): the capture has no binary to replay it");
    out.choices.push_back({kernel.kernel_name, keyHash, *index, Json(), at});
}

// A plain FLA config file of a capture kernel (no manifest checked it): every entry the capture can judge.
void readKernelFile(const FlaCaptureKernel& kernel, const fs::path& file, FlaChoices& out) {
    JsonReadOptions options;
    options.allowNonFiniteTokens = true;  // FLA writes Infinity for a config that failed to compile
    const Json document = readJsonFile(file, options);
    const std::string name = file.string();
    if (!document.is_object()) throw Error(name, "", "is not an FLA config file (a JSON object)");
    if (document.contains("kernel_name") && document["kernel_name"] != Json(kernel.kernel_name))
        throw Error(name, "/kernel_name", "is " + document["kernel_name"].dump() + ", but FLA loads this file for " +
                                              kernel.kernel_name);
    const auto entries = document.find("autotune_entries");
    if (entries == document.end() || !entries->is_object())
        throw Error(name, "/autotune_entries", "must be an object of entries keyed by FLA's key hash");
    for (auto it = entries->begin(); it != entries->end(); ++it) {
        if (!it.value().is_object() || !it.value().contains("config"))
            throw Error(name, jsonPointerAppend("/autotune_entries", it.key()), "must be an object with a config");
        addEntry(kernel, name, it.key(), it.value()["config"], out);
    }
}

}  // namespace

FlaChoices flaConfirmSide(const FlaCapture& capture, const std::string& spec) {
    if (spec == "captured") {
        FlaChoices choices = capturedFlaChoices(capture);
        if (choices.choices.empty())
            throw Error(capture.fileName, "/kernels",
                        "records no choice of FLA's autotune (no launch with a chosen_config): there is no baseline "
                        "\"captured\"; give --baseline an FLA_CONFIG_DIR or a choices file");
        return choices;
    }
    const fs::path path(spec);
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error(spec, "", "does not exist");
    FlaChoices out;
    out.fileName = spec;
    const bool folder = fs::is_directory(path, ec);
    if (folder && !fs::exists(path / std::string(kFlaConfigDirManifestName), ec)) {
        out.source = "fla-config-dir";  // a plain FLA_CONFIG_DIR: FLA's own exporter, or files by hand
        std::size_t files = 0;
        for (const auto& kernel : capture.kernels) {
            const fs::path file = path / (kernel.kernel_name + ".json");
            if (!fs::exists(file, ec)) continue;
            ++files;
            readKernelFile(kernel, file, out);
        }
        if (files == 0)
            throw Error(spec, "", "holds no {kernel_name}.json of the capture's kernels: FLA would load nothing from it");
        return out;
    }
    if (isFlaConfigDirPath(path)) {
        const FlaConfigDir dir = readFlaConfigDir(path);  // hashes and FLA's format checked first
        out.source = "tunescope-fla-config-dir";
        out.fileName = dir.manifestFile.string();
        for (const FlaConfigDirKernel& k : dir.kernels) {  // entries as the folder's check read them
            const FlaCaptureKernel* kernel = capture.kernel(k.kernel_name);
            if (!kernel) continue;  // a kernel the capture did not launch
            for (const FlaConfigDirEntry& e : k.entries) addEntry(*kernel, k.file.string(), e.key_hash, e.config, out);
        }
        return out;
    }
    FlaChoices choices = readFlaChoices(path);
    checkFlaChoices(capture, choices);
    return choices;
}

std::size_t FlaConfirmReport::count(HeadToHeadVerdict verdict) const {
    return std::size_t(std::count_if(rows.begin(), rows.end(), [&](const FlaConfirmRow& r) { return r.verdict == verdict; }));
}

bool FlaConfirmReport::atLeastAsFast() const {
    return !rows.empty() && count(HeadToHeadVerdict::Slower) == 0 && count(HeadToHeadVerdict::Noisy) == 0 &&
           count(HeadToHeadVerdict::NotMeasured) == 0;
}

namespace {

using KeyConfigs = std::map<std::pair<std::string, std::string>, std::size_t>;

KeyConfigs byKey(const FlaChoices& choices) {
    KeyConfigs out;
    for (const FlaChoice& c : choices.choices) out.emplace(std::make_pair(c.kernel_name, c.key_hash), c.config);
    return out;
}

std::optional<std::size_t> find(const KeyConfigs& configs, const std::string& kernel, const std::string& key) {
    const auto it = configs.find({kernel, key});
    if (it == configs.end()) return std::nullopt;
    return it->second;
}

// Per round, the sum over the key's launches of one config's replica; NaN where a launch lacks that round.
std::vector<double> roundTotals(const FlaCaptureSweep& sweep, const std::vector<std::size_t>& launchRuns,
                                std::size_t config, std::size_t replica, int rounds) {
    std::vector<double> totals(std::size_t(std::max(rounds, 0)), 0.0);
    for (std::size_t i : launchRuns) {
        const FlaConfigRun* r = sweep.launches[i].config(config);
        const std::vector<double>* series = nullptr;
        if (r && r->error.empty() && r->checkPassed)
            series = replica == 0 ? &r->roundMedianMs
                                  : (replica - 1 < r->replicaRoundMedianMs.size() ? &r->replicaRoundMedianMs[replica - 1]
                                                                                  : nullptr);
        for (std::size_t k = 0; k < totals.size(); ++k)
            totals[k] = series && k < series->size() && (*series)[k] > 0 ? totals[k] + (*series)[k] : NAN;
    }
    return totals;
}

std::size_t finiteCount(const std::vector<double>& v) {
    return std::size_t(std::count_if(v.begin(), v.end(), [](double x) { return std::isfinite(x); }));
}

double medianOfFinite(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Why a side's config has no usable rounds at the key: the first launch where it failed to run or to check.
std::string whyUnmeasured(const FlaCaptureSweep& sweep, const std::vector<std::size_t>& launchRuns, std::size_t config,
                          const std::string& side) {
    for (std::size_t i : launchRuns) {
        const FlaLaunchRun& run = sweep.launches[i];
        const FlaConfigRun* r = run.config(config);
        const std::string at = run.case_id + "#" + std::to_string(run.sequence);
        if (!r) return side + " config " + std::to_string(config) + " was not run at " + at;
        if (!r->error.empty()) return side + " config " + std::to_string(config) + " at " + at + ": " + r->error;
        if (!r->checkPassed) return side + " config " + std::to_string(config) + " at " + at + ": " + r->check;
    }
    return "";
}

}  // namespace

void restrictToSides(FlaSweepOptions& options, const FlaChoices& candidate, const FlaChoices& baseline, int replicas) {
    auto keep = std::make_shared<std::map<std::pair<std::string, std::string>, std::set<std::size_t>>>();
    for (const FlaChoices* side : {&candidate, &baseline})
        for (const FlaChoice& c : side->choices) (*keep)[{c.kernel_name, c.key_hash}].insert(c.config);
    // A key only one side covers still runs that side's config: the chain of later launches needs its outputs.
    options.keepConfig = [keep](const std::string& kernel, const std::string& key, std::size_t config) {
        const auto it = keep->find({kernel, key});
        return it == keep->end() ? config == 0 : it->second.count(config) > 0;
    };
    options.replicas = std::max(1, replicas);
}

FlaConfirmReport judgeFlaConfirm(const FlaCaptureSweep& sweep, const FlaCapture& capture, const FlaChoices& candidate,
                                 const FlaChoices& baseline, double threshold) {
    FlaConfirmReport report;
    report.manifest = sweep.manifest;
    report.digest = sweep.digest;
    report.device = sweep.device;
    report.timer = sweep.timer;
    report.candidate = candidate.fileName.empty() ? candidate.source : candidate.fileName;
    report.baseline = baseline.fileName.empty() ? baseline.source : baseline.fileName;
    report.threshold = threshold;
    const KeyConfigs cand = byKey(candidate), base = byKey(baseline);
    int rounds = 0;
    for (const FlaLaunchRun& run : sweep.launches)
        for (const FlaConfigRun& c : run.configs) rounds = std::max(rounds, int(c.roundMedianMs.size()));
    for (const FlaDecisionRun& d : sweep.decisions) {
        FlaConfirmRow row;
        row.kernel_name = d.kernel_name;
        row.key_hash = d.key_hash;
        row.candidate = find(cand, d.kernel_name, d.key_hash);
        row.baseline = find(base, d.kernel_name, d.key_hash);
        row.launches = d.launchRuns.size();
        const FlaCaptureKernel* kernel = capture.kernel(d.kernel_name);
        if (kernel && row.candidate && *row.candidate < kernel->configs.size())
            row.candidateLabel = flaConfigLabel(kernel->configs[*row.candidate]);
        if (kernel && row.baseline && *row.baseline < kernel->configs.size())
            row.baselineLabel = flaConfigLabel(kernel->configs[*row.baseline]);
        if (!row.candidate || !row.baseline) {
            row.why = std::string(!row.candidate ? "the candidate" : "the baseline") +
                      " has no entry for this key (FLA would autotune it)";
            report.rows.push_back(std::move(row));
            continue;
        }
        const std::vector<double> c0 = roundTotals(sweep, d.launchRuns, *row.candidate, 0, rounds);
        const std::vector<double> b0 = roundTotals(sweep, d.launchRuns, *row.baseline, 0, rounds);
        row.candidateMs = medianOfFinite(c0);
        row.baselineMs = medianOfFinite(b0);
        std::vector<std::vector<double>> series{c0};
        if (*row.baseline != *row.candidate) series.push_back(b0);
        // A/A: replica 1 against replica 0 of each distinct config.
        std::vector<std::pair<std::vector<double>, std::vector<double>>> controls;
        for (std::size_t config : {*row.candidate, *row.baseline}) {
            if (config == *row.baseline && config == *row.candidate && !controls.empty()) break;
            const std::vector<double> r1 = roundTotals(sweep, d.launchRuns, config, 1, rounds);
            const std::vector<double>& r0 = config == *row.candidate ? c0 : b0;
            if (finiteCount(r1) == 0) continue;
            series.push_back(r1);
            controls.emplace_back(r1, r0);
        }
        PairedOptions options;
        options.threshold = threshold;
        poolRoundNoise(series, &options.pooledLogSd, &options.pooledDf);
        bool controlFailed = false;
        for (const auto& [replica, first] : controls) {
            PairedComparison control = comparePaired(replica, first, options);
            controlFailed = controlFailed || control.verdict == Comparison::Faster || control.verdict == Comparison::Slower;
            if (control.ratio > 0 && std::abs(std::log(control.ratio)) > std::abs(std::log(row.worstControl)))
                row.worstControl = control.ratio;
            row.controls.push_back(std::move(control));
        }
        std::size_t both = 0;
        for (std::size_t k = 0; k < c0.size(); ++k) both += std::isfinite(c0[k]) && std::isfinite(b0[k]) ? 1 : 0;
        row.rounds = int(both);
        if (both == 0) {
            row.why = whyUnmeasured(sweep, d.launchRuns, *row.candidate, "the candidate's");
            if (row.why.empty()) row.why = whyUnmeasured(sweep, d.launchRuns, *row.baseline, "the baseline's");
            if (row.why.empty()) row.why = "no round measured both sides at every launch of the key";
        } else if (*row.candidate == *row.baseline) {
            row.verdict = HeadToHeadVerdict::SameConfig;
            row.paired.verdict = Comparison::Same;
            row.paired.ratio = row.paired.low = row.paired.high = 1;
        } else {
            row.paired = comparePaired(c0, b0, options);
            const bool judged = std::isfinite(row.paired.low) && std::isfinite(row.paired.high);
            row.verdict = !judged        ? HeadToHeadVerdict::NotMeasured
                          : controlFailed ? HeadToHeadVerdict::Noisy
                                          : fromPaired(row.paired.verdict);
            if (!judged) row.why = "no finite interval over " + std::to_string(both) + " rounds";
        }
        report.rows.push_back(std::move(row));
    }
    return report;
}

Json toJson(const FlaConfirmReport& report) {
    const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
    Json rows = Json::array();
    for (const FlaConfirmRow& r : report.rows) {
        Json controls = Json::array();
        for (const PairedComparison& c : r.controls)
            controls.push_back({{"ratio", number(c.ratio)}, {"low", number(c.low)}, {"high", number(c.high)},
                                {"verdict", toString(c.verdict)}});
        rows.push_back({{"kernel_name", r.kernel_name}, {"key_hash", r.key_hash},
                        {"candidate_config", r.candidate ? Json(*r.candidate) : Json()},
                        {"baseline_config", r.baseline ? Json(*r.baseline) : Json()},
                        {"candidate_label", r.candidateLabel}, {"baseline_label", r.baselineLabel},
                        {"launches", r.launches}, {"rounds", r.rounds}, {"candidate_ms", r.candidateMs},
                        {"baseline_ms", r.baselineMs}, {"ratio", number(r.paired.ratio)}, {"low", number(r.paired.low)},
                        {"high", number(r.paired.high)}, {"round_ratios", r.paired.roundRatios},
                        {"aa_controls", controls}, {"worst_control", r.worstControl},
                        {"verdict", toString(r.verdict)}, {"why", r.why.empty() ? Json() : Json(r.why)}});
    }
    return {{"format", "tunescope-fla-confirm-v1"}, {"manifest", report.manifest},
            {"capture_digest", report.digest}, {"device", report.device}, {"timer", report.timer},
            {"candidate", report.candidate}, {"baseline", report.baseline}, {"threshold", report.threshold},
            {"at_least_as_fast", report.atLeastAsFast()}, {"rows", rows}};
}

std::string formatFlaConfirm(const FlaConfirmReport& report) {
    std::ostringstream out;
    char line[512];
    out << "candidate " << report.candidate << " against baseline " << report.baseline << "\n";
    out << report.manifest << " on " << report.device << " (timer " << report.timer << "), threshold "
        << report.threshold * 100 << "%\n";
    for (const FlaConfirmRow& r : report.rows) {
        std::snprintf(line, sizeof line, "%-46s %.8s  ", r.kernel_name.c_str(), r.key_hash.c_str());
        out << line;
        const std::string c = r.candidate ? "#" + std::to_string(*r.candidate) : "-";
        const std::string b = r.baseline ? "#" + std::to_string(*r.baseline) : "-";
        if (r.verdict == HeadToHeadVerdict::NotMeasured) {
            out << c << " vs " << b << "  NOT MEASURED: " << r.why << "\n";
            continue;
        }
        if (r.verdict == HeadToHeadVerdict::SameConfig) {
            std::snprintf(line, sizeof line, "%s = %s  same config (%.4f ms; A/A worst %.4f)", c.c_str(), b.c_str(),
                          r.candidateMs, r.worstControl);
        } else {
            std::snprintf(line, sizeof line, "%s vs %s  %.4f / %.4f ms = %.4f [%.4f, %.4f] %s (A/A worst %.4f, %d rounds)",
                          c.c_str(), b.c_str(), r.candidateMs, r.baselineMs, r.paired.ratio, r.paired.low, r.paired.high,
                          toString(r.verdict).c_str(), r.worstControl, r.rounds);
        }
        out << line << "\n";
    }
    out << report.count(HeadToHeadVerdict::Faster) << " FASTER, " << report.count(HeadToHeadVerdict::Tie) << " TIE, "
        << report.count(HeadToHeadVerdict::SameConfig) << " same config, " << report.count(HeadToHeadVerdict::Undecided)
        << " UNDECIDED, " << report.count(HeadToHeadVerdict::Slower) << " SLOWER, "
        << report.count(HeadToHeadVerdict::Noisy) << " NOISY, " << report.count(HeadToHeadVerdict::NotMeasured)
        << " NOT MEASURED: the candidate is "
        << (report.atLeastAsFast() ? "at least as fast at every key" : "NOT shown at least as fast at every key") << "\n";
    return out.str();
}

FlaConfirmFile readFlaConfirmFile(const fs::path& file, const FlaCapture& capture) {
    const std::string name = file.string();
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;  // as checkFlaCaptureSweepFile reads: the file is parsed once
    const Json document = parseJson(readTextFile(file), name, options);
    FlaCaptureSweepCheck check = checkFlaCaptureSweepJson(document, name);
    if (!check.faults.empty()) throw Error(name, check.faults.front().pointer, check.faults.front().message);
    FlaConfirmFile out;
    out.sweep = std::move(*check.sweep);
    if (out.sweep.sweep.digest != capture.digest)
        throw Error(name, "/capture_digest", "is not the digest of " + capture.fileName + " (" + capture.digest +
                                                 "): this head to head replayed another capture");
    const auto h = document.find("head_to_head");
    if (h == document.end() || !h->is_object())
        throw Error(name, "/head_to_head", "is missing: this is a capture sweep, not a head to head (confirm --manifest)");
    if (h->value("format", Json()) != Json("tunescope-fla-confirm-v1"))
        throw Error(name, "/head_to_head/format", "must be \"tunescope-fla-confirm-v1\"");
    const auto threshold = h->find("threshold");
    if (threshold == h->end() || !threshold->is_number() || threshold->get<double>() < 0)
        throw Error(name, "/head_to_head/threshold", "must be a number >= 0");
    out.threshold = threshold->get<double>();
    const auto rows = h->find("rows");
    if (rows == h->end() || !rows->is_array()) throw Error(name, "/head_to_head/rows", "must be an array");
    const auto text = [&](const char* key, const char* fallback) {
        const auto it = h->find(key);
        return it != h->end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
    };
    out.candidate.fileName = text("candidate", "candidate");
    out.baseline.fileName = text("baseline", "baseline");
    out.candidate.source = out.baseline.source = "recorded";
    std::vector<std::string> verdicts;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const Json& row = (*rows)[i];
        const std::string at = "/head_to_head/rows/" + std::to_string(i);
        if (!row.is_object() || !row.value("kernel_name", Json()).is_string() || !row.value("key_hash", Json()).is_string() ||
            !row.value("verdict", Json()).is_string())
            throw Error(name, at, "must be an object with kernel_name, key_hash and verdict strings");
        const std::string kernel = row["kernel_name"], key = row["key_hash"];
        for (const char* side : {"candidate_config", "baseline_config"}) {
            const Json v = row.value(side, Json());
            if (v.is_null()) continue;
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
                throw Error(name, at + "/" + side, "must be null or a config index");
            const FlaCaptureKernel* k = capture.kernel(kernel);
            if (!k) throw Error(name, at + "/kernel_name", "'" + kernel + "' is not a kernel of the capture");
            if (std::size_t(v.get<std::int64_t>()) >= k->configs.size())
                throw Error(name, at + "/" + side, std::to_string(v.get<std::int64_t>()) + " is not a config of " + kernel);
            FlaChoice choice{kernel, key, std::size_t(v.get<std::int64_t>()), Json(), at + "/" + side};
            (std::string(side) == "candidate_config" ? out.candidate : out.baseline).choices.push_back(std::move(choice));
        }
        verdicts.push_back(row["verdict"]);
    }
    const FlaConfirmReport again = judgeFlaConfirm(out.sweep.sweep, capture, out.candidate, out.baseline, out.threshold);
    if (again.rows.size() != verdicts.size())
        throw Error(name, "/head_to_head/rows", std::to_string(verdicts.size()) + " rows, but the sweep has " +
                                                    std::to_string(again.rows.size()) + " decisions");
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        const std::string at = "/head_to_head/rows/" + std::to_string(i);
        const Json& row = (*rows)[i];
        if (row["kernel_name"] != Json(again.rows[i].kernel_name) || row["key_hash"] != Json(again.rows[i].key_hash))
            throw Error(name, at, "names " + row["kernel_name"].get<std::string>() + " key " +
                                      row["key_hash"].get<std::string>() + ", but decision " + std::to_string(i) +
                                      " of the sweep is " + again.rows[i].kernel_name + " key " + again.rows[i].key_hash);
        const std::string verdict = toString(again.rows[i].verdict);
        if (verdicts[i] != verdict)
            throw Error(name, at + "/verdict", "is " + verdicts[i] + ", but the recorded measurements give " + verdict +
                                                   " at the file's threshold");
    }
    return out;
}

}  // namespace tunescope
