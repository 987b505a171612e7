// Validation: every rule of issue 2's Validation section, on the seed and on mutated copies of it.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <functional>

#include "formats_test_support.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/validation.hpp"

using namespace tunescope;
using namespace formats_test;
namespace fs = std::filesystem;

namespace {

ValidationResult validateMutated(const std::function<void(Json&)>& mutate) {
    Json doc = seedJson();
    mutate(doc);
    return validateProfileJson(doc, "mutated.json");
}

// The diagnostics of a rule, as "severity path" strings, for compact comparisons.
QStringList rulePaths(const ValidationResult& r, const std::string& rule) {
    QStringList out;
    for (const auto& d : r.withRule(rule)) out << q(std::string(toString(d.severity)) + " " + d.path);
    return out;
}

bool hasRule(const ValidationResult& r, const std::string& rule, const std::string& path, Severity severity) {
    for (const auto& d : r.diagnostics)
        if (d.rule == rule && d.path == path && d.severity == severity) return true;
    return false;
}

std::string dump(const ValidationResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += formatDiagnostic(d) + "\n";
    return out;
}

}  // namespace

class TestValidation : public QObject {
    Q_OBJECT

private slots:
    void seedIsValidWithExactly20Warnings() {
        const ValidationResult r = validateFile(bundled(kProfileSeed));
        QVERIFY2(r.valid(), dump(r).c_str());
        QVERIFY(r.kind == DocumentKind::Profile);
        QCOMPARE(r.diagnostics.size(), std::size_t(20));
        QCOMPARE(r.count(Severity::Warning), std::size_t(20));
        // The seed promises to raise outside NB 1..32; FLA's strict mode autotunes there instead (issue 16).
        QCOMPARE(r.withRule("fla-unknown-key").size(), std::size_t(1));
        const auto prospective = r.withRule("basis-prospective");
        QCOMPARE(prospective.size(), std::size_t(18));
        // NB 14..17 and 19..32 are prospective: entries 13..16 and 18..31.
        std::vector<std::string> expected;
        for (int i = 13; i <= 31; ++i)
            if (i != 17) expected.push_back("/per_NB_policy/" + std::to_string(i) + "/basis");
        for (std::size_t i = 0; i < prospective.size(); ++i) {
            QCOMPARE(prospective[i].path, expected[i]);
            QVERIFY(prospective[i].message.find("no measurement backs it") != std::string::npos);
        }
        const auto missing = r.withRule("file-missing");
        QCOMPARE(missing.size(), std::size_t(1));
        QCOMPARE(missing[0].path, std::string("/files/0/file"));
        QVERIFY(missing[0].severity == Severity::Warning);
        QVERIFY(missing[0].message.find("l2norm_fwd_kernel.json") != std::string::npos);
    }

    void jsonFormOfTheResult() {
        const Json j = toJson(validateFile(bundled(kProfileSeed)));
        QCOMPARE(j["file"].get<std::string>(), bundled(kProfileSeed).string());
        QCOMPARE(j["valid"].get<bool>(), true);
        QCOMPARE(j["diagnostics"].size(), std::size_t(20));
        const Json& d = j["diagnostics"][0];
        QCOMPARE(d.size(), std::size_t(4));
        QCOMPARE(d["severity"].get<std::string>(), std::string("warning"));
        QVERIFY(d.contains("rule") && d.contains("path") && d.contains("message"));
    }

    void typedValidationAgreesWithJsonValidation() {
        const Profile p = loadProfile(bundled(kProfileSeed));
        ValidationOptions options;
        options.baseDir = bundled(kProfileSeed).parent_path();
        QVERIFY(validateProfile(p, options).diagnostics == validateFile(bundled(kProfileSeed)).diagnostics);
        // Without a folder the file rule is skipped (e.g. an unsaved profile in the GUI).
        QCOMPARE(validateProfile(p).diagnostics.size(), std::size_t(19));
    }

    void formatMustBeKnown() {
        const auto r = validateMutated([](Json& d) { d["format"] = "decision-fla-l2norm-profile-v2"; });
        QVERIFY(!r.valid());
        QVERIFY(hasRule(r, "format", "/format", Severity::Error));
    }

