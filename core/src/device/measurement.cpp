#include "tunescope/device/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "tunescope/base/text_fields.hpp"

namespace tunescope {

std::string toString(StopReason reason) {
    switch (reason) {
    case StopReason::Converged: return "converged";
    case StopReason::Stalled: return "stalled";
    case StopReason::Timeout: return "timeout";
    case StopReason::SampleCap: return "sample-cap";
    }
    return "timeout";
}

bool stopReasonFromString(const std::string& text, StopReason* out) {
    for (StopReason r : {StopReason::Converged, StopReason::Stalled, StopReason::Timeout, StopReason::SampleCap}) {
        if (toString(r) == text) {
            *out = r;
            return true;
        }
    }
    return false;
}

std::string toString(Comparison c) {
    switch (c) {
    case Comparison::Faster: return "FASTER";
    case Comparison::Slower: return "SLOWER";
    case Comparison::Same: return "SAME";
    case Comparison::Ambiguous: return "AMBIGUOUS";
    }
    return "AMBIGUOUS";
}

double quantileSorted(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {

// Standard normal quantile by bisection on erfc: only called for n > 1000, where speed does not matter.
double normalQuantile(double p) {
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        const double cdf = 0.5 * std::erfc(-mid / std::sqrt(2.0));
        (cdf < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace

bool medianConfidenceRanks(int n, double confidence, int* lo, int* hi) {
    if (n < 1 || !(confidence > 0.0 && confidence < 1.0)) return false;
    const double alpha = 1.0 - confidence;
    int lower = 0;
    if (n <= 1000) {
        // Coverage of [x_(l), x_(n-l+1)] is 1 - 2 P(B <= l-1), B ~ Binomial(n, 1/2); take the largest l that keeps it.
        double pmf = std::pow(0.5, n);  // P(B = 0); 0.5^1000 is still a normal double
        double cdf = 0.0;
        for (int k = 0; k < n; ++k) {
            cdf += pmf;
            if (2.0 * cdf > alpha) break;
            lower = k + 1;
            pmf = pmf * static_cast<double>(n - k) / static_cast<double>(k + 1);
        }
    } else {
        const double z = normalQuantile(1.0 - alpha / 2.0);
        lower = static_cast<int>(std::floor(n / 2.0 + 0.5 - z * std::sqrt(static_cast<double>(n)) / 2.0));
    }
    if (lower < 1) return false;
    *lo = lower;
    *hi = n - lower + 1;
    return true;
}

void computeStatistics(Measurement& m, int referenceClockMHz) {
    const std::size_t n = m.samplesMs.size();
    m.sampleCount = static_cast<int>(n);
    m.smClockMHz.resize(n, -1);
    m.throttled.assign(n, 0);
    if (!m.memClockMHz.empty()) m.memClockMHz.resize(n, -1);
    if (!m.powerW.empty()) m.powerW.resize(n, -1);
    if (!m.temperatureC.empty()) m.temperatureC.resize(n, -1);
    if (!m.clockEventReasons.empty()) m.clockEventReasons.resize(n, -1);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m.throttledCount = 0;
    m.powerCapCount = 0;
    if (n == 0) {
        m.medianMs = m.p20Ms = m.p80Ms = m.minMs = m.maxMs = m.meanMs = m.ciLowMs = m.ciHighMs = nan;
        m.relStdev = nan;
        m.relNoise = std::numeric_limits<double>::infinity();
        m.meanClockMHz = -1;
        m.referenceClockMHz = referenceClockMHz;
        m.measuredTimeMs = 0;
        return;
    }

    // Throttle marks first: the statistics leave those samples out (nvbench's rule, docs/sweep.md).
    int maxClock = referenceClockMHz;
    for (int clock : m.smClockMHz)
        if (clock > 0) maxClock = std::max(maxClock, clock);
    m.referenceClockMHz = maxClock;
    for (std::size_t i = 0; i < n; ++i) {
        const int clock = m.smClockMHz[i];
        const long long events = m.clockEventReasons.empty() ? -1 : m.clockEventReasons[i];
        const bool slowClock = maxClock > 0 && clock > 0 && clock < kThrottleFraction * maxClock;
        const bool throttleEvent = events > 0 && (events & kThrottleEventMask) != 0;
        if (events > 0 && (events & 0x4) != 0) ++m.powerCapCount;
        if (slowClock || throttleEvent) {
            m.throttled[i] = 1;
            ++m.throttledCount;
        }
    }
    const bool dropThrottled = m.throttledCount > 0 && static_cast<std::size_t>(m.throttledCount) < n;
    std::vector<double> sorted;
    sorted.reserve(n);
    double clockSum = 0;
    int clockCount = 0;
    m.measuredTimeMs = 0;
    for (std::size_t i = 0; i < n; ++i) {
        m.measuredTimeMs += m.samplesMs[i];
        if (dropThrottled && m.throttled[i]) continue;
        sorted.push_back(m.samplesMs[i]);
        if (m.smClockMHz[i] > 0) {
            clockSum += m.smClockMHz[i];
            ++clockCount;
        }
    }
    m.meanClockMHz = clockCount > 0 ? clockSum / clockCount : -1;

    std::sort(sorted.begin(), sorted.end());
    const std::size_t kept = sorted.size();
    m.minMs = sorted.front();
    m.maxMs = sorted.back();
    m.medianMs = quantileSorted(sorted, 0.5);
    m.p20Ms = quantileSorted(sorted, 0.2);
    m.p80Ms = quantileSorted(sorted, 0.8);
    const double sum = std::accumulate(sorted.begin(), sorted.end(), 0.0);
    m.meanMs = sum / static_cast<double>(kept);
    double squares = 0;
    for (double x : sorted) squares += (x - m.meanMs) * (x - m.meanMs);
    const double stdev = kept > 1 ? std::sqrt(squares / static_cast<double>(kept - 1)) : 0.0;
    m.relStdev = m.meanMs > 0 ? stdev / m.meanMs : nan;

    int lo = 0, hi = 0;
    if (medianConfidenceRanks(static_cast<int>(kept), kMedianConfidence, &lo, &hi)) {
        m.ciLowMs = sorted[static_cast<std::size_t>(lo - 1)];
        m.ciHighMs = sorted[static_cast<std::size_t>(hi - 1)];
        m.relNoise = m.medianMs > 0 ? (m.ciHighMs - m.ciLowMs) / 2.0 / m.medianMs
                                    : std::numeric_limits<double>::infinity();
    } else {
        // Too few samples for an interval: report the whole range and infinite noise.
        m.ciLowMs = m.minMs;
        m.ciHighMs = m.maxMs;
        m.relNoise = std::numeric_limits<double>::infinity();
    }
}

Measurement measure(TimedWork& work, const StoppingRule& rule, L2Regime regime, const MeasureContext& context) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto elapsedMs = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };

    Measurement m;
    // Warm-up: at least one sample, so that first-launch costs (module load, page faults) never reach the data.
    const int warmupSamples = std::max(1, rule.warmupSamples);
    const int depth = std::clamp(rule.pipelineDepth, 1, 256);
    std::vector<double> batchMs;
    std::vector<SampleConditions> batchConditions;
    const auto takeBatch = [&](int count) {
        batchMs.clear();
        batchConditions.clear();
        if (count == 1) {  // one at a time: exactly the engine's original protocol
            work.beforeSample(regime);
            batchMs.push_back(work.timeSampleMs());
            batchConditions.push_back(work.lastConditions());
        } else {
            work.timeSamplesMs(count, regime, batchMs, batchConditions);
        }
        if (batchMs.size() != std::size_t(count) || batchConditions.size() != std::size_t(count))
            throw Error("", "", "the device returned " + std::to_string(batchMs.size()) + " samples for a batch of " +
                                    std::to_string(count));
    };
    while (true) {
        takeBatch(depth);
        m.warmupCount += depth;
        if (m.warmupCount >= warmupSamples && elapsedMs() >= rule.warmupMinTimeMs) break;
        if (elapsedMs() >= rule.timeoutMs) break;
    }

    const int minSamples = std::max(1, rule.minSamples);
    const int maxSamples = std::max(minSamples, rule.maxSamples);
    std::vector<double> sorted;  // kept sorted as samples arrive, so the noise check costs O(1) order statistics
    sorted.reserve(static_cast<std::size_t>(std::min(maxSamples, 4096)));
    m.samplesMs.reserve(sorted.capacity());
    m.smClockMHz.reserve(sorted.capacity());
    double measuredMs = 0;
    // Noise at sample counts 32, 64, 128, ... for the stall check.
    std::vector<double> checkpointNoise;
    std::size_t nextCheckpoint = 32;
    m.stopReason = StopReason::Timeout;

    while (true) {
        // A batch never runs past the sample cap; the stopping rule is checked after each batch.
        takeBatch(std::min(depth, std::max(1, maxSamples - static_cast<int>(sorted.size()))));
        for (std::size_t i = 0; i < batchMs.size(); ++i) {
            const double sample = batchMs[i];
            const SampleConditions& conditions = batchConditions[i];
            m.samplesMs.push_back(sample);
            m.smClockMHz.push_back(conditions.smClockMHz);
            m.memClockMHz.push_back(conditions.memClockMHz);
            m.powerW.push_back(conditions.powerW);
            m.temperatureC.push_back(conditions.temperatureC);
            m.clockEventReasons.push_back(conditions.clockEventReasons);
            sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), sample), sample);
            measuredMs += sample;
        }
        const std::size_t n = sorted.size();

        if (static_cast<int>(n) >= minSamples && measuredMs >= rule.minTimeMs) {
            double noise = std::numeric_limits<double>::infinity();
            int lo = 0, hi = 0;
            if (medianConfidenceRanks(static_cast<int>(n), kMedianConfidence, &lo, &hi)) {
                const double median = quantileSorted(sorted, 0.5);
                if (median > 0)
                    noise = (sorted[static_cast<std::size_t>(hi - 1)] - sorted[static_cast<std::size_t>(lo - 1)]) /
                            2.0 / median;
            }
            if (noise <= rule.maxRelNoise) {
                m.stopReason = StopReason::Converged;
                m.converged = true;
                break;
            }
            if (n >= nextCheckpoint) {
                checkpointNoise.push_back(noise);
                nextCheckpoint *= 2;
                // Stalled: two doublings of the sample count in a row that did not shrink the noise by 10%
                // (quantised timers, bimodal kernels); more samples would only burn time.
                const std::size_t c = checkpointNoise.size();
                if (rule.stopWhenStalled && c >= 3 && std::isfinite(checkpointNoise[c - 3]) &&
                    checkpointNoise[c - 1] >= 0.9 * checkpointNoise[c - 2] &&
                    checkpointNoise[c - 2] >= 0.9 * checkpointNoise[c - 3]) {
                    m.stopReason = StopReason::Stalled;
                    break;
                }
            }
        } else if (n >= nextCheckpoint) {
            nextCheckpoint *= 2;  // checkpoints only count once the minimums are met
        }
        if (static_cast<int>(n) >= maxSamples) {
            m.stopReason = StopReason::SampleCap;
            break;
        }
        if (elapsedMs() >= rule.timeoutMs) {
            m.stopReason = StopReason::Timeout;
            m.timedOut = true;
            break;
        }
    }

