// The cuBLASLt explorer's CPU half: decoding recorded heuristic data, explicit split-k checks, the selection rule,
// the guided search planner (over a synthetic, deterministic cost landscape: no GPU here) and report writing
// through the formats helper's report model.
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/formats/report.hpp"
#include "tunescope/gemm/gemm_backend.hpp"
#include "tunescope/gemm/gemm_enum_names.hpp"
#include "tunescope/gemm/gemm_explorer.hpp"
#include "tunescope/gemm/gemm_spec.hpp"

namespace fs = std::filesystem;
namespace g = tunescope::gemm;
using tunescope::Error;
using tunescope::Json;

namespace {

fs::path testData(const char* name) {
    const char* dir = std::getenv("TUNESCOPE_TESTDATA");
    return fs::path(dir ? dir : "tests/data") / "gemm" / name;
}

fs::path seedReport() {
    const char* dir = std::getenv("TUNESCOPE_PROFILES");
    return fs::path(dir ? dir : "profiles") / "cublaslt-gb10-nvfp4-fc2-report.json";
}

template <typename F>
Error expectError(F call) {
    try {
        call();
    } catch (const Error& e) {
        return e;
    }
    QTest::qFail("expected a tunescope::Error", __FILE__, __LINE__);
    return Error("", "", "");
}

g::Candidate timedCandidate(int index, double firstMs, double finalMs, bool bitwise, double noise = 0.002,
                            const std::string& verdict = "FASTER") {
    g::Candidate c;
    c.index = index;
    c.config.algorithmId = 66;
    c.config.tileId = std::uint32_t(400 + index);
    c.firstPass = g::FirstPass{{firstMs}, firstMs, 2, -1};
    c.parity.checked = true;
    c.parity.bitwiseEqualToBaseline = bitwise;
    c.parity.maxRelError = bitwise ? 0.001 : 0.004;
    if (finalMs > 0) {
        // Six confirm rounds around the given median (the top at 8.0 ms), spread by `noise`.
        g::RegimeMeasurement m;
        for (int round = 0; round < 6; ++round) {
            const double wobble = 1.0 + noise * double(round % 3 - 1);
            m.msPerRound.push_back(finalMs * wobble);
            m.topMsPerRound.push_back(8.0 * (1.0 + noise * double((round + 1) % 3 - 1)));
        }
        if (index != 0) m.vsTop = g::pairedGain(m.topMsPerRound, m.msPerRound);
        c.sustained = m;
        g::FinalMeasurement f;
        f.medianMs = finalMs;
        f.p20Ms = finalMs * 0.99;
        f.p80Ms = finalMs * 1.01;
        f.noise = noise;
        f.samples = 40;
        f.verdictVsBaseline = index == 0 ? "" : verdict;
        c.final = f;
    }
    return c;
}

// A confirmed finalist whose per-round blocks are `gain` percent faster than an 8 ms top, wobbling by `spread`
// in the given phase (so two finalists can move against each other round by round).
g::Candidate tiedFinalist(int index, std::uint32_t tile, double gain, double spread, int phase) {
    g::Candidate c = timedCandidate(index, 8.0, 8.0, true);
    c.config.tileId = tile;
    g::RegimeMeasurement m;
    for (int round = 0; round < 6; ++round) {
        const double wobble = 1.0 + spread * ((round + phase) % 2 == 0 ? 1.0 : -1.0);
        m.msPerRound.push_back(8.0 * (1.0 - gain / 100.0) * wobble);
        m.topMsPerRound.push_back(8.0);
    }
    m.vsTop = g::pairedGain(m.topMsPerRound, m.msPerRound);
    c.sustained = m;
    return c;
}

// A synthetic cuBLASLt for the planner: configurations are valid on a fixed pattern, and the time is a separable
// function with its optimum three moves away from the "heuristic" answer. Stands in for the GPU only in this test.
struct Landscape {
    std::map<g::AlgoConfig, int> timesEvaluated;
    int checks = 0;
    static bool valid(const g::AlgoConfig& c) {
        if (c.algorithmId != 66 || c.splitK != 1) return false;
        if (c.clusterShape == 0) return false;               // algo 66 needs an explicit cluster shape
        if (c.tileId == 428 && c.clusterShape == 4) return false;  // some combinations are refused
        return c.tileId >= 400 && c.tileId <= 440;
    }
    static double timeMs(const g::AlgoConfig& c) {
        double t = 8.0;
        t += 0.01 * std::abs(int(c.tileId) - 428);
        t += 0.05 * std::abs(int(c.customOption) - 5);
        t += c.clusterShape == 3 ? 0.0 : 0.2;
        t += c.stagesId == 35 ? 0.0 : 0.1;
        return t;
    }
};

g::AlgoCapabilities algo66Caps() {
    g::AlgoCapabilities caps;
    caps.read = true;
    caps.splitKSupport = 1;
    caps.reductionSchemeMask = 6;
    caps.customOptionMax = 7;
    for (std::uint32_t t = 396; t <= 444; ++t) caps.tileIds.push_back(t);
    caps.stagesIds = {33, 34, 35, 36, 37};
    return caps;
}

}  // namespace

