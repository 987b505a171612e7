// merge, promote, decisions: what becomes of results files once measured: shard files combined into one, measurements
// turned into "measured-best" policy, and the decisions of two runs compared (or an A/A run's verdicts counted).
// Exit codes are documented in docs/sweep.md.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/validation.hpp"
#include "tunescope/sweep/promote.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/shard_audit.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope::cli {
namespace {

// --- merge ------------------------------------------------------------------------------------------------------

struct MergeArgs {
    std::vector<std::string> inputs;
    std::string out;
    bool keepFirst = false;
    bool allowMixedDevices = false;
    int expectShards = 0;
};

// merge --expect-shards N: a table of every shard (docs/cluster.md), then every problem; true when there is none.
bool checkShards(const std::vector<std::filesystem::path>& paths, int expectShards) {
    const ShardAudit audit = auditShards(paths, expectShards);
    std::cout << "shard  host          measured  failed  not run  measuring  device(s)                  file\n";
    for (const ShardStatus& s : audit.shards) {
        std::string devices;
        for (const std::string& d : s.devices) devices += (devices.empty() ? "" : ", ") + d;
        char line[400];
        std::snprintf(line, sizeof line, "%-6s %-13s %4zu/%-4zu %6zu  %7zu  %9s  %-26s %s\n",
                      (std::to_string(s.shard.index) + "/" + std::to_string(s.shard.count)).c_str(), s.host.c_str(),
                      s.measured, s.planned, s.failed, s.missing - s.failed,
                      (formatFixed(s.measuringSeconds, 1) + " s").c_str(), devices.empty() ? "-" : devices.c_str(),
                      s.file.string().c_str());
        std::cout << line;
    }
    for (const std::string& p : audit.problems) std::cerr << "tunescope-cli: " << p << '\n';
    return audit.problems.empty();
}

void runMerge(const MergeArgs& args, CliContext& ctx) {
    std::vector<std::filesystem::path> paths(args.inputs.begin(), args.inputs.end());
    if (args.expectShards != 0 && !checkShards(paths, args.expectShards)) {
        std::cerr << "tunescope-cli: " << args.out << " not written\n";
        ctx.exitCode = kExitInvalid;
        return;
    }
    MergeOptions options;
    options.keepFirst = args.keepFirst;
    options.allowMixedDevices = args.allowMixedDevices;
    try {
        const MergeReport report = mergeResults(paths, args.out, options);
        printWarnings(report.warnings);
        std::cout << "merged " << paths.size() << " files into " << args.out << ": " << report.measurements
                  << " measurements";
        if (report.duplicatesDropped) std::cout << ", " << report.duplicatesDropped << " duplicates dropped";
        if (report.copyDuplicatesDropped)
            std::cout << ", " << report.copyDuplicatesDropped << " repeated copy ceilings dropped";
        if (report.errorsKept) std::cout << ", " << report.errorsKept << " errors of unmeasured configs kept";
        std::cout << '\n';
        ctx.exitCode = kExitOk;
    } catch (const MergeConflict& e) {
        std::cerr << "tunescope-cli: " << e.what() << '\n';
        ctx.exitCode = kExitInvalid;
    }
}

void registerMerge(CLI::App& app, CliContext& ctx) {
    auto args = std::make_shared<MergeArgs>();
    CLI::App* merge = app.add_subcommand(
        "merge",
        "Combine results files of one sweep plan (e.g. the shards of --shard i/n) into one. A measurement that "
        "appears twice is refused unless --keep-first; files of other devices (name, architecture, driver) unless "
        "--allow-mixed-devices. Exit codes: 0 merged, 1 the files do not belong together or hold duplicates, 2 usage "
        "or I/O error.");
    merge->add_option("inputs", args->inputs, "results files")->required()->check(CLI::ExistingFile);
    merge->add_option("--out", args->out, "merged results file (written atomically)")->required();
    merge->add_flag("--keep-first", args->keepFirst, "keep the first of duplicate measurements and warn");
    merge->add_option("--expect-shards", args->expectShards,
                      "the inputs are the N shards of one array: refuse (exit 1) unless every shard 0..N-1 is there "
                      "exactly once, complete, and measured on one device model; prints a table per shard")
        ->check(CLI::Range(1, 100000));
    merge->add_flag("--allow-mixed-devices", args->allowMixedDevices,
                    "merge files measured on devices of another name, architecture or driver");
    merge->callback([args, &ctx] { runMerge(*args, ctx); });
}

// --- promote ----------------------------------------------------------------------------------------------------

struct PromoteArgs {
    std::string profile, results, out;
    std::string l2;
    PromoteOptions options;
};

void runPromote(const PromoteArgs& args, CliContext& ctx) {
    PromoteOptions options = args.options;
    if (!args.l2.empty()) {
        L2Regime regime = L2Regime::Cold;
        if (!l2RegimeFromString(args.l2, &regime)) throw Error("", "", "--l2 must be cold, warm or hot (got '" + args.l2 + "')");
        options.l2 = regime;
    }
    PromoteReport report;
    try {
        report = promoteFiles(args.profile, args.results, options);
    } catch (const PromoteRefused& e) {
        std::cerr << "tunescope-cli: refused: " << e.what() << "; " << args.out << " not written\n";
        ctx.exitCode = kExitInvalid;
        return;
    }
    printWarnings(report.warnings);
    std::size_t replaced = 0, decided = 0;
    for (const PromoteEntry& e : report.entries) {
        std::cout << "NB " << e.nb << ": " << (e.promoted ? "measured-best, " : "unchanged, ") << e.note << '\n';
        decided += e.promoted ? 1 : 0;
        replaced += e.promoted && !(e.newConfig == e.oldConfig) ? 1 : 0;
    }
    std::cout << "replaced the config of " << replaced << " of " << decided << " measured entries\n";
    if (report.promotedCount == 0) {
        std::cerr << "tunescope-cli: nothing to promote: no eligible entry's NB was measured in " << args.results
                  << "; " << args.out << " not written\n";
        ctx.exitCode = kExitInvalid;
        return;
    }
    // The result must pass validate; check before writing so that a bad promotion never lands on disk.
    ValidationOptions validation;
    validation.baseDir = std::filesystem::absolute(args.out).parent_path();
    const ValidationResult check = validateProfile(report.profile, validation);
    if (!check.valid()) {
        for (const Diagnostic& d : check.diagnostics)
            if (d.severity == Severity::Error) std::cerr << "tunescope-cli: " << formatDiagnostic(d) << '\n';
        std::cerr << "tunescope-cli: the promoted profile would not pass validate; " << args.out << " not written\n";
        ctx.exitCode = kExitInvalid;
        return;
    }
    saveProfile(report.profile, args.out);
    const RuntimeVersions& where = report.profile.runtime;
    const auto extra = [&](const char* key) {
        return where.original.is_object() && where.original.contains(key) && where.original[key].is_string()
                   ? where.original[key].get<std::string>()
                   : std::string("?");
    };
    std::cout << "runtime: " << extra("gpu") << " (" << where.gpu_arch << "), " << (where.cuda ? "CUDA " + *where.cuda : where.hip ? "HIP " + *where.hip : std::string("no GPU runtime"))
              << ", Triton " << where.triton << ", FLA " << where.fla << ", timer " << extra("timer") << ", "
              << extra("l2") << " L2 (the profile's previous runtime block is kept in runtime_history)\n";
    std::cout << "promoted " << report.promotedCount << " entries into " << args.out << '\n';
    ctx.exitCode = kExitOk;
}

void registerPromote(CLI::App& app, CliContext& ctx) {
    auto args = std::make_shared<PromoteArgs>();
    CLI::App* promoteCmd = app.add_subcommand(
        "promote",
        "Make each prospective per-NB entry whose NB was measured \"measured-best\", with evidence from the results "
        "file. The incumbent stays when it is in the tie set of the fastest config (paired over rounds); otherwise "
        "the tie rule picks from the tie set (docs/sweep.md). The profile's runtime block and target then say "
        "where the entries were measured (the old block is kept in runtime_history). Exit codes: 0 written, "
        "1 nothing to promote, refused (the results mix L2 regimes or timers, or the entries would come from more "
        "than one GPU architecture) or the result would not pass validate (nothing written), 2 usage or I/O error.");
    promoteCmd->add_option("profile", args->profile, "profile to promote")->required();
    promoteCmd->add_option("--results", args->results, "sweep results file (merge shards first)")->required();
    promoteCmd->add_option("--out", args->out, "the promoted profile (written atomically)")->required();
    promoteCmd->add_option("--threshold", args->options.threshold,
                           "relative gap the paired interval must clear to call a config FASTER or SLOWER")
        ->capture_default_str();
    promoteCmd->add_flag("--all-bases", args->options.includeAllBases,
                         "also promote original-production-chosen and imported entries");
    promoteCmd->add_option("--l2", args->l2,
                           "the L2 regime to decide on (cold, warm or hot) when the results hold several (sweep --l2 "
                           "both); one decision never mixes regimes");
    promoteCmd->add_flag("--allow-mixed-architectures", args->options.allowMixedArchitectures,
                         "promote although the entries would come from more than one GPU architecture (e.g. NBs "
                         "measured on an H200 beside production's gfx942 choices)");
    promoteCmd->add_option("--fla", args->options.flaVersion,
                           "the FLA version the measured Triton binaries were compiled from (for the runtime block; "
                           "default unknown)");
    promoteCmd->callback([args, &ctx] { runPromote(*args, ctx); });
}

// --- decisions --------------------------------------------------------------------------------------------------

struct DecisionsArgs {
    std::vector<std::string> files;
    double threshold = 0.005;
};

// Results files are JSON Lines whose lines have a "type" (the header's is "header"); a profile is one JSON document.
// A file of JSON lines without its header is a results file, and loadResults says "the first line is not a results
// header"; anything that is no JSON at all is read as a profile, whose parser names the line and column.
bool isResultsFile(const std::string& file) {
    const std::string text = readTextFile(file, kMaxResultsFileBytes);
    const std::string_view first(text.data(), std::min(text.find('\n'), text.size()));
    if (findExcessiveNesting(first)) return false;
    const Json firstLine = Json::parse(first, nullptr, false);
    if (firstLine.is_object() && firstLine.contains("type")) return true;
    if (findExcessiveNesting(text) || !Json::parse(text, nullptr, false).is_discarded()) return false;
    return !firstLine.is_discarded();
}

// (NB, L2 regime) -> (pick, tie set) of one run: decisions of different regimes are never compared.
using Picks = std::map<std::pair<int, L2Regime>, std::pair<L2NormConfig, std::vector<L2NormConfig>>>;

Picks picksOfResults(const ResultsFile& results, double threshold) {
    std::map<std::pair<int, L2Regime>, std::int64_t> decisiveRows;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm)
            decisiveRows[{r.nb, r.l2}] = std::max(decisiveRows[{r.nb, r.l2}], r.rows);
    std::map<std::pair<int, L2Regime>, std::vector<const ResultRecord*>> byNb;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm && r.rows == decisiveRows[{r.nb, r.l2}] && r.replica == 0)
            byNb[{r.nb, r.l2}].push_back(&r);
    Picks picks;
    for (const auto& [nb, records] : byNb) {
        const ShapeDecision d = decideShape(records, threshold);
        if (!d.fastest) continue;
        std::vector<L2NormConfig> ties;
        for (const ResultRecord* t : d.ties) ties.push_back(t->config);
        // The decision is the tie rule's pick (what promote chooses when the incumbent is not a tie).
        picks[nb] = {d.ties.front()->config, ties};
    }
    return picks;
}

