// The l2norm profile model: lossless load + save (bytes and value), typed fields, edits, bad input, atomic saves.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats_test_support.hpp"
#include "tunescope/base/json_layout.hpp"
#include "tunescope/formats/profile.hpp"

using namespace tunescope;
using namespace formats_test;
namespace fs = std::filesystem;

namespace {

// Runs `load` and returns the Error it throws (fails the test when nothing is thrown).
template <typename F>
Error expectError(F load) {
    try {
        load();
    } catch (const Error& e) {
        return e;
    }
    QTest::qFail("expected a tunescope::Error", __FILE__, __LINE__);
    return Error("", "", "");
}

fs::path tempPath(const QTemporaryDir& dir, const std::string& name) { return fs::path(dir.path().toStdString()) / name; }

}  // namespace

class TestProfile : public QObject {
    Q_OBJECT

private slots:
    void seedRoundTripsByteForByte() {
        for (const fs::path& file : {bundled(kProfileSeed), sharedSeed(kProfileSeed)}) {
            if (!fs::exists(file)) continue;  // ../shared only exists beside a developer's or CI's checkout
            const std::string original = readBytes(file);
            const Profile profile = loadProfile(file);
            QCOMPARE(profile.layout, JsonLayout::indented(2));
            QVERIFY(serializeProfile(profile) == original);
            // The same bytes when written with the same indentation, from the typed model's JSON.
            QVERIFY(dumpJson(toJson(profile), 2) == original);
            // Same JSON value.
            QVERIFY(toJson(profile) == parseJson(original, file.string()));
        }
    }

    void bundledSeedIsTheSharedSeed() {
        if (!fs::exists(sharedSeed(kProfileSeed))) QSKIP("no ../shared/seeds beside this checkout");
        QVERIFY(readBytes(bundled(kProfileSeed)) == readBytes(sharedSeed(kProfileSeed)));
    }

    void saveThenLoadGivesTheSameFile() {
        QTemporaryDir dir;
        const Profile profile = loadProfile(bundled(kProfileSeed));
        const fs::path out = tempPath(dir, "copy.json");
        saveProfile(profile, out);
        QVERIFY(readBytes(out) == readBytes(bundled(kProfileSeed)));
        QVERIFY(toJson(loadProfile(out)) == toJson(profile));
    }

    void typedFieldsHoldTheSeed() {
        const Profile p = loadProfile(bundled(kProfileSeed));
        QCOMPARE(p.format, std::string(kProfileFormat));
        QCOMPARE(p.status, std::string("diagnostic-only-awaiting-clean-room-proof"));
        QCOMPARE(p.target, std::string("Decision Sol Qwen3.5-2B pointer Stage4; one profile per process"));
        QCOMPARE(p.model_changes, false);
        QCOMPARE(p.numerical_tolerance_unchanged, 1e-6);
        QCOMPARE(p.cache_mode, std::string("strict"));
        QCOMPARE(p.supported.head_dimension, std::int64_t(128));
        QCOMPARE(p.supported.key_heads, std::int64_t(16));
        QCOMPARE(p.supported.body_dtype, std::string("bfloat16"));
        QCOMPARE(p.supported.rstd_dtype, std::string("float32"));
        QCOMPARE(p.supported.batch_size_max, std::int64_t(8));
        QCOMPARE(p.supported.padded_tokens_max, std::int64_t(16384));
        QCOMPARE(p.supported.NB_min, std::int64_t(1));
        QCOMPARE(p.supported.NB_max, std::int64_t(32));
        QCOMPARE(p.supported.NB_formula, std::string("ceil(B*padded_tokens*16/65536)"));
        QCOMPARE(p.supported.unknown_key, std::string("raise before kernel/autotune"));
        QCOMPARE(p.supported.expectedNbMax().value(), std::int64_t(32));
        QCOMPARE(p.supported.expectedNbFormula(), p.supported.NB_formula);
        QCOMPARE(p.runtime.gpu_arch, std::string("gfx942"));
        QCOMPARE(p.runtime.hip.value(), std::string("7.2.53211"));
        QVERIFY(!p.runtime.cuda);
        QCOMPARE(p.runtime.triton, std::string("3.7.1"));
        QCOMPARE(p.runtime.fla, std::string("0.5.2"));
        QCOMPARE(p.files.size(), std::size_t(1));
        QCOMPARE(p.files[0].file, std::string("l2norm_fwd_kernel.json"));
        QCOMPARE(p.files[0].sha256, std::string("a67f3b4624edc07e2c3f9f1d05553c654a3ff005c6b96a1831d62e323dea9edc"));
        QVERIFY(p.fla_source_sha256.has_value());
        QCOMPARE(p.fla_source_sha256->size(), std::size_t(2));
        QCOMPARE(p.fla_source_sha256->at(1).path, std::string("ops/utils/cache.py"));
        QCOMPARE(p.source_evidence.size(), std::size_t(14));
        QCOMPARE(p.source_evidence[1].key.NB, std::int64_t(7));
        QCOMPARE(p.source_evidence[1].key.bodyDtype, std::string("torch.bfloat16"));
        QCOMPARE(p.source_evidence[1].chosen_config.num_warps, 16);
        QCOMPARE(p.per_NB_policy.size(), std::size_t(32));
        QCOMPARE(p.unseen_NB_claim.has_value(), true);
        QCOMPARE(p.compiled_binaries_included.value(), false);
        QCOMPARE(p.private_paths_included.value(), false);
        QCOMPARE(p.builder_sha256.value(), std::string("833d5dcfad43a94c239ea2f5ad68d69b0c501e82d9a3b3ef530b5b85b72db379"));
    }

