#include "tunescope/sweep/fla_capture_sweep_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "tunescope/base/errors.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope {

namespace {

// Quantiles and sums are written from doubles: allow for their last bits, never for a real inversion.
bool notAbove(double a, double b) { return a <= b + 1e-9 * std::max(std::fabs(a), std::fabs(b)); }
bool nearlyEqual(double a, double b) { return std::fabs(a - b) <= 1e-7 * std::max(std::fabs(a), std::fabs(b)); }

std::string str(double v) {
    std::string s = std::to_string(v);
    return s;
}

class SweepReader {
public:
    explicit SweepReader(std::vector<FlaCaptureFault>& faults) : faults_(faults) {}

    void fault(const std::string& pointer, const std::string& message) { faults_.push_back({pointer, message}); }

    const Json* member(const Json& object, const std::string& at, const char* key) {
        const auto it = object.find(key);
        if (it == object.end()) {
            fault(at, std::string("missing \"") + key + "\"");
            return nullptr;
        }
        return &*it;
    }
    std::optional<std::string> string(const Json& object, const std::string& at, const char* key, bool nonEmpty = true) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (!v->is_string() || (nonEmpty && v->get<std::string>().empty())) {
            fault(at + "/" + key, std::string("must be a") + (nonEmpty ? " non-empty" : "") + " string");
            return std::nullopt;
        }
        return v->get<std::string>();
    }
    std::optional<std::int64_t> integer(const Json& object, const std::string& at, const char* key, std::int64_t min) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (!v->is_number_integer() || v->get<std::int64_t>() < min) {
            fault(at + "/" + key, "must be an integer >= " + std::to_string(min));
            return std::nullopt;
        }
        return v->get<std::int64_t>();
    }
    // null, or an integer >= 0
    std::optional<std::optional<std::size_t>> optionalIndex(const Json& object, const std::string& at, const char* key) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (v->is_null()) return std::optional<std::size_t>{};
        if (!v->is_number_integer() || v->get<std::int64_t>() < 0) {
            fault(at + "/" + key, "must be null or an integer >= 0");
            return std::nullopt;
        }
        return std::optional<std::size_t>(std::size_t(v->get<std::int64_t>()));
    }
    // null, or a string (an error, a reason)
    std::optional<std::string> optionalText(const Json& object, const std::string& at, const char* key, bool& ok) {
        ok = false;
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (v->is_null()) {
            ok = true;
            return std::nullopt;
        }
        if (!v->is_string() || v->get<std::string>().empty()) {
            fault(at + "/" + key, "must be null or a non-empty string");
            return std::nullopt;
        }
        ok = true;
        return v->get<std::string>();
    }
    std::optional<bool> boolean(const Json& object, const std::string& at, const char* key) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (!v->is_boolean()) {
            fault(at + "/" + key, "must be true or false");
            return std::nullopt;
        }
        return v->get<bool>();
    }
    std::optional<double> number(const Json& object, const std::string& at, const char* key) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (!v->is_number() || !std::isfinite(v->get<double>())) {
            fault(at + "/" + key, "must be a finite number");
            return std::nullopt;
        }
        return v->get<double>();
    }
    std::optional<double> timing(const Json& object, const std::string& at, const char* key) {
        const Json* v = member(object, at, key);
        if (!v) return std::nullopt;
        if (!v->is_number() || !isValidTimingMs(v->get<double>())) {
            fault(at + "/" + key, v->is_number() ? timingRuleText(v->get<double>()) : "must be a number of milliseconds");
            return std::nullopt;
        }
        return v->get<double>();
    }
    const Json* array(const Json& object, const std::string& at, const char* key) {
        const Json* v = member(object, at, key);
        if (!v) return nullptr;
        if (!v->is_array()) {
            fault(at + "/" + key, "must be an array");
            return nullptr;
        }
        return v;
    }
    // A config index appears once per launch or decision; `at` is the config's entry.
    bool firstTime(std::set<std::size_t>& seen, std::size_t config, const std::string& at, const char* within) {
        if (seen.insert(config).second) return true;
        fault(at + "/config", "config " + std::to_string(config) + " is listed twice in this " + within);
        return false;
    }
    bool object(const Json& v, const std::string& at) {
        if (v.is_object()) return true;
        fault(at, "must be an object");
        return false;
    }

    // p20 <= median <= p80 (names as in the file).
    void quantileOrder(const std::string& at, const char* lowKey, double low, const char* midKey, double mid,
                       const char* highKey, double high) {
        if (!notAbove(low, mid))
            fault(at + "/" + lowKey, std::string(lowKey) + " " + str(low) + " is above " + midKey + " " + str(mid) +
                                         ": a 20th percentile cannot exceed the median");
        if (!notAbove(mid, high))
            fault(at + "/" + highKey, std::string(highKey) + " " + str(high) + " is below " + midKey + " " + str(mid) +
                                          ": an 80th percentile cannot be below the median");
    }

