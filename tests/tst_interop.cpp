// Triton autotune cache import, FLA config-cache import/export, lookup and diff.
#include <cmath>

#include <QtCore/QProcess>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include "formats_test_support.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/diff.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/lookup.hpp"
#include "tunescope/formats/triton_cache.hpp"
#include "tunescope/formats/validation.hpp"

using namespace tunescope;
using namespace formats_test;
namespace fs = std::filesystem;

namespace {

fs::path cacheFile(const std::string& dir) { return data("triton-cache") / dir / "l2norm_fwd_kernel.autotune.json"; }

Profile seed() { return loadProfile(bundled(kProfileSeed)); }

std::string dump(const ValidationResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += formatDiagnostic(d) + "\n";
    return out;
}

}  // namespace

class TestInterop : public QObject {
    Q_OBJECT

private slots:
    // ---- FLA key hash ----------------------------------------------------------------------------------------

    void flaKeyHashMatchesFla() {
        QCOMPARE(flaKeyHash(Json::parse(R"([128,1,"torch.bfloat16","torch.bfloat16","torch.float32"])")),
                 std::string("878a9638751a7375a0fb15d3a7767659"));
        const Supported s;
        QCOMPARE(flaKeyHash(s.keyFor(2).toJson()), std::string("eca743e0790be43b6867d648e9430f67"));
        QCOMPARE(flaKeyHash(s.keyFor(32).toJson()), std::string("801422dba59f6c5e144328aabdd135a3"));
        // String key items hash differently: FLA's runtime key has numbers, so the importer normalises them.
        QVERIFY(flaKeyHash(Json::parse(R"(["128","1","torch.bfloat16","torch.bfloat16","torch.float32"])")) !=
                std::string("878a9638751a7375a0fb15d3a7767659"));
    }

    void pythonCompactSortedForm() {
        const Json value = Json::parse(R"({"b": [1, 2.5, null, true], "a": {"z": "\u00e9", "y": 1e16}, "c": 0.0001})");
        QCOMPARE(pythonCompactSortedJson(value),
                 std::string(R"({"a":{"y":1e+16,"z":"\u00e9"},"b":[1,2.5,null,true],"c":0.0001})"));
    }

    // ---- Triton autotune cache ---------------------------------------------------------------------------------

    void parsesInfinityTimingsAndPicksTritonsChoice() {
        const TritonAutotuneCache c = loadTritonAutotuneCache(cacheFile("ABCDEF234"));
        QCOMPARE(c.sha256, sha256FileHex(cacheFile("ABCDEF234")));
        QVERIFY(c.parsedKey.has_value());
        QCOMPARE(c.parsedKey->NB, std::int64_t(14));
        QCOMPARE(c.configsTimings.size(), std::size_t(5));
        QVERIFY(std::isinf(c.configsTimings[1].timings[0]));
        const TritonTimedConfig* best = c.best();
        QVERIFY(best);
        // Two configs share the median 0.0110; the smaller p20 (0.0105) wins, like Python's min() over lists.
        QCOMPARE(best->config.BT, 16);
        QCOMPARE(best->config.num_warps, 4);
    }

    void stringKeysAreAccepted() {
        const TritonAutotuneCache c = loadTritonAutotuneCache(cacheFile("QWERTY567"));
        QVERIFY(c.key[0].is_string());
        QCOMPARE(c.parsedKey->headDimension, std::int64_t(128));
        QCOMPARE(c.parsedKey->NB, std::int64_t(20));
        QCOMPARE(c.best()->config.BT, 64);
    }

    void allFailedHasNoChoice() {
        const TritonAutotuneCache c = loadTritonAutotuneCache(cacheFile("ALLINF111"));
        QVERIFY(c.best() == nullptr);
    }

