#include "tunescope/gemm/gemm_explorer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/version.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/gemm/gemm_enum_names.hpp"

namespace tunescope::gemm {

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

namespace {

std::string statusName(int status) {
    switch (status) {
        case 0: return "CUBLAS_STATUS_SUCCESS";
        case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
        case 7: return "CUBLAS_STATUS_INVALID_VALUE";
        case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
        case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
        default: return "status " + std::to_string(status);
    }
}

// "128x352" -> (128, 352); (0, 0) when the tile has no size.
std::pair<int, int> tileDims(std::uint32_t tileId) {
    const std::string name = gemm_enums::tileName(tileId);
    const auto x = name.find('x');
    if (x == std::string::npos) return {0, 0};
    try {
        return {std::stoi(name.substr(0, x)), std::stoi(name.substr(x + 1))};
    } catch (...) {
        return {0, 0};
    }
}

// Distance between tiles for "nearest first": log-area ratio plus a little for the aspect ratio.
double tileDistance(std::uint32_t a, std::uint32_t b) {
    const auto [ar, ac] = tileDims(a);
    const auto [br, bc] = tileDims(b);
    if (ar == 0 || br == 0) return (a == b) ? 0.0 : 10.0;
    const double area = std::fabs(std::log(double(ar) * ac / (double(br) * bc)));
    const double aspect = std::fabs(std::log(double(ar) / ac) - std::log(double(br) / bc));
    return area + 0.25 * aspect;
}

}  // namespace

std::vector<AlgoConfig> explicitSplitKConfigs(const AlgoConfig& base, const AlgoCapabilities& caps,
                                              const std::vector<int>& splits) {
    std::vector<AlgoConfig> out;
    for (int split : splits) {
        if (split == 1) {
            AlgoConfig c = base;
            c.splitK = 1;
            c.reductionScheme = kReductionNone;
            out.push_back(c);
            continue;
        }
        for (std::uint32_t scheme : {kReductionInPlace, kReductionComputeType, kReductionOutputType}) {
            if ((caps.reductionSchemeMask & scheme) == 0) continue;
            AlgoConfig c = base;
            c.splitK = split;
            c.reductionScheme = scheme;
            out.push_back(c);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Selection
// ---------------------------------------------------------------------------------------------------------------

bool eligibleUnderRule(const Candidate& candidate, const SelectionRule& rule) {
    if (!candidate.error.empty() || !candidate.firstPass || !candidate.parity.checked || !candidate.parity.finite)
        return false;
    if (rule.exactParity) return candidate.parity.bitwiseEqualToBaseline;
    return candidate.parity.bitwiseEqualToBaseline || candidate.parity.maxRelError <= rule.errorBound;
}

PairedGain pairedGain(const std::vector<double>& topMs, const std::vector<double>& candidateMs) {
    if (topMs.size() != candidateMs.size())
        throw Error("", "", "paired gain over " + std::to_string(topMs.size()) + " top and " +
                                std::to_string(candidateMs.size()) + " candidate rounds");
    PairedGain g;
    std::vector<double> logRatios;
    for (std::size_t i = 0; i < topMs.size(); ++i) {
        if (!(topMs[i] > 0) || !(candidateMs[i] > 0)) continue;
        logRatios.push_back(std::log(candidateMs[i] / topMs[i]));
        g.roundsFaster += candidateMs[i] < topMs[i];
    }
    g.rounds = int(logRatios.size());
    if (g.rounds == 0) return g;
    double mean = 0.0;
    for (double x : logRatios) mean += x;
    mean /= double(g.rounds);
    g.gainPercent = 100.0 * (1.0 - std::exp(mean));
    if (g.rounds < 2) {
        g.lowPercent = g.highPercent = g.low99Percent = g.high99Percent = g.gainPercent;
        return g;
    }
    double ss = 0.0;
    for (double x : logRatios) ss += (x - mean) * (x - mean);
    const double se = std::sqrt(ss / double(g.rounds - 1) / double(g.rounds));
    // Two-sided 95% and 99% intervals from the measurement engine's Student t (one implementation for every interval).
    const double half = studentQuantile(0.975, g.rounds - 1) * se;
    // A larger log ratio is a slower candidate: the interval's low end of the gain comes from mean + half.
    g.lowPercent = 100.0 * (1.0 - std::exp(mean + half));
    g.highPercent = 100.0 * (1.0 - std::exp(mean - half));
    const double half99 = studentQuantile(0.995, g.rounds - 1) * se;
    g.low99Percent = 100.0 * (1.0 - std::exp(mean + half99));
    g.high99Percent = 100.0 * (1.0 - std::exp(mean - half99));
    return g;
}

std::string toString(Regime regime) { return regime == Regime::Burst ? "burst" : "sustained"; }

Regime regimeFromString(std::string_view text) {
    if (text == "sustained") return Regime::Sustained;
    if (text == "burst") return Regime::Burst;
    throw Error("", "", "unknown regime '" + std::string(text) + "' (sustained or burst)");
}

double RegimeMeasurement::medianMs() const {
    std::vector<double> v = msPerRound;
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

// The regime measurement a finalist was confirmed with, or null.
const RegimeMeasurement* confirmedIn(const Candidate& c, Regime regime) {
    const auto& m = regime == Regime::Burst ? c.burst : c.sustained;
    return m && m->vsTop.valid() ? &*m : nullptr;
}

// The anchor's paired gain over `member` in the rounds both ran (extended finalists have more rounds appended; the
// first ones were measured together).
PairedGain anchorOver(const RegimeMeasurement& anchor, const RegimeMeasurement& member) {
    const std::size_t n = std::min(anchor.msPerRound.size(), member.msPerRound.size());
    return pairedGain(std::vector<double>(member.msPerRound.begin(), member.msPerRound.begin() + long(n)),
                      std::vector<double>(anchor.msPerRound.begin(), anchor.msPerRound.begin() + long(n)));
}

// kTieRule: the tie set around `anchor` and the lowest configuration of its members that cleared the threshold
// (-1 when none did).
int applyTieRule(Selection& sel, const std::vector<Candidate>& candidates, int anchor, const SelectionRule& rule) {
    sel.tieAnchor = anchor;
    sel.tieSet = {anchor};
    sel.tieAnchorOver = {PairedGain{}};
    const RegimeMeasurement& a = *confirmedIn(candidates[std::size_t(anchor)], rule.regime);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        if (int(i) == anchor || int(i) == sel.baselineIndex || !eligibleUnderRule(c, rule)) continue;
        const RegimeMeasurement* m = confirmedIn(c, rule.regime);
        if (!m) continue;
        const PairedGain over = anchorOver(a, *m);
        if (over.valid() && over.lowPercent > sel.requiredGainPercent) continue;  // the anchor is clearly faster
        sel.tieSet.push_back(int(i));
        sel.tieAnchorOver.push_back(over);
    }
    int pick = -1;
    for (int i : sel.tieSet) {
        const Candidate& c = candidates[std::size_t(i)];
        if (confirmedIn(c, rule.regime)->vsTop.lowPercent <= sel.requiredGainPercent) continue;
        if (pick < 0 || c.config < candidates[std::size_t(pick)].config) pick = i;
    }
    return pick;
}

// The heuristic top joins the tie set: `gain` is finalist `candidate`'s gain over it in the `stage` rounds.
void addTopToTieSet(Selection& sel, int candidate, const std::string& stage, const PairedGain& gain) {
    if (sel.tieSet.empty()) {  // a selection made without a tie set (a report from before ties): the pick anchors it
        sel.tieAnchor = candidate;
        sel.tieSet = {candidate};
        sel.tieAnchorOver = {PairedGain{}};
    }
    if (std::find(sel.tieSet.begin(), sel.tieSet.end(), sel.baselineIndex) == sel.tieSet.end()) {
        sel.tieSet.push_back(sel.baselineIndex);
        sel.tieAnchorOver.push_back(PairedGain{});
    }
    sel.topInTieSet = true;
    sel.topTieCandidate = candidate;
    sel.topTieStage = stage;
    sel.topTieGain = gain;
}

}  // namespace

Selection selectCandidate(const std::vector<Candidate>& candidates, int baselineIndex, const SelectionRule& rule,
                          const std::optional<PairedGain>& aaControl) {
    Selection sel;
    sel.baselineIndex = baselineIndex;
    sel.candidateIndex = baselineIndex;
    sel.regime = rule.regime;
    sel.requiredGainPercent = 100.0 * rule.noiseThreshold;
    if (baselineIndex < 0 || baselineIndex >= int(candidates.size())) {
        sel.candidateIndex = -1;
        sel.reason = "no baseline was measured";
        return sel;
    }
    auto confirmed = [&](const Candidate& c) { return confirmedIn(c, rule.regime); };
    const std::string regime = toString(rule.regime);
    std::ostringstream why;
    why.precision(2);
    why << std::fixed;
    // The finalist with the highest gain, whatever its interval: what the report states as the best alternative.
    int best = -1, chosen = -1;
    bool anyConfirmed = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        if (int(i) == baselineIndex || !eligibleUnderRule(c, rule)) continue;
        const RegimeMeasurement* m = confirmed(c);
        if (!m) continue;
        anyConfirmed = true;
        if (best < 0 || m->vsTop.gainPercent > confirmed(candidates[std::size_t(best)])->vsTop.gainPercent) best = int(i);
        if (m->vsTop.lowPercent > sel.requiredGainPercent &&
            (chosen < 0 || m->vsTop.gainPercent > confirmed(candidates[std::size_t(chosen)])->vsTop.gainPercent))
            chosen = int(i);
    }
    sel.bestAlternative = best;
    if (!anyConfirmed) {
        sel.reason = "no candidate " + std::string(rule.exactParity ? "bitwise equal to the baseline" : "within the error bound") +
                     " was confirmed in the " + regime + " regime; the heuristic top stays";
        return sel;
    }
    const int picked = applyTieRule(sel, candidates, chosen >= 0 ? chosen : best, rule);
    if (!aaControl || !aaControl->valid()) {
        sel.reason = "the A/A control did not run, so the noise is unknown; the heuristic top stays";
        return sel;
    }
    if (!aaControl->containsZero99()) {
        // The rounds cannot tell the top from itself, so not from the finalists either: it is in their tie set.
        sel.tooNoisy = true;
        addTopToTieSet(sel, best, "confirm", confirmed(candidates[std::size_t(best)])->vsTop);
        why << "too noisy to decide: the A/A control (the heuristic top against itself) differs by "
            << aaControl->gainPercent << "% (99% interval [" << aaControl->low99Percent << ", "
            << aaControl->high99Percent << "]) in the " << regime << " rounds; the heuristic top stays";
        sel.reason = why.str();
        return sel;
    }
    const RegimeMeasurement& b = *confirmed(candidates[std::size_t(best)]);
    if (chosen < 0) {
        addTopToTieSet(sel, best, "confirm", b.vsTop);
        why << "best confirmed candidate #" << best << " gains " << b.vsTop.gainPercent << "% [" << b.vsTop.lowPercent
            << ", " << b.vsTop.highPercent << "] (" << regime << ", " << b.vsTop.rounds
            << " paired rounds): the interval's lower end does not clear " << sel.requiredGainPercent
            << "%; the heuristic top stays";
        sel.reason = why.str();
        return sel;
    }
    const RegimeMeasurement& m = *confirmed(candidates[std::size_t(picked)]);
    sel.candidateIndex = picked;
    sel.leftBaseline = true;
    sel.gainPercent = m.vsTop.gainPercent;
    sel.lowPercent = m.vsTop.lowPercent;
    sel.highPercent = m.vsTop.highPercent;
    why << "candidate #" << picked << " is " << m.vsTop.gainPercent << "% faster than the heuristic top [95% interval "
        << m.vsTop.lowPercent << ", " << m.vsTop.highPercent << "] (" << regime << ", " << m.vsTop.rounds
        << " paired rounds, faster in " << m.vsTop.roundsFaster << "; A/A control " << aaControl->gainPercent << "% ["
        << aaControl->lowPercent << ", " << aaControl->highPercent << "]), "
        << (rule.exactParity ? "bitwise equal output" : "within the error bound");
    if (sel.tieSet.size() > 1)
        why << "; it ties with " << sel.tieSet.size() - 1 << " other finalist" << (sel.tieSet.size() > 2 ? "s" : "")
            << (picked != chosen ? " (the highest gain was #" + std::to_string(chosen) + ")" : std::string())
            << " and is the lowest configuration among those that cleared the threshold";
    sel.reason = why.str();
    return sel;
}

bool verificationFailedOnAaControl(const PairedGain& gain, const PairedGain& aaControl) {
    return gain.valid() && aaControl.valid() && gain.lowPercent > 0.0 &&
           !(gain.lowPercent > std::fabs(aaControl.gainPercent));
}

Selection applyVerification(Selection sel, const PairedGain& gain, const PairedGain& aaControl) {
    if (!sel.leftBaseline) return sel;
    sel.verificationRan = true;
    sel.verificationCandidate = sel.candidateIndex;
    sel.selectedOnGainPercent = sel.gainPercent;
    sel.selectedOnLowPercent = sel.lowPercent;
    sel.selectedOnHighPercent = sel.highPercent;
    std::ostringstream why;
    why.precision(2);
    why << std::fixed;
    const std::string regime = toString(sel.regime);
    const int candidate = sel.candidateIndex;
    const auto revert = [&] {
        // The fresh rounds cannot tell the verified finalist from the top: the top joins its tie set and is picked.
        if (gain.valid()) addTopToTieSet(sel, candidate, "verification", gain);
        sel.candidateIndex = sel.baselineIndex;
        sel.leftBaseline = false;
        sel.gainPercent = sel.lowPercent = sel.highPercent = 0.0;
        sel.reason = why.str();
        return sel;
    };
    if (!aaControl.valid() || !gain.valid()) {
        why << "candidate #" << candidate << " cleared " << sel.requiredGainPercent << "% in the confirm rounds ("
            << sel.selectedOnGainPercent << "% [" << sel.selectedOnLowPercent << ", " << sel.selectedOnHighPercent
            << "]) but its verification rounds did not complete; the heuristic top stays";
        return revert();
    }
    // Faster in the fresh rounds by more than identical work differs by in the same rounds (the A/A control).
    const double bar = std::max(0.0, std::fabs(aaControl.gainPercent));
    if (!(gain.lowPercent > bar)) {
        why << "candidate #" << candidate << " cleared " << sel.requiredGainPercent << "% in the confirm rounds ("
            << sel.selectedOnGainPercent << "% [" << sel.selectedOnLowPercent << ", " << sel.selectedOnHighPercent
            << "]) but not a fresh re-measurement: " << gain.gainPercent << "% [" << gain.lowPercent << ", "
            << gain.highPercent << "] in " << gain.rounds << " " << regime
            << " rounds after the selection (the lower end must clear the A/A control's " << aaControl.gainPercent
            << "%); the heuristic top stays";
        return revert();
    }
    sel.verified = true;
    if (!(gain.lowPercent > sel.requiredGainPercent)) addTopToTieSet(sel, candidate, "verification", gain);
    sel.gainPercent = gain.gainPercent;
    sel.lowPercent = gain.lowPercent;
    sel.highPercent = gain.highPercent;
    why << "candidate #" << candidate << " is " << gain.gainPercent << "% faster than the heuristic top [95% interval "
        << gain.lowPercent << ", " << gain.highPercent << "] in " << gain.rounds << " fresh " << regime
        << " rounds measured after it was selected (faster in " << gain.roundsFaster << "; A/A control "
        << aaControl.gainPercent << "% [" << aaControl.lowPercent << ", " << aaControl.highPercent
        << "]); it was selected on " << sel.selectedOnGainPercent << "% [" << sel.selectedOnLowPercent << ", "
        << sel.selectedOnHighPercent << "]";
    if (sel.topInTieSet)
        why << "; the fresh interval's lower end does not clear " << sel.requiredGainPercent
            << "%, so the heuristic top is declared a member of its tie set";
    sel.reason = why.str();
    return sel;
}

// ---------------------------------------------------------------------------------------------------------------
// Power
// ---------------------------------------------------------------------------------------------------------------

bool PowerWindow::powerLimited() const {
    if (readings > 0 && 2 * powerCapReadings >= readings) return true;
    return meanPowerW > 0 && powerLimitW > 0 && meanPowerW >= 0.97 * powerLimitW;
}

std::vector<std::string> clockEventReasonNames(std::uint64_t reasons) {
    // NVML's nvmlClocksEventReason* bits.
    static const std::pair<std::uint64_t, const char*> kNames[] = {
        {0x1, "gpu_idle"},           {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
        {0x8, "hw_slowdown"},        {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
        {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},  {0x100, "display_clock_setting"}};
    std::vector<std::string> names;
    std::uint64_t known = 0;
    for (const auto& [bit, name] : kNames) {
        known |= bit;
        if (reasons & bit) names.emplace_back(name);
    }
    if (reasons & ~known) {
        std::ostringstream other;
        other << "other_0x" << std::hex << (reasons & ~known);
        names.push_back(other.str());
    }
    return names;
}

PowerSummary summarizePower(const std::vector<Candidate>& candidates, int baselineIndex) {
    PowerSummary s;
    for (const Candidate& c : candidates) {
        if (!c.power || !c.power->error.empty()) continue;
        ++s.windows;
        s.powerLimitedWindows += c.power->powerLimited();
    }
    const bool haveBaseline = baselineIndex >= 0 && baselineIndex < int(candidates.size());
    const Candidate* base = haveBaseline ? &candidates[std::size_t(baselineIndex)] : nullptr;
    if (!base || !base->power || !base->power->error.empty() || base->power->meanPowerW <= 0) {
        s.note = s.windows ? "the heuristic top's power window has no power reading (NVML did not tell); power not judged"
                           : "no power windows were measured (NVML absent, or --power-window 0)";
        return s;
    }
    const PowerWindow& bp = *base->power;
    s.measured = true;
    s.powerLimited = bp.powerLimited();
    s.baselineJoulesPerLaunch = bp.joulesPerLaunch;
    s.baselineMeanPowerW = bp.meanPowerW;
    s.powerLimitW = bp.powerLimitW;
    s.baselineMegacycles = bp.megacyclesPerLaunch;
    for (const Candidate& c : candidates) {
        if (c.index == baselineIndex || !c.final || !c.power || !c.power->error.empty()) continue;
        if (s.fastestFinalist < 0 || c.final->medianMs < candidates[std::size_t(s.fastestFinalist)].final->medianMs)
            s.fastestFinalist = c.index;
    }
    std::ostringstream note;
    note.precision(1);
    note << std::fixed << "the heuristic top drew " << bp.meanPowerW << " W";
    if (bp.powerLimitW > 0) note << " of a " << bp.powerLimitW << " W limit";
    if (bp.meanSmClockMHz > 0) note << " at " << std::setprecision(0) << bp.meanSmClockMHz << " MHz";
    note << std::setprecision(1);
    if (s.powerLimited) {
        note << ": the card was power-limited (" << s.powerLimitedWindows << " of " << s.windows
             << " finalist windows), so a GEMM's time here is its energy over the limit and a config is faster only "
                "if it uses less energy per launch";
    } else {
        note << ": not power-limited, clocks were free to boost";
    }
    if (s.fastestFinalist >= 0) {
        const PowerWindow& fp = *candidates[std::size_t(s.fastestFinalist)].power;
        if (bp.joulesPerLaunch > 0 && fp.joulesPerLaunch > 0)
            s.energyChangePercent = 100.0 * (fp.joulesPerLaunch - bp.joulesPerLaunch) / bp.joulesPerLaunch;
        if (bp.megacyclesPerLaunch > 0 && fp.megacyclesPerLaunch > 0)
            s.cyclesChangePercent = 100.0 * (fp.megacyclesPerLaunch - bp.megacyclesPerLaunch) / bp.megacyclesPerLaunch;
        note << "; the fastest other finalist (#" << s.fastestFinalist << ") used " << std::showpos
             << s.energyChangePercent << "% energy and " << s.cyclesChangePercent << "% clock cycles per launch"
             << std::noshowpos << " against it";
        if (s.powerLimited && s.cyclesChangePercent < -1.0 && s.energyChangePercent > -1.0)
            note << " (fewer cycles at a higher power per cycle: at boost clocks it would be faster, under the limit "
                    "it is not)";
    }
    s.note = note.str();
    return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Guided search
// ---------------------------------------------------------------------------------------------------------------

std::string toString(SearchMove move) {
    switch (move) {
        case SearchMove::Cluster: return "cluster";
        case SearchMove::CustomOption: return "custom";
        case SearchMove::Swizzle: return "swizzle";
        case SearchMove::Stages: return "stages";
        case SearchMove::Tile: return "tile";
        case SearchMove::TileStages: return "tile x stages";
        case SearchMove::TileCluster: return "tile x cluster";
        case SearchMove::CustomCluster: return "custom x cluster";
        case SearchMove::StagesCluster: return "stages x cluster";
        case SearchMove::TileCustom: return "tile x custom";
        case SearchMove::SplitK: return "split-k";
        case SearchMove::OtherAlgorithms: return "other algorithms";
    }
    return "?";
}

namespace {

constexpr SearchMove kMoveOrder[] = {SearchMove::Cluster,      SearchMove::CustomOption,  SearchMove::Swizzle,
                                     SearchMove::Stages,       SearchMove::Tile,          SearchMove::TileStages,
                                     SearchMove::TileCluster,  SearchMove::CustomCluster, SearchMove::StagesCluster,
                                     SearchMove::TileCustom,   SearchMove::SplitK,        SearchMove::OtherAlgorithms};

std::vector<std::uint32_t> tilesOf(const AlgoCapabilities& caps) {
    return caps.tileIds.empty() ? std::vector<std::uint32_t>{0} : caps.tileIds;
}
std::vector<std::uint32_t> stagesOf(const AlgoCapabilities& caps) {
    return caps.stagesIds.empty() ? std::vector<std::uint32_t>{0} : caps.stagesIds;
}
std::vector<std::uint32_t> customsOf(const AlgoCapabilities& caps) {
    std::vector<std::uint32_t> out;
    for (int c = 0; c <= std::max(0, caps.customOptionMax); ++c) out.push_back(std::uint32_t(c));
    return out;
}

}  // namespace

std::vector<AlgoConfig> neighbours(const AlgoConfig& config, const AlgoCapabilities& caps, SearchMove move,
                                   const SearchOptions& options) {
    std::vector<AlgoConfig> out;
    const auto clusters = options.clusterShapeIds.empty() ? std::vector<std::uint16_t>{0} : options.clusterShapeIds;
    // Neighbours keep split-k 1 unless the move is about split-k: the explicit checks cover the rest.
    AlgoConfig base = config;
    if (move != SearchMove::SplitK && base.splitK != 1) {
        base.splitK = 1;
        base.reductionScheme = kReductionNone;
    }
    auto push = [&](const AlgoConfig& c) {
        if (c != config) out.push_back(c);
    };
    std::vector<std::uint32_t> tiles = tilesOf(caps);
    std::stable_sort(tiles.begin(), tiles.end(), [&](std::uint32_t a, std::uint32_t b) {
        return tileDistance(a, config.tileId) < tileDistance(b, config.tileId);
    });
    switch (move) {
        case SearchMove::Cluster:
            for (auto g : clusters) { AlgoConfig c = base; c.clusterShape = g; push(c); }
            break;
        case SearchMove::CustomOption:
            for (auto o : customsOf(caps)) { AlgoConfig c = base; c.customOption = o; push(c); }
            break;
        case SearchMove::Swizzle:
            for (std::uint32_t s = 0; s <= (caps.ctaSwizzleSupport ? 1u : 0u); ++s) {
                AlgoConfig c = base; c.ctaSwizzle = s; push(c);
            }
            break;
        case SearchMove::Stages:
            for (auto s : stagesOf(caps)) { AlgoConfig c = base; c.stagesId = s; push(c); }
            break;
        case SearchMove::Tile:
            for (auto t : tiles) { AlgoConfig c = base; c.tileId = t; push(c); }
            break;
        case SearchMove::TileStages:
            for (auto t : tiles)
                for (auto s : stagesOf(caps)) { AlgoConfig c = base; c.tileId = t; c.stagesId = s; push(c); }
            break;
        case SearchMove::TileCluster:
            for (auto t : tiles)
                for (auto g : clusters) { AlgoConfig c = base; c.tileId = t; c.clusterShape = g; push(c); }
            break;
        case SearchMove::CustomCluster:
            for (auto o : customsOf(caps))
                for (auto g : clusters) { AlgoConfig c = base; c.customOption = o; c.clusterShape = g; push(c); }
            break;
        case SearchMove::StagesCluster:
            for (auto s : stagesOf(caps))
                for (auto g : clusters) { AlgoConfig c = base; c.stagesId = s; c.clusterShape = g; push(c); }
            break;
        case SearchMove::TileCustom:
            for (auto t : tiles)
                for (auto o : customsOf(caps)) { AlgoConfig c = base; c.tileId = t; c.customOption = o; push(c); }
            break;
        case SearchMove::SplitK:
            if (caps.splitKSupport) {
                for (int split : options.splitKValues) {
                    for (std::uint32_t scheme : {kReductionInPlace, kReductionComputeType, kReductionOutputType}) {
                        if ((caps.reductionSchemeMask & scheme) == 0) continue;
                        AlgoConfig c = base; c.splitK = split; c.reductionScheme = scheme; push(c);
                    }
                }
            }
            break;
        case SearchMove::OtherAlgorithms:
            break;  // needs the other algorithms' capabilities: GuidedSearch::run generates these
    }
    return out;
}

Candidate checkedCandidate(int index, const AlgoConfig& config, const CheckResult& check, std::string source) {
    Candidate c;
    c.index = index;
    c.config = config;
    c.raw = check.raw;
    c.requiredWorkspaceBytes = check.requiredWorkspaceBytes;
    c.waves = check.waves;
    c.source = std::move(source);
    return c;
}

namespace {

// The OtherAlgorithms move: every tile and stages of the other algorithms, in the centre's cluster shape and in 0.
std::vector<AlgoConfig> otherAlgorithmProposals(const std::vector<SearchAlgorithm>& algorithms,
                                                const AlgoConfig& centre) {
    std::vector<AlgoConfig> proposals;
    for (const auto& algo : algorithms) {
        if (algo.algorithmId == centre.algorithmId || !algo.capabilities.read) continue;
        for (auto t : tilesOf(algo.capabilities))
            for (auto s : stagesOf(algo.capabilities))
                for (std::uint16_t g : {centre.clusterShape, std::uint16_t(0)}) {
                    AlgoConfig c;
                    c.algorithmId = algo.algorithmId;
                    c.tileId = t;
                    c.stagesId = s;
                    c.clusterShape = g;
                    proposals.push_back(c);
                }
    }
    return proposals;
}

struct CheckedProposals {
    std::vector<std::pair<AlgoConfig, CheckResult>> valid;  // passed AlgoCheck within the workspace cap
    std::uint64_t checked = 0, overCap = 0;
};

// The proposals not seen before, checked in order (each is seen from then on) until maxCandidatesPerMove are valid
// or the budget runs out.
CheckedProposals checkProposals(const std::vector<AlgoConfig>& proposals, std::set<AlgoConfig>& seen,
                                const GuidedSearch::CheckFn& check, const GuidedSearch::ClockFn& secondsLeft,
                                const SearchOptions& options, SearchStats& stats) {
    CheckedProposals out;
    for (const auto& p : proposals) {
        if (!seen.insert(p).second) continue;
        if ((out.checked & 255u) == 255u && secondsLeft() <= 0.0) break;
        ++out.checked;
        CheckResult r = check(p);
        ++stats.checks;
        if (!r.ok()) continue;
        ++stats.checksPassed;
        if (r.requiredWorkspaceBytes > options.workspaceCapBytes) {
            ++out.overCap;
            ++stats.overWorkspaceCap;
            continue;
        }
        out.valid.emplace_back(p, r);
        if (int(out.valid.size()) >= options.maxCandidatesPerMove) break;
    }
    return out;
}

// The next neighbourhood to expand: around the `centres` (best first), the first move not expanded yet, the
// OtherAlgorithms move once per algorithm. Centre -1 when every move around every centre is done.
std::pair<int, SearchMove> nextExpansion(const std::vector<Candidate>& candidates, const std::vector<int>& centres,
                                         std::map<AlgoConfig, std::set<SearchMove>>& expanded,
                                         const std::set<int>& otherAlgorithmsTried) {
    for (int id : centres) {
        const Candidate& c = candidates[std::size_t(id)];
        auto& done = expanded[c.config];
        for (SearchMove m : kMoveOrder) {
            if (done.count(m)) continue;
            if (m == SearchMove::OtherAlgorithms && otherAlgorithmsTried.count(c.config.algorithmId)) {
                done.insert(m);
                continue;
            }
            return {c.index, m};
        }
    }
    return {-1, SearchMove::Cluster};
}

}  // namespace

GuidedSearch::GuidedSearch(std::vector<SearchAlgorithm> algorithms, SearchOptions options)
    : algorithms_(std::move(algorithms)), options_(std::move(options)) {}

const AlgoCapabilities* GuidedSearch::capsOf(int algorithmId) const {
    for (const auto& a : algorithms_)
        if (a.algorithmId == algorithmId && a.capabilities.read) return &a.capabilities;
    return nullptr;
}

SearchStats GuidedSearch::run(std::vector<Candidate>& candidates, const CheckFn& check, const EvaluateFn& evaluate,
                              const ClockFn& secondsLeft, const std::function<bool(const Candidate&)>& eligible,
                              const ProgressFn& progress, const BeforeChecksFn& beforeChecks) {
    SearchStats stats;
    std::set<AlgoConfig> seen;
    for (const auto& c : candidates) seen.insert(c.config);
    std::map<AlgoConfig, std::set<SearchMove>> expanded;
    std::set<int> otherAlgorithmsTried;
    constexpr int kMaxConsecutiveFailures = 64;
    int consecutiveFailures = 0;

    auto usable = [&](const Candidate& c) { return c.error.empty() && c.firstPass && eligible(c); };
    auto bestMs = [&]() {
        double best = std::numeric_limits<double>::infinity();
        for (const auto& c : candidates)
            if (usable(c)) best = std::min(best, c.firstPass->rankMs());
        return best;
    };
    auto say = [&](const std::string& line) {
        stats.log.push_back(line);
        if (progress) progress(line);
    };

    while (true) {
        if (secondsLeft() <= 0.0) {
            stats.budgetExhausted = true;
            break;
        }
        // Centres: the best usable candidates, fastest first, as many as the beam is wide (those whose algorithm's
        // capabilities are unknown are never expanded).
        std::vector<int> ranked;
        for (const auto& c : candidates)
            if (usable(c)) ranked.push_back(c.index);
        std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) {
            return candidates[std::size_t(a)].firstPass->rankMs() < candidates[std::size_t(b)].firstPass->rankMs();
        });
        const int beam = std::max(1, options_.beamWidth);
        if (int(ranked.size()) > beam) ranked.resize(std::size_t(beam));
        std::erase_if(ranked, [&](int id) { return !capsOf(candidates[std::size_t(id)].config.algorithmId); });
        const auto [centre, move] = nextExpansion(candidates, ranked, expanded, otherAlgorithmsTried);
        if (centre < 0) {
            say("search: every neighbourhood of the best " + std::to_string(beam) + " configurations is explored");
            break;
        }
        const AlgoConfig centreConfig = candidates[std::size_t(centre)].config;
        expanded[centreConfig].insert(move);
        ++stats.expansions;

        // Generate.
        std::vector<AlgoConfig> proposals;
        if (move == SearchMove::OtherAlgorithms) {
            otherAlgorithmsTried.insert(centreConfig.algorithmId);
            proposals = otherAlgorithmProposals(algorithms_, centreConfig);
        } else {
            proposals = neighbours(centreConfig, *capsOf(centreConfig.algorithmId), move, options_);
        }

        // Check.
        if (beforeChecks) {
            std::size_t fresh = 0;
            for (const auto& p : proposals) fresh += seen.count(p) ? 0 : 1;
            if (fresh > 0) beforeChecks(fresh);
        }
        const CheckedProposals checked = checkProposals(proposals, seen, check, secondsLeft, options_, stats);
        const auto& valid = checked.valid;

        // Time, in back-to-back batches.
        const double before = bestMs();
        int timed = 0, better = 0;
        bool interrupted = false;
        const std::size_t batchSize = std::size_t(std::max(1, options_.batchSize));
        for (std::size_t first = 0; first < valid.size(); first += batchSize) {
            if (secondsLeft() <= 0.0) {
                stats.budgetExhausted = true;
                break;
            }
            if (consecutiveFailures >= kMaxConsecutiveFailures) break;
            std::vector<Candidate> batch;
            for (std::size_t i = first; i < std::min(valid.size(), first + batchSize); ++i)
                batch.push_back(checkedCandidate(int(candidates.size() + batch.size()), valid[i].first,
                                                 valid[i].second, toString(move) + " of #" + std::to_string(centre)));
            evaluate(batch);
            for (auto& c : batch) {
                ++stats.timed;
                ++timed;
                if (!c.error.empty() || !c.firstPass) {
                    ++stats.launchFailures;
                    ++consecutiveFailures;
                } else {
                    consecutiveFailures = 0;
                }
                if (usable(c) && c.firstPass->rankMs() < before) ++better;
                candidates.push_back(std::move(c));
            }
            // A faster configuration moves the centre at once; the rest of this move stays open for later.
            if (better > 0 && first + batchSize < valid.size()) {
                for (std::size_t i = first + batchSize; i < valid.size(); ++i) seen.erase(valid[i].first);
                expanded[centreConfig].erase(move);
                interrupted = true;
                break;
            }
        }
        std::ostringstream line;
        line.precision(4);
        line << "expand #" << centre << " (" << std::fixed
             << (candidates[std::size_t(centre)].firstPass ? candidates[std::size_t(centre)].firstPass->rankMs() : 0.0)
             << " ms) by " << toString(move) << ": " << proposals.size() << " proposed, " << checked.checked
             << " checked, " << valid.size() << " valid within the workspace cap (" << checked.overCap << " over it), "
             << timed
             << " timed, " << better << " faster than the best before; best now " << bestMs() << " ms"
             << (interrupted ? " (move interrupted: re-centring on the faster configuration)" : "");
        say(line.str());
        if (stats.budgetExhausted) break;
        if (consecutiveFailures >= kMaxConsecutiveFailures) {
            // A device that fails every launch (e.g. after a sticky CUDA error) will not recover in this process.
            say("search stopped: " + std::to_string(consecutiveFailures) + " launches in a row failed");
            stats.stoppedByFailures = true;
            break;
        }
    }
    return stats;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------------------------

Json algoConfigToJson(const AlgoConfig& c, bool withNames) {
    Json j;
    j["algorithm_id"] = c.algorithmId;
    j["tile_id"] = c.tileId;
    j["stages_id"] = c.stagesId;
    j["split_k"] = c.splitK;
    j["reduction_scheme"] = c.reductionScheme;
    j["custom_option"] = c.customOption;
    j["cta_swizzle"] = c.ctaSwizzle;
    j["inner_shape"] = c.innerShape;
    j["cluster_shape"] = c.clusterShape;
    if (withNames) {
        j["tile"] = gemm_enums::nameOr(gemm_enums::tileName(c.tileId), c.tileId);
        j["stages"] = gemm_enums::nameOr(gemm_enums::stagesName(c.stagesId), c.stagesId);
        j["reduction"] = reductionSchemeName(c.reductionScheme);
        j["cluster"] = gemm_enums::nameOr(gemm_enums::clusterShapeName(c.clusterShape), c.clusterShape);
    }
    return j;
}

namespace {

const Json& member(const Json& object, const char* key, const std::string& file, const std::string& path) {
    if (!object.is_object()) throw Error(file, path, "expected an object, found " + jsonTypeName(object));
    auto it = object.find(key);
    if (it == object.end()) throw Error(file, jsonPointerAppend(path, key), std::string("missing '") + key + "'");
    return *it;
}

template <typename T>
T integerAt(const Json& object, const char* key, const std::string& file, const std::string& path,
            std::optional<T> whenNull = std::nullopt) {
    const Json& v = member(object, key, file, path);
    const std::string p = jsonPointerAppend(path, key);
    if (v.is_null() && whenNull) return *whenNull;
    if (!v.is_number_integer()) throw Error(file, p, "expected an integer, found " + jsonTypeName(v));
    const long long value = v.get<long long>();
    if (value < static_cast<long long>(std::numeric_limits<T>::min()) ||
        (value > 0 && static_cast<unsigned long long>(value) > static_cast<unsigned long long>(std::numeric_limits<T>::max())))
        throw Error(file, p, std::to_string(value) + " is out of range");
    return static_cast<T>(value);
}

double numberAt(const Json& object, const char* key, const std::string& file, const std::string& path) {
    const Json& v = member(object, key, file, path);
    if (!v.is_number()) throw Error(file, jsonPointerAppend(path, key), "expected a number, found " + jsonTypeName(v));
    return v.get<double>();
}

std::string stringAt(const Json& object, const char* key, const std::string& file, const std::string& path) {
    const Json& v = member(object, key, file, path);
    if (!v.is_string()) throw Error(file, jsonPointerAppend(path, key), "expected a string, found " + jsonTypeName(v));
    return v.get<std::string>();
}

std::vector<std::uint32_t> idListAt(const Json& object, const char* key, const std::string& file,
                                    const std::string& path) {
    std::vector<std::uint32_t> out;
    if (!object.contains(key)) return out;
    const Json& v = object.at(key);
    const std::string p = jsonPointerAppend(path, key);
    if (!v.is_array()) throw Error(file, p, "expected an array, found " + jsonTypeName(v));
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_integer() || v[i].get<long long>() < 0)
            throw Error(file, jsonPointerAppend(p, i), "expected a non-negative integer, found " + jsonTypeName(v[i]));
        out.push_back(v[i].get<std::uint32_t>());
    }
    return out;
}

}  // namespace

AlgoConfig algoConfigFromJson(const Json& value, const std::string& file, const std::string& path) {
    AlgoConfig c;
    c.algorithmId = integerAt<int>(value, "algorithm_id", file, path);
    c.tileId = integerAt<std::uint32_t>(value, "tile_id", file, path);
    c.stagesId = integerAt<std::uint32_t>(value, "stages_id", file, path);
    c.splitK = integerAt<std::int32_t>(value, "split_k", file, path);
    c.reductionScheme = integerAt<std::uint32_t>(value, "reduction_scheme", file, path);
    c.customOption = integerAt<std::uint32_t>(value, "custom_option", file, path);
    c.ctaSwizzle = integerAt<std::uint32_t>(value, "cta_swizzle", file, path);
    // The seed (a GB10 run) wrote null for shapes its tool could not read; null means "not set" (0).
    c.innerShape = value.contains("inner_shape")
                       ? integerAt<std::uint16_t>(value, "inner_shape", file, path, std::uint16_t(0)) : 0;
    c.clusterShape = value.contains("cluster_shape")
                         ? integerAt<std::uint16_t>(value, "cluster_shape", file, path, std::uint16_t(0)) : 0;
    return c;
}

Json capabilitiesToJson(const AlgoCapabilities& caps) {
    Json j;
    if (!caps.read) {
        j["error"] = caps.error;
        return j;
    }
    j["split_k_support"] = caps.splitKSupport;
    j["reduction_scheme_mask"] = caps.reductionSchemeMask;
    j["cta_swizzle_support"] = caps.ctaSwizzleSupport;
    j["custom_option_max"] = caps.customOptionMax;
    j["strided_batch_support"] = caps.stridedBatchSupport;
    j["out_of_place_result_support"] = caps.outOfPlaceResultSupport;
    j["tile_ids"] = caps.tileIds;
    j["stages_ids"] = caps.stagesIds;
    j["inner_cluster_shape_capability_note"] =
        "This CUDA 13 cublasLt.h exposes config IDs but no public capability attributes that enumerate inner/cluster "
        "shape IDs.";
    j["uplo_support"] = caps.uploSupport;
    j["custom_memory_order"] = caps.customMemoryOrder;
    j["pointer_mode_mask"] = caps.pointerModeMask;
    j["epilogue_mask"] = caps.epilogueMask;
    j["ld_negative"] = caps.ldNegative;
    j["numerical_impl_flags"] = caps.numericalImplFlags;
    j["min_alignment_bytes"] = {{"a", caps.minAlignmentABytes}, {"b", caps.minAlignmentBBytes},
                                {"c", caps.minAlignmentCBytes}, {"d", caps.minAlignmentDBytes}};
    return j;
}

AlgoCapabilities capabilitiesFromJson(const Json& value, const std::string& file, const std::string& path) {
    AlgoCapabilities caps;
    if (!value.is_object()) throw Error(file, path, "expected an object, found " + jsonTypeName(value));
    if (value.contains("error") && !value.contains("split_k_support")) {
        caps.error = stringAt(value, "error", file, path);
        return caps;
    }
    caps.read = true;
    caps.splitKSupport = integerAt<int>(value, "split_k_support", file, path);
    caps.reductionSchemeMask = integerAt<std::uint32_t>(value, "reduction_scheme_mask", file, path);
    caps.ctaSwizzleSupport = integerAt<std::uint32_t>(value, "cta_swizzle_support", file, path);
    caps.customOptionMax = integerAt<int>(value, "custom_option_max", file, path);
    caps.stridedBatchSupport = integerAt<int>(value, "strided_batch_support", file, path);
    caps.outOfPlaceResultSupport = integerAt<int>(value, "out_of_place_result_support", file, path);
    caps.tileIds = idListAt(value, "tile_ids", file, path);
    caps.stagesIds = idListAt(value, "stages_ids", file, path);
    if (value.contains("uplo_support")) caps.uploSupport = integerAt<int>(value, "uplo_support", file, path);
    if (value.contains("custom_memory_order"))
        caps.customMemoryOrder = integerAt<int>(value, "custom_memory_order", file, path);
    if (value.contains("pointer_mode_mask"))
        caps.pointerModeMask = integerAt<std::uint32_t>(value, "pointer_mode_mask", file, path);
    if (value.contains("epilogue_mask")) caps.epilogueMask = integerAt<std::uint32_t>(value, "epilogue_mask", file, path);
    if (value.contains("ld_negative")) caps.ldNegative = integerAt<int>(value, "ld_negative", file, path);
    if (value.contains("numerical_impl_flags"))
        caps.numericalImplFlags = integerAt<std::uint64_t>(value, "numerical_impl_flags", file, path);
    if (value.contains("min_alignment_bytes")) {
        const Json& a = value.at("min_alignment_bytes");
        const std::string ap = jsonPointerAppend(path, "min_alignment_bytes");
        caps.minAlignmentABytes = integerAt<std::uint32_t>(a, "a", file, ap);
        caps.minAlignmentBBytes = integerAt<std::uint32_t>(a, "b", file, ap);
        caps.minAlignmentCBytes = integerAt<std::uint32_t>(a, "c", file, ap);
        caps.minAlignmentDBytes = integerAt<std::uint32_t>(a, "d", file, ap);
    }
    return caps;
}

namespace {

Json heuristicAlgoToJson(const HeuristicAlgo& a, std::uint64_t version) {
    Json j = algoConfigToJson(a.config, false);
    j["required_workspace_bytes"] = a.requiredWorkspaceBytes;
    j["waves"] = a.waves;
    j["state"] = a.state;
    j["api_status"] = a.apiStatus;
    j["valid"] = a.state == 0 && a.apiStatus == 0;
    j["capabilities"] = capabilitiesToJson(a.capabilities);
    j["tile"] = gemm_enums::nameOr(gemm_enums::tileName(a.config.tileId), a.config.tileId);
    j["stages"] = gemm_enums::nameOr(gemm_enums::stagesName(a.config.stagesId), a.config.stagesId);
    j["cluster"] = gemm_enums::nameOr(gemm_enums::clusterShapeName(a.config.clusterShape), a.config.clusterShape);
    j["raw_algo_hex"] = rawAlgoToHex(a.raw);
    j["cublaslt_version"] = version;
    return j;
}

}  // namespace

Json heuristicSetToJson(const HeuristicSet& set, std::uint64_t cublasLtVersion) {
    Json j;
    j["max_workspace_bytes"] = set.maxWorkspaceBytes;
    j["requested_count"] = set.requestedCount;
    j["returned_count"] = set.returnedCount;
    j["api_status"] = set.apiStatus;
    if (!set.error.empty()) j["error"] = set.error;
    Json algos = Json::array();
    for (const auto& a : set.algorithms) algos.push_back(heuristicAlgoToJson(a, cublasLtVersion));
    j["algorithms"] = std::move(algos);
    return j;
}

HeuristicSet heuristicSetFromJson(const Json& value, const std::string& file, const std::string& path) {
    HeuristicSet set;
    set.maxWorkspaceBytes = integerAt<std::uint64_t>(value, "max_workspace_bytes", file, path);
    set.requestedCount = integerAt<int>(value, "requested_count", file, path);
    set.returnedCount = integerAt<int>(value, "returned_count", file, path);
    if (value.contains("api_status")) set.apiStatus = integerAt<int>(value, "api_status", file, path);
    if (value.contains("error") && value.at("error").is_string()) set.error = value.at("error").get<std::string>();
    const Json& algos = member(value, "algorithms", file, path);
    const std::string ap = jsonPointerAppend(path, "algorithms");
    if (!algos.is_array()) throw Error(file, ap, "expected an array, found " + jsonTypeName(algos));
    for (std::size_t i = 0; i < algos.size(); ++i) {
        const std::string p = jsonPointerAppend(ap, i);
        HeuristicAlgo a;
        a.config = algoConfigFromJson(algos[i], file, p);
        a.requiredWorkspaceBytes = integerAt<std::uint64_t>(algos[i], "required_workspace_bytes", file, p);
        a.waves = numberAt(algos[i], "waves", file, p);
        a.state = integerAt<int>(algos[i], "state", file, p);
        if (algos[i].contains("api_status")) a.apiStatus = integerAt<int>(algos[i], "api_status", file, p);
        if (algos[i].contains("capabilities"))
            a.capabilities = capabilitiesFromJson(algos[i].at("capabilities"), file, jsonPointerAppend(p, "capabilities"));
        if (algos[i].contains("raw_algo_hex"))
            a.raw = rawAlgoFromHex(stringAt(algos[i], "raw_algo_hex", file, p), file,
                                   jsonPointerAppend(p, "raw_algo_hex"));
        set.algorithms.push_back(std::move(a));
    }
    if (set.returnedCount != int(set.algorithms.size()))
        throw Error(file, jsonPointerAppend(path, "returned_count"),
                    "returned_count " + std::to_string(set.returnedCount) + " but " +
                        std::to_string(set.algorithms.size()) + " algorithms are listed");
    return set;
}

namespace {

Json parityToJson(const OutputParity& p) {
    if (!p.checked) return nullptr;
    Json j;
    j["output_sha256"] = p.sha256;
    j["bitwise_equal_to_baseline"] = p.bitwiseEqualToBaseline;
    j["differing_elements"] = p.differingElements;
    j["max_abs_error"] = p.maxAbsError;
    j["max_rel_error"] = p.maxRelError;
    j["finite"] = p.finite;
    return j;
}

Json finalToJson(const FinalMeasurement& f) {
    Json j;
    j["median_ms"] = f.medianMs;
    j["p20_ms"] = f.p20Ms;
    j["p80_ms"] = f.p80Ms;
    j["noise"] = f.noise;
    j["samples"] = f.samples;
    j["mean_sm_clock_mhz"] = f.meanSmClockMHz;
    j["verdict_vs_baseline"] = f.verdictVsBaseline.empty() ? Json(nullptr) : Json(f.verdictVsBaseline);
    return j;
}

// -1 (not told) is written as null.
Json knownOrNull(double value) { return value >= 0 ? Json(value) : Json(nullptr); }

Json pairedGainToJson(const PairedGain& g) {
    if (!g.valid()) return nullptr;
    return {{"rounds", g.rounds},
            {"gain_percent", g.gainPercent},
            {"interval_95_percent", Json::array({g.lowPercent, g.highPercent})},
            {"interval_99_percent", Json::array({g.low99Percent, g.high99Percent})},
            {"rounds_faster", g.roundsFaster}};
}

Json knownList(const std::vector<double>& values) {
    Json list = Json::array();
    for (double v : values) list.push_back(knownOrNull(v));
    return list;
}

Json regimeToJson(const RegimeMeasurement& m) {
    return {{"regime", toString(m.regime)},
            {"median_ms", m.medianMs()},
            {"ms_per_round", m.msPerRound},
            {"top_ms_per_round", m.topMsPerRound},
            {"joules_per_launch_per_round", knownList(m.joulesPerRound)},
            {"sm_clock_mhz_per_round", knownList(m.smClockMHzPerRound)},
            {"vs_top", pairedGainToJson(m.vsTop)}};
}

Json candidateToJson(const Candidate& c, double flops) {
    Json j;
    j["index"] = c.index;
    j["source"] = c.source;
    const Json config = algoConfigToJson(c.config);
    for (const auto& [key, value] : config.items()) j[key] = value;
    j["raw_algo_hex"] = rawAlgoToHex(c.raw);
    j["required_workspace_bytes"] = c.requiredWorkspaceBytes;
    j["waves"] = c.waves;
    if (c.firstPass) {
        j["first_pass"] = {{"samples_ms", c.firstPass->samplesMs},
                           {"median_ms", c.firstPass->medianMs},
                           {"warmups", c.firstPass->warmups},
                           {"sm_clock_mhz", c.firstPass->smClockMHz},
                           {"tflops", c.firstPass->medianMs > 0 ? flops / (c.firstPass->medianMs * 1e9) : 0.0}};
    } else {
        j["first_pass"] = nullptr;
    }
    if (c.firstPass && c.firstPass->relativeToTop > 0) j["first_pass"]["relative_to_top"] = c.firstPass->relativeToTop;
    if (c.screen) j["screen"] = {{"ratios_to_top", c.screen->ratios}, {"score", c.screen->score}};
    j["final"] = c.final ? finalToJson(*c.final) : Json(nullptr);
    if (c.sustained || c.burst)
        j["confirm"] = {{"sustained", c.sustained ? regimeToJson(*c.sustained) : Json(nullptr)},
                        {"burst", c.burst ? regimeToJson(*c.burst) : Json(nullptr)}};
    if (c.power) j["power"] = powerWindowToJson(*c.power);
    j["parity"] = parityToJson(c.parity);
    j["error"] = c.error.empty() ? Json(nullptr) : Json(c.error);
    return j;
}

std::string platformString(const GemmEnvironment& env) { return env.platform; }

}  // namespace

Json powerWindowToJson(const PowerWindow& w) {
    Json j;
    j["launches"] = w.launches;
    j["seconds"] = w.seconds;
    j["ms_per_launch"] = w.msPerLaunch;
    j["joules_per_launch"] = knownOrNull(w.joulesPerLaunch);
    j["mean_power_w"] = knownOrNull(w.meanPowerW);
    j["mean_power_reading_w"] = knownOrNull(w.meanPowerReadingW);
    j["power_limit_w"] = knownOrNull(w.powerLimitW);
    j["mean_sm_clock_mhz"] = knownOrNull(w.meanSmClockMHz);
    j["megacycles_per_launch"] = knownOrNull(w.megacyclesPerLaunch);
    j["clock_event_reasons"] = w.clockEventReasons;
    j["clock_event_reason_names"] = clockEventReasonNames(w.clockEventReasons);
    j["readings"] = w.readings;
    j["power_cap_readings"] = w.powerCapReadings;
    j["power_limited"] = w.powerLimited();
    j["error"] = w.error.empty() ? Json(nullptr) : Json(w.error);
    return j;
}

namespace {

// The report's sections, in the order buildExplorerReport writes them.

Json environmentToJson(const GemmEnvironment& env) {
    Json environment;
    environment["platform"] = platformString(env);
    environment["device"] = env.device;
    environment["device_capability"] = Json::array({env.ccMajor, env.ccMinor});
    environment["driver"] = env.driver.empty() ? Json(nullptr) : Json(env.driver);
    environment["git_commit"] = gitSha();
    environment["multiprocessors"] = env.multiprocessors;
    environment["l2_bytes"] = env.l2Bytes;
    environment["memory_bytes"] = env.memoryBytes;
    environment["max_sm_clock_mhz"] = env.clockMHz;
    environment["cluster_launch"] = env.clusterLaunch;
    environment["extension"] = {
        {"cuda_version", env.compiledCudaVersion},
        {"cublas_version", env.compiledCublasVersion},
        {"cuda_runtime_version", env.cudaRuntimeVersion},
        {"cublaslt_runtime_version", env.cublasLtVersion},
        {"cublaslt_cudart_version", env.cublasLtCudartVersion},
        {"cuda_driver_api_version", env.driverApiVersion},
        {"stream_k_public_control", false},
        {"stream_k_note", kStreamKNote}};
    return environment;
}

Json workloadToJson(const ExplorationResult& r) {
    Json workload;
    workload["gemm"] = gemmSpecToJson(r.spec);
    workload["tokens"] = r.spec.logicalM();
    workload["data"] = {{"seed", r.dataSeed},
                        {"distribution", "uniform magnitude in [1/16, 1] with random sign: never zero"},
                        {"cold_l2", r.coldL2},
                        {"timer", r.timer},
                        {"rotating_input_sets", r.rotatingBufferSets},
                        {"rotating_input_bytes", r.rotatingBytes},
                        {"reference", "FP32 GEMM on the GPU over the same (dequantised) inputs"},
                        {"parity_region", "logical M x N block of the BF16 output, row by row of Y"}};
    return workload;
}

Json baselineToJson(const ExplorationResult& r) {
    Json baseline;
    if (r.baselineIndex >= 0 && r.baselineIndex < int(r.candidates.size())) {
        const Candidate& b = r.candidates[std::size_t(r.baselineIndex)];
        baseline["path"] = "cuBLASLt heuristic top at the largest workspace cap";
        baseline["workspace_bytes"] = r.baselineWorkspaceBytes;
        baseline["config"] = algoConfigToJson(b.config);
        baseline["raw_algo_hex"] = rawAlgoToHex(b.raw);
        baseline["candidate_index"] = b.index;
        baseline["output_sha256"] = b.parity.checked ? Json(b.parity.sha256) : Json(nullptr);
    }
    baseline["descriptors"] = {{"packed_input_output", gemmSpecToJson(r.spec)["row_major_problem"]},
                               {"compute_and_scale", "FP32"},
                               {"scalar_pointer_mode", "host"},
                               {"bias", nullptr},
                               {"beta", 0.0}};
    return baseline;
}

Json splitKCheckToJson(const SplitKCheck& s) {
    Json j = algoConfigToJson(s.requested, false);
    j["required_workspace_bytes"] = s.result.requiredWorkspaceBytes;
    j["waves"] = s.result.waves;
    j["state"] = s.result.apiStatus;
    j["api_status"] = s.result.apiStatus;
    j["valid"] = s.result.ok();
    j["capabilities"] = capabilitiesToJson(s.capabilities);
    j["requested_config"] = algoConfigToJson(s.requested, false);
    j["failed_call"] = s.result.failedCall.empty() ? Json(nullptr) : Json(s.result.failedCall);
    j["status_name"] = statusName(s.result.apiStatus);
    j["workspace_cap_bytes"] = s.workspaceCapBytes;
    j["over_workspace_cap"] = s.overWorkspaceCap();
    j["reduction"] = reductionSchemeName(s.requested.reductionScheme);
    j["reduced_precision"] = s.reducedPrecision();
    std::string note;
    if (!s.result.ok())
        note = "invalid: " + statusName(s.result.apiStatus) + " from " + s.result.failedCall;
    else if (s.overWorkspaceCap())
        note = "needs " + std::to_string(s.result.requiredWorkspaceBytes) + " bytes of workspace (cap " +
               std::to_string(s.workspaceCapBytes) + ")";
    else
        note = "valid within the workspace cap";
    if (s.reducedPrecision()) note += "; OUTPUT_TYPE reduction keeps partial sums in BF16: reduced precision";
    j["note"] = note;
    j["raw_algo_hex"] = s.result.ok() ? Json(rawAlgoToHex(s.result.raw)) : Json(nullptr);
    return j;
}

Json searchToJson(const ExplorationResult& r) {
    Json search;
    search["budget_seconds"] = r.budgetSeconds;
    search["seconds"] = r.stats.seconds;
    search["budget_exhausted"] = r.stats.budgetExhausted;
    search["stopped_by_failures"] = r.stats.stoppedByFailures;
    search["checks"] = r.stats.checks;
    search["checks_passed"] = r.stats.checksPassed;
    search["over_workspace_cap"] = r.stats.overWorkspaceCap;
    search["timed"] = r.stats.timed;
    search["launch_failures"] = r.stats.launchFailures;
    search["expansions"] = r.stats.expansions;
    search["order"] = "heuristic answers first; then, around the fastest configurations (beam), single moves "
                      "(cluster, custom, swizzle, stages, tile), pairs (tile x stages, tile x cluster, custom x "
                      "cluster, stages x cluster, tile x custom), split-k, other algorithm ids";
    search["first_pass"] = "batches of candidates run back to back on the GPU (no host round trip between them), the "
                           "heuristic top between every 4 candidates: per item untimed warm-up launches (about 25 ms "
                           "of work), then 3 cold-L2 samples, timed by workload.data.timer (events bracket them with either timer); each candidate ranked by its median "
                           "over its neighbouring top items; the GPU is kept busy while the host checks configurations";
    search["finalists"] = r.finalistMethod;
    if (!r.siblings.of.empty())
        search["siblings"] = {{"of", r.siblings.of},
                              {"generated", r.siblings.generated},
                              {"checked", r.siblings.checked},
                              {"added", r.siblings.added},
                              {"retimed", r.siblings.retimed},
                              {"finalists", r.siblings.finalists},
                              {"best", r.siblings.best},
                              {"best_ratios", r.siblings.bestRatios}};
    Json algos = Json::array();
    for (const auto& a : r.algorithms)
        algos.push_back({{"algorithm_id", a.algorithmId}, {"capabilities", capabilitiesToJson(a.capabilities)}});
    search["algorithms"] = std::move(algos);
    search["log"] = r.stats.log;
    return search;
}

// The tie set of the selection rule (kTieRule), null when no finalist was confirmed.
Json tiesToJson(const ExplorationResult& r) {
    const Selection& s = r.selection;
    if (s.tieAnchor < 0 || s.tieAnchor >= int(r.candidates.size())) return nullptr;
    Json members = Json::array();
    for (std::size_t i = 0; i < s.tieSet.size(); ++i) {
        const Candidate& c = r.candidates[std::size_t(s.tieSet[i])];
        Json member = algoConfigToJson(c.config);
        member["candidate_index"] = c.index;
        member["raw_algo_hex"] = rawAlgoToHex(c.raw);
        if (s.tieSet[i] == s.baselineIndex) {
            member["heuristic_top"] = true;
            member["gain_percent"] = 0.0;
            member["cleared"] = false;
            member["anchor_gain_over_it"] = nullptr;
            member["tied_by"] = {{"candidate_index", s.topTieCandidate},
                                 {"rounds", s.topTieStage},
                                 {"gain_over_it", pairedGainToJson(s.topTieGain)}};
            members.push_back(std::move(member));
            continue;
        }
        const auto& m = s.regime == Regime::Burst ? c.burst : c.sustained;
        member["gain_percent"] = m ? Json(m->vsTop.gainPercent) : Json(nullptr);
        member["interval_95_percent"] = m ? Json::array({m->vsTop.lowPercent, m->vsTop.highPercent}) : Json(nullptr);
        member["cleared"] = m && m->vsTop.lowPercent > s.requiredGainPercent;
        member["anchor_gain_over_it"] = i < s.tieAnchorOver.size() ? pairedGainToJson(s.tieAnchorOver[i]) : Json(nullptr);
        members.push_back(std::move(member));
    }
    return {{"rule", kTieRule},
            {"regime", toString(s.regime)},
            {"threshold_percent", s.requiredGainPercent},
            {"anchor_candidate_index", s.tieAnchor},
            {"picked_candidate_index", s.leftBaseline || s.topInTieSet ? Json(s.candidateIndex) : Json(nullptr)},
            {"members", std::move(members)}};
}

// The selection with its rule; null when nothing was selected (the exploration stopped early).
Json selectedToJson(const ExplorationResult& r) {
    const Selection& s = r.selection;
    if (s.candidateIndex < 0 || s.candidateIndex >= int(r.candidates.size())) return nullptr;
    const Candidate& c = r.candidates[std::size_t(s.candidateIndex)];
    Json selected = algoConfigToJson(c.config);
    selected["raw_algo_hex"] = rawAlgoToHex(c.raw);
    selected["cublaslt_version"] = r.environment.cublasLtVersion;
    selected["workspace_bytes"] = r.baselineWorkspaceBytes;
    selected["required_workspace_bytes"] = c.requiredWorkspaceBytes;
    selected["candidate_index"] = c.index;
    selected["baseline_candidate_index"] = s.baselineIndex;
    selected["median_ms"] = c.final ? Json(c.final->medianMs) : Json(nullptr);
    const Candidate& b = r.candidates[std::size_t(s.baselineIndex)];
    selected["baseline_median_ms"] = b.final ? Json(b.final->medianMs) : Json(nullptr);
    selected["improvement_percent"] = s.gainPercent;
    selected["improvement_interval_95_percent"] =
        s.leftBaseline ? Json::array({s.lowPercent, s.highPercent}) : Json(nullptr);
    selected["regime"] = toString(s.regime);
    selected["required_improvement_percent"] = s.requiredGainPercent;
    selected["left_baseline"] = s.leftBaseline;
    selected["too_noisy"] = s.tooNoisy;
    if (c.sustained && c.sustained->vsTop.valid()) selected["sustained"] = pairedGainToJson(c.sustained->vsTop);
    if (c.burst && c.burst->vsTop.valid()) selected["burst"] = pairedGainToJson(c.burst->vsTop);
    selected["reason"] = s.reason;
    selected["verified"] = s.verified;
    if (s.verificationRan)
        selected["selected_on"] = {{"gain_percent", s.selectedOnGainPercent},
                                   {"interval_95_percent", {s.selectedOnLowPercent, s.selectedOnHighPercent}}};
    selected["output_sha256"] = c.parity.checked ? Json(c.parity.sha256) : Json(nullptr);
    selected["bitwise_equal_to_baseline"] = c.parity.bitwiseEqualToBaseline;
    if (s.leftBaseline || s.topInTieSet) selected["ties"] = tiesToJson(r);
    selected["rule"] = {{"exact_parity", r.rule.exactParity},
                        {"error_bound", r.rule.exactParity ? Json(nullptr) : Json(r.rule.errorBound)},
                        {"noise_threshold", r.rule.noiseThreshold},
                        {"regime", toString(r.rule.regime)},
                        {"criterion", "the lower end of the paired gain's 95% interval above noise_threshold, and "
                                      "the A/A control's interval containing 0"}};
    return selected;
}

Json confirmToJson(const ExplorationResult& r) {
    const Selection& s = r.selection;
    Json confirm;
    const ConfirmSettings& cs = r.confirmSettings;
    confirm["settings"] = {{"rounds", cs.rounds},
                           {"block_seconds", cs.blockSeconds},
                           {"warmup_seconds", cs.warmupSeconds},
                           {"preheat_seconds", cs.preheatSeconds},
                           {"burst_rounds", cs.burstRounds},
                           {"burst_idle_seconds", cs.burstIdleSeconds},
                           {"burst_launches", cs.burstLaunches},
                           {"extra_rounds", cs.extraRounds},
                           {"extra_max_entries", cs.extraMaxEntries},
                           {"verify_rounds", cs.verifyRounds}};
    confirm["extended"] = {{"sustained", r.extendedSustained}, {"burst", r.extendedBurst}};
    confirm["screen_passes"] = r.screenPasses;
    confirm["regime"] = toString(r.rule.regime);
    confirm["aa_control"] = {{"sustained", r.aaSustained ? regimeToJson(*r.aaSustained) : Json(nullptr)},
                             {"burst", r.aaBurst ? regimeToJson(*r.aaBurst) : Json(nullptr)}};
    confirm["too_noisy"] = s.tooNoisy;
    Json discarded = Json::array();
    for (const RegimeMeasurement& m : r.discardedAaControls) discarded.push_back(pairedGainToJson(m.vsTop));
    confirm["discarded_aa_controls"] = std::move(discarded);
    confirm["heuristic_finalists"] = r.heuristicFinalists;
    const bool haveAlternative = s.bestAlternative >= 0 && s.bestAlternative < int(r.candidates.size());
    confirm["best_alternative_index"] = haveAlternative ? Json(s.bestAlternative) : Json(nullptr);
    if (haveAlternative) {
        const Candidate& a = r.candidates[std::size_t(s.bestAlternative)];
        confirm["best_alternative"] = algoConfigToJson(a.config);
        confirm["best_alternative"]["raw_algo_hex"] = rawAlgoToHex(a.raw);
        confirm["best_alternative"]["sustained"] = a.sustained ? pairedGainToJson(a.sustained->vsTop) : Json(nullptr);
        confirm["best_alternative"]["burst"] = a.burst ? pairedGainToJson(a.burst->vsTop) : Json(nullptr);
    }
    // The selection re-measured after it was made: the gain the report states when it ran (docs/explorer.md).
    if (s.verificationRan) {
        Json verification = {{"candidate_index", s.verificationCandidate},
                             {"verified", s.verified},
                             {"selected_on",
                              {{"gain_percent", s.selectedOnGainPercent},
                               {"interval_95_percent", {s.selectedOnLowPercent, s.selectedOnHighPercent}}}},
                             {"measurement", r.verification ? regimeToJson(*r.verification) : Json(nullptr)},
                             {"gain", r.verification ? pairedGainToJson(r.verification->vsTop) : Json(nullptr)},
                             {"aa_control", r.verificationAa ? regimeToJson(*r.verificationAa) : Json(nullptr)}};
        Json discardedRuns = Json::array();
        for (const auto& [pick, aa] : r.discardedVerifications)
            discardedRuns.push_back({{"gain", pairedGainToJson(pick.vsTop)}, {"aa_control", pairedGainToJson(aa.vsTop)}});
        verification["discarded"] = std::move(discardedRuns);
        confirm["verification"] = std::move(verification);
    }
    confirm["ties"] = tiesToJson(r);
    confirm["method"] = r.finalistMethod;
    return confirm;
}

Json powerStateToJson(const ExplorationResult& r) {
    const PowerSummary& p = r.power;
    return {
        {"window_seconds", r.powerWindowSeconds},
        {"measured", p.measured},
        {"power_limited", p.powerLimited},
        {"windows", p.windows},
        {"power_limited_windows", p.powerLimitedWindows},
        {"baseline_mean_power_w", knownOrNull(p.baselineMeanPowerW)},
        {"power_limit_w", knownOrNull(p.powerLimitW)},
        {"baseline_joules_per_launch", knownOrNull(p.baselineJoulesPerLaunch)},
        {"baseline_megacycles_per_launch", knownOrNull(p.baselineMegacycles)},
        {"fastest_finalist_index", p.fastestFinalist >= 0 ? Json(p.fastestFinalist) : Json(nullptr)},
        {"energy_change_percent", p.fastestFinalist >= 0 ? Json(p.energyChangePercent) : Json(nullptr)},
        {"cycles_change_percent", p.fastestFinalist >= 0 ? Json(p.cyclesChangePercent) : Json(nullptr)},
        {"method", "each finalist's sustained confirm blocks (window_seconds in all, cold L2): NVML's energy counter "
                   "read at each block's start and end, board power, SM clock and clock-event reasons every 10 ms"},
        {"note", p.note}};
}

Json errorsToJson(const std::vector<UnsupportedNote>& notes) {
    Json errors = Json::array();
    for (const auto& e : notes)
        errors.push_back({{"feature", e.feature}, {"supported_public_control", e.supportedPublicControl},
                          {"reason", e.reason}});
    return errors;
}

}  // namespace

Json buildExplorerReport(const ExplorationResult& r) {
    Json report;
    report["mode"] = "gemm-explore";
    report["tool"] = {{"name", "tunescope"}, {"version", versionString()}, {"git_sha", gitSha()}};
    report["environment"] = environmentToJson(r.environment);
    report["workload"] = workloadToJson(r);
    report["baseline_kernel_metadata"] = baselineToJson(r);
    Json heuristics = Json::array();
    for (const auto& set : r.heuristics) heuristics.push_back(heuristicSetToJson(set, r.environment.cublasLtVersion));
    report["heuristics"] = std::move(heuristics);
    Json splits = Json::array();
    for (const auto& s : r.splitKChecks) splits.push_back(splitKCheckToJson(s));
    report["explicit_split_k_checks"] = std::move(splits);
    report["search"] = searchToJson(r);
    Json candidates = Json::array();
    for (const auto& c : r.candidates) candidates.push_back(candidateToJson(c, r.spec.flops()));
    report["candidates"] = std::move(candidates);
    report["selected"] = selectedToJson(r);
    report["confirm"] = confirmToJson(r);
    report["power_state"] = powerStateToJson(r);
    report["errors_and_unsupported"] = errorsToJson(r.errorsAndUnsupported);
    report["wall_seconds"] = r.wallSeconds;
    report["failure"] = r.failure.empty() ? Json(nullptr) : Json(r.failure);
    return report;
}

ReplayPlan replayPlanFromReport(const Json& report, const std::string& file) {
    ReplayPlan plan;
    const Json& workload = member(report, "workload", file, "");
    plan.spec = gemmSpecFromJson(member(workload, "gemm", file, "/workload"), file, "/workload/gemm");
    const Json& data = member(workload, "data", file, "/workload");
    plan.dataSeed = integerAt<std::uint64_t>(data, "seed", file, "/workload/data");
    const Json& selected = member(report, "selected", file, "");
    if (!selected.is_object())
        throw Error(file, "/selected", "the report selected nothing (the exploration did not finish), nothing to replay");
    plan.selected = algoConfigFromJson(selected, file, "/selected");
    plan.selectedRaw = rawAlgoFromHex(stringAt(selected, "raw_algo_hex", file, "/selected"), file,
                                      "/selected/raw_algo_hex");
    plan.cublasLtVersion = integerAt<std::uint64_t>(selected, "cublaslt_version", file, "/selected");
    plan.selectedWorkspaceBytes = integerAt<std::uint64_t>(selected, "workspace_bytes", file, "/selected");
    if (selected.contains("output_sha256") && selected.at("output_sha256").is_string())
        plan.selectedSha256 = selected.at("output_sha256").get<std::string>();
    if (selected.contains("median_ms") && selected.at("median_ms").is_number())
        plan.selectedMedianMs = selected.at("median_ms").get<double>();
    if (selected.contains("baseline_median_ms") && selected.at("baseline_median_ms").is_number())
        plan.baselineMedianMs = selected.at("baseline_median_ms").get<double>();
    if (selected.contains("improvement_percent") && selected.at("improvement_percent").is_number())
        plan.reportedGainPercent = selected.at("improvement_percent").get<double>();
    if (const auto it = selected.find("improvement_interval_95_percent");
        it != selected.end() && it->is_array() && it->size() == 2 && (*it)[0].is_number() && (*it)[1].is_number()) {
        plan.reportedLowPercent = (*it)[0].get<double>();
        plan.reportedHighPercent = (*it)[1].get<double>();
        plan.reportedInterval = true;
    }
    const Json& baseline = member(report, "baseline_kernel_metadata", file, "");
    plan.baseline = algoConfigFromJson(member(baseline, "config", file, "/baseline_kernel_metadata"), file,
                                       "/baseline_kernel_metadata/config");
    plan.baselineRaw = rawAlgoFromHex(stringAt(baseline, "raw_algo_hex", file, "/baseline_kernel_metadata"), file,
                                      "/baseline_kernel_metadata/raw_algo_hex");
    plan.baselineWorkspaceBytes = integerAt<std::uint64_t>(baseline, "workspace_bytes", file, "/baseline_kernel_metadata");
    return plan;
}

}  // namespace tunescope::gemm