    void policyForFindsEachNb() {
        const Profile p = loadProfile(bundled(kProfileSeed));
        for (std::int64_t nb = 1; nb <= 32; ++nb) QCOMPARE(p.policyFor(nb)->NB, nb);
        QVERIFY(p.policyFor(0) == nullptr);
        QVERIFY(p.policyFor(33) == nullptr);
        const PolicyEntry* nb2 = p.policyFor(2);
        QCOMPARE(nb2->basis, std::string(kBasisOriginal));
        QCOMPARE(nb2->config.BT, 16);
        QCOMPARE(nb2->config.num_warps, 1);
        QCOMPARE(nb2->config.num_ctas, 1);
        QCOMPARE(nb2->config.num_stages, 3);
        QVERIFY(!nb2->config.maxnreg);
        QVERIFY(nb2->config.pre_hook.is_null());
        QVERIFY(!nb2->config.ir_override);
        QVERIFY(p.policyFor(14)->isProspective());
        QVERIFY(!p.policyFor(18)->isProspective());
        QCOMPARE(p.evidenceFor(9)->chosen_config.BT, 8);
        QVERIFY(p.evidenceFor(14) == nullptr);
    }

    void unknownMembersAndOrderSurviveAnEdit() {
        const fs::path file = data("unknown-members.json");
        const std::string original = readBytes(file);
        Profile p = loadProfile(file);
        QVERIFY(serializeProfile(p) == original);  // unchanged: same bytes
        QCOMPARE(p.per_NB_policy[0].config.extraKwargs["waves_per_eu"].get<int>(), 2);
        QCOMPARE(p.per_NB_policy[0].config.extraFields["x_unknown"].get<int>(), 1);
        p.status = "edited";
        p.per_NB_policy[0].config.num_stages = 2;
        const Json out = toJson(p);
        Json expected = parseJson(original, file.string());
        expected["status"] = "edited";
        expected["per_NB_policy"][0]["config"]["num_stages"] = 2;
        QVERIFY(out == expected);
        // Member order: the unknown first member stays first, supported keeps its reversed order.
        QCOMPARE(out.begin().key(), std::string("x_note"));
        QCOMPARE(out["supported"].begin().key(), std::string("unknown_key"));
        QCOMPARE(out["per_NB_policy"][0]["x_comment"].get<std::string>(), std::string("kept"));
    }