    // Conditions nobody reported are not kept (the CPU, drivers without NVML).
    const auto anyKnown = [](const auto& values) {
        return std::any_of(values.begin(), values.end(), [](auto v) { return v >= 0; });
    };
    if (!anyKnown(m.memClockMHz)) m.memClockMHz.clear();
    if (!anyKnown(m.powerW)) m.powerW.clear();
    if (!anyKnown(m.temperatureC)) m.temperatureC.clear();
    if (!anyKnown(m.clockEventReasons)) m.clockEventReasons.clear();
    computeStatistics(m, context.referenceClockMHz);
    m.wallTimeMs = elapsedMs();
    return m;
}

namespace {

struct Interval {
    double lo, hi;
};

Interval medianInterval(const Measurement& m) { return {m.ciLowMs, m.ciHighMs}; }

bool usable(const Measurement& m) {
    return m.sampleCount > 0 && std::isfinite(m.medianMs) && m.medianMs > 0 && std::isfinite(m.ciLowMs) &&
           std::isfinite(m.ciHighMs) && m.ciLowMs > 0 && m.ciHighMs >= m.ciLowMs;
}

// Overlap of two intervals as a fraction of the narrower one; a point interval counts as fully overlapped when
// it lies inside the other.
double overlapFraction(Interval a, Interval b) {
    const double overlap = std::min(a.hi, b.hi) - std::max(a.lo, b.lo);
    if (overlap < 0) return 0.0;
    const double narrower = std::min(a.hi - a.lo, b.hi - b.lo);
    if (narrower <= 0) return 1.0;
    return std::min(1.0, overlap / narrower);
}

}  // namespace

