#include "tunescope/sweep/promote.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/validation.hpp"
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

// The header's description of the device a record was measured on (name and backend must match; the index too
// when one matches it).
const DeviceInfo* deviceOf(const ResultRecord& r, const ResultsHeader& header) {
    const DeviceInfo* found = nullptr;
    for (const DeviceInfo& d : header.devices)
        if (d.backend == r.deviceBackend && d.name == r.deviceName && (!found || d.index == r.deviceIndex)) found = &d;
    return found;
}

std::string architectureOf(const ResultRecord& r, const ResultsHeader& header) {
    const DeviceInfo* d = deviceOf(r, header);
    return d ? d->architecture : "";
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
    j["architecture"] = architectureOf(chosen, results.header);
    j["cold_l2"] = chosen.l2 == L2Regime::Cold;
    j["l2"] = toString(chosen.l2);
    j["timer"] = chosen.timer;
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

// The usable l2norm records of each NB's decisive shape (the most rows in the bucket) in the regime decided on, and
// what measured them.
struct MeasuredNbs {
    std::map<int, std::vector<const ResultRecord*>> byNb;
    std::set<std::string> architectures, backends, timers;
    L2Regime l2 = L2Regime::Cold;
};

bool usableL2Norm(const ResultRecord& r) {
    return r.kind == ResultRecord::Kind::L2Norm && r.m.sampleCount > 0 && std::isfinite(r.m.medianMs) &&
           r.m.medianMs > 0;
}

// The one regime a promote decides on: options.l2, or the only one the results hold. Refuses a mix.
L2Regime decidedRegime(const ResultsFile& results, const PromoteOptions& options) {
    std::set<L2Regime> held;
    for (const ResultRecord& r : results.records)
        if (usableL2Norm(r)) held.insert(r.l2);
    if (options.l2) return *options.l2;
    if (held.size() > 1) {
        std::string names;
        for (L2Regime r : held) names += (names.empty() ? "" : " and ") + toString(r);
        throw PromoteRefused(results.path.string(), "",
                             "holds records of the L2 regimes " + names +
                                 "; one decision never mixes regimes: promote one at a time (--l2 cold or --l2 warm)");
    }
    return held.empty() ? L2Regime::Cold : *held.begin();
}

MeasuredNbs measuredNbs(const ResultsFile& results, const PromoteOptions& options) {
    MeasuredNbs measured;
    measured.l2 = decidedRegime(results, options);
    std::map<int, std::int64_t> decisiveRows;
    for (const ResultRecord& r : results.records)
        if (usableL2Norm(r) && r.l2 == measured.l2) decisiveRows[r.nb] = std::max(decisiveRows[r.nb], r.rows);
    for (const ResultRecord& r : results.records) {
        if (!usableL2Norm(r) || r.l2 != measured.l2 || r.rows != decisiveRows[r.nb]) continue;
        measured.byNb[r.nb].push_back(&r);
        measured.architectures.insert(architectureOf(r, results.header));
        measured.backends.insert(r.deviceBackend);
        measured.timers.insert(r.timer);
    }
    if (measured.timers.size() > 1)
        throw PromoteRefused(results.path.string(), "",
                             "holds records of more than one timer (" + *measured.timers.begin() + " and " +
                                 *measured.timers.rbegin() + "): their times do not compare; measure again with one "
                                 "--timer");
    measured.architectures.erase("");
    if (measured.architectures.size() > 1 && !options.allowMixedArchitectures)
        throw PromoteRefused(results.path.string(), "",
                             "was measured on more than one GPU architecture (" + *measured.architectures.begin() +
                                 ", " + *measured.architectures.rbegin() +
                                 "); a profile's entries should come from one (--allow-mixed-architectures to promote "
                                 "anyway)");
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

// "13.0" of "CUDA runtime 13.0": the version the runtime block records for CUDA or HIP.
std::string versionAfter(const std::string& text, const std::string& prefix) {
    return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : std::string();
}

// The Triton version(s) of the measured binaries ("unknown" for TuneScope's stand-in kernel and the CPU).
std::string measuredTritonVersion(const MeasuredNbs& measured) {
    std::set<std::string> versions;
    for (const auto& [nb, records] : measured.byNb)
        for (const ResultRecord* r : records)
            if (r->kernelSource.is_object() && r->kernelSource.contains("triton_version") &&
                r->kernelSource["triton_version"].is_string())
                versions.insert(r->kernelSource["triton_version"].get<std::string>());
    std::string text;
    for (const std::string& v : versions) text += (text.empty() ? "" : ", ") + v;
    return text.empty() ? std::string("unknown") : text;
}

// The runtime block of where the entries were measured. Members besides the typed ones (gpu, driver, timer, ...)
// live in `original`, which the model keeps.
RuntimeVersions measuredRuntime(const MeasuredNbs& measured, const ResultsFile& results, const PromoteOptions& options) {
    const ResultRecord& first = *measured.byNb.begin()->second.front();
    DeviceInfo device;
    if (const DeviceInfo* d = deviceOf(first, results.header)) device = *d;
    device.backend = first.deviceBackend;
    device.name = first.deviceName;
    RuntimeVersions v;
    v.gpu_arch = device.architecture;
    const std::string cuda = versionAfter(device.runtimeVersion, "CUDA runtime ");
    const std::string hip = versionAfter(device.runtimeVersion, "HIP runtime ");
    if (!cuda.empty()) v.cuda = cuda;
    if (!hip.empty()) v.hip = hip;
    v.triton = measuredTritonVersion(measured);
    v.fla = options.flaVersion.empty() ? std::string("unknown") : options.flaVersion;
    Json j = Json::object();  // the typed members first, in the seed's order
    if (v.hip) j["hip"] = *v.hip;
    if (v.cuda) j["cuda"] = *v.cuda;
    j["triton"] = v.triton;
    j["fla"] = v.fla;
    j["gpu_arch"] = v.gpu_arch;
    j["gpu"] = device.name;
    j["backend"] = device.backend;
    j["driver"] = device.driverVersion;
    j["runtime_version"] = device.runtimeVersion;
    j["timer"] = *measured.timers.begin();
    j["l2"] = toString(measured.l2);
    j["kernel"] = first.kernelSource.is_object() ? "fla-triton-binaries" : "tunescope-l2norm (stand-in)";
    j["results_file"] = options.resultsFileName;
    j["results_sha256"] = options.resultsSha256;
    j["measured_by"] = "tunescope-cli promote";
    v.original = std::move(j);
    return v;
}

// The profile now says where its entries were measured; what it said before goes to runtime_history (oldest first),
// with the target it had. The target keeps its text, with where the entries were measured after " | ". False (nothing
// changed) when the header does not describe the measuring device.
bool recordProvenance(Profile& profile, const MeasuredNbs& measured, const ResultsFile& results,
                      const PromoteOptions& options) {
    if (!deviceOf(*measured.byNb.begin()->second.front(), results.header)) return false;
    const RuntimeVersions runtime = measuredRuntime(measured, results, options);
    Json before = Json::object();
    before["runtime"] = toJson(profile)["runtime"];
    before["target"] = profile.target;
    before["replaced_by"] = "promote of " + options.resultsFileName + " (" + options.resultsSha256 + ")";
    if (!profile.original.is_object()) profile.original = Json::object();
    Json& history = profile.original["runtime_history"];
    if (!history.is_array()) history = Json::array();
    history.push_back(std::move(before));
    profile.runtime = runtime;
    const std::string where = " | measured on " + runtime.original["gpu"].get<std::string>() + " (" +
                              runtime.gpu_arch + "), " + runtime.original["timer"].get<std::string>() + " timer, " +
                              runtime.original["l2"].get<std::string>() + " L2";
    const std::size_t cut = profile.target.find(" | measured on ");
    profile.target = profile.target.substr(0, cut) + where;
    return true;
}

}  // namespace

PromoteReport promote(const Profile& profile, const ResultsFile& results, const PromoteOptions& options) {
    PromoteReport report;
    report.profile = profile;
    const MeasuredNbs measured = measuredNbs(results, options);
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
    if (report.promotedCount > 0 && !recordProvenance(report.profile, measured, results, options))
        report.warnings.push_back("the measuring device is not described in the results header, so the profile's "
                                  "runtime block was left as it was (it does not say where these entries were "
                                  "measured)");
    const auto architectures = policyArchitectures(report.profile);
    if (architectures.size() > 1) {
        const std::string text = "the promoted profile's entries come from more than one GPU architecture: " +
                                 describePolicyArchitectures(architectures);
        if (!options.allowMixedArchitectures)
            throw PromoteRefused(results.path.string(), "",
                                 text + "; FLA would load all of them on one GPU. Measure every NB on the target and "
                                        "promote with --all-bases, or give --allow-mixed-architectures");
        report.warnings.push_back(text + " (--allow-mixed-architectures)");
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
