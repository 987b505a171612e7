// Decisions that reproduce (docs/sweep.md, "Decisions"), without Qt so that it also runs on GPU nodes: the paired
// comparison over rounds, declared ties, promote on a device whose state wanders or drifts (identical work: nothing
// may be replaced), one device per decision (merge, resume, shards by shape), and the throttle rule.
// Every scenario also checks that it would fool a single-measurement compare(), so that a pass means something.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/sweep/head_to_head.hpp"
#include "tunescope/sweep/promote.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/sweep.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;

namespace {

using plain_test::g_failures;
using plain_test::seedProfile;

std::filesystem::path tempDir(const std::string& name) { return plain_test::tempDir("tunescope-decisions", name); }

// The state of a simulated device shared by all its works: every sample is the work's true time times a factor.
struct DeviceState {
    std::function<double(long sample, long work)> factor;
    long samples = 0;
    long works = 0;
};

class StateWork final : public TimedWork {
public:
    StateWork(double ms, DeviceState& state) : ms_(ms), state_(state) {}
    void beforeSample(L2Regime) override {}
    double timeSampleMs() override { return ms_ * state_.factor(state_.samples++, work_); }
    std::uint64_t bytesMoved() const override { return 1 << 20; }

private:
    double ms_;
    DeviceState& state_;
    long work_ = state_.works++;
};

// Identical work for every config (an A/A), under a scripted device state.
class StateDevice final : public Device {
public:
    StateDevice(int index, std::function<double(const L2NormConfig&)> timeMs, std::function<double(long, long)> factor)
        : timeMs_(std::move(timeMs)) {
        state_.factor = std::move(factor);
        info_.backend = "scripted";
        info_.index = index;
        info_.name = "Scripted state device " + std::to_string(index);
        // The seed profile's target: its incumbents have standing here (promote keeps a tied incumbent only on the
        // architecture the profile targets; tst_promote covers the other case).
        info_.architecture = "gfx942";
        info_.driverVersion = "test";
        info_.warpSize = 32;
    }
    const DeviceInfo& info() const override { return info_; }
    bool supports(const L2NormConfig&, std::string*) const override { return true; }
    void prepareL2Norm(std::int64_t, std::uint64_t) override {}
    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& c, float) override {
        return std::make_unique<StateWork>(timeMs_(c), state_);
    }
    std::unique_ptr<TimedWork> copyWork() override { return std::make_unique<StateWork>(0.5, state_); }
    void runL2Norm(const L2NormConfig&, std::span<const std::uint16_t>, std::span<std::uint16_t>, std::span<float>,
                   float) override {
        throw Error("", "", "computes nothing");
    }

private:
    std::function<double(const L2NormConfig&)> timeMs_;
    DeviceState state_;
    DeviceInfo info_;
};

// The 18 prospective NBs of the seed profile (14-17, 19-32) over FLA's default grid.
SweepPlan aaPlan(std::uint64_t orderSeed) {
    SweepPlan plan;
    plan.backend = "scripted";
    std::vector<int> nbs{14, 15, 16, 17};
    for (int nb = 19; nb <= 32; ++nb) nbs.push_back(nb);
    plan.shapes = shapesFromNbList(nbs, 1024);
    plan.grid = defaultGrid();
    plan.rule.minSamples = 10;
    plan.rule.minTimeMs = 0;
    plan.rule.timeoutMs = 1e9;
    plan.rule.maxSamples = 200;
    plan.orderSeed = orderSeed;
    const Profile profile = loadProfile(seedProfile());
    for (const SweepShape& s : plan.shapes)
        if (const PolicyEntry* e = profile.policyFor(s.nb)) plan.profileConfigs[s.nb] = toL2NormConfig(e->config);
    return plan;
}

struct AaOutcome {
    std::size_t entries = 0, kept = 0;
    std::size_t singlePassFaster = 0;  // what one measurement per config (the old compare()) would call FASTER
};

Measurement roundAsMeasurement(const ResultRecord& r, int round) {
    Measurement m;
    for (const RoundSummary& s : r.rounds) {
        if (s.round != round) continue;
        m.sampleCount = s.sampleCount;
        m.medianMs = s.medianMs;
        m.ciLowMs = s.ciLowMs;
        m.ciHighMs = s.ciHighMs;
        m.relNoise = (s.ciHighMs - s.ciLowMs) / 2 / s.medianMs;
    }
    return m;
}

AaOutcome runAa(const std::filesystem::path& dir, std::uint64_t seed, std::function<double(long, long)> factor) {
    StateDevice device(0, [](const L2NormConfig&) { return 1.0; }, std::move(factor));
    SweepOptions options;
    options.out = dir / ("aa-" + std::to_string(seed) + ".jsonl");
    options.deviceWarmupMs = 0;
    const SweepPlan plan = aaPlan(seed);
    const SweepOutcome outcome = runSweep(plan, {&device}, options);
    CHECK(outcome.failed == 0);
    const ResultsFile results = loadResults(options.out);
    const PromoteReport report = promote(loadProfile(seedProfile()), results);
    AaOutcome out;
    for (const PromoteEntry& e : report.entries) {
        if (!e.promoted) continue;
        ++out.entries;
        out.kept += e.newConfig == e.oldConfig ? 1 : 0;
    }
    // The old decision: the fastest round-1 measurement against the incumbent's, by compare().
    std::map<int, std::vector<const ResultRecord*>> byNb;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm) byNb[r.nb].push_back(&r);
    for (const auto& [nb, records] : byNb) {
        const ResultRecord* best = nullptr;
        const ResultRecord* incumbent = nullptr;
        for (const ResultRecord* r : records) {
            if (!best || roundAsMeasurement(*r, 0).medianMs < roundAsMeasurement(*best, 0).medianMs) best = r;
            if (r->profileConfig) incumbent = r;
        }
        if (best && incumbent && best != incumbent &&
            compare(roundAsMeasurement(*best, 0), roundAsMeasurement(*incumbent, 0)) == Comparison::Faster)
            ++out.singlePassFaster;
    }
    return out;
}

