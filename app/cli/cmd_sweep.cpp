// sweep and confirm: measure every launch config per NB into a results file, or two policies head to head in fresh
// rounds. What becomes of the files (merge, promote, decisions) is in cmd_results.cpp. Exit codes are documented in
// docs/sweep.md.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/triton_binaries.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/sweep/cluster_env.hpp"
#include "tunescope/sweep/head_to_head.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/run_compare.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope::cli {
namespace {

// Exit codes beyond errors.hpp's shared ones.
constexpr int kExitInterrupted = 130;  // SIGINT (128 + 2): stopped after the current measurement, all saved
constexpr int kExitTerminated = 143;   // SIGTERM (128 + 15): same, for schedulers

std::atomic<bool> g_stopRequested{false};
volatile std::sig_atomic_t g_stopSignal = 0;

extern "C" void onStopSignal(int signal) {
    g_stopSignal = signal;
    g_stopRequested.store(true);
}

// Installs the Ctrl-C handler for the sweep's lifetime. SA_RESETHAND: a second Ctrl-C kills at once.
class StopSignals {
public:
    StopSignals() {
        g_stopRequested = false;
        g_stopSignal = 0;
        struct sigaction action {};
        action.sa_handler = onStopSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(SIGINT, &action, &oldInt_);
        sigaction(SIGTERM, &action, &oldTerm_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

private:
    struct sigaction oldInt_ {}, oldTerm_ {};
};

std::string formatDuration(double seconds) {
    if (seconds < 0) return "--:--";
    const long total = static_cast<long>(seconds + 0.5);
    char text[32];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
    else
        std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
    return text;
}

// Progress on stderr: a line rewritten in place on a terminal, otherwise at most one line every 2 s (plus every
// failure and the last item), so logs of batch jobs stay readable.
class ProgressPrinter {
public:
    ProgressPrinter(bool quiet, bool tagDevices)
        : quiet_(quiet), tagDevices_(tagDevices), tty_(::isatty(STDERR_FILENO) != 0) {}

    void operator()(const SweepProgress& p) {
        if (quiet_) return;
        std::ostringstream line;
        line << "[" << p.done << "/" << p.total << "] ";
        if (tagDevices_ && p.device) line << p.device->backend << ":" << p.device->index << " ";
        line << "NB " << p.shape->nb << " r" << (p.round + 1) << "/" << p.rounds << " ";
        if (p.item->kind == ResultRecord::Kind::Copy) line << "copy";
        else line << "BT/warps/stages " << configText(p.item->config, ConfigText::Slashes);
        if (p.record) {
            line << " " << formatUs(p.record->m.medianMs) << " [p20-p80 " << formatUs(p.record->m.p20Ms) << " - "
                 << formatUs(p.record->m.p80Ms) << "] +-" << std::fixed;
            line.precision(2);
            line << p.record->m.relNoise * 100 << "% n=" << p.record->m.sampleCount;
            if (p.record->m.throttledCount > 0) line << " (" << p.record->m.throttledCount << " throttled)";
            line.precision(0);
            line << " " << p.record->gbps << " GB/s";
        } else {
            line << " FAILED: " << p.error;
        }
        line << "  elapsed " << formatDuration(p.elapsedS) << " ETA " << formatDuration(p.etaS);
        const auto now = std::chrono::steady_clock::now();
        const bool last = p.done == p.total;
        if (tty_) {
            std::string text = line.str();
            if (text.size() < lastWidth_) text += std::string(lastWidth_ - text.size(), ' ');
            lastWidth_ = line.str().size();
            std::cerr << '\r' << text << (last || !p.record ? "\n" : "") << std::flush;
            if (!p.record) lastWidth_ = 0;
        } else if (!p.record || last || now - lastPrint_ >= std::chrono::seconds(2)) {
            std::cerr << line.str() << '\n';
            lastPrint_ = now;
        }
    }
    void note(const std::string& text) {
        if (tty_ && lastWidth_ > 0) std::cerr << '\n';
        lastWidth_ = 0;
        std::cerr << "tunescope-cli: " << text << '\n';
    }

private:
    bool quiet_;
    bool tagDevices_;
    bool tty_;
    std::size_t lastWidth_ = 0;
    std::chrono::steady_clock::time_point lastPrint_{};
};

struct SweepArgs {
    std::string backend = "cpu";
    int device = 0;
    std::string devices;
    std::string nb = "1-32";
    long long rowsPerNb = kRowsPerNb;
    std::string batch, paddedTokens;
    std::string grid;
    std::string bt, warps, stages;
    std::string kernel = "native";  // native, triton or both (docs/triton-kernels.md)
    std::string standinOut;         // --kernel both: the stand-in's results file (default: <out>.standin.jsonl)
    std::string tritonCache;        // empty: TRITON_CACHE_DIR or ~/.triton/cache
    bool hot = false;
    bool cold = false;
    std::string l2;                 // --l2 cold|warm|both|hot (empty: cold, or what --cold/--hot say)
    std::string timer = "auto";     // --timer cupti|events|steady_clock|auto
    double noise = 0.005;
    int minSamples = 10;
    double minTimeMs = 0.5;  // per round: the rounds, not one long measurement, carry the precision
    double timeoutMs = 1000.0;
    int warmup = 2;
    int maxSamples = 20000;
    int pipeline = 0;  // samples queued per host wait; 0: 16 for --kernel triton (do_bench's protocol), else 1
    std::string profile;
    std::string shard;
    std::string out;
    unsigned long long seed = SweepPlan{}.seed;
    double eps = kL2NormDefaultEps;
    bool noCopy = false;
    double deviceWarmupMs = 200;
    bool quiet = false;
    bool skipIfUnavailable = false;
    int rounds = SweepPlan{}.rounds;
    double raceMargin = SweepPlan{}.raceMargin;
    unsigned long long orderSeed = SweepPlan{}.orderSeed;
    int replicas = 1;
    int placements = 1;
    bool allowMixedDevices = false;
    std::string manifest;  // sweep --manifest: the kernels of an FLA capture (docs/fla-capture.md)
    bool dryRun = false;
    std::string choicesOut;  // sweep --manifest: the fastest config per kernel and key, for capture export-fla
};

// What the engine options say about a plan: the kernel (and its Triton cache), cold or hot, the stopping rule,
// the samples per wait, the input seed, eps, the rounds and their order.
void applyEngineArgs(SweepPlan& plan, const SweepArgs& a) {
    plan.backend = a.backend;
    plan.kernel = a.kernel;
    if (a.kernel == "triton") {
        plan.triton = std::make_shared<const TritonCacheScan>(
            scanTritonCache(a.tritonCache.empty() ? defaultTritonCacheDir() : std::filesystem::path(a.tritonCache)));
    } else if (a.kernel != "native") {
        throw Error("", "", "--kernel must be native, triton or both (got '" + a.kernel + "')");
    }
    if (a.hot && a.cold) throw Error("", "", "give --cold or --hot, not both");
    if (!a.l2.empty() && (a.hot || a.cold)) throw Error("", "", "give --l2, or the older --cold/--hot, not both");
    plan.l2Regimes = !a.l2.empty() ? parseL2Regimes(a.l2) : std::vector<L2Regime>{a.hot ? L2Regime::Hot : L2Regime::Cold};
    plan.timer = a.timer;
    plan.rule.maxRelNoise = a.noise;
    plan.rule.minSamples = a.minSamples;
    plan.rule.minTimeMs = a.minTimeMs;
    plan.rule.timeoutMs = a.timeoutMs;
    plan.rule.warmupSamples = a.warmup;
    plan.rule.maxSamples = a.maxSamples;
    plan.rule.pipelineDepth = a.pipeline > 0 ? a.pipeline : defaultPipelineDepth(plan.kernel);
    plan.seed = a.seed;
    plan.eps = static_cast<float>(a.eps);
    plan.rounds = a.rounds;
    plan.orderSeed = a.orderSeed;
    plan.placements = a.placements;
}

SweepPlan buildPlan(const SweepArgs& a, CLI::App& sub) {
    SweepPlan plan;
    plan.backend = a.backend;
    const bool fromBatch = !a.batch.empty() || !a.paddedTokens.empty();
    if (fromBatch) {
        if (a.batch.empty() || a.paddedTokens.empty())
            throw Error("", "", "--batch and --padded-tokens go together (T = B * L * 16)");
        if (sub.count("--nb") || sub.count("--rows-per-nb"))
            throw Error("", "", "give either --nb (with --rows-per-nb) or --batch/--padded-tokens, not both");
        plan.shapes = shapesFromBatch(parseIntList(a.batch, "--batch"), parseIntList(a.paddedTokens, "--padded-tokens"));
    } else {
        if (a.rowsPerNb < 0) throw Error("", "", "--rows-per-nb must be >= 1");
        plan.shapes = shapesFromNbList(parseIntList(a.nb, "--nb"), a.rowsPerNb);
    }
    const bool fromLists = !a.bt.empty() || !a.warps.empty() || !a.stages.empty();
    if (!a.grid.empty() && fromLists) throw Error("", "", "give either --grid FILE or --bt/--warps/--stages, not both");
    if (!a.grid.empty()) {
        plan.grid = loadGridFile(a.grid);
        // Problems in a grid file name the file (the plan's own check later names only the config).
        if (plan.grid.empty()) throw Error(a.grid, "", "the grid file lists no configs");
        for (const L2NormConfig& c : plan.grid)
            if (std::string why; !isLegalConfig(c, &why))
                throw Error(a.grid, "", "grid config " + configText(c) + " is illegal: " + why);
    } else if (fromLists) {
        plan.grid = gridFromLists(parseIntList(a.bt.empty() ? "8,16,32,64,128" : a.bt, "--bt"),
                                  parseIntList(a.warps.empty() ? "1,2,4,8,16" : a.warps, "--warps"),
                                  parseIntList(a.stages.empty() ? (a.kernel == "triton" ? "3" : "2,3,4") : a.stages,
                                               "--stages"));
    } else if (a.kernel == "triton") {
        // FLA's 25 configs as FLA applies them: BT x num_warps, Triton's default num_stages (3).
        plan.grid = gridFromLists({8, 16, 32, 64, 128}, {1, 2, 4, 8, 16}, {3});
    } else {
        plan.grid = defaultGrid();
    }
    applyEngineArgs(plan, a);
    plan.measureCopy = !a.noCopy;
    plan.raceMargin = a.raceMargin;
    plan.replicas = a.replicas;
    if (!a.shard.empty()) plan.shard = resolveShard(a.shard, processEnvironment());  // i/n, slurm, slurm/N
    if (!a.profile.empty()) {
        const Profile profile = loadProfile(a.profile);
        plan.profileFile = std::filesystem::path(a.profile).filename().string();
        plan.profileSha256 = sha256FileHex(a.profile);
        for (const SweepShape& shape : plan.shapes) {
            if (const PolicyEntry* entry = profile.policyFor(shape.nb))
                plan.profileConfigs[shape.nb] = toL2NormConfig(entry->config);
        }
        if (plan.profileConfigs.empty())
            throw Error(a.profile, "/per_NB_policy", "has no entry for any NB of this sweep");
    }
    return plan;
}

void printSummary(const std::filesystem::path& out, const SweepPlan& plan) {
    const ResultsFile results = loadResults(out);
    std::map<ShapeKey, std::vector<const ResultRecord*>> byShape;
    std::map<ShapeKey, const ResultRecord*> copy;
    for (const ResultRecord& r : results.records) {
        if (r.kind == ResultRecord::Kind::Copy) copy[shapeKeyOf(r)] = &r;
        else byShape[shapeKeyOf(r)].push_back(&r);
    }
    const double threshold = 0.005;
    const std::set<std::string> timers = timersOf(results);
    std::cout << "timer " << (timers.empty() ? std::string("-") : *timers.begin()) << ", L2 "
              << describeL2Regimes(plan.l2Regimes);
    if (plan.placements > 1)
        std::cout << ", --placements " << plan.placements << " (docs/sweep.md, \"Timers\", "
                     "\"L2 regimes\" and \"Placements\")\n";
    else std::cout << " (docs/sweep.md, \"Timers\" and \"L2 regimes\")\n";
    std::cout << "NB  L2    T         best BT/warps/stages  median [p20-p80 of samples]   round medians min-max  GB/s   "
                 "of copy  ties  rounds\n";
    for (const auto& [key, records] : byShape) {
        const ShapeDecision decision = decideShape(records, threshold);
        if (!decision.fastest) continue;
        const ResultRecord* r = decision.fastest;
        char line[300];
        const auto c = copy.find(key);
        const double fraction = c != copy.end() && c->second->gbps > 0 ? r->gbps / c->second->gbps : -1;
        const std::string spread = "[" + formatUs(r->m.p20Ms) + " - " + formatUs(r->m.p80Ms) + "]";
        const std::string rounds = formatUs(r->m.ciLowMs) + " - " + formatUs(r->m.ciHighMs);
        std::snprintf(line, sizeof line, "%-3d %-5s %-9lld %-21s %-11s %-18s %-22s %-6.0f %-8s %-5zu %d\n", key.nb,
                      toString(key.l2).c_str(), static_cast<long long>(key.rows),
                      configText(r->config, ConfigText::Slashes).c_str(), formatUs(r->m.medianMs).c_str(),
                      spread.c_str(), rounds.c_str(), r->gbps,
                      fraction > 0 ? (std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "%").c_str() : "-",
                      decision.ties.size(), decision.rounds);
        std::cout << line;
        if (decision.ties.size() > 1) {
            std::cout << "    tie set:";
            for (const ResultRecord* t : decision.ties) std::cout << " " << configText(t->config, ConfigText::Slashes);
            std::cout << '\n';
        }
    }
    // Pipelined plans: how much a sample's place in its queued batch moved it (docs/sweep.md, "Pipelined samples").
    if (plan.rule.pipelineDepth > 1) {
        std::string shown;
        double worst = 0;
        for (const auto& [key, records] : byShape) {
            const QueuePositionEffect effect = queuePositionEffect(records, plan.rule.pipelineDepth);
            worst = std::max(worst, effect.worst);
            if (effect.worst < 0.01) continue;
            char text[96];
            std::snprintf(text, sizeof text, "%sNB %d%s %.1f%% (position %d)", shown.empty() ? "" : ", ", key.nb,
                          plan.l2Regimes.size() > 1 ? (" " + toString(key.l2)).c_str() : "", effect.worst * 100,
                          effect.worstPosition);
            shown += text;
        }
        char line[160];
        std::snprintf(line, sizeof line, "queued-sample position effect (%d samples per wait): worst %.1f%%",
                      plan.rule.pipelineDepth, worst * 100);
        std::cout << line << (shown.empty() ? std::string(", under 1% at every NB") : "; over 1% at " + shown) << '\n';
    }
    if (plan.profileConfigs.empty()) return;
    std::cout << "\nregret of the profile's config (" << plan.profileFile << ") against the fastest config, paired "
              << "over rounds (interval: docs/sweep.md):\n";
    std::cout << "NB  L2    T         profile BT/w/s  median [p20-p80]                 fastest BT/w/s  regret   interval"
                 "            verdict    in tie set\n";
    for (const RegretRow& row : computeRegret(results, plan.profileConfigs, threshold)) {
        char line[300];
        if (!row.policy) {
            std::snprintf(line, sizeof line, "%-3d %-5s %-9lld %-15s not measured\n", row.nb, toString(row.l2).c_str(),
                          static_cast<long long>(row.rows), configText(row.policyConfig, ConfigText::Slashes).c_str());
        } else {
            char interval[64];
            std::snprintf(interval, sizeof interval, "[%.4f, %.4f]", row.regretLow, row.regretHigh);
            const std::string spread = formatUs(row.policy->m.medianMs) + " [" + formatUs(row.policy->m.p20Ms) + " - " +
                                       formatUs(row.policy->m.p80Ms) + "]";
            std::snprintf(line, sizeof line, "%-3d %-5s %-9lld %-15s %-32s %-15s x%-7.4f %-19s %-10s %s\n", row.nb,
                          toString(row.l2).c_str(), static_cast<long long>(row.rows), configText(row.policyConfig, ConfigText::Slashes).c_str(), spread.c_str(),
                          configText(row.best->config, ConfigText::Slashes).c_str(), row.regret, interval, toString(row.verdict).c_str(),
                          row.withinNoise ? "yes" : "no");
        }
        std::cout << line;
    }
}

std::vector<int> parseDeviceList(const SweepArgs& a, CLI::App& sub) {
    // Cluster tasks (docs/cluster.md): --devices slurm, or --shard slurm without --device/--devices, takes the GPUs
    // the scheduler gave this task, numbered as the process sees them.
    if (a.devices == "slurm" || (a.devices.empty() && !sub.count("--device") && isClusterShard(a.shard))) {
        const TaskDevices task = taskDevices(a.backend, processEnvironment());
        const std::string job = describeSlurmTask(processEnvironment());
        std::string list;
        for (int index : task.indices) list += (list.empty() ? "" : ",") + std::to_string(index);
        if (!a.quiet)
            std::cerr << "tunescope-cli: " << (job.empty() ? "" : job + ": ") << a.backend << " devices " << list
                      << " from " << task.source << '\n';
        return task.indices;
    }
    if (!a.devices.empty()) {
        if (sub.count("--device")) throw Error("", "", "give --device N or --devices LIST, not both");
        return parseIntList(a.devices, "--devices");
    }
    if (a.device < 0) throw Error("", "", "--device must be >= 0");
    return {a.device};
}

// --kernel both: FLA's Triton kernel and the stand-in, the same grid (FLA's configs unless given), the same
// stopping rule and samples queued per wait (do_bench's 16 unless --pipeline), the same rounds, measured shape by
// shape in turn (runInterleavedSweeps), each into its own results file.
std::pair<SweepPlan, SweepPlan> buildBothPlans(const SweepArgs& a, CLI::App& sub) {
    SweepArgs tritonArgs = a;
    tritonArgs.kernel = "triton";
    SweepPlan triton = buildPlan(tritonArgs, sub);
    SweepArgs nativeArgs = a;
    nativeArgs.kernel = "native";
    SweepPlan native = buildPlan(nativeArgs, sub);
    native.grid = triton.grid;
    native.rule.pipelineDepth = triton.rule.pipelineDepth;
    return {std::move(triton), std::move(native)};
}

std::string standinOutPath(const SweepArgs& a) {
    if (!a.standinOut.empty()) return a.standinOut;
    std::filesystem::path out(a.out);
    const std::string stem = out.extension() == ".jsonl" ? out.stem().string() : out.filename().string();
    return (out.parent_path() / (stem + ".standin.jsonl")).string();
}

// Per NB: each kernel's fastest config and how alike the two kernels rank the configs (compareRuns, as `compare`).
void printKernelAgreement(const std::string& standinOut, const std::string& tritonOut) {
    const ResultsFile standin = loadResults(standinOut);
    const ResultsFile triton = loadResults(tritonOut);
    const RunComparison cmp = compareRuns(standin, triton);
    std::cout << "\nstand-in vs FLA's Triton kernel, per NB (Spearman over the configs both measured; 1 = the same "
                 "order):\n";
    std::cout << "NB   stand-in fastest  FLA fastest   Spearman  configs  same pick\n";
    for (const RunComparisonNb& nb : cmp.perNb) {
        char rho[32] = "-";
        if (nb.rankCorrelation) std::snprintf(rho, sizeof rho, "%.3f", *nb.rankCorrelation);
        char line[200];
        std::snprintf(line, sizeof line, "%-4d %-17s %-13s %-9s %-8zu %s\n", nb.nb,
                      nb.winnerA ? configText(*nb.winnerA, ConfigText::Slashes).c_str() : "-",
                      nb.winnerB ? configText(*nb.winnerB, ConfigText::Slashes).c_str() : "-", rho, nb.rankedConfigs,
                      nb.winnerA && nb.winnerB ? (*nb.winnerA == *nb.winnerB ? "yes" : "no") : "-");
        std::cout << line;
    }
    if (cmp.lowestRankCorrelation)
        std::printf("lowest Spearman %.3f (NB %d)\n", *cmp.lowestRankCorrelation, cmp.lowestRankNb);
}

// The devices a measuring command runs on. Empty `devices` with ctx.exitCode set: skipped (--skip-if-unavailable).
struct OpenDevices {
    std::unique_ptr<Backend> backend;
    std::vector<std::unique_ptr<Device>> owned;
    std::vector<Device*> devices;
};

OpenDevices openDevices(const SweepArgs& a, CLI::App& sub, CliContext& ctx) {
    OpenDevices open;
    try {
        open.backend = openBackend(a.backend);
    } catch (const Error& e) {
        // For CI on machines without the GPU: a known backend that is merely missing here is a skip, not a failure.
        const bool known = a.backend == "cpu" || a.backend == "cuda" || a.backend == "hip";
        if (!a.skipIfUnavailable || !known) throw;
        std::cerr << "tunescope-cli: skipped: " << e.what() << '\n';
        ctx.exitCode = kExitSkipped;
        return open;
    }
    const std::vector<DeviceInfo> available = open.backend->devices();
    for (int index : parseDeviceList(a, sub)) {
        if (index >= static_cast<int>(available.size()))
            throw Error("", "", a.backend + " device " + std::to_string(index) + " does not exist (this machine has " +
                                    std::to_string(available.size()) + " " + a.backend + " device" +
                                    (available.size() == 1 ? "" : "s") + "; see tunescope-cli devices)");
        open.owned.push_back(open.backend->openDevice(index));
        open.devices.push_back(open.owned.back().get());
    }
    return open;
}

// Sets the devices to the plan's timer and says which one times the samples, and why when it is not the kernel-
// duration timer (docs/sweep.md, "Timers").
void resolveTimer(SweepPlan& plan, const std::vector<Device*>& devices, const SweepArgs& a) {
    const std::string requested = plan.timer;
    const TimerOption chosen = resolvePlanTimer(plan, devices);
    if (a.quiet) return;
    std::cerr << "tunescope-cli: timer: " << chosen.name << (requested == "auto" ? " (the default here)" : "")
              << (chosen.note.empty() ? "" : "; " + chosen.note) << "; L2 " << describeL2Regimes(plan.l2Regimes)
              << '\n';
    if (a.hot)
        std::cerr << "tunescope-cli: --hot is deprecated: it leaves the L2 as the previous sample of the same kernel "
                     "left it, which is neither cold nor the warm regime of a model (--l2 warm: the input written by "
                     "a producer kernel right before each sample); --l2 hot keeps this\n";
}

// Runs one plan, or (`sweeps` of two) two plans shape by shape in turn, with progress on stderr and Ctrl-C saving
// what was measured. Returns false after setting ctx.exitCode when the run was interrupted; `incomplete` says
// whether some measurement failed or did not run.
bool runPlans(const SweepArgs& a, const std::vector<std::pair<const SweepPlan*, std::string>>& plans,
              const std::vector<Device*>& devices, CliContext& ctx, bool* incomplete) {
    ProgressPrinter printer(a.quiet, devices.size() > 1);
    std::mutex printMutex;  // progress and notes come from several worker threads
    SweepOptions options;
    options.stopRequested = &g_stopRequested;
    options.progress = [&](const SweepProgress& p) {
        std::lock_guard lock(printMutex);
        printer(p);
    };
    options.note = [&](const std::string& text) {
        std::lock_guard lock(printMutex);
        printer.note(text);
    };
    options.deviceWarmupMs = a.deviceWarmupMs;
    options.allowMixedDevices = a.allowMixedDevices;

    std::vector<SweepOutcome> outcomes;
    {
        StopSignals signals;
        if (plans.size() > 1) {
            std::vector<InterleavedSweep> sweeps(plans.size());
            for (std::size_t i = 0; i < plans.size(); ++i) {
                sweeps[i].plan = plans[i].first;
                sweeps[i].options = options;
                sweeps[i].options.out = plans[i].second;
            }
            outcomes = runInterleavedSweeps(sweeps, devices);
        } else {
            options.out = plans.front().second;
            outcomes = {runSweep(*plans.front().first, devices, options)};
        }
    }
    bool interrupted = false;
    *incomplete = false;
    std::string files;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const SweepOutcome& outcome = outcomes[i];
        const std::string& file = plans[i].second;
        files += (files.empty() ? "" : " and ") + file;
        if (!a.quiet) {
            std::cerr << "tunescope-cli: " << outcome.measured << " measured (" << outcome.measurements
                      << " measurements over " << plans[i].first->rounds << " rounds, " << outcome.racedOut
                      << " raced out after round 1), " << outcome.resumed << " resumed, " << outcome.failed
                      << " failed, " << outcome.notRun << " not run, of " << outcome.total << " (" << file << ")\n";
            for (const std::string& e : outcome.errors) std::cerr << "tunescope-cli: failed: " << e << '\n';
        }
        interrupted = interrupted || outcome.interrupted;
        *incomplete = *incomplete || outcome.failed > 0 || outcome.notRun > 0;
    }
    if (interrupted) {
        std::cerr << "tunescope-cli: stopped by " << (g_stopSignal == SIGTERM ? "SIGTERM" : "Ctrl-C")
                  << "; everything measured so far is in " << files << " (run the same command to resume)\n";
        ctx.exitCode = g_stopSignal == SIGTERM ? kExitTerminated : kExitInterrupted;
        return false;
    }
    return true;
}

// sweep --manifest takes the device, Triton cache, timer, L2 regime, stopping rule and rounds of the ordinary sweep.
CaptureSweepArgs captureSweepArgs(const SweepArgs& a) {
    if (a.placements != 1)
        throw Error("", "", "--placements is for the l2norm sweep and confirm: a capture's replay buffers have one "
                            "placement (docs/sweep.md, \"Placements\")");
    CaptureSweepArgs c;
    c.manifest = a.manifest;
    c.dryRun = a.dryRun;
    c.device = a.device;
    c.tritonCache = a.tritonCache;
    c.out = a.out;
    c.choicesOut = a.choicesOut;
    c.timer = a.timer;
    c.l2 = a.l2.empty() ? (a.hot ? "hot" : "cold") : a.l2;
    c.rule.maxRelNoise = a.noise;
    c.rule.minSamples = a.minSamples;
    c.rule.minTimeMs = a.minTimeMs;
    c.rule.timeoutMs = a.timeoutMs;
    c.rule.warmupSamples = a.warmup;
    c.rule.maxSamples = a.maxSamples;
    c.rule.pipelineDepth = a.pipeline > 0 ? a.pipeline : 1;
    c.rounds = a.rounds;
    c.orderSeed = a.orderSeed;
    c.quiet = a.quiet;
    return c;
}

void runSweepCommand(const SweepArgs& a, CLI::App& sub, CliContext& ctx) {
    if (!a.manifest.empty()) {
        ctx.exitCode = runCaptureSweep(captureSweepArgs(a));
        return;
    }
    if (!a.choicesOut.empty()) throw Error("", "", "--choices-out goes with --manifest");
    if (a.dryRun) throw Error("", "", "--dry-run goes with --manifest");
    if (a.out.empty()) throw Error("", "", "--out is required (the results file)");
    const bool both = a.kernel == "both";
    if (!both && !a.standinOut.empty()) throw Error("", "", "--standin-out goes with --kernel both");
    SweepPlan standinPlan;
    SweepPlan plan;
    if (both) {
        std::tie(plan, standinPlan) = buildBothPlans(a, sub);
        validatePlan(standinPlan);
    } else {
        plan = buildPlan(a, sub);
    }
    if (isClusterShard(a.shard) && !a.quiet)
        std::cerr << "tunescope-cli: shard " << plan.shard.index << "/" << plan.shard.count << " (--shard " << a.shard
                  << ")\n";
    validatePlan(plan);  // illegal configs and T = 0 are refused before any device is touched

    const OpenDevices open = openDevices(a, sub, ctx);
    if (open.devices.empty()) return;  // skipped
    resolveTimer(plan, open.devices, a);
    if (both) resolvePlanTimer(standinPlan, open.devices);

    const std::string standinOut = both ? standinOutPath(a) : std::string();
    if (both && std::filesystem::absolute(standinOut) == std::filesystem::absolute(a.out))
        throw Error("", "", "--standin-out must differ from --out");
    std::vector<std::pair<const SweepPlan*, std::string>> plans{{&plan, a.out}};
    if (both) plans.emplace_back(&standinPlan, standinOut);
    bool incomplete = false;
    if (!runPlans(a, plans, open.devices, ctx, &incomplete)) return;
    if (!a.quiet) {
        if (both) std::cout << "FLA's Triton kernel (" << a.out << "):\n";
        printSummary(a.out, plan);
        if (both) {
            std::cout << "\nthe stand-in kernel (" << standinOut << "):\n";
            printSummary(standinOut, standinPlan);
            printKernelAgreement(standinOut, a.out);
        }
    }
    ctx.exitCode = incomplete ? kExitInvalid : kExitOk;
}

// --- confirm: two policies head to head (docs/sweep.md, "Head to head") -----------------------------------------

struct ConfirmArgs {
    std::string candidate, baseline, results;
    std::string manifest;  // --manifest: every kernel and key of an FLA capture (runCaptureConfirm)
    double threshold = 0.005;
    bool noAa = false;
};

// Per NB both policies' configs, each with an A/A replica (unless --no-aa), in fresh shuffled rounds; no grid, no
// copy ceiling, no racing: every round measures every item.
SweepPlan buildHeadToHeadPlan(const SweepArgs& a, const ConfirmArgs& c, CLI::App& sub) {
    const PolicyConfigs candidate = loadPolicyConfigs(c.candidate);
    const PolicyConfigs baseline = loadPolicyConfigs(c.baseline);
    std::vector<int> nbs;
    if (sub.count("--nb")) {
        nbs = parseIntList(a.nb, "--nb");
        for (int nb : nbs)
            for (const PolicyConfigs* p : {&candidate, &baseline})
                if (!p->configs.count(nb))
                    throw Error(p->file, p->kind == "profile" ? "/per_NB_policy"
                                         : p->kind == "fla-config" ? "/autotune_entries" : "",
                                "has no config for NB " + std::to_string(nb) + " (asked for by --nb); " +
                                    p->describeContents());
    } else {
        for (const auto& [nb, config] : candidate.configs)
            if (baseline.configs.count(nb)) nbs.push_back(nb);
        if (nbs.empty())
            throw Error(c.baseline, "", "shares no NB with " + c.candidate + ": nothing to compare");
    }
    if (a.rowsPerNb < 1) throw Error("", "", "--rows-per-nb must be >= 1");
    if (a.kernel == "both") throw Error("", "", "confirm measures one kernel: --kernel native or triton");
    SweepPlan plan;
    applyEngineArgs(plan, a);
    plan.shapes = shapesFromNbList(nbs, a.rowsPerNb);
    plan.measureCopy = false;
    plan.replicas = c.noAa ? 1 : 2;
    // As the reader knows them: a folder's FLA file is named with its folder ("exported/l2norm_fwd_kernel.json").
    const auto label = [](const std::string& given, const PolicyConfigs& p) {
        const std::filesystem::path file(p.file);
        std::error_code ec;
        if (!std::filesystem::is_directory(given, ec)) return file.filename().string();
        return (file.parent_path().filename() / file.filename()).string();
    };
    plan.profileFile = label(c.candidate, candidate);
    plan.profileSha256 = candidate.sha256;
    plan.baselineFile = label(c.baseline, baseline);
    plan.baselineSha256 = baseline.sha256;
    for (int nb : nbs) {
        plan.profileConfigs[nb] = candidate.configs.at(nb);
        plan.baselineConfigs[nb] = baseline.configs.at(nb);
    }
    return plan;
}

// The table and the one-line conclusion; the exit code follows the conclusion.
int printHeadToHead(const HeadToHeadReport& report) {
    std::cout << "head to head: candidate " << report.candidateFile << " vs baseline " << report.baselineFile
              << ", paired per round (ratio = candidate / baseline, below 1: the candidate is faster; threshold "
              << report.threshold * 100 << "%)\n";
    std::cout << "timer " << report.timer << ", L2 " << describeL2Regimes(report.regimes);
    if (report.placements > 1) std::cout << ", --placements " << report.placements;
    std::cout << '\n';
    std::cout << "NB  L2    T         candidate  baseline   candidate median  baseline median  ratio   interval"
                 "            A/A worst  rounds  verdict\n";
    for (const HeadToHeadRow& row : report.rows) {
        const auto median = [](const ResultRecord* r) { return r ? formatUs(r->m.medianMs) : std::string("-"); };
        std::string ratio = "-", interval = "-", control = "-";
        if (row.candidateRecord && row.baselineRecord && std::isfinite(row.paired.ratio)) {
            ratio = formatFixed(row.paired.ratio, 4);
            if (row.verdict != HeadToHeadVerdict::SameConfig)
                interval = "[" + formatFixed(row.paired.low, 4) + ", " + formatFixed(row.paired.high, 4) + "]";
            if (!row.controls.empty()) control = formatFixed(row.worstControl, 4);
        }
        char line[320];
        std::snprintf(line, sizeof line, "%-3d %-5s %-9lld %-10s %-10s %-17s %-16s %-7s %-19s %-10s %-7d %s\n", row.nb,
                      toString(row.l2).c_str(), static_cast<long long>(row.rows), configText(row.candidate, ConfigText::Slashes).c_str(),
                      configText(row.baseline, ConfigText::Slashes).c_str(), median(row.candidateRecord).c_str(),
                      median(row.baselineRecord).c_str(), ratio.c_str(), interval.c_str(), control.c_str(), row.rounds,
                      toString(row.verdict).c_str());
        std::cout << line;
    }
    std::cout << report.rows.size() << " NBs:";
    bool first = true;
    for (HeadToHeadVerdict v : {HeadToHeadVerdict::SameConfig, HeadToHeadVerdict::Faster, HeadToHeadVerdict::Tie,
                                HeadToHeadVerdict::Slower, HeadToHeadVerdict::Undecided, HeadToHeadVerdict::Noisy,
                                HeadToHeadVerdict::NotMeasured}) {
        std::cout << (first ? " " : ", ") << report.count(v) << " " << toString(v);
        first = false;
    }
    std::cout << '\n';
    if (report.atLeastAsFast()) {
        const std::size_t undecided = report.count(HeadToHeadVerdict::Undecided);
        if (undecided == 0)
            std::cout << "the candidate is at least as fast as the baseline at every NB (none SLOWER, every A/A "
                         "control quiet)\n";
        else
            std::cout << "the candidate is not shown slower at any NB (every A/A control quiet); at " << undecided
                      << " NB(s) the interval straddles the threshold, so neither is shown faster there (more "
                         "--rounds narrow it)\n";
        return kExitOk;
    }
    std::cout << "the candidate is NOT shown at least as fast at every NB:";
    if (report.count(HeadToHeadVerdict::Slower)) std::cout << " SLOWER at " << report.count(HeadToHeadVerdict::Slower);
    if (report.count(HeadToHeadVerdict::Noisy))
        std::cout << " NOISY (an A/A control differed: re-run on a quieter machine) at "
                  << report.count(HeadToHeadVerdict::Noisy);
    if (report.count(HeadToHeadVerdict::NotMeasured))
        std::cout << " NOT MEASURED at " << report.count(HeadToHeadVerdict::NotMeasured);
    std::cout << " NB(s)\n";
    return kExitInvalid;
}

void runConfirmCommand(const SweepArgs& a, const ConfirmArgs& c, CLI::App& sub, CliContext& ctx) {
    if (!c.manifest.empty()) {
        if (sub.count("--nb") || sub.count("--kernel"))
            throw Error("", "", "--nb and --kernel go without --manifest: the capture names its kernels and keys");
        CaptureConfirmArgs args;
        SweepArgs sweep = a;
        sweep.manifest = c.manifest;
        args.sweep = captureSweepArgs(sweep);
        args.candidate = c.candidate;
        if (!c.baseline.empty()) args.baseline = c.baseline;
        args.threshold = c.threshold;
        args.noAa = c.noAa;
        args.results = c.results;
        ctx.exitCode = runCaptureConfirm(args);
        return;
    }
    if (!c.results.empty()) {
        // Judge a finished run again (another threshold, another machine): nothing is measured.
        if (!c.candidate.empty() || !c.baseline.empty() || !a.out.empty())
            throw Error("", "", "--results judges a finished run: give it alone (no CANDIDATE, --baseline or --out)");
        const ResultsFile results = loadResults(c.results);
        printWarnings(results.warnings);
        ctx.exitCode = printHeadToHead(judgeHeadToHead(results, c.threshold));
        return;
    }
    if (c.candidate.empty() || c.baseline.empty() || a.out.empty())
        throw Error("", "", "confirm needs CANDIDATE, --baseline and --out (or --results FILE to judge a finished run)");
    SweepPlan plan = buildHeadToHeadPlan(a, c, sub);
    validatePlan(plan);
    const OpenDevices open = openDevices(a, sub, ctx);
    if (open.devices.empty()) return;  // skipped
    resolveTimer(plan, open.devices, a);
    bool incomplete = false;
    if (!runPlans(a, {{&plan, a.out}}, open.devices, ctx, &incomplete)) return;
    const ResultsFile results = loadResults(a.out);  // the report's rows point into it
    const HeadToHeadReport report = judgeHeadToHead(results, c.threshold);
    const int verdict = a.quiet ? (report.atLeastAsFast() ? kExitOk : kExitInvalid) : printHeadToHead(report);
    ctx.exitCode = incomplete ? kExitInvalid : verdict;
}

// The measurement engine's options, shared by sweep and confirm (the same flags mean the same thing in both).
void addEngineOptions(CLI::App* cmd, SweepArgs& a) {
    cmd->add_option("--backend", a.backend, "cpu, cuda or hip")->capture_default_str();
    cmd->add_option("--device", a.device, "device index within the backend")->capture_default_str();
    cmd->add_option("--devices", a.devices,
                    "several devices, one worker each over a shared queue: 0,1,2-3; slurm: the GPUs of this SLURM "
                    "task (the default with --shard slurm)");
    cmd->add_option("--nb", a.nb, "NB buckets: 1-32, 1,2,4-8")->capture_default_str();
    cmd->add_option("--rows-per-nb", a.rowsPerNb, "rows T per NB (T = NB x this)")->capture_default_str();
    cmd->add_option("--triton-cache", a.tritonCache,
                    "Triton cache folder for --kernel triton (default: TRITON_CACHE_DIR or ~/.triton/cache)");
    cmd->add_option("--l2", a.l2,
                    "what the L2 holds before each sample: cold (flushed, the default), warm (the input just written "
                    "by a producer kernel, as after the layer that made it), both (cold and warm in the same rounds, "
                    "records per regime) or hot (nothing in between; the old --hot)");
    cmd->add_option("--timer", a.timer,
                    "what times a sample: cupti (CUDA: the kernel's own start/end from CUPTI activity records), "
                    "events (device events around the launch), steady_clock (the CPU), auto (cupti where CUPTI loads, "
                    "else events; steady_clock on the CPU)")
        ->capture_default_str();
    cmd->add_flag("--cold", a.cold, "the same as --l2 cold (the default)");
    cmd->add_flag("--hot", a.hot, "deprecated: the same as --l2 hot (no flush between samples; not the warm regime)");
    cmd->add_option("--pipeline", a.pipeline,
                    "samples queued back to back per host wait (default: 16 with --kernel triton, as Triton's "
                    "do_bench; 1 otherwise; docs/sweep.md)")
        ->check(CLI::Range(0, 256));
    cmd->add_option("--noise", a.noise, "stop when the median's relative noise is at or below this")
        ->capture_default_str();
    cmd->add_option("--min-samples", a.minSamples, "never stop with fewer samples")->capture_default_str();
    cmd->add_option("--min-time", a.minTimeMs, "never stop before the samples add up to this many ms")
        ->capture_default_str();
    cmd->add_option("--timeout", a.timeoutMs, "wall-time limit per measurement, ms")->capture_default_str();
    cmd->add_option("--warmup", a.warmup, "warm-up samples per measurement (at least 1 runs)")->capture_default_str();
    cmd->add_option("--max-samples", a.maxSamples, "sample cap per measurement")->capture_default_str();
    cmd->add_option("--device-warmup", a.deviceWarmupMs, "ms of copies per device before its first measurement")
        ->capture_default_str();
    cmd->add_option("--seed", a.seed, "input data seed")->capture_default_str();
    cmd->add_option("--eps", a.eps, "l2norm epsilon")->capture_default_str();
    cmd->add_option("--placements", a.placements,
                    "copies of the input and output buffers, each its own allocation; round r uses copy r mod K, so "
                    "the rounds' spread carries where the buffers lie (docs/sweep.md, \"Placements\")")
        ->capture_default_str();
    cmd->add_option("--order-seed", a.orderSeed, "seed of the rounds' shuffled orders (recorded)")
        ->capture_default_str();
    cmd->add_flag("--allow-mixed-devices", a.allowMixedDevices,
                  "resume a results file measured on devices of another name, architecture or driver");
    cmd->add_flag("--quiet", a.quiet, "no progress and no summary");
    cmd->add_flag("--skip-if-unavailable", a.skipIfUnavailable,
                  "exit 77 (ctest's skip) instead of 2 when the backend is not available on this machine");
}

void registerSweep(CLI::App& app, CliContext& ctx) {
    auto args = std::make_shared<SweepArgs>();
    CLI::App* sweep = app.add_subcommand(
        "sweep",
        "Measure every launch config of the l2norm kernel on every NB bucket and stream the results to a JSON Lines "
        "file (resumable). Exit codes: 0 all measured, 1 some measurements failed or a device gave up, 2 usage or "
        "I/O error, 77 backend unavailable with --skip-if-unavailable, 130 stopped by Ctrl-C (143 by SIGTERM) with "
        "everything measured so far saved.");
    addEngineOptions(sweep, *args);
    sweep->add_option("--batch", args->batch, "batch sizes B (with --padded-tokens): T = B x L x 16, NB = ceil(T/65536)");
    sweep->add_option("--padded-tokens", args->paddedTokens, "padded token counts L (with --batch)");
    sweep->add_option("--grid", args->grid, "config grid file (JSON or CSV, see docs/sweep.md)");
    sweep->add_option("--bt", args->bt, "BT values (default 8,16,32,64,128)");
    sweep->add_option("--warps", args->warps, "num_warps values (default 1,2,4,8,16)");
    sweep->add_option("--stages", args->stages, "num_stages values (default 2,3,4; 3 with --kernel triton)");
    sweep->add_option("--kernel", args->kernel,
                      "native (our l2norm family), triton (FLA's kernel: the binaries of a Triton cache, per NB) or "
                      "both (the two measured shape by shape in turn, same grid and rounds; the stand-in's results go "
                      "to --standin-out)")
        ->capture_default_str();
    sweep->add_option("--standin-out", args->standinOut,
                      "with --kernel both: the stand-in's results file (default: the --out name with .standin.jsonl)");
    sweep->add_option("--profile", args->profile, "also time this profile's config per NB and report its regret");
    sweep->add_option("--shard", args->shard,
                      "run shard i of n (0-based), split by shape (all configs of an NB on one worker): i/n; slurm: "
                      "i and n of this array task (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT); slurm/N: i of this "
                      "task, n = N; combine the files with merge");
    sweep->add_flag("--no-copy", args->noCopy, "do not measure the device-to-device copy ceiling");
    sweep->add_option("--rounds", args->rounds,
                      "rounds per shape: every config once per round, in a new shuffled order each round")
        ->capture_default_str();
    sweep->add_option("--race-margin", args->raceMargin,
                      "after round 1, configs slower than the round's best by more than this run no more rounds")
        ->capture_default_str();
    sweep->add_option("--aa-replicas", args->replicas,
                      "A/A: measure every config this many times per round as identical items (count verdicts with "
                      "the decisions command)")
        ->capture_default_str();
    sweep->add_option("--out", args->out,
                      "results file (JSON Lines); an existing one of the same plan is resumed (required, but with "
                      "--manifest)");
    sweep->add_option("--manifest", args->manifest,
                      "an FLA capture manifest (scripts/fla_capture.py): replay, check and time every captured kernel and "
                      "key from its Triton binaries (--triton-cache: the capture's archives unpacked); needs a CUDA "
                      "device of the capture's architecture, and is refused (exit 2) where there is none");
    sweep->add_flag("--dry-run", args->dryRun, "with --manifest: print the plan it would run, touch no device");
    sweep->add_option("--choices-out", args->choicesOut,
                      "with --manifest: write the fastest checked config per kernel and key (tunescope-fla-choices-v1, "
                      "what capture export-fla --choices reads)");
    sweep->callback([args, sweep, &ctx] { runSweepCommand(*args, *sweep, ctx); });
}

void registerConfirm(CLI::App& app, CliContext& ctx) {
    auto confirmArgs = std::make_shared<SweepArgs>();
    confirmArgs->rounds = 8;  // as the explorer's verification: enough rounds for an interval narrower than 1%
    auto confirmOptions = std::make_shared<ConfirmArgs>();
    CLI::App* confirm = app.add_subcommand(
        "confirm",
        "Re-measure two policies head to head: per NB the candidate's and the baseline's configs in the same fresh, "
        "shuffled rounds (cold L2 unless --l2, warm-up, raw samples kept), each with an A/A replica, judged on the per-round "
        "ratios (docs/sweep.md, \"Head to head\"). A policy is a profile, FLA's l2norm_fwd_kernel.json or a "
        "folder holding one (export-fla's output, an FLA_CONFIG_DIR), or Triton's autotune cache (a "
        "l2norm_fwd_kernel.autotune.json or a TRITON_CACHE_DIR of them: what FLA's own autotune chose). Exit codes: 0 the candidate is at least as "
        "fast at every NB, 1 SLOWER somewhere, an A/A control differed (too noisy to decide) or a measurement "
        "failed, 2 usage or I/O error, 77 backend unavailable with --skip-if-unavailable, 130 stopped by Ctrl-C.");
    confirm->add_option("candidate", confirmOptions->candidate, "the policy whose speed is claimed (e.g. export-fla's folder)");
    confirm->add_option("--baseline", confirmOptions->baseline,
                        "the policy to beat or match (e.g. FLA's own autotune: the Triton cache it wrote)");
    addEngineOptions(confirm, *confirmArgs);
    confirm->add_option("--kernel", confirmArgs->kernel,
                        "native (our l2norm family) or triton (FLA's kernel: the binaries of a Triton cache, per NB)")
        ->capture_default_str();
    confirm->add_option("--rounds", confirmArgs->rounds, "rounds per NB: every item once per round, shuffled")
        ->capture_default_str();
    confirm->add_option("--threshold", confirmOptions->threshold,
                        "relative gap the paired interval must clear for FASTER or SLOWER")
        ->capture_default_str();
    confirm->add_flag("--no-aa", confirmOptions->noAa, "no A/A replicas (faster; nothing then checks the noise)");
    confirm->add_option("--out", confirmArgs->out, "results file (JSON Lines); an existing one of the same plan is resumed");
    confirm->add_option("--manifest", confirmOptions->manifest,
                        "an FLA capture manifest: per kernel and key of the capture, the config CANDIDATE (an "
                        "FLA_CONFIG_DIR, e.g. capture export-fla's, or a choices file) makes FLA launch against "
                        "--baseline's (default captured: FLA's own autotune picks recorded in the capture), replayed "
                        "from the capture's Triton binaries (--triton-cache) head to head (docs/fla-capture.md)");
    confirm->add_option("--results", confirmOptions->results,
                        "judge this finished confirm results file instead of measuring")
        ->check(CLI::ExistingFile);
    confirm->callback([confirmArgs, confirmOptions, confirm, &ctx] {
        runConfirmCommand(*confirmArgs, *confirmOptions, *confirm, ctx);
    });
}

}  // namespace

void registerSweepCommands(CLI::App& app, CliContext& ctx) {
    registerSweep(app, ctx);
    registerConfirm(app, ctx);
}

}  // namespace tunescope::cli
