// The measurement engine's statistics and stopping rule, driven by scripted TimedWork test doubles that return
// fixed sample sequences (no clocks, no devices): every expectation here is exact and the test never times anything.
#include <QtTest>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/measurement.hpp"

using namespace tunescope;

namespace {

// Test fixture: replays `samples` (cycling) as sample times and `clocks` (cycling) as SM clocks, and counts calls.
class ScriptedWork final : public TimedWork {
public:
    ScriptedWork(std::vector<double> samples, std::vector<int> clocks = {-1})
        : samples_(std::move(samples)), clocks_(std::move(clocks)) {}
    void beforeSample(L2Regime regime) override {
        ++prepareCalls;
        if (regime == L2Regime::Cold) ++coldPrepareCalls;
    }
    double timeSampleMs() override {
        if (failAtCall >= 0 && timedCalls == failAtCall) throw Error("", "", "scripted device fault");
        lastClock_ = clocks_[static_cast<std::size_t>(timedCalls) % clocks_.size()];
        return samples_[static_cast<std::size_t>(timedCalls++) % samples_.size()];
    }
    int lastSmClockMHz() const override { return lastClock_; }
    std::uint64_t bytesMoved() const override { return 1000; }

    // Records the batch sizes the engine asks for, then runs the default (one sample at a time) implementation.
    void timeSamplesMs(int count, L2Regime regime, std::vector<double>& samplesMs,
                       std::vector<SampleConditions>& conditions) override {
        batches.push_back(count);
        TimedWork::timeSamplesMs(count, regime, samplesMs, conditions);
    }

    int prepareCalls = 0, coldPrepareCalls = 0, timedCalls = 0, failAtCall = -1;
    std::vector<int> batches;

private:
    std::vector<double> samples_;
    std::vector<int> clocks_;
    int lastClock_ = -1;
};

// A deterministic spread around `centre`: 1 + spread * (a fixed zig-zag in [-1, 1]).
std::vector<double> spreadAround(double centre, double spread, int n) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(centre * (1.0 + spread * (((i * 37) % 21) - 10) / 10.0));
    return out;
}

Measurement fromSamples(std::vector<double> samples, std::vector<int> clocks = {}) {
    Measurement m;
    m.samplesMs = std::move(samples);
    m.smClockMHz = std::move(clocks);
    computeStatistics(m);
    return m;
}

// Enums compare by name so that a failure prints "FASTER" rather than a number.
QString name(Comparison c) { return QString::fromStdString(toString(c)); }
QString name(StopReason r) { return QString::fromStdString(toString(r)); }

StoppingRule deterministicRule() {
    StoppingRule rule;
    rule.timeoutMs = 1e12;  // never let wall time decide in a unit test
    rule.warmupMinTimeMs = 0;
    return rule;
}

}  // namespace

class TestMeasurement : public QObject {
    Q_OBJECT
private slots:
    void quantilesInterpolateLikeNumpy() {
        std::vector<double> sorted{1, 1, 2, 3, 3, 4, 5, 5, 5, 6, 9};
        QCOMPARE(quantileSorted(sorted, 0.2), 2.0);
        QCOMPARE(quantileSorted(sorted, 0.5), 4.0);
        QCOMPARE(quantileSorted(sorted, 0.8), 5.0);
        QCOMPARE(quantileSorted({1.0, 2.0}, 0.25), 1.25);
        QVERIFY(std::isnan(quantileSorted({}, 0.5)));
    }

    void medianRanksAreExactBinomial() {
        // Values computed with exact integer binomial sums.
        struct Case { int n, lo, hi; };
        for (Case c : {Case{6, 1, 6}, Case{7, 1, 7}, Case{10, 2, 9}, Case{11, 2, 10}, Case{20, 6, 15},
                       Case{32, 10, 23}, Case{100, 40, 61}, Case{1000, 469, 532}}) {
            int lo = 0, hi = 0;
            QVERIFY2(medianConfidenceRanks(c.n, 0.95, &lo, &hi), qPrintable(QString::number(c.n)));
            QCOMPARE(lo, c.lo);
            QCOMPARE(hi, c.hi);
        }
        int lo = 0, hi = 0;
        QVERIFY(!medianConfidenceRanks(5, 0.95, &lo, &hi));
        QVERIFY(!medianConfidenceRanks(0, 0.95, &lo, &hi));
        // Above 1000 the normal approximation may be one rank more conservative than exact, never less.
        QVERIFY(medianConfidenceRanks(1001, 0.95, &lo, &hi));
        QVERIFY(lo == 469 || lo == 470);
        QCOMPARE(hi, 1001 - lo + 1);
        QVERIFY(medianConfidenceRanks(5000, 0.95, &lo, &hi));
        QVERIFY(lo <= 2431 && lo >= 2430);
    }

