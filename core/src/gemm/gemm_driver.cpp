// The exploration driver: heuristics -> explicit split-k checks -> first pass of the heuristic answers -> guided
// search (first pass against interleaved heuristic-top items) -> screen (randomly ordered passes) -> confirm
// (finalists, top and A/A control in ABBA rounds of blocks; sustained and burst after idle) -> selection on the
// paired per-round gain's interval (docs/explorer.md). Everything measured is kept in the result, also when single
// algorithms fail.
#include "tunescope/gemm/gemm_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <sys/utsname.h>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/device/measurement.hpp"

namespace tunescope::gemm {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string mib(std::uint64_t bytes) {
    std::ostringstream out;
    out << double(bytes) / double(kMiB) << " MiB";
    return out.str();
}

// SHA-256 futures by candidate index, resolved when the result is complete.
using ShaFutures = std::map<int, std::shared_future<std::string>>;

// Item order of a batch of n candidates: the heuristic top (-1) first, after every `every` candidates and last,
// so that each candidate is judged against top items measured in the same stretch of time. Trailing top items are
// dropped when the batch would not fit `limit`.
std::vector<int> interleavedLayout(int n, int every, int limit) {
    std::vector<int> layout{-1};
    for (int i = 0; i < n; ++i) {
        layout.push_back(i);
        if ((i + 1) % every == 0 || i == n - 1) layout.push_back(-1);
    }
    while (int(layout.size()) > limit && !layout.empty() && layout.back() == -1) layout.pop_back();
    return layout;
}

// The most candidates whose interleaved batch fits `limit` items (at least 1).
int candidatesPerBatch(int limit, int every) {
    int best = 1;
    for (int n = 1; n <= limit; ++n)
        if (int(interleavedLayout(n, every, 1 << 30).size()) <= limit) best = n;
    return best;
}

constexpr int kTopEvery = 4;  // a heuristic-top item after every 4 candidates
constexpr int kMaxSiblings = 64;  // siblings of the screened finalists re-timed at most (addFinalistSiblings)

// How many siblings a configuration of this algorithm has: its other custom options and CTA swizzles.
int siblingCount(const AlgoCapabilities& caps) {
    return std::min(kMaxSiblings, (std::max(0, caps.customOptionMax) + 1) * (caps.ctaSwizzleSupport ? 2 : 1) - 1);
}

// One first-pass item's result into its candidate: samples, median, parity and the pending output hash, or the
// error. Returns the candidate's first pass, null when the item failed.
FirstPass* recordFirstPass(Candidate& c, const GemmBackend::FirstPassResult& r, int warmups, ShaFutures& shas) {
    if (!r.error.empty() || r.samplesMs.empty()) {
        c.error = r.error.empty() ? "no samples" : r.error;
        return nullptr;
    }
    FirstPass pass;
    pass.samplesMs = r.samplesMs;
    pass.medianMs = median(r.samplesMs);
    pass.warmups = warmups;
    pass.smClockMHz = r.smClockMHz;
    c.firstPass = pass;
    c.error.clear();
    c.parity = r.parity.parity;
    shas[c.index] = r.parity.sha256;
    return &*c.firstPass;
}

// First pass of a batch of candidates, back to back on the GPU (GemmBackend::firstPass), with the heuristic top
// interleaved. Fills each candidate's firstPass (medianMs, relativeToTop) and parity, or its error; with
// `ratios` set it records only the ratio to the neighbouring top items there (the screen) and keeps firstPass.
void evaluateRelative(GemmBackend& backend, std::vector<Candidate>& batch, const Candidate& top,
                      std::uint64_t workspaceBytes, int warmups, int samples, int limit, ShaFutures& shas,
                      std::map<int, double>* ratios = nullptr) {
    const std::vector<int> layout = interleavedLayout(int(batch.size()), kTopEvery, std::max(1, limit));
    std::vector<GemmBackend::FirstPassItem> items;
    for (int slot : layout) {
        GemmBackend::FirstPassItem item;
        item.raw = slot < 0 ? top.raw : batch[std::size_t(slot)].raw;
        item.workspaceBytes = workspaceBytes;
        item.warmups = warmups;
        item.samples = samples;
        items.push_back(item);
    }
    std::vector<GemmBackend::FirstPassResult> results;
    try {
        results = backend.firstPass(items);
    } catch (const std::exception& e) {
        if (!ratios)
            for (auto& c : batch) c.error = e.what();
        return;
    }
    auto itemMedian = [&](std::size_t i) {
        return i < results.size() && results[i].error.empty() && !results[i].samplesMs.empty()
                   ? median(results[i].samplesMs)
                   : 0.0;
    };
    const double topReference = top.firstPass ? top.firstPass->medianMs : 0.0;
    for (std::size_t i = 0; i < layout.size() && i < results.size(); ++i) {
        if (layout[i] < 0) continue;
        Candidate& c = batch[std::size_t(layout[i])];
        // The nearest top items before and after it in the batch.
        double topSum = 0.0;
        int topCount = 0;
        for (std::size_t j = i; j-- > 0;)
            if (layout[j] < 0) {
                if (const double t = itemMedian(j); t > 0) topSum += t, ++topCount;
                break;
            }
        for (std::size_t j = i + 1; j < layout.size(); ++j)
            if (layout[j] < 0) {
                if (const double t = itemMedian(j); t > 0) topSum += t, ++topCount;
                break;
            }
        const double median = itemMedian(i);
        const double relative = median > 0 && topCount ? median / (topSum / topCount) : 0.0;
        if (ratios) {
            if (relative > 0) (*ratios)[c.index] = relative;
            continue;
        }
        if (FirstPass* pass = recordFirstPass(c, results[i], warmups, shas)) {
            pass->relativeToTop = relative;
            pass->topReferenceMs = topReference;
        }
    }
}

// The baseline's own first pass: it becomes the reference output.
void evaluateBaseline(GemmBackend& backend, Candidate& base, std::uint64_t workspaceBytes, int samples,
                      ShaFutures& shas) {
    GemmBackend::FirstPassItem item;
    item.raw = base.raw;
    item.workspaceBytes = workspaceBytes;
    item.warmups = 2;
    item.samples = samples;
    item.makeBaseline = true;
    try {
        const auto results = backend.firstPass({item});
        if (results.empty())
            base.error = "no samples";
        else
            recordFirstPass(base, results[0], item.warmups, shas);
    } catch (const std::exception& e) {
        base.error = e.what();
    }
}

std::string platformName() {
    utsname u{};
    if (uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + "-" + u.release + "-" + u.machine;
}

std::string describeGain(const PairedGain& g) {
    if (!g.valid()) return "no paired rounds";
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << std::showpos << g.gainPercent << "% [" << g.lowPercent << ", " << g.highPercent << "]" << std::noshowpos
        << ", faster in " << g.roundsFaster << " of " << g.rounds << " rounds";
    return out.str();
}

// FASTER / SLOWER / SAME: where a gain's 95% interval lies against 0.
const char* verdictOf(const PairedGain& gain) {
    return gain.lowPercent > 0 ? "FASTER" : gain.highPercent < 0 ? "SLOWER" : "SAME";
}

// The sustained blocks of one entry as the finalist's time summary (what the GUI plots).
FinalMeasurement finalFromBlocks(const RegimeMeasurement& m) {
    FinalMeasurement f;
    std::vector<double> v = m.msPerRound;
    std::sort(v.begin(), v.end());
    f.medianMs = median(v);
    f.p20Ms = v.empty() ? 0.0 : quantileSorted(v, 0.2);
    f.p80Ms = v.empty() ? 0.0 : quantileSorted(v, 0.8);
    f.noise = f.medianMs > 0 ? (f.p80Ms - f.p20Ms) / f.medianMs : 1.0;
    f.samples = int(v.size());
    double clock = 0.0;
    int clocks = 0;
    for (double c : m.smClockMHzPerRound)
        if (c > 0) clock += c, ++clocks;
    f.meanSmClockMHz = clocks ? clock / clocks : -1.0;
    if (m.vsTop.valid()) f.verdictVsBaseline = verdictOf(m.vsTop);
    return f;
}

std::string powerLine(const std::string& who, const PowerWindow& w) {
    std::ostringstream line;
    line.precision(1);
    line << std::fixed << "power " << who << ": ";
    if (!w.error.empty()) return line.str() + "failed: " + w.error;
    line << std::setprecision(3) << w.msPerLaunch << " ms/launch" << std::setprecision(1);
    if (w.meanPowerW > 0) line << ", " << w.meanPowerW << " W";
    if (w.powerLimitW > 0) line << " of " << w.powerLimitW << " W";
    if (w.joulesPerLaunch > 0) line << ", " << std::setprecision(3) << w.joulesPerLaunch << " J/launch";
    if (w.meanSmClockMHz > 0)
        line << ", " << std::setprecision(0) << w.meanSmClockMHz << " MHz, " << std::setprecision(2)
             << w.megacyclesPerLaunch << " Mcycles/launch";
    if (w.powerLimited()) line << " (power-limited)";
    return line.str();
}

// Seconds the confirm stage will take for `entries` entries (A/A included) in one regime.
double confirmSeconds(const ConfirmSettings& s, Regime regime, int entries, double msPerLaunch) {
    if (regime == Regime::Burst)
        return double(s.burstRounds) * entries * (s.burstIdleSeconds + s.burstLaunches * msPerLaunch / 1000.0 + 0.01);
    return s.preheatSeconds + double(s.rounds) * entries * (s.blockSeconds + s.warmupSeconds + 0.01);
}

using RoundOrders = std::vector<std::vector<std::size_t>>;

// Balanced in pairs of rounds (ABBA): a fresh random order, then the same order reversed, so that a linear
// drift over a pair cancels for every entry, and a drift that repeats with the rounds' period (a fixed order
// or a rotation would lock onto it, biasing position against position) becomes noise the interval sees.
RoundOrders balancedOrders(std::size_t n, int rounds, std::uint64_t orderSeed) {
    std::mt19937_64 rng(orderSeed);
    RoundOrders orders;
    std::vector<std::size_t> order(n);
    for (int round = 0; round < rounds; ++round) {
        if (round % 2 == 0) {
            for (std::size_t i = 0; i < n; ++i) order[i] = i;
            std::shuffle(order.begin(), order.end(), rng);
        } else {
            std::reverse(order.begin(), order.end());
        }
        orders.push_back(order);
    }
    return orders;
}

// One block per entry and round in the rounds' orders, sized from the entries' estimates; sustained, after a
// preheat block.
std::vector<GemmBackend::Block> confirmBlocks(const std::vector<ConfirmEntry>& entries, const RoundOrders& orders,
                                              Regime regime, const ConfirmSettings& settings) {
    std::vector<GemmBackend::Block> blocks;
    for (const auto& order : orders)
        for (std::size_t e : order) {
            GemmBackend::Block b;
            b.raw = entries[e].raw;
            b.workspaceBytes = entries[e].workspaceBytes;
            const double ms = std::max(entries[e].estimateMs, 1e-3);
            if (regime == Regime::Burst) {
                b.idleBeforeSeconds = settings.burstIdleSeconds;
                b.warmups = 0;
                b.launches = std::max(1, settings.burstLaunches);
            } else {
                b.warmups = int(std::clamp(std::ceil(1000.0 * settings.warmupSeconds / ms), 2.0, 1e6));
                b.launches = int(std::clamp(std::ceil(1000.0 * settings.blockSeconds / ms), 3.0, 1e7));
            }
            blocks.push_back(b);
        }
    if (regime == Regime::Sustained && settings.preheatSeconds > 0) {
        // The card's steady power state first: the top back to back (one block whose results are discarded).
        GemmBackend::Block warm;
        warm.raw = entries[0].raw;
        warm.workspaceBytes = entries[0].workspaceBytes;
        const double topMs = std::max(entries[0].estimateMs, 1e-3);
        warm.warmups = int(std::clamp(std::ceil(1000.0 * settings.preheatSeconds / topMs), 1.0, 1e7));
        warm.launches = 1;
        blocks.insert(blocks.begin(), warm);
    }
    return blocks;
}

// One entry's blocks summed up into its power window.
struct PowerTotals {
    PowerWindow window;
    std::vector<double> clocks, powerReadings;
    double energy = 0.0;
    bool energyKnown = true;

    void add(const GemmBackend::BlockResult& r) {
        PowerWindow& w = window;
        w.launches += r.launches;
        w.seconds += r.seconds;
        w.readings += r.readings;
        w.powerCapReadings += r.powerCapReadings;
        w.clockEventReasons |= r.clockEventReasons;
        if (r.powerLimitW > 0) w.powerLimitW = r.powerLimitW;
        if (r.meanSmClockMHz > 0) clocks.push_back(r.meanSmClockMHz);
        if (r.meanPowerReadingW > 0) powerReadings.push_back(r.meanPowerReadingW);
        if (r.joulesPerLaunch > 0)
            energy += r.joulesPerLaunch * r.launches;
        else
            energyKnown = false;
    }
    // The window's per-launch figures; `error` is the entry's (empty when its blocks ran).
    PowerWindow finish(const std::string& error) {
        PowerWindow& w = window;
        if (!error.empty() || w.launches == 0) {
            w.error = error.empty() ? "no blocks" : error;
            return w;
        }
        w.msPerLaunch = w.seconds * 1000.0 / w.launches;
        if (energyKnown && energy > 0) {
            w.joulesPerLaunch = energy / w.launches;
            w.meanPowerW = energy / w.seconds;
        }
        auto mean = [](const std::vector<double>& v) {
            double sum = 0.0;
            for (double x : v) sum += x;
            return v.empty() ? -1.0 : sum / double(v.size());
        };
        w.meanPowerReadingW = mean(powerReadings);
        if (w.meanPowerW <= 0 && w.meanPowerReadingW > 0) {
            w.meanPowerW = w.meanPowerReadingW;
            w.joulesPerLaunch = w.meanPowerW * w.msPerLaunch / 1000.0;
        }
        if (!clocks.empty()) {
            w.meanSmClockMHz = mean(clocks);
            w.megacyclesPerLaunch = w.msPerLaunch * w.meanSmClockMHz / 1000.0;
        }
        return w;
    }
};

// Pair every finalist with the geometric mean of the round's two top blocks (they sit at different places in
// the round, so drift within a round cancels better than against one of them); the A/A control pairs the two
// top blocks with each other. Without both top blocks every other entry fails.
void pairWithTop(ConfirmRun& run) {
    const std::size_t n = run.entries.size();
    const std::size_t aa = n - 1;
    if (run.errors[0].empty() && run.errors[aa].empty() &&
        run.entries[0].msPerRound.size() == run.entries[aa].msPerRound.size()) {
        std::vector<double> reference;
        for (std::size_t i = 0; i < run.entries[0].msPerRound.size(); ++i)
            reference.push_back(std::sqrt(run.entries[0].msPerRound[i] * run.entries[aa].msPerRound[i]));
        const std::vector<double> firstTop = run.entries[0].msPerRound;
        for (std::size_t e = 0; e < n; ++e) {
            if (!run.errors[e].empty()) continue;
            RegimeMeasurement& m = run.entries[e];
            if (e == aa) {
                m.topMsPerRound = firstTop;
                m.vsTop = pairedGain(firstTop, m.msPerRound);
            } else {
                m.topMsPerRound = reference;
                if (e > 0 && m.msPerRound.size() == reference.size()) m.vsTop = pairedGain(reference, m.msPerRound);
            }
        }
    } else {
        for (std::size_t e = 1; e < n; ++e)
            if (run.errors[e].empty()) run.errors[e] = "the heuristic top's blocks failed: " +
                                                       (run.errors[0].empty() ? run.errors[aa] : run.errors[0]);
    }
}

}  // namespace

ConfirmRun runConfirm(GemmBackend& backend, const std::vector<ConfirmEntry>& entriesIn, Regime regime,
                      const ConfirmSettings& settings, std::uint64_t orderSeed) {
    const auto start = Clock::now();
    ConfirmRun run;
    if (entriesIn.empty()) throw Error("", "", "the confirm stage needs the heuristic top as its first entry");
    std::vector<ConfirmEntry> entries = entriesIn;
    entries.push_back(entriesIn.front());  // the A/A control: the top entered twice
    const std::size_t n = entries.size();
    run.entries.assign(n, RegimeMeasurement{});
    run.errors.assign(n, std::string());
    for (auto& m : run.entries) m.regime = regime;
    const int rounds = std::max(2, regime == Regime::Burst ? settings.burstRounds : settings.rounds);

    const RoundOrders orders = balancedOrders(n, rounds, orderSeed);
    const std::vector<GemmBackend::Block> blocks = confirmBlocks(entries, orders, regime, settings);
    const std::size_t skip = blocks.size() - std::size_t(rounds) * n;
    std::vector<GemmBackend::BlockResult> results;
    try {
        results = backend.runBlocks(blocks);
    } catch (const std::exception& e) {
        for (auto& err : run.errors) err = e.what();
        run.seconds = secondsSince(start);
        return run;
    }
    std::vector<PowerTotals> power(n);
    for (int round = 0; round < rounds; ++round)
        for (std::size_t p = 0; p < n; ++p) {
            const std::size_t e = orders[std::size_t(round)][p];
            const std::size_t i = skip + std::size_t(round) * n + p;
            if (i >= results.size() || !results[i].error.empty() || !(results[i].medianMsPerLaunch > 0)) {
                if (run.errors[e].empty())
                    run.errors[e] = i < results.size() && !results[i].error.empty() ? results[i].error : "no result";
                continue;
            }
            const GemmBackend::BlockResult& r = results[i];
            RegimeMeasurement& m = run.entries[e];
            m.msPerRound.push_back(r.medianMsPerLaunch);
            m.joulesPerRound.push_back(r.joulesPerLaunch);
            m.smClockMHzPerRound.push_back(r.meanSmClockMHz);
            power[e].add(r);
        }
    pairWithTop(run);
    if (regime == Regime::Sustained)
        for (std::size_t e = 0; e < n; ++e) run.power.push_back(power[e].finish(run.errors[e]));
    run.seconds = secondsSince(start);
    return run;
}

namespace {

void appendRounds(RegimeMeasurement& into, const RegimeMeasurement& more) {
    auto append = [](std::vector<double>& a, const std::vector<double>& b) { a.insert(a.end(), b.begin(), b.end()); };
    append(into.msPerRound, more.msPerRound);
    append(into.joulesPerRound, more.joulesPerRound);
    append(into.smClockMHzPerRound, more.smClockMHzPerRound);
    append(into.topMsPerRound, more.topMsPerRound);
}

// Two windows of the same entry as one: launches, time and energy add up; clocks and power readings are weighted
// by time.
PowerWindow mergePower(const PowerWindow& a, const PowerWindow& b) {
    if (!a.error.empty() || a.launches == 0) return b;
    if (!b.error.empty() || b.launches == 0) return a;
    PowerWindow w;
    w.launches = a.launches + b.launches;
    w.seconds = a.seconds + b.seconds;
    w.msPerLaunch = w.seconds * 1000.0 / w.launches;
    if (a.joulesPerLaunch > 0 && b.joulesPerLaunch > 0) {
        const double joules = a.joulesPerLaunch * a.launches + b.joulesPerLaunch * b.launches;
        w.joulesPerLaunch = joules / w.launches;
        w.meanPowerW = joules / w.seconds;
    }
    const auto weighted = [&](double x, double y) {
        if (x > 0 && y > 0) return (x * a.seconds + y * b.seconds) / w.seconds;
        return x > 0 ? x : y;
    };
    w.meanPowerReadingW = weighted(a.meanPowerReadingW, b.meanPowerReadingW);
    if (w.meanPowerW <= 0) w.meanPowerW = w.meanPowerReadingW;
    w.powerLimitW = b.powerLimitW > 0 ? b.powerLimitW : a.powerLimitW;
    w.meanSmClockMHz = weighted(a.meanSmClockMHz, b.meanSmClockMHz);
    if (w.meanSmClockMHz > 0) w.megacyclesPerLaunch = w.msPerLaunch * w.meanSmClockMHz / 1000.0;
    w.clockEventReasons = a.clockEventReasons | b.clockEventReasons;
    w.readings = a.readings + b.readings;
    w.powerCapReadings = a.powerCapReadings + b.powerCapReadings;
    return w;
}

}  // namespace

ConfirmRun runSequentialConfirm(GemmBackend& backend, const std::vector<ConfirmEntry>& entries, Regime regime,
                                const ConfirmSettings& settings, std::uint64_t orderSeed, double thresholdPercent) {
    ConfirmRun run = runConfirm(backend, entries, regime, settings, orderSeed);
    const std::size_t aa = entries.size();
    if (settings.extraRounds <= 0 || settings.extraMaxEntries <= 0) return run;
    if (!run.errors[0].empty() || !run.errors[aa].empty()) return run;
    if (!run.entries[aa].vsTop.valid() || !run.entries[aa].vsTop.containsZero99()) return run;  // too noisy already

    std::vector<std::size_t> undecided;
    for (std::size_t e = 1; e < aa; ++e) {
        const PairedGain& g = run.entries[e].vsTop;
        if (run.errors[e].empty() && g.valid() && g.lowPercent < thresholdPercent && g.highPercent >= thresholdPercent)
            undecided.push_back(e);
    }
    if (undecided.empty()) return run;
    std::stable_sort(undecided.begin(), undecided.end(), [&](std::size_t a, std::size_t b) {
        return run.entries[a].vsTop.gainPercent > run.entries[b].vsTop.gainPercent;
    });
    if (undecided.size() > std::size_t(settings.extraMaxEntries)) undecided.resize(std::size_t(settings.extraMaxEntries));

    std::vector<ConfirmEntry> more{entries[0]};
    for (std::size_t e : undecided) more.push_back(entries[e]);
    ConfirmSettings extra = settings;
    extra.rounds = settings.extraRounds + settings.extraRounds % 2;  // whole ABBA pairs
    extra.burstRounds = extra.rounds;
    const ConfirmRun ext = runConfirm(backend, more, regime, extra, orderSeed ^ 0x9e3779b97f4a7c15ull);
    run.seconds += ext.seconds;
    const std::size_t extAa = more.size();
    if (!ext.errors[0].empty() || !ext.errors[extAa].empty()) return run;  // the first rounds stand alone

    // ext's entry k is run's entry mapping[k]: the top, the undecided ones, then the A/A control.
    std::vector<std::size_t> mapping{0};
    mapping.insert(mapping.end(), undecided.begin(), undecided.end());
    mapping.push_back(aa);
    for (std::size_t k = 0; k < mapping.size(); ++k) {
        if (!ext.errors[k].empty()) continue;
        const std::size_t e = mapping[k];
        appendRounds(run.entries[e], ext.entries[k]);
        if (e > 0) run.entries[e].vsTop = pairedGain(run.entries[e].topMsPerRound, run.entries[e].msPerRound);
        if (e < run.power.size() && k < ext.power.size()) run.power[e] = mergePower(run.power[e], ext.power[k]);
        if (e != 0 && e != aa) run.extended.push_back(e);
    }
    run.extraRounds = extra.rounds;
    return run;
}

namespace {

// What the stages of one exploration hand on to each other; `r` is the result they fill in.
struct Exploration {
    Exploration(GemmBackend& backend, const ExploreOptions& options, const ExploreProgressFn& progress)
        : backend(backend), options(options), progress(progress) {}

