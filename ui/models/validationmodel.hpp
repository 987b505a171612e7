#pragma once
// The validator's diagnostics as a table (severity, rule, path, message); pages/validationpanel shows it.
#include <QAbstractTableModel>

#include "tunescope/formats/validation.hpp"

namespace tunescope::ui {

class ValidationModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, RuleColumn, PathColumn, MessageColumn, ColumnCount };
    enum Role { PointerRole = Qt::UserRole + 1, SeverityRole };

    using QAbstractTableModel::QAbstractTableModel;

    void setResult(ValidationResult result);
    const ValidationResult& result() const { return result_; }
    const Diagnostic* diagnostic(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ValidationResult result_;
};

}  // namespace tunescope::ui