class TestGemmExplorer : public QObject {
    Q_OBJECT

private slots:
    // --- GemmSpec -------------------------------------------------------------------------------------------
    void specValidationAndParsing() {
        tunescope::GemmSpec spec;
        spec.m = 37824;
        spec.n = 5376;
        spec.k = 14336;
        spec.mLogical = 37810;
        tunescope::validateGemmSpec(spec);
        QCOMPARE(spec.maxWorkspaceBytes(), 64ull << 20);
        QCOMPARE(spec.logicalM(), std::int64_t(37810));
        QCOMPARE(spec.logicalN(), std::int64_t(5376));

        const Json j = tunescope::gemmSpecToJson(spec);
        const tunescope::GemmSpec back = tunescope::gemmSpecFromJson(j, "r.json", "/workload/gemm");
        QCOMPARE(back.m, spec.m);
        QCOMPARE(back.mLogical, spec.mLogical);
        QCOMPARE(back.workspaceBytes, spec.workspaceBytes);
        QCOMPARE(j["cublaslt_mnk"][0].get<std::int64_t>(), std::int64_t(5376));  // cuBLASLt m = N (TN form)

        tunescope::GemmSpec zero = spec;
        zero.k = 0;
        QCOMPARE(expectError([&] { tunescope::validateGemmSpec(zero); }).jsonPath(), std::string("/k"));
        tunescope::GemmSpec tooLogical = spec;
        tooLogical.mLogical = spec.m + 1;
        QCOMPARE(expectError([&] { tunescope::validateGemmSpec(tooLogical); }).jsonPath(), std::string("/m_logical"));
        tunescope::GemmSpec huge = spec;
        huge.n = std::int64_t(1) << 40;
        QVERIFY(std::string(expectError([&] { tunescope::validateGemmSpec(huge); }).what()).find("too large") !=
                std::string::npos);

        Json bad = j;
        bad["dtype"] = "fp16";
        const Error e = expectError([&] { tunescope::gemmSpecFromJson(bad, "r.json", "/workload/gemm"); });
        QCOMPARE(e.file(), std::string("r.json"));
        QCOMPARE(e.jsonPath(), std::string("/workload/gemm/dtype"));

        QCOMPARE(tunescope::parseWorkspaceListMiB("0, 4,64"), (std::vector<std::uint64_t>{0, 4ull << 20, 64ull << 20}));
        expectError([] { tunescope::parseWorkspaceListMiB("4,4"); });
        expectError([] { tunescope::parseWorkspaceListMiB("4,-1"); });
        expectError([] { tunescope::parseWorkspaceListMiB("4,,8"); });
        QVERIFY(tunescope::gemmDtypeFromString("FP8") == tunescope::GemmDtype::Fp8E4M3);
        QVERIFY(tunescope::gemmLayoutFromString("nt") == tunescope::GemmLayout::NT);
    }

    // --- Decoding recorded heuristic data -------------------------------------------------------------------
    void decodesTheSeedsHeuristics() {
        const Json seed = tunescope::readJsonFile(seedReport());
        const std::string file = seedReport().string();
        std::vector<int> returned;
        for (std::size_t i = 0; i < seed["heuristics"].size(); ++i) {
            const g::HeuristicSet set =
                g::heuristicSetFromJson(seed["heuristics"][i], file, "/heuristics/" + std::to_string(i));
            returned.push_back(set.returnedCount);
            QCOMPARE(int(set.algorithms.size()), set.returnedCount);
        }
        QCOMPARE(returned, (std::vector<int>{5, 7, 7, 6, 6, 6}));
        const g::HeuristicSet first = g::heuristicSetFromJson(seed["heuristics"][0], file, "/heuristics/0");
        // The library's negative split-k sentinel is kept as it is, with its reduction scheme.
        QCOMPARE(first.algorithms[0].config.splitK, -2);
        QCOMPARE(first.algorithms[0].config.reductionScheme, std::uint32_t(2));
        QCOMPARE(first.algorithms[0].config.algorithmId, 70);
        QCOMPARE(first.algorithms[0].config.tileId, std::uint32_t(20));
        QCOMPARE(first.algorithms[0].capabilities.reductionSchemeMask, std::uint32_t(6));
        QCOMPARE(first.algorithms[0].capabilities.tileIds, (std::vector<std::uint32_t>{20}));
        QCOMPARE(tunescope::gemm_enums::tileName(20), std::string("128x128"));
        QCOMPARE(tunescope::gemm_enums::stagesName(37), std::string("256xAUTO"));
        // Written back, the sentinel stays negative.
        const Json again = g::heuristicSetToJson(first, 130000);
        QCOMPARE(again["algorithms"][0]["split_k"].get<int>(), -2);
    }

    void decodesRecordedH200Heuristics() {
        const fs::path file = testData("h200-heuristics.json");
        const Json recorded = tunescope::readJsonFile(file);
        const g::HeuristicSet set = g::heuristicSetFromJson(recorded["heuristics"][0], file.string(), "/heuristics/0");
        QVERIFY(set.returnedCount > 0);
        QCOMPARE(set.returnedCount, 8);
        QCOMPARE(set.requestedCount, 32);
        for (std::size_t s = 0; s < recorded["heuristics"].size(); ++s) {
            const std::string base = "/heuristics/" + std::to_string(s);
            const g::HeuristicSet h = g::heuristicSetFromJson(recorded["heuristics"][s], file.string(), base);
            for (std::size_t i = 0; i < h.algorithms.size(); ++i) {
                const g::HeuristicAlgo& a = h.algorithms[i];
                const Json& stored = recorded["heuristics"][s]["algorithms"][i];
                // The raw bytes round-trip through hex exactly.
                QCOMPARE(g::rawAlgoToHex(a.raw), stored["raw_algo_hex"].get<std::string>());
                QVERIFY(a.capabilities.read);
                QCOMPARE(a.capabilities.customOptionMax, 7);
                // The raw bytes belong to the decoded config: in cuBLASLt 13.1 (130100) on sm_90 the opaque struct
                // held id, tile, stages, split-k as little-endian int32 at bytes 0, 4, 8, 12, the custom option at
                // 24 and the cluster shape id at 30 (observed in this recording; undocumented, so only checked here).
                auto u32 = [&](std::size_t at) {
                    return std::uint32_t(a.raw[at]) | std::uint32_t(a.raw[at + 1]) << 8 |
                           std::uint32_t(a.raw[at + 2]) << 16 | std::uint32_t(a.raw[at + 3]) << 24;
                };
                QCOMPARE(int(u32(0)), a.config.algorithmId);
                QCOMPARE(u32(4), a.config.tileId);
                QCOMPARE(u32(8), a.config.stagesId);
                QCOMPARE(std::int32_t(u32(12)), a.config.splitK);
                QCOMPARE(u32(24), a.config.customOption);
                QCOMPARE(std::uint16_t(a.raw[30] | a.raw[31] << 8), a.config.clusterShape);
                QVERIFY(a.config.clusterShape != 0);  // Hopper's algo 66 answers all carry an explicit cluster shape
            }
        }
        // The heuristic top on the H200, as recorded.
        QCOMPARE(set.algorithms[0].config.algorithmId, 66);
        QCOMPARE(tunescope::gemm_enums::tileName(set.algorithms[0].config.tileId), std::string("192x192"));
        QCOMPARE(tunescope::gemm_enums::clusterShapeName(set.algorithms[0].config.clusterShape), std::string("2x1x1"));
    }

