// The cuBLASLt explorer's driver (runExploration) end to end on the CPU, over a scripted GemmBackend whose kernels
// follow a power model: sustained, a launch takes max(cycles / max clock, energy / power limit); in a burst after
// idle the card boosts and only the cycles count. Measurements are noisy the way the H200's are (BENCHMARKS.md runs
// 7-8, docs/explorer.md): a short first-pass measurement is off by ~3% (the power state of that moment, partly
// shared with its neighbours, partly its own), a 0.5 s block by ~0.4%, and the card drifts slowly (±1.5% over
// tens of seconds of simulated time). Also the plugin loader's refusal of a plugin built for another interface.
#include <QtTest/QtTest>

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <random>
#include <string>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/report.hpp"
#include "tunescope/gemm/gemm_driver.hpp"
#include "tunescope/gemm/gemm_explorer.hpp"

namespace g = tunescope::gemm;
using tunescope::Error;
using tunescope::Json;

namespace {

constexpr double kMaxClockMHz = 1980.0;

// The model's cost of one configuration: clock cycles (millions) and energy (joules) per launch. The energy is
// lowest at the heuristic top (tile 420 / custom 4), the cycles at tile 428 / custom 5: under a power limit the
// heuristic top is the fastest, in bursts (and without a limit) tile 428 / custom 5 is 4% faster.
struct KernelCost {
    double megacycles = 0.0;
    double joules = 0.0;
};

KernelCost costOf(const g::AlgoConfig& c) {
    KernelCost k;
    k.megacycles = 10.8 * (1.0 + 0.004 * std::abs(int(c.tileId) - 428) + 0.01 * std::abs(int(c.customOption) - 5) +
                           (c.clusterShape == 3 ? 0.0 : 0.04) + (c.stagesId == 35 ? 0.0 : 0.03));
    k.joules = 5.80 * (1.0 + 0.006 * std::abs(int(c.tileId) - 420) + 0.015 * std::abs(int(c.customOption) - 4) +
                       (c.clusterShape == 3 ? 0.0 : 0.04) + (c.stagesId == 35 ? 0.0 : 0.03));
    return k;
}

// Issue 23's landscape (H100 run 14, 8192^3: custom option 4 and 5 of one tile, stages and cluster were picked by
// two runs): custom options 4 and 5 of tile 428 cost the same, every other custom option 2% more per step away from
// them, every other tile 3% more per step, stages 36 3% and cluster 2 4% more. On an unlimited card (cycles only).
KernelCost tiedCustomsCost(const g::AlgoConfig& c) {
    const int custom = int(c.customOption);
    const int customSteps = custom < 4 ? 4 - custom : custom > 5 ? custom - 5 : 0;
    KernelCost k;
    k.megacycles = 10.8 * (1.0 + 0.06 * std::abs(int(c.tileId) - 428) + 0.05 * customSteps +
                           (c.clusterShape == 3 ? 0.0 : 0.04) + (c.stagesId == 35 ? 0.0 : 0.03));
    k.joules = 5.8;
    return k;
}

g::AlgoConfig topConfig() { return g::parseAlgoConfigText("algo=66,tile=420,stages=35,custom=4,cluster=3"); }
g::AlgoConfig fewestCyclesConfig() { return g::parseAlgoConfigText("algo=66,tile=428,stages=35,custom=5,cluster=3"); }
g::AlgoConfig alternativeConfig() { return g::parseAlgoConfigText("algo=66,tile=424,stages=35,custom=4,cluster=3"); }

bool validConfig(const g::AlgoConfig& c) {
    return c.algorithmId == 66 && c.splitK == 1 && c.tileId >= 400 && c.tileId <= 440 &&
           (c.clusterShape == 2 || c.clusterShape == 3) && (c.stagesId == 35 || c.stagesId == 36) && c.customOption <= 7 &&
           c.ctaSwizzle == 0 && c.reductionScheme == 0;
}

// The raw 64 bytes carry the config fields, so that work(raw) knows what it runs.
g::RawAlgo encode(const g::AlgoConfig& c) {
    g::RawAlgo raw{};
    const std::uint32_t fields[] = {std::uint32_t(c.algorithmId), c.tileId, c.stagesId, std::uint32_t(c.splitK),
                                    c.reductionScheme, c.customOption, c.ctaSwizzle, c.innerShape, c.clusterShape};
    std::memcpy(raw.data(), fields, sizeof fields);
    return raw;
}

g::AlgoConfig decodeRaw(const g::RawAlgo& raw) {
    std::uint32_t f[9];
    std::memcpy(f, raw.data(), sizeof f);
    g::AlgoConfig c;
    c.algorithmId = int(f[0]);
    c.tileId = f[1];
    c.stagesId = f[2];
    c.splitK = std::int32_t(f[3]);
    c.reductionScheme = f[4];
    c.customOption = f[5];
    c.ctaSwizzle = f[6];
    c.innerShape = std::uint16_t(f[7]);
    c.clusterShape = std::uint16_t(f[8]);
    return c;
}

std::shared_future<std::string> readyHash() {
    std::promise<std::string> promise;
    promise.set_value(std::string(64, 'c'));
    return promise.get_future().share();
}

// How noisy the scripted card is (fractions, standard deviations).
struct Noise {
    double momentError = 0.025;    // a short measurement's power-state error, shared with what runs near it in time
    double momentSeconds = 1.0;    // ... correlation time of that state
    double itemError = 0.015;      // a short measurement's own error (with momentError: ~3% per candidate)
    double blockError = 0.004;     // a 0.5 s block's or a burst's own error
    double launchJitter = 0.002;
    double driftAmplitude = 0.015; // slow drift (sinusoid)
    double driftPeriodSeconds = 40.0;
    // A short measurement now and then caught in a slow moment (H100 run 14: a config timed 1.573 ms in its first
    // pass and ~1.43 ms later): this fraction of first-pass items reads this much slower.
    double outlierFraction = 0.0;
    double outlierFactor = 1.1;
};

class ScriptedGemmBackend;

class ScriptedWork final : public g::GemmWork {
public:
    ScriptedWork(ScriptedGemmBackend& backend, g::AlgoConfig config) : backend_(backend), config_(config) {}
    void launch() override {}
    void beforeSample(tunescope::L2Regime) override {}
    double timeSampleMs() override;
    int lastSmClockMHz() const override;
    std::uint64_t bytesMoved() const override { return 1; }

private:
    ScriptedGemmBackend& backend_;
    g::AlgoConfig config_;
};

class ScriptedGemmBackend final : public g::GemmBackend {
public:
    ScriptedGemmBackend(double powerLimitW, std::uint64_t seed, Noise noise = {})
        : powerLimitW_(powerLimitW), noise_(noise), rng_(seed) {
        phase_ = std::uniform_real_distribution<double>(0.0, 6.283185307)(rng_);
    }

