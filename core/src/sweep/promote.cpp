#include "tunescope/sweep/promote.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tunescope/base/hashing.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope {

namespace {

bool eligible(const PolicyEntry& entry, const PromoteOptions& options) {
    return entry.isProspective() || entry.basis == kBasisMeasured || options.includeAllBases;
}

// The incumbent can only be matched by a measurement when the device layer can express all of its config.
bool expressible(const TritonConfig& c) {
    return c.extraKwargs.empty() && !c.maxnreg && c.pre_hook.is_null() && !c.ir_override && c.extraFields.empty();
}

// The profile's evidence names a device as "NVIDIA H200 (sm_90)" (docs/formats.md).
std::string evidenceDeviceLabel(const ResultRecord& r, const ResultsHeader& header) {
    for (const DeviceInfo& d : header.devices)
        if (d.backend == r.deviceBackend && d.index == r.deviceIndex && d.name == r.deviceName && !d.architecture.empty())
            return r.deviceName + " (" + d.architecture + ")";
    return r.deviceName;
}

std::string architectureOf(const ResultRecord& r, const ResultsHeader& header) {
    for (const DeviceInfo& d : header.devices)
        if (d.backend == r.deviceBackend && d.name == r.deviceName) return d.architecture;
    return "";
}

Json ratiosJson(const std::vector<double>& ratios) {
    Json list = Json::array();
    for (double r : ratios) list.push_back(std::round(r * 1e6) / 1e6);
    return list;
}

std::string deviceIdentityOf(const ResultRecord& r, const ResultsHeader& header) {
    for (const DeviceInfo& d : header.devices)
        if (d.backend == r.deviceBackend && d.index == r.deviceIndex && d.name == r.deviceName)
            return deviceIdentity(d);
    return r.deviceName;
}

MeasuredEvidence evidenceFor(const ResultRecord& chosen, const ShapeDecision& shape, const ResultRecord* incumbent,
                             const PromoteEntry& decision, const ResultsFile& results, const PromoteOptions& options) {
    const ResultRecord& fastest = *shape.fastest;
    MeasuredEvidence e;
    e.median_ms = chosen.m.medianMs;
    e.p20_ms = chosen.m.p20Ms;
    e.p80_ms = chosen.m.p80Ms;
    e.samples = chosen.m.sampleCount;
    e.device = evidenceDeviceLabel(chosen, results.header);
    e.results_sha256 = options.resultsSha256;
    // The typed members above are written into this object in place; the rest says how the choice was made.
    Json j = Json::object();
    j["median_ms"] = e.median_ms;
    j["p20_ms"] = e.p20_ms;
    j["p80_ms"] = e.p80_ms;
    j["samples"] = e.samples;
    j["throttled_samples"] = chosen.m.throttledCount;
    j["rel_noise"] = finiteOrNull(chosen.m.relNoise);
    j["converged"] = chosen.m.converged;
    j["device"] = e.device;
    j["device_identity"] = deviceIdentityOf(chosen, results.header);
    j["backend"] = chosen.deviceBackend;
    j["cold_l2"] = chosen.coldL2;
    j["rows"] = chosen.rows;
    j["measured_config"] = toJson(fromL2NormConfig(chosen.config));
    j["results_file"] = options.resultsFileName;
    j["results_sha256"] = e.results_sha256;
    j["results_line"] = chosen.line;
    j["rounds"] = shape.rounds;
    Json roundMedianList = Json::array();
    for (double median : roundMedians(chosen, shape.rounds)) roundMedianList.push_back(finiteOrNull(median));
    j["round_medians_ms"] = std::move(roundMedianList);
    Json ties = Json::array();
    for (const L2NormConfig& c : decision.ties) ties.push_back(toJson(fromL2NormConfig(c)));
    j["tie_set"] = std::move(ties);
    j["tie_rule"] = "incumbent if in the tie set, else the fastest of the tie set (equal estimates: the smallest (BT, num_warps, "
                      "num_stages, num_ctas))";
    j["fastest_config"] = toJson(fromL2NormConfig(fastest.config));
    j["fastest_median_ms"] = fastest.m.medianMs;
    if (incumbent) {
        j["fastest_vs_incumbent_round_ratios"] = ratiosJson(decision.roundRatios);
        j["fastest_vs_incumbent_interval"] = Json::array({finiteOrNull(decision.ratioLow), finiteOrNull(decision.ratioHigh)});
        j["fastest_vs_incumbent"] = toString(decision.bestVsIncumbent);
        if (&chosen != incumbent) {
            const PairedComparison chosenVsIncumbent = comparePairedRecords(chosen, *incumbent, shape);
            j["chosen_vs_incumbent_round_ratios"] = ratiosJson(chosenVsIncumbent.roundRatios);
        }
    }
    if (incumbent && decision.keptIncumbent && &fastest == incumbent) {
        j["decision"] = "kept the incumbent: it is the fastest measured config";
    } else if (incumbent && decision.keptIncumbent) {
        j["decision"] = "kept the incumbent: it is in the tie set of the fastest config (fastest vs incumbent " +
                        toString(decision.bestVsIncumbent) + ", not FASTER)";
    } else if (incumbent) {
        j["decision"] = "replaced the incumbent: the fastest config is FASTER than it over every round; the tie rule "
                        "chose " + configText(chosen.config) + " from the tie set";
    } else {
        j["decision"] = "the incumbent was not measured; the tie rule chose " + configText(chosen.config) +
                        " from the tie set of the fastest config";
    }
    j["threshold"] = options.threshold;
    // Which kernel the numbers are of: FLA's Triton binary (sweep --kernel triton, docs/triton-kernels.md), or
    // TuneScope's own l2norm, a stand-in that does not rank configs exactly like FLA's kernel.
    if (chosen.kernelSource.is_object()) {
        Json kernel = Json::object();
        for (const char* key : {"kernel", "name", "binary_sha256", "triton_version", "target", "folder", "metadata_sha256"})
            if (chosen.kernelSource.contains(key)) kernel[key] = chosen.kernelSource[key];
        j["measured_kernel"] = std::move(kernel);
    } else {
        j["measured_kernel"] = Json{{"kernel", "tunescope-l2norm"},
                                    {"note", "TuneScope's own l2norm kernel, a stand-in for FLA's Triton kernel"}};
    }
    e.original = std::move(j);
    return e;
}

// The usable l2norm records of each NB's decisive shape (the most rows in the bucket), and what measured them.
struct MeasuredNbs {
    std::map<int, std::vector<const ResultRecord*>> byNb;
    std::set<std::string> architectures, backends;
};

MeasuredNbs measuredNbs(const ResultsFile& results) {
    std::map<int, std::int64_t> decisiveRows;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm && r.m.sampleCount > 0 && std::isfinite(r.m.medianMs) &&
            r.m.medianMs > 0)
            decisiveRows[r.nb] = std::max(decisiveRows[r.nb], r.rows);
    MeasuredNbs measured;
    for (const ResultRecord& r : results.records) {
        if (r.kind != ResultRecord::Kind::L2Norm || r.m.sampleCount <= 0 || !std::isfinite(r.m.medianMs) ||
            r.m.medianMs <= 0 || r.rows != decisiveRows[r.nb])
            continue;
        measured.byNb[r.nb].push_back(&r);
        measured.architectures.insert(architectureOf(r, results.header));
        measured.backends.insert(r.deviceBackend);
    }
    return measured;
}

