#include "tunescope/sweep/fla_capture_compare.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "tunescope/base/text_fields.hpp"
#include "tunescope/sweep/run_compare.hpp"

namespace tunescope {
namespace {

const FlaDecisionConfig* findConfig(const FlaDecisionRun& d, std::size_t config) {
    for (const FlaDecisionConfig& c : d.configs)
        if (c.config == config) return &c;
    return nullptr;
}

std::optional<double> eligibleTotal(const FlaDecisionRun& d, std::size_t config) {
    const FlaDecisionConfig* c = findConfig(d, config);
    if (!c || !c->eligible) return std::nullopt;
    return c->totalMs;
}

FlaCaptureCompareDecision compareDecision(const FlaDecisionRun& a, const FlaDecisionRun& b) {
    FlaCaptureCompareDecision out;
    out.kernel_name = a.kernel_name;
    out.key_hash = a.key_hash;
    out.chosenA = a.chosen;
    out.chosenB = b.chosen;
    out.capturedChoiceA = a.capturedChoice;
    out.capturedChoiceB = b.capturedChoice;
    std::map<std::size_t, FlaCaptureCompareConfig> byIndex;
    for (const FlaDecisionRun* run : {&a, &b})
        for (const FlaDecisionConfig& c : run->configs) {
            FlaCaptureCompareConfig& row = byIndex[c.config];
            row.config = c.config;
            if (row.label.empty()) row.label = c.label;
        }
    std::vector<double> ranksA, ranksB;
    for (auto& [index, row] : byIndex) {
        row.totalA = eligibleTotal(a, index);
        row.totalB = eligibleTotal(b, index);
        if (row.totalA && row.totalB && *row.totalA > 0) {
            row.ratio = *row.totalB / *row.totalA;
            ranksA.push_back(*row.totalA);
            ranksB.push_back(*row.totalB);
        }
        out.configs.push_back(row);
    }
    if (ranksA.size() >= 3) out.rankCorrelation = spearmanRankCorrelation(ranksA, ranksB);
    if (a.chosen && b.chosen) {
        const std::optional<double> aOnB = eligibleTotal(b, *a.chosen);
        const FlaDecisionConfig* best = findConfig(b, *b.chosen);
        if (aOnB && best && best->totalMs > 0) {
            out.regretOfAChoiceOnB = *aOnB / best->totalMs - 1.0;
            out.aChoiceWithinBSpread = *aOnB <= best->totalP80Ms;
        }
    }
    return out;
}

std::string choiceText(const std::optional<std::size_t>& choice, const FlaCaptureCompareDecision& d) {
    if (!choice) return "-";
    for (const FlaCaptureCompareConfig& c : d.configs)
        if (c.config == *choice) return "#" + std::to_string(*choice) + " " + c.label;
    return "#" + std::to_string(*choice);
}

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.2f%%", fraction * 100.0);
    return text;
}

}  // namespace

FlaCaptureComparison compareFlaCaptureSweeps(const FlaCaptureSweepFile& a, const std::string& fileA,
                                             const FlaCaptureSweepFile& b, const std::string& fileB) {
    FlaCaptureComparison out;
    out.fileA = fileA;
    out.fileB = fileB;
    out.deviceA = a.sweep.device;
    out.deviceB = b.sweep.device;
    out.timerA = a.sweep.timer;
    out.timerB = b.sweep.timer;
    out.l2A = a.l2;
    out.l2B = b.l2;
    out.digestA = a.sweep.digest;
    out.digestB = b.sweep.digest;
    std::map<std::pair<std::string, std::string>, const FlaDecisionRun*> inB;
    for (const FlaDecisionRun& d : b.sweep.decisions) inB[{d.kernel_name, d.key_hash}] = &d;
    double logSum = 0;
    for (const FlaDecisionRun& d : a.sweep.decisions) {
        const auto it = inB.find({d.kernel_name, d.key_hash});
        if (it == inB.end()) {
            ++out.onlyInA;
            continue;
        }
        FlaCaptureCompareDecision row = compareDecision(d, *it->second);
        inB.erase(it);
        out.sameChoices += row.sameChoice() ? 1 : 0;
        if (row.regretOfAChoiceOnB && (!out.worstRegret || *row.regretOfAChoiceOnB > *out.worstRegret)) {
            out.worstRegret = row.regretOfAChoiceOnB;
            out.worstRegretDecision = row.kernel_name + " key " + row.key_hash.substr(0, 8);
        }
        for (const FlaCaptureCompareConfig& c : row.configs)
            if (c.ratio) {
                logSum += std::log(*c.ratio);
                ++out.ratios;
            }
        out.decisions.push_back(std::move(row));
    }
    out.onlyInB = inB.size();
    if (out.ratios > 0) out.geomeanRatio = std::exp(logSum / static_cast<double>(out.ratios));
    return out;
}

std::string formatFlaCaptureComparison(const FlaCaptureComparison& c, bool allConfigs) {
    std::ostringstream os;
    os << "A: " << c.fileA << " (" << c.deviceA << ", timer " << c.timerA << ", L2 " << c.l2A << ", capture "
       << c.digestA.substr(0, 12) << ")\n"
       << "B: " << c.fileB << " (" << c.deviceB << ", timer " << c.timerB << ", L2 " << c.l2B << ", capture "
       << c.digestB.substr(0, 12) << ")\n";
    if (!c.sameCapture())
        os << "the runs replayed different captures: only the kernels and keys both have are compared\n";
    if (c.l2A != c.l2B || c.timerA != c.timerB)
        os << "the runs measured in different regimes or with different timers: the ratios compare those too\n";
    os << "\n";
    for (const FlaCaptureCompareDecision& d : c.decisions) {
        os << d.kernel_name << " key " << d.key_hash.substr(0, 8) << ": A chose " << choiceText(d.chosenA, d) << ", B chose "
           << choiceText(d.chosenB, d);
        if (d.sameChoice()) os << " (the same)";
        else if (d.regretOfAChoiceOnB)
            os << "; A's choice on B " << percent(*d.regretOfAChoiceOnB)
               << (d.aChoiceWithinBSpread ? " (within B's p20-p80)" : " (outside B's p20-p80)");
        else os << "; A's choice was not measured on B";
        if (d.rankCorrelation) os << "; rank rho " << formatFixed(*d.rankCorrelation, 3);
        os << "\n";
        if (!allConfigs) continue;
        for (const FlaCaptureCompareConfig& row : d.configs) {
            os << "    #" << row.config << " " << row.label << ": A "
               << (row.totalA ? formatFixed(*row.totalA * 1000.0, 2) + " us" : std::string("-")) << ", B "
               << (row.totalB ? formatFixed(*row.totalB * 1000.0, 2) + " us" : std::string("-"));
            if (row.ratio) os << ", B/A " << formatFixed(*row.ratio, 4);
            os << "\n";
        }
    }
    os << "\n"
       << c.decisions.size() << " decisions compared: " << c.sameChoices << " with the same choice";
    if (c.worstRegret) os << "; keeping A's choices costs at most " << percent(*c.worstRegret) << " on B ("
                          << c.worstRegretDecision << ")";
    os << "\ngeometric mean of the configs' ratios B/A: " << formatFixed(c.geomeanRatio, 4) << " over " << c.ratios
       << " configs\n";
    if (c.onlyInA + c.onlyInB > 0) os << c.onlyInA << " decisions only in A, " << c.onlyInB << " only in B\n";
    return os.str();
}

}  // namespace tunescope