    void malformedCachesNameThePath() {
        auto error = [](const std::string& text) -> Error {
            try {
                parseTritonAutotuneCache(text, "c.json");
            } catch (const Error& e) {
                return e;
            }
            return Error("", "", "no error");
        };
        QCOMPARE(error(R"({"key": [128, 1, {"x": 1}], "configs_timings": []})").jsonPath(), std::string("/key/2"));
        QCOMPARE(error(R"({"key": [128], "configs_timings": [[{"kwargs": {"BT": 8}}, [1, 2, 3]]]})").jsonPath(),
                 std::string("/configs_timings/0/0/num_warps"));
        QCOMPARE(error(R"({"key": [128], "configs_timings": [[{"kwargs": {"BT": 8}, "num_warps": 1, "num_ctas": 1,)"
                       R"( "num_stages": 3}, ["fast"]]]})")
                     .jsonPath(),
                 std::string("/configs_timings/0/1/0"));
        QCOMPARE(error(R"({"key": [128], "configs_timings": [42]})").jsonPath(), std::string("/configs_timings/0"));
        QCOMPARE(error(R"({"configs_timings": []})").jsonPath(), std::string("/key"));
        QVERIFY(error("{\"key\": [128], \"configs_timings\": [[{\"kwargs\": {\"BT\": 8}}, [NaN]]] ").message().find("line 1") !=
                std::string::npos);  // unclosed: the syntax error's line survives the NaN token's replacement
    }

    void nanTimingIsRefused() {
        // A timing is a finite number of ms > 0, or Infinity (a failed config). With NaN, Triton's own min() over the
        // timings depends on their order, so which config it chose cannot be told (issue 25; issue 16 read NaN as a
        // failed config, and import-triton then picked BT 16 silently).
        const auto parse = [](const char* timing) {
            const std::string text =
                std::string(R"({"key": [128, 1, "torch.bfloat16", "torch.bfloat16", "torch.float32"], "configs_timings": [)"
                            R"([{"kwargs": {"BT": 8}, "num_warps": 1, "num_ctas": 1, "num_stages": 3}, [)") +
                timing + R"(, 1.0, 2.0]],)"
                         R"([{"kwargs": {"BT": 16}, "num_warps": 1, "num_ctas": 1, "num_stages": 3}, [3.0, 2.0, 4.0]]]})";
            return parseTritonAutotuneCache(text, "timing.json");
        };
        for (const char* bad : {"NaN", "0", "-1"}) {
            try {
                (void)parse(bad);
                QFAIL(qPrintable(QStringLiteral("a timing of %1 was read").arg(QString::fromLatin1(bad))));
            } catch (const Error& e) {
                QCOMPARE(e.file(), std::string("timing.json"));
                QCOMPARE(e.jsonPath(), std::string("/configs_timings/0/1/0"));
            }
        }
        const TritonAutotuneCache failed = parse("Infinity");  // a config that failed: the other one is Triton's pick
        QVERIFY(std::isinf(failed.configsTimings[0].timings[0]));
        QCOMPARE(failed.best()->config.BT, 16);
    }

    void folderScanIsRecursiveAndPerKernel() {
        const auto files = findTritonAutotuneFiles(data("triton-cache"));
        QCOMPARE(files.size(), std::size_t(5));  // not l2norm_bwd_kernel, not README.txt
        for (const auto& f : files) QCOMPARE(f.filename().string(), std::string("l2norm_fwd_kernel.autotune.json"));
        QVERIFY(std::is_sorted(files.begin(), files.end()));
        QCOMPARE(findTritonAutotuneFiles(data("triton-cache"), "l2norm_bwd_kernel").size(), std::size_t(1));
        QCOMPARE(loadTritonAutotuneCaches(cacheFile("ABCDEF234")).size(), std::size_t(1));  // a single file
        QTemporaryDir empty;
        QVERIFY_THROWS_EXCEPTION(Error, loadTritonAutotuneCaches(empty.path().toStdString()));
        QVERIFY_THROWS_EXCEPTION(Error, loadTritonAutotuneCaches(data("no-such-folder")));
    }