Picks picksOfProfile(const std::string& file) {
    const Profile profile = loadProfile(file);
    Picks picks;
    for (const PolicyEntry& e : profile.per_NB_policy) {
        if (e.basis != kBasisMeasured || !e.evidence) continue;
        std::vector<L2NormConfig> ties;
        const Json& original = e.evidence->original;
        if (original.is_object() && original.contains("tie_set") && original["tie_set"].is_array())
            for (const Json& t : original["tie_set"]) ties.push_back(toL2NormConfig(tritonConfigFromJson(t, file)));
        // The evidence's regime ("l2"; older evidence: cold_l2).
        L2Regime regime = L2Regime::Cold;
        if (original.is_object() && original.contains("l2") && original["l2"].is_string())
            l2RegimeFromString(original["l2"].get<std::string>(), &regime);
        else if (original.is_object() && original.contains("cold_l2") && original["cold_l2"] == false)
            regime = L2Regime::Hot;
        picks[{static_cast<int>(e.NB), regime}] = {toL2NormConfig(e.config), ties};
    }
    return picks;
}

// One results file of an A/A plan: every replica against replica 0 of its config; identical work should never be
// FASTER or SLOWER. Returns the exit code.
int countAaVerdicts(const std::string& file, double threshold) {
    if (!isResultsFile(file)) throw Error(file, "", "an A/A count needs a results file of a sweep with --aa-replicas");
    const ResultsFile results = loadResults(file);
    printWarnings(results.warnings);
    std::map<ShapeKey, std::vector<const ResultRecord*>> byShape;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm) byShape[shapeKeyOf(r)].push_back(&r);
    std::size_t pairs = 0, decisive = 0, same = 0;
    for (const auto& [shape, records] : byShape) {
        const ShapeDecision d = decideShape(records, threshold);
        std::map<std::string, const ResultRecord*> firstReplica;
        for (const ResultRecord* r : records)
            if (r->replica == 0) firstReplica[configText(r->config)] = r;
        for (const ResultRecord* r : records) {
            if (r->replica == 0) continue;
            const auto base = firstReplica.find(configText(r->config));
            if (base == firstReplica.end()) continue;
            const PairedComparison paired = comparePairedRecords(*r, *base->second, d);
            ++pairs;
            if (paired.verdict == Comparison::Faster || paired.verdict == Comparison::Slower) {
                ++decisive;
                std::cout << "NB " << shape.nb << " " << toString(shape.l2) << " " << configText(r->config) << " replica "
                          << r->replica << ": "
                          << toString(paired.verdict) << " (" << paired.reason << ")\n";
            }
            same += paired.verdict == Comparison::Same ? 1 : 0;
        }
    }
    if (pairs == 0) {
        std::cerr << "tunescope-cli: " << file << " has no replicas (sweep with --aa-replicas 2)\n";
        return kExitInvalid;
    }
    char line[200];
    std::snprintf(line, sizeof line, "A/A: %zu FASTER/SLOWER of %zu identical pairs (%.2f%%), %zu SAME\n", decisive,
                  pairs, 100.0 * static_cast<double>(decisive) / static_cast<double>(pairs), same);
    std::cout << line;
    return kExitOk;
}

