#pragma once
// The validator's diagnostics as a table (severity, rule, path, message), and the panel that shows them, re-runs
// the core's validateProfile() shortly after every edit, and asks to jump to the cell a diagnostic names.
#include <QAbstractTableModel>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include "tunescope/formats/validation.hpp"

class QLabel;
class QTableView;

namespace tunescope::ui {

class ProfileDocument;

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

class ValidationPanel : public QWidget {
    Q_OBJECT
public:
    explicit ValidationPanel(ProfileDocument* document, QWidget* parent = nullptr);

    ValidationModel* model() { return model_; }
    QTableView* view() { return view_; }
    // Validates now (the panel otherwise waits a moment after the last edit, so typing stays smooth).
    void revalidate();
    // "1 error, 19 warnings" of the last validation (empty with no profile), and the panel's summary line.
    QString countsText() const { return counts_; }
    QString summaryText() const;
    // The current diagnostic in full, wrapped (the table's message column cuts long messages to its width).
    QLabel* details() { return details_; }

signals:
    // The user activated a diagnostic: show the value at this JSON Pointer.
    void jumpRequested(const QString& pointer);
    void summaryChanged(const QString& summary);

private:
    void scheduleRevalidate();
    void activate(const QModelIndex& index);

    QPointer<ProfileDocument> document_;
    ValidationModel* model_;
    QTableView* view_;
    QLabel* summary_;
    QLabel* details_;
    QString counts_;
    QTimer debounce_;
};

}  // namespace tunescope::ui