// What the measurements cannot tell about this profile: the stand-in kernel's timings for FLA's, CPU timings, another
// GPU architecture. Returns the GPU architecture measured here that the profile does not target ("" when none).
std::string warnAboutMeasurements(const Profile& profile, const MeasuredNbs& measured,
                                  std::vector<std::string>& warnings) {
    std::size_t standIn = 0;
    for (const auto& [nb, records] : measured.byNb)
        for (const ResultRecord* r : records) standIn += r->kernelSource.is_object() ? 0 : 1;
    const bool namesFlaKernel = std::any_of(profile.files.begin(), profile.files.end(),
                                            [](const FileEntry& f) { return f.file == "l2norm_fwd_kernel.json"; });
    if (standIn > 0 && namesFlaKernel)
        warnings.push_back(std::to_string(standIn) + " of the measurements are of TuneScope's stand-in l2norm, "
                           "not of FLA's Triton l2norm_fwd_kernel that this profile configures: the stand-in "
                           "ranks configs differently at small NB; sweep --kernel triton measures the real one");
    if (measured.backends.count("cpu"))
        warnings.push_back("the results were measured on the CPU backend: CPU timings do not tell which GPU "
                           "launch config is best");
    const std::string& target = profile.runtime.gpu_arch;
    std::string foreignArchitecture;
    for (const std::string& arch : measured.architectures)
        if (!arch.empty() && !target.empty() && arch != target && arch != "x86_64" && arch != "aarch64") {
            warnings.push_back("measured on " + arch + " but the profile targets " + target);
            foreignArchitecture = arch;
        }
    return foreignArchitecture;
}