    void statisticsOfAKnownSequence() {
        const Measurement m = fromSamples({3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5});
        QCOMPARE(m.sampleCount, 11);
        QCOMPARE(m.medianMs, 4.0);
        QCOMPARE(m.p20Ms, 2.0);
        QCOMPARE(m.p80Ms, 5.0);
        QCOMPARE(m.minMs, 1.0);
        QCOMPARE(m.maxMs, 9.0);
        QCOMPARE(m.meanMs, 4.0);
        QVERIFY(std::abs(m.relStdev - std::sqrt(5.6) / 4.0) < 1e-12);
        // n = 11: ranks 2 and 10 of [1 1 2 3 3 4 5 5 5 6 9] are 1 and 6.
        QCOMPARE(m.ciLowMs, 1.0);
        QCOMPARE(m.ciHighMs, 6.0);
        QCOMPARE(m.relNoise, (6.0 - 1.0) / 2.0 / 4.0);
        QCOMPARE(m.meanClockMHz, -1.0);
        QCOMPARE(m.throttledCount, 0);
    }

    void tooFewSamplesHaveInfiniteNoise() {
        const Measurement m = fromSamples({1.0, 1.1, 1.2});
        QVERIFY(std::isinf(m.relNoise));
        QCOMPARE(m.ciLowMs, 1.0);
        QCOMPARE(m.ciHighMs, 1.2);
    }

