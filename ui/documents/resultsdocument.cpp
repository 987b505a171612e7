#include "documents/resultsdocument.hpp"

#include <algorithm>

#include <QFileInfo>

#include "tunescope/formats/profile.hpp"
#include "tunescope/sweep/run_compare.hpp"

namespace tunescope::ui {

std::map<int, L2NormConfig> policyConfigs(const Profile& profile) {
    std::map<int, L2NormConfig> policy;
    for (const PolicyEntry& entry : profile.per_NB_policy) policy[static_cast<int>(entry.NB)] = toL2NormConfig(entry.config);
    return policy;
}

ResultsDocument::ResultsDocument(QObject* parent) : QObject(parent) {}

bool ResultsDocument::load(const QString& path, QString* error) {
    try {
        adopt(loadResults(path.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

void ResultsDocument::adopt(ResultsFile file) {
    file_ = std::move(file);
    live_ = false;
    trusted_ = ResultsFile{};
    trusted_.path = file_.path;
    trusted_.header = file_.header;
    index_.clear();
    index_.source = QFileInfo(QString::fromStdString(file_.path.string())).fileName();
    if (!file_.header.devices.empty()) index_.deviceLabel = QString::fromStdString(deviceLabel(file_.header.devices.front()));
    const std::vector<L2Regime> held = regimes();
    if (!held.empty() && std::find(held.begin(), held.end(), regime_) == held.end()) regime_ = held.front();
    for (const ResultRecord& record : file_.records) indexRecord(record);
    emit reset();
}

void ResultsDocument::setRegime(L2Regime regime) {
    if (regime == regime_) return;
    regime_ = regime;
    trusted_.records.clear();
    const QString source = index_.source, device = index_.deviceLabel;
    index_.clear();
    index_.source = source;
    index_.deviceLabel = device;
    for (const ResultRecord& record : file_.records) indexRecord(record);
    emit reset();
}

std::vector<L2Regime> ResultsDocument::regimes() const {
    std::vector<L2Regime> out;
    for (L2Regime r : regimesOf(file_)) out.push_back(r);  // std::set: cold, warm, hot
    return out;
}

void ResultsDocument::beginLive(const QString& path, const QString& device) {
    file_ = ResultsFile{};
    file_.path = path.toStdString();
    trusted_ = ResultsFile{};
    trusted_.path = file_.path;
    index_.clear();
    index_.source = tr("live sweep");
    index_.deviceLabel = device;
    live_ = true;
    emit reset();
}

void ResultsDocument::append(const ResultRecord& record) {
    // A live sweep of one regime shows it, whatever was shown before.
    if (file_.records.empty() && record.l2 != regime_) regime_ = record.l2;
    file_.records.push_back(record);
    indexRecord(record);
    emit appended();
}

void ResultsDocument::clear() {
    file_ = ResultsFile{};
    trusted_ = ResultsFile{};
    index_.clear();
    live_ = false;
    emit reset();
}

void ResultsDocument::indexRecord(const ResultRecord& record) {
    if (record.l2 != regime_) return;  // the other regime's records wait in file_ for setRegime
    CellStats stats;
    stats.medianMs = record.m.medianMs;
    stats.p20Ms = record.m.p20Ms;
    stats.p80Ms = record.m.p80Ms;
    stats.minMs = record.m.minMs;
    stats.relStdev = record.m.relStdev;
    stats.samples = record.m.sampleCount;
    stats.gbPerS = record.gbps;
    stats.trustworthy = isTrustworthy(record.m);
    stats.quality = stats.trustworthy ? tr("converged, %1 samples").arg(record.m.sampleCount)
                                      : tr("%1 after %2 samples").arg(QString::fromStdString(toString(record.m.stopReason))).arg(record.m.sampleCount);
    if (stats.trustworthy) {
        ResultRecord kept = record;
        kept.m.samplesMs.clear();
        kept.m.smClockMHz.clear();
        kept.m.throttled.clear();
        trusted_.records.push_back(std::move(kept));
    }
    if (record.kind == ResultRecord::Kind::Copy)
        index_.addCopy(record.nb, stats);
    else
        index_.add(record.nb, record.config, stats);
}

std::map<int, RegretSummary> ResultsDocument::regret(const std::map<int, L2NormConfig>& policy) const {
    std::map<int, RegretSummary> summaries;
    if (file_.records.empty() || policy.empty()) return summaries;
    // Over converged records only: a timed-out point is neither "the best" nor a policy median to rank.
    for (const RegretRow& row : computeRegret(trusted_, policy)) {
        RegretSummary summary;
        summary.regret = row.regret;
        summary.policyMeasured = row.policy != nullptr;
        summary.withinNoise = row.withinNoise;
        summary.verdict = QString::fromStdString(toString(row.verdict));
        summary.regretLow = row.regretLow;
        summary.regretHigh = row.regretHigh;
        summary.ties = row.ties;
        if (row.best) {
            summary.bestConfig = row.best->config;
            summary.bestMedianMs = row.best->m.medianMs;
        }
        if (row.policy) summary.policyMedianMs = row.policy->m.medianMs;
        summaries[row.nb] = summary;
    }
    for (const auto& [nb, config] : policy) {
        const CellStats* measured = index_.find(nb, config);
        if (!measured || measured->trustworthy) continue;
        RegretSummary& summary = summaries[nb];
        summary.policyMeasured = false;
        summary.policyQuality = measured->quality;
        summary.policyMedianMs = measured->medianMs;
        if (const CellStats* best = index_.best(nb)) {
            summary.bestConfig = index_.configs()[static_cast<std::size_t>(index_.bestColumn(index_.nbRow(nb)))];
            summary.bestMedianMs = best->medianMs;
        }
    }
    return summaries;
}

}  // namespace tunescope::ui
