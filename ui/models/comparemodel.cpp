#include "models/comparemodel.hpp"

#include <QBrush>

#include "documents/resultsindex.hpp"
#include "models/verdictcolours.hpp"

namespace tunescope::ui {
namespace {

QString verdictText(Comparison c) { return QString::fromStdString(toString(c)); }

QString qualityText(const ResultRecord& r) {
    if (isTrustworthy(r.m)) return QString::number(r.m.sampleCount) + QStringLiteral(" samples");
    return QString::fromStdString(toString(r.m.stopReason)) + QStringLiteral(" after ") + QString::number(r.m.sampleCount);
}

}  // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareModel::setComparison(std::shared_ptr<const ResultsFile> a, std::shared_ptr<const ResultsFile> b,
                                 RunComparison comparison) {
    beginResetModel();
    a_ = std::move(a);
    b_ = std::move(b);
    comparison_ = std::move(comparison);
    endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(comparison_.rows.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.parent().isValid() || index.row() < 0 || index.row() >= rowCount() ||
        index.column() < 0 || index.column() >= kColumns)
        return {};
    const RunComparisonRow& row = comparison_.rows[static_cast<std::size_t>(index.row())];
    const bool copy = row.kind == ResultRecord::Kind::Copy;
    if (role == SortRole) {
        switch (index.column()) {
        case NbColumn: return row.nb;
        case ConfigColumn: return copy ? QStringLiteral(" copy") : QString::fromStdString(tunescope::configText(row.config, ConfigText::Short));
        case MedianAColumn: return row.a->m.medianMs;
        case MedianBColumn: return row.b->m.medianMs;
        case RatioColumn: return row.ratio;
        case IntervalColumn: return row.ratioHigh - row.ratioLow;
        case VerdictColumn: return verdictText(row.verdict);
        case QualityColumn: return row.bothTrustworthy ? 1 : 0;
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NbColumn:  // a warm row says so: a `--l2 both` run has one row per NB and regime (hot never mixes)
            if (row.l2 == L2Regime::Warm) return QString(QString::number(row.nb) + QStringLiteral(" ") +
                                                         QString::fromStdString(toString(row.l2)));
            return row.nb;
        case ConfigColumn: return copy ? tr("copy ceiling") : ui::configLabel(row.config);
        case MedianAColumn: return formatUs(row.a->m.medianMs);
        case MedianBColumn: return formatUs(row.b->m.medianMs);
        case RatioColumn: return QString::number(row.ratio, 'f', 3);
        case IntervalColumn:
            return QString(QStringLiteral("[") + QString::number(row.ratioLow, 'f', 3) + QStringLiteral(", ") +
                           QString::number(row.ratioHigh, 'f', 3) + QStringLiteral("]"));
        case VerdictColumn: return verdictText(row.verdict);
        case QualityColumn: return QString(qualityText(*row.a) + QStringLiteral(" | ") + qualityText(*row.b));
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        return tr("NB %1 %2\nA: median %3, 95% interval [%4, %5], %6\nB: median %7, 95% interval [%8, %9], %10\n"
                  "B/A %11: %12 (%13)")
            .arg(row.nb)
            .arg(copy ? tr("copy ceiling") : ui::configLabel(row.config), formatUs(row.a->m.medianMs),
                 formatUs(row.a->m.ciLowMs), formatUs(row.a->m.ciHighMs), qualityText(*row.a), formatUs(row.b->m.medianMs),
                 formatUs(row.b->m.ciLowMs), formatUs(row.b->m.ciHighMs))
            .arg(qualityText(*row.b), QString::number(row.ratio, 'f', 4), verdictText(row.verdict),
                 QString::fromStdString(row.reason));
    }
    if (role == Qt::ForegroundRole) {
        if (index.column() == VerdictColumn && row.verdict == Comparison::Faster) return QBrush(kFasterColour);
        if (index.column() == VerdictColumn && row.verdict == Comparison::Slower) return QBrush(kSlowerColour);
        if (index.column() == QualityColumn && !row.bothTrustworthy) return QBrush(QColor(170, 90, 0));
    }
    if (role == Qt::TextAlignmentRole && index.column() >= MedianAColumn && index.column() <= IntervalColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RatioColumn: return tr("B median / A median: below 1 means B is faster");
        case IntervalColumn: return tr("B's 95% interval of the median over A's: [B low / A high, B high / A low]");
        case VerdictColumn:
            return tr("B against A, from the medians' intervals (compareMeasurements): FASTER/SLOWER need a clear gap, "
                      "SAME close and quiet medians; AMBIGUOUS is everything in between");
        case QualityColumn: return tr("How each side's sampling ended: converged, or stalled/timed out after N samples");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case NbColumn: return tr("NB");
    case ConfigColumn: return tr("config");
    case MedianAColumn: return tr("A median");
    case MedianBColumn: return tr("B median");
    case RatioColumn: return tr("B/A");
    case IntervalColumn: return tr("B/A interval");
    case VerdictColumn: return tr("verdict");
    case QualityColumn: return tr("quality (A | B)");
    default: return {};
    }
}

}  // namespace tunescope::ui
