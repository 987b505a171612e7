// Timers, L2 regimes and provenance (issue 22, docs/sweep.md "Timers" and "L2 regimes", docs/formats.md
// "Provenance"), without Qt so that it also runs on GPU nodes:
//   - a scripted device whose event timer adds a config-dependent launch offset to each kernel's duration: the event
//     timer mis-ranks the configs, the duration timer ("cupti") does not, and every record says which timer made it;
//   - the warm regime runs the work's producer before every sample, `both` keeps the regimes apart in records, keys
//     and decisions, and promote refuses to decide over two regimes;
//   - profiles promoted from a scripted or a CPU sweep carry the measuring device's runtime block, keep the old one in
//     runtime_history and still validate; the FLA export states the measured Triton binaries' version;
//   - promote and export-fla refuse a profile whose entries come from two architectures unless told otherwise;
//   - every committed results file still reads, as events (steady_clock on the CPU) and its cold_l2 regime.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/validation.hpp"
#include "tunescope/sweep/promote.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/shard_audit.hpp"
#include "tunescope/sweep/sweep.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;

namespace {

using plain_test::g_failures;
using plain_test::seedProfile;

std::filesystem::path tempDir(const std::string& name) { return plain_test::tempDir("tunescope-timers", name); }

// What a scripted device counts: samples and warm-regime producer runs.
struct Counters {
    long samples = 0, producers = 0, flushes = 0;
};

// One config's kernel: its true duration, and (under the event timer) a launch offset on top, both with a small
// deterministic wobble. The offset is what an event pair brackets besides the kernel (launch gap, queue position).
class ScriptedKernelWork final : public TimedWork {
public:
    ScriptedKernelWork(double kernelMs, double offsetMs, bool events, Counters& counters)
        : kernelMs_(kernelMs), offsetMs_(offsetMs), events_(events), counters_(counters) {}
    void beforeSample(L2Regime regime) override {
        if (regime == L2Regime::Warm) ++counters_.producers;
        if (regime == L2Regime::Cold) ++counters_.flushes;
    }
    double timeSampleMs() override {
        const long n = counters_.samples++;
        const double wobble = 1.0 + 0.0005 * std::sin(0.7 * static_cast<double>(n));
        return kernelMs_ * wobble + (events_ ? offsetMs_ : 0.0);
    }
    std::uint64_t bytesMoved() const override { return 1 << 20; }

private:
    double kernelMs_, offsetMs_;
    bool events_;
    Counters& counters_;
};

// A GPU-like scripted device with two timers: "cupti" (the kernel's own duration) and "events" (duration plus the
// config's launch offset). Its architecture, runtime and driver are what a promoted profile must then name.
class TimerDevice final : public Device {
public:
    using Timing = std::function<double(const L2NormConfig&)>;
    TimerDevice(int index, std::string architecture, Timing kernelMs, Timing offsetMs)
        : kernelMs_(std::move(kernelMs)), offsetMs_(std::move(offsetMs)) {
        info_.backend = "scripted";
        info_.index = index;
        info_.name = "Scripted GPU " + std::to_string(index);
        info_.architecture = std::move(architecture);
        info_.driverVersion = "580.95.05, CUDA driver API 13.0";
        info_.runtimeVersion = "CUDA runtime 13.0";
        info_.warpSize = 32;
    }
    const DeviceInfo& info() const override { return info_; }
    bool supports(const L2NormConfig&, std::string*) const override { return true; }
    void prepareL2Norm(std::int64_t, std::uint64_t) override {}
    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig& c, float) override {
        return std::make_unique<ScriptedKernelWork>(kernelMs_(c), offsetMs_(c), timer_ == kTimerEvents, counters);
    }
    std::unique_ptr<TimedWork> copyWork() override {
        return std::make_unique<ScriptedKernelWork>(0.005, 0.001, timer_ == kTimerEvents, counters);
    }
    void runL2Norm(const L2NormConfig&, std::span<const std::uint16_t>, std::span<std::uint16_t>, std::span<float>,
                   float) override {
        throw Error("", "", "computes nothing");
    }
    std::vector<TimerOption> timers() const override {
        return {{kTimerCupti, true, "the scripted kernel's own duration"},
                {kTimerEvents, true, "the duration plus the config's launch offset"}};
    }
    std::string useTimer(const std::string& name) override { return timer_ = chooseTimer(timers(), name).name; }
    std::string timer() const override { return timer_; }