    GemmBackend& backend;
    const ExploreOptions& options;
    const ExploreProgressFn& progress;
    const Clock::time_point start = Clock::now();
    ExplorationResult r;
    std::uint64_t cap = 0;                     // the largest workspace cap: every candidate runs with it
    std::set<AlgoConfig> seen;                 // configurations that are candidates already
    std::map<int, AlgoCapabilities> capsById;  // read with the heuristic answers
    std::set<int> requested;                   // candidates asked for in the options
    ShaFutures shas;
    // The first pass's settings, which the search and the screen time their batches with too.
    int samples = 0, batchLimit = 0, perBatch = 0, warmups = 0;
    Candidate topReference;  // the heuristic top after its first pass: every batch is judged against it
    double baselineMs = 0.0;
    // The screen and the confirm stage.
    int finalists = 0, shortlist = 0, passes = 0;
    ConfirmSettings settings;  // the options' confirm settings, shortened when the budget is short
    double reserve = 0.0;      // seconds kept from the search for the screen and the confirm stage
    std::vector<int> pool, screened, finalistIds;

    void say(const std::string& line) const {
        if (progress) progress(line);
    }
    // Records why the exploration stops early; returns false, for the stage to return.
    bool stop(const std::string& feature, const std::string& why, bool unsupported) {
        r.errorsAndUnsupported.push_back({feature, false, why});
        r.failure = why;
        r.unsupported = unsupported;
        r.wallSeconds = secondsSince(start);
        say("stopped: " + why);
        return false;
    }
    // A batch against the heuristic top with the first pass's settings (evaluateRelative).
    void timeBatch(std::vector<Candidate>& batch, std::map<int, double>* ratios = nullptr) {
        evaluateRelative(backend, batch, topReference, cap, warmups, samples, batchLimit, shas, ratios);
    }
};

// Setup: the result's settings and environment, the spec checked and the inputs prepared. False when the device
// cannot run the spec or preparing failed.
bool prepareWorkload(Exploration& x) {
    ExplorationResult& r = x.r;
    r.spec = x.options.spec;
    r.rule = x.options.rule;
    r.budgetSeconds = x.options.budgetSeconds;
    r.dataSeed = x.options.dataSeed;
    r.coldL2 = x.options.coldL2;
    r.environment = x.backend.environment();
    r.environment.platform = platformName();
    r.errorsAndUnsupported.push_back({"Stream-K", false, kStreamKNote});
    r.errorsAndUnsupported.push_back(
        {"inner/cluster shape capabilities", false,
         "No CUBLASLT_ALGO_CAP_* lists inner or cluster shape ids; the search tries cluster ids 0..51 through "
         "cublasLtMatmulAlgoCheck and keeps the inner shape the heuristic chose."});

    validateGemmSpec(r.spec);
    const GemmEnvironment& env = r.environment;
    x.say("device: " + env.device + " sm_" + std::to_string(env.ccMajor) + std::to_string(env.ccMinor) + ", " +
          std::to_string(env.multiprocessors) + " SMs, L2 " + mib(env.l2Bytes) + ", cuBLASLt " +
          std::to_string(env.cublasLtVersion));
    if (const std::string why = x.backend.unsupportedReason(r.spec); !why.empty())
        return x.stop(toString(r.spec.dtype) + " " + toString(r.spec.layout) + " on sm_" + std::to_string(env.ccMajor) +
                          std::to_string(env.ccMinor),
                      why, true);

    try {
        r.timer = x.backend.useTimer(x.options.timer);
    } catch (const std::exception& e) {
        return x.stop("timer", e.what(), false);
    }
    x.say("timer: " + r.timer);
    x.say("preparing " + describe(r.spec) + ": random inputs, FP32 reference on the GPU");
    try {
        x.backend.prepare(r.spec, r.dataSeed);
    } catch (const std::exception& e) {
        return x.stop("prepare", e.what(), false);
    }
    r.rotatingBufferSets = x.backend.rotatingSets();
    r.rotatingBytes = x.backend.rotatingBytes();
    x.cap = r.spec.maxWorkspaceBytes();
    r.baselineWorkspaceBytes = x.cap;
    return true;
}

// Heuristics per workspace cap, and their answers as candidates, the top at the largest cap first (the baseline).
// False when there is no heuristic top at the largest cap to compare against.
bool collectHeuristics(Exploration& x) {
    ExplorationResult& r = x.r;
    std::vector<std::uint64_t> caps = r.spec.workspaceBytes;
    for (std::uint64_t ws : caps) {
        HeuristicSet set = x.backend.heuristics(ws, r.spec.heuristicCount);
        x.say("heuristics at " + mib(ws) + ": " + std::to_string(set.returnedCount) + " of " +
              std::to_string(set.requestedCount) +
              (set.algorithms.empty() ? "" : ", top: " + set.algorithms.front().config.describe()));
        if (set.apiStatus != 0)
            r.errorsAndUnsupported.push_back({"heuristics at " + mib(ws), false, set.error});
        r.heuristics.push_back(std::move(set));
    }

    std::vector<std::size_t> order(r.heuristics.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return r.heuristics[a].maxWorkspaceBytes > r.heuristics[b].maxWorkspaceBytes;
    });
    for (std::size_t i : order) {
        const HeuristicSet& set = r.heuristics[i];
        for (std::size_t rank = 0; rank < set.algorithms.size(); ++rank) {
            const HeuristicAlgo& h = set.algorithms[rank];
            if (h.capabilities.read && !x.capsById.count(h.config.algorithmId))
                x.capsById[h.config.algorithmId] = h.capabilities;
            if (h.state != 0 || h.apiStatus != 0 || !x.seen.insert(h.config).second) continue;
            Candidate c;
            c.index = int(r.candidates.size());
            c.config = h.config;
            c.raw = h.raw;
            c.requiredWorkspaceBytes = h.requiredWorkspaceBytes;
            c.waves = h.waves;
            c.source = "heuristic " + mib(set.maxWorkspaceBytes) + " #" + std::to_string(rank);
            r.candidates.push_back(std::move(c));
        }
    }
    if (r.candidates.empty() || r.candidates.front().source.rfind("heuristic " + mib(x.cap) + " #0", 0) != 0)
        return x.stop("heuristics", "cuBLASLt returned no usable heuristic answer at the largest workspace cap (" +
                                        mib(x.cap) + ") for " + describe(r.spec) + "; nothing to compare against",
                      false);
    r.baselineIndex = 0;
    return true;
}

// Configurations asked for in the options: checked, then timed with the heuristic answers.
void addRequestedConfigs(Exploration& x) {
    ExplorationResult& r = x.r;
    const std::uint64_t cap = x.cap;
    for (const AlgoConfig& config : x.options.requestedConfigs) {
        if (x.seen.count(config)) {
            for (const auto& c : r.candidates)
                if (c.config == config) x.requested.insert(c.index);
            continue;
        }
        const CheckResult result = x.backend.check(config);
        if (!result.ok() || result.requiredWorkspaceBytes > cap) {
            const std::string why =
                !result.ok() ? "failed " + result.failedCall + " (status " + std::to_string(result.apiStatus) + ")"
                             : "needs " + std::to_string(result.requiredWorkspaceBytes) + " bytes of workspace (cap " +
                                   std::to_string(cap) + ")";
            r.errorsAndUnsupported.push_back({"requested config " + config.describe(), false, why});
            x.say("requested " + config.describe() + ": " + why);
            continue;
        }
        x.seen.insert(config);
        x.requested.insert(int(r.candidates.size()));
        r.candidates.push_back(checkedCandidate(int(r.candidates.size()), config, result, "requested"));
    }
}

// Explicit split-k checks around the baseline's configuration.
void checkExplicitSplitK(Exploration& x) {
    ExplorationResult& r = x.r;
    const Candidate& base = r.candidates.front();
    AlgoCapabilities baseCaps = x.capsById.count(base.config.algorithmId)
                                    ? x.capsById[base.config.algorithmId]
                                    : x.backend.capabilities(base.config.algorithmId);
    for (const AlgoConfig& config : explicitSplitKConfigs(base.config, baseCaps)) {
        SplitKCheck s;
        s.requested = config;
        s.result = x.backend.check(config);
        s.workspaceCapBytes = x.cap;
        s.capabilities = baseCaps;
        r.splitKChecks.push_back(std::move(s));
    }
    int valid = 0, over = 0;
    for (const auto& s : r.splitKChecks) {
        valid += s.result.ok();
        over += s.overWorkspaceCap();
    }
    x.say("explicit split-k checks: " + std::to_string(r.splitKChecks.size()) + " (" + std::to_string(valid) +
          " pass AlgoCheck, " + std::to_string(over) + " of them need more than the " + mib(x.cap) + " cap)");
}

// First pass over the heuristic answers (always, whatever the budget). The baseline runs first and becomes the
// reference output; then the GPU is brought into its sustained state and all answers are timed back to back.
// False when the baseline failed.
bool firstPassOfHeuristicAnswers(Exploration& x) {
    ExplorationResult& r = x.r;
    x.samples = std::max(1, x.options.search.firstPassSamples);
    x.batchLimit = std::max(1, std::min(x.options.search.batchSize, x.backend.firstPassBatchLimit()));
    x.perBatch = candidatesPerBatch(x.batchLimit, kTopEvery);
    evaluateBaseline(x.backend, r.candidates[0], x.cap, x.samples, x.shas);
    if (!r.candidates[0].error.empty() || !r.candidates[0].firstPass) {
        r.baselineIndex = -1;
        return x.stop("baseline", "the heuristic top failed to run: " + r.candidates[0].error, false);
    }
    // About 25 ms of back-to-back work before each item's samples: enough for the power limiter to settle.
    const double estimateMs = std::max(r.candidates[0].firstPass->medianMs, 1e-3);
    x.warmups = int(std::clamp(std::ceil(25.0 / estimateMs), 2.0, 64.0));
    try {
        x.backend.keepBusy(r.candidates[0].raw, x.cap, int(std::clamp(500.0 / estimateMs, 1.0, 4000.0)));
    } catch (const std::exception& e) {
        r.errorsAndUnsupported.push_back({"pre-heating", false, e.what()});
    }
    x.topReference = r.candidates[0];
    for (std::size_t first = 1; first < r.candidates.size(); first += std::size_t(x.perBatch)) {
        const std::size_t last = std::min(r.candidates.size(), first + std::size_t(x.perBatch));
        std::vector<Candidate> batch(r.candidates.begin() + std::ptrdiff_t(first),
                                     r.candidates.begin() + std::ptrdiff_t(last));
        for (auto& c : batch) c.error.clear();
        x.timeBatch(batch);
        for (auto& c : batch) r.candidates[std::size_t(c.index)] = c;
    }
    for (const Candidate& c : r.candidates)
        x.say(std::string(c.index == 0 ? "baseline" : c.source == "requested" ? "requested" : "heuristic") + " #" +
              std::to_string(c.index) + " " + c.config.describe() + ": " +
              (c.error.empty()
                   ? formatFixed(c.firstPass->medianMs, 3) + " ms" +
                         (c.firstPass->relativeToTop > 0 ? " (x" + formatFixed(c.firstPass->relativeToTop, 3) + " of the top)"
                                                         : "") +
                         (c.parity.bitwiseEqualToBaseline ? ", bitwise equal" : ", differs")
                   : "failed: " + c.error));
    if (!r.candidates[0].error.empty() || !r.candidates[0].firstPass) {
        r.baselineIndex = -1;
        return x.stop("baseline", "the heuristic top failed to run: " + r.candidates[0].error, false);
    }
    x.baselineMs = r.candidates[0].firstPass->medianMs;
    return true;
}

// Search space: the heuristics' algorithms and every id cuBLASLt lists for these types.
void collectSearchAlgorithms(Exploration& x) {
    for (const auto& [id, caps] : x.capsById) x.r.algorithms.push_back({id, caps});
    for (int id : x.backend.algorithmIds(256)) {
        if (x.capsById.count(id)) continue;
        AlgoCapabilities caps = x.backend.capabilities(id);
        if (caps.read) x.r.algorithms.push_back({id, caps});
    }
}

// The time the screen and the confirm stage will take, kept from the search's budget.
void reserveScreenAndConfirm(Exploration& x) {
    const ExploreOptions& options = x.options;
    const double baselineMs = x.baselineMs;
    x.finalists = std::max(1, options.finalists);
    x.shortlist = std::max(x.finalists, options.screenCandidates);
    x.passes = std::max(1, options.screenPasses);
    ConfirmSettings& settings = x.settings;
    settings = options.confirm;
    const int siblingFinalists = std::max(0, options.siblingFinalists);
    const int confirmEntries = 2 + x.finalists + int(x.requested.size());  // top, A/A, finalists
    const int burstEntries = x.r.rule.regime == Regime::Burst ? confirmEntries : 3;
    const double itemSeconds = (x.warmups + x.samples) * baselineMs / 1000.0 + 0.003;
    double screenReserve =
        double(x.passes) * (double(x.shortlist) * (1.0 + 1.0 / kTopEvery) + 2.0) * itemSeconds + 0.05 * x.passes;
    // The sibling step: a first pass and siblingPasses passes over the finalists and their siblings, counted for the
    // heuristics' algorithms (the finalists are mostly of them).
    int siblings = 0;
    for (const auto& [id, caps] : x.capsById)
        if (caps.read) siblings = std::max(siblings, siblingCount(caps));
    siblings = std::min(kMaxSiblings, siblings * x.finalists);
    if (siblingFinalists > 0 && siblings > 0)
        screenReserve += double(2 + x.passes) * (double(siblings + x.finalists) * (1.0 + 1.0 / kTopEvery) + 2.0) *
                             itemSeconds + 0.05 * (2 + x.passes);
    // The sequential step's extra rounds (the top, the A/A control and up to extraMaxEntries finalists, only when
    // a finalist straddles the threshold) run on top of the budget: reserving them would starve the search, which
    // then misses configs it finds with the time (H200 run 12: 2 s of search instead of ~17 s, and two explorations
    // of one shape found different finalists). At the defaults they add at most ~30 s. So do the sibling finalists'
    // confirm blocks (at most siblingFinalists entries, ~3.7 s each sustained at the defaults, only when siblings
    // come within siblingTolerance of the best): reserved, 3 of them would take ~11 s of a 60 s budget's ~15 s of
    // search, and in the scripted CI model the search then got no time at all. The heuristic finalists' blocks
    // (ExploreOptions::heuristicFinalists, only those that screened faster than the top) and an A/A retry's rounds
    // (only when the A/A control failed) run on top of the budget too: reserving them starved the scripted search
    // below 100 candidates.
    double confirmReserve = confirmSeconds(settings, Regime::Sustained, confirmEntries, baselineMs) +
                            confirmSeconds(settings, Regime::Burst, burstEntries, baselineMs);
    // A budget too small for the confirm stage as set shortens its blocks and gaps (never its rounds), so that
    // it takes at most 80% of the budget; the report's confirm settings say what ran.
    if (const double scale = std::clamp(0.8 * options.budgetSeconds / confirmReserve, 0.2, 1.0); scale < 1.0) {
        settings.blockSeconds *= scale;
        settings.warmupSeconds *= scale;
        settings.preheatSeconds *= scale;
        // Only a very short budget shortens the idle gaps too (then bursts may not reach boost clocks).
        if (options.budgetSeconds < 30.0) settings.burstIdleSeconds *= scale;
        confirmReserve = confirmSeconds(settings, Regime::Sustained, confirmEntries, baselineMs) +
                         confirmSeconds(settings, Regime::Burst, burstEntries, baselineMs);
        x.say("the budget is short: confirm blocks of " + formatFixed(settings.blockSeconds, 2) + " s, bursts after " +
              formatFixed(settings.burstIdleSeconds, 2) + " s idle");
    }
    x.reserve = screenReserve + confirmReserve + 1.0;
}

// Guided search within the budget, keeping the reserve for the screen and the confirm stage.
void runGuidedSearch(Exploration& x) {
    ExplorationResult& r = x.r;
    const double baselineMs = x.baselineMs;
    const auto searchStart = Clock::now();
    SearchOptions searchOptions = x.options.search;
    searchOptions.workspaceCapBytes = x.cap;
    if (searchOptions.clusterShapeIds.empty()) {
        if (r.environment.clusterLaunch)
            for (std::uint16_t g = 0; g < 52; ++g) searchOptions.clusterShapeIds.push_back(g);
        else
            searchOptions.clusterShapeIds = {0};
    }
    searchOptions.batchSize = x.perBatch;
    GuidedSearch search(r.algorithms, searchOptions);
    auto secondsLeft = [&]() { return x.options.budgetSeconds - secondsSince(x.start) - x.reserve; };
    auto eligible = [&](const Candidate& c) { return eligibleUnderRule(c, r.rule); };
    double checkSeconds = 0.0;
    std::uint64_t checkCount = 0;
    auto check = [&](const AlgoConfig& config) {
        const auto t0 = Clock::now();
        CheckResult result = x.backend.check(config);
        checkSeconds += secondsSince(t0);
        ++checkCount;
        return result;
    };
    // While the host checks configurations, the GPU keeps running the baseline, so the next batch starts in the
    // same power state as the last one ended.
    auto beforeChecks = [&](std::size_t proposals) {
        const double perCheckMs = checkCount ? 1000.0 * checkSeconds / double(checkCount) : 0.01;
        const double ms = std::clamp(double(proposals) * perCheckMs, 2.0 * baselineMs, 2000.0);
        try {
            x.backend.keepBusy(r.candidates[0].raw, x.cap, int(std::clamp(std::ceil(ms / baselineMs), 1.0, 4000.0)));
        } catch (const std::exception&) {
            // The next batch reports the device's state; keeping busy is only a courtesy.
        }
    };
    x.say("search: " + formatFixed(std::max(0.0, secondsLeft()), 1) + " s, keeping " + formatFixed(x.reserve, 1) +
          " s for the screen and the confirm stage");
    r.stats = search.run(
        r.candidates, check, [&](std::vector<Candidate>& batch) { x.timeBatch(batch); }, secondsLeft, eligible,
        [&](const std::string& line) { x.say(line); }, beforeChecks);
    r.stats.seconds = secondsSince(searchStart);
    if (r.stats.launchFailures > 0)
        r.errorsAndUnsupported.push_back(
            {"launch failures", false,
             std::to_string(r.stats.launchFailures) +
                 " configurations passed cublasLtMatmulAlgoCheck but failed at launch; each is recorded in "
                 "candidates[].error"});
}

// cuBLASLt's first `heuristicFinalists` answers after the top, in its order: the same in every run of a shape.
std::vector<int> firstHeuristicAnswers(const Exploration& x) {
    std::vector<int> ids;
    for (const Candidate& c : x.r.candidates) {
        if (int(ids.size()) >= x.options.heuristicFinalists) break;
        if (c.index != 0 && c.source.rfind("heuristic", 0) == 0) ids.push_back(c.index);
    }
    return ids;
}

// Screen: the best eligible candidates of the first pass (by time over their neighbouring top items), plus the
// requested ones and cuBLASLt's first answers after the top (ExploreOptions::heuristicFinalists), again against
// the top in `passes` randomly ordered passes. The score is the median of all
// the candidate's ratios, so one lucky moment does not make a finalist.
void screenShortlist(Exploration& x) {
    ExplorationResult& r = x.r;
    auto eligible = [&](const Candidate& c) { return eligibleUnderRule(c, r.rule); };
    std::vector<int>& pool = x.pool;
    for (const auto& c : r.candidates)
        if (c.index != 0 && eligible(c) && !x.requested.count(c.index)) pool.push_back(c.index);
    std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) {
        return r.candidates[std::size_t(a)].firstPass->rankMs() < r.candidates[std::size_t(b)].firstPass->rankMs();
    });
    if (int(pool.size()) > x.shortlist) pool.resize(std::size_t(x.shortlist));
    std::vector<int>& screened = x.screened;
    screened = pool;
    for (int id : x.requested)
        if (id != 0 && eligible(r.candidates[std::size_t(id)])) screened.push_back(id);
    // cuBLASLt's first answers whose first pass read faster than the top are screened even when the pool's cut
    // missed them, so that they can be heuristic finalists (chooseFinalists).
    for (int id : firstHeuristicAnswers(x)) {
        const Candidate& c = r.candidates[std::size_t(id)];
        const bool fasterFirst = c.firstPass && c.firstPass->relativeToTop > 0 && c.firstPass->relativeToTop < 1.0;
        if (fasterFirst && eligible(c) && std::find(screened.begin(), screened.end(), id) == screened.end())
            screened.push_back(id);
    }
    r.screenPasses = x.passes;
    if (screened.empty()) return;
    try {
        x.backend.keepBusy(r.candidates[0].raw, x.cap, int(std::clamp(300.0 / x.baselineMs, 1.0, 4000.0)));
    } catch (const std::exception&) {
        // The first batch reports the device's state.
    }
    x.say("screen: " + std::to_string(screened.size()) + " candidates against the heuristic top (every " +
          std::to_string(kTopEvery) + " items), " + std::to_string(x.passes) + " randomly ordered passes");
    std::mt19937_64 rng(r.dataSeed ^ 0x5c4eefULL);
    std::map<int, std::vector<double>> ratios;
    for (int id : screened) {
        const auto& fp = r.candidates[std::size_t(id)].firstPass;
        if (fp && fp->relativeToTop > 0) ratios[id].push_back(fp->relativeToTop);
    }
    for (int pass = 0; pass < x.passes; ++pass) {
        std::vector<int> order = screened;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t first = 0; first < order.size(); first += std::size_t(x.perBatch)) {
            const std::size_t last = std::min(order.size(), first + std::size_t(x.perBatch));
            std::vector<Candidate> batch;
            for (std::size_t i = first; i < last; ++i) batch.push_back(r.candidates[std::size_t(order[i])]);
            std::map<int, double> passRatios;
            x.timeBatch(batch, &passRatios);
            for (const auto& [id, ratio] : passRatios) ratios[id].push_back(ratio);
        }
    }
    for (int id : screened) {
        ScreenResult sr;
        sr.ratios = ratios[id];
        sr.score = sr.ratios.empty() ? 0.0 : median(sr.ratios);
        r.candidates[std::size_t(id)].screen = sr;
    }
}