private:
    std::vector<FlaCaptureFault>& faults_;
};

bool isLowerHex32(const std::string& s) {
    return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::optional<FlaLaunchRun> readLaunch(SweepReader& in, const Json& j, const std::string& at, int rounds, int replicas) {
    if (!in.object(j, at)) return std::nullopt;
    FlaLaunchRun run;
    const auto kernel = in.string(j, at, "kernel_name");
    const auto caseId = in.string(j, at, "case");
    const auto sequence = in.integer(j, at, "sequence", 0);
    const auto reference = in.optionalIndex(j, at, "reference_config");
    const Json* configs = in.array(j, at, "configs");
    if (!kernel || !caseId || !sequence || !reference || !configs) return std::nullopt;
    run.kernel_name = *kernel;
    run.case_id = *caseId;
    run.sequence = *sequence;
    run.referenceConfig = *reference;
    bool ok = true;
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < configs->size(); ++i) {
        const Json& c = (*configs)[i];
        const std::string cat = at + "/configs/" + std::to_string(i);
        if (!in.object(c, cat)) {
            ok = false;
            continue;
        }
        FlaConfigRun r;
        bool errorOk = false;
        const auto index = in.integer(c, cat, "config", 0);
        const auto error = in.optionalText(c, cat, "error", errorOk);
        const auto passed = in.boolean(c, cat, "check_passed");
        const auto check = in.string(c, cat, "check", false);
        const auto samples = in.integer(c, cat, "samples", 0);
        const Json* rounds_ = in.array(c, cat, "round_median_ms");
        if (!index || !errorOk || !passed || !check || !samples || !rounds_) {
            ok = false;
            continue;
        }
        r.config = std::size_t(*index);
        ok = in.firstTime(seen, r.config, cat, "launch") && ok;
        r.error = error.value_or("");
        r.checkPassed = *passed;
        r.check = *check;
        r.samples = int(*samples);
        if (!r.error.empty() && r.checkPassed) {
            in.fault(cat + "/check_passed", "a config that failed to run (\"error\") cannot have passed its output check");
            ok = false;
        }
        for (std::size_t k = 0; k < rounds_->size(); ++k) {
            const Json& v = (*rounds_)[k];
            if (!v.is_number() || !isValidTimingMs(v.get<double>())) {
                in.fault(cat + "/round_median_ms/" + std::to_string(k),
                         v.is_number() ? timingRuleText(v.get<double>()) : "must be a number of milliseconds");
                ok = false;
                continue;
            }
            r.roundMedianMs.push_back(v.get<double>());
        }
        // A/A replicas (a head to head, confirm --manifest): replicas - 1 series beside round_median_ms.
        const auto replicaIt = c.find("replica_round_median_ms");
        if (replicaIt != c.end()) {
            const std::string rat = cat + "/replica_round_median_ms";
            if (replicas < 2) {
                in.fault(rat, "is here, but the file has no \"replicas\" >= 2");
                ok = false;
            } else if (!replicaIt->is_array() || replicaIt->size() != std::size_t(replicas - 1)) {
                in.fault(rat, "must be an array of " + std::to_string(replicas - 1) + " arrays (replicas - 1)");
                ok = false;
            } else {
                for (std::size_t k = 0; k < replicaIt->size(); ++k) {
                    const Json& series = (*replicaIt)[k];
                    const std::string sat = rat + "/" + std::to_string(k);
                    if (!series.is_array() || int(series.size()) > rounds) {
                        in.fault(sat, "must be an array of at most " + std::to_string(rounds) + " round medians");
                        ok = false;
                        continue;
                    }
                    std::vector<double> values;
                    for (std::size_t m = 0; m < series.size(); ++m) {
                        const Json& v = series[m];
                        if (!v.is_number() || !isValidTimingMs(v.get<double>())) {
                            in.fault(sat + "/" + std::to_string(m),
                                     v.is_number() ? timingRuleText(v.get<double>()) : "must be a number of milliseconds");
                            ok = false;
                            continue;
                        }
                        values.push_back(v.get<double>());
                    }
                    if (!r.error.empty() && !series.empty()) {
                        in.fault(sat, "a config that failed to run (\"error\") has no round medians");
                        ok = false;
                    }
                    r.replicaRoundMedianMs.push_back(std::move(values));
                }
            }
        } else if (replicas >= 2 && r.error.empty() && !rounds_->empty()) {
            in.fault(cat, "missing \"replica_round_median_ms\": the file has replicas " + std::to_string(replicas));
            ok = false;
        }
        if (int(rounds_->size()) > rounds) {
            in.fault(cat + "/round_median_ms", std::to_string(rounds_->size()) + " round medians, but the sweep ran " +
                                                   std::to_string(rounds) + " rounds");
            ok = false;
        }
        if (r.error.empty() && !rounds_->empty()) {
            const auto median = in.timing(c, cat, "median_ms");
            const auto p20 = in.timing(c, cat, "p20_ms");
            const auto p80 = in.timing(c, cat, "p80_ms");
            if (!median || !p20 || !p80) {
                ok = false;
                continue;
            }
            r.medianMs = *median;
            r.p20Ms = *p20;
            r.p80Ms = *p80;
            in.quantileOrder(cat, "p20_ms", r.p20Ms, "median_ms", r.medianMs, "p80_ms", r.p80Ms);
            if (r.samples < 1) {
                in.fault(cat + "/samples", "a config with round medians has at least one sample");
                ok = false;
            }
        } else if (!r.error.empty() && !rounds_->empty()) {
            in.fault(cat + "/round_median_ms", "a config that failed to run (\"error\") has no round medians");
            ok = false;
        }
        run.configs.push_back(std::move(r));
    }
    if (run.referenceConfig) {
        const FlaConfigRun* ref = run.config(*run.referenceConfig);
        if (!ref) {
            in.fault(at + "/reference_config", "reference config " + std::to_string(*run.referenceConfig) +
                                                   " is not among this launch's configs");
            ok = false;
        } else if (!ref->error.empty() || !ref->checkPassed) {
            in.fault(at + "/reference_config", "the reference config must have run (its outputs are what the others "
                                               "are checked against)");
            ok = false;
        }
    } else {
        for (std::size_t i = 0; i < run.configs.size(); ++i)
            if (run.configs[i].checkPassed) {
                in.fault(at + "/configs/" + std::to_string(i) + "/check_passed",
                         "no reference config ran in this launch, so no output check can have passed");
                ok = false;
                break;
            }
    }
    if (!ok) return std::nullopt;
    return run;
}