    Counters counters;

private:
    Timing kernelMs_, offsetMs_;
    DeviceInfo info_;
    std::string timer_ = kTimerEvents;
};

// FLA's 25 configs at num_stages 3. True kernel times rise with BT (8/x is fastest); the launch offset falls with BT
// by more than that, so around events the largest BT looks fastest.
double kernelMsOf(const L2NormConfig& c) { return 0.0100 * (1.0 + 0.004 * std::log2(c.blockRows / 8.0)) + 1e-6 * c.numWarps; }
double offsetMsOf(const L2NormConfig& c) { return 0.0015 - 0.0001 * std::log2(c.blockRows / 8.0); }

SweepPlan smallPlan(const std::vector<int>& nbs) {
    SweepPlan plan;
    plan.backend = "scripted";
    plan.shapes = shapesFromNbList(nbs, 1024);
    plan.grid = gridFromLists({8, 16, 32, 64, 128}, {1, 2, 4, 8, 16}, {3});
    plan.rule.minSamples = 10;
    plan.rule.minTimeMs = 0;
    plan.rule.timeoutMs = 1e9;
    plan.rule.maxSamples = 60;
    plan.measureCopy = false;
    return plan;
}

ResultsFile sweepOn(TimerDevice& device, SweepPlan plan, const std::filesystem::path& out) {
    SweepOptions options;
    options.out = out;
    options.deviceWarmupMs = 0;
    const SweepOutcome outcome = runSweep(plan, {&device}, options);
    CHECK(outcome.failed == 0 && outcome.notRun == 0);
    return loadResults(out);
}

const ResultRecord* fastestAt(const ResultsFile& results, int nb, L2Regime regime = L2Regime::Cold) {
    const auto byShape = l2normRecordsByShape(results);
    for (const auto& [shape, records] : byShape)
        if (shape.nb == nb && shape.l2 == regime) return decideShape(records).fastest;
    return nullptr;
}

// The event timer's launch offset flips the ranking; the duration timer's does not. Records and plans say which.
void eventTimerMisranksDurationTimerDoesNot(const std::filesystem::path& dir) {
    TimerDevice device(0, "sm_90", kernelMsOf, offsetMsOf);
    SweepPlan plan = smallPlan({1, 2});
    plan.timer = kTimerEvents;
    const ResultsFile events = sweepOn(device, plan, dir / "events.jsonl");
    plan.timer = kTimerCupti;
    const ResultsFile cupti = sweepOn(device, plan, dir / "cupti.jsonl");
    for (int nb : {1, 2}) {
        const ResultRecord* byEvents = fastestAt(events, nb);
        const ResultRecord* byDuration = fastestAt(cupti, nb);
        CHECK(byEvents && byEvents->config.blockRows == 128);  // mis-ranked: the smallest offset, not the fastest kernel
        CHECK(byDuration && byDuration->config.blockRows == 8);  // the truly fastest kernel
        CHECK(byDuration && std::abs(byDuration->m.medianMs - kernelMsOf(byDuration->config)) < 1e-3 * byDuration->m.medianMs);
    }
    for (const ResultRecord& r : events.records) CHECK(r.timer == kTimerEvents);
    for (const ResultRecord& r : cupti.records) CHECK(r.timer == kTimerCupti);
    CHECK(!events.header.plan.contains("timer"));  // events is a GPU plan's legacy timer: the plan hashes as before
    CHECK(cupti.header.plan.value("timer", "") == kTimerCupti);
    CHECK(events.header.planHash != cupti.header.planHash);
    // A file of one timer is not resumed with another: its records would not compare.
    SweepOptions options;
    options.out = dir / "events.jsonl";
    options.deviceWarmupMs = 0;
    bool refused = false;
    try {
        runSweep(plan, {&device}, options);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("different sweep plan") != std::string::npos;
    }
    CHECK(refused);
    // One decision never mixes timers.
    std::vector<const ResultRecord*> mixed{&events.records.front(), &cupti.records.front()};
    bool mixRefused = false;
    try {
        decideShape(mixed);
    } catch (const Error& e) {
        mixRefused = std::string(e.what()).find("two timers") != std::string::npos;
    }
    CHECK(mixRefused);
    // "auto" takes the device's first timer; a timer it does not offer is refused before anything runs.
    SweepPlan automatic = smallPlan({1});
    CHECK(resolvePlanTimer(automatic, {&device}).name == kTimerCupti && automatic.timer == kTimerCupti);
    SweepPlan cpuTimer = smallPlan({1});
    cpuTimer.timer = kTimerSteadyClock;
    bool offered = true;
    try {
        resolvePlanTimer(cpuTimer, {&device});
    } catch (const Error& e) {
        offered = std::string(e.what()).find("not offered") == std::string::npos;
    }
    CHECK(!offered);
}

