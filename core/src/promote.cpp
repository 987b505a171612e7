#include "tunescope/promote.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tunescope/hashing.hpp"
#include "tunescope/sweep.hpp"

namespace tunescope {

namespace {

bool eligible(const PolicyEntry& entry, const PromoteOptions& options) {
    return entry.isProspective() || entry.basis == kBasisMeasured || options.includeAllBases;
}

// The incumbent can only be matched by a measurement when the device layer can express all of its config.
bool expressible(const TritonConfig& c) {
    return c.extraKwargs.empty() && !c.maxnreg && c.pre_hook.is_null() && !c.ir_override && c.extraFields.empty();
}

std::string deviceLabel(const ResultRecord& r, const ResultsHeader& header) {
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

MeasuredEvidence evidenceFor(const ResultRecord& chosen, const ResultRecord& best, const PromoteEntry& decision,
                             const ResultsFile& results, const PromoteOptions& options) {
    MeasuredEvidence e;
    e.median_ms = chosen.m.medianMs;
    e.p20_ms = chosen.m.p20Ms;
    e.p80_ms = chosen.m.p80Ms;
    e.samples = chosen.m.sampleCount;
    e.device = deviceLabel(chosen, results.header);
    e.results_sha256 = options.resultsSha256;
    // The typed members above are written into this object in place; the rest says how the choice was made.
    Json j = Json::object();
    j["median_ms"] = e.median_ms;
    j["p20_ms"] = e.p20_ms;
    j["p80_ms"] = e.p80_ms;
    j["samples"] = e.samples;
    j["rel_noise"] = std::isfinite(chosen.m.relNoise) ? Json(chosen.m.relNoise) : Json(nullptr);
    j["converged"] = chosen.m.converged;
    j["device"] = e.device;
    j["backend"] = chosen.deviceBackend;
    j["cold_l2"] = chosen.coldL2;
    j["rows"] = chosen.rows;
    j["measured_config"] = toJson(fromL2NormConfig(chosen.config));
    j["results_file"] = options.resultsFileName;
    j["results_sha256"] = e.results_sha256;
    j["results_line"] = chosen.line;
    if (&chosen == &best && decision.incumbentMeasured) {
        j["decision"] = "the incumbent is the fastest measured config";
    } else if (decision.keptIncumbent) {
        j["decision"] = "kept the incumbent: the fastest config was " + toString(decision.bestVsIncumbent) +
                        ", not FASTER, against it";
        j["fastest_config"] = toJson(fromL2NormConfig(best.config));
        j["fastest_median_ms"] = best.m.medianMs;
    } else if (decision.incumbentMeasured) {
        j["decision"] = "the fastest config was FASTER than the incumbent";
    } else {
        j["decision"] = "the fastest measured config (the incumbent was not measured)";
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

}  // namespace

PromoteReport promote(const Profile& profile, const ResultsFile& results, const PromoteOptions& options) {
    PromoteReport report;
    report.profile = profile;

    // The usable l2norm records of each NB's decisive shape (the most rows in the bucket).
    std::map<int, std::int64_t> decisiveRows;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm && r.m.sampleCount > 0 && std::isfinite(r.m.medianMs) && r.m.medianMs > 0)
            decisiveRows[r.nb] = std::max(decisiveRows[r.nb], r.rows);
    std::map<int, std::vector<const ResultRecord*>> byNb;
    std::set<std::string> architectures, backends;
    for (const ResultRecord& r : results.records) {
        if (r.kind != ResultRecord::Kind::L2Norm || r.m.sampleCount <= 0 || !std::isfinite(r.m.medianMs) ||
            r.m.medianMs <= 0 || r.rows != decisiveRows[r.nb])
            continue;
        byNb[r.nb].push_back(&r);
        architectures.insert(architectureOf(r, results.header));
        backends.insert(r.deviceBackend);
    }
    std::size_t standIn = 0;
    for (const auto& [nb, records] : byNb)
        for (const ResultRecord* r : records) standIn += r->kernelSource.is_object() ? 0 : 1;
    const bool namesFlaKernel = std::any_of(profile.files.begin(), profile.files.end(),
                                            [](const FileEntry& f) { return f.file == "l2norm_fwd_kernel.json"; });
    if (standIn > 0 && namesFlaKernel)
        report.warnings.push_back(std::to_string(standIn) + " of the measurements are of TuneScope's stand-in l2norm, "
                                  "not of FLA's Triton l2norm_fwd_kernel that this profile configures: the stand-in "
                                  "ranks configs differently at small NB; sweep --kernel triton measures the real one");
    if (backends.count("cpu"))
        report.warnings.push_back("the results were measured on the CPU backend: CPU timings do not tell which GPU "
                                  "launch config is best");
    const std::string& target = profile.runtime.gpu_arch;
    for (const std::string& arch : architectures)
        if (!arch.empty() && !target.empty() && arch != target && arch != "x86_64" && arch != "aarch64")
            report.warnings.push_back("measured on " + arch + " but the profile targets " + target);

    for (PolicyEntry& entry : report.profile.per_NB_policy) {
        PromoteEntry decision;
        decision.nb = static_cast<int>(entry.NB);
        decision.oldBasis = decision.newBasis = entry.basis;
        decision.oldConfig = decision.newConfig = entry.config;
        const auto measured = byNb.find(decision.nb);
        if (!eligible(entry, options)) {
            decision.note = "basis \"" + entry.basis + "\" is kept (only prospective and measured entries are promoted)";
        } else if (measured == byNb.end()) {
            decision.note = "NB " + std::to_string(decision.nb) + " was not measured";
        } else {
            const ResultRecord* best = nullptr;
            const ResultRecord* incumbent = nullptr;
            const L2NormConfig incumbentConfig = toL2NormConfig(entry.config);
            for (const ResultRecord* r : measured->second) {
                if (!best || r->m.medianMs < best->m.medianMs) best = r;
                if (expressible(entry.config) && r->config == incumbentConfig) incumbent = r;
            }
            const ResultRecord* chosen = best;
            decision.bestMedianMs = best->m.medianMs;
            if (incumbent) {
                decision.incumbentMeasured = true;
                decision.bestVsIncumbent =
                    incumbent == best ? Comparison::Same : compare(best->m, incumbent->m, options.threshold);
                if (decision.bestVsIncumbent != Comparison::Faster) {
                    chosen = incumbent;
                    decision.keptIncumbent = true;
                }
            }
            decision.chosenMedianMs = chosen->m.medianMs;
            decision.newConfig = decision.keptIncumbent ? entry.config : fromL2NormConfig(chosen->config);
            decision.newBasis = std::string(kBasisMeasured);
            decision.promoted = true;
            const MeasuredEvidence evidence = evidenceFor(*chosen, *best, decision, results, options);
            entry.config = decision.newConfig;
            entry.basis = decision.newBasis;
            entry.evidence = evidence;
            ++report.promotedCount;
            if (decision.keptIncumbent)
                decision.note = "kept " + describe(entry.config) + " (fastest " + describe(fromL2NormConfig(best->config)) +
                                " is " + toString(decision.bestVsIncumbent) + " against it)";
            else if (decision.incumbentMeasured)
                decision.note = describe(decision.newConfig) + " is FASTER than " + describe(decision.oldConfig);
            else
                decision.note = describe(decision.newConfig) + " is the fastest (incumbent not measured)";
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
    if (results.truncatedTail)
        report.warnings.push_back(resultsFile.string() + " ends in an incomplete line (a killed sweep); it was ignored");
    return report;
}

}  // namespace tunescope