    void parsesRequestedConfigs() {
        const g::AlgoConfig c = g::parseAlgoConfigText("algo=66,tile=128x352,stages=64xAUTO,custom=5,cluster=2x1x1");
        QCOMPARE(c.algorithmId, 66);
        QCOMPARE(c.tileId, std::uint32_t(428));
        QCOMPARE(c.stagesId, std::uint32_t(35));
        QCOMPARE(c.customOption, std::uint32_t(5));
        QCOMPARE(c.clusterShape, std::uint16_t(3));
        QCOMPARE(c.splitK, 1);
        const g::AlgoConfig n = g::parseAlgoConfigText("algo=66,tile=403,stages=36,custom=5,cluster=9,splitk=-2,red=2");
        QCOMPARE(n.tileId, std::uint32_t(403));
        QCOMPARE(tunescope::gemm_enums::tileName(n.tileId), std::string("128x112"));
        QCOMPARE(tunescope::gemm_enums::clusterShapeName(n.clusterShape), std::string("2x4x1"));
        QCOMPARE(n.splitK, -2);
        QVERIFY(std::string(expectError([] { g::parseAlgoConfigText("tile=428"); }).what()).find("algo") != std::string::npos);
        QVERIFY(std::string(expectError([] { g::parseAlgoConfigText("algo=66,tile=99x99x"); }).what()).find("tile=99x99x") !=
                std::string::npos);
        QVERIFY(std::string(expectError([] { g::parseAlgoConfigText("algo=66,colour=3"); }).what()).find("unknown config key") !=
                std::string::npos);
        expectError([] { g::parseAlgoConfigText("algo=66,swizzle=2"); });
        expectError([] { g::parseAlgoConfigText("algo"); });
    }

    void rawAlgoHexErrors() {
        QCOMPARE(expectError([] { g::rawAlgoFromHex("abc", "f.json", "/selected/raw_algo_hex"); }).jsonPath(),
                 std::string("/selected/raw_algo_hex"));
        const std::string bad = std::string(127, '0') + "g";
        QVERIFY(std::string(expectError([&] { g::rawAlgoFromHex(bad, "f.json", "/p"); }).what()).find("hex digit") !=
                std::string::npos);
        g::RawAlgo raw{};
        for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = std::uint8_t(i * 37);
        QCOMPARE(g::rawAlgoFromHex(g::rawAlgoToHex(raw), "", ""), raw);
    }

    // --- Explicit split-k checks ----------------------------------------------------------------------------
    void explicitSplitKCoversAllowedSchemes() {
        g::AlgoConfig base;
        base.algorithmId = 66;
        base.splitK = -2;  // a heuristic sentinel: the split-1 check uses 1
        g::AlgoCapabilities caps;
        caps.reductionSchemeMask = g::kReductionComputeType | g::kReductionOutputType;
        const auto configs = g::explicitSplitKConfigs(base, caps);
        QCOMPARE(configs.size(), std::size_t(1 + 5 * 2));
        QCOMPARE(configs[0].splitK, 1);
        QCOMPARE(configs[0].reductionScheme, g::kReductionNone);
        std::set<int> splits;
        for (const auto& c : configs) splits.insert(c.splitK);
        QCOMPARE(splits, (std::set<int>{1, 2, 4, 8, 16, 32}));
        caps.reductionSchemeMask = 0;
        QCOMPARE(g::explicitSplitKConfigs(base, caps).size(), std::size_t(1));

        // Over the cap is "needs N bytes", valid; OUTPUT_TYPE is reduced precision.
        g::SplitKCheck over;
        over.requested = configs[2];  // split 2, OUTPUT_TYPE
        QCOMPARE(over.requested.reductionScheme, g::kReductionOutputType);
        over.result.requiredWorkspaceBytes = 1626587136;
        over.workspaceCapBytes = 64ull << 20;
        QVERIFY(over.overWorkspaceCap());
        QVERIFY(over.reducedPrecision());
        g::SplitKCheck invalid = over;
        invalid.result.apiStatus = 15;
        invalid.result.failedCall = "cublasLtMatmulAlgoCheck";
        QVERIFY(!invalid.overWorkspaceCap());

        g::ExplorationResult r = minimalResult();
        r.splitKChecks = {over, invalid};
        const Json report = g::buildExplorerReport(r);
        const Json& first = report["explicit_split_k_checks"][0];
        QCOMPARE(first["valid"].get<bool>(), true);
        QCOMPARE(first["over_workspace_cap"].get<bool>(), true);
        QVERIFY(first["note"].get<std::string>().find("needs 1626587136 bytes") == 0);
        QCOMPARE(first["reduced_precision"].get<bool>(), true);
        QCOMPARE(report["explicit_split_k_checks"][1]["valid"].get<bool>(), false);
        QVERIFY(report["explicit_split_k_checks"][1]["note"].get<std::string>().find("invalid") == 0);
    }