ComparisonResult compareMeasurements(const Measurement& a, const Measurement& b, const CompareOptions& options) {
    ComparisonResult result;
    if (!usable(a) || !usable(b)) {
        result.reason = "no usable timing on one side";
        return result;
    }
    result.ratio = a.medianMs / b.medianMs;
    const Interval ia = medianInterval(a), ib = medianInterval(b);
    const bool haveClocks = options.confirmInCycles && a.meanClockMHz > 0 && b.meanClockMHz > 0;

    // 1. A clear gap between the intervals, at least clearGapRelative wide.
    const auto gapVerdict = [&](Interval fast, Interval slow, double fastClock, double slowClock,
                                Comparison verdict) -> bool {
        if (!(fast.hi < slow.lo)) return false;
        const double gap = (slow.lo - fast.hi) / fast.hi;
        if (gap < options.clearGapRelative) {
            result.reason = "intervals are apart by " + formatPercent(gap, 2) + ", less than the " +
                            formatPercent(options.clearGapRelative, 2) + " needed";
            return false;
        }
        // 2. Confirm in cycle space: a clock difference alone must not explain the gap.
        if (haveClocks && !(fast.hi * fastClock < slow.lo * slowClock)) {
            result.verdict = Comparison::Ambiguous;
            result.reason = "the time gap is not confirmed in cycles (SM clocks differed)";
            return true;
        }
        result.verdict = verdict;
        result.reason = "intervals apart by " + formatPercent(gap, 2);
        return true;
    };
    if (gapVerdict(ia, ib, a.meanClockMHz, b.meanClockMHz, Comparison::Faster)) return result;
    if (gapVerdict(ib, ia, b.meanClockMHz, a.meanClockMHz, Comparison::Slower)) return result;

    // 3. SAME: close centres, overlapping intervals, both quiet enough.
    const double centre = std::abs(a.medianMs - b.medianMs) / std::min(a.medianMs, b.medianMs);
    const double overlap = overlapFraction(ia, ib);
    const double noise = std::max(a.relNoise, b.relNoise);
    bool same = centre <= options.sameCenterRelative && overlap >= options.sameOverlapFraction &&
                noise <= options.sameNoiseCeiling;
    if (same && haveClocks) {
        const double ca = a.medianMs * a.meanClockMHz, cb = b.medianMs * b.meanClockMHz;
        same = std::abs(ca - cb) / std::min(ca, cb) <= options.sameCenterRelative;
        if (!same) {
            result.reason = "medians agree in time but not in cycles (SM clocks differed)";
            return result;
        }
    }
    if (same) {
        result.verdict = Comparison::Same;
        result.reason =
            "medians within " + formatPercent(centre, 2) + ", intervals overlap " + formatPercent(overlap, 2);
        return result;
    }
    if (result.reason.empty()) {
        if (centre > options.sameCenterRelative)
            result.reason = "medians differ by " + formatPercent(centre, 2) + " but the intervals overlap";
        else if (noise > options.sameNoiseCeiling)
            result.reason = "too noisy to call equal (relative noise " + formatPercent(noise, 2) + ")";
        else
            result.reason = "intervals overlap only " + formatPercent(overlap, 2);
    }
    return result;
}

