// The real tunescope-cli ($TUNESCOPE_CLI) for validate, convert, lookup, diff, import-triton, import-fla, export-fla:
// exit codes, messages and files written.
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include "formats_test_support.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/profile.hpp"

using namespace tunescope;
using namespace formats_test;
namespace fs = std::filesystem;

namespace {

struct Run {
    int exitCode = -1;
    std::string out;
    std::string err;
};

Run cli(const QStringList& args) {
    QProcess process;
    process.start(q(env("TUNESCOPE_CLI")), args);
    Run run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;  // -2: crashed
    run.out = process.readAllStandardOutput().toStdString();
    run.err = process.readAllStandardError().toStdString();
    return run;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

#define EXPECT_RUN(run, code)                                                                                       \
    QVERIFY2((run).exitCode == (code),                                                                              \
             ("exit " + std::to_string((run).exitCode) + "\nstdout: " + (run).out + "\nstderr: " + (run).err).c_str())

QString seedArg() { return q(bundled(kProfileSeed)); }

}  // namespace

class TestCliProfile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (env("TUNESCOPE_CLI").empty() || !fs::exists(env("TUNESCOPE_CLI"))) QFAIL("TUNESCOPE_CLI does not name the CLI");
    }

    void everyCommandHasHelp() {
        for (const char* command : {"validate", "convert", "lookup", "diff", "import-triton", "import-fla", "export-fla"}) {
            const Run run = cli({QString::fromLatin1(command), QStringLiteral("--help")});
            EXPECT_RUN(run, 0);
            QVERIFY2(contains(run.out, "Exit:"), command);
        }
        const Run unknown = cli({QStringLiteral("no-such-command")});
        EXPECT_RUN(unknown, 2);
    }

    // ---- validate ----------------------------------------------------------------------------------------------

    void validateSeed() {
        Run run = cli({QStringLiteral("validate"), seedArg()});
        EXPECT_RUN(run, 0);
        QVERIFY(contains(run.out, "valid profile (0 errors, 20 warnings, 0 infos)"));
        QVERIFY(contains(run.out, "warning [file-missing] /files/0/file:"));
        QVERIFY(contains(run.out, "warning [basis-prospective] /per_NB_policy/13/basis: NB 14 uses a prospective config"));
        run = cli({QStringLiteral("validate"), seedArg(), QStringLiteral("--json")});
        EXPECT_RUN(run, 0);
        const Json j = Json::parse(run.out);
        QCOMPARE(j["file"].get<std::string>(), bundled(kProfileSeed).string());
        QCOMPARE(j["valid"].get<bool>(), true);
        QCOMPARE(j["diagnostics"].size(), std::size_t(20));
        std::size_t prospective = 0;
        for (const auto& d : j["diagnostics"]) {
            QCOMPARE(d["severity"].get<std::string>(), std::string("warning"));
            prospective += d["rule"] == "basis-prospective";
        }
        QCOMPARE(prospective, std::size_t(18));
        run = cli({QStringLiteral("validate"), q(bundled(kReportSeed))});
        EXPECT_RUN(run, 0);
        QVERIFY(contains(run.out, "valid cublaslt-report (0 errors"));
    }

    void validateInvalid() {
        Run run = cli({QStringLiteral("validate"), q(data("invalid-rules.json"))});
        EXPECT_RUN(run, 1);
        QVERIFY(contains(run.out, "error [nb-max-formula] /supported/NB_max:"));
        QVERIFY(contains(run.out, "error [config-num-warps] /per_NB_policy/13/config/num_warps:"));
        QVERIFY(contains(run.out, "error [nb-coverage] /per_NB_policy: no entry for NB 20"));
        QVERIFY(contains(run.out, ": invalid profile ("));
        run = cli({QStringLiteral("validate"), q(data("invalid-rules.json")), QStringLiteral("--json")});
        EXPECT_RUN(run, 1);
        QCOMPARE(Json::parse(run.out)["valid"].get<bool>(), false);
        // Wrong types are validation errors of the schema rule.
        run = cli({QStringLiteral("validate"), q(data("wrong-type-num-warps.json"))});
        EXPECT_RUN(run, 1);
        QVERIFY(contains(run.out, "error [schema] /per_NB_policy/13/config/num_warps: expected an integer, got string \"8\""));
        run = cli({QStringLiteral("validate"), q(data("missing-nb-max.json"))});
        EXPECT_RUN(run, 1);
        QVERIFY(contains(run.out, "error [schema] /supported/NB_max: required field \"NB_max\" is missing"));
    }

    void validateBadInputExits2() {
        const std::pair<std::string, std::string> cases[] = {
            {"malformed.json", "line 3, column 17"},
            {"infinity-token.json", "line 3, column 36"},
            {"nan-token.json", "line 3, column 36"},
            {"overflow-number.json", "at /numerical_tolerance_unchanged"},
            {"duplicate-key.json", "duplicate key \"format\""},
            {"empty.json", "invalid JSON"},
            {"triton-cache", "is a folder, not a file"},
            {"no-such-file.json", "file not found"},
        };
        for (const auto& [name, message] : cases) {
            const Run run = cli({QStringLiteral("validate"), q(data(name))});
            EXPECT_RUN(run, 2);
            QVERIFY2(contains(run.err, data(name).string()), run.err.c_str());
            QVERIFY2(contains(run.err, message), run.err.c_str());
            QVERIFY(run.out.empty());
        }
        QTemporaryDir dir;
        const fs::path big = fs::path(dir.path().toStdString()) / "big.json";
        writeBytes(big, "{");
        fs::resize_file(big, 200ull * 1000 * 1000);
        const Run run = cli({QStringLiteral("validate"), q(big)});
        EXPECT_RUN(run, 2);
        QVERIFY2(contains(run.err, "over the limit"), run.err.c_str());
        EXPECT_RUN(cli({QStringLiteral("validate")}), 2);  // no file: usage
    }

    // ---- convert -----------------------------------------------------------------------------------------------

    void convertKeepsBytes() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        for (const std::string& name : {kProfileSeed, kReportSeed}) {
            const fs::path out = folder / name;
            const Run run = cli({QStringLiteral("convert"), q(bundled(name)), QStringLiteral("--out"), q(out)});
            EXPECT_RUN(run, 0);
            QVERIFY(readBytes(out) == readBytes(bundled(name)));
        }
        const Run unknown = cli({QStringLiteral("convert"), q(data("report-explorer-like.json")), QStringLiteral("--out"),
                                 q(folder / "ex.json")});
        EXPECT_RUN(unknown, 0);
        QVERIFY(readBytes(folder / "ex.json") == readBytes(data("report-explorer-like.json")));
        // Re-indent: same value, new bytes.
        Run run = cli({QStringLiteral("convert"), q(bundled(kReportSeed)), QStringLiteral("--out"), q(folder / "r4.json"),
                       QStringLiteral("--indent"), QStringLiteral("4")});
        EXPECT_RUN(run, 0);
        QVERIFY(readJsonFile(folder / "r4.json") == readJsonFile(bundled(kReportSeed)));
        QVERIFY(contains(readBytes(folder / "r4.json"), "\n    \"mode\""));
        run = cli({QStringLiteral("convert"), seedArg(), QStringLiteral("--out"), QStringLiteral("-")});
        EXPECT_RUN(run, 0);
        QVERIFY(run.out == readBytes(bundled(kProfileSeed)) + "\n");
    }

    void convertRefusesBadInput() {
        QTemporaryDir dir;
        const fs::path out = fs::path(dir.path().toStdString()) / "out.json";
        Run run = cli({QStringLiteral("convert"), q(data("wrong-type-num-warps.json")), QStringLiteral("--out"), q(out)});
        EXPECT_RUN(run, 2);
        QVERIFY2(contains(run.err, "at /per_NB_policy/13/config/num_warps: expected an integer"), run.err.c_str());
        QVERIFY(!fs::exists(out));
        run = cli({QStringLiteral("convert"), q(data("top-level-array.json")), QStringLiteral("--out"), q(out)});
        EXPECT_RUN(run, 2);
        QVERIFY(contains(run.err, "neither an l2norm profile"));
        // A failed write keeps the old file: the output path is a folder.
        run = cli({QStringLiteral("convert"), seedArg(), QStringLiteral("--out"), dir.path()});
        EXPECT_RUN(run, 2);
        QVERIFY(fs::is_directory(dir.path().toStdString()));
        EXPECT_RUN(cli({QStringLiteral("convert"), seedArg()}), 2);  // --out is required
    }

    // ---- lookup ------------------------------------------------------------------------------------------------

    void lookupCommand() {
        Run run = cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("--batch"), QStringLiteral("8"),
                       QStringLiteral("--padded-tokens"), QStringLiteral("16384")});
        EXPECT_RUN(run, 0);
        QCOMPARE(run.out, std::string("NB 32 (rows 2097152 = 8 x 16384 x 16)\n"
                                      "autotune key [128,32,\"torch.bfloat16\",\"torch.bfloat16\",\"torch.float32\"]\n"
                                      "config BT=32 num_warps=8 num_stages=3 num_ctas=1\n"
                                      "basis prospective-fixed-original-NB18-setting\n"));
        run = cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("-b"), QStringLiteral("1"), QStringLiteral("-l"),
                   QStringLiteral("4097"), QStringLiteral("--json")});
        EXPECT_RUN(run, 0);
        const Json j = Json::parse(run.out);
        QCOMPARE(j["NB"].get<int>(), 2);
        QCOMPARE(j["outcome"].get<std::string>(), std::string("config"));
        QCOMPARE(j["config"]["num_warps"].get<int>(), 1);
        run = cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("--batch"), QStringLiteral("9"),
                   QStringLiteral("--padded-tokens"), QStringLiteral("16384")});
        EXPECT_RUN(run, 1);
        QVERIFY2(contains(run.err, "unknown key: batch 9 is outside the supported 1..8"), run.err.c_str());
        QVERIFY(contains(run.err, "raise before kernel/autotune"));
        run = cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("--batch"), QStringLiteral("1"),
                   QStringLiteral("--padded-tokens"), QStringLiteral("16385"), QStringLiteral("--json")});
        EXPECT_RUN(run, 1);
        QCOMPARE(Json::parse(run.out)["outcome"].get<std::string>(), std::string("raise"));
        EXPECT_RUN(cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("--batch"), QStringLiteral("eight"),
                        QStringLiteral("--padded-tokens"), QStringLiteral("1")}),
                   2);
        EXPECT_RUN(cli({QStringLiteral("lookup"), seedArg(), QStringLiteral("--batch"), QStringLiteral("1")}), 2);
        run = cli({QStringLiteral("lookup"), q(data("malformed.json")), QStringLiteral("-b"), QStringLiteral("1"),
                   QStringLiteral("-l"), QStringLiteral("1")});
        EXPECT_RUN(run, 2);
        QVERIFY(contains(run.err, "line 3, column 17"));
    }

    // ---- diff --------------------------------------------------------------------------------------------------

    void diffCommand() {
        Run run = cli({QStringLiteral("diff"), seedArg(), seedArg()});
        EXPECT_RUN(run, 0);
        QCOMPARE(run.out, std::string("identical\n"));
        QTemporaryDir dir;
        const fs::path changed = fs::path(dir.path().toStdString()) / "changed.json";
        Profile p = loadProfile(bundled(kProfileSeed));
        TritonConfig c = p.policyFor(20)->config;
        c.num_warps = 4;
        p.setPolicy(20, c, "prospective-hand-edit");
        saveProfile(p, changed);
        run = cli({QStringLiteral("diff"), seedArg(), q(changed)});
        EXPECT_RUN(run, 1);
        QCOMPARE(run.out, std::string("NB 20: config BT=32 num_warps=8 num_stages=3 num_ctas=1 -> BT=32 num_warps=4 "
                                      "num_stages=3 num_ctas=1; basis prospective-fixed-original-NB18-setting -> "
                                      "prospective-hand-edit\n1 NB entries differ, 0 other changes\n"));
        run = cli({QStringLiteral("diff"), seedArg(), q(changed), QStringLiteral("--json")});
        EXPECT_RUN(run, 1);
        QCOMPARE(Json::parse(run.out)["policy"][0]["changed_fields"][0].get<std::string>(), std::string("num_warps"));
        EXPECT_RUN(cli({QStringLiteral("diff"), seedArg(), q(data("wrong-type-num-warps.json"))}), 2);
    }

    // ---- imports and export ------------------------------------------------------------------------------------

    void importTritonCommand() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        Run run = cli({QStringLiteral("import-triton"), q(data("triton-cache")), QStringLiteral("--out"), q(folder / "new.json"),
                       QStringLiteral("--gpu-arch"), QStringLiteral("gfx942"), QStringLiteral("--triton"), QStringLiteral("3.7.1")});
        EXPECT_RUN(run, 0);
        QVERIFY(contains(run.out, "NB 14: evidence added from"));
        QVERIFY(contains(run.out, "skipped"));
        QVERIFY(contains(run.out, "wrote " + (folder / "new.json").string()));
        EXPECT_RUN(cli({QStringLiteral("validate"), q(folder / "new.json")}), 0);
        QCOMPARE(loadProfile(folder / "new.json").runtime.gpu_arch, std::string("gfx942"));

        run = cli({QStringLiteral("import-triton"), q(data("triton-cache/ABCDEF234/l2norm_fwd_kernel.autotune.json")),
                   QStringLiteral("--into"), seedArg(), QStringLiteral("--out"), q(folder / "into.json")});
        EXPECT_RUN(run, 0);
        const Profile into = loadProfile(folder / "into.json");
        QCOMPARE(into.policyFor(14)->basis, std::string("original-production-chosen"));
        QCOMPARE(into.source_evidence.size(), std::size_t(15));

        // Nothing usable: nothing written, exit 1.
        run = cli({QStringLiteral("import-triton"), q(data("triton-cache/ALLINF111")), QStringLiteral("--into"), seedArg(),
                   QStringLiteral("--out"), q(folder / "none.json")});
        EXPECT_RUN(run, 1);
        QVERIFY(!fs::exists(folder / "none.json"));
        run = cli({QStringLiteral("import-triton"), q(folder), QStringLiteral("--out"), q(folder / "x.json")});
        EXPECT_RUN(run, 2);
        QVERIFY(contains(run.err, "no l2norm_fwd_kernel.autotune.json below this folder"));
    }

    void exportAndImportFlaCommands() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        Run run = cli({QStringLiteral("export-fla"), seedArg(), QStringLiteral("--out"), q(folder / "fla")});
        EXPECT_RUN(run, 0);
        const fs::path config = folder / "fla" / "l2norm_fwd_kernel.json";
        QVERIFY(contains(run.out, "sha256 " + sha256FileHex(config)));
        QVERIFY(contains(run.out, "FLA_CACHE_MODE=strict"));
        const Profile manifest = loadProfile(folder / "fla" / kProfileSeed);
        QCOMPARE(manifest.files[0].sha256, sha256FileHex(config));
        run = cli({QStringLiteral("validate"), q(folder / "fla" / kProfileSeed)});
        EXPECT_RUN(run, 0);
        QVERIFY(contains(run.out, "(0 errors, 19 warnings"));

        run = cli({QStringLiteral("import-fla"), q(data("fla/l2norm_fwd_kernel.json")), QStringLiteral("--into"), seedArg(),
                   QStringLiteral("--out"), q(folder / "imported.json")});
        EXPECT_RUN(run, 0);
        QVERIFY(contains(run.out, "never used"));
        QCOMPARE(loadProfile(folder / "imported.json").policyFor(14)->basis, std::string("imported-fla-config"));
        run = cli({QStringLiteral("import-fla"), q(config), QStringLiteral("--out"), q(folder / "fresh.json")});
        EXPECT_RUN(run, 0);
        EXPECT_RUN(cli({QStringLiteral("validate"), q(folder / "fresh.json")}), 0);

        // An invalid profile is not exported unless forced.
        run = cli({QStringLiteral("export-fla"), q(data("invalid-rules.json")), QStringLiteral("--out"), q(folder / "bad")});
        EXPECT_RUN(run, 1);
        QVERIFY(contains(run.err, "not exported"));
        QVERIFY(!fs::exists(folder / "bad" / "l2norm_fwd_kernel.json"));
        run = cli({QStringLiteral("export-fla"), q(data("invalid-rules.json")), QStringLiteral("--out"), q(folder / "bad"),
                   QStringLiteral("--force"), QStringLiteral("--manifest-name"), QStringLiteral("m.json")});
        EXPECT_RUN(run, 0);
        QVERIFY(fs::exists(folder / "bad" / "m.json"));
        run = cli({QStringLiteral("import-fla"), q(data("malformed.json")), QStringLiteral("--out"), q(folder / "y.json")});
        EXPECT_RUN(run, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