    // --- Verification: the reported gain comes from rounds measured after the selection ----------------------
    void verificationReportsFreshRounds() {
        g::Selection selected;
        selected.baselineIndex = 0;
        selected.candidateIndex = 7;
        selected.leftBaseline = true;
        selected.requiredGainPercent = 1.0;
        selected.gainPercent = 2.4;  // the best of several finalists, on the rounds it was chosen on
        selected.lowPercent = 1.8;
        selected.highPercent = 2.9;
        const std::vector<double> top{10.0, 10.1, 9.9, 10.0, 10.2, 10.0, 9.9, 10.1};
        const auto scaled = [&](double factor, double wobble) {
            std::vector<double> v;
            for (std::size_t i = 0; i < top.size(); ++i) v.push_back(top[i] * factor * (1.0 + (i % 2 ? wobble : -wobble)));
            return v;
        };
        const g::PairedGain aa = g::pairedGain(top, scaled(1.0, 0.001));
        // Faster in the fresh rounds too: it stands, and the report states the fresh rounds' gain.
        const g::PairedGain fresh = g::pairedGain(top, scaled(0.988, 0.002));
        const g::Selection kept = g::applyVerification(selected, fresh, aa);
        QVERIFY(kept.leftBaseline && kept.verified && kept.verificationRan);
        QCOMPARE(kept.candidateIndex, 7);
        QCOMPARE(kept.gainPercent, fresh.gainPercent);
        QCOMPARE(kept.lowPercent, fresh.lowPercent);
        QCOMPARE(kept.selectedOnGainPercent, 2.4);
        QCOMPARE(kept.selectedOnLowPercent, 1.8);
        QVERIFY2(kept.reason.find("fresh sustained rounds") != std::string::npos, kept.reason.c_str());
        QVERIFY2(kept.reason.find("selected on 2.40% [1.80, 2.90]") != std::string::npos, kept.reason.c_str());
        // Not faster in the fresh rounds: the baseline stays, and the report says why.
        const g::PairedGain none = g::pairedGain(top, scaled(0.999, 0.004));
        const g::Selection dropped = g::applyVerification(selected, none, aa);
        QVERIFY(!dropped.leftBaseline && !dropped.verified && dropped.verificationRan);
        QCOMPARE(dropped.candidateIndex, 0);
        QCOMPARE(dropped.verificationCandidate, 7);
        QCOMPARE(dropped.gainPercent, 0.0);
        QVERIFY2(dropped.reason.find("but not a fresh re-measurement") != std::string::npos, dropped.reason.c_str());
        // The fresh rounds cannot tell #7 from the top: the top joins #7's tie set and is its pick (kTieRule).
        QVERIFY(dropped.topInTieSet);
        QCOMPARE(dropped.tieSet, (std::vector<int>{7, 0}));
        QCOMPARE(dropped.topTieCandidate, 7);
        QCOMPARE(dropped.topTieStage, std::string("verification"));
        QCOMPARE(dropped.topTieGain.gainPercent, none.gainPercent);
        // Verified, but the fresh interval's lower end is below the 1% threshold: the top is a tie member too,
        // while the pick stands; verified well above the threshold: the top is not a member.
        const g::PairedGain small = g::pairedGain(top, scaled(0.985, 0.011));
        QVERIFY(small.lowPercent > 0.1 && small.lowPercent <= 1.0);
        const g::Selection standsTied = g::applyVerification(selected, small, aa);
        QVERIFY(standsTied.leftBaseline && standsTied.topInTieSet);
        QCOMPARE(standsTied.candidateIndex, 7);
        QCOMPARE(standsTied.tieSet, (std::vector<int>{7, 0}));
        QVERIFY2(standsTied.reason.find("heuristic top is declared a member of its tie set") != std::string::npos,
                 standsTied.reason.c_str());
        const g::PairedGain large = g::pairedGain(top, scaled(0.97, 0.001));
        QVERIFY(large.lowPercent > 1.0);
        QVERIFY(!g::applyVerification(selected, large, aa).topInTieSet);
        QVERIFY(!kept.topInTieSet || fresh.lowPercent <= 1.0);
        // Faster, but by less than identical work differs by in the same rounds: not enough.
        const g::PairedGain offset = g::pairedGain(top, scaled(0.995, 0.0005));
        const g::PairedGain skewedAa = g::pairedGain(top, scaled(0.992, 0.0005));
        QVERIFY(offset.lowPercent > 0.0);
        QVERIFY(!g::applyVerification(selected, offset, skewedAa).leftBaseline);
        // A selection that kept the baseline is left as it is; incomplete verification rounds keep the baseline.
        g::Selection stayed;
        stayed.candidateIndex = stayed.baselineIndex = 0;
        QVERIFY(!g::applyVerification(stayed, fresh, aa).verificationRan);
        QVERIFY(!g::applyVerification(selected, g::PairedGain{}, g::PairedGain{}).leftBaseline);
    }

    // --- Selection rule -------------------------------------------------------------------------------------
    void pairedGainFromRounds() {
        // Candidate 2% faster in every round, with spread: the interval is the t interval of the log ratios.
        const std::vector<double> top{10.0, 10.2, 9.9, 10.1, 10.0, 10.3};
        const std::vector<double> cand{9.80, 9.95, 9.72, 9.92, 9.78, 10.12};
        const g::PairedGain gain = g::pairedGain(top, cand);
        QCOMPARE(gain.rounds, 6);
        QCOMPARE(gain.roundsFaster, 6);
        double mean = 0.0, ss = 0.0;
        std::vector<double> logs;
        for (std::size_t i = 0; i < top.size(); ++i) logs.push_back(std::log(cand[i] / top[i]));
        for (double x : logs) mean += x / 6.0;
        for (double x : logs) ss += (x - mean) * (x - mean);
        const double half = tunescope::studentQuantile(0.975, 5) * std::sqrt(ss / 5.0 / 6.0);  // 2.5706
        QVERIFY(std::fabs(gain.gainPercent - 100.0 * (1.0 - std::exp(mean))) < 1e-9);
        QVERIFY(std::fabs(gain.lowPercent - 100.0 * (1.0 - std::exp(mean + half))) < 1e-9);
        QVERIFY(std::fabs(gain.highPercent - 100.0 * (1.0 - std::exp(mean - half))) < 1e-9);
        QVERIFY(gain.lowPercent < gain.gainPercent && gain.gainPercent < gain.highPercent);
        QVERIFY(gain.low99Percent < gain.lowPercent && gain.high99Percent > gain.highPercent);
        QVERIFY(!gain.containsZero());
        // Rounds, not launches, are the unit: the same ratios in more rounds narrow the interval by the t
        // quantile and sqrt(n), nothing else.
        QVERIFY(std::fabs(tunescope::studentQuantile(0.975, 5) - 2.5706) < 1e-3);
        QVERIFY(std::fabs(tunescope::studentQuantile(0.975, 1000) - 1.9623) < 1e-3);
        QVERIFY(std::fabs(tunescope::studentQuantile(0.995, 5) - 4.0321) < 1e-3);
        // Beyond the old 30-row table: exact, not interpolated.
        QVERIFY(std::fabs(tunescope::studentQuantile(0.975, 45) - 2.0141) < 1e-3);
        QVERIFY(!g::pairedGain({8.0}, {7.0}).valid());
        QVERIFY(expectError([] { g::pairedGain({1.0, 2.0}, {1.0}); }).message().find("rounds") != std::string::npos);
        QVERIFY(g::regimeFromString("burst") == g::Regime::Burst);
        QVERIFY(expectError([] { g::regimeFromString("peak"); }).message().find("unknown regime 'peak'") != std::string::npos);
    }

