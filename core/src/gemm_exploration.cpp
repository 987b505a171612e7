// The exploration driver: heuristics -> explicit split-k checks -> first pass of the heuristic answers ->
// guided search -> finalists re-timed back to back (measurement engine) -> selection. Everything measured is kept
// in the result, also when single algorithms fail.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <sys/utsname.h>

#include "tunescope/errors.hpp"
#include "tunescope/gemm_backend.hpp"
#include "tunescope/measurement.hpp"

namespace tunescope::gemm {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double medianOf(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string mib(std::uint64_t bytes) {
    std::ostringstream out;
    out << double(bytes) / double(kMiB) << " MiB";
    return out.str();
}

std::string fmt(double value, int digits = 3) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(digits);
    out << value;
    return out.str();
}

// SHA-256 futures by candidate index, resolved when the result is complete.
using ShaFutures = std::map<int, std::shared_future<std::string>>;

// First pass of a batch of candidates, back to back on the GPU (GemmBackend::firstPass).
void evaluateBatch(GemmBackend& backend, std::vector<Candidate>& batch, std::uint64_t workspaceBytes, int warmups,
                   int samples, bool firstIsBaseline, ShaFutures& shas) {
    std::vector<GemmBackend::FirstPassItem> items;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        GemmBackend::FirstPassItem item;
        item.raw = batch[i].raw;
        item.workspaceBytes = workspaceBytes;
        item.warmups = warmups;
        item.samples = samples;
        item.makeBaseline = firstIsBaseline && i == 0;
        items.push_back(item);
    }
    std::vector<GemmBackend::FirstPassResult> results;
    try {
        results = backend.firstPass(items);
    } catch (const std::exception& e) {
        for (auto& c : batch) c.error = e.what();
        return;
    }
    for (std::size_t i = 0; i < batch.size() && i < results.size(); ++i) {
        Candidate& c = batch[i];
        const auto& r = results[i];
        if (!r.error.empty() || r.samplesMs.empty()) {
            c.error = r.error.empty() ? "no samples" : r.error;
            continue;
        }
        FirstPass pass;
        pass.samplesMs = r.samplesMs;
        pass.medianMs = medianOf(r.samplesMs);
        pass.warmups = warmups;
        pass.smClockMHz = r.smClockMHz;
        c.firstPass = pass;
        c.error.clear();
        c.parity = r.parity.parity;
        shas[c.index] = r.parity.sha256;
    }
}

std::string platformName() {
    utsname u{};
    if (uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + "-" + u.release + "-" + u.machine;
}

// Merges the samples of several measurements of one candidate (the rounds) into one.
struct Merged {
    Measurement all;
    void add(const Measurement& m) {
        all.samplesMs.insert(all.samplesMs.end(), m.samplesMs.begin(), m.samplesMs.end());
        all.smClockMHz.insert(all.smClockMHz.end(), m.smClockMHz.begin(), m.smClockMHz.end());
        all.warmupCount += m.warmupCount;
    }
};

StoppingRule finalistRule(double baselineMs) {
    StoppingRule rule;
    rule.warmupSamples = 1;
    rule.minSamples = 8;
    rule.minTimeMs = 2.0;
    rule.maxRelNoise = 0.005;
    rule.maxSamples = 200;
    // A round of one finalist: about 40 samples, between 50 and 300 ms (long enough for a sustained power state).
    rule.timeoutMs = std::clamp(40.0 * baselineMs, 50.0, 300.0);
    return rule;
}

FinalMeasurement toFinal(const Measurement& m) {
    FinalMeasurement f;
    f.medianMs = m.medianMs;
    f.p20Ms = m.p20Ms;
    f.p80Ms = m.p80Ms;
    f.noise = std::isfinite(m.relNoise) ? m.relNoise : 1.0;
    f.samples = m.sampleCount;
    f.meanSmClockMHz = m.meanClockMHz;
    return f;
}

}  // namespace

