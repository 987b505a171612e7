// tunescope-cli explore / replay: the cuBLASLt explorer (docs/explorer.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/gemm/gemm_driver.hpp"
#include "tunescope/gemm/gemm_explorer.hpp"

namespace tunescope::cli {

namespace {

using namespace tunescope::gemm;

std::string executableDir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

// The confirm stage's settings, shared by explore and replay.
void addConfirmOptions(CLI::App& command, ConfirmSettings& confirm) {
    command.add_option("--rounds", confirm.rounds, "sustained confirm rounds (blocks back to back)")->capture_default_str();
    command.add_option("--block-seconds", confirm.blockSeconds, "timed seconds of each sustained block")
        ->capture_default_str();
    command.add_option("--burst-rounds", confirm.burstRounds, "burst confirm rounds (0: no burst regime)")
        ->capture_default_str();
    command.add_option("--burst-idle", confirm.burstIdleSeconds, "idle seconds before each burst")->capture_default_str();
    command.add_option("--burst-launches", confirm.burstLaunches, "launches per burst")->capture_default_str();
    command.add_option("--extra-rounds", confirm.extraRounds,
                       "sequential confirm: more rounds for finalists whose interval straddles the threshold (0: off)")
        ->capture_default_str();
}

void validateConfirmSettings(const ConfirmSettings& c) {
    if (c.rounds < 3 || c.rounds > 100) throw Error("", "", "--rounds must be 3 to 100 (rounds are the unit of the interval)");
    if (!(c.blockSeconds >= 0.01 && c.blockSeconds <= 10)) throw Error("", "", "--block-seconds must be 0.01 to 10");
    if (c.burstRounds != 0 && (c.burstRounds < 3 || c.burstRounds > 100))
        throw Error("", "", "--burst-rounds must be 0 (off) or 3 to 100");
    if (!(c.burstIdleSeconds >= 0 && c.burstIdleSeconds <= 10)) throw Error("", "", "--burst-idle must be 0 to 10 seconds");
    if (c.burstLaunches < 1 || c.burstLaunches > 1000) throw Error("", "", "--burst-launches must be 1 to 1000");
    if (c.extraRounds < 0 || c.extraRounds > 100) throw Error("", "", "--extra-rounds must be 0 (off) to 100");
}

// "1.23% [0.45, 2.01]": a gain in percent with its 95% interval.
std::string gainWithInterval(double gainPercent, double lowPercent, double highPercent) {
    return formatFixed(gainPercent, 2) + "% [" + formatFixed(lowPercent, 2) + ", " + formatFixed(highPercent, 2) + "]";
}

std::string gainWithInterval(const PairedGain& gain) {
    return gainWithInterval(gain.gainPercent, gain.lowPercent, gain.highPercent);
}

// Loads the cuBLASLt plugin, or says on stderr why there is none and sets the exit code to skipped (77): this
// machine cannot run `command` at all.
LoadedGemmBackend loadGemmBackendOrSkip(const char* command, CliContext& ctx) {
    GemmBackendProbe probe = loadGemmBackend(executableDir());
    if (!probe.backend) {
        std::cerr << "tunescope-cli: " << command << ": " << (probe.noDevice ? "" : "cannot run here: ") << probe.reason
                  << '\n';
        ctx.exitCode = kExitSkipped;
    }
    return std::move(probe.backend);
}

struct ExploreArgs {
    std::int64_t m = 0, n = 0, k = 0, mLogical = 0, nLogical = 0, kLogical = 0;
    std::string dtype = "bf16", layout = "TN", workspaces = "0,4,8,16,32,64", out;
    int heuristics = 32;
    double budget = 60.0;
    bool exactParity = false;
    double errorBound = -1.0;
    double noiseThreshold = 0.01;
    std::uint64_t seed = 20261202;
    int screen = 16;
    int screenPasses = 2;
    int finalists = 3;
    int siblingFinalists = 3;
    int heuristicFinalists = 3;
    int aaRetries = 1;
    std::string regime = "sustained";
    std::string timer = kTimerEvents;
    ConfirmSettings confirm;
    bool quiet = false;
    std::vector<std::string> configs;
};

int runExplore(const ExploreArgs& args, CliContext& ctx) {
    ExploreOptions options;
    GemmSpec& spec = options.spec;
    spec.m = args.m;
    spec.n = args.n;
    spec.k = args.k;
    spec.mLogical = args.mLogical;
    spec.nLogical = args.nLogical;
    spec.kLogical = args.kLogical;
    spec.dtype = gemmDtypeFromString(args.dtype);
    spec.layout = gemmLayoutFromString(args.layout);
    spec.workspaceBytes = parseWorkspaceListMiB(args.workspaces);
    spec.heuristicCount = args.heuristics;
    validateGemmSpec(spec);
    if (args.exactParity && args.errorBound >= 0)
        throw Error("", "", "--exact-parity and --error-bound exclude each other");
    if (!(args.budget > 0)) throw Error("", "", "--budget must be a positive number of seconds");
    options.rule.exactParity = args.errorBound < 0;
    if (args.errorBound >= 0) options.rule.errorBound = args.errorBound;
    options.rule.noiseThreshold = args.noiseThreshold;
    options.budgetSeconds = args.budget;
    options.dataSeed = args.seed;
    if (args.finalists < 1 || args.screen < 1 || args.screenPasses < 1)
        throw Error("", "", "--finalists, --screen and --screen-passes must be at least 1");
    options.finalists = args.finalists;
    options.timer = args.timer;
    if (args.siblingFinalists < 0) throw Error("", "", "--sibling-finalists must be 0 or more");
    options.siblingFinalists = args.siblingFinalists;
    if (args.heuristicFinalists < 0) throw Error("", "", "--heuristic-finalists must be 0 or more");
    options.heuristicFinalists = args.heuristicFinalists;
    if (args.aaRetries < 0) throw Error("", "", "--aa-retries must be 0 or more");
    options.aaRetries = args.aaRetries;
    options.screenCandidates = args.screen;
    options.screenPasses = args.screenPasses;
    options.rule.regime = regimeFromString(args.regime);
    validateConfirmSettings(args.confirm);
    options.confirm = args.confirm;
    for (const std::string& text : args.configs) options.requestedConfigs.push_back(parseAlgoConfigText(text));

    LoadedGemmBackend backend = loadGemmBackendOrSkip("explore", ctx);
    if (!backend) return ctx.exitCode;

    const auto start = std::chrono::steady_clock::now();
    auto progress = [&](const std::string& line) {
        if (args.quiet) return;
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "[explore " << formatFixed(t, 1) << " s] " << line << '\n';
    };
    const ExplorationResult result = runExploration(*backend.get(), options, progress);
    const Json report = buildExplorerReport(result);
    writeFileAtomic(args.out, dumpJson(report) + "\n");

    if (!result.failure.empty()) {
        std::cerr << "tunescope-cli: explore: " << result.failure << " (report with what was measured: " << args.out
                  << ")\n";
        return result.unsupported ? kExitSkipped : kExitInvalid;
    }
    const Candidate& base = result.candidates[std::size_t(result.baselineIndex)];
    std::cout << "explored " << describe(spec) << " on " << result.environment.device << " in "
              << formatFixed(result.wallSeconds, 1) << " s: " << result.candidates.size() << " candidates timed, "
              << result.stats.checks << " configurations checked\n";
    if (base.final)
        std::cout << "heuristic top: " << base.config.describe() << ": " << formatFixed(base.final->medianMs, 4)
                  << " ms\n";
    if (result.selection.leftBaseline) {
        const Candidate& sel = result.candidates[std::size_t(result.selection.candidateIndex)];
        const Selection& s = result.selection;
        std::cout << "selected:      " << sel.config.describe() << ": "
                  << (sel.final ? formatFixed(sel.final->medianMs, 4) + " ms" : std::string("-")) << " ("
                  << gainWithInterval(s.gainPercent, s.lowPercent, s.highPercent) << " vs heuristic top, "
                  << toString(s.regime) << ")\n";
    }
    for (const Candidate& c : result.candidates) {
        if (c.index == result.baselineIndex || (!c.sustained && !c.burst)) continue;
        std::cout << "finalist #" << c.index << ":";
        for (const auto* m : {&c.sustained, &c.burst})
            if (*m && (*m)->vsTop.valid())
                std::cout << " " << toString((*m)->regime) << " " << gainWithInterval((*m)->vsTop);
        std::cout << '\n';
    }
    for (const auto* aa : {&result.aaSustained, &result.aaBurst})
        if (*aa && (*aa)->vsTop.valid())
            std::cout << "A/A control " << toString((*aa)->regime) << ": " << gainWithInterval((*aa)->vsTop) << '\n';
    std::cout << result.selection.reason << '\n';
    if (result.power.measured) std::cout << "power: " << result.power.note << '\n';
    std::cout << "report: " << args.out << '\n';
    return kExitOk;
}

struct ReplayArgs {
    std::string report, out;
    std::string timer = kTimerEvents;
    ConfirmSettings confirm;
};

Json gainJson(const std::optional<RegimeMeasurement>& m) {
    if (!m || !m->vsTop.valid()) return nullptr;
    return {{"gain_percent", m->vsTop.gainPercent},
            {"interval_95_percent", Json::array({m->vsTop.lowPercent, m->vsTop.highPercent})},
            {"rounds", m->vsTop.rounds},
            {"rounds_faster", m->vsTop.roundsFaster},
            {"ms_per_round", m->msPerRound},
            {"top_ms_per_round", m->topMsPerRound}};
}

std::string gainText(const std::optional<RegimeMeasurement>& m) {
    if (!m || !m->vsTop.valid()) return "-";
    return gainWithInterval(m->vsTop) + ", faster in " + std::to_string(m->vsTop.roundsFaster) + " of " +
           std::to_string(m->vsTop.rounds) + " rounds";
}

int runReplayCommand(const ReplayArgs& args, CliContext& ctx) {
    const Json report = readJsonFile(args.report);
    const ReplayPlan plan = replayPlanFromReport(report, args.report);
    LoadedGemmBackend backend = loadGemmBackendOrSkip("replay", ctx);
    if (!backend) return ctx.exitCode;
    auto progress = [](const std::string& line) { std::cerr << "[replay] " << line << '\n'; };
    validateConfirmSettings(args.confirm);
    const std::string timer = backend->useTimer(args.timer);
    std::cerr << "[replay] timer: " << timer << '\n';
    const ReplayOutcome outcome = runReplay(*backend.get(), plan, args.confirm, progress);
    if (!outcome.refusal.empty()) {
        std::cerr << "tunescope-cli: replay: refused: " << outcome.refusal << '\n';
        return kExitInvalid;
    }
    std::cout << "replayed " << describe(plan.spec) << ": selected " << formatFixed(outcome.selected.medianMs, 4)
              << " ms vs heuristic top " << formatFixed(outcome.baseline.medianMs, 4) << " ms (" << outcome.verdict
              << ", timer " << timer << ")\n";
    std::cout << "sustained: " << gainText(outcome.sustained) << "; A/A " << gainText(outcome.aaSustained) << '\n';
    std::cout << "burst:     " << gainText(outcome.burst) << "; A/A " << gainText(outcome.aaBurst) << '\n';
    if (plan.reportedInterval)
        std::cout << "report said "
                  << gainWithInterval(plan.reportedGainPercent, plan.reportedLowPercent, plan.reportedHighPercent)
                  << '\n';
    std::cout << "output SHA-256 " << outcome.sha256 << (outcome.sha256MatchesReport ? " matches" : " DIFFERS from")
              << " the report\n";
    if (const auto& p = outcome.baselinePower; p && p->error.empty() && p->meanPowerW > 0)
        std::cout << "power: heuristic top " << formatFixed(p->meanPowerW, 1) << " W"
                  << (p->powerLimitW > 0 ? " of " + formatFixed(p->powerLimitW, 1) + " W" : std::string())
                  << (p->powerLimited() ? " (power-limited)" : "") << '\n';
    if (!args.out.empty()) {
        Json j;
        j["report"] = args.report;
        j["cublaslt_version"] = plan.cublasLtVersion;
        j["timer"] = timer;
        j["selected_median_ms"] = outcome.selected.medianMs;
        j["baseline_median_ms"] = outcome.baseline.medianMs;
        j["improvement_percent"] = outcome.gainPercent;
        j["sustained"] = gainJson(outcome.sustained);
        j["burst"] = gainJson(outcome.burst);
        j["aa_control"] = {{"sustained", gainJson(outcome.aaSustained)}, {"burst", gainJson(outcome.aaBurst)}};
        j["verdict"] = outcome.verdict;
        j["output_sha256"] = outcome.sha256;
        j["sha256_matches_report"] = outcome.sha256MatchesReport;
        j["baseline_power"] = outcome.baselinePower ? powerWindowToJson(*outcome.baselinePower) : Json(nullptr);
        writeFileAtomic(args.out, dumpJson(j) + "\n");
    }
    return outcome.sha256MatchesReport ? kExitOk : kExitInvalid;
}

}  // namespace

void registerExplorerCommands(CLI::App& app, CliContext& ctx) {
    auto exploreArgs = std::make_shared<ExploreArgs>();
    CLI::App* explore = app.add_subcommand(
        "explore", "Explore cuBLASLt algorithms for one GEMM and select a faster config with evidence (needs a CUDA GPU)");
    explore->add_option("--m", exploreArgs->m, "rows of Y = X @ W^T (tokens), descriptor size after padding")->required();
    explore->add_option("--n", exploreArgs->n, "columns of Y (output features)")->required();
    explore->add_option("--k", exploreArgs->k, "reduction size (input features)")->required();
    explore->add_option("--m-logical", exploreArgs->mLogical, "logical M before padding (parity is over it)");
    explore->add_option("--n-logical", exploreArgs->nLogical, "logical N before padding");
    explore->add_option("--k-logical", exploreArgs->kLogical, "logical K before padding");
    explore->add_option("--dtype", exploreArgs->dtype, "bf16 | fp8 | nvfp4")->capture_default_str();
    explore->add_option("--layout", exploreArgs->layout, "TN | NN | NT (cuBLASLt transa/transb)")->capture_default_str();
    explore->add_option("--workspace", exploreArgs->workspaces, "workspace caps in MiB, comma-separated")->capture_default_str();
    explore->add_option("--heuristics", exploreArgs->heuristics, "heuristic results requested per workspace")->capture_default_str();
    explore->add_option("--budget", exploreArgs->budget, "seconds for the whole exploration")->capture_default_str();
    explore->add_flag("--exact-parity", exploreArgs->exactParity, "select only bitwise-equal outputs (the default)");
    explore->add_option("--error-bound", exploreArgs->errorBound,
                        "instead of exact parity: accept max |D-ref|/max|ref| up to this");
    explore->add_option("--noise-threshold", exploreArgs->noiseThreshold,
                        "leave the heuristic top only when the gain's 95% interval lies above this fraction")
        ->capture_default_str();
    explore->add_option("--seed", exploreArgs->seed, "random input seed")->capture_default_str();
    explore->add_option("--screen", exploreArgs->screen, "first-pass candidates re-screened against the top")
        ->capture_default_str();
    explore->add_option("--screen-passes", exploreArgs->screenPasses, "randomly ordered screen passes")->capture_default_str();
    explore->add_option("--finalists", exploreArgs->finalists, "screened candidates confirmed against the top")
        ->capture_default_str();
    explore->add_option("--sibling-finalists", exploreArgs->siblingFinalists,
                        "siblings of the best screened finalist (its other custom options and CTA swizzles) within "
                        "2% of it confirmed as finalists too (0: off)")
        ->capture_default_str();
    explore->add_option("--heuristic-finalists", exploreArgs->heuristicFinalists,
                        "cuBLASLt's first answers after the top confirmed as finalists when they screen faster than "
                        "it (0: off)")
        ->capture_default_str();
    explore->add_option("--aa-retries", exploreArgs->aaRetries,
                        "times the sustained confirm stage (and the verification) runs again, fresh, when its "
                        "A/A control fails (0: never)")
        ->capture_default_str();
    explore->add_option("--regime", exploreArgs->regime, "select on: sustained | burst (both are reported)")
        ->capture_default_str();
    explore->add_option("--timer", exploreArgs->timer,
                        "events | cupti | auto: what times each launch (cupti: its kernels' own GPU span; "
                        "docs/explorer.md, \"Timers\")")
        ->check(CLI::IsMember({std::string(kTimerEvents), std::string(kTimerCupti), std::string("auto")}))
        ->capture_default_str();
    addConfirmOptions(*explore, exploreArgs->confirm);
    explore->add_option("--verify-rounds", exploreArgs->confirm.verifyRounds,
                        "fresh rounds of the selection, the top and an A/A control after the selection; the "
                        "reported gain is theirs and the selection stands only if they show it faster (0: off)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100));
    explore->add_option("--config", exploreArgs->configs,
                        "also time this config and re-time it with the finalists, e.g. "
                        "algo=66,tile=128x352,stages=64xAUTO,custom=5,cluster=2x1x1 (repeatable)");
    explore->add_flag("--quiet", exploreArgs->quiet, "no progress on stderr");
    explore->add_option("--out", exploreArgs->out, "report file (JSON, the seed report's format)")->required();
    explore->callback([exploreArgs, &ctx] { ctx.exitCode = runExplore(*exploreArgs, ctx); });

    auto replayArgs = std::make_shared<ReplayArgs>();
    CLI::App* replay = app.add_subcommand(
        "replay", "Re-time a report's selected config from its raw cuBLASLt algorithm bytes against the heuristic top");
    replay->add_option("report", replayArgs->report, "report written by explore")->required();
    addConfirmOptions(*replay, replayArgs->confirm);
    replay->add_option("--timer", replayArgs->timer, "events | cupti | auto (as explore's)")
        ->check(CLI::IsMember({std::string(kTimerEvents), std::string(kTimerCupti), std::string("auto")}))
        ->capture_default_str();
    replay->add_option("--out", replayArgs->out, "also write the result as JSON");
    replay->callback([replayArgs, &ctx] { ctx.exitCode = runReplayCommand(*replayArgs, ctx); });
}

}  // namespace tunescope::cli