    void setMeasuredBestChangesOnlyThatEntry() {
        Profile p = loadProfile(bundled(kProfileSeed));
        const Json before = toJson(p);
        TritonConfig config;
        config.BT = 16;
        config.num_warps = 4;
        MeasuredEvidence evidence;
        evidence.median_ms = 0.0123;
        evidence.p20_ms = 0.012;
        evidence.p80_ms = 0.0131;
        evidence.samples = 200;
        evidence.device = "NVIDIA H200 (sm_90)";
        evidence.results_sha256 = std::string(64, 'a');
        p.setMeasuredBest(14, config, evidence);
        const Json after = toJson(p);
        const Json patch = Json::diff(before, after);
        for (const auto& op : patch)
            QVERIFY2(op["path"].get<std::string>().rfind("/per_NB_policy/13/", 0) == 0, op.dump().c_str());
        const Json& entry = after["per_NB_policy"][13];
        QCOMPARE(entry["basis"].get<std::string>(), std::string("measured-best"));
        QCOMPARE(entry["config"]["kwargs"]["BT"].get<int>(), 16);
        QCOMPARE(entry["config"]["num_warps"].get<int>(), 4);
        QCOMPARE(entry["evidence"]["samples"].get<int>(), 200);
        QCOMPARE(entry["evidence"]["median_ms"].get<double>(), 0.0123);
        QCOMPARE(entry["evidence"]["results_sha256"].get<std::string>(), std::string(64, 'a'));
        // The evidence reads back as typed evidence.
        const Profile again = parseProfile(after, "again");
        QVERIFY(again.policyFor(14)->evidence.has_value());
        QCOMPARE(again.policyFor(14)->evidence->device, std::string("NVIDIA H200 (sm_90)"));
        // Back to a plain basis removes the evidence object.
        p.setPolicy(14, config, "prospective-manual");
        QVERIFY(!toJson(p)["per_NB_policy"][13].contains("evidence"));
    }

    void setPolicyInsertsInNbOrder() {
        Profile p = loadProfile(bundled(kProfileSeed));
        p.per_NB_policy.erase(p.per_NB_policy.begin() + 4);  // NB 5
        QVERIFY(p.policyFor(5) == nullptr);
        p.setPolicy(5, TritonConfig{}, "prospective-test");
        QCOMPARE(p.per_NB_policy[4].NB, std::int64_t(5));
        QCOMPARE(p.per_NB_policy.size(), std::size_t(32));
        p.setPolicy(40, TritonConfig{}, "prospective-test");
        QCOMPARE(p.per_NB_policy.back().NB, std::int64_t(40));
    }

    void configJsonRoundTrip() {
        TritonConfig c;
        c.BT = 64;
        c.num_warps = 2;
        c.num_ctas = 1;
        c.num_stages = 1;
        c.maxnreg = 128;
        c.ir_override = "k.ttgir";
        c.extraKwargs["waves_per_eu"] = 2;
        const Json j = toJson(c);
        QCOMPARE(j.dump(), std::string(R"({"kwargs":{"BT":64,"waves_per_eu":2},"num_warps":2,"num_ctas":1,"num_stages":1,)"
                                       R"("maxnreg":128,"pre_hook":null,"ir_override":"k.ttgir"})"));
        QVERIFY(tritonConfigFromJson(j) == c);
        QVERIFY(fromL2NormConfig(toL2NormConfig(TritonConfig{})) == TritonConfig{});
        QCOMPARE(describe(c), std::string("BT=64 num_warps=2 num_stages=1 num_ctas=1 maxnreg=128 ir_override=k.ttgir waves_per_eu=2"));
    }

    void configJsonErrorsNameThePath() {
        const Error missing = expectError([] {
            tritonConfigFromJson(Json::parse(R"({"kwargs": {"BT": 8}, "num_warps": 4, "num_stages": 3})"), "c.json", "/x");
        });
        QCOMPARE(missing.file(), std::string("c.json"));
        QCOMPARE(missing.jsonPath(), std::string("/x/num_ctas"));
        const Error noBt = expectError([] {
            tritonConfigFromJson(Json::parse(R"({"kwargs": {}, "num_warps": 4, "num_ctas": 1, "num_stages": 3})"));
        });
        QCOMPARE(noBt.jsonPath(), std::string("/kwargs/BT"));
        const Error floatWarps = expectError([] {
            tritonConfigFromJson(Json::parse(R"({"kwargs": {"BT": 8}, "num_warps": 4.0, "num_ctas": 1, "num_stages": 3})"));
        });
        QCOMPARE(floatWarps.jsonPath(), std::string("/num_warps"));
        QVERIFY(floatWarps.message().find("expected an integer") != std::string::npos);
    }