// The incumbent against the fastest config: the paired ratios into `decision`, and the record the tie rule takes
// (the incumbent when it is a tie, else the first of the tie set, the fastest estimate).
const ResultRecord* applyTieRule(PromoteEntry& decision, const ShapeDecision& shape, const ResultRecord* incumbent,
                                 bool foreign) {
    const ResultRecord* chosen = shape.ties.front();
    if (!incumbent) return chosen;
    decision.incumbentMeasured = true;
    if (incumbent == shape.fastest) {
        decision.bestVsIncumbent = Comparison::Same;
        decision.ratioLow = decision.ratioHigh = 1;
        decision.roundRatios.assign(static_cast<std::size_t>(shape.rounds), 1.0);
    } else {
        const PairedComparison paired = comparePairedRecords(*shape.fastest, *incumbent, shape);
        decision.roundRatios = paired.roundRatios;
        decision.ratioLow = paired.low;
        decision.ratioHigh = paired.high;
        // One source of truth: the incumbent is replaced exactly when it is not a tie.
        const bool tie = std::find(shape.ties.begin(), shape.ties.end(), incumbent) != shape.ties.end();
        decision.bestVsIncumbent = tie ? (paired.verdict == Comparison::Faster ? Comparison::Ambiguous : paired.verdict)
                                       : Comparison::Faster;
    }
    // An incumbent stays on a tie only on the hardware it was chosen for. Measured on another GPU architecture (a
    // gfx942 profile re-tuned on an H200), nothing favours it there, and "tied within the threshold" still leaves it
    // up to the threshold slower: the fastest of the tie set is taken (docs/sweep.md, "Decisions"; BENCHMARKS.md
    // run 13).
    if (std::find(shape.ties.begin(), shape.ties.end(), incumbent) != shape.ties.end()) {
        if (!foreign) {
            chosen = incumbent;
            decision.keptIncumbent = true;
        } else {
            decision.incumbentForeign = true;
        }
    }
    return chosen;
}

std::string promotionNote(const PromoteEntry& decision, const PolicyEntry& entry, const ShapeDecision& shape,
                          const std::string& target, const std::string& foreignArchitecture) {
    const std::string tieText = std::to_string(shape.ties.size()) + " tie" + (shape.ties.size() == 1 ? "" : "s");
    if (decision.keptIncumbent)
        return "kept " + describe(entry.config) + " (in the tie set of the fastest " +
               configText(shape.fastest->config) + ", " + tieText + ", fastest vs incumbent " +
               toString(decision.bestVsIncumbent) + ")";
    if (decision.incumbentForeign)
        return describe(decision.newConfig) + " replaces " + describe(decision.oldConfig) +
               " (the incumbent ties with the fastest, but it was chosen for " + target + " and this is " +
               foreignArchitecture + ": the fastest is taken; " + tieText + ")";
    if (decision.incumbentMeasured)
        return describe(decision.newConfig) + " replaces " + describe(decision.oldConfig) +
               " (incumbent SLOWER than the fastest " + configText(shape.fastest->config) + "; " + tieText +
               ", tie rule)";
    return describe(decision.newConfig) + " chosen by the tie rule from " + tieText + " (incumbent not measured)";
}