    // alternativeEnergy: the energy of tile 424 / custom 4 relative to the heuristic top (0: the landscape's own),
    // with 2% more cycles, so that only a comparison in time (not in cycles) sees its gain under the limit.
    KernelCost cost(const g::AlgoConfig& c) const {
        if (tiedCustoms) return tiedCustomsCost(c);
        KernelCost k = costOf(c);
        if (alternativeEnergy > 0 && c == alternativeConfig()) {
            const KernelCost top = costOf(topConfig());
            k.joules = alternativeEnergy * top.joules;
            k.megacycles = (alternativeEnergy == 1.0 ? 1.0 : 1.02) * top.megacycles;
        }
        return k;
    }
    // The true time of one launch: sustained (power-limited when the energy bound is higher) or boosted.
    double trueMs(const g::AlgoConfig& c, bool boosted) const {
        const KernelCost k = cost(c);
        const double cyclesBound = k.megacycles / kMaxClockMHz * 1000.0;
        return boosted ? cyclesBound : std::max(cyclesBound, k.joules / powerLimitW_ * 1000.0);
    }
    double clockOf(const g::AlgoConfig& c, double ms) const { return cost(c).megacycles * 1000.0 / ms; }

    // One short measurement's error: the power state of this moment (an Ornstein-Uhlenbeck process in simulated
    // time, so items close in time share most of it) times its own.
    double momentFactor() {
        const double decay = std::exp(-sinceMoment_ / noise_.momentSeconds);
        moment_ = moment_ * decay + std::sqrt(1.0 - decay * decay) * noise_.momentError * gauss();
        sinceMoment_ = 0.0;
        return 1.0 + moment_;
    }
    double drift() const { return 1.0 + noise_.driftAmplitude * std::sin(6.283185307 * now_ / noise_.driftPeriodSeconds + phase_); }
    double gauss() { return std::normal_distribution<double>(0.0, 1.0)(rng_); }
    // Runs `launches` launches; returns the per-launch times.
    std::vector<double> run(const g::AlgoConfig& c, int launches, bool boosted, double measurementFactor) {
        std::vector<double> times;
        for (int i = 0; i < launches; ++i) {
            const double ms = trueMs(c, boosted) * drift() * measurementFactor * (1.0 + noise_.launchJitter * gauss());
            advance(ms / 1000.0);
            times.push_back(ms);
        }
        return times;
    }
    void advance(double seconds) {
        now_ += seconds;
        sinceMoment_ += seconds;
    }

    g::GemmEnvironment environment() const override {
        g::GemmEnvironment env;
        env.device = "Scripted H200";
        env.ccMajor = 9;
        env.multiprocessors = 132;
        env.l2Bytes = 60ull << 20;
        env.memoryBytes = 141ull << 30;
        env.clockMHz = int(kMaxClockMHz);
        env.cublasLtVersion = 130100;
        env.clusterLaunch = true;
        return env;
    }
    std::string unsupportedReason(const tunescope::GemmSpec&) const override { return {}; }
    void prepare(const tunescope::GemmSpec&, std::uint64_t) override { prepared = true; }
    int rotatingSets() const override { return 1; }
    std::uint64_t rotatingBytes() const override { return 1ull << 30; }

    g::HeuristicSet heuristics(std::uint64_t maxWorkspaceBytes, int requestedCount) override {
        g::HeuristicSet set;
        set.maxWorkspaceBytes = maxWorkspaceBytes;
        set.requestedCount = requestedCount;
        std::vector<g::AlgoConfig> answers;
        for (std::uint32_t tile : {420u, 410u}) {
            answers.push_back(topConfig());
            answers.back().tileId = tile;
        }
        answers.insert(answers.end(), extraHeuristics.begin(), extraHeuristics.end());
        for (const g::AlgoConfig& config : answers) {
            g::HeuristicAlgo h;
            h.config = config;
            h.raw = encode(h.config);
            h.requiredWorkspaceBytes = 4;
            h.waves = 35.9;
            h.capabilities = capabilities(66);
            set.algorithms.push_back(h);
        }
        set.returnedCount = int(set.algorithms.size());
        return set;
    }
    std::vector<int> algorithmIds(int) override { return {66}; }
    g::AlgoCapabilities capabilities(int algorithmId) override {
        g::AlgoCapabilities caps;
        if (algorithmId != 66) {
            caps.error = "no such algorithm";
            return caps;
        }
        caps.read = true;
        caps.splitKSupport = 1;
        caps.reductionSchemeMask = 2;
        caps.customOptionMax = 7;
        for (std::uint32_t t = 396; t <= 444; ++t) caps.tileIds.push_back(t);
        caps.stagesIds = {35, 36};
        return caps;
    }
    g::CheckResult check(const g::AlgoConfig& config) override {
        g::CheckResult r;
        if (!validConfig(config)) {
            r.apiStatus = 15;
            r.failedCall = "cublasLtMatmulAlgoCheck";
            return r;
        }
        r.requiredWorkspaceBytes = 4;
        r.waves = 35.9;
        r.raw = encode(config);
        return r;
    }
    g::CheckResult checkRaw(const g::RawAlgo& raw) override { return check(decodeRaw(raw)); }
    g::AlgoConfig decode(const g::RawAlgo& raw) override { return decodeRaw(raw); }
    std::unique_ptr<g::GemmWork> work(const g::RawAlgo& raw, std::uint64_t) override {
        return std::make_unique<ScriptedWork>(*this, decodeRaw(raw));
    }
    g::PendingParity checkOutput(bool) override {
        g::PendingParity p;
        p.parity.checked = true;
        p.parity.bitwiseEqualToBaseline = true;
        p.parity.maxRelError = 1.9e-3;
        p.sha256 = readyHash();
        return p;
    }
    std::vector<FirstPassResult> firstPass(const std::vector<FirstPassItem>& items) override {
        std::vector<FirstPassResult> results;
        for (const FirstPassItem& item : items) {
            const g::AlgoConfig c = decodeRaw(item.raw);
            double factor = momentFactor() * (1.0 + noise_.itemError * gauss());
            if (noise_.outlierFraction > 0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < noise_.outlierFraction)
                factor *= noise_.outlierFactor;
            run(c, item.warmups, false, factor);
            FirstPassResult r;
            r.samplesMs = run(c, item.samples, false, factor);
            r.smClockMHz = int(clockOf(c, r.samplesMs.back()));
            r.parity = checkOutput(item.makeBaseline);
            results.push_back(std::move(r));
        }
        advance(0.002);  // the host's round trip after a batch
        return results;
    }
    int firstPassBatchLimit() const override { return 16; }
    void keepBusy(const g::RawAlgo& raw, std::uint64_t, int launches) override {
        advance(launches * trueMs(decodeRaw(raw), false) / 1000.0);
    }
    std::vector<BlockResult> runBlocks(const std::vector<Block>& blocks) override {
        std::vector<BlockResult> results;
        // A sustained confirm run starts with the top's preheat block; its rounds hold the top twice (the top and
        // the A/A control), in a shuffled order that odd rounds reverse, so within a pair of rounds the one entry
        // is second, then first. Per pair, bit k of this run's skewPairMasks entry set slows that entry (else the
        // other): the mask that matches the shuffles slows the same entry throughout and the A/A control fails.
        const bool confirmRun = blocks.size() > 3 && blocks[0].launches == 1 && blocks[0].idleBeforeSeconds == 0.0 &&
                                decodeRaw(blocks[0].raw) == topConfig();
        const int thisConfirmRun = confirmRun ? confirmRuns_++ : -1;
        const bool skew = confirmRun && (skewOnlyConfirmRun >= 0 ? thisConfirmRun == skewOnlyConfirmRun
                                                                 : skewedRuns_ < skewAaConfirmRuns);
        const std::size_t maskIndex = skewOnlyConfirmRun >= 0 ? 0 : std::size_t(skewedRuns_);
        const unsigned pairMask = skew && maskIndex < skewPairMasks.size() ? skewPairMasks[maskIndex] : 0u;
        if (skew) ++skewedRuns_;
        int topBlocks = 0;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const Block& block = blocks[b];
            const g::AlgoConfig c = decodeRaw(block.raw);
            ++blocksRun;
            double skewFactor = 1.0;
            if (skew && b > 0 && c == topConfig()) {
                const int round = topBlocks / 2, position = topBlocks % 2;
                const bool secondOfEvenRound = (pairMask >> (round / 2)) & 1u;
                if (position == ((round % 2 == 0) == secondOfEvenRound ? 1 : 0)) skewFactor = aaSkewFactor;
                ++topBlocks;
            }
            BlockResult r;
            if (failBlocksOfTile == c.tileId) {
                r.error = "cublasLtMatmul failed: CUBLAS_STATUS_EXECUTION_FAILED";
                results.push_back(r);
                continue;
            }
            advance(block.idleBeforeSeconds);
            // After a second of idle the card boosts for a short burst; otherwise it is in its sustained state.
            const bool boosted = block.idleBeforeSeconds >= 1.0;
            const double factor = (1.0 + noise_.blockError * gauss()) * skewFactor;
            run(c, block.warmups, boosted, factor);
            std::vector<double> times = run(c, std::max(1, block.launches), boosted, factor);
            double sum = 0.0;
            for (double t : times) sum += t;
            std::sort(times.begin(), times.end());
            r.launches = int(times.size());
            r.medianMsPerLaunch = times[times.size() / 2];
            r.meanMsPerLaunch = sum / double(times.size());
            r.seconds = sum / 1000.0;
            r.joulesPerLaunch = cost(c).joules * (1.0 + 0.002 * gauss());
            r.meanPowerReadingW = r.joulesPerLaunch / r.meanMsPerLaunch * 1000.0;
            r.powerLimitW = powerLimitW_;
            r.meanSmClockMHz = clockOf(c, r.meanMsPerLaunch);
            const bool capped = !boosted && r.meanPowerReadingW >= 0.99 * powerLimitW_;
            r.readings = std::max(1, int(r.seconds * 100));
            r.powerCapReadings = capped ? r.readings : 0;
            r.clockEventReasons = capped ? 0x4 : 0;
            results.push_back(r);
        }
        return results;
    }

