#include "resultsdocument.hpp"

#include <QFileInfo>

#include "tunescope/profile.hpp"

namespace tunescope::ui {

std::map<int, L2NormConfig> policyConfigs(const Profile& profile) {
    std::map<int, L2NormConfig> policy;
    for (const PolicyEntry& entry : profile.per_NB_policy) policy[static_cast<int>(entry.NB)] = toL2NormConfig(entry.config);
    return policy;
}

QString deviceLabel(const DeviceInfo& info) {
    return QString::fromStdString(info.backend) + QLatin1Char(':') + QString::number(info.index) + QLatin1Char(' ') +
           QString::fromStdString(info.name) + QStringLiteral(" (") + QString::fromStdString(info.architecture) +
           QLatin1Char(')');
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
    index_.clear();
    index_.source = QFileInfo(QString::fromStdString(file_.path.string())).fileName();
    if (!file_.header.devices.empty()) index_.deviceLabel = deviceLabel(file_.header.devices.front());
    for (const ResultRecord& record : file_.records) indexRecord(record);
    emit reset();
}

void ResultsDocument::beginLive(const QString& path, const QString& device) {
    file_ = ResultsFile{};
    file_.path = path.toStdString();
    index_.clear();
    index_.source = tr("live sweep");
    index_.deviceLabel = device;
    live_ = true;
    emit reset();
}

void ResultsDocument::append(const ResultRecord& record) {
    file_.records.push_back(record);
    indexRecord(record);
    emit appended();
}

void ResultsDocument::clear() {
    file_ = ResultsFile{};
    index_.clear();
    live_ = false;
    emit reset();
}

void ResultsDocument::indexRecord(const ResultRecord& record) {
    CellStats stats;
    stats.medianMs = record.m.medianMs;
    stats.p20Ms = record.m.p20Ms;
    stats.p80Ms = record.m.p80Ms;
    stats.minMs = record.m.minMs;
    stats.relStdev = record.m.relStdev;
    stats.samples = record.m.sampleCount;
    stats.gbPerS = record.gbps;
    if (record.kind == ResultRecord::Kind::Copy)
        index_.addCopy(record.nb, stats);
    else
        index_.add(record.nb, record.config, stats);
}

std::map<int, RegretSummary> ResultsDocument::regret(const std::map<int, L2NormConfig>& policy) const {
    std::map<int, RegretSummary> summaries;
    if (file_.records.empty() || policy.empty()) return summaries;
    for (const RegretRow& row : computeRegret(file_, policy)) {
        RegretSummary summary;
        summary.regret = row.regret;
        summary.policyMeasured = row.policy != nullptr;
        summary.withinNoise = row.withinNoise;
        summary.verdict = QString::fromStdString(toString(row.verdict));
        if (row.best) {
            summary.bestConfig = row.best->config;
            summary.bestMedianMs = row.best->m.medianMs;
        }
        if (row.policy) summary.policyMedianMs = row.policy->m.medianMs;
        summaries[row.nb] = summary;
    }
    return summaries;
}

}  // namespace tunescope::ui