    void autotuneKeyAcceptsNumbersOrStrings() {
        const auto numbers = AutotuneKey::fromJson(Json::parse(R"([128, 3, "torch.bfloat16", "torch.bfloat16", "torch.float32"])"));
        const auto strings = AutotuneKey::fromJson(Json::parse(R"(["128", "3", "torch.bfloat16", "torch.bfloat16", "torch.float32"])"));
        QVERIFY(numbers && strings);
        QVERIFY(*numbers == *strings);
        QCOMPARE(numbers->NB, std::int64_t(3));
        QVERIFY(!AutotuneKey::fromJson(Json::parse(R"([128, 3, "torch.bfloat16", "torch.bfloat16"])")));
        QVERIFY(!AutotuneKey::fromJson(Json::parse(R"([128, "x3", "a", "b", "c"])")));
        QVERIFY(!AutotuneKey::fromJson(Json::parse(R"({"D": 128})")));
        QCOMPARE(torchDtype("bfloat16"), std::string("torch.bfloat16"));
        QCOMPARE(torchDtype("torch.float32"), std::string("torch.float32"));
    }

    void nbFormula() {
        const Supported s;
        QCOMPARE(s.nbFor(1, 1).value(), std::int64_t(1));
        QCOMPARE(s.nbFor(1, 4096).value(), std::int64_t(1));  // T = 65536 exactly
        QCOMPARE(s.nbFor(1, 4097).value(), std::int64_t(2));
        QCOMPARE(s.nbFor(8, 16384).value(), std::int64_t(32));
        QVERIFY(!s.nbFor(INT64_MAX / 2, 4).has_value());  // overflow is refused, not wrapped
        QVERIFY(!s.nbFor(-1, 4).has_value());
    }

    // ---- bad input -------------------------------------------------------------------------------------------

    void malformedJsonGivesLineAndColumn() {
        const Error e = expectError([] { loadProfile(data("malformed.json")); });
        QCOMPARE(e.file(), data("malformed.json").string());
        QVERIFY2(e.message().find("line 3, column 17") != std::string::npos, e.what());
    }

    void wrongTypeNamesFileAndPointer() {
        const Error e = expectError([] { loadProfile(data("wrong-type-num-warps.json")); });
        QCOMPARE(e.file(), data("wrong-type-num-warps.json").string());
        QCOMPARE(e.jsonPath(), std::string("/per_NB_policy/13/config/num_warps"));
        QVERIFY2(e.message().find("expected an integer, got string \"8\"") != std::string::npos, e.what());
    }

    void missingFieldNamesPointer() {
        const Error e = expectError([] { loadProfile(data("missing-nb-max.json")); });
        QCOMPARE(e.jsonPath(), std::string("/supported/NB_max"));
        QVERIFY2(e.message().find("missing") != std::string::npos, e.what());
    }

    void outOfRangeNumbers() {
        const Error big = expectError([] { loadProfile(data("out-of-range-num-warps.json")); });
        QCOMPARE(big.jsonPath(), std::string("/per_NB_policy/2/config/num_warps"));
        QVERIFY2(big.message().find("out of range") != std::string::npos, big.what());
        const Error negative = expectError([] { loadProfile(data("negative-batch-max.json")); });
        QCOMPARE(negative.jsonPath(), std::string("/supported/batch_size_max"));
        QVERIFY2(negative.message().find("at least 1") != std::string::npos, negative.what());
    }

    void nonFiniteNumbersAreRefused() {
        const Error inf = expectError([] { loadProfile(data("infinity-token.json")); });
        QVERIFY2(inf.message().find("line 3, column 36") != std::string::npos, inf.what());
        const Error nan = expectError([] { loadProfile(data("nan-token.json")); });
        QVERIFY2(nan.message().find("line 3, column 36") != std::string::npos, nan.what());
        const Error overflow = expectError([] { loadProfile(data("overflow-number.json")); });
        QCOMPARE(overflow.jsonPath(), std::string("/numerical_tolerance_unchanged"));
        QVERIFY2(overflow.message().find("line 3") != std::string::npos, overflow.what());
        // Infinity that reached the model some other way (a tolerant parse) is still refused by the loader.
        Json doc = seedJson();
        doc["numerical_tolerance_unchanged"] = std::numeric_limits<double>::infinity();
        const Error typed = expectError([&] { parseProfile(doc, "p.json"); });
        QCOMPARE(typed.jsonPath(), std::string("/numerical_tolerance_unchanged"));
        QVERIFY2(typed.message().find("finite") != std::string::npos, typed.what());
    }

