#include "tunescope/sweep/run_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace tunescope {

bool isTrustworthy(const Measurement& m) { return m.converged && !m.timedOut && m.sampleCount > 0 && m.medianMs > 0; }

double spearmanRankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    const auto ranks = [](const std::vector<double>& v) {
        std::vector<std::size_t> order(v.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < order.size();) {
            std::size_t j = i;
            while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
            for (std::size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2.0 + 1.0;
            i = j + 1;
        }
        return r;
    };
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double n = double(a.size()), mean = (n + 1.0) / 2.0;
    double cov = 0, va = 0, vb = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        cov += (ra[i] - mean) * (rb[i] - mean);
        va += (ra[i] - mean) * (ra[i] - mean);
        vb += (rb[i] - mean) * (rb[i] - mean);
    }
    if (va <= 0 || vb <= 0) return std::numeric_limits<double>::quiet_NaN();
    return cov / std::sqrt(va * vb);
}

std::string describeKernel(const std::string& kernel) {
    if (kernel == "triton") return "FLA's Triton kernel";
    if (kernel == "native") return "TuneScope's stand-in kernel";
    return kernel;
}

namespace {

std::string planKernel(const ResultsFile& file) {
    const Json& plan = file.header.plan;
    if (plan.is_object() && plan.contains("kernel") && plan["kernel"].is_string()) return plan["kernel"].get<std::string>();
    return "native";  // plans before --kernel measured the stand-in
}

// kind, nb, rows, BT, warps, stages, ctas, L2 regime (-1: matched across regimes)
using Key = std::tuple<int, int, std::int64_t, int, int, int, int, int>;

Key keyOf(const ResultRecord& r, bool acrossRegimes) {
    const bool copy = r.kind == ResultRecord::Kind::Copy;
    return {static_cast<int>(r.kind), r.nb, r.rows, copy ? 0 : r.config.blockRows, copy ? 0 : r.config.numWarps,
            copy ? 0 : r.config.numStages, copy ? 0 : r.config.numCtas, acrossRegimes ? -1 : static_cast<int>(r.l2)};
}

std::map<Key, const ResultRecord*> index(const ResultsFile& file, bool acrossRegimes, std::size_t* duplicates) {
    std::map<Key, const ResultRecord*> out;
    for (const ResultRecord& record : file.records)
        if (!out.emplace(keyOf(record, acrossRegimes), &record).second) ++*duplicates;
    return out;
}

std::string firstDevice(const ResultsFile& file) {
    return file.header.devices.empty() ? std::string("unknown device") : file.header.devices.front().name;
}

using NbKey = std::pair<int, int>;  // NB, L2 regime (-1: across regimes)

// The fastest trustworthy l2norm record per NB (and regime).
std::map<NbKey, const ResultRecord*> winners(const std::map<Key, const ResultRecord*>& records) {
    std::map<NbKey, const ResultRecord*> out;
    for (const auto& [key, record] : records) {
        if (record->kind != ResultRecord::Kind::L2Norm || !isTrustworthy(record->m)) continue;
        auto [it, inserted] = out.emplace(NbKey{record->nb, std::get<7>(key)}, record);
        if (!inserted && record->m.medianMs < it->second->m.medianMs) it->second = record;
    }
    return out;
}

}  // namespace