void pairedComparisonAndQuantiles() {
    CHECK(std::abs(studentQuantile(0.975, 2) - 4.3027) < 1e-3);
    CHECK(std::abs(studentQuantile(0.975, 10) - 2.2281) < 1e-3);
    CHECK(std::abs(studentQuantile(0.5, 7)) < 1e-6);
    PairedOptions options;
    // Three rounds, all 2% faster: FASTER by the range alone.
    PairedComparison c = comparePaired({0.98, 0.981, 0.979}, {1.0, 1.0, 1.0}, options);
    CHECK(c.verdict == Comparison::Faster);
    CHECK(c.roundRatios.size() == 3);
    // One round the other way: the range crosses 1, AMBIGUOUS.
    c = comparePaired({0.98, 1.01, 0.979}, {1.0, 1.0, 1.0}, options);
    CHECK(c.verdict == Comparison::Ambiguous);
    // Rounds missing on one side are left out; none in common: AMBIGUOUS.
    const double nan = std::nan("");
    c = comparePaired({0.9, nan, nan}, {nan, 1.0, 1.0}, options);
    CHECK(c.verdict == Comparison::Ambiguous && c.roundRatios.empty());
    // With the shape's round noise (0.4%) over 75 configs, a consistent 1% gap is not enough: ties.
    options.pooledLogSd = 0.004;
    options.pooledDf = 150;
    options.familySize = 75;
    c = comparePaired({0.99, 0.99, 0.99}, {1.0, 1.0, 1.0}, options);
    CHECK(c.verdict != Comparison::Faster);
    CHECK(c.low < 0.99 && c.high > 0.995);
    // ... and a 3% gap is.
    c = comparePaired({0.97, 0.97, 0.97}, {1.0, 1.0, 1.0}, options);
    CHECK(c.verdict == Comparison::Faster);
    double sd = 0;
    int df = 0;
    CHECK(poolRoundNoise({{1.0, 1.0, 1.0}, {2.0, 2.0}}, &sd, &df) && df == 3 && sd == 0);
    CHECK(!poolRoundNoise({{1.0}, {2.0}}, &sd, &df));
}

// 0.4% SD of device state, redrawn every 40 samples: >= 86 of 90 entries keep the incumbent over 5 seeds.
void wanderingStateKeepsTheIncumbent(const std::filesystem::path& dir) {
    std::size_t entries = 0, kept = 0, singlePass = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        auto states = std::make_shared<std::vector<double>>();
        auto engine = std::make_shared<std::mt19937_64>(seed);
        const auto factor = [states, engine](long sample, long) {
            const std::size_t block = static_cast<std::size_t>(sample / 40);
            std::normal_distribution<double> wander(1.0, 0.004);
            while (states->size() <= block) states->push_back(wander(*engine));
            return (*states)[block];
        };
        const AaOutcome o = runAa(dir, seed, factor);
        entries += o.entries;
        kept += o.kept;
        singlePass += o.singlePassFaster;
    }
    std::cout << "wandering state: kept the incumbent in " << kept << " of " << entries
              << " entries; a single-pass compare() would call FASTER at " << singlePass << "\n";
    CHECK(entries == 90);
    CHECK(kept >= 86);
    CHECK(singlePass >= 10);  // the scenario fools the old decision
}

// A 2% linear drift across each pass over the grid (later items slower): nothing is replaced.
void linearDriftReplacesNothing(const std::filesystem::path& dir) {
    const long worksPerPass = static_cast<long>(defaultGrid().size()) + 1;  // + the copy ceiling
    const auto factor = [worksPerPass](long, long work) {
        return 1.0 + 0.02 * static_cast<double>(work % worksPerPass) / static_cast<double>(worksPerPass);
    };
    const AaOutcome o = runAa(dir, 7, factor);
    std::cout << "linear drift: kept the incumbent in " << o.kept << " of " << o.entries
              << " entries; a single-pass compare() would call FASTER at " << o.singlePassFaster << "\n";
    CHECK(o.entries == 18);
    CHECK(o.kept == o.entries);
    CHECK(o.singlePassFaster >= 5);
}

// A clearly faster config replaces the incumbent; the evidence says so, with the rounds and their ratios.
void replacedEntryEvidence(const std::filesystem::path& dir) {
    StateDevice device(0, [](const L2NormConfig& c) { return c == L2NormConfig{8, 1, 3, 1} ? 0.90 : 1.0; },
                       [](long, long) { return 1.0; });
    SweepPlan plan = aaPlan(3);
    plan.shapes = shapesFromNbList({14, 15}, 1024);
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    SweepOptions options;
    options.out = dir / "faster.jsonl";
    options.deviceWarmupMs = 0;
    std::size_t streamed = 0;
    options.recordWritten = [&](const ResultRecord& r) { streamed += r.rounds.empty() ? 0 : 1; };
    const SweepOutcome outcome = runSweep(plan, {&device}, options);
    CHECK(streamed == outcome.measured && streamed == 2 * 5);  // final records only, one per item
    PromoteOptions promoteOptions;
    promoteOptions.resultsSha256 = sha256FileHex(options.out);
    const PromoteReport report = promote(loadProfile(seedProfile()), loadResults(options.out), promoteOptions);
    bool sawReplaced = false;
    for (const PromoteEntry& e : report.entries) {
        if (e.nb != 14) continue;
        sawReplaced = true;
        CHECK(!e.keptIncumbent && e.bestVsIncumbent == Comparison::Faster);
        CHECK(toL2NormConfig(e.newConfig) == (L2NormConfig{8, 1, 3, 1}));
        CHECK(e.roundRatios.size() == 3);
        const Json& evidence = report.profile.policyFor(14)->evidence->original;
        CHECK(evidence.value("decision", "").rfind("replaced the incumbent", 0) == 0);
        CHECK(evidence.value("rounds", 0) == 3);
        CHECK(evidence["fastest_vs_incumbent_round_ratios"].size() == 3);
        CHECK(evidence.value("results_sha256", "") == promoteOptions.resultsSha256);
        CHECK(evidence.value("device_identity", "") == "Scripted state device 0|gfx942|test");
        CHECK(evidence["tie_set"].size() == 1);
    }
    CHECK(sawReplaced);
}