    void otherMalformedDocuments() {
        QCOMPARE(expectError([] { loadProfile(data("empty.json")); }).file(), data("empty.json").string());
        QCOMPARE(expectError([] { loadProfile(data("top-level-array.json")); }).message(),
                 std::string("expected an object, got an array"));
        const Error dup = expectError([] { loadProfile(data("duplicate-key.json")); });
        QVERIFY2(dup.message().find("duplicate key \"format\"") != std::string::npos, dup.what());
        const Error format = expectError([] { loadProfile(data("unknown-format.json")); });
        QCOMPARE(format.jsonPath(), std::string("/format"));
        const Error deep = expectError([] { parseProfileText(std::string(100000, '[') , "deep.json"); });
        QVERIFY2(deep.message().find("nesting deeper") != std::string::npos, deep.what());
    }

    void folderMissingAndSpecialFiles() {
        QTemporaryDir dir;
        const Error folder = expectError([&] { loadProfile(dir.path().toStdString()); });
        QVERIFY2(folder.message().find("is a folder") != std::string::npos, folder.what());
        const Error missing = expectError([&] { loadProfile(tempPath(dir, "nope.json")); });
        QVERIFY2(missing.message().find("not found") != std::string::npos, missing.what());
        const fs::path fifo = tempPath(dir, "fifo.json");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const Error special = expectError([&] { loadProfile(fifo); });  // must not block on open
        QVERIFY2(special.message().find("not a regular file") != std::string::npos, special.what());
    }

    void hugeFileIsRefusedBeforeReading() {
        QTemporaryDir dir;
        const fs::path big = tempPath(dir, "big.json");
        {
            std::ofstream out(big, std::ios::binary);
            out << "{\"format\": \"";
        }
        fs::resize_file(big, 200ull * 1000 * 1000);  // 200 MB, sparse: made at test time, never checked in
        const Error e = expectError([&] { loadProfile(big); });
        QCOMPARE(e.file(), big.string());
        QVERIFY2(e.message().find("200000000 bytes, over the limit") != std::string::npos, e.what());
    }

    void unreadableFile() {
        if (::geteuid() == 0)
            QSKIP("running as root: chmod 000 does not stop root from reading (the FIFO and folder cases cover "
                  "unreadable input here)");
        QTemporaryDir dir;
        const fs::path file = tempPath(dir, "locked.json");
        writeBytes(file, readBytes(bundled(kProfileSeed)));
        ::chmod(file.c_str(), 0);
        const Error e = expectError([&] { loadProfile(file); });
        QVERIFY2(e.message().find("cannot open") != std::string::npos, e.what());
    }

