// Run-vs-run comparison (core/src/sweep/run_compare.cpp) and gzip-compressed inputs (core/src/base/gz_io.cpp): two real H200
// sweeps from bench/results (runs 6 and 7, same plan, a day apart) compared record by record, synthetic files that
// pin the "never best when not converged" rule, and .gz files that are valid, truncated, concatenated or bombs.
#include <QtTest>

#include <zlib.h>  // only to write test archives; tunescope_core links zlib

#include <cmath>
#include <filesystem>
#include <string>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/gz_io.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/run_compare.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

fs::path sourceDir() { return qEnvironmentVariable("TUNESCOPE_SOURCE_DIR").toStdString(); }

std::string gzipBytes(const std::string& text) {
    z_stream stream{};
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
    std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

ResultRecord record(int nb, int blockRows, double medianMs, bool converged) {
    ResultRecord r;
    r.nb = nb;
    r.rows = 65536LL * nb;
    r.config = L2NormConfig{blockRows, 4, 3, 1};
    r.m.sampleCount = converged ? 200 : 2;
    r.m.medianMs = r.m.p20Ms = r.m.p80Ms = medianMs;
    r.m.ciLowMs = medianMs * 0.999;
    r.m.ciHighMs = medianMs * 1.001;
    r.m.relNoise = converged ? 0.001 : std::numeric_limits<double>::infinity();
    r.m.converged = converged;
    r.m.timedOut = !converged;
    r.m.stopReason = converged ? StopReason::Converged : StopReason::Timeout;
    return r;
}

}  // namespace

class TestRunCompare : public QObject {
    Q_OBJECT
private slots:
    void comparesTwoRealH200Sweeps() {
        const fs::path run6 = sourceDir() / "bench/results/h200-run6/sweep.jsonl.gz";
        const fs::path run7 = sourceDir() / "bench/results/h200-run7/sweep.jsonl.gz";
        if (!fs::exists(run6) || !fs::exists(run7)) QSKIP("bench/results/h200-run6/7 are not in this checkout");
        const ResultsFile a = loadResults(run6), b = loadResults(run7);
        QCOMPARE(a.records.size(), std::size_t(2432));
        QCOMPARE(b.records.size(), std::size_t(2432));
        const RunComparison c = compareRuns(a, b);
        QCOMPARE(c.deviceA, std::string("NVIDIA H200"));
        QCOMPARE(c.rows.size(), std::size_t(2432));
        QCOMPARE(c.onlyInA + c.onlyInB + c.duplicatesIgnored, std::size_t(0));
        // The same plan run twice a day apart: mostly SAME, a fifth too noisy to call, a handful of real moves.
        QCOMPARE(c.faster, std::size_t(11));
        QCOMPARE(c.slower, std::size_t(9));
        QCOMPARE(c.same, std::size_t(1798));
        QCOMPARE(c.ambiguous, std::size_t(614));
        QCOMPARE(c.faster + c.slower + c.same + c.ambiguous, c.rows.size());
        QCOMPARE(c.untrustworthyPairs, std::size_t(13));  // 9 stalled records in run 6, 8 in run 7, 4 pairs shared
        QVERIFY(std::abs(c.geomeanRatio - 1.0) < 0.002);
        QCOMPARE(c.perNb.size(), std::size_t(32));
        QCOMPARE(c.winnersChanged, std::size_t(26));
        QCOMPARE(c.winnersChangedSignificantly, std::size_t(1));  // NB 11 only: every other change is a tie
        for (const RunComparisonRow& row : c.rows) {
            QVERIFY(row.a && row.b);
            QCOMPARE(row.ratio, row.b->m.medianMs / row.a->m.medianMs);
            QVERIFY(row.ratioLow <= row.ratio && row.ratio <= row.ratioHigh);
            // FASTER/SLOWER need the ratio interval clear of 1.
            if (row.verdict == Comparison::Faster) QVERIFY(row.ratioHigh < 1.0);
            if (row.verdict == Comparison::Slower) QVERIFY(row.ratioLow > 1.0);
        }
        for (const RunComparisonNb& nb : c.perNb) {
            QVERIFY(nb.winnerA && nb.winnerB);
            QVERIFY(nb.regretOfAWinnerOnB && *nb.regretOfAWinnerOnB >= 0.0);
        }
    }

    void unconvergedRecordsAreNeverWinners() {
        ResultsFile a, b;
        // At NB 1 the fastest record of A timed out after 2 samples: it must not win, nor enter the regret.
        a.records = {record(1, 8, 0.005, false), record(1, 16, 0.010, true), record(1, 32, 0.012, true)};
        b.records = {record(1, 8, 0.005, true), record(1, 16, 0.011, true), record(1, 32, 0.0100, true)};
        const RunComparison c = compareRuns(a, b);
        QCOMPARE(c.rows.size(), std::size_t(3));
        QCOMPARE(c.untrustworthyPairs, std::size_t(1));
        QCOMPARE(c.perNb.size(), std::size_t(1));
        const RunComparisonNb& nb = c.perNb.front();
        QCOMPARE(nb.winnerA->blockRows, 16);
        QCOMPARE(nb.winnerB->blockRows, 8);
        QVERIFY(nb.winnerChanged);
        QCOMPARE(*nb.regretOfAWinnerOnB, 0.011 / 0.005 - 1.0);
        QVERIFY(nb.winnerChangeVerdict == Comparison::Faster);
        QCOMPARE(c.onlyInA, std::size_t(0));
        b.records.pop_back();
        QCOMPARE(compareRuns(a, b).onlyInA, std::size_t(1));
    }

