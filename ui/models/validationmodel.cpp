#include "models/validationmodel.hpp"

#include <QApplication>
#include <QBrush>
#include <QStyle>

namespace tunescope::ui {

void ValidationModel::setResult(ValidationResult result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

const Diagnostic* ValidationModel::diagnostic(int row) const {
    if (row < 0 || row >= static_cast<int>(result_.diagnostics.size())) return nullptr;
    return &result_.diagnostics[static_cast<std::size_t>(row)];
}

int ValidationModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(result_.diagnostics.size());
}

int ValidationModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ValidationModel::data(const QModelIndex& index, int role) const {
    const Diagnostic* d = index.isValid() ? diagnostic(index.row()) : nullptr;
    if (!d || index.column() >= ColumnCount) return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn: return QString::fromUtf8(toString(d->severity).data(), static_cast<qsizetype>(toString(d->severity).size()));
        case RuleColumn: return QString::fromStdString(d->rule);
        case PathColumn: return d->path.empty() ? QStringLiteral("/") : QString::fromStdString(d->path);
        case MessageColumn: return QString::fromStdString(d->message);
        default: return {};
        }
    case Qt::ToolTipRole: return QString::fromStdString(formatDiagnostic(*d));
    case Qt::DecorationRole:
        if (index.column() != SeverityColumn) return {};
        switch (d->severity) {
        case Severity::Error: return QApplication::style()->standardIcon(QStyle::SP_MessageBoxCritical);
        case Severity::Warning: return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        case Severity::Info: return QApplication::style()->standardIcon(QStyle::SP_MessageBoxInformation);
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn && d->severity == Severity::Error) return QBrush(QColor(180, 0, 0));
        return {};
    case PointerRole: return QString::fromStdString(d->path);
    case SeverityRole: return static_cast<int>(d->severity);
    default: return {};
    }
}

QVariant ValidationModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SeverityColumn: return tr("severity");
    case RuleColumn: return tr("rule");
    case PathColumn: return tr("where (JSON Pointer)");
    case MessageColumn: return tr("message");
    default: return {};
    }
}

}  // namespace tunescope::ui