// Warm runs the producer before every sample (cold the flush); `both` measures each item once per regime in the
// same rounds, with keys and decisions of their own, and promote decides one regime at a time.
void bothRegimesStayApart(const std::filesystem::path& dir) {
    TimerDevice probe(0, "gfx942", kernelMsOf, offsetMsOf);
    SweepPlan plan = smallPlan({14, 15});
    plan.timer = kTimerCupti;
    plan.l2Regimes = parseL2Regimes("warm");
    const ResultsFile warmOnly = sweepOn(probe, plan, dir / "warm.jsonl");
    CHECK(probe.counters.producers > 0 && probe.counters.flushes == 0);
    for (const ResultRecord& r : warmOnly.records) CHECK(r.l2 == L2Regime::Warm);

    plan.l2Regimes = parseL2Regimes("both");
    TimerDevice device(0, "gfx942", kernelMsOf, offsetMsOf);
    const ResultsFile both = sweepOn(device, plan, dir / "both.jsonl");
    CHECK(device.counters.producers > 0 && device.counters.flushes > 0);
    std::set<std::string> keys;
    std::map<L2Regime, std::size_t> perRegime;
    for (const ResultRecord& r : both.records) {
        CHECK(keys.insert(recordKey(r)).second);
        ++perRegime[r.l2];
    }
    CHECK(perRegime[L2Regime::Cold] == 2 * 25 && perRegime[L2Regime::Warm] == 2 * 25);
    CHECK(l2normRecordsByShape(both).size() == 4);  // two NBs x two regimes
    CHECK(computeRegret(both, {{14, {8, 1, 3, 1}}}).size() == 2);
    // promote: refused without a regime, per regime with one, and the evidence says which.
    bool refused = false;
    try {
        promote(loadProfile(seedProfile()), both);
    } catch (const PromoteRefused& e) {
        refused = std::string(e.what()).find("--l2") != std::string::npos;
    }
    CHECK(refused);
    PromoteOptions options;
    options.l2 = L2Regime::Warm;
    const PromoteReport warm = promote(loadProfile(seedProfile()), both, options);
    CHECK(warm.promotedCount == 2);
    const Json& evidence = warm.profile.policyFor(14)->evidence->original;
    CHECK(evidence.value("l2", "") == "warm" && evidence.value("cold_l2", true) == false);
    CHECK(evidence.value("timer", "") == kTimerCupti);
    CHECK(warm.profile.runtime.original.value("l2", "") == "warm");
    // The plan and every record round-trip: the file reads back with the same regimes.
    CHECK(planFromHeader(both.header, "both.jsonl").l2Regimes == parseL2Regimes("both"));
}