// Shards split by shape, do not merge across devices without the flag, and resume refuses another device.
void oneDevicePerDecision(const std::filesystem::path& dir) {
    SweepPlan plan = aaPlan(5);
    plan.shapes = shapesFromNbList({14, 15, 16}, 1024);
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    for (int i = 0; i < 2; ++i) {
        SweepPlan shard = plan;
        shard.shard = {i, 2};
        std::set<std::size_t> shapes;
        for (const SweepItem& item : planItems(shard)) shapes.insert(item.shapeIndex);
        for (std::size_t s = 0; s < plan.shapes.size(); ++s) CHECK(shapes.count(s) == (static_cast<int>(s % 2) == i));
    }
    const auto same = [](const L2NormConfig&) { return 1.0; };
    const auto flat = [](long, long) { return 1.0; };
    StateDevice first(0, same, flat), second(1, same, flat);
    std::vector<std::filesystem::path> shards;
    for (int i = 0; i < 2; ++i) {
        SweepPlan shard = plan;
        shard.shard = {i, 2};
        SweepOptions options;
        options.out = dir / ("shard" + std::to_string(i) + ".jsonl");
        options.deviceWarmupMs = 0;
        runSweep(shard, {i == 0 ? &first : &second}, options);
        shards.push_back(options.out);
    }
    bool refused = false;
    try {
        mergeResults(shards, dir / "merged.jsonl");
    } catch (const MergeConflict& e) {
        refused = std::string(e.what()).find("--allow-mixed-devices") != std::string::npos;
    }
    CHECK(refused);
    CHECK(!std::filesystem::exists(dir / "merged.jsonl"));
    MergeOptions mixed;
    mixed.allowMixedDevices = true;
    const MergeReport report = mergeResults(shards, dir / "merged.jsonl", mixed);
    CHECK(report.copyDuplicatesDropped == 0);  // shards by shape never measure one copy ceiling twice
    CHECK(report.measurements == 3 * 5);

    // Resume on another device is refused.
    SweepPlan shard = plan;
    shard.shard = {0, 2};
    SweepOptions options;
    options.out = shards[0];
    options.deviceWarmupMs = 0;
    bool resumeRefused = false;
    try {
        runSweep(shard, {&second}, options);
    } catch (const Error& e) {
        resumeRefused = std::string(e.what()).find("other devices") != std::string::npos;
    }
    CHECK(resumeRefused);
}

// A kill while a shape's block was written: resume cuts that shape's lines out and measures it again.
void resumeRedoesAnIncompleteShape(const std::filesystem::path& dir) {
    StateDevice device(0, [](const L2NormConfig&) { return 1.0; }, [](long, long) { return 1.0; });
    SweepPlan plan = aaPlan(9);
    plan.shapes = shapesFromNbList({14, 15}, 1024);
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    SweepOptions options;
    options.out = dir / "killed.jsonl";
    options.deviceWarmupMs = 0;
    runSweep(plan, {&device}, options);
    std::ifstream in(options.out, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string full = buffer.str();
    // Keep the header, the first shape (5 lines: copy + 4 configs) and two and a half lines of the second.
    std::size_t cut = 0;
    for (int line = 0; line < 1 + 5 + 2; ++line) cut = full.find('\n', cut) + 1;
    cut += (full.find('\n', cut) - cut) / 2;
    { std::ofstream(options.out, std::ios::binary | std::ios::trunc) << full.substr(0, cut); }
    const SweepOutcome outcome = runSweep(plan, {&device}, options);
    CHECK(outcome.resumed == 5);
    CHECK(outcome.measured == 5);
    const ResultsFile results = loadResults(options.out);
    std::set<std::string> keys;
    for (const ResultRecord& r : results.records) CHECK(keys.insert(recordKey(r)).second);
    CHECK(results.records.size() == 10);
    CHECK(!results.truncatedTail);
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm) CHECK(r.rounds.size() == 3);
}

// A file resumed on another device (here under --allow-mixed-devices) lists that device in its header before its
// records are written: the reader takes records only from the header's devices (issue 25).
void resumeOnAnotherDeviceJoinsTheHeader(const std::filesystem::path& dir) {
    StateDevice first(0, [](const L2NormConfig&) { return 1.0; }, [](long, long) { return 1.0; });
    StateDevice second(1, [](const L2NormConfig&) { return 1.0; }, [](long, long) { return 1.0; });
    SweepPlan plan = aaPlan(9);
    plan.shapes = shapesFromNbList({14, 15}, 1024);
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    SweepOptions options;
    options.out = dir / "two-devices.jsonl";
    options.deviceWarmupMs = 0;
    options.onlyShapes = std::set<std::size_t>{0};
    runSweep(plan, {&first}, options);
    CHECK(loadResults(options.out).header.devices.size() == 1);
    options.onlyShapes.reset();
    options.allowMixedDevices = true;
    const SweepOutcome outcome = runSweep(plan, {&second}, options);
    CHECK(outcome.resumed == 5 && outcome.measured == 5);
    const ResultsFile results = loadResults(options.out);
    CHECK(results.header.devices.size() == 2 && results.header.devices[1].index == 1);
    std::set<int> indices;
    for (const ResultRecord& r : results.records) indices.insert(r.deviceIndex);
    CHECK(indices == std::set<int>({0, 1}));
    CHECK(results.records.size() == 10);
}