    void exactParityPicksTheBestConfirmedBitwiseEqual() {
        std::vector<g::Candidate> c{timedCandidate(0, 8.0, 8.00, true), timedCandidate(1, 7.0, 7.00, false),
                                    timedCandidate(2, 7.5, 7.45, true), timedCandidate(3, 7.6, 7.60, true)};
        const std::optional<g::PairedGain> aa = g::pairedGain({8.0, 8.1, 7.9, 8.0}, {8.01, 8.08, 7.91, 7.99});
        const g::Selection s = g::selectCandidate(c, 0, g::SelectionRule{}, aa);
        QCOMPARE(s.candidateIndex, 2);
        QVERIFY(s.leftBaseline);
        QVERIFY(std::fabs(s.gainPercent - c[2].sustained->vsTop.gainPercent) < 1e-12);
        QVERIFY(s.lowPercent > 1.0);
        QVERIFY(s.reason.find("[95% interval") != std::string::npos);

        g::SelectionRule loose;
        loose.exactParity = false;
        loose.errorBound = 0.01;
        QCOMPARE(g::selectCandidate(c, 0, loose, aa).candidateIndex, 1);  // within the bound: the largest gain
        loose.errorBound = 0.003;
        QCOMPARE(g::selectCandidate(c, 0, loose, aa).candidateIndex, 2);  // 0.004 is over it
        // Selecting on bursts needs burst rounds: none here, the top stays.
        g::SelectionRule burst;
        burst.regime = g::Regime::Burst;
        const g::Selection none = g::selectCandidate(c, 0, burst, aa);
        QCOMPARE(none.candidateIndex, 0);
        QVERIFY(none.reason.find("burst") != std::string::npos);
    }

    void intervalMustClearTheThreshold() {
        const std::optional<g::PairedGain> aa = g::pairedGain({8.0, 8.1, 7.9}, {8.0, 8.1, 7.9});
        // 1.5% with a tight spread clears 1%.
        std::vector<g::Candidate> c{timedCandidate(0, 8.0, 8.00, true), timedCandidate(1, 7.9, 7.88, true, 0.0005)};
        g::Selection s = g::selectCandidate(c, 0, g::SelectionRule{}, aa);
        QCOMPARE(s.candidateIndex, 1);
        // The same point gain with a 3% spread per round: the interval's lower end does not clear 1%.
        std::vector<g::Candidate> noisy{timedCandidate(0, 8.0, 8.00, true), timedCandidate(1, 7.9, 7.88, true, 0.03)};
        s = g::selectCandidate(noisy, 0, g::SelectionRule{}, aa);
        QCOMPARE(s.candidateIndex, 0);
        QVERIFY(!s.leftBaseline);
        QCOMPARE(s.bestAlternative, 1);
        QVERIFY2(s.reason.find("does not clear 1.00%") != std::string::npos, s.reason.c_str());
        QVERIFY(std::fabs(s.requiredGainPercent - 1.0) < 1e-12);
        // A higher threshold.
        g::SelectionRule strict;
        strict.noiseThreshold = 0.02;
        QCOMPARE(g::selectCandidate(c, 0, strict, aa).candidateIndex, 0);
    }

    void aaControlOutsideZeroIsTooNoisy() {
        std::vector<g::Candidate> c{timedCandidate(0, 8.0, 8.00, true), timedCandidate(1, 7.0, 7.00, true, 0.0005)};
        // The top against itself 3% apart in every round: the machine (or the order) is biased.
        const std::optional<g::PairedGain> biased = g::pairedGain({8.0, 8.1, 7.9, 8.0}, {7.76, 7.86, 7.66, 7.75});
        QVERIFY(!biased->containsZero99());
        g::Selection s = g::selectCandidate(c, 0, g::SelectionRule{}, biased);
        QCOMPARE(s.candidateIndex, 0);
        QVERIFY(s.tooNoisy);
        QVERIFY(s.reason.rfind("too noisy to decide", 0) == 0);
        // No A/A at all: nothing is decided either.
        s = g::selectCandidate(c, 0, g::SelectionRule{}, std::nullopt);
        QCOMPARE(s.candidateIndex, 0);
        QVERIFY(s.reason.find("A/A") != std::string::npos);
    }

    void tiesAndIneligibleCandidates() {
        const std::optional<g::PairedGain> aa = g::pairedGain({8.0, 8.1, 7.9}, {8.0, 8.1, 7.9});
        std::vector<g::Candidate> c{timedCandidate(0, 8.0, 8.0, true), timedCandidate(1, 7.0, 7.0, true),
                                    timedCandidate(2, 7.0, 7.0, true), timedCandidate(3, 6.0, 6.0, true),
                                    timedCandidate(4, 6.0, 0.0, true)};
        c[3].error = "failed while confirmed: CUBLAS_STATUS_EXECUTION_FAILED";
        // c[4] was never confirmed: it cannot be selected
        const g::Selection s = g::selectCandidate(c, 0, g::SelectionRule{}, aa);
        QCOMPARE(s.candidateIndex, 1);  // equal gains: the lower index
        QVERIFY(!g::eligibleUnderRule(c[3], g::SelectionRule{}));
        g::Candidate nan = timedCandidate(5, 5.0, 5.0, true);
        nan.parity.finite = false;
        QVERIFY(!g::eligibleUnderRule(nan, g::SelectionRule{}));

        // Nothing eligible: the baseline stays, and says why.
        std::vector<g::Candidate> none{timedCandidate(0, 8.0, 8.0, true), timedCandidate(1, 6.0, 6.0, false)};
        const g::Selection keep = g::selectCandidate(none, 0, g::SelectionRule{}, aa);
        QCOMPARE(keep.candidateIndex, 0);
        QVERIFY(keep.reason.find("bitwise") != std::string::npos);
        QCOMPARE(g::selectCandidate({}, 0, g::SelectionRule{}, aa).candidateIndex, -1);
    }