    void importIntoTheSeed() {
        Profile p = seed();
        const ImportSummary s = importTritonCaches(p, loadTritonAutotuneCaches(data("triton-cache")));
        // NB 1 (same choice, new file) replaced, NB 14 and 20 added; all-Infinity and D=64 skipped.
        QCOMPARE(s.evidenceAdded, std::size_t(2));
        QCOMPARE(s.evidenceReplaced, std::size_t(1));
        QCOMPARE(s.policySet, std::size_t(2));
        QCOMPARE(s.skipped, std::size_t(2));
        QCOMPARE(p.policyFor(14)->basis, std::string(kBasisOriginal));
        QCOMPARE(p.policyFor(14)->config.BT, 16);
        QCOMPARE(p.policyFor(20)->config.num_warps, 8);
        QCOMPARE(p.evidenceFor(14)->source_autotune_sha256, sha256FileHex(cacheFile("ABCDEF234")));
        QCOMPARE(p.evidenceFor(20)->key.toJson()[0].get<int>(), 128);  // string key stored as numbers
        QCOMPARE(p.evidenceFor(1)->source_autotune_sha256, sha256FileHex(cacheFile("nested/deeper/ZXCVBN890")));
        const ValidationResult r = validateProfile(p);
        QVERIFY2(r.valid(), dump(r).c_str());
        QCOMPARE(r.withRule("basis-prospective").size(), std::size_t(16));  // NB 14 and 20 are backed now
        // Importing the same caches again changes nothing.
        const ImportSummary again = importTritonCaches(p, loadTritonAutotuneCaches(data("triton-cache")));
        QCOMPARE(again.evidenceAdded + again.evidenceReplaced + again.policySet, std::size_t(0));
    }

    void importKeepsMeasuredEntries() {
        Profile p = seed();
        MeasuredEvidence m;
        m.median_ms = m.p20_ms = m.p80_ms = 0.01;
        m.samples = 10;
        m.device = "d";
        m.results_sha256 = std::string(64, 'b');
        TritonConfig measured;
        measured.BT = 8;
        measured.num_warps = 2;
        p.setMeasuredBest(14, measured, m);
        importTritonCaches(p, {loadTritonAutotuneCache(cacheFile("ABCDEF234"))});
        QCOMPARE(p.policyFor(14)->basis, std::string(kBasisMeasured));
        QVERIFY(p.policyFor(14)->config == measured);
        QVERIFY(p.evidenceFor(14) != nullptr);  // production's choice is still recorded
    }

    void newProfileFromCaches() {
        NewProfileOptions o;
        o.gpuArch = "gfx942";
        o.triton = "3.7.1";
        o.fla = "0.5.2";
        ImportSummary s;
        const Profile p = profileFromTritonCaches(loadTritonAutotuneCaches(data("triton-cache")), o, &s);
        QCOMPARE(p.supported.head_dimension, std::int64_t(128));
        QCOMPARE(p.supported.body_dtype, std::string("bfloat16"));
        QCOMPARE(p.supported.NB_max, std::int64_t(32));
        QCOMPARE(p.per_NB_policy.size(), std::size_t(32));
        QCOMPARE(p.source_evidence.size(), std::size_t(3));
        QCOMPARE(p.policyFor(2)->basis, std::string("prospective-fixed-original-NB20-setting"));
        QVERIFY(p.policyFor(2)->config == p.policyFor(20)->config);
        const ValidationResult r = validateProfile(p);
        QVERIFY2(r.valid(), dump(r).c_str());
        QCOMPARE(r.withRule("basis-prospective").size(), std::size_t(29));
        // It saves and loads like any profile.
        QTemporaryDir dir;
        const fs::path out = fs::path(dir.path().toStdString()) / "new.json";
        saveProfile(p, out);
        QVERIFY(toJson(loadProfile(out)) == toJson(p));
    }

    void newProfileLimitsAreChecked() {
        const auto caches = loadTritonAutotuneCaches(data("triton-cache"));
        NewProfileOptions o;
        o.batchSizeMax = 0;
        QVERIFY_THROWS_EXCEPTION(Error, profileFromTritonCaches(caches, o));
        o.batchSizeMax = INT64_MAX;
        QVERIFY_THROWS_EXCEPTION(Error, profileFromTritonCaches(caches, o));  // overflow
        o.batchSizeMax = 1'000'000;  // 250000 buckets: refused instead of filling them
        QVERIFY_THROWS_EXCEPTION(Error, profileFromTritonCaches(caches, o));
        o.batchSizeMax = 64;  // 256 buckets: fine
        QCOMPARE(profileFromTritonCaches(caches, o).per_NB_policy.size(), std::size_t(256));
    }

    // ---- FLA config cache -------------------------------------------------------------------------------------