// Samples under a thermal event or a clock dip are dropped from the statistics, counted and kept; a sustained
// software power cap alone drops nothing.
void throttleRule() {
    Measurement m;
    m.samplesMs = {1.0, 1.0, 1.0, 1.0, 5.0, 5.0};
    m.smClockMHz = {1980, 1980, 1980, 1980, 1980, 1700};
    m.clockEventReasons = {0x4, 0x4, 0x4, 0x4, 0x4 | 0x20, 0x4};
    computeStatistics(m, 1980);
    CHECK(m.sampleCount == 6);
    CHECK(m.throttledCount == 2);
    CHECK(m.powerCapCount == 6);
    CHECK(m.medianMs == 1.0 && m.maxMs == 1.0);
    CHECK(m.throttled[4] == 1 && m.throttled[5] == 1 && m.throttled[0] == 0);
    // Every sample under the cap, none dipping: all kept.
    Measurement capped;
    capped.samplesMs = {1.0, 2.0, 3.0};
    capped.smClockMHz = {1900, 1900, 1900};
    capped.clockEventReasons = {0x4, 0x4, 0x4};
    computeStatistics(capped, 1900);
    CHECK(capped.throttledCount == 0 && capped.medianMs == 2.0);
}

// Results keep the rounds, the raced-out marks and the per-sample conditions through a write and a read.
void resultsRoundTrip(const std::filesystem::path& dir) {
    ResultRecord rec;
    rec.nb = 3;
    rec.rows = 3 * 65536;
    rec.deviceBackend = "cuda";
    rec.deviceName = "NVIDIA H200";
    rec.m.samplesMs = {1.0, 1.1, 1.2, 1.3};
    rec.m.smClockMHz = {1980, 1980, 1700, 1980};
    rec.m.memClockMHz = {2619, 2619, 2619, 2619};
    rec.m.powerW = {650.5, 700, 700, 690};
    rec.m.temperatureC = {55, 56, 57, 58};
    rec.m.clockEventReasons = {0, 4, 4, 0};
    computeStatistics(rec.m, 1980);
    RoundSummary r0, r1;
    r0.round = 0;
    r0.sampleCount = 2;
    r0.medianMs = 1.05;
    r1.round = 1;
    r1.position = 4;
    r1.firstSample = 2;
    r1.sampleCount = 2;
    r1.medianMs = 1.25;
    for (RoundSummary* r : {&r0, &r1}) r->p20Ms = r->p80Ms = r->ciLowMs = r->ciHighMs = r->medianMs;
    rec.rounds = {r0, r1};
    rec.racedOut = true;
    // The reader takes a record only from a device of its header and an item of its plan.
    SweepPlan plan;
    plan.shapes = shapesFromNbList({3});
    plan.grid = {rec.config};
    ResultsHeader header;
    header.plan = planToJson(plan);
    header.planHash = "x";
    DeviceInfo device;
    device.backend = rec.deviceBackend;
    device.name = rec.deviceName;
    header.devices = {device};
    const auto file = dir / "roundtrip.jsonl";
    {
        ResultsWriter writer = ResultsWriter::create(file, header);
        writer.append(recordToJson(rec));
    }
    const ResultsFile back = loadResults(file);
    CHECK(back.records.size() == 1);
    const ResultRecord& b = back.records.front();
    CHECK(b.rounds.size() == 2 && b.rounds[1].position == 4 && b.rounds[1].firstSample == 2);
    CHECK(b.racedOut);
    CHECK(b.m.powerW.size() == 4 && b.m.powerW[0] == 650.5);
    CHECK(b.m.clockEventReasons.size() == 4 && b.m.clockEventReasons[1] == 4);
    CHECK(b.m.throttledCount == 1 && b.m.throttled[2] == 1);
    CHECK(roundMedians(b, 3).size() == 3 && roundMedians(b, 3)[1] == 1.25 && std::isnan(roundMedians(b, 3)[2]));
}


// --- head to head (tunescope-cli confirm, docs/sweep.md "Head to head") ---------------------------------------

// Per NB the candidate's and the baseline's configs; at NB 4 both launch the same config.
SweepPlan headToHeadPlan(std::uint64_t orderSeed) {
    SweepPlan plan;
    plan.backend = "scripted";
    plan.shapes = shapesFromNbList({1, 2, 3, 4}, 1024);
    plan.measureCopy = false;
    plan.rounds = 8;
    plan.replicas = 2;
    plan.orderSeed = orderSeed;
    plan.rule.minSamples = 10;
    plan.rule.minTimeMs = 0;
    plan.rule.timeoutMs = 1e9;
    plan.rule.maxSamples = 40;
    plan.rule.maxRelNoise = 0;  // every measurement takes 40 samples: the same work in every round
    plan.profileFile = "candidate.json";
    plan.baselineFile = "baseline.json";
    for (int nb = 1; nb <= 4; ++nb) {
        plan.profileConfigs[nb] = {16, 4, 3, 1};
        plan.baselineConfigs[nb] = nb == 4 ? L2NormConfig{16, 4, 3, 1} : L2NormConfig{8, 2, 3, 1};
    }
    return plan;
}