// An eligible entry whose NB was measured on one device becomes "measured-best", with its evidence.
void promoteEntry(PolicyEntry& entry, PromoteEntry& decision, const std::vector<const ResultRecord*>& records,
                  const ResultsFile& results, const PromoteOptions& options, const std::string& target,
                  const std::string& foreignArchitecture) {
    const ShapeDecision shape = decideShape(records, options.threshold);
    const ResultRecord* incumbent = nullptr;
    const L2NormConfig incumbentConfig = toL2NormConfig(entry.config);
    if (expressible(entry.config))
        for (const ResultRecord* r : records)
            if (r->config == incumbentConfig && (!incumbent || r->profileConfig)) incumbent = r;
    for (const ResultRecord* r : shape.ties) decision.ties.push_back(r->config);
    decision.bestMedianMs = shape.fastest->m.medianMs;
    const ResultRecord* chosen = applyTieRule(decision, shape, incumbent, !foreignArchitecture.empty());
    decision.chosenMedianMs = chosen->m.medianMs;
    decision.newConfig = decision.keptIncumbent ? entry.config : fromL2NormConfig(chosen->config);
    decision.newBasis = std::string(kBasisMeasured);
    decision.promoted = true;
    const MeasuredEvidence evidence = evidenceFor(*chosen, shape, incumbent, decision, results, options);
    entry.config = decision.newConfig;
    entry.basis = decision.newBasis;
    entry.evidence = evidence;
    decision.note = promotionNote(decision, entry, shape, target, foreignArchitecture);
}

}  // namespace

PromoteReport promote(const Profile& profile, const ResultsFile& results, const PromoteOptions& options) {
    PromoteReport report;
    report.profile = profile;
    const MeasuredNbs measured = measuredNbs(results);
    const std::string foreignArchitecture = warnAboutMeasurements(profile, measured, report.warnings);

    for (PolicyEntry& entry : report.profile.per_NB_policy) {
        PromoteEntry decision;
        decision.nb = static_cast<int>(entry.NB);
        decision.oldBasis = decision.newBasis = entry.basis;
        decision.oldConfig = decision.newConfig = entry.config;
        const auto records = measured.byNb.find(decision.nb);
        std::set<std::string> devicesOfNb;
        if (records != measured.byNb.end())
            for (const ResultRecord* r : records->second)
                devicesOfNb.insert(r->deviceBackend + ":" + std::to_string(r->deviceIndex) + ":" + r->deviceName);
        if (!eligible(entry, options)) {
            decision.note =
                "basis \"" + entry.basis + "\" is kept (only prospective and measured entries are promoted)";
        } else if (records == measured.byNb.end()) {
            decision.note = "NB " + std::to_string(decision.nb) + " was not measured";
        } else if (devicesOfNb.size() > 1) {
            // Never a decision across devices: their timings do not pair.
            decision.note = "NB " + std::to_string(decision.nb) + " was measured on " +
                            std::to_string(devicesOfNb.size()) +
                            " devices; not compared across devices (sweep with --shard, which splits by shape)";
        } else {
            promoteEntry(entry, decision, records->second, results, options, profile.runtime.gpu_arch,
                         foreignArchitecture);
            ++report.promotedCount;
        }
        report.entries.push_back(std::move(decision));
    }
    return report;
}

PromoteReport promoteFiles(const std::filesystem::path& profileFile, const std::filesystem::path& resultsFile,
                           PromoteOptions options) {
    const Profile profile = loadProfile(profileFile);
    const ResultsFile results = loadResults(resultsFile);
    if (options.resultsSha256.empty()) options.resultsSha256 = sha256FileHex(resultsFile);
    if (options.resultsFileName.empty()) options.resultsFileName = resultsFile.filename().string();
    PromoteReport report = promote(profile, results, options);
    report.warnings.insert(report.warnings.begin(), results.warnings.begin(), results.warnings.end());
    return report;
}

}  // namespace tunescope