// Two runs (results files or promoted profiles): per NB the same config, or each pick in the other's tie set.
// Returns the exit code.
int compareDecisions(const std::string& fileA, const std::string& fileB, double threshold) {
    const auto picksOf = [&](const std::string& file) {
        if (!isResultsFile(file)) return picksOfProfile(file);
        const ResultsFile results = loadResults(file);
        printWarnings(results.warnings);
        return picksOfResults(results, threshold);
    };
    const Picks a = picksOf(fileA), b = picksOf(fileB);
    const auto contains = [](const std::vector<L2NormConfig>& set, const L2NormConfig& c) {
        return std::find(set.begin(), set.end(), c) != set.end();
    };
    std::size_t compared = 0, agree = 0;
    for (const auto& [nb, pickA] : a) {
        const auto pickB = b.find(nb);
        if (pickB == b.end()) continue;
        ++compared;
        const bool sameConfig = pickA.first == pickB->second.first;
        const bool mutualTie =
            contains(pickB->second.second, pickA.first) && contains(pickA.second, pickB->second.first);
        agree += sameConfig || mutualTie ? 1 : 0;
        std::cout << "NB " << nb.first << " " << toString(nb.second) << ": " << configText(pickA.first, ConfigText::Slashes) << " (" << pickA.second.size()
                  << " ties) vs " << configText(pickB->second.first, ConfigText::Slashes) << " ("
                  << pickB->second.second.size() << " ties): "
                  << (sameConfig ? "same config" : mutualTie ? "each in the other's tie set" : "DIFFERENT") << '\n';
    }
    if (compared == 0) {
        std::cerr << "tunescope-cli: the two files decide no NB in common (in the same L2 regime)\n";
        return kExitInvalid;
    }
    char line[200];
    std::snprintf(line, sizeof line, "same decision at %zu of %zu NBs (%.1f%%)\n", agree, compared,
                  100.0 * static_cast<double>(agree) / static_cast<double>(compared));
    std::cout << line;
    return kExitOk;
}