void headToHeadPlanItems() {
    const SweepPlan plan = headToHeadPlan(1);
    validatePlan(plan);  // no grid: a head-to-head plan measures the two policies alone
    const std::vector<SweepItem> items = planItems(plan);
    CHECK(items.size() == 3 * 4 + 2);  // NB 1-3: two configs x two replicas; NB 4: one config x two replicas
    std::size_t candidates = 0, baselines = 0, both = 0;
    for (const SweepItem& item : items) {
        CHECK(!item.inGrid);
        candidates += item.profileConfig ? 1 : 0;
        baselines += item.baselineConfig ? 1 : 0;
        both += item.profileConfig && item.baselineConfig ? 1 : 0;
        if (item.replica > 0) CHECK(!item.profileConfig && !item.baselineConfig);
    }
    CHECK(candidates == 4 && baselines == 4 && both == 1);
    CHECK(planToJson(plan).contains("baseline"));
    // Ordinary plans keep the members (and so the hashes) they always had.
    CHECK(!planToJson(aaPlan(1)).contains("baseline"));
    SweepPlan noGrid = aaPlan(1);
    noGrid.grid.clear();
    bool refused = false;
    try {
        validatePlan(noGrid);
    } catch (const Error&) {
        refused = true;
    }
    CHECK(refused);
    SweepPlan gap = headToHeadPlan(1);
    gap.baselineConfigs.erase(3);
    refused = false;
    try {
        validatePlan(gap);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("NB 3") != std::string::npos;
    }
    CHECK(refused);
}

// The candidate is truly 2% faster at NB 1, 2% slower at NB 2, the same speed at NB 3 (another config, identical
// time) and the same config at NB 4, on a device whose state wanders by 0.4% (redrawn every 40 samples). Over 5
// order seeds: NB 1 FASTER and NB 2 SLOWER in at least 4, never the other way; NB 3 never FASTER or SLOWER.
void headToHeadJudgesRealGapsOnly(const std::filesystem::path& dir) {
    int faster = 0, slower = 0, wrongWay = 0, identicalCalled = 0, sameConfig = 0, noisy = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        auto states = std::make_shared<std::vector<double>>();
        auto engine = std::make_shared<std::mt19937_64>(100 + seed);
        const auto factor = [states, engine](long sample, long) {
            const std::size_t block = static_cast<std::size_t>(sample / 40);
            std::normal_distribution<double> wander(1.0, 0.004);
            while (states->size() <= block) states->push_back(wander(*engine));
            return (*states)[block];
        };
        // The device cannot see the NB, only the config: NB 1-3 each get their own baseline time through the
        // shape the work was prepared for.
        auto rows = std::make_shared<std::int64_t>(0);
        const auto time = [rows](const L2NormConfig& c) {
            const bool candidate = c == L2NormConfig{16, 4, 3, 1};
            const std::int64_t nb = *rows / 1024;
            if (nb == 1) return candidate ? 0.98 : 1.0;
            if (nb == 2) return candidate ? 1.02 : 1.0;
            return 1.0;
        };
        class ShapeAwareDevice final : public Device {
        public:
            ShapeAwareDevice(std::shared_ptr<std::int64_t> rows, StateDevice& inner) : rows_(std::move(rows)), inner_(inner) {}
            const DeviceInfo& info() const override { return inner_.info(); }
            bool supports(const L2NormConfig& c, std::string* why) const override { return inner_.supports(c, why); }
            void prepareL2Norm(std::int64_t rows, std::uint64_t) override { *rows_ = rows; }
            std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& c, float eps) override {
                return inner_.l2normWork(c, eps);
            }
            std::unique_ptr<TimedWork> copyWork() override { return inner_.copyWork(); }
            void runL2Norm(const L2NormConfig& c, std::span<const std::uint16_t> x, std::span<std::uint16_t> y,
                           std::span<float> r, float eps) override {
                inner_.runL2Norm(c, x, y, r, eps);
            }

        private:
            std::shared_ptr<std::int64_t> rows_;
            StateDevice& inner_;
        };
        StateDevice inner(0, time, factor);
        ShapeAwareDevice device(rows, inner);
        SweepOptions options;
        options.out = dir / ("h2h-" + std::to_string(seed) + ".jsonl");
        options.deviceWarmupMs = 0;
        const SweepOutcome outcome = runSweep(headToHeadPlan(seed), {&device}, options);
        CHECK(outcome.failed == 0 && outcome.racedOut == 0);
        const ResultsFile results = loadResults(options.out);
        const HeadToHeadReport report = judgeHeadToHead(results);
        CHECK(report.rows.size() == 4);
        CHECK(report.candidateFile == "candidate.json" && report.baselineFile == "baseline.json");
        for (const HeadToHeadRow& row : report.rows) {
            CHECK(row.rounds == 8);
            CHECK(row.candidateRecord && row.baselineRecord && row.candidateRecord->nb == row.nb &&
                  row.baselineRecord->baselineConfig && row.candidateRecord->config == row.candidate);
            CHECK(row.controls.size() == (row.nb == 4 ? 1u : 2u));
            noisy += row.verdict == HeadToHeadVerdict::Noisy ? 1 : 0;
            if (row.nb == 1) {
                faster += row.verdict == HeadToHeadVerdict::Faster ? 1 : 0;
                wrongWay += row.verdict == HeadToHeadVerdict::Slower ? 1 : 0;
                CHECK(row.paired.ratio > 0.97 && row.paired.ratio < 0.99);
            } else if (row.nb == 2) {
                slower += row.verdict == HeadToHeadVerdict::Slower ? 1 : 0;
                wrongWay += row.verdict == HeadToHeadVerdict::Faster ? 1 : 0;
            } else if (row.nb == 3) {
                identicalCalled +=
                    row.verdict == HeadToHeadVerdict::Faster || row.verdict == HeadToHeadVerdict::Slower ? 1 : 0;
            } else {
                sameConfig += row.verdict == HeadToHeadVerdict::SameConfig ? 1 : 0;
            }
        }
        CHECK(!report.atLeastAsFast() || report.count(HeadToHeadVerdict::Slower) == 0);
    }
    std::cout << "head to head: 2% faster called FASTER in " << faster << " of 5, 2% slower called SLOWER in " << slower
              << " of 5, wrong way " << wrongWay << ", identical speed called FASTER/SLOWER " << identicalCalled
              << ", NOISY " << noisy << "\n";
    CHECK(faster >= 4 && slower >= 4);
    CHECK(wrongWay == 0 && identicalCalled == 0);
    CHECK(sameConfig == 5);
}