// Finalists: the best screened scores (at least the best one, the others only when faster than the top), and
// every requested config that runs with parity.
void chooseFinalists(Exploration& x) {
    ExplorationResult& r = x.r;
    std::vector<int> byScore;
    for (int id : x.pool)
        if (const Candidate& c = r.candidates[std::size_t(id)]; c.screen && c.screen->score > 0) byScore.push_back(id);
    std::stable_sort(byScore.begin(), byScore.end(), [&](int a, int b) {
        return r.candidates[std::size_t(a)].screen->score < r.candidates[std::size_t(b)].screen->score;
    });
    for (int id : x.requested)
        if (id != 0 && eligibleUnderRule(r.candidates[std::size_t(id)], r.rule)) x.finalistIds.push_back(id);
    int fromScreen = 0;
    for (int id : byScore) {
        if (fromScreen >= x.finalists) break;
        if (fromScreen > 0 && r.candidates[std::size_t(id)].screen->score >= 1.0) break;
        x.finalistIds.push_back(id);
        ++fromScreen;
    }
    // cuBLASLt's first answers after the top, in its order, when they screened faster than the top.
    for (int id : firstHeuristicAnswers(x)) {
        const Candidate& c = r.candidates[std::size_t(id)];
        const bool faster = c.screen && c.screen->score > 0 && c.screen->score < 1.0;
        if (!faster || !eligibleUnderRule(c, r.rule) ||
            std::find(x.finalistIds.begin(), x.finalistIds.end(), c.index) != x.finalistIds.end())
            continue;
        x.finalistIds.push_back(c.index);
        r.heuristicFinalists.push_back(c.index);
    }
    for (int id : x.finalistIds) {
        const Candidate& c = r.candidates[std::size_t(id)];
        x.say("finalist #" + std::to_string(id) + " " + c.config.describe() + ": screen score " +
              (c.screen ? formatFixed(c.screen->score, 4) : std::string("-")) + " of the top");
    }
}