RunComparison compareRuns(const ResultsFile& a, const ResultsFile& b, const RunCompareOptions& options) {
    RunComparison out;
    out.fileA = a.path.string();
    out.fileB = b.path.string();
    out.deviceA = firstDevice(a);
    out.deviceB = firstDevice(b);
    out.kernelA = planKernel(a);
    out.kernelB = planKernel(b);
    // Records pair within their regime; two files of one regime each, and different ones, pair across them (a cold
    // run against a warm one: which config wins where).
    const std::set<L2Regime> regimesA = regimesOf(a), regimesB = regimesOf(b);
    const bool acrossRegimes = regimesA.size() == 1 && regimesB.size() == 1 && regimesA != regimesB;
    if (acrossRegimes)
        out.acrossRegimes = toString(*regimesA.begin()) + " (A) against " + toString(*regimesB.begin()) + " (B)";
    out.timerA = timersOf(a).empty() ? std::string() : *timersOf(a).begin();
    out.timerB = timersOf(b).empty() ? std::string() : *timersOf(b).begin();
    const auto recordsA = index(a, acrossRegimes, &out.duplicatesIgnored);
    const auto recordsB = index(b, acrossRegimes, &out.duplicatesIgnored);

    double logSum = 0;
    std::size_t logCount = 0;
    for (const auto& [key, ra] : recordsA) {
        const auto found = recordsB.find(key);
        if (found == recordsB.end()) {
            ++out.onlyInA;
            continue;
        }
        const ResultRecord* rb = found->second;
        RunComparisonRow row;
        row.kind = ra->kind;
        row.nb = ra->nb;
        row.rows = ra->rows;
        row.config = ra->config;
        row.l2 = ra->l2;
        row.a = ra;
        row.b = rb;
        row.bothTrustworthy = isTrustworthy(ra->m) && isTrustworthy(rb->m);
        if (!row.bothTrustworthy) ++out.untrustworthyPairs;
        const ComparisonResult verdict = compareMeasurements(rb->m, ra->m, options.compare);
        row.verdict = verdict.verdict;
        row.reason = verdict.reason;
        if (ra->m.medianMs > 0 && rb->m.medianMs > 0) {
            row.ratio = rb->m.medianMs / ra->m.medianMs;
            row.ratioLow = ra->m.ciHighMs > 0 ? rb->m.ciLowMs / ra->m.ciHighMs : 0;
            row.ratioHigh = ra->m.ciLowMs > 0 ? rb->m.ciHighMs / ra->m.ciLowMs : 0;
            if (row.kind == ResultRecord::Kind::L2Norm) {
                logSum += std::log(row.ratio);
                ++logCount;
            }
        }
        switch (row.verdict) {
        case Comparison::Faster: ++out.faster; break;
        case Comparison::Slower: ++out.slower; break;
        case Comparison::Same: ++out.same; break;
        case Comparison::Ambiguous: ++out.ambiguous; break;
        }
        out.rows.push_back(std::move(row));
    }
    for (const auto& [key, rb] : recordsB)
        if (!recordsA.count(key)) ++out.onlyInB;
    if (logCount > 0) out.geomeanRatio = std::exp(logSum / static_cast<double>(logCount));

    const auto winnersA = winners(recordsA), winnersB = winners(recordsB);
    std::map<NbKey, RunComparisonNb> perNb;
    for (const auto& [nb, record] : winnersA) {
        perNb[nb].winnerA = record->config;
        perNb[nb].winnerAMedianMs = record->m.medianMs;
        perNb[nb].l2 = record->l2;
    }
    for (const auto& [nb, record] : winnersB) {
        perNb[nb].winnerB = record->config;
        perNb[nb].winnerBMedianMs = record->m.medianMs;
        if (!winnersA.count(nb)) perNb[nb].l2 = record->l2;
    }
    for (auto& [nb, summary] : perNb) {
        summary.nb = nb.first;
        if (!summary.winnerA || !summary.winnerB) {
            summary.winnerChangeVerdict = Comparison::Ambiguous;
            out.perNb.push_back(summary);
            continue;
        }
        summary.winnerChanged = !(*summary.winnerA == *summary.winnerB);
        if (summary.winnerChanged) {
            ++out.winnersChanged;
            const ResultRecord* bestB = winnersB.at(nb);
            // A's winner as B measured it: same shape (rows) as B's winner, A's config.
            ResultRecord probe = *bestB;
            probe.config = *summary.winnerA;
            const auto found = recordsB.find(keyOf(probe, acrossRegimes));
            if (found != recordsB.end() && isTrustworthy(found->second->m)) {
                summary.regretOfAWinnerOnB = found->second->m.medianMs / bestB->m.medianMs - 1.0;
                summary.winnerChangeVerdict = compareMeasurements(bestB->m, found->second->m, options.compare).verdict;
            } else {
                summary.winnerChangeVerdict = Comparison::Ambiguous;
            }
            if (summary.winnerChangeVerdict == Comparison::Faster) ++out.winnersChangedSignificantly;
        } else {
            summary.regretOfAWinnerOnB = 0.0;
        }
        out.perNb.push_back(summary);
    }

    // Rank agreement per NB, over the trustworthy l2norm pairs of the NB's most measured shape.
    std::map<NbKey, std::map<std::int64_t, std::vector<const RunComparisonRow*>>> pairsByShape;
    for (const RunComparisonRow& row : out.rows)
        if (row.kind == ResultRecord::Kind::L2Norm && row.bothTrustworthy)
            pairsByShape[{row.nb, acrossRegimes ? -1 : static_cast<int>(row.l2)}][row.rows].push_back(&row);
    for (RunComparisonNb& summary : out.perNb) {
        const auto found = pairsByShape.find({summary.nb, acrossRegimes ? -1 : static_cast<int>(summary.l2)});
        if (found == pairsByShape.end()) continue;
        const std::vector<const RunComparisonRow*>* pairs = nullptr;
        for (const auto& [rows, list] : found->second)
            if (!pairs || list.size() > pairs->size()) pairs = &list;
        summary.rankedConfigs = pairs->size();
        if (pairs->size() < 3) continue;
        std::vector<double> medianA, medianB;
        for (const RunComparisonRow* row : *pairs) {
            medianA.push_back(row->a->m.medianMs);
            medianB.push_back(row->b->m.medianMs);
        }
        const double rho = spearmanRankCorrelation(medianA, medianB);
        if (!std::isfinite(rho)) continue;
        summary.rankCorrelation = rho;
        if (!out.lowestRankCorrelation || rho < *out.lowestRankCorrelation) {
            out.lowestRankCorrelation = rho;
            out.lowestRankNb = summary.nb;
        }
    }
    return out;
}

}  // namespace tunescope