    void requiredFieldsAndTypesAreAllReported() {
        const auto r = validateMutated([](Json& d) {
            d["per_NB_policy"][13]["config"]["num_warps"] = "8";
            d["supported"].erase("key_heads");
            d["model_changes"] = "no";
            d["source_evidence"][0]["key"] = Json::array({128, 1, "torch.bfloat16"});
        });
        QVERIFY(!r.valid());
        QCOMPARE(rulePaths(r, "schema"),
                 (QStringList{QStringLiteral("error /model_changes"), QStringLiteral("error /supported/key_heads"),
                              QStringLiteral("error /per_NB_policy/13/config/num_warps"), QStringLiteral("info ")}));
        QVERIFY(hasRule(r, "autotune-key", "/source_evidence/0/key", Severity::Error));
    }

    void coverageEachNbOnceInOrder() {
        auto r = validateMutated([](Json& d) { d["per_NB_policy"].erase(19); });  // NB 20
        QCOMPARE(rulePaths(r, "nb-coverage"), QStringList{QStringLiteral("error /per_NB_policy")});
        QVERIFY(r.withRule("nb-coverage")[0].message.find("no entry for NB 20") != std::string::npos);
        r = validateMutated([](Json& d) {
            d["per_NB_policy"].erase(4);  // NB 5
            d["per_NB_policy"].erase(4);  // NB 6
            d["per_NB_policy"].erase(d["per_NB_policy"].size() - 1);  // NB 32
        });
        QVERIFY(r.withRule("nb-coverage")[0].message.find("no entry for NB 5-6, 32") != std::string::npos);
        r = validateMutated([](Json& d) { d["per_NB_policy"][5]["NB"] = 5; });  // NB 5 twice, 6 missing
        QCOMPARE(rulePaths(r, "nb-coverage"),
                 (QStringList{QStringLiteral("error /per_NB_policy/5/NB"), QStringLiteral("error /per_NB_policy")}));
        r = validateMutated([](Json& d) { std::swap(d["per_NB_policy"][2], d["per_NB_policy"][3]); });
        QCOMPARE(rulePaths(r, "nb-coverage"), QStringList{QStringLiteral("error /per_NB_policy/3/NB")});
        QVERIFY(r.withRule("nb-coverage")[0].message.find("ascending") != std::string::npos);
        r = validateMutated([](Json& d) {
            Json extra = d["per_NB_policy"][31];
            extra["NB"] = 33;
            d["per_NB_policy"].push_back(extra);
        });
        QCOMPARE(rulePaths(r, "nb-coverage"), QStringList{QStringLiteral("error /per_NB_policy/32/NB")});
    }

    void nbMaxFollowsTheFormula() {
        auto r = validateMutated([](Json& d) { d["supported"]["NB_max"] = 31; });
        QVERIFY(hasRule(r, "nb-max-formula", "/supported/NB_max", Severity::Error));
        QVERIFY(r.withRule("nb-max-formula")[0].message.find("= 32") != std::string::npos);
        r = validateMutated([](Json& d) { d["supported"]["batch_size_max"] = 9; });  // 9*16384*16/65536 = 36
        QVERIFY(r.withRule("nb-max-formula")[0].message.find("set NB_max to 36") != std::string::npos);
        r = validateMutated([](Json& d) { d["supported"]["key_heads"] = 8; });  // NB_max 16, formula text says 16
        QVERIFY(hasRule(r, "nb-max-formula", "/supported/NB_max", Severity::Error));
        QVERIFY(hasRule(r, "nb-formula", "/supported/NB_formula", Severity::Warning));
        r = validateMutated([](Json& d) { d["supported"]["padded_tokens_max"] = INT64_MAX; });
        QVERIFY(r.withRule("nb-max-formula")[0].message.find("overflows") != std::string::npos);
    }