// Buffer placements (docs/sweep.md, "Placements"): on a device where the candidate is 1.2% slower on one placement
// of the buffers and as fast or faster on the others, one placement calls it SLOWER in every run (what run 19's
// confirm and sweep disagreed about at NB 24); rotating three placements over the rounds puts that effect into the
// rounds' spread, so nothing is called SLOWER. Rounds record their placement, the file reads back, and a round
// naming a placement its plan does not have is refused with its pointer.
class PlacementDevice final : public Device {
public:
    PlacementDevice(int kept, std::vector<double> candidateFactor)
        : kept_(kept), candidateFactor_(std::move(candidateFactor)) {
        info_.backend = "scripted";
        info_.name = "Scripted state device 0";
        info_.architecture = "gfx942";
        info_.warpSize = 32;
    }
    const DeviceInfo& info() const override { return info_; }
    bool supports(const L2NormConfig&, std::string*) const override { return true; }
    void prepareL2Norm(std::int64_t, std::uint64_t) override {}
    int setL2NormPlacements(int count) override { return std::min(count, kept_); }
    void useL2NormPlacement(int index) override {
        CHECK(index >= 0 && index < kept_);
        placement_ = index;
        used.insert(index);
    }
    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& c, float) override {
        const double factor = c == L2NormConfig{16, 4, 3, 1} ? candidateFactor_[std::size_t(placement_)] : 1.0;
        return std::make_unique<StateWork>(factor, state_);
    }
    std::unique_ptr<TimedWork> copyWork() override { return std::make_unique<StateWork>(0.5, state_); }
    void runL2Norm(const L2NormConfig&, std::span<const std::uint16_t>, std::span<std::uint16_t>, std::span<float>,
                   float) override {
        throw Error("", "", "computes nothing");
    }
    std::set<int> used;

private:
    int kept_, placement_ = 0;
    std::vector<double> candidateFactor_;
    DeviceState state_{[](long sample, long) { return 1.0 + 0.0005 * double(sample % 7 - 3) / 3.0; }};
    DeviceInfo info_;
};

void placementsCarryWhereTheBuffersLie(const std::filesystem::path& dir) {
    const std::vector<double> candidate{1.012, 0.992, 0.998};  // slower on placement 0 only
    const auto judge = [&](int placements, int kept, const std::string& name) {
        SweepPlan plan = headToHeadPlan(7);
        plan.shapes = shapesFromNbList({1}, 1024);
        plan.rounds = 9;
        plan.placements = placements;
        PlacementDevice device(kept, candidate);
        SweepOptions options;
        options.out = dir / name;
        options.deviceWarmupMs = 0;
        const SweepOutcome outcome = runSweep(plan, {&device}, options);
        CHECK(outcome.failed == 0);
        const ResultsFile results = loadResults(options.out);
        return std::make_pair(judgeHeadToHead(results), results);
    };
    // One placement: the candidate loses on it in every round, and that reads as SLOWER.
    const auto [one, oneFile] = judge(1, 3, "placements-1.jsonl");
    CHECK(one.rows.size() == 1 && one.rows[0].verdict == HeadToHeadVerdict::Slower);
    for (const ResultRecord& r : oneFile.records)
        for (const RoundSummary& s : r.rounds) CHECK(s.placement == -1);
    CHECK(oneFile.header.plan.find("placements") == oneFile.header.plan.end());
    // Three placements over nine rounds: not SLOWER (the interval spans the placements), and A/A stays quiet.
    const auto [three, threeFile] = judge(3, 3, "placements-3.jsonl");
    CHECK(three.rows.size() == 1);
    const HeadToHeadRow& row = three.rows[0];
    CHECK(row.verdict != HeadToHeadVerdict::Slower && row.verdict != HeadToHeadVerdict::Faster &&
          row.verdict != HeadToHeadVerdict::Noisy);
    CHECK(row.paired.ratio > 0.99 && row.paired.ratio < 1.01);
    CHECK(threeFile.header.plan.value("placements", 0) == 3);
    std::size_t rounds = 0;
    for (const ResultRecord& r : threeFile.records)
        for (const RoundSummary& s : r.rounds) {
            CHECK(s.placement == s.round % 3);
            ++rounds;
        }
    CHECK(rounds == 4 * 9);
    // A device that keeps one copy: every round says placement 0, and the candidate's loss shows again.
    const auto [kept, keptFile] = judge(3, 1, "placements-kept-1.jsonl");
    CHECK(kept.rows.size() == 1 && kept.rows[0].verdict == HeadToHeadVerdict::Slower);
    for (const ResultRecord& r : keptFile.records)
        for (const RoundSummary& s : r.rounds) CHECK(s.placement == 0);
    // Impossible records: a placement the plan does not have, and one in a plan of one placement.
    const auto refusedWith = [&](const std::filesystem::path& source, const std::string& from, const std::string& to,
                                 const std::string& expected) {
        std::ifstream in(source);
        std::stringstream text;
        text << in.rdbuf();
        std::string body = text.str();
        const std::size_t at = body.find(from);
        CHECK(at != std::string::npos);
        if (at == std::string::npos) return;
        body.replace(at, from.size(), to);
        const auto edited = dir / ("edited-" + source.filename().string());
        std::ofstream(edited) << body;
        std::string message;
        try {
            (void)loadResults(edited);
        } catch (const Error& e) {
            message = e.what();
        }
        CHECK(message.find(expected) != std::string::npos);
        if (message.find(expected) == std::string::npos) std::cerr << "message: " << message << "\n";
    };
    refusedWith(dir / "placements-3.jsonl", "\"placement\":2", "\"placement\":5",
                "placement: is 5, but the plan's rounds use placements 0 to 2");
    refusedWith(dir / "placements-1.jsonl", "\"position\":", "\"placement\":1,\"position\":",
                "but the file's plan has one buffer placement");
}

