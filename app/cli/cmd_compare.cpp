// compare: two sweep results files side by side (nvbench-compare style). Prints per NB the winners of each run and
// what keeping A's winner costs on B, then the verdict counts; --all adds every shape x config pair. The numbers come
// from tunescope::compareRuns(), which the GUI's compare view shows too (docs/sweep.md).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/sweep/fla_capture_compare.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/run_compare.hpp"

namespace tunescope::cli {
namespace {

struct CompareArgs {
    std::string fileA, fileB;
    bool all = false;
    double threshold = 0.005;
    bool failOnSlower = false;
};

std::string signedPercent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100.0);
    return text;
}

std::string quality(const ResultRecord& r) {
    if (isTrustworthy(r.m)) return std::to_string(r.m.sampleCount) + " samples";
    return toString(r.m.stopReason) + " after " + std::to_string(r.m.sampleCount);
}

bool isCaptureSweepFile(const std::string& file) {
    try {
        return isFlaCaptureSweepDocument(readJsonFile(file));
    } catch (const std::exception&) {
        return false;  // not one JSON document: a results file (JSON Lines), or unreadable (loadResults says why)
    }
}

// Two `sweep --manifest` files (docs/fla-capture.md section 12): per kernel and key, each run's choice and what A's
// costs on B. Every fault of either file is printed with its pointer, exit 2.
void runCaptureCompare(const CompareArgs& args, CliContext& ctx) {
    std::optional<FlaCaptureSweepFile> sides[2];
    const std::string files[2] = {args.fileA, args.fileB};
    for (int i = 0; i < 2; ++i) {
        FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(files[i]);
        for (const FlaCaptureFault& f : check.faults)
            std::cerr << "tunescope-cli: " << Error(check.file, f.pointer, f.message).what() << "\n";
        if (!check.sweep) {
            ctx.exitCode = kExitUsageOrIo;
            return;
        }
        sides[i] = std::move(check.sweep);
    }
    const FlaCaptureComparison result = compareFlaCaptureSweeps(*sides[0], args.fileA, *sides[1], args.fileB);
    std::cout << formatFlaCaptureComparison(result, args.all);
    ctx.exitCode = kExitOk;
}