    void tieSetPicksTheLowestConfiguration() {
        const std::optional<g::PairedGain> aa = g::pairedGain({8.0, 8.1, 7.9}, {8.0, 8.1, 7.9});
        // #1 (tile 405) and #2 (tile 402) both clear 1% and cannot be told apart (they move against each other by
        // 0.8% per round); #3 is clearly slower than the anchor; #4 ties but does not clear the threshold.
        std::vector<g::Candidate> c{timedCandidate(0, 8.0, 8.0, true), tiedFinalist(1, 405, 3.2, 0.004, 0),
                                    tiedFinalist(2, 402, 3.0, 0.004, 1), tiedFinalist(3, 401, 0.5, 0.0005, 0),
                                    tiedFinalist(4, 400, 2.4, 0.02, 0)};
        QVERIFY(c[4].sustained->vsTop.lowPercent <= 1.0);
        const g::Selection s = g::selectCandidate(c, 0, g::SelectionRule{}, aa);
        QCOMPARE(s.tieAnchor, 1);  // the highest gain that cleared
        QCOMPARE(s.tieSet, (std::vector<int>{1, 2, 4}));
        QVERIFY(!s.tieAnchorOver[0].valid());
        QVERIFY(s.tieAnchorOver[1].lowPercent <= 1.0);
        QCOMPARE(s.candidateIndex, 2);  // the lowest configuration among the tied ones that cleared
        QVERIFY(s.leftBaseline);
        QVERIFY(std::fabs(s.gainPercent - c[2].sustained->vsTop.gainPercent) < 1e-12);
        QVERIFY2(s.reason.find("ties with 2 other finalists (the highest gain was #1)") != std::string::npos, s.reason.c_str());

        // Another run that finds the same tie set in another order, with the gains the other way round, selects the
        // same configuration.
        std::vector<g::Candidate> again{timedCandidate(0, 8.0, 8.0, true), tiedFinalist(1, 402, 3.2, 0.004, 0),
                                        tiedFinalist(2, 405, 3.0, 0.004, 1)};
        const g::Selection t = g::selectCandidate(again, 0, g::SelectionRule{}, aa);
        QCOMPARE(t.tieSet.size(), std::size_t(2));
        QCOMPARE(again[std::size_t(t.candidateIndex)].config, c[std::size_t(s.candidateIndex)].config);

        // Clearly apart (3% against 6%, steady rounds): no tie, the highest gain wins even with the higher tile.
        std::vector<g::Candidate> apart{timedCandidate(0, 8.0, 8.0, true), tiedFinalist(1, 410, 6.0, 0.001, 0),
                                        tiedFinalist(2, 401, 3.0, 0.001, 1)};
        const g::Selection u = g::selectCandidate(apart, 0, g::SelectionRule{}, aa);
        QCOMPARE(u.tieSet, std::vector<int>{1});
        QCOMPARE(u.candidateIndex, 1);

        // The report names the tie set and the rule, in `selected` and in `confirm`.
        g::ExplorationResult r = minimalResult();
        r.candidates = c;
        r.selection = s;
        const Json report = g::buildExplorerReport(r);
        const Json& ties = report["selected"]["ties"];
        QCOMPARE(ties["rule"].get<std::string>(), std::string(g::kTieRule));
        QCOMPARE(ties["anchor_candidate_index"].get<int>(), 1);
        QCOMPARE(ties["picked_candidate_index"].get<int>(), 2);
        QCOMPARE(ties["members"].size(), std::size_t(3));
        QCOMPARE(ties["members"][1]["tile_id"].get<int>(), 402);
        QCOMPARE(ties["members"][2]["cleared"].get<bool>(), false);
        QVERIFY(ties["members"][1]["anchor_gain_over_it"]["interval_95_percent"].is_array());
        QCOMPARE(report["confirm"]["ties"], ties);
        QVERIFY(!s.topInTieSet);  // the pick cleared 1% against the top in the confirm rounds

        // Nothing cleared: the top stays, and it ties with the highest-gain finalist, which anchors the set.
        std::vector<g::Candidate> close{timedCandidate(0, 8.0, 8.0, true), tiedFinalist(1, 405, 0.6, 0.004, 0),
                                        tiedFinalist(2, 402, 0.4, 0.004, 1)};
        const g::Selection k = g::selectCandidate(close, 0, g::SelectionRule{}, aa);
        QCOMPARE(k.candidateIndex, 0);
        QVERIFY(!k.leftBaseline && k.topInTieSet);
        QCOMPARE(k.tieAnchor, 1);
        QCOMPARE(k.tieSet, (std::vector<int>{1, 2, 0}));
        QCOMPARE(k.topTieStage, std::string("confirm"));
        r.candidates = close;
        r.selection = k;
        const Json kept = g::buildExplorerReport(r);
        const Json& keptTies = kept["selected"]["ties"];
        QCOMPARE(keptTies["picked_candidate_index"].get<int>(), 0);
        QCOMPARE(keptTies["members"].size(), std::size_t(3));
        const Json& topMember = keptTies["members"][2];
        QCOMPARE(topMember["heuristic_top"].get<bool>(), true);
        QCOMPARE(topMember["cleared"].get<bool>(), false);
        QCOMPARE(topMember["tied_by"]["candidate_index"].get<int>(), 1);
        QCOMPARE(topMember["tied_by"]["rounds"].get<std::string>(), std::string("confirm"));
        QVERIFY(topMember["tied_by"]["gain_over_it"]["interval_95_percent"][0].get<double>() <= 1.0);
    }

    // --- Guided search --------------------------------------------------------------------------------------
    void neighboursOfEachMove() {
        g::SearchOptions options;
        for (std::uint16_t id = 0; id < 52; ++id) options.clusterShapeIds.push_back(id);
        g::AlgoConfig c;
        c.algorithmId = 66;
        c.tileId = 428;
        c.stagesId = 35;
        c.clusterShape = 3;
        c.splitK = -1;  // sentinel from a heuristic
        const auto caps = algo66Caps();
        const auto clusters = g::neighbours(c, caps, g::SearchMove::Cluster, options);
        QCOMPARE(clusters.size(), std::size_t(52));  // split-k reset to 1, so even cluster 3 differs from c
        for (const auto& n : clusters) QCOMPARE(n.splitK, 1);
        c.splitK = 1;
        QCOMPARE(g::neighbours(c, caps, g::SearchMove::Cluster, options).size(), std::size_t(51));
        QCOMPARE(g::neighbours(c, caps, g::SearchMove::CustomOption, options).size(), std::size_t(7));
        QCOMPARE(g::neighbours(c, caps, g::SearchMove::Swizzle, options).size(), std::size_t(0));
        QCOMPARE(g::neighbours(c, caps, g::SearchMove::TileStages, options).size(), caps.tileIds.size() * 5 - 1);
        QCOMPARE(g::neighbours(c, caps, g::SearchMove::SplitK, options).size(), std::size_t(5 * 2));
        const auto tiles = g::neighbours(c, caps, g::SearchMove::Tile, options);
        QCOMPARE(tiles.size(), caps.tileIds.size() - 1);
    }