// A promoted profile says where its entries were measured and keeps where it came from.
void promotedProfileCarriesTheMeasuringRuntime(const std::filesystem::path& dir) {
    TimerDevice device(0, "sm_90", kernelMsOf, offsetMsOf);
    std::vector<int> all;
    for (int nb = 1; nb <= 32; ++nb) all.push_back(nb);
    SweepPlan plan = smallPlan(all);
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    plan.timer = kTimerCupti;
    plan.rounds = 1;
    ResultsFile results = sweepOn(device, plan, dir / "all.jsonl");
    // As if measured with FLA's Triton binaries of Triton 3.6.0 (sweep --kernel triton writes kernel_source so).
    for (ResultRecord& r : results.records)
        r.kernelSource = Json{{"kernel", "triton"}, {"name", "l2norm_fwd_kernel"}, {"triton_version", "3.6.0"}};
    const Profile seed = loadProfile(seedProfile());
    PromoteOptions options;
    options.includeAllBases = true;
    options.flaVersion = "0.5.2";
    options.resultsFileName = "all.jsonl";
    options.resultsSha256 = std::string(64, 'a');
    const PromoteReport report = promote(seed, results, options);
    CHECK(report.promotedCount == 32);
    const RuntimeVersions& runtime = report.profile.runtime;
    CHECK(runtime.gpu_arch == "sm_90");
    CHECK(runtime.cuda && *runtime.cuda == "13.0");
    CHECK(!runtime.hip && !runtime.torch);  // the seed's HIP and torch were not where these entries were measured
    CHECK(runtime.triton == "3.6.0" && runtime.fla == "0.5.2");
    CHECK(runtime.original.value("gpu", "") == "Scripted GPU 0");
    CHECK(runtime.original.value("timer", "") == kTimerCupti && runtime.original.value("l2", "") == "cold");
    CHECK(report.profile.target.find(" | measured on Scripted GPU 0 (sm_90)") != std::string::npos);
    const Json saved = toJson(report.profile);
    CHECK(saved["runtime_history"].size() == 1);
    CHECK(saved["runtime_history"][0]["runtime"].value("gpu_arch", "") == "gfx942");
    CHECK(saved["runtime_history"][0]["runtime"].value("triton", "") == "3.7.1");
    CHECK(saved["runtime_history"][0].value("target", "") == seed.target);
    CHECK(validateProfile(report.profile).valid());
    // Lossless: saved and read again, the history and the new block are all there.
    const Profile reread = parseProfileText(serializeProfile(report.profile), "promoted.json");
    CHECK(toJson(reread) == saved);
    // Promoted again, the history grows and the target is not suffixed twice.
    const PromoteReport again = promote(reread, results, options);
    CHECK(toJson(again.profile)["runtime_history"].size() == 2);
    CHECK(again.profile.target == report.profile.target);
    // The FLA export states the measured Triton version, not the seed's 3.7.1.
    CHECK(flaConfigFromProfile(report.profile).triton_version == "3.6.0");
    const FlaExportResult exported = exportFla(report.profile, dir / "export");
    const Json fla = parseJson(readTextFile(exported.configFile), exported.configFile.string());
    CHECK(fla.value("triton_version", "") == "3.6.0");
}