// The siblings of a configuration: every other custom option and CTA swizzle its algorithm supports, nearest
// custom option first.
std::vector<AlgoConfig> siblingConfigs(const AlgoConfig& config, const AlgoCapabilities& caps) {
    std::vector<AlgoConfig> out;
    const int customs = std::max(0, caps.customOptionMax);
    const int own = int(config.customOption);
    for (int distance = 0; distance <= customs + own; ++distance)
        for (int custom : {own - distance, own + distance}) {
            if (custom < 0 || custom > customs) continue;
            for (std::uint32_t swizzle = 0; swizzle <= (caps.ctaSwizzleSupport ? 1u : 0u); ++swizzle) {
                AlgoConfig c = config;
                c.customOption = std::uint32_t(custom);
                c.ctaSwizzle = swizzle;
                if (c != config && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            }
        }
    return out;
}

// The sibling step's passes: one per ratio a screened candidate has (the search's first pass and the screen's).
int siblingPasses(const Exploration& x) { return x.passes + 1; }

// The siblings of the finalists `parents` (best screen score first), each once and none a finalist itself, with the
// finalist each is a sibling of; at most kMaxSiblings, the better finalists' first.
std::vector<std::pair<AlgoConfig, int>> finalistSiblingConfigs(const Exploration& x, const std::vector<int>& parents) {
    std::set<AlgoConfig> taken;
    for (int id : x.finalistIds) taken.insert(x.r.candidates[std::size_t(id)].config);
    std::vector<std::pair<AlgoConfig, int>> out;
    for (int parent : parents) {
        const AlgoConfig& config = x.r.candidates[std::size_t(parent)].config;
        const auto caps = std::find_if(x.r.algorithms.begin(), x.r.algorithms.end(), [&](const SearchAlgorithm& a) {
            return a.algorithmId == config.algorithmId && a.capabilities.read;
        });
        if (caps == x.r.algorithms.end()) continue;
        for (const AlgoConfig& c : siblingConfigs(config, caps->capabilities))
            if (int(out.size()) < kMaxSiblings && taken.insert(c).second) out.emplace_back(c, parent);
    }
    return out;
}

// The siblings the search did not time: checked, then given a first pass (parity and a first ratio to the top) as
// new candidates "sibling of #id". Returns the candidates of every sibling, earlier ones included.
std::vector<int> collectSiblings(Exploration& x, const std::vector<std::pair<AlgoConfig, int>>& configs) {
    ExplorationResult& r = x.r;
    std::map<AlgoConfig, int> byConfig;
    for (const Candidate& c : r.candidates) byConfig.emplace(c.config, c.index);
    std::vector<int> ids;
    std::vector<Candidate> fresh;
    for (const auto& [config, parent] : configs) {
        if (const auto it = byConfig.find(config); it != byConfig.end()) {
            ids.push_back(it->second);
            continue;
        }
        ++r.siblings.checked;
        const CheckResult result = x.backend.check(config);
        if (!result.ok() || result.requiredWorkspaceBytes > x.cap) continue;
        fresh.push_back(checkedCandidate(int(r.candidates.size() + fresh.size()), config, result,
                                         "sibling of #" + std::to_string(parent)));
    }
    for (std::size_t first = 0; first < fresh.size(); first += std::size_t(x.perBatch)) {
        const std::size_t last = std::min(fresh.size(), first + std::size_t(x.perBatch));
        std::vector<Candidate> batch(fresh.begin() + std::ptrdiff_t(first), fresh.begin() + std::ptrdiff_t(last));
        x.timeBatch(batch);
        for (Candidate& c : batch) {
            ids.push_back(c.index);
            r.siblings.added.push_back(c.index);
            r.candidates.push_back(std::move(c));
        }
    }
    return ids;
}

// siblingPasses randomly ordered passes over `entries` against the top, as the screen times them: per entry its
// ratios to the neighbouring top items.
std::map<int, std::vector<double>> timeSiblingPasses(Exploration& x, const std::vector<int>& entries) {
    std::mt19937_64 rng(x.r.dataSeed ^ 0x51b11ULL);
    std::map<int, std::vector<double>> ratios;
    for (int pass = 0; pass < siblingPasses(x); ++pass) {
        std::vector<int> order = entries;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t first = 0; first < order.size(); first += std::size_t(x.perBatch)) {
            const std::size_t last = std::min(order.size(), first + std::size_t(x.perBatch));
            std::vector<Candidate> batch;
            for (std::size_t i = first; i < last; ++i) batch.push_back(x.r.candidates[std::size_t(order[i])]);
            std::map<int, double> passRatios;
            x.timeBatch(batch, &passRatios);
            for (const auto& [id, ratio] : passRatios) ratios[id].push_back(ratio);
        }
    }
    return ratios;
}