    bool prepared = false;
    double alternativeEnergy = 0.0;
    bool tiedCustoms = false;  // the landscape of tiedCustomsCost instead of costOf
    std::vector<g::AlgoConfig> extraHeuristics;  // cuBLASLt's answers after the two of tile 420 and 410
    int skewAaConfirmRuns = 0;                   // this many sustained confirm runs get a skewed top entry
    std::vector<unsigned> skewPairMasks;         // ... which one, per run and pair of rounds (see runBlocks)
    int skewOnlyConfirmRun = -1;                 // >= 0: skew this confirm run only (0-based; the verification is
                                                 // the last), with skewPairMasks[0]
    int confirmRunsSeen() const { return confirmRuns_; }
    double aaSkewFactor = 1.03;                  // how much the skewed entry is slowed
    int blocksRun = 0;
    std::uint32_t failBlocksOfTile = 0;

private:
    double powerLimitW_;
    Noise noise_;
    std::mt19937_64 rng_;
    double phase_ = 0.0;
    double now_ = 0.0;
    double moment_ = 0.0;
    double sinceMoment_ = 1e9;
    int skewedRuns_ = 0;
    int confirmRuns_ = 0;
};

double ScriptedWork::timeSampleMs() { return backend_.run(config_, 1, false, 1.0).front(); }
int ScriptedWork::lastSmClockMHz() const { return int(backend_.clockOf(config_, backend_.trueMs(config_, false))); }

g::ExploreOptions seedShapeOptions() {
    g::ExploreOptions options;
    options.spec.m = 37824;
    options.spec.mLogical = 37810;
    options.spec.n = 5376;
    options.spec.k = 14336;
    options.budgetSeconds = 60.0;
    return options;
}

g::PairedGain gainOf(double gainPercent, double lowPercent, double highPercent) {
    g::PairedGain gain;
    gain.rounds = 8;
    gain.gainPercent = gainPercent;
    gain.lowPercent = lowPercent;
    gain.highPercent = highPercent;
    return gain;
}

const g::Candidate& byConfig(const g::ExplorationResult& r, const g::AlgoConfig& config) {
    for (const g::Candidate& c : r.candidates)
        if (c.config == config) return c;
    throw Error("", "", "no candidate " + config.describe());
}

}  // namespace

