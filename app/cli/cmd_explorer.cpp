// tunescope-cli explore / replay: the cuBLASLt explorer (docs/explorer.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "tunescope/errors.hpp"
#include "tunescope/gemm_backend.hpp"
#include "tunescope/gemm_explorer.hpp"
#include "tunescope/json_io.hpp"

namespace tunescope::cli {

namespace {

using namespace tunescope::gemm;

std::string executableDir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::string fixed(double value, int digits) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(digits);
    out << value;
    return out.str();
}

// Loads the plugin or explains why not; sets the exit code (77 when this machine cannot run it at all).
LoadedGemmBackend openBackend(const char* command, CliContext& ctx) {
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
    double budget = 150.0;
    bool exactParity = false;
    double errorBound = -1.0;
    double noiseThreshold = 0.02;
    std::uint64_t seed = 20261202;
    int finalists = 6;
    int rounds = 4;
    double powerWindow = 1.0;
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
    options.finalists = args.finalists;
    options.finalistRounds = args.rounds;
    if (!(args.powerWindow >= 0 && args.powerWindow <= 60))
        throw Error("", "", "--power-window must be 0 (off) to 60 seconds");
    options.powerWindowSeconds = args.powerWindow;
    for (const std::string& text : args.configs) options.requestedConfigs.push_back(parseAlgoConfigText(text));

    LoadedGemmBackend backend = openBackend("explore", ctx);
    if (!backend) return ctx.exitCode;

    const auto start = std::chrono::steady_clock::now();
    auto progress = [&](const std::string& line) {
        if (args.quiet) return;
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "[explore " << fixed(t, 1) << " s] " << line << '\n';
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
              << fixed(result.wallSeconds, 1) << " s: " << result.candidates.size() << " candidates timed, "
              << result.stats.checks << " configurations checked\n";
    if (base.final) std::cout << "heuristic top: " << base.config.describe() << ": " << fixed(base.final->medianMs, 4) << " ms\n";
    if (result.selection.candidateIndex >= 0) {
        const Candidate& sel = result.candidates[std::size_t(result.selection.candidateIndex)];
        std::cout << "selected:      " << sel.config.describe() << ": "
                  << (sel.final ? fixed(sel.final->medianMs, 4) + " ms" : std::string("-")) << " ("
                  << fixed(result.selection.gainPercent, 2) << "% vs heuristic top)\n";
    }
    std::cout << result.selection.reason << '\n';
    if (result.power.measured) std::cout << "power: " << result.power.note << '\n';
    std::cout << "report: " << args.out << '\n';
    return kExitOk;
}

struct ReplayArgs {
    std::string report, out;
    int rounds = 6;
};

int runReplayCommand(const ReplayArgs& args, CliContext& ctx) {
    const Json report = readJsonFile(args.report);
    const ReplayPlan plan = replayPlanFromReport(report, args.report);
    LoadedGemmBackend backend = openBackend("replay", ctx);
    if (!backend) return ctx.exitCode;
    auto progress = [](const std::string& line) { std::cerr << "[replay] " << line << '\n'; };
    const ReplayOutcome outcome = runReplay(*backend.get(), plan, args.rounds, progress);
    if (!outcome.refusal.empty()) {
        std::cerr << "tunescope-cli: replay: refused: " << outcome.refusal << '\n';
        return kExitInvalid;
    }
    std::cout << "replayed " << describe(plan.spec) << ": selected " << fixed(outcome.selected.medianMs, 4)
              << " ms vs heuristic top " << fixed(outcome.baseline.medianMs, 4) << " ms: "
              << fixed(outcome.gainPercent, 2) << "% faster (" << outcome.verdict << "); report said "
              << fixed(plan.selectedMedianMs, 4) << " vs " << fixed(plan.baselineMedianMs, 4) << " ms\n";
    std::cout << "output SHA-256 " << outcome.sha256 << (outcome.sha256MatchesReport ? " matches" : " DIFFERS from")
              << " the report\n";
    if (const auto& p = outcome.baselinePower; p && p->error.empty() && p->meanPowerW > 0)
        std::cout << "power: heuristic top " << fixed(p->meanPowerW, 1) << " W"
                  << (p->powerLimitW > 0 ? " of " + fixed(p->powerLimitW, 1) + " W" : std::string())
                  << (p->powerLimited() ? " (power-limited: verdict on times alone)" : "") << '\n';
    if (!args.out.empty()) {
        Json j;
        j["report"] = args.report;
        j["cublaslt_version"] = plan.cublasLtVersion;
        j["selected_median_ms"] = outcome.selected.medianMs;
        j["selected_noise"] = outcome.selected.noise;
        j["baseline_median_ms"] = outcome.baseline.medianMs;
        j["baseline_noise"] = outcome.baseline.noise;
        j["improvement_percent"] = outcome.gainPercent;
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
                        "leave the heuristic top only for a gain beyond this fraction (and the measured noise)")
        ->capture_default_str();
    explore->add_option("--seed", exploreArgs->seed, "random input seed")->capture_default_str();
    explore->add_option("--finalists", exploreArgs->finalists, "candidates re-timed back to back")->capture_default_str();
    explore->add_option("--rounds", exploreArgs->rounds, "alternating rounds for the finalists")->capture_default_str();
    explore->add_option("--power-window", exploreArgs->powerWindow,
                        "seconds each finalist runs back to back while power, energy and clocks are read (0: off)")
        ->capture_default_str();
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
    replay->add_option("--rounds", replayArgs->rounds, "alternating rounds")->capture_default_str();
    replay->add_option("--out", replayArgs->out, "also write the result as JSON");
    replay->callback([replayArgs, &ctx] { ctx.exitCode = runReplayCommand(*replayArgs, ctx); });
}

}  // namespace tunescope::cli