// Siblings of the screened finalists (issue 23). Two explorations of 8192^3 on an H100 (run 14) picked custom
// option 4 and 5 of one tile, stages and cluster, each outside the other's tie set: the time-bounded searches had
// timed different neighbours (one never timed option 5, the other timed option 4 once, 10% slow), and the tie rule
// can only name what was confirmed. Here every sibling of a screened finalist (the same configuration with each
// other custom option and CTA swizzle) that runs with parity is re-timed with the finalists in as many passes as
// the screen has ratios (unseen ones are checked and given a first pass first); up to siblingFinalists of them whose
// median ratio to the top is below 1 and within siblingTolerance of the best finalist's in the same passes become
// finalists, so that both runs confirm the same neighbourhood and the tie rule picks among it. The finalists all
// have their siblings taken, not only the best: one slow first-pass ratio (the median of three is then the worse
// of the other two) lets a neighbour's configuration screen best (scripted CI model, siblingFinalistsMakeTies...).
void addFinalistSiblings(Exploration& x) {
    ExplorationResult& r = x.r;
    if (x.options.siblingFinalists <= 0) return;
    std::vector<int> parents;
    for (int id : x.finalistIds)
        if (const Candidate& c = r.candidates[std::size_t(id)]; !x.requested.count(id) && c.screen && c.screen->score > 0)
            parents.push_back(id);
    std::stable_sort(parents.begin(), parents.end(), [&](int a, int b) {
        return r.candidates[std::size_t(a)].screen->score < r.candidates[std::size_t(b)].screen->score;
    });
    const std::vector<std::pair<AlgoConfig, int>> configs = finalistSiblingConfigs(x, parents);
    r.siblings.of = parents;
    r.siblings.generated = int(configs.size());
    if (configs.empty()) return;
    try {
        x.backend.keepBusy(r.candidates[0].raw, x.cap, int(std::clamp(300.0 / x.baselineMs, 1.0, 4000.0)));
    } catch (const std::exception&) {
        // The first batch reports the device's state.
    }
    std::vector<int>& retime = r.siblings.retimed;
    for (int id : collectSiblings(x, configs))
        if (const Candidate& c = r.candidates[std::size_t(id)]; c.error.empty() && c.firstPass && eligibleUnderRule(c, r.rule))
            retime.push_back(id);
    const std::string what = std::to_string(configs.size()) + " siblings of " + std::to_string(parents.size()) +
                             " finalists, " + std::to_string(r.siblings.added.size()) + " new, ";
    if (retime.empty()) return x.say(what + "none to re-time");
    std::vector<int> entries = parents;
    entries.insert(entries.end(), retime.begin(), retime.end());
    std::map<int, std::vector<double>> ratios = timeSiblingPasses(x, entries);
    double bestMedian = 0.0;
    for (int id : parents)
        if (!ratios[id].empty() && (r.siblings.best < 0 || median(ratios[id]) < bestMedian)) {
            r.siblings.best = id;
            bestMedian = median(ratios[id]);
        }
    if (r.siblings.best >= 0) r.siblings.bestRatios = ratios[r.siblings.best];
    std::vector<std::pair<double, int>> close;  // (median over the best finalist's, candidate)
    for (int id : retime) {
        Candidate& c = r.candidates[std::size_t(id)];
        if (ratios[id].empty()) continue;
        if (!c.screen) c.screen = ScreenResult{ratios[id], median(ratios[id])};  // not in the screen: these passes
        const double m = median(ratios[id]);
        if (bestMedian > 0 && m < 1.0 && m <= bestMedian * (1.0 + x.options.siblingTolerance))
            close.emplace_back(m / bestMedian, id);
    }
    std::stable_sort(close.begin(), close.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [relative, id] : close) {
        if (int(r.siblings.finalists.size()) >= x.options.siblingFinalists) break;
        r.siblings.finalists.push_back(id);
        x.finalistIds.push_back(id);
        x.say("finalist #" + std::to_string(id) + " " + r.candidates[std::size_t(id)].config.describe() + ": a sibling, x" +
              formatFixed(relative, 4) + " of the best finalist #" + std::to_string(r.siblings.best) + " in the same passes");
    }
    x.say(what + std::to_string(retime.size()) + " re-timed with the finalists in " + std::to_string(siblingPasses(x)) +
          " passes, " + std::to_string(r.siblings.finalists.size()) + " added as finalists");
}

