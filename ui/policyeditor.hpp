#pragma once
// The policy editor page: the lookup box, the NB table with legal-only editors, "apply this config to the
// selected NBs", and a banner with the signature status of the file.
#include <QPointer>
#include <QWidget>

class QLabel;
class QTableView;

namespace tunescope::ui {

class LookupBox;
class PolicyTableModel;
class ProfileDocument;
class ResultsDocument;

class PolicyEditor : public QWidget {
    Q_OBJECT
public:
    PolicyEditor(ProfileDocument* document, ResultsDocument* results, QWidget* parent = nullptr);

    PolicyTableModel* model() { return model_; }
    QTableView* view() { return view_; }
    LookupBox* lookupBox() { return lookup_; }
    QLabel* signatureBanner() { return banner_; }

    // Selects and shows the cell a JSON Pointer names; false when the pointer is not in the table.
    bool jumpToPointer(const QString& pointer);
    // Rows currently selected (sorted).
    QList<int> selectedRows() const;
    void setSignatureText(const QString& text, bool good);

public slots:
    // Applies the config of the current row to every selected row (one undo step).
    bool applyCurrentConfigToSelection();

signals:
    void message(const QString& text);

private:
    QPointer<ProfileDocument> document_;
    PolicyTableModel* model_;
    QTableView* view_;
    LookupBox* lookup_;
    QLabel* banner_;
};

}  // namespace tunescope::ui
