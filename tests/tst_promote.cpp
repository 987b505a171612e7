// promote: prospective entries whose NB was measured become "measured-best" with evidence; an incumbent that the
// fastest config does not beat clearly (compare() != FASTER) stays; other bases stay; the result validates.
// Results come from sweeps on the scripted test device (sweep_test_fixtures.hpp), whose timings are exact.
#include <algorithm>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

#include "sweep_test_fixtures.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/validation.hpp"
#include "tunescope/sweep/promote.hpp"
#include "tunescope/sweep/sweep.hpp"

using namespace tunescope;
using tunescope::testing::ScriptedDevice;
using tunescope::testing::ScriptedDeviceScript;

namespace {

std::filesystem::path seedProfile() {
    return std::filesystem::path(qEnvironmentVariable("TUNESCOPE_PROFILES").toStdString()) / "fla-l2norm-gfx942-profile.json";
}

// The seed's incumbent for NB 14..32 is BT=32 num_warps=8 num_stages=3 (prospective). The script makes:
//   NB 14: BT=8 num_warps=1 num_stages=3 clearly faster (0.90 vs 1.00)          -> replaced
//   NB 15: BT=8 num_warps=1 num_stages=3 faster by 0.2% only (0.998 vs 1.00)     -> incumbent kept (a tie: SAME)
//   NB 16: every config equally fast                                            -> incumbent kept (SAME)
//   NB 1 (original-production-chosen) and NB 2 (not prospective) are measured too, but must not change.
ScriptedDeviceScript promoteScript(const std::string& architecture = "gfx942") {
    ScriptedDeviceScript script;
    script.architecture = architecture;  // the seed profile's target: its incumbents have standing here
    script.timeMs = [](const L2NormConfig& c, std::int64_t rows) {
        const int nb = static_cast<int>(rows / 65536);
        const bool incumbent = c == L2NormConfig{32, 8, 3, 1};
        const bool challenger = c == L2NormConfig{8, 1, 3, 1};
        if (nb == 16) return 1.0;
        if (incumbent) return 1.0;
        if (challenger) return nb == 14 ? 0.90 : nb == 15 ? 0.998 : 0.5;
        return 1.2;
    };
    return script;
}

SweepPlan promotePlan() {
    SweepPlan plan;
    plan.backend = "scripted";
    plan.shapes = shapesFromNbList({1, 2, 14, 15, 16});
    plan.grid = gridFromLists({8, 32}, {1, 8}, {3});
    plan.rule.minSamples = 10;
    plan.rule.minTimeMs = 0;
    plan.rule.timeoutMs = 1e9;
    return plan;
}

std::filesystem::path runPromoteSweep(const std::filesystem::path& dir, const std::string& architecture = "gfx942") {
    ScriptedDevice device(0, promoteScript(architecture));
    SweepOptions options;
    options.out = dir / "results.jsonl";
    options.deviceWarmupMs = 0;
    runSweep(promotePlan(), {&device}, options);
    return options.out;
}

const PromoteEntry& entryFor(const PromoteReport& report, int nb) {
    for (const PromoteEntry& e : report.entries)
        if (e.nb == nb) return e;
    throw std::runtime_error("no entry for NB " + std::to_string(nb));
}

}  // namespace

class TestPromote : public QObject {
    Q_OBJECT
private slots:
    // Measured on another GPU architecture than the profile targets (the gfx942 seed re-tuned on an sm_90 H200), a
    // tie no longer keeps the incumbent: it was chosen for other hardware, and the fastest is taken.
    void foreignArchitectureTakesTheFastestOnATie() {
        QTemporaryDir dir;
        const std::filesystem::path base = dir.path().toStdString();
        const std::filesystem::path results = runPromoteSweep(base, "sm_90");
        // Three sm_90 entries beside the seed's gfx942 choices: refused, unless allowed (as here, to see the tie rule).
        QVERIFY_THROWS_EXCEPTION(PromoteRefused, promoteFiles(seedProfile(), results));
        PromoteOptions allowMixed;
        allowMixed.allowMixedArchitectures = true;
        const PromoteReport report = promoteFiles(seedProfile(), results, allowMixed);
        QCOMPARE(report.promotedCount, std::size_t(3));
        QVERIFY(std::any_of(report.warnings.begin(), report.warnings.end(), [](const std::string& w) {
            return w == "measured on sm_90 but the profile targets gfx942";
        }));
        const PromoteEntry& nb15 = entryFor(report, 15);  // 0.998 vs 1.00: a tie (SAME)
        QVERIFY(!nb15.keptIncumbent);
        QVERIFY(nb15.incumbentForeign);
        QCOMPARE(int(nb15.bestVsIncumbent), int(Comparison::Same));
        QCOMPARE(describe(nb15.newConfig), describe(fromL2NormConfig({8, 1, 3, 1})));
        QVERIFY2(nb15.note.find("chosen for gfx942 and this is sm_90") != std::string::npos, nb15.note.c_str());
        const PromoteEntry& nb16 = entryFor(report, 16);  // all equal: the tie rule's first, the smallest config
        QVERIFY(nb16.incumbentForeign);
        QCOMPARE(describe(nb16.newConfig), describe(fromL2NormConfig({8, 1, 3, 1})));
        const PromoteEntry& nb14 = entryFor(report, 14);  // clearly faster: replaced either way, not "foreign"
        QVERIFY(!nb14.incumbentForeign);
        QCOMPARE(int(nb14.bestVsIncumbent), int(Comparison::Faster));
    }