// The confirm stage's entries for these candidates, each sized by its screen score (or first pass).
std::vector<ConfirmEntry> entriesFor(const Exploration& x, const std::vector<int>& ids) {
    std::vector<ConfirmEntry> entries;
    for (int id : ids) {
        const Candidate& c = x.r.candidates[std::size_t(id)];
        const double ms = c.screen && c.screen->score > 0 ? c.screen->score * x.baselineMs : c.firstPass->medianMs;
        entries.push_back({c.raw, x.cap, ms});
    }
    return entries;
}

// One regime's confirm run into the candidates (`ids` as entered, the top first) and the A/A control.
void applyConfirmRun(Exploration& x, const ConfirmRun& run, const std::vector<int>& ids, Regime regime) {
    ExplorationResult& r = x.r;
    for (std::size_t e = 0; e < ids.size(); ++e) {
        Candidate& c = r.candidates[std::size_t(ids[e])];
        if (!run.errors[e].empty()) {
            if (c.index != 0) c.error = "failed while confirmed: " + run.errors[e];
            continue;
        }
        (regime == Regime::Burst ? c.burst : c.sustained) = run.entries[e];
        if (regime == Regime::Sustained) {
            c.final = finalFromBlocks(run.entries[e]);
            if (e < run.power.size()) c.power = run.power[e];
        }
        if (c.index != 0)
            x.say(toString(regime) + " #" + std::to_string(c.index) + ": " + formatFixed(run.entries[e].medianMs(), 4) +
                  " ms, vs top " + describeGain(run.entries[e].vsTop));
    }
    const std::size_t aa = ids.size();
    if (run.errors[aa].empty() && run.errors[0].empty()) {
        (regime == Regime::Burst ? r.aaBurst : r.aaSustained) = run.entries[aa];
        x.say(toString(regime) + " A/A control: " + describeGain(run.entries[aa].vsTop));
    }
}