class TestGemmDriver : public QObject {
    Q_OBJECT

private slots:
    void powerLimitedCardKeepsTheHeuristicTop() {
        ScriptedGemmBackend backend(700.0, 1);
        g::ExploreOptions options = seedShapeOptions();
        // The config with the fewest cycles is always a finalist, so it is confirmed and its power is measured.
        options.requestedConfigs.push_back(fewestCyclesConfig());
        std::vector<std::string> progress;
        const g::ExplorationResult r = g::runExploration(backend, options, [&](const std::string& l) { progress.push_back(l); });
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        QVERIFY(backend.prepared);
        QCOMPARE(r.baselineIndex, 0);
        QCOMPARE(r.candidates[0].config, topConfig());
        QVERIFY(r.stats.timed > 100);  // the search went well beyond the heuristics

        // The screen ran over the shortlist, the sibling step over the finalists' siblings (those not in the screen
        // get their score from its passes); the finalists were confirmed with power read per block.
        int screened = 0, siblingsScreened = 0, finalists = 0;
        const std::vector<int>& retimed = r.siblings.retimed;
        for (const auto& c : r.candidates) {
            const bool sibling = std::find(retimed.begin(), retimed.end(), c.index) != retimed.end();
            (sibling ? siblingsScreened : screened) += bool(c.screen);
            if (c.index != 0 && c.sustained) ++finalists;
            QCOMPARE(bool(c.power), bool(c.sustained));
            if (c.screen) QCOMPARE(int(c.screen->ratios.size()), 3);  // the first pass and two screen passes, or 3 passes
        }
        QVERIFY(!r.siblings.of.empty());
        QVERIFY(screened <= options.screenCandidates + 1 && screened + siblingsScreened >= options.screenCandidates + 1);
        QVERIFY(int(r.siblings.finalists.size()) <= options.siblingFinalists);
        QVERIFY(finalists >= 2 && finalists <= options.finalists + 1 + int(r.siblings.finalists.size()));
        QVERIFY(r.aaSustained && r.aaSustained->vsTop.rounds == options.confirm.rounds);
        QVERIFY(r.aaBurst && r.aaBurst->vsTop.rounds == options.confirm.burstRounds);
        const g::PowerWindow& base = *r.candidates[0].power;
        QVERIFY(base.powerLimited());
        QVERIFY(std::fabs(base.meanPowerW - 700.0) < 15.0);

        // Under the limit nothing beats the heuristic top: it stays, and the report says by how much the best
        // alternative lost, with its interval.
        QCOMPARE(r.selection.candidateIndex, 0);
        QVERIFY(!r.selection.leftBaseline);
        QVERIFY(!r.selection.tooNoisy);
        QVERIFY(r.selection.bestAlternative > 0);
        QVERIFY2(r.selection.reason.find("does not clear") != std::string::npos, r.selection.reason.c_str());
        QVERIFY(r.power.measured);
        QVERIFY(r.power.powerLimited);
        // The fewest-cycles config: ~6% slower sustained (more energy), ~4% faster in bursts after idle.
        const g::Candidate& fewest = byConfig(r, fewestCyclesConfig());
        QVERIFY(fewest.sustained);
        QVERIFY2(fewest.sustained->vsTop.highPercent < -4.0, std::to_string(fewest.sustained->vsTop.gainPercent).c_str());
        QVERIFY(fewest.power->joulesPerLaunch > base.joulesPerLaunch);
        QVERIFY(r.power.note.find("power-limited") != std::string::npos);
        bool saidPower = false;
        for (const auto& line : progress) saidPower |= line.rfind("power #0: ", 0) == 0 && line.find(" W of 700.0 W") != std::string::npos;
        QVERIFY(saidPower);

        // The report carries the screen, the confirm rounds, the A/A control and the power, and loads through the
        // report model.
        const Json report = g::buildExplorerReport(r);
        QVERIFY(report["power_state"]["power_limited"].get<bool>());
        QCOMPARE(report["power_state"]["power_limit_w"].get<double>(), 700.0);
        QCOMPARE(report["candidates"][0]["power"]["clock_event_reason_names"][0].get<std::string>(),
                 std::string("sw_power_cap"));
        QCOMPARE(report["confirm"]["aa_control"]["sustained"]["ms_per_round"].size(), std::size_t(options.confirm.rounds));
        QVERIFY(report["confirm"]["aa_control"]["sustained"]["vs_top"]["interval_95_percent"].is_array());
        QCOMPARE(report["confirm"]["best_alternative_index"].get<int>(), r.selection.bestAlternative);
        QVERIFY(report["confirm"]["best_alternative"]["raw_algo_hex"].is_string());
        const Json& fewestJson = report["candidates"][std::size_t(fewest.index)];
        QCOMPARE(fewestJson["confirm"]["sustained"]["top_ms_per_round"].size(), std::size_t(options.confirm.rounds));
        QVERIFY(fewestJson["screen"]["score"].is_number());
        QVERIFY(report["selected"]["improvement_interval_95_percent"].is_null());  // the top itself
        const tunescope::CublasLtReport model = tunescope::parseReportText(tunescope::dumpJson(report), "x.json");
        QVERIFY(model.selected);
    }

    // CI acceptance (issue 12): with a ~3% first-pass error per candidate, a config that uses 5% less energy
    // (and 2% more cycles) is selected in at least 36 of 40 seeds, and nothing else is ever selected.
    void fivePercentLessEnergyIsSelectedAcrossSeeds() {
        int selected = 0, covered = 0;
        std::vector<std::string> misses;
        double gainSum = 0.0;
        for (std::uint64_t seed = 1; seed <= 40; ++seed) {
            ScriptedGemmBackend backend(700.0, seed);
            backend.alternativeEnergy = 0.95;
            g::ExploreOptions options = seedShapeOptions();
            options.dataSeed = seed;
            const g::ExplorationResult r = g::runExploration(backend, options);
            QVERIFY2(r.failure.empty(), r.failure.c_str());
            if (r.selection.leftBaseline) {
                const g::Candidate& c = r.candidates[std::size_t(r.selection.candidateIndex)];
                QVERIFY2(c.config == alternativeConfig(), ("seed " + std::to_string(seed) + " selected " +
                                                           c.config.describe()).c_str());
                // Near the true gain (1 - 0.95 = 5%); the 95% interval holds it in most seeds.
                QVERIFY2(r.selection.lowPercent > 1.0 && std::fabs(r.selection.gainPercent - 5.0) < 1.0,
                         r.selection.reason.c_str());
                covered += r.selection.lowPercent <= 5.0 && r.selection.highPercent >= 5.0;
                gainSum += r.selection.gainPercent;
                ++selected;
            } else {
                misses.push_back("seed " + std::to_string(seed) + ": " + r.selection.reason);
            }
        }
        for (const auto& m : misses) qInfo("%s", m.c_str());
        qInfo("selected in %d of 40 seeds, mean gain %.2f%%, interval holds 5%% in %d", selected,
              selected ? gainSum / selected : 0.0, covered);
        QVERIFY2(selected >= 36, std::to_string(selected).c_str());
        QVERIFY2(covered >= selected * 8 / 10, std::to_string(covered).c_str());
        QVERIFY(std::fabs(gainSum / selected - 5.0) < 0.5);
    }

    // CI acceptance: an alternative with no real difference (same energy and cycles as the top) is never selected.
    void noRealDifferenceSelectsNothingAcrossSeeds() {
        int tooNoisy = 0;
        for (std::uint64_t seed = 101; seed <= 140; ++seed) {
            ScriptedGemmBackend backend(700.0, seed);
            backend.alternativeEnergy = 1.0;
            g::ExploreOptions options = seedShapeOptions();
            options.dataSeed = seed;
            options.requestedConfigs.push_back(alternativeConfig());  // always confirmed
            const g::ExplorationResult r = g::runExploration(backend, options);
            QVERIFY2(r.failure.empty(), r.failure.c_str());
            QVERIFY2(!r.selection.leftBaseline, ("seed " + std::to_string(seed) + ": " + r.selection.reason).c_str());
            QCOMPARE(r.selection.candidateIndex, 0);
            const g::Candidate& same = byConfig(r, alternativeConfig());
            QVERIFY(same.sustained && same.sustained->vsTop.valid());
            QVERIFY2(std::fabs(same.sustained->vsTop.gainPercent) < 1.0, r.selection.reason.c_str());
            tooNoisy += r.selection.tooNoisy;
        }
        QVERIFY(tooNoisy <= 2);
    }

