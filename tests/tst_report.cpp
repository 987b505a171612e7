// The cuBLASLt exploration report model: lossless load + save, typed fields, negative split_k, extra fields.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include "formats_test_support.hpp"
#include "tunescope/formats/report.hpp"

using namespace tunescope;
using namespace formats_test;
namespace fs = std::filesystem;

namespace {

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

}  // namespace

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void seedRoundTripsByteForByte() {
        for (const fs::path& file : {bundled(kReportSeed), sharedSeed(kReportSeed)}) {
            if (!fs::exists(file)) continue;
            const std::string original = readBytes(file);
            const CublasLtReport report = loadReport(file);
            QCOMPARE(report.layout.style, JsonLayout::Style::SpacedInline);
            QVERIFY(serializeReport(report) == original);
            QVERIFY(toJson(report) == parseJson(original, file.string()));
        }
    }

    void indentTwoMatchesPython() {
        // cublaslt-report.indent2.json is Python's json.dumps(seed, indent=2).
        CublasLtReport report = loadReport(bundled(kReportSeed));
        report.layout = JsonLayout::indented(2);
        QVERIFY(serializeReport(report) == readBytes(data("cublaslt-report.indent2.json")));
        // And loading the indented one and writing it back keeps its bytes too.
        const CublasLtReport indented = loadReport(data("cublaslt-report.indent2.json"));
        QCOMPARE(indented.layout, JsonLayout::indented(2));
        QVERIFY(serializeReport(indented) == readBytes(data("cublaslt-report.indent2.json")));
    }

    void typedFieldsHoldTheSeed() {
        const CublasLtReport r = loadReport(bundled(kReportSeed));
        QCOMPARE(r.mode.value(), std::string("production-trajectory"));
        QVERIFY(r.environment);
        QCOMPARE(r.environment->device.value(), std::string("NVIDIA GB10"));
        QCOMPARE(r.environment->device_capability.value(), (std::vector<std::int64_t>{12, 1}));
        QVERIFY(!r.environment->driver);
        QVERIFY(!r.environment->checkpoint_sha256);
        QCOMPARE(r.environment->environment_switches->size(), std::size_t(16));
        QCOMPARE(r.environment->environment_switches->front().first, std::string("CUDA_DEVICE_MAX_CONNECTIONS"));
        QCOMPARE(r.environment->extension->cublaslt_runtime_version.value(), std::int64_t(130000));
        QCOMPARE(r.environment->extension->stream_k_public_control.value(), false);
        QCOMPARE(r.workload->tokens.value(), std::int64_t(37810));
        QCOMPARE(r.workload->segments->size(), std::size_t(3));
        QCOMPARE(r.workload->segments->at(1), (std::vector<std::int64_t>{100, 514, 2}));
        QCOMPARE(r.fc2_boundary->logical_mnk.value(), (std::vector<std::int64_t>{37810, 5376, 14336}));
        QCOMPARE(r.fc2_boundary->no_bias.value(), true);
        QCOMPARE(r.baseline_kernel_metadata->descriptors["block_scale_mode"].get<std::string>(), std::string("VEC16_UE4M3"));
        QVERIFY(r.baseline_kernel_metadata->top_cuda_events.is_array());
        QCOMPARE(r.heuristics.size(), std::size_t(6));
        QCOMPARE(r.heuristics[0].max_workspace_bytes, std::int64_t(0));
        QCOMPARE(r.heuristics[0].returned_count.value(), std::int64_t(5));
        QCOMPARE(r.heuristics[0].algorithms.size(), std::size_t(5));
        const HeuristicAlgorithm& first = r.heuristics[0].algorithms[0];
        QCOMPARE(first.config.algorithm_id, std::int64_t(70));
        QCOMPARE(first.config.tile_id, std::int64_t(20));
        QCOMPARE(first.config.stages_id, std::int64_t(37));
        QCOMPARE(first.config.split_k, std::int64_t(-2));  // a heuristic sentinel, kept as is
        QCOMPARE(first.config.reduction_scheme, std::int64_t(2));
        QVERIFY(!first.config.inner_shape && !first.config.cluster_shape);
        QCOMPARE(first.waves.value(), 1.0);
        QCOMPARE(first.valid.value(), true);
        QCOMPARE(first.capabilities->reduction_scheme_mask.value(), std::int64_t(6));
        QCOMPARE(first.capabilities->tile_ids.value(), (std::vector<std::int64_t>{20}));
        QCOMPARE(r.explicit_split_k_checks.size(), std::size_t(9));
        QCOMPARE(r.explicit_split_k_checks[1].result.state.value(), std::int64_t(15));
        QCOMPARE(r.explicit_split_k_checks[1].result.valid.value(), false);
        QCOMPARE(r.explicit_split_k_checks[1].requested_config->config.split_k, std::int64_t(2));
        QCOMPARE(r.selected->config.split_k, std::int64_t(1));
        QVERIFY(!r.selected->config.inner_shape);
        QCOMPARE(r.trajectory->improvement_percent.value(), 7.553177306389591);
        QCOMPARE(r.trajectory->video_parity->bf16_exact.value(), true);
        QCOMPARE(r.trajectory->audio_parity->actual_sha256.value(), r.trajectory->audio_parity->expected_sha256.value());
        QCOMPARE(r.trajectory->dispatch_delta->attempts.value(), std::int64_t(100));
        QCOMPARE(r.trajectory->selected_config->config.algorithm_id, std::int64_t(70));
        QCOMPARE(r.errors_and_unsupported.size(), std::size_t(1));
        QCOMPARE(r.errors_and_unsupported[0].feature, std::string("Stream-K"));
        QCOMPARE(describe(first.config), std::string("algo 70 tile 20 stages 37 split_k -2 reduction 2 custom 0 swizzle 0"));
    }

    void negativeSplitKSurvivesAnEdit() {
        CublasLtReport r = loadReport(bundled(kReportSeed));
        r.heuristics[5].algorithms[1].config.split_k = -7;
        r.heuristics[0].algorithms[0].config.tile_id = 21;
        const Json before = parseJson(readBytes(bundled(kReportSeed)), "seed");
        const Json after = toJson(r);
        const Json patch = Json::diff(before, after);
        QCOMPARE(patch.size(), std::size_t(2));
        QCOMPARE(after["heuristics"][5]["algorithms"][1]["split_k"].get<std::int64_t>(), std::int64_t(-7));
        QCOMPARE(after["heuristics"][0]["algorithms"][0]["tile_id"].get<std::int64_t>(), std::int64_t(21));
        // The other -2 sentinels are untouched.
        QCOMPARE(after["heuristics"][5]["algorithms"][0]["split_k"].get<std::int64_t>(), std::int64_t(-2));
        // Same layout on save: still one line with the seed's spacing.
        const std::string bytes = serializeReport(r);
        QVERIFY(bytes.find('\n') == std::string::npos);
        QVERIFY(bytes.find("\"split_k\": -7") != std::string::npos);
    }

    void explorerStyleReportWithExtrasLoads() {
        const fs::path file = data("report-explorer-like.json");
        const CublasLtReport r = loadReport(file);
        QCOMPARE(r.mode.value(), std::string("gemm-explore"));
        QVERIFY(!r.selected);  // null: nothing selected
        QVERIFY(!r.trajectory && !r.fc2_boundary);
        QCOMPARE(r.heuristics[0].algorithms[0].config.split_k, std::int64_t(-1));
        QCOMPARE(r.heuristics[0].algorithms[0].config.cluster_shape.value(), std::int64_t(2));
        QCOMPARE(r.heuristics[0].algorithms[0].waves.value(), 0.87);
        QVERIFY(!r.errors_and_unsupported[0].reason);
        QVERIFY(serializeReport(r) == readBytes(file));
        const Json j = toJson(r);
        QCOMPARE(j["search"]["log"].size(), std::size_t(2));
        QCOMPARE(j["heuristics"][0]["algorithms"][0]["raw_algo_hex"].get<std::string>(), std::string("00ff"));
        QVERIFY(j["selected"].is_null());
    }

    void droppingOptionalPartsRemovesThem() {
        CublasLtReport r = loadReport(bundled(kReportSeed));
        r.trajectory.reset();
        r.selected.reset();
        const Json j = toJson(r);
        QVERIFY(!j.contains("trajectory"));
        QVERIFY(j["selected"].is_null());
        QVERIFY(parseReport(j).selected == std::nullopt);
    }

    void saveIsAtomicAndReloads() {
        QTemporaryDir dir;
        const fs::path out = fs::path(dir.path().toStdString()) / "r.json";
        saveReport(loadReport(bundled(kReportSeed)), out);
        QVERIFY(readBytes(out) == readBytes(bundled(kReportSeed)));
    }

    void badReportsNameFileAndPointer() {
        Json doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc["heuristics"][2]["algorithms"][3]["split_k"] = "minus two";
        Error e = expectError([&] { parseReport(doc, "bad.json"); });
        QCOMPARE(e.file(), std::string("bad.json"));
        QCOMPARE(e.jsonPath(), std::string("/heuristics/2/algorithms/3/split_k"));
        doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc.erase("heuristics");
        e = expectError([&] { parseReport(doc, "bad.json"); });
        QCOMPARE(e.jsonPath(), std::string("/heuristics"));
        doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc["heuristics"][0]["algorithms"][0].erase("tile_id");
        e = expectError([&] { parseReport(doc, "bad.json"); });
        QCOMPARE(e.jsonPath(), std::string("/heuristics/0/algorithms/0/tile_id"));
        doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc["trajectory"]["baseline_seconds"] = std::numeric_limits<double>::quiet_NaN();
        e = expectError([&] { parseReport(doc, "bad.json"); });
        QCOMPARE(e.jsonPath(), std::string("/trajectory/baseline_seconds"));
        doc = parseJson(readBytes(bundled(kReportSeed)), "seed");
        doc["environment"]["device_capability"][1] = 1.5;
        e = expectError([&] { parseReport(doc, "bad.json"); });
        QCOMPARE(e.jsonPath(), std::string("/environment/device_capability/1"));
        e = expectError([&] { parseReportText("{\"heuristics\": [}", "syntax.json"); });
        QVERIFY2(e.message().find("line 1, column 17") != std::string::npos, e.what());
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
