#include "tunescope/sweep/head_to_head.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/triton_cache.hpp"
#include "tunescope/sweep/shard_audit.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope {

PolicyConfigs loadPolicyConfigs(const std::filesystem::path& path) {
    std::error_code ec;
    const bool folder = std::filesystem::is_directory(path, ec);
    const bool tritonFile = path.filename().string().ends_with(".autotune.json");
    if (tritonFile || (folder && !std::filesystem::exists(path / std::string(kFlaConfigFileName), ec))) {
        // Triton's autotune cache: what FLA's own autotune chose (with cache_results, its default), per NB.
        PolicyConfigs policy;
        policy.kind = "triton-autotune";
        policy.file = path.string();
        const AutotuneKey wanted;  // D = 128, bf16 in and out, float32 rstd: the problem TuneScope measures
        std::string digests;
        for (const TritonAutotuneCache& cache : loadTritonAutotuneCaches(path)) {
            digests += cache.sha256;
            std::string why;
            AutotuneKey key = cache.parsedKey.value_or(wanted);
            key.NB = wanted.NB;
            if (!cache.parsedKey) why = "its key is not l2norm's (D, NB, three dtypes)";
            else if (!(key == wanted)) why = "its key is not D = 128, bf16 -> bf16, float32 rstd";
            else if (cache.parsedKey->NB < 1 || cache.parsedKey->NB > (1 << 20)) why = "its NB is out of range";
            else if (!cache.best()) why = "every config failed (no timing)";
            if (!why.empty()) {
                policy.skipped.push_back(cache.file + ": " + why);
                continue;
            }
            // Two caches for one NB: the first by path, as import-triton.
            const int nb = static_cast<int>(cache.parsedKey->NB);
            if (policy.configs.emplace(nb, toL2NormConfig(cache.best()->config)).second) policy.sources[nb] = cache.file;
        }
        if (policy.configs.empty())
            throw Error(policy.file, "",
                        "holds no l2norm_fwd_kernel autotune result for D = 128, bf16 (nothing to measure)" +
                            (policy.skipped.empty() ? std::string() : "; " + policy.describeContents()));
        policy.sha256 = folder ? sha256Hex(digests) : sha256FileHex(path);  // a folder: over its files' digests
        return policy;
    }
    const std::filesystem::path file = folder ? path / std::string(kFlaConfigFileName) : path;
    PolicyConfigs policy;
    policy.file = file.string();
    // Read as leniently as either reader is (FLA's best_timing may hold Python's Infinity); each loader then reads
    // the file with its own rules and names the file, line and column, or the JSON Pointer, when it refuses.
    JsonReadOptions sniff;
    sniff.allowNonFiniteTokens = true;
    const Json document = parseJson(readTextFile(file), policy.file, sniff);
    if (document.is_object() && document.contains("autotune_entries")) {
        policy.kind = "fla-config";
        const FlaConfigFile fla = loadFlaConfig(file);
        const AutotuneKey wanted;  // D = 128, bf16 in and out, float32 rstd: the problem TuneScope measures
        for (const FlaConfigEntry& e : fla.entries) {
            if (!e.parsedKey) continue;
            AutotuneKey key = *e.parsedKey;
            key.NB = wanted.NB;
            if (!(key == wanted) || e.parsedKey->NB < 1 || e.parsedKey->NB > (1 << 20)) continue;
            policy.configs[static_cast<int>(e.parsedKey->NB)] = toL2NormConfig(e.config);
        }
        if (policy.configs.empty())
            throw Error(policy.file, "/autotune_entries",
                        "has no entry for l2norm's D = 128, bf16 key (nothing to measure)");
    } else {
        policy.kind = "profile";
        const Profile profile = loadProfile(file);
        for (const PolicyEntry& e : profile.per_NB_policy)
            if (e.NB >= 1 && e.NB <= (1 << 20)) policy.configs[static_cast<int>(e.NB)] = toL2NormConfig(e.config);
        if (policy.configs.empty()) throw Error(policy.file, "/per_NB_policy", "has no entry (nothing to measure)");
    }
    policy.sha256 = sha256FileHex(file);
    return policy;
}

std::string PolicyConfigs::describeContents(std::size_t maxItems) const {
    std::string text;
    std::size_t shown = 0;
    if (!configs.empty()) {
        text = "it has ";
        if (sources.empty()) {
            text += "NB " + std::to_string(configs.begin()->first) + "-" + std::to_string(configs.rbegin()->first) +
                    " (" + std::to_string(configs.size()) + " NBs)";
        } else {
            for (const auto& [nb, source] : sources) {
                if (shown++ == maxItems) {
                    text += ", ...";
                    break;
                }
                text += (shown > 1 ? ", NB " : "NB ") + std::to_string(nb) + " (" + source + ")";
            }
        }
    }
    shown = 0;
    for (const std::string& s : skipped) {
        if (shown++ == maxItems) {
            text += "; ...";
            break;
        }
        text += (text.empty() ? "skipped " : "; skipped ") + s;
    }
    return text;
}

std::string toString(HeadToHeadVerdict verdict) {
    switch (verdict) {
    case HeadToHeadVerdict::SameConfig: return "same config";
    case HeadToHeadVerdict::Faster: return "FASTER";
    case HeadToHeadVerdict::Tie: return "TIE";
    case HeadToHeadVerdict::Slower: return "SLOWER";
    case HeadToHeadVerdict::Undecided: return "UNDECIDED";
    case HeadToHeadVerdict::Noisy: return "NOISY";
    case HeadToHeadVerdict::NotMeasured: return "NOT MEASURED";
    }
    return "NOT MEASURED";
}