// The CPU backend's sweep: steady_clock records, a runtime block of the CPU, no CUDA or HIP version.
void cpuSweepCarriesTheCpuRuntime(const std::filesystem::path& dir) {
    std::unique_ptr<Backend> cpu = openBackend("cpu");
    std::unique_ptr<Device> device = cpu->openDevice(0);
    SweepPlan plan;
    plan.backend = "cpu";
    std::vector<int> all;
    for (int nb = 1; nb <= 32; ++nb) all.push_back(nb);
    plan.shapes = shapesFromNbList(all, 16);
    plan.grid = gridFromLists({8}, {1, 2}, {3});
    plan.rule.minSamples = 3;
    plan.rule.minTimeMs = 0;
    plan.rule.maxSamples = 5;
    plan.rounds = 1;
    plan.measureCopy = false;
    plan.l2Regimes = parseL2Regimes("warm");
    SweepOptions options;
    options.out = dir / "cpu.jsonl";
    options.deviceWarmupMs = 0;
    runSweep(plan, {device.get()}, options);
    const ResultsFile results = loadResults(options.out);
    for (const ResultRecord& r : results.records) CHECK(r.timer == kTimerSteadyClock && r.l2 == L2Regime::Warm);
    CHECK(!results.header.plan.contains("timer"));  // steady_clock is the CPU's legacy timer
    PromoteOptions promoteOptions;
    promoteOptions.includeAllBases = true;
    promoteOptions.resultsSha256 = sha256FileHex(options.out);
    const PromoteReport report = promote(loadProfile(seedProfile()), results, promoteOptions);
    CHECK(report.promotedCount == 32);
    CHECK(report.profile.runtime.gpu_arch == device->info().architecture);
    CHECK(!report.profile.runtime.cuda && !report.profile.runtime.hip);
    CHECK(report.profile.runtime.triton == "unknown");  // the stand-in kernel: no Triton measured anything
    CHECK(report.profile.runtime.original.value("timer", "") == kTimerSteadyClock);
    CHECK(report.profile.runtime.original.value("kernel", "").rfind("tunescope-l2norm", 0) == 0);
    const ValidationResult check = validateProfile(report.profile);
    for (const Diagnostic& d : check.diagnostics)
        if (d.severity == Severity::Error) std::cerr << formatDiagnostic(d) << std::endl;
    CHECK(check.valid());
}

// Entries from two architectures: promote and export-fla refuse unless told otherwise, validate warns.
void mixedArchitecturesAreRefused(const std::filesystem::path& dir) {
    TimerDevice h200(0, "sm_90", kernelMsOf, offsetMsOf);
    SweepPlan plan = smallPlan({14, 15});  // prospective NBs only: production's gfx942 choices stay
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    const ResultsFile results = sweepOn(h200, plan, dir / "partial.jsonl");
    bool refused = false;
    try {
        promote(loadProfile(seedProfile()), results);
    } catch (const PromoteRefused& e) {
        const std::string text = e.what();
        refused = text.find("gfx942") != std::string::npos && text.find("sm_90 (NB 14-15)") != std::string::npos;
    }
    CHECK(refused);
    PromoteOptions allow;
    allow.allowMixedArchitectures = true;
    const PromoteReport mixed = promote(loadProfile(seedProfile()), results, allow);
    CHECK(mixed.promotedCount == 2 && !mixed.warnings.empty());
    CHECK(policyArchitectures(mixed.profile).size() == 2);
    // The promoted profile's originals are still gfx942's (the oldest runtime block), though its runtime is sm_90.
    CHECK(policyArchitectures(mixed.profile).at("gfx942").size() > 10);
    CHECK(!validateProfile(mixed.profile).withRule("mixed-architectures").empty());
    bool exportRefused = false;
    try {
        exportFla(mixed.profile, dir / "mixed-export");
    } catch (const Error& e) {
        exportRefused = std::string(e.what()).find("more than one GPU architecture") != std::string::npos;
    }
    CHECK(exportRefused && !std::filesystem::exists(dir / "mixed-export" / "l2norm_fwd_kernel.json"));
    CHECK(std::filesystem::exists(exportFla(mixed.profile, dir / "mixed-export", "", true).configFile));
    // Results measured on two architectures are refused too.
    TimerDevice other(1, "sm_100", kernelMsOf, offsetMsOf);
    SweepPlan two = smallPlan({14, 15});
    two.grid = gridFromLists({8, 32}, {1, 8}, {3});
    SweepOptions options;
    options.out = dir / "two-archs.jsonl";
    options.deviceWarmupMs = 0;
    runSweep(two, {&h200, &other}, options);
    bool twoRefused = false;
    try {
        PromoteOptions all;
        all.includeAllBases = true;
        promote(loadProfile(seedProfile()), loadResults(options.out), all);
    } catch (const PromoteRefused& e) {
        twoRefused = std::string(e.what()).find("more than one GPU architecture") != std::string::npos;
    }
    CHECK(twoRefused);
}