    void searchFindsOptimumAwayFromTheHeuristic() {
        Landscape land;
        std::vector<g::Candidate> candidates;
        g::Candidate heuristic;
        heuristic.index = 0;
        heuristic.config.algorithmId = 66;
        heuristic.config.tileId = 420;
        heuristic.config.stagesId = 36;
        heuristic.config.clusterShape = 2;
        heuristic.config.customOption = 0;
        heuristic.source = "heuristic 64 MiB #0";
        heuristic.firstPass = g::FirstPass{{Landscape::timeMs(heuristic.config)}, Landscape::timeMs(heuristic.config), 2, -1};
        heuristic.parity.checked = true;
        heuristic.parity.bitwiseEqualToBaseline = true;
        candidates.push_back(heuristic);

        g::SearchOptions options;
        for (std::uint16_t id = 0; id < 52; ++id) options.clusterShapeIds.push_back(id);
        options.workspaceCapBytes = 64ull << 20;
        g::GuidedSearch search({{66, algo66Caps()}, {31, g::AlgoCapabilities{}}}, options);
        int evaluations = 0;
        const g::SearchStats stats = search.run(
            candidates,
            [&](const g::AlgoConfig& c) {
                ++land.checks;
                g::CheckResult r;
                if (!Landscape::valid(c)) {
                    r.apiStatus = 15;
                    r.failedCall = "cublasLtMatmulAlgoCheck";
                }
                return r;
            },
            [&](std::vector<g::Candidate>& batch) {
                QVERIFY(int(batch.size()) <= options.batchSize);
                for (auto& c : batch) {
                    ++evaluations;
                    ++land.timesEvaluated[c.config];
                    const double t = Landscape::timeMs(c.config);
                    c.firstPass = g::FirstPass{{t}, t, 2, -1};
                    c.parity.checked = true;
                    c.parity.bitwiseEqualToBaseline = true;
                }
            },
            [&]() { return 400.0 - evaluations; },  // the "clock": one second per timed candidate
            [](const g::Candidate& c) { return c.parity.bitwiseEqualToBaseline; });

        double best = 1e9;
        g::AlgoConfig bestConfig;
        for (const auto& c : candidates)
            if (c.firstPass && c.firstPass->medianMs < best) {
                best = c.firstPass->medianMs;
                bestConfig = c.config;
            }
        QCOMPARE(bestConfig.tileId, std::uint32_t(428));
        QCOMPARE(bestConfig.customOption, std::uint32_t(5));
        QCOMPARE(bestConfig.clusterShape, std::uint16_t(3));
        QCOMPARE(bestConfig.stagesId, std::uint32_t(35));
        QVERIFY(std::fabs(best - 8.0) < 1e-12);
        // Nothing is timed twice, nothing invalid is timed, and the budget holds.
        for (const auto& [config, n] : land.timesEvaluated) {
            QCOMPARE(n, 1);
            QVERIFY(Landscape::valid(config));
        }
        QVERIFY(evaluations <= 400 + options.batchSize);  // the clock is read between batches
        QCOMPARE(int(stats.timed), evaluations);
        QVERIFY(stats.checks >= stats.timed);
        QVERIFY(!stats.log.empty());
        for (std::size_t i = 0; i < candidates.size(); ++i) QCOMPARE(candidates[i].index, int(i));
    }

    void searchStopsWhenTheBudgetIsGone() {
        std::vector<g::Candidate> candidates;
        g::Candidate h;
        h.config.algorithmId = 66;
        h.config.tileId = 428;
        h.config.clusterShape = 2;
        h.firstPass = g::FirstPass{{9.0}, 9.0, 2, -1};
        h.parity.checked = true;
        h.parity.bitwiseEqualToBaseline = true;
        candidates.push_back(h);
        g::SearchOptions options;
        options.clusterShapeIds = {0, 2, 3};
        options.batchSize = 2;
        g::GuidedSearch search({{66, algo66Caps()}}, options);
        int evaluations = 0, batches = 0;
        std::size_t checksAnnounced = 0;
        const g::SearchStats stats = search.run(
            candidates, [](const g::AlgoConfig&) { return g::CheckResult{}; },
            [&](std::vector<g::Candidate>& batch) {
                ++batches;
                for (auto& c : batch) {
                    ++evaluations;
                    c.firstPass = g::FirstPass{{9.5}, 9.5, 2, -1};
                    c.parity.checked = true;
                    c.parity.bitwiseEqualToBaseline = true;
                }
            },
            [&]() { return 3.0 - batches; }, [](const g::Candidate&) { return true; }, {},
            [&](std::size_t proposals) { checksAnnounced += proposals; });
        // The clock allows 3 batches of 2; the search stops there and says so.
        QCOMPARE(batches, 3);
        QCOMPARE(evaluations, 6);
        QVERIFY(stats.budgetExhausted);
        QVERIFY(checksAnnounced >= stats.checks);
    }

    void launchFailuresAreRecordedNotFatal() {
        std::vector<g::Candidate> candidates;
        g::Candidate h;
        h.config.algorithmId = 66;
        h.config.tileId = 428;
        h.config.clusterShape = 2;
        h.firstPass = g::FirstPass{{9.0}, 9.0, 2, -1};
        h.parity.checked = true;
        h.parity.bitwiseEqualToBaseline = true;
        candidates.push_back(h);
        g::SearchOptions options;
        options.clusterShapeIds = {0, 2, 3, 4};
        g::GuidedSearch search({{66, algo66Caps()}}, options);
        int evaluations = 0;
        const g::SearchStats stats = search.run(
            candidates, [](const g::AlgoConfig&) { return g::CheckResult{}; },
            [&](std::vector<g::Candidate>& batch) {
                for (auto& c : batch) {
                    ++evaluations;
                    c.error = "cublasLtMatmul failed: CUBLAS_STATUS_EXECUTION_FAILED";
                }
            },
            [&]() { return 1000.0 - evaluations; }, [](const g::Candidate&) { return true; });
        QVERIFY(stats.launchFailures > 0);
        QCOMPARE(int(stats.launchFailures), evaluations);
        QVERIFY(candidates.size() > 1);
        QVERIFY(!candidates.back().error.empty());
        // Every launch failing: the search gives up after 64 in a row instead of burning the budget.
        QVERIFY(stats.stoppedByFailures);
        QVERIFY(evaluations < 1000);
    }