ExplorationResult runExploration(GemmBackend& backend, const ExploreOptions& options,
                                 const ExploreProgressFn& progress) {
    const auto start = Clock::now();
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    ExplorationResult r;
    r.spec = options.spec;
    r.rule = options.rule;
    r.budgetSeconds = options.budgetSeconds;
    r.dataSeed = options.dataSeed;
    r.coldL2 = options.coldL2;
    r.environment = backend.environment();
    r.environment.platform = platformName();
    r.errorsAndUnsupported.push_back(
        {"Stream-K", false,
         "CUDA 13 cuBLASLt exposes no documented MatmulAlgoConfig attribute that directly selects Stream-K. Negative "
         "SPLITK_NUM values returned by heuristics are preserved as undocumented library sentinels, not claimed as "
         "public Stream-K control."});
    r.errorsAndUnsupported.push_back(
        {"inner/cluster shape capabilities", false,
         "No CUBLASLT_ALGO_CAP_* lists inner or cluster shape ids; the search tries cluster ids 0..51 through "
         "cublasLtMatmulAlgoCheck and keeps the inner shape the heuristic chose."});

    validateGemmSpec(r.spec);
    const GemmEnvironment& env = r.environment;
    say("device: " + env.device + " sm_" + std::to_string(env.ccMajor) + std::to_string(env.ccMinor) + ", " +
        std::to_string(env.multiprocessors) + " SMs, L2 " + mib(env.l2Bytes) + ", cuBLASLt " +
        std::to_string(env.cublasLtVersion));
    auto fail = [&](const std::string& feature, const std::string& why, bool unsupported) {
        r.errorsAndUnsupported.push_back({feature, false, why});
        r.failure = why;
        r.unsupported = unsupported;
        r.wallSeconds = secondsSince(start);
        say("stopped: " + why);
        return r;
    };
    if (const std::string why = backend.unsupportedReason(r.spec); !why.empty())
        return fail(toString(r.spec.dtype) + " " + toString(r.spec.layout) + " on sm_" + std::to_string(env.ccMajor) +
                        std::to_string(env.ccMinor),
                    why, true);

    say("preparing " + describe(r.spec) + ": random inputs, FP32 reference on the GPU");
    try {
        backend.prepare(r.spec, r.dataSeed);
    } catch (const std::exception& e) {
        return fail("prepare", e.what(), false);
    }
    r.rotatingBufferSets = backend.rotatingSets();
    r.rotatingBytes = backend.rotatingBytes();
    const std::uint64_t cap = r.spec.maxWorkspaceBytes();
    r.baselineWorkspaceBytes = cap;

    // Heuristics per workspace cap.
    std::vector<std::uint64_t> caps = r.spec.workspaceBytes;
    for (std::uint64_t ws : caps) {
        HeuristicSet set = backend.heuristics(ws, r.spec.heuristicCount);
        say("heuristics at " + mib(ws) + ": " + std::to_string(set.returnedCount) + " of " +
            std::to_string(set.requestedCount) +
            (set.algorithms.empty() ? "" : ", top: " + set.algorithms.front().config.describe()));
        if (set.apiStatus != 0)
            r.errorsAndUnsupported.push_back({"heuristics at " + mib(ws), false, set.error});
        r.heuristics.push_back(std::move(set));
    }

    // Candidates from the heuristics, the top at the largest cap first (the baseline).
    std::vector<std::size_t> order(r.heuristics.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return r.heuristics[a].maxWorkspaceBytes > r.heuristics[b].maxWorkspaceBytes;
    });
    std::set<AlgoConfig> seen;
    std::map<int, AlgoCapabilities> capsById;
    for (std::size_t i : order) {
        const HeuristicSet& set = r.heuristics[i];
        for (std::size_t rank = 0; rank < set.algorithms.size(); ++rank) {
            const HeuristicAlgo& h = set.algorithms[rank];
            if (h.capabilities.read && !capsById.count(h.config.algorithmId))
                capsById[h.config.algorithmId] = h.capabilities;
            if (h.state != 0 || h.apiStatus != 0 || !seen.insert(h.config).second) continue;
            Candidate c;
            c.index = int(r.candidates.size());
            c.config = h.config;
            c.raw = h.raw;
            c.requiredWorkspaceBytes = h.requiredWorkspaceBytes;
            c.waves = h.waves;
            c.source = "heuristic " + mib(set.maxWorkspaceBytes) + " #" + std::to_string(rank);
            r.candidates.push_back(std::move(c));
        }
    }
    if (r.candidates.empty() || r.candidates.front().source.rfind("heuristic " + mib(cap) + " #0", 0) != 0)
        return fail("heuristics", "cuBLASLt returned no usable heuristic answer at the largest workspace cap (" +
                                      mib(cap) + ") for " + describe(r.spec) + "; nothing to compare against",
                    false);
    r.baselineIndex = 0;

    // Configurations asked for on the command line: checked, then timed with the heuristic answers.
    std::set<int> requested;
    for (const AlgoConfig& config : options.requestedConfigs) {
        if (seen.count(config)) {
            for (const auto& c : r.candidates)
                if (c.config == config) requested.insert(c.index);
            continue;
        }
        const CheckResult result = backend.check(config);
        if (!result.ok() || result.requiredWorkspaceBytes > cap) {
            const std::string why = !result.ok() ? "failed " + result.failedCall + " (status " + std::to_string(result.apiStatus) + ")"
                                                 : "needs " + std::to_string(result.requiredWorkspaceBytes) +
                                                       " bytes of workspace (cap " + std::to_string(cap) + ")";
            r.errorsAndUnsupported.push_back({"requested config " + config.describe(), false, why});
            say("requested " + config.describe() + ": " + why);
            continue;
        }
        seen.insert(config);
        Candidate c;
        c.index = int(r.candidates.size());
        c.config = config;
        c.raw = result.raw;
        c.requiredWorkspaceBytes = result.requiredWorkspaceBytes;
        c.waves = result.waves;
        c.source = "requested";
        requested.insert(c.index);
        r.candidates.push_back(std::move(c));
    }

    // Explicit split-k checks around the baseline's configuration.
    {
        const Candidate& base = r.candidates.front();
        AlgoCapabilities baseCaps = capsById.count(base.config.algorithmId) ? capsById[base.config.algorithmId]
                                                                            : backend.capabilities(base.config.algorithmId);
        for (const AlgoConfig& config : explicitSplitKConfigs(base.config, baseCaps)) {
            SplitKCheck s;
            s.requested = config;
            s.result = backend.check(config);
            s.workspaceCapBytes = cap;
            s.capabilities = baseCaps;
            r.splitKChecks.push_back(std::move(s));
        }
        int valid = 0, over = 0;
        for (const auto& s : r.splitKChecks) {
            valid += s.result.ok();
            over += s.overWorkspaceCap();
        }
        say("explicit split-k checks: " + std::to_string(r.splitKChecks.size()) + " (" + std::to_string(valid) +
            " pass AlgoCheck, " + std::to_string(over) + " of them need more than the " + mib(cap) + " cap)");
    }

    // First pass over the heuristic answers (always, whatever the budget). The baseline runs first and becomes the
    // reference output; then the GPU is brought into its sustained state and all answers are timed back to back.
    ShaFutures shas;
    const int samples = std::max(1, options.search.firstPassSamples);
    const int batchLimit = std::max(1, std::min(options.search.batchSize, backend.firstPassBatchLimit()));
    {
        std::vector<Candidate> first{r.candidates[0]};
        evaluateBatch(backend, first, cap, 2, samples, true, shas);
        r.candidates[0] = first[0];
    }
    if (!r.candidates[0].error.empty() || !r.candidates[0].firstPass) {
        r.baselineIndex = -1;
        return fail("baseline", "the heuristic top failed to run: " + r.candidates[0].error, false);
    }
    // About 25 ms of back-to-back work before each candidate's samples: enough for the power limiter to settle.
    const double estimateMs = std::max(r.candidates[0].firstPass->medianMs, 1e-3);
    const int warmups = int(std::clamp(std::ceil(25.0 / estimateMs), 2.0, 64.0));
    try {
        backend.keepBusy(r.candidates[0].raw, cap, int(std::clamp(500.0 / estimateMs, 1.0, 4000.0)));
    } catch (const std::exception& e) {
        r.errorsAndUnsupported.push_back({"pre-heating", false, e.what()});
    }
    for (std::size_t first = 0; first < r.candidates.size(); first += std::size_t(batchLimit)) {
        const std::size_t last = std::min(r.candidates.size(), first + std::size_t(batchLimit));
        std::vector<Candidate> batch(r.candidates.begin() + std::ptrdiff_t(first), r.candidates.begin() + std::ptrdiff_t(last));
        for (auto& c : batch) c.error.clear();
        evaluateBatch(backend, batch, cap, warmups, samples, false, shas);
        for (auto& c : batch) r.candidates[std::size_t(c.index)] = c;
    }
    for (const Candidate& c : r.candidates)
        say(std::string(c.index == 0 ? "baseline" : c.source == "requested" ? "requested" : "heuristic") + " #" +
            std::to_string(c.index) + " " +
            c.config.describe() + ": " +
            (c.error.empty() ? fmt(c.firstPass->medianMs) + " ms" + (c.parity.bitwiseEqualToBaseline ? ", bitwise equal" : ", differs")
                             : "failed: " + c.error));
    if (!r.candidates[0].error.empty() || !r.candidates[0].firstPass) {
        r.baselineIndex = -1;
        return fail("baseline", "the heuristic top failed to run: " + r.candidates[0].error, false);
    }
    const double baselineMs = r.candidates[0].firstPass->medianMs;

    // Search space: the heuristics' algorithms and every id cuBLASLt lists for these types.
    for (const auto& [id, caps] : capsById) r.algorithms.push_back({id, caps});
    for (int id : backend.algorithmIds(256)) {
        if (capsById.count(id)) continue;
        AlgoCapabilities caps = backend.capabilities(id);
        if (caps.read) r.algorithms.push_back({id, caps});
    }

    // Guided search within the budget, keeping time for the finalists.
    const int finalists = std::max(1, options.finalists);
    const int rounds = std::max(2, options.finalistRounds);
    const StoppingRule rule = finalistRule(baselineMs);
    // Worst case of the finalists' re-timing (every measurement runs into its timeout), at most a third of the budget.
    const double powerWindowSeconds = std::max(0.0, options.powerWindowSeconds);
    const double finalistReserve =
        std::min(options.budgetSeconds / 3.0,
                 2.0 + (finalists + 1 + double(requested.size())) *
                           (rounds * (rule.timeoutMs + 2.0 * baselineMs) / 1000.0 + powerWindowSeconds));
    const auto searchStart = Clock::now();
    SearchOptions searchOptions = options.search;
    searchOptions.workspaceCapBytes = cap;
    if (searchOptions.clusterShapeIds.empty()) {
        if (env.clusterLaunch)
            for (std::uint16_t g = 0; g < 52; ++g) searchOptions.clusterShapeIds.push_back(g);
        else
            searchOptions.clusterShapeIds = {0};
    }
    searchOptions.batchSize = batchLimit;
    GuidedSearch search(r.algorithms, searchOptions);
    auto secondsLeft = [&]() { return options.budgetSeconds - secondsSince(start) - finalistReserve; };
    auto eligible = [&](const Candidate& c) { return eligibleUnderRule(c, r.rule); };
    double checkSeconds = 0.0;
    std::uint64_t checkCount = 0;
    auto check = [&](const AlgoConfig& config) {
        const auto t0 = Clock::now();
        CheckResult result = backend.check(config);
        checkSeconds += secondsSince(t0);
        ++checkCount;
        return result;
    };
    // While the host checks configurations, the GPU keeps running the baseline, so the next batch starts in the
    // same power state as the last one ended.
    auto beforeChecks = [&](std::size_t proposals) {
        const double perCheckMs = checkCount ? 1000.0 * checkSeconds / double(checkCount) : 0.01;
        const double ms = std::clamp(double(proposals) * perCheckMs, 2.0 * baselineMs, 2000.0);
        try {
            backend.keepBusy(r.candidates[0].raw, cap, int(std::clamp(std::ceil(ms / baselineMs), 1.0, 4000.0)));
        } catch (const std::exception&) {
            // The next batch reports the device's state; keeping busy is only a courtesy.
        }
    };
    r.stats = search.run(
        r.candidates, check,
        [&](std::vector<Candidate>& batch) { evaluateBatch(backend, batch, cap, warmups, samples, false, shas); },
        secondsLeft, eligible, [&](const std::string& line) { say(line); }, beforeChecks);
    r.stats.seconds = secondsSince(searchStart);
    if (r.stats.launchFailures > 0)
        r.errorsAndUnsupported.push_back(
            {"launch failures", false,
             std::to_string(r.stats.launchFailures) +
                 " configurations passed cublasLtMatmulAlgoCheck but failed at launch; each is recorded in "
                 "candidates[].error"});

    // Finalists: the fastest eligible first-pass candidates, re-timed back to back with the baseline.
    std::vector<int> pool;
    for (const auto& c : r.candidates)
        if (c.index != 0 && eligible(c)) pool.push_back(c.index);
    std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) {
        return r.candidates[std::size_t(a)].firstPass->medianMs < r.candidates[std::size_t(b)].firstPass->medianMs;
    });
    if (int(pool.size()) > finalists) pool.resize(std::size_t(finalists));
    std::vector<int> finalistIds{0};
    for (int id : requested)
        if (id != 0 && eligible(r.candidates[std::size_t(id)])) finalistIds.push_back(id);
    for (int id : pool)
        if (!requested.count(id)) finalistIds.push_back(id);
    say("re-timing " + std::to_string(finalistIds.size()) + " finalists (baseline included) back to back, " +
        std::to_string(rounds) + " rounds in alternating order");
    std::map<int, Merged> merged;
    std::set<int> failed;
    for (int round = 0; round < rounds; ++round) {
        std::vector<int> roundOrder = finalistIds;
        if (round % 2) std::reverse(roundOrder.begin(), roundOrder.end());
        for (int id : roundOrder) {
            if (failed.count(id)) continue;
            Candidate& c = r.candidates[std::size_t(id)];
            try {
                auto work = backend.work(c.raw, cap);
                merged[id].add(measure(*work, rule, r.coldL2));
            } catch (const std::exception& e) {
                c.error = std::string("failed while re-timed: ") + e.what();
                failed.insert(id);
            }
        }
    }
    for (auto& [id, m] : merged) {
        if (failed.count(id)) continue;
        computeStatistics(m.all);
        r.candidates[std::size_t(id)].final = toFinal(m.all);
    }
    // Power windows: what each finalist draws and costs in energy and cycles, back to back, in the same order.
    r.powerWindowSeconds = powerWindowSeconds;
    if (powerWindowSeconds > 0) {
        for (int id : finalistIds) {
            Candidate& c = r.candidates[std::size_t(id)];
            if (failed.count(id) || !c.final) continue;
            try {
                c.power = backend.powerWindow(c.raw, cap, powerWindowSeconds, c.final->medianMs);
            } catch (const std::exception& e) {
                c.power = PowerWindow{};
                c.power->error = e.what();
            }
            const PowerWindow& w = *c.power;
            std::ostringstream line;
            line.precision(1);
            line << std::fixed << "power #" << id << ": ";
            if (!w.error.empty()) {
                line << "failed: " << w.error;
            } else {
                line << std::setprecision(3) << w.msPerLaunch << " ms/launch" << std::setprecision(1);
                if (w.meanPowerW > 0) line << ", " << w.meanPowerW << " W";
                if (w.powerLimitW > 0) line << " of " << w.powerLimitW << " W";
                if (w.joulesPerLaunch > 0) line << ", " << std::setprecision(3) << w.joulesPerLaunch << " J/launch";
                if (w.meanSmClockMHz > 0)
                    line << ", " << std::setprecision(0) << w.meanSmClockMHz << " MHz, " << std::setprecision(2)
                         << w.megacyclesPerLaunch << " Mcycles/launch";
                if (w.powerLimited()) line << " (power-limited)";
            }
            say(line.str());
        }
    }
    r.power = summarizePower(r.candidates, 0);
    if (powerWindowSeconds > 0) say("power: " + r.power.note);

    // A power-limited card sets each kernel's clock by its power draw: compare times as they are, not in cycles.
    CompareOptions compareOptions;
    compareOptions.confirmInCycles = !r.power.powerLimited;
    if (merged.count(0) && !failed.count(0)) {
        for (int id : finalistIds) {
            if (id == 0 || failed.count(id) || !merged.count(id)) continue;
            const ComparisonResult cmp = compareMeasurements(merged[id].all, merged[0].all, compareOptions);
            r.candidates[std::size_t(id)].final->verdictVsBaseline = toString(cmp.verdict);
            say("finalist #" + std::to_string(id) + " " + r.candidates[std::size_t(id)].config.describe() + ": " +
                fmt(merged[id].all.medianMs) + " ms vs baseline " + fmt(merged[0].all.medianMs) + " ms -> " +
                toString(cmp.verdict));
        }
    }
    std::ostringstream method;
    method << finalistIds.size() << " finalists (the baseline, requested configs that run with parity, and the "
           << pool.size() << " fastest eligible first-pass candidates), " << rounds
           << " rounds in alternating order; each round one measure() per finalist (warm-up " << rule.warmupSamples
           << ", at least " << rule.minSamples << " samples, noise target " << rule.maxRelNoise
           << "); the rounds' samples merged; verdict by compareMeasurements"
           << (r.power.powerLimited ? " on times alone (the card was power-limited: kernels set their own clocks)"
                                    : " confirmed in clock cycles");
    r.finalistMethod = method.str();

    r.selection = selectCandidate(r.candidates, 0, r.rule);
    say("selected: " + r.selection.reason);

    // Hashes come from host threads; wait for them.
    for (auto& [id, future] : shas) {
        try {
            r.candidates[std::size_t(id)].parity.sha256 = future.get();
        } catch (const std::exception& e) {
            r.candidates[std::size_t(id)].parity.sha256.clear();
            r.errorsAndUnsupported.push_back({"output hash of candidate #" + std::to_string(id), false, e.what()});
        }
    }
    r.wallSeconds = secondsSince(start);
    say("exploration took " + fmt(r.wallSeconds, 1) + " s: " + std::to_string(r.candidates.size()) +
        " candidates timed, " + std::to_string(r.stats.checks) + " configurations checked");
    return r;
}

