#include "models/headtoheadmodel.hpp"

#include <cmath>

#include <QBrush>

#include "documents/resultsindex.hpp"
#include "models/verdictcolours.hpp"

namespace tunescope::ui {
namespace {

QString verdictText(HeadToHeadVerdict v) { return QString::fromStdString(toString(v)); }

// No round measured by both leaves a NaN interval (and NOT MEASURED): shown as "-", never as "nan".
bool hasInterval(const HeadToHeadRow& row) {
    return row.candidateRecord && row.baselineRecord && row.verdict != HeadToHeadVerdict::SameConfig &&
           std::isfinite(row.paired.low) && std::isfinite(row.paired.high);
}

}  // namespace

HeadToHeadModel::HeadToHeadModel(QObject* parent) : QAbstractTableModel(parent) {}

void HeadToHeadModel::setReport(std::shared_ptr<const ResultsFile> file, HeadToHeadReport report) {
    beginResetModel();
    file_ = std::move(file);
    report_ = std::move(report);
    endResetModel();
}

int HeadToHeadModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(report_.rows.size());
}

int HeadToHeadModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant HeadToHeadModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.parent().isValid() || index.row() < 0 || index.row() >= rowCount() ||
        index.column() < 0 || index.column() >= kColumns)
        return {};
    const HeadToHeadRow& row = report_.rows[static_cast<std::size_t>(index.row())];
    const bool measured = row.candidateRecord && row.baselineRecord && std::isfinite(row.paired.ratio);
    if (role == SortRole) {
        switch (index.column()) {
        case NbColumn: return row.nb;
        case CandidateColumn: return QString::fromStdString(configText(row.candidate, ConfigText::Short));
        case BaselineColumn: return QString::fromStdString(configText(row.baseline, ConfigText::Short));
        case CandidateMedianColumn: return row.candidateRecord ? row.candidateRecord->m.medianMs : -1.0;
        case BaselineMedianColumn: return row.baselineRecord ? row.baselineRecord->m.medianMs : -1.0;
        case RatioColumn: return measured ? row.paired.ratio : -1.0;
        case IntervalColumn: return hasInterval(row) ? row.paired.high - row.paired.low : -1.0;
        case ControlColumn: return row.controls.empty() ? -1.0 : std::abs(row.worstControl - 1);
        case RoundsColumn: return row.rounds;
        case VerdictColumn: return verdictText(row.verdict);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NbColumn:  // a warm row says so: a `--l2 both` run has one row per NB and regime (hot never mixes)
            if (row.l2 == L2Regime::Warm) return QString(QString::number(row.nb) + QStringLiteral(" ") +
                                                         QString::fromStdString(toString(row.l2)));
            return row.nb;
        case CandidateColumn: return configLabel(row.candidate);
        case BaselineColumn: return configLabel(row.baseline);
        case CandidateMedianColumn: return row.candidateRecord ? formatUs(row.candidateRecord->m.medianMs) : QStringLiteral("-");
        case BaselineMedianColumn: return row.baselineRecord ? formatUs(row.baselineRecord->m.medianMs) : QStringLiteral("-");
        case RatioColumn: return measured ? QString::number(row.paired.ratio, 'f', 4) : QStringLiteral("-");
        case IntervalColumn:
            if (!hasInterval(row)) return QStringLiteral("-");
            return QString(QStringLiteral("[") + QString::number(row.paired.low, 'f', 4) + QStringLiteral(", ") +
                           QString::number(row.paired.high, 'f', 4) + QStringLiteral("]"));
        case ControlColumn: return row.controls.empty() ? QStringLiteral("-") : QString::number(row.worstControl, 'f', 4);
        case RoundsColumn: return row.rounds;
        case VerdictColumn: return verdictText(row.verdict);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString text = tr("NB %1: candidate %2, baseline %3").arg(row.nb).arg(configLabel(row.candidate), configLabel(row.baseline));
        if (hasInterval(row))
            text += tr("\ncandidate / baseline per round: %1 (interval [%2, %3] over %4 rounds)")
                        .arg(QString::number(row.paired.ratio, 'f', 4), QString::number(row.paired.low, 'f', 4),
                             QString::number(row.paired.high, 'f', 4))
                        .arg(row.rounds);
        for (const PairedComparison& c : row.controls)
            text += tr("\nA/A control (identical work): %1, %2").arg(QString::number(c.ratio, 'f', 4),
                                                                      QString::fromStdString(toString(c.verdict)));
        return text;
    }
    if (role == Qt::ForegroundRole && index.column() == VerdictColumn) {
        if (row.verdict == HeadToHeadVerdict::Faster) return QBrush(kFasterColour);
        if (row.verdict == HeadToHeadVerdict::Slower) return QBrush(kSlowerColour);
        if (row.verdict == HeadToHeadVerdict::Noisy || row.verdict == HeadToHeadVerdict::NotMeasured)
            return QBrush(kUnjudgedColour);
    }
    if (role == Qt::TextAlignmentRole && index.column() >= CandidateMedianColumn && index.column() <= RoundsColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant HeadToHeadModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RatioColumn: return tr("Median over rounds of candidate / baseline, both measured in the same round: below 1 "
                                    "the candidate is faster");
        case IntervalColumn: return tr("The paired interval of the ratio (round range and Student t on the log ratios, "
                                       "family-wise over the NB's items; docs/sweep.md, \"Decisions\")");
        case ControlColumn: return tr("The A/A control farthest from 1: a config against its own replica, in the same "
                                      "rounds. When one comes out FASTER or SLOWER the NB is NOISY");
        case VerdictColumn: return tr("FASTER / TIE / SLOWER: the interval clears the threshold below 1, lies within it, "
                                      "or clears it above 1; UNDECIDED: it straddles the threshold; NOISY: an A/A "
                                      "control differed");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case NbColumn: return tr("NB");
    case CandidateColumn: return tr("candidate");
    case BaselineColumn: return tr("baseline");
    case CandidateMedianColumn: return tr("candidate median");
    case BaselineMedianColumn: return tr("baseline median");
    case RatioColumn: return tr("ratio");
    case IntervalColumn: return tr("interval");
    case ControlColumn: return tr("A/A worst");
    case RoundsColumn: return tr("rounds");
    case VerdictColumn: return tr("verdict");
    default: return {};
    }
}

}  // namespace tunescope::ui