    // The sequential confirm (issue 12): a real 1.5% gain (1.5% less energy on a power-limited card) often leaves
    // the 6-round interval straddling the 1% threshold. The straddling finalist gets 12 more rounds with the top
    // and the A/A control, and is judged on all 18: more seeds decide it, and none selects anything else.
    void sequentialConfirmDecidesBorderlineGains() {
        int selectedWith = 0, selectedWithout = 0, extendedRuns = 0;
        double gainSum = 0.0, selectedOnSum = 0.0;
        for (std::uint64_t seed = 301; seed <= 320; ++seed) {
            for (int extra : {12, 0}) {
                ScriptedGemmBackend backend(700.0, seed);
                backend.alternativeEnergy = 0.985;
                g::ExploreOptions options = seedShapeOptions();
                options.dataSeed = seed;
                options.requestedConfigs.push_back(alternativeConfig());
                options.confirm.extraRounds = extra;
                const g::ExplorationResult r = g::runExploration(backend, options);
                QVERIFY2(r.failure.empty(), r.failure.c_str());
                const g::Candidate& alt = byConfig(r, alternativeConfig());
                QVERIFY(alt.sustained && alt.sustained->vsTop.valid());
                const bool extended = std::find(r.extendedSustained.begin(), r.extendedSustained.end(), alt.index) !=
                                      r.extendedSustained.end();
                if (extra == 0) QVERIFY(r.extendedSustained.empty());
                if (extended) {
                    ++extendedRuns;
                    // Judged on all its rounds, paired with the top's, and the A/A control on as many.
                    QCOMPARE(alt.sustained->msPerRound.size(), std::size_t(6 + 12));
                    QCOMPARE(alt.sustained->vsTop.rounds, 18);
                    QVERIFY(r.aaSustained);
                    QCOMPARE(r.aaSustained->msPerRound.size(), std::size_t(18));
                }
                if (r.selection.leftBaseline) {
                    QVERIFY2(r.candidates[std::size_t(r.selection.candidateIndex)].config == alternativeConfig(),
                             r.selection.reason.c_str());
                    QVERIFY2(std::fabs(r.selection.gainPercent - 1.5) < 0.7, r.selection.reason.c_str());
                    // Selected on rounds whose interval cleared 1%; reported from the verification's fresh rounds.
                    QVERIFY(r.selection.verified);
                    QVERIFY(r.selection.selectedOnLowPercent > 1.0);
                    QVERIFY(r.selection.lowPercent > 0.0);
                    QVERIFY(r.verification && r.verification->vsTop.rounds == 8);
                    QCOMPARE(r.selection.gainPercent, r.verification->vsTop.gainPercent);
                    if (extra > 0) {
                        gainSum += r.selection.gainPercent;
                        selectedOnSum += r.selection.selectedOnGainPercent;
                    }
                }
                (extra > 0 ? selectedWith : selectedWithout) += r.selection.leftBaseline;
            }
        }
        qInfo("1.5%% gain: selected in %d of 20 seeds with the sequential step (%d extended), %d without; mean "
              "reported (verified) gain %.2f%%, mean gain of the rounds it was selected on %.2f%%", selectedWith,
              extendedRuns, selectedWithout, selectedWith ? gainSum / selectedWith : 0.0,
              selectedWith ? selectedOnSum / selectedWith : 0.0);
        QVERIFY2(extendedRuns >= 5, std::to_string(extendedRuns).c_str());
        QVERIFY2(selectedWith > selectedWithout, (std::to_string(selectedWith) + " vs " + std::to_string(selectedWithout)).c_str());
    }

    void swingingCardWidensTheIntervals() {
        // A card whose speed swings by 5% every 3 s (about one confirm round): the randomised ABBA rounds turn the
        // swing into round-to-round noise that the intervals show, instead of a bias between positions, so an
        // alternative with no real difference is (almost) never selected and the A/A interval widens.
        Noise swinging;
        swinging.driftAmplitude = 0.05;
        swinging.driftPeriodSeconds = 3.0;
        int selected = 0;
        double aaWidth = 0.0;
        for (std::uint64_t seed = 201; seed <= 210; ++seed) {
            ScriptedGemmBackend backend(700.0, seed, swinging);
            backend.alternativeEnergy = 1.0;
            g::ExploreOptions options = seedShapeOptions();
            options.requestedConfigs.push_back(alternativeConfig());
            const g::ExplorationResult r = g::runExploration(backend, options);
            selected += r.selection.leftBaseline;
            QVERIFY(r.aaSustained);
            aaWidth += (r.aaSustained->vsTop.highPercent - r.aaSustained->vsTop.lowPercent) / 10.0;
        }
        qInfo("selected in %d of 10 seeds, mean A/A interval width %.2f pp", selected, aaWidth);
        QVERIFY2(selected <= 1, std::to_string(selected).c_str());
        QVERIFY2(aaWidth > 1.5, std::to_string(aaWidth).c_str());
    }

    void burstRegimeSelectsTheFewestCycles() {
        // Under the limit the fewest-cycles config loses sustained and wins in bursts after idle: the default
        // (sustained) keeps the top, --regime burst selects it; both regimes are reported either way.
        for (g::Regime regime : {g::Regime::Sustained, g::Regime::Burst}) {
            ScriptedGemmBackend backend(700.0, 7);
            g::ExploreOptions options = seedShapeOptions();
            options.rule.regime = regime;
            options.requestedConfigs.push_back(fewestCyclesConfig());
            const g::ExplorationResult r = g::runExploration(backend, options);
            QVERIFY2(r.failure.empty(), r.failure.c_str());
            const g::Candidate& fewest = byConfig(r, fewestCyclesConfig());
            QVERIFY(fewest.sustained && fewest.sustained->vsTop.highPercent < 0);
            if (regime == g::Regime::Sustained) {
                QVERIFY(!r.selection.leftBaseline);
                continue;
            }
            QVERIFY(fewest.burst && fewest.burst->vsTop.valid());
            QVERIFY2(r.selection.leftBaseline, r.selection.reason.c_str());
            QCOMPARE(r.candidates[std::size_t(r.selection.candidateIndex)].config, fewestCyclesConfig());
            QVERIFY2(r.selection.gainPercent > 3.0 && r.selection.gainPercent < 5.0, r.selection.reason.c_str());
            QVERIFY(r.selection.regime == g::Regime::Burst);
            QVERIFY(r.aaBurst && r.aaBurst->vsTop.valid());
            const Json report = g::buildExplorerReport(r);
            QCOMPARE(report["selected"]["regime"].get<std::string>(), std::string("burst"));
            QVERIFY(report["selected"]["sustained"]["gain_percent"].get<double>() < 0);
            QVERIFY(report["selected"]["burst"]["gain_percent"].get<double>() > 3.0);
        }
    }

    void replayUsesTheConfirmStage() {
        ScriptedGemmBackend backend(700.0, 3);
        backend.alternativeEnergy = 0.95;
        const g::ExplorationResult r = g::runExploration(backend, seedShapeOptions());
        QVERIFY2(r.selection.leftBaseline, r.selection.reason.c_str());
        const g::ReplayPlan plan = g::replayPlanFromReport(g::buildExplorerReport(r), "explore.json");
        QVERIFY(plan.reportedInterval);
        QCOMPARE(plan.reportedLowPercent, r.selection.lowPercent);
        const int before = backend.blocksRun;
        const g::ReplayOutcome replay = g::runReplay(backend, plan, g::ConfirmSettings{});
        QVERIFY2(replay.refusal.empty(), replay.refusal.c_str());
        // Top, selection and A/A in 6 sustained rounds (after the preheat block) and 4 burst rounds.
        QCOMPARE(backend.blocksRun - before, 1 + 3 * 6 + 3 * 4);
        QCOMPARE(replay.verdict, std::string("FASTER"));
        QVERIFY(replay.sustained && replay.sustained->vsTop.lowPercent > 3.0 && replay.sustained->vsTop.highPercent < 7.0);
        QVERIFY(replay.aaSustained && replay.aaSustained->vsTop.containsZero99());
        // In bursts after idle the 2% extra cycles show: slower there.
        QVERIFY(replay.burst && replay.burst->vsTop.highPercent < 0);
        QVERIFY(replay.baselinePower && replay.baselinePower->powerLimited());
    }