std::optional<FlaDecisionRun> readDecision(SweepReader& in, const Json& j, const std::string& at,
                                           const std::vector<std::optional<FlaLaunchRun>>& launches, bool& listed) {
    if (!in.object(j, at)) return std::nullopt;
    FlaDecisionRun d;
    const auto kernel = in.string(j, at, "kernel_name");
    const auto key = in.string(j, at, "key_hash");
    const auto chosen = in.optionalIndex(j, at, "chosen_config");
    const auto captured = in.optionalIndex(j, at, "captured_choice");
    const Json* configs = in.array(j, at, "configs");
    if (!kernel || !key || !chosen || !captured || !configs) return std::nullopt;
    bool ok = true;
    if (!isLowerHex32(*key)) {
        in.fault(at + "/key_hash", "must be FLA's key hash: 32 lowercase hex digits (an md5)");
        ok = false;
    }
    d.kernel_name = *kernel;
    d.key_hash = *key;
    d.chosen = *chosen;
    d.capturedChoice = *captured;
    listed = j.contains("launch_runs");
    if (listed) {
        const Json* runs = in.array(j, at, "launch_runs");
        if (!runs) return std::nullopt;
        for (std::size_t k = 0; k < runs->size(); ++k) {
            const Json& v = (*runs)[k];
            const std::string kat = at + "/launch_runs/" + std::to_string(k);
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || std::size_t(v.get<std::int64_t>()) >= launches.size()) {
                in.fault(kat, "must be the index of one of the file's " + std::to_string(launches.size()) + " launches");
                ok = false;
                continue;
            }
            const std::size_t index = std::size_t(v.get<std::int64_t>());
            if (launches[index] && launches[index]->kernel_name != d.kernel_name) {
                in.fault(kat, "launch " + std::to_string(index) + " is of " + launches[index]->kernel_name + ", not " +
                                  d.kernel_name);
                ok = false;
            }
            if (std::find(d.launchRuns.begin(), d.launchRuns.end(), index) != d.launchRuns.end()) {
                in.fault(kat, "launch " + std::to_string(index) + " is listed twice");
                ok = false;
            }
            d.launchRuns.push_back(index);
        }
    }
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < configs->size(); ++i) {
        const Json& c = (*configs)[i];
        const std::string cat = at + "/configs/" + std::to_string(i);
        if (!in.object(c, cat)) {
            ok = false;
            continue;
        }
        FlaDecisionConfig config;
        bool whyOk = false;
        const auto index = in.integer(c, cat, "config", 0);
        const auto label = in.string(c, cat, "label", false);
        const auto eligible = in.boolean(c, cat, "eligible");
        const auto why = in.optionalText(c, cat, "why", whyOk);
        if (!index || !label || !eligible || !whyOk) {
            ok = false;
            continue;
        }
        config.config = std::size_t(*index);
        config.label = *label;
        config.eligible = *eligible;
        config.why = why.value_or("");
        ok = in.firstTime(seen, config.config, cat, "decision") && ok;
        if (config.eligible) {
            if (!config.why.empty()) {
                in.fault(cat + "/why", "an eligible config has no reason not to be (\"why\" must be null)");
                ok = false;
            }
            const auto total = in.timing(c, cat, "total_ms");
            const auto p20 = in.timing(c, cat, "total_p20_ms");
            const auto p80 = in.timing(c, cat, "total_p80_ms");
            if (!total || !p20 || !p80) {
                ok = false;
                continue;
            }
            config.totalMs = *total;
            config.totalP20Ms = *p20;
            config.totalP80Ms = *p80;
            in.quantileOrder(cat, "total_p20_ms", config.totalP20Ms, "total_ms", config.totalMs, "total_p80_ms",
                             config.totalP80Ms);
            // With the launches named, the totals are their sums, and every one of them ran and passed.
            if (listed) {
                double sum = 0, sum20 = 0, sum80 = 0;
                bool complete = true;
                for (std::size_t l : d.launchRuns) {
                    if (!launches[l]) {
                        complete = false;
                        break;
                    }
                    const FlaConfigRun* r = launches[l]->config(config.config);
                    if (!r || !r->error.empty() || !r->checkPassed || r->roundMedianMs.empty()) {
                        in.fault(cat + "/eligible", "config " + std::to_string(config.config) + " is eligible but did not "
                                                    "run, pass its check and get measured at launch " + std::to_string(l));
                        ok = false;
                        complete = false;
                        break;
                    }
                    sum += r->medianMs;
                    sum20 += r->p20Ms;
                    sum80 += r->p80Ms;
                }
                if (complete && !d.launchRuns.empty() &&
                    (!nearlyEqual(sum, config.totalMs) || !nearlyEqual(sum20, config.totalP20Ms) ||
                     !nearlyEqual(sum80, config.totalP80Ms))) {
                    in.fault(cat + "/total_ms", "total_ms " + str(config.totalMs) + " is not the sum " + str(sum) +
                                                    " of the medians at the decision's launches (or its p20/p80 not theirs)");
                    ok = false;
                }
            }
        } else if (config.why.empty()) {
            in.fault(cat + "/why", "a config that is not eligible says why");
            ok = false;
        }
        d.configs.push_back(std::move(config));
    }
    if (!ok) return std::nullopt;
    // The chosen config is the lowest eligible total; none is chosen only when none is eligible.
    const FlaDecisionConfig* best = nullptr;
    for (const FlaDecisionConfig& c : d.configs)
        if (c.eligible && (!best || c.totalMs < best->totalMs)) best = &c;
    if (!d.chosen) {
        if (best) {
            in.fault(at + "/chosen_config", "null, but config " + std::to_string(best->config) + " is eligible");
            return std::nullopt;
        }
        return d;
    }
    const auto chosenConfig = std::find_if(d.configs.begin(), d.configs.end(),
                                           [&](const FlaDecisionConfig& c) { return c.config == *d.chosen; });
    if (chosenConfig == d.configs.end() || !chosenConfig->eligible) {
        in.fault(at + "/chosen_config", "config " + std::to_string(*d.chosen) + " is " +
                                            (chosenConfig == d.configs.end() ? "not among the decision's configs"
                                                                             : "not eligible") +
                                            ": only an eligible config can be chosen");
        return std::nullopt;
    }
    if (best && !notAbove(chosenConfig->totalMs, best->totalMs)) {
        in.fault(at + "/chosen_config", "config " + std::to_string(*d.chosen) + " (total " + str(chosenConfig->totalMs) +
                                            " ms) is chosen, but eligible config " + std::to_string(best->config) +
                                            " is faster (total " + str(best->totalMs) + " ms)");
        return std::nullopt;
    }
    return d;
}

}  // namespace