// A record for a crafted results file: one config's round medians.
ResultRecord craftedRecord(int nb, const L2NormConfig& config, int replica, const std::vector<double>& rounds) {
    ResultRecord r;
    r.nb = nb;
    r.rows = 1024 * nb;
    r.config = config;
    r.inGrid = false;
    r.replica = replica;
    r.deviceBackend = "scripted";
    r.deviceName = "Scripted state device 0";
    for (std::size_t k = 0; k < rounds.size(); ++k) {
        RoundSummary s;
        s.round = static_cast<int>(k);
        s.sampleCount = 1;
        s.firstSample = static_cast<int>(k);
        s.medianMs = s.p20Ms = s.p80Ms = s.ciLowMs = s.ciHighMs = rounds[k];
        s.stopReason = StopReason::Converged;
        r.rounds.push_back(s);
        r.m.samplesMs.push_back(rounds[k]);
    }
    std::vector<double> sorted = rounds;
    std::sort(sorted.begin(), sorted.end());
    r.m.sampleCount = static_cast<int>(rounds.size());
    r.m.medianMs = sorted[sorted.size() / 2];
    r.m.ciLowMs = sorted.front();
    r.m.ciHighMs = sorted.back();
    return r;
}

// The A/A control: when identical work comes out 3% apart in every round, nothing at that NB is decided (NOISY),
// even though the candidate looks 5% faster; and a plan without a baseline is not judged at all.
void headToHeadNoisyControlDecidesNothing(const std::filesystem::path& dir) {
    SweepPlan plan = headToHeadPlan(1);
    plan.shapes = shapesFromNbList({1}, 1024);
    plan.profileConfigs = {{1, {16, 4, 3, 1}}};
    plan.baselineConfigs = {{1, {8, 2, 3, 1}}};
    ResultsFile file;
    file.path = dir / "crafted-h2h.jsonl";
    file.header.plan = planToJson(plan);
    file.header.planHash = planHash(plan);
    const std::vector<double> one(8, 1.0), fast(8, 0.95), off(8, 1.03);
    file.records.push_back(craftedRecord(1, {16, 4, 3, 1}, 0, fast));
    file.records.back().profileConfig = true;
    file.records.push_back(craftedRecord(1, {16, 4, 3, 1}, 1, fast));
    file.records.push_back(craftedRecord(1, {8, 2, 3, 1}, 0, one));
    file.records.back().baselineConfig = true;
    file.records.push_back(craftedRecord(1, {8, 2, 3, 1}, 1, one));
    HeadToHeadReport report = judgeHeadToHead(file);
    CHECK(report.rows.size() == 1 && report.rows[0].verdict == HeadToHeadVerdict::Faster);
    CHECK(report.atLeastAsFast());
    file.records.back() = craftedRecord(1, {8, 2, 3, 1}, 1, off);  // the baseline's replica disagrees with itself
    report = judgeHeadToHead(file);
    CHECK(report.rows.size() == 1 && report.rows[0].verdict == HeadToHeadVerdict::Noisy);
    CHECK(std::abs(report.rows[0].worstControl - 1.03) < 1e-9);
    CHECK(!report.atLeastAsFast());
    // A missing baseline measurement is NOT MEASURED, never a pass.
    file.records.erase(file.records.begin() + 2, file.records.end());
    report = judgeHeadToHead(file);
    CHECK(report.rows.size() == 1 && report.rows[0].verdict == HeadToHeadVerdict::NotMeasured && !report.atLeastAsFast());
    // An ordinary sweep's file is refused, naming the file and what is missing.
    ResultsFile ordinary;
    ordinary.path = dir / "ordinary.jsonl";
    ordinary.header.plan = planToJson(aaPlan(1));
    ordinary.header.planHash = planHash(aaPlan(1));
    bool refused = false;
    try {
        (void)judgeHeadToHead(ordinary);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("ordinary.jsonl") != std::string::npos &&
                  std::string(e.what()).find("/plan/baseline") != std::string::npos;
    }
    CHECK(refused);
}