// Confirm, sustained: the top, the finalists and the A/A control in balanced rounds of blocks back to back.
void confirmSustained(Exploration& x) {
    ExplorationResult& r = x.r;
    const ConfirmSettings& settings = x.settings;
    r.confirmSettings = settings;
    std::vector<int> sustainedIds{0};
    sustainedIds.insert(sustainedIds.end(), x.finalistIds.begin(), x.finalistIds.end());
    x.say("confirm (sustained): " + std::to_string(sustainedIds.size() + 1) + " entries (top, A/A control, " +
          std::to_string(x.finalistIds.size()) + " finalists), " + std::to_string(settings.rounds) + " rounds of " +
          formatFixed(settings.blockSeconds, 2) + " s blocks back to back");
    const double thresholdPercent = 100.0 * r.rule.noiseThreshold;
    ConfirmSettings sustainedSettings = settings;
    if (r.rule.regime != Regime::Sustained) sustainedSettings.extraRounds = 0;  // only the deciding regime is extended
    ConfirmRun sustained = runSequentialConfirm(x.backend, entriesFor(x, sustainedIds), Regime::Sustained,
                                                sustainedSettings, r.dataSeed + 1, thresholdPercent);
    // A failed A/A control means these rounds cannot tell identical work apart: measure again in fresh rounds and
    // decide on those (the retry does not look at any finalist's gain).
    for (int retry = 1; r.rule.regime == Regime::Sustained && retry <= x.options.aaRetries; ++retry) {
        const std::size_t aa = sustainedIds.size();
        if (!sustained.errors[0].empty() || !sustained.errors[aa].empty() || !sustained.entries[aa].vsTop.valid() ||
            sustained.entries[aa].vsTop.containsZero99())
            break;
        r.discardedAaControls.push_back(sustained.entries[aa]);
        x.say("sustained A/A control failed (" + describeGain(sustained.entries[aa].vsTop) +
              "): the confirm rounds again, fresh (retry " + std::to_string(retry) + " of " +
              std::to_string(x.options.aaRetries) + ")");
        sustained = runSequentialConfirm(x.backend, entriesFor(x, sustainedIds), Regime::Sustained, sustainedSettings,
                                         r.dataSeed + 1 + 0x100ull * std::uint64_t(retry), thresholdPercent);
    }
    for (std::size_t e : sustained.extended) r.extendedSustained.push_back(sustainedIds[e]);
    if (sustained.extraRounds > 0)
        x.say("sequential confirm (sustained): " + std::to_string(sustained.extended.size()) +
              " finalist(s) straddled " + formatFixed(thresholdPercent, 2) + "%: " + std::to_string(sustained.extraRounds) +
              " more rounds with the top and the A/A control");
    applyConfirmRun(x, sustained, sustainedIds, Regime::Sustained);
    if (!sustained.errors[0].empty())
        r.errorsAndUnsupported.push_back(
            {"confirm (sustained)", false, "the heuristic top failed: " + sustained.errors[0]});
    r.powerWindowSeconds =
        (settings.rounds + (sustained.extraRounds > 0 ? sustained.extraRounds : 0)) * settings.blockSeconds;
    for (int id : sustainedIds)
        if (const Candidate& c = r.candidates[std::size_t(id)]; c.power)
            x.say(powerLine("#" + std::to_string(id), *c.power));
    r.power = summarizePower(r.candidates, 0);
    x.say("power: " + r.power.note);
}

// Confirm, burst after idle: the top, the A/A control and the sustained choice (or, selecting on bursts, all).
void confirmBurst(Exploration& x) {
    ExplorationResult& r = x.r;
    const ConfirmSettings& settings = x.settings;
    std::vector<int> burstIds{0};
    if (r.rule.regime == Regime::Burst) {
        burstIds.insert(burstIds.end(), x.finalistIds.begin(), x.finalistIds.end());
    } else {
        SelectionRule sustainedRule = r.rule;
        const Selection first =
            selectCandidate(r.candidates, 0, sustainedRule,
                            r.aaSustained ? std::optional<PairedGain>(r.aaSustained->vsTop) : std::nullopt);
        const int pick = first.leftBaseline ? first.candidateIndex : first.bestAlternative;
        if (pick > 0) burstIds.push_back(pick);
    }
    if (burstIds.size() <= 1 || settings.burstRounds <= 0) return;
    x.say("confirm (burst): " + std::to_string(burstIds.size() + 1) + " entries, " +
          std::to_string(settings.burstRounds) + " rounds of " + std::to_string(settings.burstLaunches) +
          "-launch bursts, each after " + formatFixed(settings.burstIdleSeconds, 1) + " s idle");
    const double thresholdPercent = 100.0 * r.rule.noiseThreshold;
    ConfirmSettings burstSettings = settings;
    if (r.rule.regime != Regime::Burst) burstSettings.extraRounds = 0;
    const ConfirmRun burst = runSequentialConfirm(x.backend, entriesFor(x, burstIds), Regime::Burst, burstSettings,
                                                  r.dataSeed + 2, thresholdPercent);
    for (std::size_t e : burst.extended) r.extendedBurst.push_back(burstIds[e]);
    if (burst.extraRounds > 0)
        x.say("sequential confirm (burst): " + std::to_string(burst.extended.size()) + " finalist(s) straddled " +
              formatFixed(thresholdPercent, 2) + "%: " + std::to_string(burst.extraRounds) + " more rounds");
    applyConfirmRun(x, burst, burstIds, Regime::Burst);
}

// How the finalists were screened and confirmed, for the report.
std::string screenAndConfirmMethod(const Exploration& x) {
    const ExplorationResult& r = x.r;
    const ConfirmSettings& settings = x.settings;
    std::ostringstream method;
    method << "screen: the " << x.pool.size() << " best eligible first-pass candidates (time over the neighbouring "
           << "heuristic-top items) and " << (x.screened.size() - x.pool.size())
           << " more (requested, or among cuBLASLt's first " << x.options.heuristicFinalists
           << " answers after the top), in " << x.passes
           << " randomly ordered passes against the top (every " << kTopEvery << " items), score = median ratio; ";
    if (!r.siblings.of.empty())
        method << "siblings: the " << r.siblings.of.size() << " screened finalists with every other custom option and "
               << "CTA swizzle (" << r.siblings.generated << " configurations, " << r.siblings.checked
               << " that were not candidates checked, " << r.siblings.added.size() << " of them new), "
               << r.siblings.retimed.size() << " re-timed with the finalists in " << siblingPasses(x)
               << " randomly ordered passes; up to " << x.options.siblingFinalists << " whose median ratio is below 1 "
               << "and within " << 100.0 * x.options.siblingTolerance << "% of the best finalist's in the same passes "
               << "added as finalists (" << r.siblings.finalists.size() << "), so that runs whose searches timed "
               << "different neighbours confirm the same ones; ";
    if (!r.heuristicFinalists.empty())
        method << "heuristic finalists: " << r.heuristicFinalists.size() << " of cuBLASLt's first "
               << x.options.heuristicFinalists << " answers after the top screened faster than it and were confirmed "
               << "too (the same answers in every run); ";
    if (!r.discardedAaControls.empty())
        method << "the sustained A/A control failed " << r.discardedAaControls.size()
               << " time(s), and the confirm rounds ran again, fresh; ";
    if (!r.discardedVerifications.empty())
        method << "the verification failed on its A/A control alone " << r.discardedVerifications.size()
               << " time(s), and ran again, fresh; ";
    method << "confirm: the top, " << x.finalistIds.size()
           << " finalists and an A/A control (the top entered twice) in " << settings.rounds << " balanced rounds of "
           << settings.blockSeconds << " s blocks back to back (warm-up "
           << settings.warmupSeconds << " s of each block dropped, after " << settings.preheatSeconds
           << " s of the top), per block the per-launch median, energy and clock; burst: " << settings.burstRounds
           << " rounds of " << settings.burstLaunches << "-launch bursts after " << settings.burstIdleSeconds
           << " s idle; finalists whose interval straddles the threshold get " << settings.extraRounds
           << " more rounds (sequential confirm, the deciding regime only); gains and 95% intervals from the "
           << "per-round paired ratios (Student t over rounds); selected "
           << "on the " << toString(r.rule.regime) << " regime when the interval's lower end clears "
           << 100.0 * r.rule.noiseThreshold << "% and the A/A interval contains 0"
           << (r.power.powerLimited ? " (the card was power-limited)" : "");
    return method.str();
}