void runCompare(const CompareArgs& args, CliContext& ctx) {
    const bool captureA = isCaptureSweepFile(args.fileA), captureB = isCaptureSweepFile(args.fileB);
    if (captureA && captureB) return runCaptureCompare(args, ctx);
    if (captureA != captureB) {
        std::cerr << "tunescope-cli: " << (captureA ? args.fileA : args.fileB)
                  << " is a capture sweep (sweep --manifest) and " << (captureA ? args.fileB : args.fileA)
                  << " is not: compare two sweep results files or two capture sweeps\n";
        ctx.exitCode = kExitUsageOrIo;
        return;
    }
    ResultsFile a, b;
    try {
        a = loadResults(args.fileA);
        b = loadResults(args.fileB);
    } catch (const std::exception& e) {
        std::cerr << "tunescope-cli: " << e.what() << "\n";
        ctx.exitCode = kExitUsageOrIo;
        return;
    }
    printWarnings(a.warnings);
    printWarnings(b.warnings);
    RunCompareOptions options;
    options.compare.clearGapRelative = args.threshold;
    options.compare.sameCenterRelative = args.threshold;
    const RunComparison result = compareRuns(a, b, options);

    std::cout << "A: " << result.fileA << " (" << result.deviceA << ", " << describeKernel(result.kernelA) << ", "
              << a.header.createdUtc << ")\n"
              << "B: " << result.fileB << " (" << result.deviceB << ", " << describeKernel(result.kernelB) << ", "
              << b.header.createdUtc << ")\n\n";
    if (args.all) {
        std::printf("%-6s %-4s %-22s %12s %12s %8s %17s  %-10s %s\n", "kind", "NB", "config", "A median us",
                    "B median us", "B/A", "B/A interval", "verdict", "quality (A | B)");
        for (const RunComparisonRow& row : result.rows) {
            const bool copy = row.kind == ResultRecord::Kind::Copy;
            char interval[48];
            std::snprintf(interval, sizeof interval, "[%.3f, %.3f]", row.ratioLow, row.ratioHigh);
            std::printf("%-6s %-4d %-22s %12s %12s %8.3f %17s  %-10s %s | %s\n", toString(row.kind).c_str(), row.nb,
                        copy ? "-" : configText(row.config, ConfigText::Short).c_str(), formatFixed(row.a->m.medianMs * 1000.0, 2).c_str(),
                        formatFixed(row.b->m.medianMs * 1000.0, 2).c_str(), row.ratio, interval, toString(row.verdict).c_str(),
                        quality(*row.a).c_str(), quality(*row.b).c_str());
        }
        std::cout << "\n";
    }
    std::printf("%-4s %-22s %10s  %-22s %10s  %-14s %-9s %s\n", "NB", "winner A", "A us", "winner B", "B us",
                "A's winner on B", "rank rho", "change");
    for (const RunComparisonNb& nb : result.perNb) {
        const std::string winnerA = nb.winnerA ? configText(*nb.winnerA, ConfigText::Short) : "(none converged)";
        const std::string winnerB = nb.winnerB ? configText(*nb.winnerB, ConfigText::Short) : "(none converged)";
        const std::string regret = nb.regretOfAWinnerOnB ? signedPercent(*nb.regretOfAWinnerOnB) : "n/a";
        std::string change = "same winner";
        if (!nb.winnerA || !nb.winnerB) change = "n/a";
        else if (nb.winnerChanged)
            change = nb.winnerChangeVerdict == Comparison::Faster ? "new winner, faster" : "new winner within noise (tie)";
        char rho[16] = "n/a";
        if (nb.rankCorrelation) std::snprintf(rho, sizeof rho, "%.3f", *nb.rankCorrelation);
        std::printf("%-4d %-22s %10s  %-22s %10s  %-14s %-9s %s\n", nb.nb, winnerA.c_str(),
                    nb.winnerA ? formatFixed(nb.winnerAMedianMs * 1000.0, 2).c_str() : "-", winnerB.c_str(),
                    nb.winnerB ? formatFixed(nb.winnerBMedianMs * 1000.0, 2).c_str() : "-", regret.c_str(), rho, change.c_str());
    }
    std::cout << "\n"
              << result.rows.size() << " pairs compared (B against A): " << result.faster << " FASTER, " << result.slower
              << " SLOWER, " << result.same << " SAME, " << result.ambiguous << " AMBIGUOUS\n";
    char geomean[64];
    std::snprintf(geomean, sizeof geomean, "%.4f", result.geomeanRatio);
    std::cout << "geometric mean of the l2norm ratios B/A: " << geomean << "\n"
              << "winners changed at " << result.winnersChanged << " of " << result.perNb.size() << " NBs ("
              << result.winnersChangedSignificantly << " significantly)\n";
    if (result.lowestRankCorrelation) {
        char rho[64];
        std::snprintf(rho, sizeof rho, "%.3f at NB %d", *result.lowestRankCorrelation, result.lowestRankNb);
        std::cout << "rank agreement (Spearman over the configs both runs measured, per NB): lowest " << rho << "\n";
    }
    if (result.kernelA != result.kernelB)
        std::cout << "the runs measured different kernels: the ratios compare the kernels, the rank agreement says "
                     "whether tuning on A picks B's configs\n";
    if (result.untrustworthyPairs > 0)
        std::cout << result.untrustworthyPairs << " pairs have a side that did not converge (never a winner)\n";
    if (result.onlyInA + result.onlyInB > 0)
        std::cout << result.onlyInA << " records only in A, " << result.onlyInB << " only in B\n";
    if (result.duplicatesIgnored > 0) std::cout << result.duplicatesIgnored << " duplicate records ignored\n";
    ctx.exitCode = args.failOnSlower && result.slower > 0 ? kExitInvalid : kExitOk;
}

}  // namespace

void registerCompareCommands(CLI::App& app, CliContext& ctx) {
    auto args = std::make_shared<CompareArgs>();
    CLI::App* compare = app.add_subcommand(
        "compare",
        "Compare two sweep results files (.jsonl or .jsonl.gz): per shape x config the ratio B/A of the medians with "
        "a conservative verdict (FASTER/SLOWER/SAME/AMBIGUOUS, B against A), per NB each run's winner and the cost "
        "of keeping A's winner on B. Two capture sweeps (sweep --manifest) compare per kernel and key: each run's "
        "choice, what A's costs on B, the rank agreement (--all: every config's totals). Exit codes: 0 compared "
        "(1 with --fail-on-slower when any pair is SLOWER), 2 usage or I/O error.");
    compare->add_option("A", args->fileA, "baseline results file")->required()->check(CLI::ExistingFile);
    compare->add_option("B", args->fileB, "results file compared against A")->required()->check(CLI::ExistingFile);
    compare->add_flag("--all", args->all, "also print every shape x config pair");
    compare->add_option("--threshold", args->threshold,
                        "relative gap for FASTER/SLOWER and band for SAME (compareMeasurements)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    compare->add_flag("--fail-on-slower", args->failOnSlower, "exit 1 when any pair is SLOWER on B");
    compare->callback([args, &ctx] { runCompare(*args, ctx); });
}

}  // namespace tunescope::cli