Comparison compare(const Measurement& a, const Measurement& b, double threshold) {
    CompareOptions options;
    options.clearGapRelative = threshold;
    options.sameCenterRelative = threshold;
    return compareMeasurements(a, b, options).verdict;
}

// --- paired decisions -------------------------------------------------------------------------------------------

namespace {

// Regularised incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes, betacf).
double incompleteBeta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                  b * std::log(1 - x));
    const bool flip = x > (a + 1) / (a + b + 2);
    if (flip) std::swap(a, b), x = 1 - x;
    constexpr double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::abs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; ++m) {
        const double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + num * d;
        c = 1 + num / c;
        d = 1 / (std::abs(d) < tiny ? tiny : d);
        c = std::abs(c) < tiny ? tiny : c;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        d = 1 / (std::abs(d) < tiny ? tiny : d);
        c = std::abs(c) < tiny ? tiny : c;
        const double step = d * c;
        h *= step;
        if (std::abs(step - 1) < 1e-14) break;
    }
    const double value = front * h / a;
    return flip ? 1 - value : value;
}

double studentCdf(double t, int df) {
    const double v = df;
    const double tail = 0.5 * incompleteBeta(v / 2, 0.5, v / (v + t * t));
    return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double studentQuantile(double p, int df) {
    if (!(p > 0 && p < 1) || df < 1) return std::numeric_limits<double>::quiet_NaN();
    double lo = -1e6, hi = 1e6;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++i) {
        const double mid = 0.5 * (lo + hi);
        (studentCdf(mid, df) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

bool poolRoundNoise(const std::vector<std::vector<double>>& roundMedians, double* logSd, int* df) {
    double squares = 0;
    int freedom = 0;
    for (const auto& series : roundMedians) {
        std::vector<double> logs;
        for (double v : series)
            if (std::isfinite(v) && v > 0) logs.push_back(std::log(v));
        if (logs.size() < 2) continue;
        const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
        for (double l : logs) squares += (l - mean) * (l - mean);
        freedom += static_cast<int>(logs.size()) - 1;
    }
    if (freedom < 1) return false;
    *logSd = std::sqrt(squares / freedom);
    *df = freedom;
    return true;
}

PairedComparison comparePaired(const std::vector<double>& aRoundMedians, const std::vector<double>& bRoundMedians,
                               const PairedOptions& options) {
    PairedComparison result;
    const std::size_t rounds = std::min(aRoundMedians.size(), bRoundMedians.size());
    std::vector<double> logs;
    for (std::size_t r = 0; r < rounds; ++r) {
        const double a = aRoundMedians[r], b = bRoundMedians[r];
        if (!(std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0)) continue;
        result.roundRatios.push_back(a / b);
        logs.push_back(std::log(a / b));
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (result.roundRatios.empty()) {
        result.ratio = result.low = result.high = nan;  // no interval, so no verdict can follow from one
        result.reason = "no round measured both";
        return result;
    }
    std::vector<double> sorted = result.roundRatios;
    std::sort(sorted.begin(), sorted.end());
    result.ratio = quantileSorted(sorted, 0.5);
    result.low = sorted.front();
    result.high = sorted.back();
    const double n = static_cast<double>(logs.size());
    const double meanLog = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
    std::string how = "range of " + std::to_string(logs.size()) + " round ratio" + (logs.size() == 1 ? "" : "s");
    if (options.pooledLogSd > 0 && options.pooledDf >= 1) {
        const int family = std::max(1, options.familySize);
        const double alpha = (1 - options.confidence) / family;
        const double q = studentQuantile(1 - alpha / 2, options.pooledDf);
        const double half = q * options.pooledLogSd * std::sqrt(2.0 / n);
        result.low = std::min(result.low, std::exp(meanLog - half));
        result.high = std::max(result.high, std::exp(meanLog + half));
        how += " and a t interval over the round noise (sd " + formatPercent(options.pooledLogSd, 2) + ", " +
               std::to_string(family) + " comparisons)";
    }
    // Only a finite interval decides (times out of range would give inf or NaN, and NaN fails every test below in
    // a way that would read as a verdict).
    if (!(std::isfinite(result.ratio) && std::isfinite(result.low) && std::isfinite(result.high) && result.low > 0)) {
        result.ratio = result.low = result.high = nan;
        result.verdict = Comparison::Ambiguous;
        result.reason = "the round ratios give no finite interval (" + how + "): nothing is decided";
        return result;
    }
    const double fasterBelow = 1 - options.threshold, slowerAbove = 1 + options.threshold;
    const std::string interval = "ratio " + formatFixed(result.ratio, 4) + " in [" + formatFixed(result.low, 4) +
                                 ", " + formatFixed(result.high, 4) + "] (" + how + ")";
    if (result.high <= fasterBelow) {
        result.verdict = Comparison::Faster;
        result.reason = interval + " lies below " + formatFixed(fasterBelow, 4);
    } else if (result.low >= slowerAbove) {
        result.verdict = Comparison::Slower;
        result.reason = interval + " lies above " + formatFixed(slowerAbove, 4);
    } else if (result.low >= fasterBelow && result.high <= slowerAbove) {
        result.verdict = Comparison::Same;
        result.reason = interval + " lies within 1 +- " + formatPercent(options.threshold, 2);
    } else {
        result.verdict = Comparison::Ambiguous;
        result.reason = interval + " crosses 1 +- " + formatPercent(options.threshold, 2);
    }
    return result;
}

}  // namespace tunescope