    void spearmanRankCorrelationIsExact() {
        QCOMPARE(spearmanRankCorrelation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
        QCOMPARE(spearmanRankCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
        // One swapped pair of four: 1 - 6 * 2 / (4 * 15) = 0.8.
        QVERIFY(std::abs(spearmanRankCorrelation({1, 2, 3, 4}, {1, 3, 2, 4}) - 0.8) < 1e-12);
        // Ties take their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3) give 1.5 / sqrt(1.5 * 2).
        QVERIFY(std::abs(spearmanRankCorrelation({1, 1, 2}, {1, 2, 3}) - 1.5 / std::sqrt(3.0)) < 1e-12);
        QVERIFY(std::isnan(spearmanRankCorrelation({1, 1, 1}, {1, 2, 3})));
        QVERIFY(std::isnan(spearmanRankCorrelation({1}, {1})));
    }

    void rankAgreementPerNbAndKernels() {
        ResultsFile a, b;
        a.header.plan = Json{{"kernel", "native"}};
        b.header.plan = Json{{"kernel", "triton"}};
        // NB 1: B swaps the middle two configs (rho 0.8); the unconverged fifth config is left out of the ranking.
        a.records = {record(1, 8, 0.010, true), record(1, 16, 0.020, true), record(1, 32, 0.030, true),
                     record(1, 64, 0.040, true), record(1, 128, 0.001, false)};
        b.records = {record(1, 8, 0.011, true), record(1, 16, 0.031, true), record(1, 32, 0.021, true),
                     record(1, 64, 0.041, true), record(1, 128, 0.050, true)};
        // NB 2: the same order in both (rho 1); NB 3: two configs only, too few to rank.
        for (int bt : {8, 16, 32}) {
            a.records.push_back(record(2, bt, 0.01 * bt, true));
            b.records.push_back(record(2, bt, 0.02 * bt, true));
        }
        a.records.push_back(record(3, 8, 0.1, true));
        a.records.push_back(record(3, 16, 0.2, true));
        b.records.push_back(record(3, 8, 0.2, true));
        b.records.push_back(record(3, 16, 0.1, true));
        const RunComparison c = compareRuns(a, b);
        QCOMPARE(c.kernelA, std::string("native"));
        QCOMPARE(c.kernelB, std::string("triton"));
        QCOMPARE(describeKernel(c.kernelB), std::string("FLA's Triton kernel"));
        QCOMPARE(c.perNb.size(), std::size_t(3));
        QCOMPARE(c.perNb[0].rankedConfigs, std::size_t(4));
        QVERIFY(std::abs(*c.perNb[0].rankCorrelation - 0.8) < 1e-12);
        QCOMPARE(*c.perNb[1].rankCorrelation, 1.0);
        QCOMPARE(c.perNb[2].rankedConfigs, std::size_t(2));
        QVERIFY(!c.perNb[2].rankCorrelation);
        QVERIFY(std::abs(*c.lowestRankCorrelation - 0.8) < 1e-12);
        QCOMPARE(c.lowestRankNb, 1);
        // A plan without a kernel (before --kernel existed) measured the stand-in.
        a.header.plan = Json::object();
        QCOMPARE(compareRuns(a, b).kernelA, std::string("native"));
    }

    void gzipResultsReadLikeThePlainFile() {
        const fs::path run6 = sourceDir() / "bench/results/h200-run6/sweep.jsonl.gz";
        if (!fs::exists(run6)) QSKIP("bench/results/h200-run6 is not in this checkout");
        QTemporaryDir dir;
        const std::string compressed = readTextFile(run6, 1ull << 30);  // already inflated by readTextFile
        QVERIFY(!isGzip(compressed));
        const fs::path plain = fs::path(dir.path().toStdString()) / "sweep.jsonl";
        writeFileAtomic(plain, compressed);
        const ResultsFile fromGz = loadResults(run6), fromPlain = loadResults(plain);
        QCOMPARE(fromGz.records.size(), fromPlain.records.size());
        QCOMPARE(fromGz.header.planHash, fromPlain.header.planHash);
        QCOMPARE(fromGz.records.back().m.medianMs, fromPlain.records.back().m.medianMs);
    }

    void gzipJsonAndBadArchives() {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        const std::string text = "{\"a\": [1, 2, 3], \"b\": \"x\"}\n";
        writeFileAtomic(folder / "doc.json.gz", gzipBytes(text));
        QCOMPARE(readJsonFile(folder / "doc.json.gz")["a"][2].get<int>(), 3);
        // Two members, as `cat a.gz b.gz` makes: one text.
        writeFileAtomic(folder / "two.json.gz", gzipBytes("{\"a\": ") + gzipBytes("42}"));
        QCOMPARE(readJsonFile(folder / "two.json.gz")["a"].get<int>(), 42);

        const std::string whole = gzipBytes(std::string(100000, ' ') + text);
        writeFileAtomic(folder / "cut.json.gz", whole.substr(0, whole.size() / 2));
        try {
            readJsonFile(folder / "cut.json.gz");
            QFAIL("a truncated archive was read");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("cut.json.gz") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("truncated") != std::string::npos, e.what());
        }
        std::string corrupt = whole;
        corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
        corrupt[corrupt.size() / 2 + 1] = static_cast<char>(corrupt[corrupt.size() / 2 + 1] ^ 0x55);
        writeFileAtomic(folder / "bad.json.gz", corrupt);
        QVERIFY_THROWS_EXCEPTION(Error, readJsonFile(folder / "bad.json.gz"));
        // The size limit applies to the inflated text: 10 MB of spaces compress to ~10 kB.
        writeFileAtomic(folder / "bomb.json.gz", gzipBytes(std::string(10u << 20, ' ') + text));
        try {
            readTextFile(folder / "bomb.json.gz", 1u << 20);
            QFAIL("an archive over the limit was inflated");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("limit") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunCompare)
#include "tst_run_compare.moc"
