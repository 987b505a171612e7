#include "models/diffmodel.hpp"

#include <QBrush>

namespace tunescope::ui {
namespace {

QString entryConfig(const std::optional<PolicyEntry>& entry) {
    return entry ? QString::fromStdString(describe(entry->config)) : QStringLiteral("-");
}

}  // namespace

void DiffModel::setDiff(ProfileDiff diff) {
    beginResetModel();
    diff_ = std::move(diff);
    endResetModel();
}

int DiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(diff_.policy.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const PolicyChange& change = diff_.policy[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) return QString::fromStdString(formatPolicyChange(change));
    if (role == Qt::BackgroundRole) {
        if (index.column() == BeforeColumn && change.configChanged) return QBrush(QColor(255, 225, 225));
        if (index.column() == AfterColumn && change.configChanged) return QBrush(QColor(220, 245, 220));
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case NbColumn: return QVariant::fromValue<qlonglong>(change.NB);
    case ChangeColumn:
        switch (change.kind) {
        case PolicyChange::Kind::Changed: return tr("changed");
        case PolicyChange::Kind::Added: return tr("added");
        case PolicyChange::Kind::Removed: return tr("removed");
        }
        return {};
    case BeforeColumn: return entryConfig(change.before);
    case AfterColumn: return entryConfig(change.after);
    case BasisColumn: {
        const QString before = change.before ? QString::fromStdString(change.before->basis) : QStringLiteral("-");
        const QString after = change.after ? QString::fromStdString(change.after->basis) : QStringLiteral("-");
        return change.basisChanged ? QString(before + QStringLiteral(" -> ") + after) : after;
    }
    case FieldsColumn: {
        QStringList fields;
        for (const auto& field : change.changedConfigFields) fields.push_back(QString::fromStdString(field));
        if (change.evidenceChanged) fields.push_back(tr("evidence"));
        return fields.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NbColumn: return tr("NB");
    case ChangeColumn: return tr("change");
    case BeforeColumn: return tr("left config");
    case AfterColumn: return tr("right config");
    case BasisColumn: return tr("basis");
    case FieldsColumn: return tr("changed fields");
    default: return {};
    }
}

}  // namespace tunescope::ui