    void unlimitedCardSelectsTheFewestCycles() {
        ScriptedGemmBackend backend(100000.0, 5);
        const g::ExplorationResult r = g::runExploration(backend, seedShapeOptions());
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        QVERIFY2(r.selection.leftBaseline, r.selection.reason.c_str());
        const g::Candidate& selected = r.candidates[std::size_t(r.selection.candidateIndex)];
        // Configurations up to about 1% costlier (custom 4: exactly 1% more cycles) are not shown faster or slower
        // than it by more than the 1% threshold: they tie with the fewest-cycles config, and the lowest configuration
        // of the tie set that cleared the threshold is selected (kTieRule). What the tie rule may give up is bounded
        // by the threshold plus what the rounds cannot resolve.
        const std::vector<int>& ties = r.selection.tieSet;
        QVERIFY(std::any_of(ties.begin(), ties.end(), [&](int i) {
            return r.candidates[std::size_t(i)].config == fewestCyclesConfig();
        }));
        QVERIFY(std::find(ties.begin(), ties.end(), r.selection.candidateIndex) != ties.end());
        QVERIFY(costOf(selected.config).megacycles < 1.015 * costOf(fewestCyclesConfig()).megacycles);
        for (int i : ties) {
            const g::Candidate& c = r.candidates[std::size_t(i)];
            if (c.sustained && c.sustained->vsTop.lowPercent > r.selection.requiredGainPercent)
                QVERIFY(!(c.config < selected.config));
        }
        QCOMPARE(selected.final->verdictVsBaseline, std::string("FASTER"));
        QVERIFY2(r.selection.lowPercent > 2.5 && r.selection.highPercent < 5.5, r.selection.reason.c_str());
        QVERIFY(r.power.measured);
        QVERIFY(!r.power.powerLimited);
        QVERIFY(r.power.note.find("not power-limited") != std::string::npos);
    }

    // Issue 23: two runs of one shape whose searches timed different neighbours must not pick different members of
    // a tie. Custom options 4 and 5 of tile 428 cost the same (tiedCustomsCost), and one first-pass item in 10 reads
    // 10% slow (H100 run 14: custom option 4 read 1.573 ms in its first pass against ~1.43): the run whose first
    // pass of one option was slow does not screen it among the best, so without the sibling step two runs confirm
    // different members and pick differently (14 of 40 pairs). With it the finalists' siblings are re-timed and
    // the tied option is confirmed too (75 of 80 runs, 51 without), and the picks are equal or each in the other's
    // tie set in all but 3 of 40 pairs: in two the tied option's median read more than 3% above the best finalist's
    // in the sibling passes (one slow ratio of three), in one no finalist had the tied options' stages and cluster,
    // which siblings do not change.
    void siblingFinalistsMakeTiesRepeatAcrossRuns() {
        const g::AlgoConfig four = g::parseAlgoConfigText("algo=66,tile=428,stages=35,custom=4,cluster=3");
        const g::AlgoConfig five = g::parseAlgoConfigText("algo=66,tile=428,stages=35,custom=5,cluster=3");
        Noise noise;
        noise.outlierFraction = 0.1;
        noise.outlierFactor = 1.1;
        auto explore = [&](std::uint64_t seed, int siblings) {
            ScriptedGemmBackend backend(100000.0, seed, noise);
            backend.tiedCustoms = true;
            g::ExploreOptions options = seedShapeOptions();
            options.dataSeed = seed;
            options.siblingFinalists = siblings;
            return g::runExploration(backend, options);
        };
        auto pick = [](const g::ExplorationResult& r) { return r.candidates[std::size_t(r.selection.candidateIndex)].config; };
        auto inTies = [](const g::ExplorationResult& r, const g::AlgoConfig& config) {
            return std::any_of(r.selection.tieSet.begin(), r.selection.tieSet.end(),
                               [&](int i) { return r.candidates[std::size_t(i)].config == config; });
        };
        auto agree = [&](const g::ExplorationResult& a, const g::ExplorationResult& b) {
            return pick(a) == pick(b) || (inTies(a, pick(b)) && inTies(b, pick(a)));
        };
        auto confirmed = [](const g::ExplorationResult& r, const g::AlgoConfig& config) {
            return std::any_of(r.candidates.begin(), r.candidates.end(),
                               [&](const g::Candidate& c) { return c.config == config && c.sustained; });
        };
        constexpr int kPairs = 40;
        int disagreeWithout = 0, disagreeWith = 0, bothConfirmedWith = 0, bothConfirmedWithout = 0, undecided = 0;
        for (int pair = 0; pair < kPairs; ++pair) {
            for (int siblings : {0, 3}) {
                const g::ExplorationResult a = explore(1001 + 2 * std::uint64_t(pair), siblings);
                const g::ExplorationResult b = explore(1002 + 2 * std::uint64_t(pair), siblings);
                bool decided = true;
                for (const g::ExplorationResult* r : {&a, &b}) {
                    QVERIFY2(r->failure.empty(), r->failure.c_str());
                    decided = decided && r->selection.leftBaseline;
                    (siblings > 0 ? bothConfirmedWith : bothConfirmedWithout) += confirmed(*r, four) && confirmed(*r, five);
                    if (siblings == 0) {
                        QVERIFY(r->siblings.of.empty() && r->siblings.retimed.empty());
                        continue;
                    }
                    // The step ran on the screened finalists; its new candidates say whose siblings they are, and
                    // its finalists were confirmed.
                    QVERIFY(!r->siblings.of.empty() && r->siblings.best >= 0);
                    QVERIFY(r->siblings.bestRatios.size() == std::size_t(r->screenPasses + 1));
                    for (int id : r->siblings.added)
                        QVERIFY2(r->candidates[std::size_t(id)].source.rfind("sibling of #", 0) == 0,
                                 r->candidates[std::size_t(id)].source.c_str());
                    for (int id : r->siblings.finalists) QVERIFY(r->candidates[std::size_t(id)].sustained);
                    QVERIFY(r->finalistMethod.find("siblings: the ") != std::string::npos);
                }
                if (!decided) {  // the A/A control failed at 99% (about 1 run in 100): no pick to compare
                    ++undecided;
                    continue;
                }
                const bool same = agree(a, b);
                if (!same)
                    qInfo("pair %d, %d siblings: %s vs %s (tie sets of %d and %d)", pair, siblings,
                          pick(a).describe().c_str(), pick(b).describe().c_str(), int(a.selection.tieSet.size()),
                          int(b.selection.tieSet.size()));
                (siblings > 0 ? disagreeWith : disagreeWithout) += !same;
            }
        }
        qInfo("%d pairs: picks disagree in %d without siblings, %d with; both tied options confirmed in %d of %d runs "
              "without siblings, %d with; %d pairs undecided", kPairs, disagreeWithout, disagreeWith, bothConfirmedWithout,
              2 * kPairs, bothConfirmedWith, undecided);
        QVERIFY2(disagreeWithout >= 8, "the landscape must make runs without siblings disagree");
        QVERIFY2(disagreeWith <= 4 && 3 * disagreeWith < disagreeWithout, std::to_string(disagreeWith).c_str());
        QVERIFY2(bothConfirmedWith >= 70 && bothConfirmedWith > bothConfirmedWithout + 15,
                 std::to_string(bothConfirmedWith).c_str());
        QVERIFY(undecided <= 3);
    }