// Files written before timers and regimes were recorded read as events (steady_clock on the CPU) and cold or hot.
void committedResultsStillRead() {
    const char* source = std::getenv("TUNESCOPE_SOURCE_DIR");
    const std::filesystem::path root = source ? source : ".";
    std::size_t files = 0;
    for (const char* name : {"bench/results/h200-run3/sweep.jsonl.gz", "bench/results/h200-run5/sweep.jsonl.gz",
                             "bench/results/h200-run6/sweep.jsonl.gz", "bench/results/h200-run7/sweep.jsonl.gz",
                             "tests/data/formats/confirm-cpu.jsonl"}) {
        const std::filesystem::path file = root / name;
        if (!std::filesystem::exists(file)) continue;
        const ResultsFile results = loadResults(file);
        ++files;
        const bool cold = results.header.plan.value("cold_l2", true);
        for (const ResultRecord& r : results.records) {
            CHECK(r.timer == legacyTimerFor(r.deviceBackend));
            CHECK(r.l2 == (cold ? L2Regime::Cold : L2Regime::Hot));
        }
    }
    CHECK(files == 5);
}

// A line that names an unknown timer or regime, or a regime that contradicts cold_l2, is refused with its member.
void badTimerOrRegimeIsRefused(const std::filesystem::path& dir) {
    TimerDevice device(0, "sm_90", kernelMsOf, offsetMsOf);
    SweepPlan plan = smallPlan({1});
    plan.grid = gridFromLists({8}, {1}, {3});
    plan.rounds = 1;
    sweepOn(device, plan, dir / "good.jsonl");
    const std::string text = readTextFile(dir / "good.jsonl");
    for (const auto& [from, to, member] :
         {std::tuple<std::string, std::string, std::string>{"\"timer\":\"cupti\"", "\"timer\":\"gettimeofday\"", "/timer"},
          {"\"l2\":\"cold\"", "\"l2\":\"lukewarm\"", "/l2"},
          {"\"l2\":\"cold\"", "\"l2\":\"warm\"", "/l2"}}) {
        std::string bad = text;
        const std::size_t at = bad.rfind(from);  // a measurement line, not the header's plan
        CHECK(at != std::string::npos);
        if (at == std::string::npos) continue;
        bad.replace(at, from.size(), to);
        writeFileAtomic(dir / "bad.jsonl", bad);
        bool refused = false;
        try {
            loadResults(dir / "bad.jsonl");
        } catch (const Error& e) {
            refused = std::string(e.what()).find(member) != std::string::npos;
            if (!refused) std::cerr << "unexpected message: " << e.what() << std::endl;
        }
        if (!refused) std::cerr << "not refused: " << to << std::endl;
        CHECK(refused);
    }
}

}  // namespace

int main() {
    const auto dir = tempDir("all");
    const std::vector<std::pair<const char*, std::function<void()>>> cases{
        {"eventTimerMisranksDurationTimerDoesNot", [&] { eventTimerMisranksDurationTimerDoesNot(dir); }},
        {"bothRegimesStayApart", [&] { bothRegimesStayApart(dir); }},
        {"promotedProfileCarriesTheMeasuringRuntime", [&] { promotedProfileCarriesTheMeasuringRuntime(dir); }},
        {"cpuSweepCarriesTheCpuRuntime", [&] { cpuSweepCarriesTheCpuRuntime(dir); }},
        {"mixedArchitecturesAreRefused", [&] { mixedArchitecturesAreRefused(dir); }},
        {"committedResultsStillRead", committedResultsStillRead},
        {"badTimerOrRegimeIsRefused", [&] { badTimerOrRegimeIsRefused(dir); }},
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