    void autotuneKeysAgreeWithSupported() {
        auto r = validateMutated([](Json& d) { d["source_evidence"][2]["key"][2] = "torch.float16"; });
        QVERIFY(hasRule(r, "autotune-key", "/source_evidence/2/key/2", Severity::Error));
        r = validateMutated([](Json& d) { d["source_evidence"][0]["key"][0] = 64; });
        QVERIFY(hasRule(r, "autotune-key", "/source_evidence/0/key/0", Severity::Error));
        r = validateMutated([](Json& d) { d["source_evidence"][0]["key"][4] = "torch.bfloat16"; });
        QVERIFY(hasRule(r, "autotune-key", "/source_evidence/0/key/4", Severity::Error));
        r = validateMutated([](Json& d) { d["supported"]["rstd_dtype"] = "bfloat16"; });  // all 14 keys disagree
        QCOMPARE(r.withRule("autotune-key").size(), std::size_t(14));
        r = validateMutated([](Json& d) { d["source_evidence"][1]["key"][1] = 1; });  // two records for NB 1
        QVERIFY(hasRule(r, "autotune-key", "/source_evidence/1/key", Severity::Error));
        // String key items (newer Triton) are the same key.
        r = validateMutated([](Json& d) { d["source_evidence"][0]["key"][0] = "128"; d["source_evidence"][0]["key"][1] = "1"; });
        QVERIFY2(r.valid(), dump(r).c_str());
    }

    void amdConfigRules() {
        const auto r = validateMutated([](Json& d) {
            Json& c14 = d["per_NB_policy"][13]["config"];
            c14["num_warps"] = 32;
            Json& c15 = d["per_NB_policy"][14]["config"];
            c15["num_warps"] = 3;
            Json& c16 = d["per_NB_policy"][15]["config"];
            c16["num_ctas"] = 2;
            c16["maxnreg"] = 128;
            c16["ir_override"] = "l2norm.ttgir";
            Json& c17 = d["per_NB_policy"][16]["config"];
            c17["kwargs"]["BT"] = 256;
            c17["pre_hook"] = "hook";
            Json& c19 = d["per_NB_policy"][18]["config"];
            c19["kwargs"]["BT"] = 4;
            c19["kwargs"]["waves_per_eu"] = 2;    // a HIP option: fine
            c19["kwargs"]["BLOCK"] = 2;           // not a parameter of the kernel
            c19["launch_cooperative_grid"] = true;  // not a Config field
        });
        QVERIFY(!r.valid());
        QCOMPARE(rulePaths(r, "config-num-warps"), (QStringList{QStringLiteral("error /per_NB_policy/13/config/num_warps"),
                                                               QStringLiteral("error /per_NB_policy/14/config/num_warps")}));
        QVERIFY(r.withRule("config-num-warps")[0].message.find("up to 16") != std::string::npos);
        QCOMPARE(rulePaths(r, "config-num-ctas"), QStringList{QStringLiteral("error /per_NB_policy/15/config/num_ctas")});
        QCOMPARE(rulePaths(r, "config-maxnreg"), QStringList{QStringLiteral("error /per_NB_policy/15/config/maxnreg")});
        QCOMPARE(rulePaths(r, "config-ir-override"), QStringList{QStringLiteral("error /per_NB_policy/15/config/ir_override")});
        QCOMPARE(rulePaths(r, "config-bt"), (QStringList{QStringLiteral("error /per_NB_policy/16/config/kwargs/BT"),
                                                         QStringLiteral("error /per_NB_policy/18/config/kwargs/BT")}));
        QCOMPARE(rulePaths(r, "config-pre-hook"), QStringList{QStringLiteral("error /per_NB_policy/16/config/pre_hook")});
        QCOMPARE(rulePaths(r, "config-kwargs"), (QStringList{QStringLiteral("info /per_NB_policy/18/config/kwargs/waves_per_eu"),
                                                             QStringLiteral("error /per_NB_policy/18/config/kwargs/BLOCK")}));
        QCOMPARE(rulePaths(r, "config-unknown-field"),
                 QStringList{QStringLiteral("error /per_NB_policy/18/config/launch_cooperative_grid")});
    }