bool isFlaCaptureSweepDocument(const Json& document) {
    if (!document.is_object()) return false;
    const auto it = document.find("format");
    return it != document.end() && it->is_string() && it->get<std::string>() == kFlaCaptureSweepFormat;
}

FlaCaptureSweepCheck checkFlaCaptureSweepJson(const Json& document, const std::string& file) {
    FlaCaptureSweepCheck check;
    check.file = file;
    SweepReader in(check.faults);
    if (!document.is_object()) {
        in.fault("", "not a capture sweep: the document must be an object");
        return check;
    }
    if (!isFlaCaptureSweepDocument(document)) {
        in.fault("/format", "must be \"" + std::string(kFlaCaptureSweepFormat) + "\"");
        return check;
    }
    FlaCaptureSweepFile out;
    const auto manifest = in.string(document, "", "manifest");
    const auto digest = in.string(document, "", "capture_digest");
    const auto device = in.string(document, "", "device");
    const auto timer = in.string(document, "", "timer");
    const auto l2 = in.string(document, "", "l2");
    const auto rounds = in.integer(document, "", "rounds", 1);
    const auto rms = in.number(document, "", "rms_tolerance");
    if (l2 && *l2 != "cold" && *l2 != "warm") in.fault("/l2", "must be \"cold\" or \"warm\"");
    if (rms && *rms < 0) in.fault("/rms_tolerance", "must be >= 0");
    int replicas = 1;
    if (document.contains("replicas")) {
        const auto r = in.integer(document, "", "replicas", 2);
        replicas = int(r.value_or(1));
    }
    const Json* launches = in.array(document, "", "launches");
    const Json* decisions = in.array(document, "", "decisions");
    std::vector<std::optional<FlaLaunchRun>> launchRuns;
    if (launches)
        for (std::size_t i = 0; i < launches->size(); ++i)
            launchRuns.push_back(readLaunch(in, (*launches)[i], "/launches/" + std::to_string(i), rounds.value_or(1 << 20), replicas));
    std::set<std::pair<std::string, std::string>> keys;
    if (decisions)
        for (std::size_t i = 0; i < decisions->size(); ++i) {
            const std::string at = "/decisions/" + std::to_string(i);
            bool listed = false;
            auto d = readDecision(in, (*decisions)[i], at, launchRuns, listed);
            if (!d) continue;
            if (!keys.insert({d->kernel_name, d->key_hash}).second)
                in.fault(at, "a second decision for " + d->kernel_name + " key " + d->key_hash);
            if (i == 0) out.launchRunsListed = listed;
            out.sweep.decisions.push_back(std::move(*d));
        }
    if (!check.faults.empty()) return check;
    out.sweep.manifest = *manifest;
    out.sweep.digest = *digest;
    out.sweep.device = *device;
    out.sweep.timer = *timer;
    out.l2 = *l2;
    out.rounds = int(*rounds);
    out.rmsTolerance = *rms;
    out.replicas = replicas;
    for (auto& run : launchRuns) out.sweep.launches.push_back(std::move(*run));
    check.sweep = std::move(out);
    return check;
}

FlaCaptureSweepCheck checkFlaCaptureSweepFile(const std::filesystem::path& file) {
    const std::string name = file.string();
    try {
        JsonReadOptions options;
        options.rejectDuplicateKeys = true;
        return checkFlaCaptureSweepJson(parseJson(readTextFile(file), name, options), name);
    } catch (const Error& e) {
        FlaCaptureSweepCheck check;
        check.file = name;
        check.faults.push_back({e.jsonPath(), e.message()});
        return check;
    }
}

}  // namespace tunescope