    void failedSaveLeavesTheOldFile() {
        QTemporaryDir dir;
        const fs::path file = tempPath(dir, "profile.json");
        const std::string old = "{\"old\": true}\n";
        writeBytes(file, old);
        const Profile profile = loadProfile(bundled(kProfileSeed));
        // Make the write itself fail: a file-size limit below the new content (works as root too).
        struct rlimit saved{};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = saved;
        small.rlim_cur = 4096;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
        bool threw = false;
        std::string message;
        try {
            saveProfile(profile, file);
        } catch (const Error& e) {
            threw = true;
            message = e.what();
        }
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previousHandler);
        QVERIFY(threw);
        QVERIFY2(message.find("previous file is unchanged") != std::string::npos, message.c_str());
        QVERIFY(readBytes(file) == old);
        // No temp file left behind.
        std::size_t entries = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path().toStdString())) ++entries;
        QCOMPARE(entries, std::size_t(1));
        // Saving over a folder is refused with the folder intact.
        fs::create_directory(tempPath(dir, "folder.json"));
        const Error onFolder = expectError([&] { saveProfile(profile, tempPath(dir, "folder.json")); });
        QVERIFY2(onFolder.message().find("folder") != std::string::npos, onFolder.what());
        QVERIFY(fs::is_directory(tempPath(dir, "folder.json")));
    }

    void readOnlyFolderSaveFails() {
        if (::geteuid() == 0) QSKIP("running as root: a read-only folder does not stop root (see failedSaveLeavesTheOldFile)");
        QTemporaryDir dir;
        const fs::path file = tempPath(dir, "profile.json");
        writeBytes(file, "{}");
        ::chmod(dir.path().toStdString().c_str(), 0500);
        const Error e = expectError([&] { saveProfile(loadProfile(bundled(kProfileSeed)), file); });
        ::chmod(dir.path().toStdString().c_str(), 0700);
        QCOMPARE(readBytes(file), std::string("{}"));
        QVERIFY(e.message().find("cannot save") != std::string::npos);
    }

    // ---- layouts and Python's number form -------------------------------------------------------------------

    void pythonFloatRepr() {
        QCOMPARE(formatPythonFloat(1.0), std::string("1.0"));
        QCOMPARE(formatPythonFloat(1e-6), std::string("1e-06"));
        QCOMPARE(formatPythonFloat(1e-5), std::string("1e-05"));
        QCOMPARE(formatPythonFloat(0.0001), std::string("0.0001"));
        QCOMPARE(formatPythonFloat(1e15), std::string("1000000000000000.0"));
        QCOMPARE(formatPythonFloat(1e16), std::string("1e+16"));
        QCOMPARE(formatPythonFloat(0.1 + 0.2), std::string("0.30000000000000004"));
        QCOMPARE(formatPythonFloat(-0.0), std::string("-0.0"));
        QCOMPARE(formatPythonFloat(5e-324), std::string("5e-324"));
        QCOMPARE(formatPythonFloat(1.7976931348623157e308), std::string("1.7976931348623157e+308"));
        QCOMPARE(formatPythonFloat(47.30056222799976), std::string("47.30056222799976"));
        QCOMPARE(formatPythonFloat(123456789.125), std::string("123456789.125"));
        QCOMPARE(formatPythonFloat(std::numeric_limits<double>::infinity()), std::string("Infinity"));
        QCOMPARE(formatPythonFloat(-std::numeric_limits<double>::infinity()), std::string("-Infinity"));
        QCOMPARE(formatPythonFloat(std::nan("")), std::string("NaN"));
    }

    void layoutsAreDetectedAndReproduced() {
        const Json value = Json::parse(R"({"a": [1, 2.5, {"b": null}], "c": {}, "d": [], "e": "\u00e9"})");
        const std::pair<std::string, JsonLayout> cases[] = {
            {"{\n    \"a\": [\n        1,\n        2.5,\n        {\n            \"b\": null\n        }\n    ],\n    \"c\": {},\n"
             "    \"d\": [],\n    \"e\": \"\\u00e9\"\n}",
             JsonLayout::indented(4)},
            {"{ \"a\": [ 1, 2.5, { \"b\": null } ], \"c\": {}, \"d\": [], \"e\": \"\\u00e9\" }",
             JsonLayout{JsonLayout::Style::SpacedInline, 2, false, nullptr}},
            {"{\"a\": [1, 2.5, {\"b\": null}], \"c\": {}, \"d\": [], \"e\": \"\\u00e9\"}\n",
             JsonLayout{JsonLayout::Style::PythonInline, 2, true, nullptr}},
            {"{\"a\":[1,2.5,{\"b\":null}],\"c\":{},\"d\":[],\"e\":\"\\u00e9\"}", JsonLayout{JsonLayout::Style::Compact, 2, false, nullptr}},
        };
        for (const auto& [text, layout] : cases) {
            QCOMPARE(detectJsonLayout(text), layout);
            QCOMPARE(serializeJson(value, layout), text);
        }
    }

    void infinityTokensOnlyWhenAllowed() {
        JsonReadOptions tolerant;
        tolerant.allowNonFiniteTokens = true;
        const Json j = parseJson(R"({"t": [Infinity, -Infinity, "Infinity"]})", "t.json", tolerant);
        QVERIFY(std::isinf(j["t"][0].get<double>()) && j["t"][0].get<double>() > 0);
        QVERIFY(std::isinf(j["t"][1].get<double>()) && j["t"][1].get<double>() < 0);
        QCOMPARE(j["t"][2].get<std::string>(), std::string("Infinity"));
        QCOMPARE(serializeJson(j, JsonLayout{JsonLayout::Style::PythonInline, 2, false, nullptr}),
                 std::string(R"({"t": [Infinity, -Infinity, "Infinity"]})"));
        // A string that happens to hold the marker code point stays a string.
        const Json marker = parseJson("{\"s\": \"\\ue000\", \"t\": Infinity}", "m.json", tolerant);
        QVERIFY(marker["s"].is_string());
        QVERIFY(marker["t"].is_number_float());
        QVERIFY_THROWS_EXCEPTION(Error, parseJson("[Infinity]", "strict.json"));
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