    void constantSamplesConvergeAtMinSamples() {
        ScriptedWork work({1.0});
        StoppingRule rule = deterministicRule();
        rule.minSamples = 10;
        rule.minTimeMs = 2.0;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.sampleCount, 10);
        QVERIFY(m.converged);
        QVERIFY(!m.timedOut);
        QCOMPARE(name(m.stopReason), name(StopReason::Converged));
        QCOMPARE(m.relNoise, 0.0);
        QCOMPARE(m.warmupCount, 2);
        QCOMPARE(work.timedCalls, 12);  // warm-up samples are run but not kept
        QCOMPARE(work.coldPrepareCalls, 12);
    }

    void pipelinedSamplesComeInBatches() {
        // Depth 8: warm-up and samples are taken 8 at a time; the rule is checked after each batch, so a constant
        // sequence converges at the first batch boundary past minSamples, and every sample is kept in order.
        ScriptedWork work({1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0});
        StoppingRule rule = deterministicRule();
        rule.minSamples = 10;
        rule.minTimeMs = 0;
        rule.maxRelNoise = 1.0;
        rule.pipelineDepth = 8;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.warmupCount, 8);
        QCOMPARE(m.sampleCount, 16);
        QCOMPARE(work.batches, (std::vector<int>{8, 8, 8}));
        QCOMPARE(work.coldPrepareCalls, 24);  // every queued sample gets its own flush
        QCOMPARE(m.samplesMs.size(), std::size_t(16));
        QCOMPARE(m.samplesMs[7], 2.0);
        QCOMPARE(m.smClockMHz.size(), std::size_t(16));
        // Depth 1 never asks for batches: the engine's original one-at-a-time protocol.
        ScriptedWork single({1.0});
        rule.pipelineDepth = 1;
        (void)measure(single, rule, L2Regime::Cold);
        QVERIFY(single.batches.empty());
    }

    void pipelinedBatchesStopAtTheSampleCap() {
        ScriptedWork work(spreadAround(1.0, 0.05, 100));
        StoppingRule rule = deterministicRule();
        rule.minSamples = 5;
        rule.maxSamples = 20;
        rule.maxRelNoise = 0.0;
        rule.stopWhenStalled = false;
        rule.pipelineDepth = 8;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.sampleCount, 20);  // 8 + 8 + 4: the last batch is cut to the cap
        QCOMPARE(name(m.stopReason), name(StopReason::SampleCap));
        QCOMPARE(work.batches.back(), 4);
    }

    void minTimeKeepsSampling() {
        ScriptedWork work({0.1});
        StoppingRule rule = deterministicRule();
        rule.minSamples = 10;
        rule.minTimeMs = 2.0;
        const Measurement m = measure(work, rule, L2Regime::Hot);
        // 0.1 ms per sample: the sum first reaches 2 ms at sample 20 (floating point may need one more).
        QVERIFY(m.sampleCount == 20 || m.sampleCount == 21);
        QVERIFY(m.converged);
        QCOMPARE(work.coldPrepareCalls, 0);  // hot mode
        QCOMPARE(work.prepareCalls, work.timedCalls);
    }

    void warmupSamplesAreNotKept() {
        ScriptedWork work({50.0, 40.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0});
        StoppingRule rule = deterministicRule();
        rule.warmupSamples = 2;
        rule.minSamples = 10;
        rule.minTimeMs = 0;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.maxMs, 1.0);
        QCOMPARE(m.sampleCount, 10);
    }

    void noisySamplesRunUntilTheNoiseIsSmall() {
        // +-2% spread: the median's interval shrinks with n, so the rule needs many more than minSamples.
        ScriptedWork work(spreadAround(1.0, 0.02, 1000));
        StoppingRule rule = deterministicRule();
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QVERIFY(m.converged);
        QVERIFY(m.relNoise <= 0.005);
        QVERIFY2(m.sampleCount > 10, qPrintable(QString::number(m.sampleCount)));
        // Stopping is the first n at which the rule held: one sample fewer did not satisfy it.
        Measurement shorter = fromSamples(std::vector<double>(m.samplesMs.begin(), m.samplesMs.end() - 1));
        QVERIFY(shorter.relNoise > 0.005);
    }

    void bimodalSamplesStall() {
        // Two values, alternating: the median's interval never shrinks below the gap between them.
        ScriptedWork work({1.0, 1.1});
        StoppingRule rule = deterministicRule();
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(name(m.stopReason), name(StopReason::Stalled));
        QVERIFY(!m.converged);
        QCOMPARE(m.sampleCount, 128);  // checkpoints 32, 64, 128: two doublings without progress
    }

    void sampleCapWhenStallDetectionIsOff() {
        ScriptedWork work({1.0, 1.1});
        StoppingRule rule = deterministicRule();
        rule.stopWhenStalled = false;
        rule.maxSamples = 300;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(name(m.stopReason), name(StopReason::SampleCap));
        QCOMPARE(m.sampleCount, 300);
    }

    void zeroTimeoutStopsAfterOneSample() {
        ScriptedWork work({1.0, 2.0, 3.0});
        StoppingRule rule;
        rule.timeoutMs = 0;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.sampleCount, 1);
        QVERIFY(m.timedOut);
        QVERIFY(!m.converged);
        QCOMPARE(name(m.stopReason), name(StopReason::Timeout));
    }

    void throttledSamplesAreMarkedAgainstTheMaxClock() {
        // 1900 < 0.97 * 1980 = 1920.6: throttled; 1930 is not.
        ScriptedWork work({1.0}, {1980, 1980, 1900, 1930, 1980});
        StoppingRule rule = deterministicRule();
        rule.warmupSamples = 0;  // still runs one warm-up sample (clock 1980)
        rule.minSamples = 10;
        rule.minTimeMs = 0;
        const Measurement m = measure(work, rule, L2Regime::Cold);
        QCOMPARE(m.sampleCount, 10);
        // Kept samples see clocks starting at call 1: 1980 1900 1930 1980 1980 1980 1900 1930 1980 1980.
        QCOMPARE(m.smClockMHz[1], 1900);
        QCOMPARE(int(m.throttled[1]), 1);
        QCOMPARE(int(m.throttled[2]), 0);
        QCOMPARE(m.throttledCount, 2);
        QCOMPARE(m.referenceClockMHz, 1980);

        // A higher reference from the rest of the sweep marks 1930 as well (1930 < 0.97 * 2000 = 1940).
        ScriptedWork again({1.0}, {1980, 1980, 1900, 1930, 1980});
        MeasureContext context;
        context.referenceClockMHz = 2000;
        const Measurement n = measure(again, rule, L2Regime::Cold, context);
        QCOMPARE(n.throttledCount, 4);
        QCOMPARE(n.referenceClockMHz, 2000);
    }

    void deviceErrorsPropagate() {
        ScriptedWork work({1.0});
        work.failAtCall = 5;
        bool threw = false;
        try {
            (void)measure(work, deterministicRule(), L2Regime::Cold);
        } catch (const Error& e) {
            threw = true;
            QVERIFY(std::string(e.what()).find("scripted device fault") != std::string::npos);
        }
        QVERIFY(threw);
    }

    void compareSeparatedMeasurements() {
        const Measurement fast = fromSamples(spreadAround(1.00, 0.001, 50));
        const Measurement slow = fromSamples(spreadAround(1.05, 0.001, 50));
        QCOMPARE(name(compare(fast, slow, 0.005)), name(Comparison::Faster));
        QCOMPARE(name(compare(slow, fast, 0.005)), name(Comparison::Slower));
        const ComparisonResult r = compareMeasurements(fast, slow, CompareOptions{});
        QVERIFY(std::abs(r.ratio - 1.0 / 1.05) < 1e-3);
        QVERIFY(!r.reason.empty());
    }

    void compareEqualMeasurements() {
        const Measurement a = fromSamples(spreadAround(1.0, 0.002, 60));
        std::vector<double> shuffled = spreadAround(1.0, 0.002, 60);
        std::reverse(shuffled.begin(), shuffled.end());
        const Measurement b = fromSamples(shuffled);
        QCOMPARE(name(compare(a, b, 0.005)), name(Comparison::Same));
        QCOMPARE(name(compare(a, a, 0.005)), name(Comparison::Same));
    }

    void smallDifferencesAreAmbiguous() {
        // Apart by 0.3%: separated intervals, but the gap is under the 0.5% threshold and the centres are not
        // close enough with no overlap: neither FASTER nor SAME.
        const Measurement a = fromSamples(spreadAround(1.000, 0.0002, 50));
        const Measurement b = fromSamples(spreadAround(1.003, 0.0002, 50));
        QCOMPARE(name(compare(a, b, 0.005)), name(Comparison::Ambiguous));
        // With a 0.1% threshold the same data is a clear win.
        QCOMPARE(name(compare(a, b, 0.001)), name(Comparison::Faster));
    }

    void noisyOverlappingMeasurementsAreAmbiguous() {
        const Measurement a = fromSamples(spreadAround(1.00, 0.2, 30));
        const Measurement b = fromSamples(spreadAround(1.01, 0.2, 30));
        QCOMPARE(name(compare(a, b, 0.005)), name(Comparison::Ambiguous));
        QCOMPARE(name(compare(b, a, 0.005)), name(Comparison::Ambiguous));
    }

    void aGapExplainedByTheClockIsAmbiguous() {
        // a is 5% faster in time but ran at a 10% higher clock: in cycles it is slower, so no verdict.
        const Measurement a = fromSamples(spreadAround(1.00, 0.001, 40), std::vector<int>(40, 1980));
        const Measurement b = fromSamples(spreadAround(1.05, 0.001, 40), std::vector<int>(40, 1800));
        const ComparisonResult r = compareMeasurements(a, b, CompareOptions{});
        QCOMPARE(name(r.verdict), name(Comparison::Ambiguous));
        QVERIFY(r.reason.find("cycles") != std::string::npos);
        // Same clocks: the gap stands.
        const Measurement c = fromSamples(spreadAround(1.05, 0.001, 40), std::vector<int>(40, 1980));
        QCOMPARE(name(compare(a, c, 0.005)), name(Comparison::Faster));
        // Where the work sets its own clock (a power-limited card), the time gap is the verdict.
        CompareOptions onTimes;
        onTimes.confirmInCycles = false;
        QCOMPARE(name(compareMeasurements(a, b, onTimes).verdict), name(Comparison::Faster));
        QCOMPARE(name(compareMeasurements(b, a, onTimes).verdict), name(Comparison::Slower));
    }

    void emptyMeasurementsAreNeverCompared() {
        const Measurement empty = fromSamples({});
        const Measurement a = fromSamples(spreadAround(1.0, 0.001, 20));
        QCOMPARE(name(compare(empty, a)), name(Comparison::Ambiguous));
        QCOMPARE(name(compare(a, empty)), name(Comparison::Ambiguous));
    }

    void stopReasonsRoundTrip() {
        for (StopReason r : {StopReason::Converged, StopReason::Stalled, StopReason::Timeout, StopReason::SampleCap}) {
            StopReason back = StopReason::Converged;
            QVERIFY(stopReasonFromString(toString(r), &back));
            QCOMPARE(name(back), name(r));
        }
        StopReason unused{};
        QVERIFY(!stopReasonFromString("done", &unused));
    }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