    // A failed A/A control (H100 run 17: +0.92%, 99% interval [0.19, 1.66], against finalists at +2.2..+3.5%)
    // sends the confirm stage round again; the decision is the fresh rounds', the failed control is reported; when
    // it fails every time, the heuristic top stays and is in the tie set of the finalists it cannot be told from.
    void failedAaControlIsMeasuredAgain() {
        std::vector<unsigned> masks{0, 0};
        auto explore = [&](int skewedRuns, int retries) {
            ScriptedGemmBackend backend(100000.0, 5);  // unlimited: the fewest-cycles config is ~4% faster
            backend.skewAaConfirmRuns = skewedRuns;
            backend.skewPairMasks = masks;
            g::ExploreOptions options = seedShapeOptions();
            options.aaRetries = retries;
            return g::runExploration(backend, options);
        };
        const g::ExplorationResult clean = explore(0, 1);
        QVERIFY2(clean.selection.leftBaseline && !clean.selection.tooNoisy, clean.selection.reason.c_str());
        QVERIFY(clean.discardedAaControls.empty());

        // The backend cannot tell the top from its A/A copy; of the 8 masks over the 3 pairs of rounds, the one
        // matching the shuffles and its complement slow one entry throughout. Find them for the first confirm run,
        // then for the retry's (fresh shuffles).
        auto findMask = [&](std::size_t run, int skewedRuns, int retries) {
            int failing = 0;
            unsigned found = 8;
            for (unsigned m = 0; m < 8; ++m) {
                masks[run] = m;
                const g::ExplorationResult r = explore(skewedRuns, retries);
                if (int(r.discardedAaControls.size()) + int(r.selection.tooNoisy) < skewedRuns) continue;
                ++failing;
                if (found == 8) found = m;
            }
            masks[run] = found;
            return failing;
        };
        const int failingFirst = findMask(0, 1, 0);
        QVERIFY2(failingFirst >= 2, std::to_string(failingFirst).c_str());
        const int failingRetry = findMask(1, 2, 1);
        QVERIFY2(failingRetry >= 2, std::to_string(failingRetry).c_str());
        const g::ExplorationResult retried = explore(1, 1);
        QCOMPARE(retried.discardedAaControls.size(), std::size_t(1));
        const g::PairedGain& failed = retried.discardedAaControls[0].vsTop;
        QVERIFY2(!failed.containsZero99() && std::fabs(failed.gainPercent) > 2.0, std::to_string(failed.gainPercent).c_str());
        QVERIFY(retried.aaSustained && retried.aaSustained->vsTop.containsZero99());
        QVERIFY2(retried.selection.leftBaseline && !retried.selection.tooNoisy, retried.selection.reason.c_str());
        // What the fresh rounds pick is one of the configs within the tie threshold of the fewest cycles.
        const g::AlgoConfig& pick = retried.candidates[std::size_t(retried.selection.candidateIndex)].config;
        QVERIFY2(costOf(pick).megacycles < 1.015 * costOf(fewestCyclesConfig()).megacycles, pick.describe().c_str());
        const Json report = g::buildExplorerReport(retried);
        QCOMPARE(report["confirm"]["discarded_aa_controls"].size(), std::size_t(1));
        QVERIFY(!report["confirm"]["too_noisy"].get<bool>());

        for (const auto& [skewed, retries] : {std::pair{1, 0}, std::pair{2, 1}}) {
            const g::ExplorationResult noisy = explore(skewed, retries);
            QCOMPARE(int(noisy.discardedAaControls.size()), retries);
            QVERIFY2(noisy.selection.tooNoisy && !noisy.selection.leftBaseline, noisy.selection.reason.c_str());
            QCOMPARE(noisy.selection.candidateIndex, 0);
            QVERIFY(noisy.selection.topInTieSet);
            const std::vector<int>& ties = noisy.selection.tieSet;
            QVERIFY(ties.size() >= 2 && std::find(ties.begin(), ties.end(), 0) != ties.end());
            const Json ties_json = g::buildExplorerReport(noisy)["selected"]["ties"];
            QVERIFY(ties_json.is_object());
            QCOMPARE(ties_json["picked_candidate_index"].get<int>(), 0);
            bool topMember = false;
            for (const Json& m : ties_json["members"]) topMember |= m.value("heuristic_top", false);
            QVERIFY(topMember);
        }
    }

    // A verification that fails on its A/A control alone (H100 run 18, 8192^3: +2.40% [1.05, 3.73] against an A/A
    // control of -1.60%, and the top stayed) is measured again in fresh rounds; the discarded one is reported.
    void verificationFailedOnItsAaControlIsMeasuredAgain() {
        QVERIFY(g::verificationFailedOnAaControl(gainOf(2.4, 1.05, 3.73), gainOf(-1.6, -3.0, -0.2)));
        QVERIFY(!g::verificationFailedOnAaControl(gainOf(2.4, 1.7, 3.1), gainOf(-1.6, -3.0, -0.2)));  // it passes
        QVERIFY(!g::verificationFailedOnAaControl(gainOf(0.5, -0.4, 1.4), gainOf(0.1, -0.5, 0.7)));   // no gain
        QVERIFY(!g::verificationFailedOnAaControl(gainOf(2.4, 1.05, 3.73), g::PairedGain{}));         // no control

        // The verification is the last sustained confirm-like run (the top's preheat first). Slowing one of its
        // two top entries by 6% throughout (the mask that matches its shuffles) fails its A/A control and only that.
        int verificationRun = -1;
        auto explore = [&verificationRun](unsigned mask, int retries) {
            ScriptedGemmBackend backend(100000.0, 5);
            backend.skewOnlyConfirmRun = verificationRun;
            backend.skewPairMasks = {mask};
            backend.aaSkewFactor = 1.06;
            g::ExploreOptions options = seedShapeOptions();
            options.aaRetries = retries;
            g::ExplorationResult r = g::runExploration(backend, options);
            if (verificationRun < 0) verificationRun = backend.confirmRunsSeen() - 1;
            return r;
        };
        const g::ExplorationResult clean = explore(0, 1);
        QVERIFY2(clean.selection.verified, clean.selection.reason.c_str());
        QVERIFY(verificationRun >= 1);
        int found = -1;
        for (unsigned mask = 0; mask < 16 && found < 0; ++mask) {
            const g::ExplorationResult without = explore(mask, 0);
            if (without.selection.verificationRan && !without.selection.verified && without.verification &&
                g::verificationFailedOnAaControl(without.verification->vsTop, without.verificationAa->vsTop))
                found = int(mask);
        }
        QVERIFY2(found >= 0, "no mask failed the verification on its A/A control");
        const g::ExplorationResult without = explore(unsigned(found), 0);
        QVERIFY(!without.selection.leftBaseline);  // the top stayed
        QVERIFY(without.discardedVerifications.empty());
        const g::ExplorationResult retried = explore(unsigned(found), 1);
        QCOMPARE(retried.discardedVerifications.size(), std::size_t(1));
        QVERIFY2(retried.selection.verified && retried.selection.leftBaseline, retried.selection.reason.c_str());
        QCOMPARE(retried.selection.candidateIndex, without.selection.verificationCandidate);
        const Json report = g::buildExplorerReport(retried);
        const Json& discarded = report["confirm"]["verification"]["discarded"];
        QCOMPARE(discarded.size(), std::size_t(1));
        QVERIFY(std::fabs(discarded[0]["aa_control"]["gain_percent"].get<double>()) > 2.0);
        QVERIFY(report["confirm"]["verification"]["verified"].get<bool>());
    }