void registerDecisions(CLI::App& app, CliContext& ctx) {
    auto args = std::make_shared<DecisionsArgs>();
    CLI::App* decisions = app.add_subcommand(
        "decisions",
        "Compare the decisions of two runs (two results files or two promoted profiles): per NB, the same decision "
        "is the same config, or each run's pick inside the other's tie set (a results file's pick is the tie rule's: "
        "the fastest config, the first of the tie set). With one results file of an A/A plan "
        "(sweep --aa-replicas 2), count the FASTER/SLOWER verdicts between identical work instead. Exit codes: "
        "0 compared, 1 nothing to compare, 2 usage or I/O error.");
    decisions->add_option("files", args->files, "two results files, two promoted profiles, or one A/A results file")
        ->required()->check(CLI::ExistingFile)->expected(1, 2);
    decisions->add_option("--threshold", args->threshold, "paired threshold (as promote's)")->capture_default_str();
    decisions->callback([args, &ctx] {
        ctx.exitCode = args->files.size() == 1 ? countAaVerdicts(args->files.front(), args->threshold)
                                               : compareDecisions(args->files[0], args->files[1], args->threshold);
    });
}

}  // namespace

void registerResultsCommands(CLI::App& app, CliContext& ctx) {
    registerMerge(app, ctx);
    registerPromote(app, ctx);
    registerDecisions(app, ctx);
}

}  // namespace tunescope::cli
