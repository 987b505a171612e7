#pragma once
// The policy editor page: the lookup box, the NB table with legal-only editors, "apply this config to the
// selected NBs", and a banner with the signature status of the file.
#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QModelIndex;
class QTableView;

namespace tunescope::ui {

class LookupBox;
class PolicySortFilterProxy;
class PolicyTableModel;
class ProfileDocument;
class ResultsDocument;

class PolicyEditor : public QWidget {
    Q_OBJECT
public:
    PolicyEditor(ProfileDocument* document, ResultsDocument* results, QWidget* parent = nullptr);

    // The source model (one row per policy entry, in the profile's order) and the sorted, filtered view over it.
    PolicyTableModel* model() { return model_; }
    PolicySortFilterProxy* proxy() { return proxy_; }
    QTableView* view() { return view_; }
    QLineEdit* filterEdit() { return filter_; }
    // The view's index for a source-model index (invalid while the filter hides its row).
    QModelIndex viewIndex(const QModelIndex& sourceIndex) const;
    LookupBox* lookupBox() { return lookup_; }
    QLabel* signatureBanner() { return banner_; }

    // Selects and shows the cell a JSON Pointer names; false when the pointer is not in the table.
    bool jumpToPointer(const QString& pointer);
    // Source-model rows currently selected (sorted), whatever the view's order.
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
    PolicySortFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    LookupBox* lookup_;
    QLabel* banner_;
};

}  // namespace tunescope::ui
