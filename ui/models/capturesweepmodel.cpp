#include "models/capturesweepmodel.hpp"

#include <QBrush>
#include <QColor>

namespace tunescope::ui {

void CaptureSweepModel::setSweep(FlaCaptureSweepFile sweep) {
    beginResetModel();
    sweep_ = std::move(sweep);
    decision_ = sweep_.sweep.decisions.empty() ? -1 : 0;
    comparison_.reset();  // it was of the other sweep
    endResetModel();
}

void CaptureSweepModel::setComparison(std::optional<FlaCaptureComparison> comparison) {
    beginResetModel();
    comparison_ = std::move(comparison);
    endResetModel();
}

const FlaCaptureCompareDecision* CaptureSweepModel::comparedDecision() const {
    const FlaDecisionRun* d = currentDecision();
    if (!d || !comparison_) return nullptr;
    for (const FlaCaptureCompareDecision& c : comparison_->decisions)
        if (c.kernel_name == d->kernel_name && c.key_hash == d->key_hash) return &c;
    return nullptr;
}

const FlaCaptureCompareConfig* CaptureSweepModel::comparedConfig(std::size_t config) const {
    const FlaCaptureCompareDecision* d = comparedDecision();
    if (!d) return nullptr;
    for (const FlaCaptureCompareConfig& c : d->configs)
        if (c.config == config) return &c;
    return nullptr;
}

QString CaptureSweepModel::decisionLabel(int decision) const {
    if (decision < 0 || decision >= decisionCount()) return {};
    const FlaDecisionRun& d = sweep_.sweep.decisions[std::size_t(decision)];
    QString label = tr("%1, key %2").arg(QString::fromStdString(d.kernel_name), QString::fromStdString(d.key_hash.substr(0, 8)));
    if (!d.launchRuns.empty())
        label += d.launchRuns.size() == 1 ? tr(" (1 launch)") : tr(" (%1 launches)").arg(d.launchRuns.size());
    return label;
}

void CaptureSweepModel::setDecision(int decision) {
    if (decision < -1 || decision >= decisionCount() || decision == decision_) return;
    beginResetModel();
    decision_ = decision;
    endResetModel();
}

const FlaDecisionRun* CaptureSweepModel::currentDecision() const {
    return decision_ >= 0 && decision_ < decisionCount() ? &sweep_.sweep.decisions[std::size_t(decision_)] : nullptr;
}

const FlaDecisionConfig* CaptureSweepModel::chosenConfig() const {
    const FlaDecisionRun* d = currentDecision();
    if (!d || !d->chosen) return nullptr;
    for (const FlaDecisionConfig& c : d->configs)
        if (c.config == *d->chosen) return &c;
    return nullptr;
}

int CaptureSweepModel::rowCount(const QModelIndex& parent) const {
    const FlaDecisionRun* d = currentDecision();
    return parent.isValid() || !d ? 0 : int(d->configs.size());
}

int CaptureSweepModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return comparison_ ? int(ColumnCount) : int(OtherTotalColumn);
}

QVariant CaptureSweepModel::data(const QModelIndex& index, int role) const {
    const FlaDecisionRun* d = currentDecision();
    if (!d || !index.isValid() || index.row() >= int(d->configs.size())) return {};
    const FlaDecisionConfig& c = d->configs[std::size_t(index.row())];
    const FlaDecisionConfig* chosen = chosenConfig();
    const bool isChosen = d->chosen && c.config == *d->chosen;
    const bool isFla = d->capturedChoice && c.config == *d->capturedChoice;
    const double ratio = chosen && c.eligible && chosen->totalMs > 0 ? c.totalMs / chosen->totalMs : 0.0;
    const FlaCaptureCompareConfig* other = comparedConfig(c.config);
    const FlaCaptureCompareDecision* otherDecision = comparedDecision();
    const bool isOtherChoice = otherDecision && otherDecision->chosenB && c.config == *otherDecision->chosenB;
    if (role == SortRole) {
        switch (index.column()) {
        case ConfigColumn: return qulonglong(c.config);
        case TotalColumn: return c.eligible ? c.totalMs : 1e300;
        case P20Column: return c.eligible ? c.totalP20Ms : 1e300;
        case P80Column: return c.eligible ? c.totalP80Ms : 1e300;
        case RatioColumn: return c.eligible ? ratio : 1e300;
        case OtherTotalColumn: return other && other->totalB ? *other->totalB : 1e300;
        case OtherRatioColumn: return other && other->ratio ? *other->ratio : 1e300;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == EligibleColumn && !c.eligible) return QString::fromStdString(c.why);
    if (role == Qt::ForegroundRole && !c.eligible) return QBrush(QColor(0x80, 0x80, 0x80));
    if (role == Qt::TextAlignmentRole &&
        ((index.column() >= TotalColumn && index.column() <= RatioColumn) || index.column() >= OtherTotalColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    const auto us = [](double ms) { return QStringLiteral("%1 us").arg(ms * 1000.0, 0, 'f', 2); };
    switch (index.column()) {
    case ConfigColumn: return qulonglong(c.config);
    case LabelColumn: return QString::fromStdString(c.label);
    case EligibleColumn: return c.eligible ? tr("yes") : tr("no: %1").arg(QString::fromStdString(c.why));
    case TotalColumn: return c.eligible ? us(c.totalMs) : QString();
    case P20Column: return c.eligible ? us(c.totalP20Ms) : QString();
    case P80Column: return c.eligible ? us(c.totalP80Ms) : QString();
    case RatioColumn: return c.eligible && ratio > 0 ? QStringLiteral("x%1").arg(ratio, 0, 'f', 3) : QString();
    case PickColumn: {
        QStringList marks;
        if (isChosen) marks << tr("chosen");
        if (isFla) marks << tr("FLA's autotune");
        if (isOtherChoice) marks << tr("the other run's choice");
        return marks.join(QStringLiteral(", "));
    }
    case OtherTotalColumn: return other && other->totalB ? us(*other->totalB) : QString();
    case OtherRatioColumn: return other && other->ratio ? QStringLiteral("x%1").arg(*other->ratio, 0, 'f', 4) : QString();
    default: return {};
    }
}

QVariant CaptureSweepModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ConfigColumn: return tr("Config");
    case LabelColumn: return tr("Launch settings");
    case EligibleColumn: return tr("Eligible");
    case TotalColumn: return tr("Total (median)");
    case P20Column: return tr("p20");
    case P80Column: return tr("p80");
    case RatioColumn: return tr("vs chosen");
    case PickColumn: return tr("Picked by");
    case OtherTotalColumn: return tr("Other run's total");
    case OtherRatioColumn: return tr("Other / this");
    default: return {};
    }
}

}  // namespace tunescope::ui