    void promotesMeasuredProspectiveEntries() {
        QTemporaryDir dir;
        const std::filesystem::path base = dir.path().toStdString();
        const auto results = runPromoteSweep(base);
        const Profile seed = loadProfile(seedProfile());
        const PromoteReport report = promoteFiles(seedProfile(), results);

        QCOMPARE(report.entries.size(), seed.per_NB_policy.size());
        QCOMPARE(report.promotedCount, std::size_t(3));  // NB 14, 15, 16

        const PromoteEntry& nb14 = entryFor(report, 14);
        QVERIFY(nb14.promoted);
        QVERIFY(!nb14.keptIncumbent);
        QVERIFY(nb14.incumbentMeasured);
        QCOMPARE(int(nb14.bestVsIncumbent), int(Comparison::Faster));
        QCOMPARE(describe(nb14.newConfig), describe(fromL2NormConfig({8, 1, 3, 1})));

        const PromoteEntry& nb15 = entryFor(report, 15);
        QVERIFY(nb15.promoted);
        QVERIFY(nb15.keptIncumbent);
        QCOMPARE(int(nb15.bestVsIncumbent), int(Comparison::Same));  // 0.998 in every round: within 0.5%
        QVERIFY(nb15.newConfig == seed.policyFor(15)->config);

        const PromoteEntry& nb16 = entryFor(report, 16);
        QVERIFY(nb16.keptIncumbent);
        QCOMPARE(int(nb16.bestVsIncumbent), int(Comparison::Same));

        // Entries that are not prospective, and NBs that were not measured, are untouched.
        QVERIFY(!entryFor(report, 1).promoted);
        QVERIFY(!entryFor(report, 2).promoted);
        QVERIFY(!entryFor(report, 17).promoted);
        for (int nb : {1, 2, 3, 17, 32}) {
            const PolicyEntry* before = seed.policyFor(nb);
            const PolicyEntry* after = report.profile.policyFor(nb);
            QCOMPARE(after->basis, before->basis);
            QVERIFY(after->config == before->config);
            QVERIFY(!after->evidence);
        }

        // The evidence: what was measured, where, and which file says so.
        const PolicyEntry* p14 = report.profile.policyFor(14);
        QCOMPARE(p14->basis, std::string(kBasisMeasured));
        QVERIFY(p14->evidence);
        const MeasuredEvidence& e = *p14->evidence;
        QCOMPARE(e.median_ms, 0.90);
        QCOMPARE(e.p20_ms, 0.90);
        QCOMPARE(e.p80_ms, 0.90);
        QCOMPARE(e.samples, std::int64_t(3 * 10));  // 3 rounds of 10 samples
        QCOMPARE(e.results_sha256, sha256FileHex(results));
        QCOMPARE(e.device, std::string("Scripted test device 0 (gfx942)"));
        QCOMPARE(e.original["measured_config"]["kwargs"]["BT"].get<int>(), 8);
        QCOMPARE(e.original["results_file"].get<std::string>(), std::string("results.jsonl"));
        QCOMPARE(e.original["rel_noise"].get<double>(), 0.0);
        const MeasuredEvidence& kept = *report.profile.policyFor(15)->evidence;
        QCOMPARE(kept.median_ms, 1.0);  // the incumbent's own measurement
        QCOMPARE(kept.original["fastest_median_ms"].get<double>(), 0.998);
        QCOMPARE(kept.original["fastest_config"]["kwargs"]["BT"].get<int>(), 8);
    }

    void promotedProfileValidatesAndRoundTrips() {
        QTemporaryDir dir;
        const std::filesystem::path base = dir.path().toStdString();
        const auto results = runPromoteSweep(base);
        const PromoteReport report = promoteFiles(seedProfile(), results);
        saveProfile(report.profile, base / "promoted.json");

        const ValidationResult check = validateFile(base / "promoted.json");
        for (const Diagnostic& d : check.diagnostics)
            if (d.severity == Severity::Error) qWarning("%s", formatDiagnostic(d).c_str());
        QVERIFY(check.valid());
        QCOMPARE(check.withRule("basis-prospective").size(), std::size_t(18 - 3));  // three fewer warnings

        const Profile again = loadProfile(base / "promoted.json");
        QVERIFY(again.policyFor(14)->evidence);
        QCOMPARE(again.policyFor(14)->evidence->results_sha256, sha256FileHex(results));
        QCOMPARE(again.policyFor(14)->basis, std::string(kBasisMeasured));
        // Everything the seed had besides the promoted entries is still there.
        const Profile seed = loadProfile(seedProfile());
        QCOMPARE(again.source_evidence.size(), seed.source_evidence.size());
        QCOMPARE(again.builder_sha256, seed.builder_sha256);

        // Promoting again from the same results keeps every decision (measured entries are re-promoted).
        const PromoteReport twice = promoteFiles(base / "promoted.json", results);
        QCOMPARE(twice.promotedCount, std::size_t(3));
        for (const PolicyEntry& entry : again.per_NB_policy) {
            const PolicyEntry* next = twice.profile.policyFor(entry.NB);
            QCOMPARE(next->basis, entry.basis);
            QVERIFY(next->config == entry.config);
            if (entry.evidence) QCOMPARE(next->evidence->median_ms, entry.evidence->median_ms);
        }
        QCOMPARE(twice.profile.policyFor(14)->evidence->original["decision"].get<std::string>(),
                 std::string("kept the incumbent: it is the fastest measured config"));
    }