    void nvidiaConfigRules() {
        auto onArch = [](const std::string& arch, const std::function<void(Json&)>& change) {
            return validateMutated([&](Json& d) {
                d["runtime"]["gpu_arch"] = arch;
                d["runtime"].erase("hip");
                d["runtime"]["cuda"] = "13.0";
                change(d["per_NB_policy"][13]["config"]);
            });
        };
        auto r = onArch("sm_90", [](Json& c) { c["num_warps"] = 32; c["num_ctas"] = 2; c["maxnreg"] = 128; });
        QVERIFY2(r.valid(), dump(r).c_str());
        QCOMPARE(r.diagnostics.size(), std::size_t(19));  // the prospective warnings and fla-unknown-key
        r = onArch("sm_90", [](Json& c) { c["num_warps"] = 64; });
        QVERIFY(r.withRule("config-num-warps")[0].message.find("up to 32") != std::string::npos);
        r = onArch("sm_80", [](Json& c) { c["num_ctas"] = 2; });
        QVERIFY(r.withRule("config-num-ctas")[0].message.find("sm_90") != std::string::npos);
        r = onArch("sm_90", [](Json& c) { c["maxnreg"] = 1000; });
        QVERIFY(hasRule(r, "config-maxnreg", "/per_NB_policy/13/config/maxnreg", Severity::Error));
        r = onArch("sm_90", [](Json& c) { c["ir_override"] = "k.ptx"; });
        QVERIFY(r.valid());
        QVERIFY(hasRule(r, "config-ir-override", "/per_NB_policy/13/config/ir_override", Severity::Warning));
        r = onArch("sm_90", [](Json& c) { c["kwargs"]["waves_per_eu"] = 2; });  // a HIP option on NVIDIA
        QVERIFY(hasRule(r, "config-kwargs", "/per_NB_policy/13/config/kwargs/waves_per_eu", Severity::Error));
        r = onArch("rdna3", [](Json&) {});
        QVERIFY(hasRule(r, "target-arch", "/runtime/gpu_arch", Severity::Warning));
    }

    void targetDetection() {
        QCOMPARE(targetVendorOf("gfx942"), TargetVendor::Amd);
        QCOMPARE(targetVendorOf("gfx90a"), TargetVendor::Amd);
        QCOMPARE(targetVendorOf("gfx950"), TargetVendor::Amd);
        QCOMPARE(targetVendorOf("sm_90"), TargetVendor::Nvidia);
        QCOMPARE(targetVendorOf("sm_90a"), TargetVendor::Nvidia);
        QCOMPARE(targetVendorOf("sm_121"), TargetVendor::Nvidia);
        QCOMPARE(targetVendorOf("gfx1100"), TargetVendor::Unknown);
        QCOMPARE(targetVendorOf("gfx"), TargetVendor::Unknown);
        QCOMPARE(targetVendorOf("sm_"), TargetVendor::Unknown);
        QCOMPARE(targetVendorOf(""), TargetVendor::Unknown);
        // A config legal on NVIDIA but not on AMD: the arch decides.
        auto r = validateMutated([](Json& d) { d["per_NB_policy"][13]["config"]["num_warps"] = 32; });
        QVERIFY(!r.valid());
        r = validateMutated([](Json& d) {
            d["runtime"]["gpu_arch"] = "sm_90";
            d["runtime"].erase("hip");
            d["per_NB_policy"][13]["config"]["num_warps"] = 32;
        });
        QVERIFY(r.valid());
    }

    void originalBasisMustMatchEvidence() {
        auto r = validateMutated([](Json& d) { d["per_NB_policy"][0]["config"]["kwargs"]["BT"] = 16; });
        QCOMPARE(rulePaths(r, "basis-original"), QStringList{QStringLiteral("error /per_NB_policy/0/config")});
        QVERIFY(r.withRule("basis-original")[0].message.find("/source_evidence/0/chosen_config") != std::string::npos);
        r = validateMutated([](Json& d) { d["source_evidence"].erase(0); });  // NB 1's record
        QCOMPARE(rulePaths(r, "basis-original"), QStringList{QStringLiteral("error /per_NB_policy/0/basis")});
        // The evidence's own config follows the target rules too.
        r = validateMutated([](Json& d) {
            d["source_evidence"][5]["chosen_config"]["num_ctas"] = 4;
            d["per_NB_policy"][1]["config"]["num_ctas"] = 4;  // NB 2 stays equal to its evidence
        });
        QVERIFY(hasRule(r, "config-num-ctas", "/source_evidence/5/chosen_config/num_ctas", Severity::Error));
        QVERIFY(r.withRule("basis-original").empty());
    }