    void exportWritesConfigAndManifestSideBySide() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        const FlaExportResult result = exportFla(seed(), folder / "out");
        QCOMPARE(result.configFile, folder / "out" / "l2norm_fwd_kernel.json");
        QCOMPARE(result.manifestFile, folder / "out" / kProfileSeed);
        QCOMPARE(result.configSha256, sha256FileHex(result.configFile));
        const Profile manifest = loadProfile(result.manifestFile);
        QCOMPARE(manifest.files.size(), std::size_t(1));
        QCOMPARE(manifest.files[0].sha256, sha256FileHex(result.configFile));
        // Only files[0].sha256 differs from the profile exported.
        const Json patch = Json::diff(toJson(seed()), toJson(manifest));
        QCOMPARE(patch.size(), std::size_t(1));
        QCOMPARE(patch[0]["path"].get<std::string>(), std::string("/files/0/sha256"));

        const Json file = readJsonFile(result.configFile);
        QCOMPARE(file["kernel_name"].get<std::string>(), std::string("l2norm_fwd_kernel"));
        QCOMPARE(file["triton_version"].get<std::string>(), std::string("3.7.1"));
        for (const char* key : {"kwargs", "num_warps", "num_ctas", "num_stages"}) QVERIFY(file["default_config"].contains(key));
        QCOMPARE(file["autotune_entries"].size(), std::size_t(32));
        for (const auto& [hash, entry] : file["autotune_entries"].items()) {
            QCOMPARE(hash, flaKeyHash(entry["autotune_key"]));
            for (const char* key : {"kwargs", "num_warps", "num_ctas", "num_stages", "maxnreg", "ir_override"})
                QVERIFY2(entry["config"].contains(key), key);
            QVERIFY(entry["config"]["kwargs"].contains("BT"));
        }
        const Json& nb1 = file["autotune_entries"]["878a9638751a7375a0fb15d3a7767659"];
        QCOMPARE(nb1["config"]["kwargs"]["BT"].get<int>(), 32);
        QCOMPARE(nb1["config"]["num_warps"].get<int>(), 8);
        QVERIFY(nb1["best_timing"].is_null());
        // default_config: the first entry in hash order, as FLA's exporter does.
        std::string firstHash = file["autotune_entries"].begin().key();
        for (const auto& [hash, entry] : file["autotune_entries"].items()) firstHash = std::min(firstHash, hash);
        QCOMPARE(file["default_config"]["num_warps"], file["autotune_entries"][firstHash]["config"]["num_warps"]);
        // Exporting again gives the same bytes (deterministic).
        const FlaExportResult second = exportFla(seed(), folder / "out2");
        QCOMPARE(readBytes(second.configFile), readBytes(result.configFile));
    }

    void exportedFolderWorksForFlaStrictMode() {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty()) QSKIP("python3 not found: the FLA strict-mode check runs in Python");
        QTemporaryDir dir;
        const fs::path folder = fs::path(dir.path().toStdString()) / "fla";
        exportFla(seed(), folder);
        QProcess process;
        process.start(python, {q(fs::path(env("TUNESCOPE_SOURCE_DIR")) / "tests" / "fla_strict_check.py"), q(folder),
                               QStringLiteral("128"), QStringLiteral("16"), QStringLiteral("8"), QStringLiteral("16384")});
        QVERIFY(process.waitForFinished(60000));
        const QByteArray out = process.readAllStandardOutput() + process.readAllStandardError();
        QVERIFY2(process.exitCode() == 0, out.constData());
        QVERIFY(out.contains("ok: 32 keys found"));
        QVERIFY(out.contains("NB 2: BT=16 num_warps=1 num_stages=3 num_ctas=1 maxnreg=None ir_override=None"));
        // A broken export (one entry removed) fails the same check: the check can fail.
        Json file = readJsonFile(folder / "l2norm_fwd_kernel.json");
        file["autotune_entries"].erase("878a9638751a7375a0fb15d3a7767659");
        writeBytes(folder / "l2norm_fwd_kernel.json", dumpJson(file));
        process.start(python, {q(fs::path(env("TUNESCOPE_SOURCE_DIR")) / "tests" / "fla_strict_check.py"), q(folder),
                               QStringLiteral("128"), QStringLiteral("16"), QStringLiteral("8"), QStringLiteral("16384")});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY(process.exitCode() != 0);
    }

    void flaFileRoundTripsAndImports() {
        const fs::path file = data("fla/l2norm_fwd_kernel.json");
        const FlaConfigFile fla = loadFlaConfig(file);
        QCOMPARE(fla.layout, JsonLayout::indented(4));
        QVERIFY(serializeFlaConfig(fla) == readBytes(file));
        QCOMPARE(fla.entries.size(), std::size_t(4));
        QCOMPARE(fla.default_config->num_warps, 8);

        Profile p = seed();
        const ImportSummary s = importFlaConfig(p, fla);
        QCOMPARE(s.policySet, std::size_t(2));  // NB 14 and NB 15; NB 1 is already production's choice
        QCOMPARE(s.skipped, std::size_t(1));    // the [64, 2] key
        QCOMPARE(p.policyFor(14)->basis, std::string(kBasisImportedFla));
        QCOMPARE(p.policyFor(14)->config.BT, 16);
        QCOMPARE(p.policyFor(1)->basis, std::string(kBasisOriginal));
        bool warned = false;
        for (const auto& m : s.messages) warned = warned || (m.find("0123456789abcdef0123456789abcdef") != std::string::npos &&
                                                             m.find("never used") != std::string::npos);
        QVERIFY(warned);
        QVERIFY(validateProfile(p).valid());
    }

    void exportImportRoundTripChangesNothing() {
        QTemporaryDir dir;
        const FlaExportResult result = exportFla(seed(), dir.path().toStdString());
        Profile p = seed();
        const ImportSummary s = importFlaConfig(p, loadFlaConfig(result.configFile));
        QCOMPARE(s.policySet, std::size_t(0));
        QVERIFY(toJson(p) == toJson(seed()));
        // A new profile from the exported file has the same configs per NB.
        const Profile fresh = profileFromFlaConfig(loadFlaConfig(result.configFile), NewProfileOptions{});
        for (std::int64_t nb = 1; nb <= 32; ++nb) QVERIFY(fresh.policyFor(nb)->config == seed().policyFor(nb)->config);
        QCOMPARE(fresh.runtime.triton, std::string("3.7.1"));
    }

    void exportRefusesBadTargets() {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "a-file";
        writeBytes(file, "x");
        QVERIFY_THROWS_EXCEPTION(Error, exportFla(seed(), file));
        QVERIFY_THROWS_EXCEPTION(Error, exportFla(seed(), dir.path().toStdString(), "l2norm_fwd_kernel.json"));
        QVERIFY_THROWS_EXCEPTION(Error, exportFla(seed(), dir.path().toStdString(), "sub/p.json"));
    }

    // ---- lookup ------------------------------------------------------------------------------------------------

    void lookupAnswersLikeProduction() {
        const Profile p = seed();
        LookupAnswer a = lookup(p, 8, 16384);
        QVERIFY(a.ok());
        QCOMPARE(a.rows.value(), std::int64_t(2097152));
        QCOMPARE(a.NB.value(), std::int64_t(32));
        QCOMPARE(a.key->toJson().dump(), std::string(R"([128,32,"torch.bfloat16","torch.bfloat16","torch.float32"])"));
        QVERIFY(*a.config == p.policyFor(32)->config);
        QCOMPARE(a.basis, p.policyFor(32)->basis);
        QCOMPARE(lookup(p, 1, 1).NB.value(), std::int64_t(1));
        QCOMPARE(lookup(p, 1, 4096).NB.value(), std::int64_t(1));
        QCOMPARE(lookup(p, 1, 4097).NB.value(), std::int64_t(2));
        a = lookup(p, 2, 4097);  // T = 131104 -> NB 3
        QCOMPARE(a.NB.value(), std::int64_t(3));
        QCOMPARE(a.config->num_warps, 2);
        const Json j = toJson(a);
        QCOMPARE(j["outcome"].get<std::string>(), std::string("config"));
        QCOMPARE(j["config"]["kwargs"]["BT"].get<int>(), 16);
        QVERIFY(j["error"].is_null());
    }

    void lookupOutsideSupportedRaises() {
        const Profile p = seed();
        for (const auto& [b, l] : {std::pair<std::int64_t, std::int64_t>{9, 16384}, {8, 16385}, {0, 10}, {1, 0}, {-1, 5},
                                   {INT64_MAX, INT64_MAX}}) {
            const LookupAnswer a = lookup(p, b, l);
            QVERIFY(!a.ok());
            QVERIFY(a.outcome == LookupOutcome::Raise);
            QVERIFY2(a.error.find("raise before kernel/autotune") != std::string::npos, a.error.c_str());
            QVERIFY(!a.config);
        }
        QVERIFY(!lookup(p, INT64_MAX, INT64_MAX).NB.has_value());  // overflow is not wrapped into a bucket
        QCOMPARE(lookup(p, 9, 16384).NB.value(), std::int64_t(36));
        Profile autotune = p;
        autotune.supported.unknown_key = "fall back to triton autotune";
        const LookupAnswer a = lookup(autotune, 9, 16384);
        QVERIFY(a.outcome == LookupOutcome::Autotune);
        QCOMPARE(toJson(a)["outcome"].get<std::string>(), std::string("autotune"));
        Profile holed = p;
        holed.per_NB_policy.erase(holed.per_NB_policy.begin() + 4);
        QVERIFY(lookup(holed, 1, 16384).ok());  // NB 4 is still there
        QVERIFY(lookup(holed, 2, 12288).ok());  // NB 6
        const LookupAnswer missing = lookup(holed, 5, 4096);  // NB 5 has no entry
        QVERIFY(!missing.ok());
        QVERIFY(missing.error.find("no per_NB_policy entry for NB 5") != std::string::npos);
    }

    // ---- diff --------------------------------------------------------------------------------------------------

    void diffListsPerNbChanges() {
        const Profile a = seed();
        QVERIFY(diffProfiles(a, a).empty());
        Profile b = a;
        TritonConfig c = b.policyFor(14)->config;
        c.BT = 16;
        c.num_warps = 4;
        MeasuredEvidence m;
        m.median_ms = m.p20_ms = m.p80_ms = 0.01;
        m.samples = 10;
        m.device = "d";
        m.results_sha256 = std::string(64, 'b');
        b.setMeasuredBest(14, c, m);
        b.setPolicy(2, b.policyFor(2)->config, "prospective-x");
        b.per_NB_policy.pop_back();  // NB 32 removed
        b.status = "reviewed";
        const ProfileDiff d = diffProfiles(a, b);
        QCOMPARE(d.policy.size(), std::size_t(3));
        QCOMPARE(d.policy[0].NB, std::int64_t(2));
        QVERIFY(d.policy[0].basisChanged && !d.policy[0].configChanged);
        QCOMPARE(d.policy[1].NB, std::int64_t(14));
        QVERIFY(d.policy[1].configChanged && d.policy[1].basisChanged && d.policy[1].evidenceChanged);
        QCOMPARE(d.policy[1].changedConfigFields, (std::vector<std::string>{"kwargs.BT", "num_warps"}));
        QVERIFY(d.policy[2].kind == PolicyChange::Kind::Removed);
        QCOMPARE(formatPolicyChange(d.policy[1]),
                 std::string("NB 14: config BT=32 num_warps=8 num_stages=3 num_ctas=1 -> BT=16 num_warps=4 num_stages=3 "
                             "num_ctas=1; basis prospective-fixed-original-NB18-setting -> measured-best; evidence changed"));
        QCOMPARE(formatPolicyChange(d.policy[2]),
                 std::string("NB 32: removed (was BT=32 num_warps=8 num_stages=3 num_ctas=1, basis "
                             "prospective-fixed-original-NB18-setting)"));
        QCOMPARE(d.other.size(), std::size_t(1));
        QCOMPARE(d.other[0].path, std::string("/status"));
        const ProfileDiff back = diffProfiles(b, a);
        QVERIFY(back.policy[2].kind == PolicyChange::Kind::Added);
        const Json j = toJson(d);
        QCOMPARE(j["identical"].get<bool>(), false);
        QCOMPARE(j["policy"][1]["after"]["evidence"]["samples"].get<int>(), 10);
        QCOMPARE(j["other"][0]["op"].get<std::string>(), std::string("replace"));
    }
};

QTEST_GUILESS_MAIN(TestInterop)
#include "tst_interop.moc"