// Selection on the deciding regime's confirm rounds, then its verification in fresh rounds.
void selectAndVerify(Exploration& x) {
    ExplorationResult& r = x.r;
    const ConfirmSettings& settings = x.settings;
    const auto& aa = r.rule.regime == Regime::Burst ? r.aaBurst : r.aaSustained;
    r.selection = selectCandidate(r.candidates, 0, r.rule, aa ? std::optional<PairedGain>(aa->vsTop) : std::nullopt);
    if (r.selection.leftBaseline && settings.verifyRounds > 0) {
        // The gain users are told is measured after the choice, in rounds the choice did not see.
        const int pick = r.selection.candidateIndex;
        ConfirmSettings verify = settings;
        verify.rounds = verify.burstRounds = settings.verifyRounds + settings.verifyRounds % 2;  // whole ABBA pairs
        verify.extraRounds = 0;
        x.say("verification (" + toString(r.rule.regime) + "): the top, #" + std::to_string(pick) +
              " and an A/A control, " + std::to_string(verify.rounds) + " fresh rounds");
        const auto complete = [](const ConfirmRun& c) {
            return c.errors[0].empty() && c.errors[1].empty() && c.errors[2].empty();
        };
        // A run that failed on its A/A control alone (H100 run 18, 8192^3: +2.40% [1.05, 3.73] against an A/A of
        // -1.60%, and the top stayed though five finalists had read +1.6..+2.5%) is measured again in fresh rounds,
        // at most aaRetries times, and decided on the last.
        ConfirmRun run;
        for (int attempt = 0;; ++attempt) {
            run = runConfirm(x.backend, entriesFor(x, {0, pick}), r.rule.regime, verify,
                             r.dataSeed + 3 + 0x100ull * std::uint64_t(attempt));
            if (attempt >= x.options.aaRetries || !complete(run) ||
                !verificationFailedOnAaControl(run.entries[1].vsTop, run.entries[2].vsTop))
                break;
            r.discardedVerifications.emplace_back(run.entries[1], run.entries[2]);
            x.say("verification: #" + std::to_string(pick) + " " + describeGain(run.entries[1].vsTop) +
                  " but the A/A control " + describeGain(run.entries[2].vsTop) + ": fresh rounds again (retry " +
                  std::to_string(attempt + 1) + " of " + std::to_string(x.options.aaRetries) + ")");
        }
        if (complete(run)) {
            r.verification = run.entries[1];
            r.verificationAa = run.entries[2];
            r.selection = applyVerification(r.selection, run.entries[1].vsTop, run.entries[2].vsTop);
        } else {
            r.selection = applyVerification(r.selection, PairedGain{}, PairedGain{});
        }
        r.confirmSettings.verifyRounds = verify.rounds;
    }
    x.say("selected: " + r.selection.reason);
}

// Hashes come from host threads; wait for them.
void collectOutputHashes(Exploration& x) {
    ExplorationResult& r = x.r;
    for (auto& [id, future] : x.shas) {
        try {
            r.candidates[std::size_t(id)].parity.sha256 = future.get();
        } catch (const std::exception& e) {
            r.candidates[std::size_t(id)].parity.sha256.clear();
            r.errorsAndUnsupported.push_back({"output hash of candidate #" + std::to_string(id), false, e.what()});
        }
    }
}

}  // namespace

ExplorationResult runExploration(GemmBackend& backend, const ExploreOptions& options,
                                 const ExploreProgressFn& progress) {
    Exploration x(backend, options, progress);
    if (!prepareWorkload(x) || !collectHeuristics(x)) return std::move(x.r);
    addRequestedConfigs(x);
    checkExplicitSplitK(x);
    if (!firstPassOfHeuristicAnswers(x)) return std::move(x.r);
    collectSearchAlgorithms(x);
    reserveScreenAndConfirm(x);
    runGuidedSearch(x);
    screenShortlist(x);
    chooseFinalists(x);
    addFinalistSiblings(x);
    confirmSustained(x);
    confirmBurst(x);
    x.r.finalistMethod = screenAndConfirmMethod(x);
    selectAndVerify(x);
    collectOutputHashes(x);
    x.r.wallSeconds = secondsSince(x.start);
    x.say("exploration took " + formatFixed(x.r.wallSeconds, 1) + " s: " + std::to_string(x.r.candidates.size()) +
          " candidates timed, " + std::to_string(x.r.stats.checks) + " configurations checked");
    return std::move(x.r);
}

ReplayOutcome runReplay(GemmBackend& backend, const ReplayPlan& plan, const ConfirmSettings& settings,
                        const ExploreProgressFn& progress) {
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    ReplayOutcome out;
    const GemmEnvironment env = backend.environment();
    out.versionMatches = env.cublasLtVersion == plan.cublasLtVersion;
    if (!out.versionMatches) {
        out.refusal = "the report was made with cuBLASLt " + std::to_string(plan.cublasLtVersion) + " but this machine has " +
                      std::to_string(env.cublasLtVersion) +
                      "; raw cublasLtMatmulAlgo_t bytes only replay with the same cuBLASLt version";
        return out;
    }
    if (const std::string why = backend.unsupportedReason(plan.spec); !why.empty()) {
        out.refusal = why;
        return out;
    }
    say("preparing " + describe(plan.spec) + " with data seed " + std::to_string(plan.dataSeed));
    backend.prepare(plan.spec, plan.dataSeed);
    for (const auto* raw : {&plan.baselineRaw, &plan.selectedRaw}) {
        const CheckResult check = backend.checkRaw(*raw);
        if (!check.ok()) {
            out.refusal = std::string(raw == &plan.baselineRaw ? "baseline" : "selected") +
                          " algorithm no longer passes cublasLtMatmulAlgoCheck (status " +
                          std::to_string(check.apiStatus) + ")";
            return out;
        }
    }
    auto baselineWork = backend.work(plan.baselineRaw, plan.baselineWorkspaceBytes);
    baselineWork->launch();
    backend.checkOutput(true);
    auto selectedWork = backend.work(plan.selectedRaw, plan.selectedWorkspaceBytes);
    selectedWork->launch();
    PendingParity parity = backend.checkOutput(false);
    out.sha256 = parity.sha256.get();
    out.sha256MatchesReport = !plan.selectedSha256.empty() && out.sha256 == plan.selectedSha256;
    say(std::string("selected output SHA-256 ") + out.sha256 + (out.sha256MatchesReport ? " matches" : " differs from") +
        " the report");

    // The explorer's confirm stage, both regimes: top, selection, A/A control.
    const double baselineMs = plan.baselineMedianMs > 0 ? plan.baselineMedianMs : 1.0;
    const double selectedMs = plan.selectedMedianMs > 0 ? plan.selectedMedianMs : baselineMs;
    const std::vector<ConfirmEntry> entries{{plan.baselineRaw, plan.baselineWorkspaceBytes, baselineMs},
                                            {plan.selectedRaw, plan.selectedWorkspaceBytes, selectedMs}};
    for (Regime regime : {Regime::Sustained, Regime::Burst}) {
        if (regime == Regime::Burst && settings.burstRounds <= 0) continue;
        say("confirm (" + toString(regime) + "): top, selection and A/A control");
        // The explorer's sequential step too (on its default 1% threshold), sustained only: replay judges that regime.
        ConfirmSettings regimeSettings = settings;
        if (regime == Regime::Burst) regimeSettings.extraRounds = 0;
        const ConfirmRun run = runSequentialConfirm(backend, entries, regime, regimeSettings,
                                                    plan.dataSeed + 7 + int(regime), 100.0 * SelectionRule{}.noiseThreshold);
        if (run.extraRounds > 0)
            say(toString(regime) + ": the gain straddled 1%, " + std::to_string(run.extraRounds) + " more rounds");
        for (const auto& err : run.errors)
            if (!err.empty()) throw Error("", "", "replay's " + toString(regime) + " confirm failed: " + err);
        (regime == Regime::Burst ? out.burst : out.sustained) = run.entries[1];
        (regime == Regime::Burst ? out.aaBurst : out.aaSustained) = run.entries[2];
        say(toString(regime) + ": selection vs top " + describeGain(run.entries[1].vsTop) + "; A/A " +
            describeGain(run.entries[2].vsTop));
        if (regime == Regime::Sustained) {
            out.selected = finalFromBlocks(run.entries[1]);
            out.baseline = finalFromBlocks(run.entries[0]);
            if (!run.power.empty()) out.baselinePower = run.power[0];
        }
    }
    const PairedGain& g = out.sustained->vsTop;
    out.gainPercent = g.gainPercent;
    if (out.aaSustained && out.aaSustained->vsTop.valid() && !out.aaSustained->vsTop.containsZero())
        out.verdict = "TOO NOISY";
    else
        out.verdict = verdictOf(g);
    out.selected.verdictVsBaseline = out.verdict;
    return out;
}

}  // namespace tunescope::gemm