    void measuredAndOtherBases() {
        auto r = validateMutated([](Json& d) { d["per_NB_policy"][13]["basis"] = "measured-best"; });
        QVERIFY(hasRule(r, "basis-measured", "/per_NB_policy/13/basis", Severity::Error));
        r = validateMutated([](Json& d) {
            d["per_NB_policy"][13]["basis"] = "measured-best";
            d["per_NB_policy"][13]["evidence"] = {{"median_ms", 0.012}, {"p20_ms", 0.011}, {"p80_ms", 0.013}, {"samples", 100},
                                                  {"device", "NVIDIA H200"}, {"results_sha256", std::string(64, 'c')}};
        });
        QVERIFY2(r.valid(), dump(r).c_str());
        QCOMPARE(r.withRule("basis-prospective").size(), std::size_t(17));
        r = validateMutated([](Json& d) {
            d["per_NB_policy"][13]["basis"] = "measured-best";
            d["per_NB_policy"][13]["evidence"] = {{"median_ms", 0.012}, {"p20_ms", 0.013}, {"p80_ms", 0.011}, {"samples", 100},
                                                  {"device", "x"}, {"results_sha256", "nothex"}};
        });
        QVERIFY(hasRule(r, "evidence-timing", "/per_NB_policy/13/evidence", Severity::Error));
        QVERIFY(hasRule(r, "sha256-format", "/per_NB_policy/13/evidence/results_sha256", Severity::Error));
        r = validateMutated([](Json& d) { d["per_NB_policy"][13]["basis"] = "guess"; });
        QVERIFY(hasRule(r, "basis-unknown", "/per_NB_policy/13/basis", Severity::Warning));
        r = validateMutated([](Json& d) { d["per_NB_policy"][13]["basis"] = "imported-fla-config"; });
        QVERIFY(hasRule(r, "basis-imported", "/per_NB_policy/13/basis", Severity::Info));
        QVERIFY(r.valid());
    }