std::size_t HeadToHeadReport::count(HeadToHeadVerdict verdict) const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [&](const HeadToHeadRow& r) { return r.verdict == verdict; }));
}

bool HeadToHeadReport::atLeastAsFast() const {
    return !rows.empty() && count(HeadToHeadVerdict::Slower) == 0 && count(HeadToHeadVerdict::Noisy) == 0 &&
           count(HeadToHeadVerdict::NotMeasured) == 0;
}

HeadToHeadVerdict fromPaired(Comparison c) {
    switch (c) {
    case Comparison::Faster: return HeadToHeadVerdict::Faster;
    case Comparison::Slower: return HeadToHeadVerdict::Slower;
    case Comparison::Same: return HeadToHeadVerdict::Tie;
    case Comparison::Ambiguous: return HeadToHeadVerdict::Undecided;
    }
    return HeadToHeadVerdict::Undecided;
}

namespace {

// The replica-0 record of `config` among a shape's records.
const ResultRecord* firstReplica(const std::vector<const ResultRecord*>& records, const L2NormConfig& config) {
    for (const ResultRecord* r : records)
        if (r->replica == 0 && r->config == config) return r;
    return nullptr;
}

// One NB of a head-to-head plan in one regime: the candidate against the baseline, unless an A/A control differed.
void judgeShape(HeadToHeadReport& report, const SweepPlan& plan, const SweepShape& shape, L2Regime regime,
                const std::map<ShapeKey, std::vector<const ResultRecord*>>& byShape, const std::string& file,
                double threshold) {
    const auto candidate = plan.profileConfigs.find(shape.nb);
    const auto baseline = plan.baselineConfigs.find(shape.nb);
    if (candidate == plan.profileConfigs.end() || baseline == plan.baselineConfigs.end())
        throw Error(file, std::string("line 1, /plan/") + (candidate == plan.profileConfigs.end() ? "profile" : "baseline") +
                              "/configs",
                    "has no config for NB " + std::to_string(shape.nb) + ", a shape of the plan");
    HeadToHeadRow row;
    row.nb = shape.nb;
    row.rows = shape.rows;
    row.l2 = regime;
    row.candidate = candidate->second;
    row.baseline = baseline->second;
    const auto found = byShape.find(ShapeKey{shape.nb, shape.rows, regime});
    if (found == byShape.end()) {
        report.rows.push_back(std::move(row));
        return;
    }
    const std::vector<const ResultRecord*>& records = found->second;
    row.candidateRecord = firstReplica(records, row.candidate);
    row.baselineRecord = firstReplica(records, row.baseline);
    if (!row.candidateRecord || !row.baselineRecord) {
        report.rows.push_back(std::move(row));
        return;
    }
    const ShapeDecision shapeNoise = decideShape(records, threshold);  // its pooled round noise and family size
    row.rounds = shapeNoise.rounds;
    // A/A: identical work must never come out FASTER or SLOWER; when it does, nothing at this NB is decided.
    bool controlFailed = false;
    for (const ResultRecord* r : records) {
        if (r->replica == 0 || !(r->config == row.candidate || r->config == row.baseline)) continue;
        const ResultRecord* base = firstReplica(records, r->config);
        if (!base) continue;
        PairedComparison control = comparePairedRecords(*r, *base, shapeNoise);
        controlFailed = controlFailed || control.verdict == Comparison::Faster || control.verdict == Comparison::Slower;
        if (control.ratio > 0 && std::abs(std::log(control.ratio)) > std::abs(std::log(row.worstControl)))
            row.worstControl = control.ratio;
        row.controls.push_back(std::move(control));
    }
    if (row.candidate == row.baseline) {
        row.verdict = HeadToHeadVerdict::SameConfig;
        row.paired.verdict = Comparison::Same;
        row.paired.ratio = row.paired.low = row.paired.high = 1;
    } else {
        row.paired = comparePairedRecords(*row.candidateRecord, *row.baselineRecord, shapeNoise);
        // No finite interval (no round measured both): nothing was measured side by side, so nothing passes.
        const bool judged = std::isfinite(row.paired.low) && std::isfinite(row.paired.high);
        row.verdict = !judged        ? HeadToHeadVerdict::NotMeasured
                      : controlFailed ? HeadToHeadVerdict::Noisy
                                      : fromPaired(row.paired.verdict);
    }
    report.rows.push_back(std::move(row));
}

}  // namespace

HeadToHeadReport judgeHeadToHead(const ResultsFile& results, double threshold) {
    const std::string file = results.path.string();
    const SweepPlan plan = planFromHeader(results.header, file);
    if (plan.baselineConfigs.empty())
        throw Error(file, "line 1, /plan/baseline",
                    "is missing: this results file is not a head-to-head run (made by tunescope-cli confirm)");
    HeadToHeadReport report;
    report.candidateFile = plan.profileFile;
    report.baselineFile = plan.baselineFile;
    report.threshold = threshold;
    report.timer = plan.timer;
    report.regimes = plan.l2Regimes;
    report.placements = plan.placements;

    const auto byShape = l2normRecordsByShape(results);
    for (const SweepShape& shape : plan.shapes) {
        for (L2Regime regime : plan.l2Regimes) judgeShape(report, plan, shape, regime, byShape, file, threshold);
    }
    std::sort(report.rows.begin(), report.rows.end(), [](const HeadToHeadRow& a, const HeadToHeadRow& b) {
        return std::tie(a.nb, a.rows, a.l2) < std::tie(b.nb, b.rows, b.l2);
    });
    return report;
}

}  // namespace tunescope