ReplayOutcome runReplay(GemmBackend& backend, const ReplayPlan& plan, int rounds, const ExploreProgressFn& progress,
                        double powerWindowSeconds) {
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    ReplayOutcome out;
    const GemmEnvironment env = backend.environment();
    out.versionMatches = env.cublasLtVersion == plan.cublasLtVersion;
    if (!out.versionMatches) {
        out.refusal = "the report was made with cuBLASLt " + std::to_string(plan.cublasLtVersion) + " but this machine has " +
                      std::to_string(env.cublasLtVersion) +
                      "; raw cublasLtMatmulAlgo_t bytes only replay with the same cuBLASLt version";
        return out;
    }
    if (const std::string why = backend.unsupportedReason(plan.spec); !why.empty()) {
        out.refusal = why;
        return out;
    }
    say("preparing " + describe(plan.spec) + " with data seed " + std::to_string(plan.dataSeed));
    backend.prepare(plan.spec, plan.dataSeed);
    for (const auto* raw : {&plan.baselineRaw, &plan.selectedRaw}) {
        const CheckResult check = backend.checkRaw(*raw);
        if (!check.ok()) {
            out.refusal = std::string(raw == &plan.baselineRaw ? "baseline" : "selected") +
                          " algorithm no longer passes cublasLtMatmulAlgoCheck (status " +
                          std::to_string(check.apiStatus) + ")";
            return out;
        }
    }
    auto baselineWork = backend.work(plan.baselineRaw, plan.baselineWorkspaceBytes);
    baselineWork->launch();
    backend.checkOutput(true);
    auto selectedWork = backend.work(plan.selectedRaw, plan.selectedWorkspaceBytes);
    selectedWork->launch();
    PendingParity parity = backend.checkOutput(false);
    out.sha256 = parity.sha256.get();
    out.sha256MatchesReport = !plan.selectedSha256.empty() && out.sha256 == plan.selectedSha256;
    say(std::string("selected output SHA-256 ") + out.sha256 + (out.sha256MatchesReport ? " matches" : " differs from") +
        " the report");

    const StoppingRule rule = finalistRule(plan.baselineMedianMs > 0 ? plan.baselineMedianMs : 1.0);
    Merged sel, base;
    for (int round = 0; round < std::max(2, rounds); ++round) {
        if (round % 2 == 0) {
            base.add(measure(*baselineWork, rule, true));
            sel.add(measure(*selectedWork, rule, true));
        } else {
            sel.add(measure(*selectedWork, rule, true));
            base.add(measure(*baselineWork, rule, true));
        }
    }
    computeStatistics(sel.all);
    computeStatistics(base.all);
    out.selected = toFinal(sel.all);
    out.baseline = toFinal(base.all);
    out.gainPercent = 100.0 * (base.all.medianMs - sel.all.medianMs) / base.all.medianMs;
    // As in the exploration: on a power-limited card the verdict compares times alone.
    CompareOptions compareOptions;
    if (powerWindowSeconds > 0) {
        try {
            out.baselinePower = backend.powerWindow(plan.baselineRaw, plan.baselineWorkspaceBytes, powerWindowSeconds,
                                                    base.all.medianMs);
            compareOptions.confirmInCycles = !out.baselinePower->powerLimited();
        } catch (const std::exception& e) {
            out.baselinePower = PowerWindow{};
            out.baselinePower->error = e.what();
        }
    }
    out.verdict = toString(compareMeasurements(sel.all, base.all, compareOptions).verdict);
    out.selected.verdictVsBaseline = out.verdict;
    return out;
}

}  // namespace tunescope::gemm