    void filesBesideTheProfile() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        const std::string content = "{\"kernel_name\": \"l2norm_fwd_kernel\"}";
        writeBytes(folder / "l2norm_fwd_kernel.json", content);
        Json doc = seedJson();
        doc["files"][0]["sha256"] = sha256Hex(content);
        writeBytes(folder / "p.json", dumpJson(doc));
        ValidationResult r = validateFile(folder / "p.json");
        QVERIFY(r.valid());
        QCOMPARE(r.diagnostics.size(), std::size_t(19));  // no file diagnostic: it is there and matches
        writeBytes(folder / "l2norm_fwd_kernel.json", content + " ");  // tampered
        r = validateFile(folder / "p.json");
        QVERIFY(!r.valid());
        QCOMPARE(rulePaths(r, "file-sha256"), QStringList{QStringLiteral("error /files/0/sha256")});
        QVERIFY(r.withRule("file-sha256")[0].message.find(sha256Hex(content + " ")) != std::string::npos);
        fs::remove(folder / "l2norm_fwd_kernel.json");
        fs::create_directory(folder / "l2norm_fwd_kernel.json");  // a folder where the file should be
        r = validateFile(folder / "p.json");
        QVERIFY(hasRule(r, "file-unreadable", "/files/0/file", Severity::Error));
        r = validateMutated([](Json& d) { d["files"][0]["file"] = "../secret.json"; });
        QVERIFY(hasRule(r, "file-path", "/files/0/file", Severity::Error));
        r = validateMutated([](Json& d) { d["files"][0]["file"] = "/etc/passwd"; });
        QVERIFY(hasRule(r, "file-path", "/files/0/file", Severity::Error));
        r = validateMutated([](Json& d) { d["files"][0]["sha256"] = "A67F"; });
        QVERIFY(hasRule(r, "sha256-format", "/files/0/sha256", Severity::Error));
    }

    void unknownKeyPolicyMustBeKnown() {
        auto r = validateMutated([](Json& d) { d["supported"]["unknown_key"] = "ignore"; });
        QVERIFY(hasRule(r, "unknown-key-policy", "/supported/unknown_key", Severity::Error));
        r = validateMutated([](Json& d) { d["supported"]["unknown_key"] = "fall back to triton autotune"; });
        QVERIFY(r.valid());
    }

    void documentLevelRules() {
        auto r = validateMutated([](Json& d) { d["cache_mode"] = "sometimes"; });
        QVERIFY(hasRule(r, "cache-mode", "/cache_mode", Severity::Error));
        r = validateMutated([](Json& d) { d["cache_mode"] = "disabled"; });
        QVERIFY(hasRule(r, "cache-mode", "/cache_mode", Severity::Warning));
        r = validateMutated([](Json& d) { d["numerical_tolerance_unchanged"] = 0; });
        QVERIFY(hasRule(r, "numerical-tolerance", "/numerical_tolerance_unchanged", Severity::Error));
        r = validateMutated([](Json& d) { d["builder_sha256"] = "xyz"; });
        QVERIFY(hasRule(r, "sha256-format", "/builder_sha256", Severity::Error));
        r = validateMutated([](Json& d) { d["fla_source_sha256"]["modules/l2norm.py"] = ""; });
        QVERIFY(hasRule(r, "sha256-format", "/fla_source_sha256/modules~1l2norm.py", Severity::Error));
        r = validateMutated([](Json& d) { d["supported"]["NB_min"] = 40; });
        QVERIFY(hasRule(r, "supported-range", "/supported/NB_min", Severity::Error));
        r = validateMutated([](Json& d) { d["supported"]["body_dtype"] = "int8"; });
        QVERIFY(hasRule(r, "dtype", "/supported/body_dtype", Severity::Warning));
    }

    void badFilesThrowInsteadOfDiagnosing() {
        QVERIFY_THROWS_EXCEPTION(Error, validateFile(data("malformed.json")));
        QVERIFY_THROWS_EXCEPTION(Error, validateFile(data("duplicate-key.json")));
        QVERIFY_THROWS_EXCEPTION(Error, validateFile(data("triton-cache")));  // a folder
        // Well-formed JSON with wrong types is a validation result, not an exception.
        const ValidationResult r = validateFile(data("wrong-type-num-warps.json"));
        QVERIFY(!r.valid());
        QVERIFY(hasRule(r, "schema", "/per_NB_policy/13/config/num_warps", Severity::Error));
        // JSON that is no profile or report at all.
        const ValidationResult other = validateFile(data("top-level-array.json"));
        QVERIFY(hasRule(other, "format", "", Severity::Error));
        QTemporaryDir dir;
        const fs::path flaFile = fs::path(dir.path().toStdString()) / "l2norm_fwd_kernel.json";
        writeBytes(flaFile, serializeFlaConfig(flaConfigFromProfile(loadProfile(bundled(kProfileSeed)))));
        const ValidationResult fla = validateFile(flaFile);
        QVERIFY(fla.kind == DocumentKind::FlaConfig);
        QVERIFY(!fla.valid());
        QVERIFY(fla.diagnostics[0].message.find("import it") != std::string::npos);
        // Infinity is no JSON: refused like a syntax error, with line and column.
        QVERIFY_THROWS_EXCEPTION(Error, validateFile(data("infinity-token.json")));
    }

    void reportValidation() {
        ValidationResult r = validateFile(bundled(kReportSeed));
        QVERIFY(r.kind == DocumentKind::CublasLtReport);
        QVERIFY2(r.valid() && r.diagnostics.empty(), dump(r).c_str());
        Json doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc["heuristics"][1]["returned_count"] = 9;
        doc["trajectory"]["improvement_percent"] = 9.0;
        doc["trajectory"]["video_parity"]["different_elements"] = 3;
        r = validateReportJson(doc, "r.json");
        QVERIFY(hasRule(r, "returned-count", "/heuristics/1/returned_count", Severity::Warning));
        QVERIFY(hasRule(r, "improvement", "/trajectory/improvement_percent", Severity::Warning));
        QVERIFY(hasRule(r, "parity", "/trajectory/video_parity/bf16_exact", Severity::Error));
        doc["heuristics"][0]["algorithms"][0]["split_k"] = true;
        r = validateReportJson(doc, "r.json");
        QVERIFY(hasRule(r, "schema", "/heuristics/0/algorithms/0/split_k", Severity::Error));
        QVERIFY(validateFile(data("report-explorer-like.json")).valid());
    }

    void exportedFolderValidatesClean() {
        QTemporaryDir dir;
        const FlaExportResult result = exportFla(loadProfile(bundled(kProfileSeed)), dir.path().toStdString());
        const ValidationResult r = validateFile(result.manifestFile);
        QVERIFY2(r.valid(), dump(r).c_str());
        QVERIFY(r.withRule("file-missing").empty());
        QVERIFY(r.withRule("file-sha256").empty());
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
