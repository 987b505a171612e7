#pragma once
// The validation panel: the validator's diagnostics (models/validationmodel) for the open profile, re-run through
// the core's validateProfile() shortly after every edit; activating a diagnostic asks to jump to the value it names.
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QTableView;

namespace tunescope::ui {

class ProfileDocument;
class ValidationModel;

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