// A policy is read from a profile, from FLA's config file, or from a folder holding one (export-fla's output).
void headToHeadReadsEveryPolicyForm(const std::filesystem::path& dir) {
    const PolicyConfigs profile = loadPolicyConfigs(seedProfile());
    CHECK(profile.kind == "profile" && profile.configs.size() == 32);
    const FlaExportResult exported = exportFla(loadProfile(seedProfile()), dir / "exported");
    const PolicyConfigs folder = loadPolicyConfigs(dir / "exported");
    CHECK(folder.kind == "fla-config" && folder.configs == profile.configs);
    CHECK(folder.file == exported.configFile.string() && folder.sha256 == exported.configSha256);
    // Triton's autotune cache (what FLA's own autotune leaves): per NB the config Triton chose; other kernels,
    // head dimensions and all-failed files are not policy.
    const char* testdata = std::getenv("TUNESCOPE_TESTDATA");
    const PolicyConfigs triton =
        loadPolicyConfigs(std::filesystem::path(testdata ? testdata : "tests/data") / "formats" / "triton-cache");
    CHECK(triton.kind == "triton-autotune" && triton.configs.size() == 3);
    CHECK(triton.configs.count(1) && triton.configs.at(1).blockRows == 32 && triton.configs.at(1).numWarps == 8);
    CHECK(triton.configs.count(20) && triton.configs.at(20).blockRows == 64 && triton.configs.at(20).numWarps == 8);
    CHECK(triton.configs.count(14) && !triton.configs.count(25) && !triton.configs.count(3));
    CHECK(triton.sha256.size() == 64);
    std::ofstream(dir / "broken.json") << "{\"autotune_entries\": ";
    bool named = false;
    try {
        (void)loadPolicyConfigs(dir / "broken.json");
    } catch (const Error& e) {
        named = std::string(e.what()).find("broken.json") != std::string::npos;
    }
    CHECK(named);
}

// Queued samples: a planted +5% at every fourth position of 16 (as the H200 showed, BENCHMARKS.md) is found at
// position 3 whatever the configs' own times; without it every position reads 1; one-at-a-time plans report nothing.
void queuePositionEffectFindsAPlantedPattern() {
    const auto records = [](bool planted) {
        std::vector<ResultRecord> out;
        for (int c = 0; c < 3; ++c) {
            ResultRecord r;
            r.nb = 1;
            r.rows = 1024;
            r.config = {8 << c, 4, 3, 1};
            const double base = 0.010 * (c + 1);
            for (int round = 0; round < 2; ++round) {
                RoundSummary s;
                s.round = round;
                s.firstSample = static_cast<int>(r.m.samplesMs.size());
                s.sampleCount = 40;  // two whole batches and a short one: positions restart with each round
                for (int i = 0; i < s.sampleCount; ++i) {
                    const double jitter = 1 + 0.001 * ((i * 7 + c) % 5 - 2);
                    r.m.samplesMs.push_back(base * jitter * (planted && i % 16 % 4 == 3 ? 1.05 : 1.0));
                }
                r.rounds.push_back(s);
            }
            std::vector<double> sorted = r.m.samplesMs;
            std::sort(sorted.begin(), sorted.end());
            r.m.medianMs = sorted[sorted.size() / 2];
            r.m.sampleCount = static_cast<int>(sorted.size());
            out.push_back(r);
        }
        return out;
    };
    const std::vector<ResultRecord> planted = records(true), flat = records(false);
    std::vector<const ResultRecord*> p, f;
    for (const ResultRecord& r : planted) p.push_back(&r);
    for (const ResultRecord& r : flat) f.push_back(&r);
    const QueuePositionEffect found = queuePositionEffect(p, 16);
    CHECK(found.samples == 3 * 2 * 40);
    CHECK(found.ratio.size() == 16);
    CHECK(found.worstPosition % 4 == 3);
    CHECK(std::abs(found.ratio[3] - 1.05) < 0.005 && std::abs(found.ratio[7] - 1.05) < 0.005);
    CHECK(std::abs(found.ratio[0] - 1.0) < 0.005);
    CHECK(found.worst > 0.04 && found.worst < 0.06);
    const QueuePositionEffect none = queuePositionEffect(f, 16);
    CHECK(none.worst < 0.005);
    CHECK(queuePositionEffect(p, 1).worst == 0 && queuePositionEffect(p, 1).worstPosition == -1);
}
}  // namespace

int main() {
    const auto dir = tempDir("all");
    const std::vector<std::pair<const char*, std::function<void()>>> cases{
        {"pairedComparisonAndQuantiles", pairedComparisonAndQuantiles},
        {"throttleRule", throttleRule},
        {"resultsRoundTrip", [&] { resultsRoundTrip(dir); }},
        {"wanderingStateKeepsTheIncumbent", [&] { wanderingStateKeepsTheIncumbent(dir); }},
        {"linearDriftReplacesNothing", [&] { linearDriftReplacesNothing(dir); }},
        {"replacedEntryEvidence", [&] { replacedEntryEvidence(dir); }},
        {"oneDevicePerDecision", [&] { oneDevicePerDecision(dir); }},
        {"resumeRedoesAnIncompleteShape", [&] { resumeRedoesAnIncompleteShape(dir); }},
        {"resumeOnAnotherDeviceJoinsTheHeader", [&] { resumeOnAnotherDeviceJoinsTheHeader(dir); }},
        {"queuePositionEffectFindsAPlantedPattern", queuePositionEffectFindsAPlantedPattern},
        {"headToHeadPlanItems", headToHeadPlanItems},
        {"headToHeadJudgesRealGapsOnly", [&] { headToHeadJudgesRealGapsOnly(dir); }},
        {"headToHeadNoisyControlDecidesNothing", [&] { headToHeadNoisyControlDecidesNothing(dir); }},
        {"headToHeadReadsEveryPolicyForm", [&] { headToHeadReadsEveryPolicyForm(dir); }},
        {"placementsCarryWhereTheBuffersLie", [&] { placementsCarryWhereTheBuffersLie(dir); }},
    };
    for (const auto& [name, run] : cases) {
        const int before = g_failures;
        try {
            run();
        } catch (const std::exception& e) {
            std::cerr << name << ": unexpected exception: " << e.what() << std::endl;
            ++g_failures;
        }
        std::cout << (g_failures == before ? "PASS   " : "FAIL   ") << name << std::endl;
    }
    std::filesystem::remove_all(dir);
    std::cout << (g_failures == 0 ? "all passed" : std::to_string(g_failures) + " checks failed") << std::endl;
    return g_failures == 0 ? 0 : 1;
}