    // cuBLASLt's first answers after the top are finalists whenever they screen faster than the top, whatever the
    // screen ranks best: every run confirms them (H100 run 17: two runs of 8192^3 confirmed disjoint tiles).
    void heuristicAnswersAreFinalists() {
        const g::AlgoConfig answer = g::parseAlgoConfigText("algo=66,tile=427,stages=35,custom=5,cluster=3");
        int confirmedWith = 0, confirmedWithout = 0;
        constexpr int kRuns = 8;
        for (int run = 0; run < kRuns; ++run)
            for (int heuristicFinalists : {0, 3}) {
                ScriptedGemmBackend backend(100000.0, 300 + std::uint64_t(run));
                backend.extraHeuristics = {answer};
                g::ExploreOptions options = seedShapeOptions();
                options.dataSeed = 300 + std::uint64_t(run);
                options.finalists = 1;  // the screen's best only, so that the answer is rarely its pick
                options.siblingFinalists = 0;
                options.heuristicFinalists = heuristicFinalists;
                const g::ExplorationResult r = g::runExploration(backend, options);
                QVERIFY2(r.failure.empty(), r.failure.c_str());
                const g::Candidate& c = byConfig(r, answer);
                QVERIFY2(c.source.rfind("heuristic", 0) == 0, c.source.c_str());
                const bool confirmed = bool(c.sustained);
                (heuristicFinalists > 0 ? confirmedWith : confirmedWithout) += confirmed;
                const bool listed = std::find(r.heuristicFinalists.begin(), r.heuristicFinalists.end(), c.index) !=
                                    r.heuristicFinalists.end();
                if (heuristicFinalists == 0) QVERIFY(r.heuristicFinalists.empty());
                // Listed exactly when it screened faster than the top and the screen did not pick it itself.
                if (listed) QVERIFY(confirmed && c.screen && c.screen->score < 1.0);
                if (heuristicFinalists > 0 && c.screen && c.screen->score < 1.0) QVERIFY(confirmed);
                const Json report = g::buildExplorerReport(r);
                QCOMPARE(report["confirm"]["heuristic_finalists"].size(), r.heuristicFinalists.size());
            }
        qInfo("tile 427 custom 5 (cuBLASLt's third answer) confirmed in %d of %d runs as a heuristic finalist, %d "
              "without", confirmedWith, kRuns, confirmedWithout);
        QCOMPARE(confirmedWith, kRuns);
        QVERIFY2(confirmedWithout < kRuns, std::to_string(confirmedWithout).c_str());
    }

    void failingFinalistIsRecordedAndTheRestStands() {
        ScriptedGemmBackend backend(700.0, 9);
        backend.failBlocksOfTile = 428;
        g::ExploreOptions options = seedShapeOptions();
        options.requestedConfigs.push_back(fewestCyclesConfig());
        const g::ExplorationResult r = g::runExploration(backend, options);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        const g::Candidate& failed = byConfig(r, fewestCyclesConfig());
        QVERIFY(failed.error.find("failed while confirmed: cublasLtMatmul failed") == 0);
        QVERIFY(!failed.sustained);
        QVERIFY(r.aaSustained);
        QCOMPARE(r.selection.candidateIndex, 0);
        const Json report = g::buildExplorerReport(r);
        QVERIFY(report["candidates"][std::size_t(failed.index)]["error"].is_string());
    }

    void clockEventReasonsAreNamed() {
        QCOMPARE(g::clockEventReasonNames(0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
        QCOMPARE(g::clockEventReasonNames(0x1000), (std::vector<std::string>{"other_0x1000"}));
        QVERIFY(g::clockEventReasonNames(0).empty());
        g::PowerWindow w;
        w.meanPowerW = 690.0;
        w.powerLimitW = 700.0;
        QVERIFY(w.powerLimited());  // within 3% of the limit
        w.meanPowerW = 600.0;
        QVERIFY(!w.powerLimited());
        w.readings = 10;
        w.powerCapReadings = 5;
        QVERIFY(w.powerLimited());  // the reason bit in half the readings
    }

    void theTimerIsChosenAndRecorded() {
        // The scripted backend offers events only (GemmBackend's default): auto and events run and the report says
        // which timer timed it; asking for CUPTI stops before anything is timed, naming what is offered.
        for (const char* timer : {"events", "auto"}) {
            ScriptedGemmBackend backend(700.0, 4);
            g::ExploreOptions options = seedShapeOptions();
            options.timer = timer;
            const g::ExplorationResult r = g::runExploration(backend, options);
            QVERIFY2(r.failure.empty(), r.failure.c_str());
            QCOMPARE(r.timer, std::string("events"));
            QCOMPARE(g::buildExplorerReport(r)["workload"]["data"]["timer"].get<std::string>(), std::string("events"));
        }
        ScriptedGemmBackend backend(700.0, 4);
        g::ExploreOptions options = seedShapeOptions();
        options.timer = "cupti";
        const g::ExplorationResult r = g::runExploration(backend, options);
        QVERIFY2(r.failure.find("--timer cupti is not offered by this device (it has: events)") != std::string::npos,
                 r.failure.c_str());
        QCOMPARE(backend.blocksRun, 0);
    }

    void staleExplorerPluginIsRefused() {
        const char* stale = std::getenv("TUNESCOPE_STALE_PLUGIN_DIR");
        QVERIFY2(stale, "TUNESCOPE_STALE_PLUGIN_DIR is set by CMake");
        qputenv("TUNESCOPE_PLUGIN_DIR", QByteArray(stale));
        const g::GemmBackendProbe probe = g::loadGemmBackend("/nonexistent/bin");
        qunsetenv("TUNESCOPE_PLUGIN_DIR");
        QVERIFY(!probe.refused.empty());
        const std::string expected = "built for explorer interface 1, this tunescope needs " +
                                     std::to_string(g::kGemmBackendInterfaceVersion);
        QVERIFY2(probe.refused.front().find(expected) != std::string::npos, probe.refused.front().c_str());
        QVERIFY(probe.refused.front().find(stale) != std::string::npos);
        // The stale plugin was never asked to create a backend (it aborts if it is); any backend found came from a
        // later folder (the build's own plugin), or the reason names the refusal.
        if (!probe.backend) QVERIFY(!probe.reason.empty());
    }
};

QTEST_GUILESS_MAIN(TestGemmDriver)
#include "tst_gemm_driver.moc"
