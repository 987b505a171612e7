#pragma once
// The measurement engine: time one TimedWork repeatedly until the median is known well enough, keep every raw
// sample, and compare two measurements conservatively (nvbench's robust compare is the model). See docs/sweep.md.
#include <cstdint>
#include <string>
#include <vector>

#include "tunescope/device/device.hpp"

namespace tunescope {

// When to stop sampling. Every field is a plain number so that a sweep header can record it exactly.
struct StoppingRule {
    int warmupSamples = 2;           // untimed-for-statistics samples before measuring (at least 1 is run)
    double warmupMinTimeMs = 0.0;    // keep warming up until this much wall time has passed as well
    int minSamples = 10;             // never stop with fewer samples
    double minTimeMs = 2.0;          // never stop before the samples add up to this much measured time
    double maxRelNoise = 0.005;      // converged when the relative noise of the median is at or below this
    double timeoutMs = 1000.0;       // wall-time limit for one measurement, warm-up included
    int maxSamples = 20000;          // hard cap on samples kept (memory), reported as stop reason "sample-cap"
    bool stopWhenStalled = true;     // stop early when the noise stops shrinking above the threshold (see docs)
    // Samples queued back to back per wait of the host (1: the host waits for every sample). Deeper queues keep
    // the device busy between samples, as Triton's do_bench does (docs/sweep.md, "Pipelined samples").
    int pipelineDepth = 1;
};

// Why sampling stopped.
enum class StopReason { Converged, Stalled, Timeout, SampleCap };
std::string toString(StopReason reason);            // "converged", "stalled", "timeout", "sample-cap"
bool stopReasonFromString(const std::string& text, StopReason* out);

// Extra inputs that are not part of the stopping rule.
struct MeasureContext {
    // The highest SM clock seen so far on this device (e.g. over a whole sweep); a sample is throttled when its
    // clock is below kThrottleFraction of max(this, the highest clock seen in this measurement). -1: none yet.
    int referenceClockMHz = -1;
};

inline constexpr double kThrottleFraction = 0.97;
// Clock-event bits (NVML's layout, SampleConditions::clockEventReasons) that drop a sample whatever its clock:
// thermal slowdowns and the hardware's emergency brakes. A sustained software power cap (0x4) does not: under a
// cap the clock it leaves is the clock the kernel gets in production, and a clock dip below kThrottleFraction of
// the reference still drops the sample (nvbench's rule). See docs/sweep.md.
inline constexpr long long kThrottleEventMask = 0x8 | 0x20 | 0x40 | 0x80;
inline constexpr double kMedianConfidence = 0.95;  // level of the median's confidence interval

struct Measurement {
    // Raw data, one entry per timed sample (warm-up samples are not kept).
    std::vector<double> samplesMs;
    std::vector<int> smClockMHz;         // -1 where the driver did not tell
    std::vector<std::uint8_t> throttled;  // 1 where the clock was below kThrottleFraction of the reference, or a
                                          // kThrottleEventMask event was active
    // What the driver told per sample (SampleConditions); empty when it told nothing for any sample.
    std::vector<int> memClockMHz;
    std::vector<double> powerW;
    std::vector<double> temperatureC;
    std::vector<long long> clockEventReasons;

    // Statistics over the samples that were not throttled (all samples when every one was); throttled samples are
    // kept in the raw arrays and counted.
    int sampleCount = 0;
    int throttledCount = 0;
    int warmupCount = 0;
    double medianMs = 0, p20Ms = 0, p80Ms = 0, minMs = 0, maxMs = 0, meanMs = 0;
    double relStdev = 0;    // sample standard deviation / mean
    double ciLowMs = 0, ciHighMs = 0;  // distribution-free 95% confidence interval of the median
    double relNoise = 0;    // (ciHighMs - ciLowMs) / 2 / medianMs; +inf with fewer than 6 samples
    double meanClockMHz = -1;  // mean SM clock over samples that report one, -1 if none did
    int referenceClockMHz = -1;  // the clock the throttle flags were judged against
    int powerCapCount = 0;       // samples with the software power cap active (counted, not dropped)