    // --- Report ---------------------------------------------------------------------------------------------
    void reportLoadsThroughTheReportModel() {
        g::ExplorationResult r = minimalResult();
        const Json report = g::buildExplorerReport(r);
        const std::string text = tunescope::dumpJson(report);
        const tunescope::CublasLtReport model = tunescope::parseReportText(text, "explore.json");
        QCOMPARE(model.mode.value(), std::string("gemm-explore"));
        QCOMPARE(model.heuristics.size(), std::size_t(2));
        QCOMPARE(model.heuristics[0].algorithms[0].config.split_k, std::int64_t(-2));  // sentinel kept
        QCOMPARE(model.heuristics[0].algorithms[0].config.cluster_shape.value(), std::int64_t(3));
        QVERIFY(model.selected);
        QCOMPARE(model.selected->config.algorithm_id, std::int64_t(66));
        QCOMPARE(model.selected->config.tile_id, std::int64_t(428));
        QCOMPARE(model.selected->config.cluster_shape.value(), std::int64_t(3));
        QCOMPARE(model.environment->device.value(), std::string("NVIDIA H200"));
        QCOMPARE(model.environment->device_capability.value(), (std::vector<std::int64_t>{9, 0}));
        QCOMPARE(model.environment->extension->cublaslt_runtime_version.value(), std::int64_t(130100));
        QVERIFY(!model.errors_and_unsupported.empty());
        QCOMPARE(model.errors_and_unsupported[0].feature, std::string("Stream-K"));
        QCOMPARE(model.baseline_kernel_metadata->output_sha256.value(), std::string(64, 'a'));

        // Our extensions are there, and replay finds what it needs.
        QCOMPARE(report["candidates"].size(), std::size_t(2));
        QCOMPARE(report["candidates"][1]["parity"]["bitwise_equal_to_baseline"].get<bool>(), true);
        QCOMPARE(report["selected"]["improvement_percent"].get<double>(), r.selection.gainPercent);
        QCOMPARE(report["selected"]["improvement_interval_95_percent"][0].get<double>(), r.selection.lowPercent);
        QCOMPARE(report["selected"]["regime"].get<std::string>(), std::string("sustained"));
        QCOMPARE(report["candidates"][1]["confirm"]["sustained"]["ms_per_round"].size(), std::size_t(6));
        QVERIFY(report["confirm"]["aa_control"]["sustained"]["vs_top"]["interval_99_percent"].is_array());
        const g::ReplayPlan plan = g::replayPlanFromReport(report, "explore.json");
        QCOMPARE(plan.cublasLtVersion, std::uint64_t(130100));
        QCOMPARE(plan.selected.tileId, std::uint32_t(428));
        QCOMPARE(plan.selectedRaw, r.candidates[1].raw);
        QCOMPARE(plan.baselineRaw, r.candidates[0].raw);
        QCOMPARE(plan.spec.m, std::int64_t(37824));
        QCOMPARE(plan.spec.mLogical, std::int64_t(37810));
        QCOMPARE(plan.dataSeed, std::uint64_t(7));
        QCOMPARE(plan.selectedSha256, std::string(64, 'a'));

        // A report that selected nothing cannot be replayed, and says where.
        Json empty = report;
        empty["selected"] = nullptr;
        QCOMPARE(expectError([&] { g::replayPlanFromReport(empty, "x.json"); }).jsonPath(), std::string("/selected"));
        Json broken = report;
        broken["selected"]["raw_algo_hex"] = "00";
        QCOMPARE(expectError([&] { g::replayPlanFromReport(broken, "x.json"); }).jsonPath(),
                 std::string("/selected/raw_algo_hex"));
    }

    void failedExplorationStillWritesAReport() {
        g::ExplorationResult r = minimalResult();
        r.candidates.clear();
        r.baselineIndex = -1;
        r.selection = g::Selection{};
        r.failure = "NVFP4 needs a Blackwell GPU (sm_100 or later)";
        r.unsupported = true;
        r.errorsAndUnsupported.push_back({"nvfp4 TN on sm_90", false, r.failure});
        const Json report = g::buildExplorerReport(r);
        QVERIFY(report["selected"].is_null());
        QCOMPARE(report["failure"].get<std::string>(), r.failure);
        const tunescope::CublasLtReport model = tunescope::parseReportText(tunescope::dumpJson(report), "x.json");
        QVERIFY(!model.selected);
        QCOMPARE(model.errors_and_unsupported.back().reason.value(), r.failure);
    }

private:
    static g::ExplorationResult minimalResult() {
        g::ExplorationResult r;
        r.spec.m = 37824;
        r.spec.n = 5376;
        r.spec.k = 14336;
        r.spec.mLogical = 37810;
        r.dataSeed = 7;
        r.environment.device = "NVIDIA H200";
        r.environment.ccMajor = 9;
        r.environment.cublasLtVersion = 130100;
        r.environment.platform = "Linux-test";
        r.errorsAndUnsupported.push_back({"Stream-K", false, "no public control"});
        for (std::uint64_t ws : {0ull, 64ull << 20}) {
            g::HeuristicSet set;
            set.maxWorkspaceBytes = ws;
            set.requestedCount = 32;
            set.returnedCount = 1;
            g::HeuristicAlgo a;
            a.config.algorithmId = 66;
            a.config.tileId = 23;
            a.config.stagesId = 35;
            a.config.splitK = -2;
            a.config.reductionScheme = 2;
            a.config.clusterShape = 3;
            a.capabilities = algo66Caps();
            a.raw[0] = 66;
            set.algorithms.push_back(a);
            r.heuristics.push_back(set);
        }
        g::Candidate base = timedCandidate(0, 8.2, 8.2, true);
        base.raw[0] = 66;
        base.raw[5] = 1;
        base.parity.sha256 = std::string(64, 'a');
        g::Candidate best = timedCandidate(1, 7.5, 7.5, true);
        best.config.tileId = 428;
        best.config.clusterShape = 3;
        best.raw[0] = 66;
        best.raw[9] = 0xfe;
        best.parity.sha256 = std::string(64, 'a');
        r.candidates = {base, best};
        r.baselineIndex = 0;
        r.baselineWorkspaceBytes = 64ull << 20;
        r.aaSustained = r.candidates[0].sustained;
        r.aaSustained->vsTop = g::pairedGain(r.aaSustained->topMsPerRound, r.aaSustained->topMsPerRound);
        r.selection = g::selectCandidate(r.candidates, 0, r.rule, r.aaSustained->vsTop);
        return r;
    }
};

QTEST_GUILESS_MAIN(TestGemmExplorer)
#include "tst_gemm_explorer.moc"