    void nothingMeasuredMeansNothingPromoted() {
        QTemporaryDir dir;
        const std::filesystem::path base = dir.path().toStdString();
        ScriptedDevice device;
        SweepPlan plan = promotePlan();
        plan.shapes = shapesFromNbList({1, 2, 40});  // no prospective NB
        SweepOptions options;
        options.out = base / "r.jsonl";
        options.deviceWarmupMs = 0;
        runSweep(plan, {&device}, options);
        const PromoteReport report = promoteFiles(seedProfile(), options.out);
        QCOMPARE(report.promotedCount, std::size_t(0));
        QVERIFY(report.profile.per_NB_policy.size() == loadProfile(seedProfile()).per_NB_policy.size());

        // The CLI says so with exit 1 and writes nothing.
        QProcess cli;
        cli.start(qEnvironmentVariable("TUNESCOPE_CLI"),
                  {QStringLiteral("promote"), QString::fromStdString(seedProfile().string()), QStringLiteral("--results"),
                   QString::fromStdString(options.out.string()), QStringLiteral("--out"),
                   QString::fromStdString((base / "new.json").string())});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY(QString::fromUtf8(cli.readAllStandardError()).contains(QStringLiteral("nothing to promote")));
        QVERIFY(!std::filesystem::exists(base / "new.json"));
    }

    void cliPromoteWritesAValidProfile() {
        QTemporaryDir dir;
        const std::filesystem::path base = dir.path().toStdString();
        const auto results = runPromoteSweep(base);
        const QString out = QString::fromStdString((base / "new.json").string());
        QProcess cli;
        cli.start(qEnvironmentVariable("TUNESCOPE_CLI"),
                  {QStringLiteral("promote"), QString::fromStdString(seedProfile().string()), QStringLiteral("--results"),
                   QString::fromStdString(results.string()), QStringLiteral("--out"), out});
        QVERIFY(cli.waitForFinished(60000));
        const QString stdoutText = QString::fromUtf8(cli.readAllStandardOutput());
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(stdoutText.contains(QStringLiteral("promoted 3 entries")), qPrintable(stdoutText));
        QVERIFY(stdoutText.contains(QStringLiteral("NB 15: measured-best, kept")));

        QProcess validate;
        validate.start(qEnvironmentVariable("TUNESCOPE_CLI"), {QStringLiteral("validate"), out});
        QVERIFY(validate.waitForFinished(60000));
        QCOMPARE(validate.exitCode(), 0);

        // Bad inputs: exit 2 with the file named.
        QProcess missing;
        missing.start(qEnvironmentVariable("TUNESCOPE_CLI"),
                      {QStringLiteral("promote"), QString::fromStdString(seedProfile().string()), QStringLiteral("--results"),
                       QString::fromStdString((base / "none.jsonl").string()), QStringLiteral("--out"), out});
        QVERIFY(missing.waitForFinished(60000));
        QCOMPARE(missing.exitCode(), 2);
        QVERIFY(QString::fromUtf8(missing.readAllStandardError()).contains(QStringLiteral("none.jsonl")));
    }

    void allBasesOptionPromotesProductionEntriesToo() {
        QTemporaryDir dir;
        const auto results = runPromoteSweep(std::filesystem::path(dir.path().toStdString()));
        PromoteOptions options;
        options.includeAllBases = true;
        const PromoteReport report = promoteFiles(seedProfile(), results, options);
        QCOMPARE(report.promotedCount, std::size_t(5));  // NB 1, 2, 14, 15, 16
        QCOMPARE(report.profile.policyFor(1)->basis, std::string(kBasisMeasured));
    }

    void measuredOnAnotherArchitectureWarns() {
        QTemporaryDir dir;
        const auto results = runPromoteSweep(std::filesystem::path(dir.path().toStdString()), "sm_90");
        PromoteOptions allowMixed;  // sm_90 entries beside the seed's gfx942 ones
        allowMixed.allowMixedArchitectures = true;
        const PromoteReport report = promoteFiles(seedProfile(), results, allowMixed);
        bool warned = false;
        for (const std::string& w : report.warnings) warned = warned || w.find("targets gfx942") != std::string::npos;
        QVERIFY(warned);  // the scripted device says sm_90, the seed targets gfx942
    }
};

QTEST_GUILESS_MAIN(TestPromote)
#include "tst_promote.moc"