    bool converged = false;  // relNoise <= maxRelNoise after minSamples and minTime
    bool timedOut = false;   // stopped by the timeout
    StopReason stopReason = StopReason::Timeout;
    double measuredTimeMs = 0;  // sum of samples
    double wallTimeMs = 0;      // wall time of the whole measurement, warm-up and preparation included
};

// Runs warm-up, then samples (beforeSample(regime) untimed, timeSampleMs() timed by the device's timer) until the
// rule says stop. Device errors thrown by the work propagate (the caller records them); nothing is half-updated.
Measurement measure(TimedWork& work, const StoppingRule& rule, L2Regime regime, const MeasureContext& context = {});

// Fills every statistic of `m` from its raw arrays (samplesMs, smClockMHz, clockEventReasons) and the reference clock. Used by measure()
// and by anyone who builds a Measurement from stored samples. Leaves the stop fields alone.
void computeStatistics(Measurement& m, int referenceClockMHz = -1);

// Statistics helpers, exposed for tests and for the GUI.
// Quantile of an ascending-sorted sequence with linear interpolation between order statistics (numpy's default).
double quantileSorted(const std::vector<double>& sorted, double q);
// The median of unsorted values (0 when there are none).
double median(std::vector<double> values);
// 1-based ranks (lo, hi) of the order statistics that bound a distribution-free confidence interval for the median
// of n samples at `confidence`: exact binomial ranks for n <= 1000, normal approximation above. Returns false when
// n is too small for any such interval (n < 6 at 95%).
bool medianConfidenceRanks(int n, double confidence, int* lo, int* hi);

// How measurement `a` relates to `b`.
enum class Comparison { Faster, Slower, Same, Ambiguous };
std::string toString(Comparison c);  // "FASTER", "SLOWER", "SAME", "AMBIGUOUS"

struct CompareOptions {
    double clearGapRelative = 0.005;   // FASTER/SLOWER need intervals apart by at least this (relative)
    double sameCenterRelative = 0.005; // SAME needs medians within this (relative to the smaller)
    double sameOverlapFraction = 0.5;  // ... intervals overlapping by this fraction of the narrower one
    double sameNoiseCeiling = 0.02;    // ... and both relative noises at or below this
    // Confirm FASTER/SLOWER/SAME in cycle space (time x mean SM clock) when both sides report clocks, so that clock
    // drift between the two cannot make the verdict. Off where the work sets its own clock: on a power-limited card
    // a kernel that draws less power runs at a higher clock, and that is its real advantage.
    bool confirmInCycles = true;
};

struct ComparisonResult {
    Comparison verdict = Comparison::Ambiguous;
    double ratio = 0;       // a.median / b.median
    std::string reason;     // one line: why this verdict
};

// Interval-based, conservative: FASTER means a is faster than b. Intervals are the medians' confidence intervals.
// A clear gap must also hold in cycle space (time x mean SM clock) when both sides report clocks and
// options.confirmInCycles is set.
ComparisonResult compareMeasurements(const Measurement& a, const Measurement& b, const CompareOptions& options);
// The same with one threshold for the gap and the SAME band.
Comparison compare(const Measurement& a, const Measurement& b, double threshold = 0.005);

// --- paired decisions over rounds (docs/sweep.md, "Decisions") ----------------------------------------------------
// A sweep measures every config of a shape once per round, in a new order each round. Two configs are compared on
// their per-round ratios (same round, same shape), so that a state of the machine shared by both cancels.

struct PairedOptions {
    double threshold = 0.005;  // FASTER/SLOWER need the whole interval beyond 1 -+ threshold
    // Round-to-round noise of the shape: the pooled standard deviation of log(round median) around each config's
    // mean, with its degrees of freedom (poolRoundNoise). <= 0 / 0: not known, only the range of ratios is used.
    double pooledLogSd = -1;
    int pooledDf = 0;
    // How many configs the fastest was picked from: the interval's confidence is corrected for that many
    // comparisons (Bonferroni), since the fastest of many is the luckiest of many.
    int familySize = 1;
    double confidence = 0.95;  // family-wise
};

struct PairedComparison {
    Comparison verdict = Comparison::Ambiguous;
    std::vector<double> roundRatios;  // a / b per common round (rounds where either is missing are left out)
    double ratio = 0;                 // median of roundRatios
    double low = 0, high = 0;         // the interval of the ratio; NaN (and AMBIGUOUS) when there is no finite one
    std::string reason;
};

// a and b: round medians indexed by round, NaN (or <= 0) where that round was not measured.
// The interval is the union of (1) [min, max] of the round ratios and (2) exp(mean log ratio -+ q * s * sqrt(2/n))
// with s the pooled round noise, q the Student t quantile at confidence / familySize (two-sided) and n the common
// rounds. FASTER: high <= 1 - threshold; SLOWER: low >= 1 + threshold; SAME: [low, high] within 1 -+ threshold;
// AMBIGUOUS otherwise; with no common round or no finite interval, AMBIGUOUS with ratio, low and high NaN, so that
// no verdict ever contradicts the interval shown with it.
PairedComparison comparePaired(const std::vector<double>& aRoundMedians, const std::vector<double>& bRoundMedians,
                               const PairedOptions& options);

// Pools log(round median) residuals of every series with at least two rounds. Returns false when nothing pools.
bool poolRoundNoise(const std::vector<std::vector<double>>& roundMedians, double* logSd, int* df);

// Student t quantile (p in (0, 1), df >= 1).
double studentQuantile(double p, int df);

}  // namespace tunescope
