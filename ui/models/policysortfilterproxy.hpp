#pragma once
// The policy table as the editor shows it: sorted by any column through PolicyTableModel::SortRole (numbers as
// numbers; entries without a measurement sort last) and filtered by words that must all match. "bt=16" or
// "basis=prospective-manual-edit" match one column exactly (keys are the column names, "warps" and "stages" too);
// any other word matches part of any cell ("prospective", "BT16 w4", "not converged"). Edits pass through to the
// source row, whatever the order.
#include <QSortFilterProxyModel>
#include <QStringList>

namespace tunescope::ui {

class PolicySortFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit PolicySortFilterProxy(QObject* parent = nullptr);
    void setFilterWords(const QString& text);
    QString filterWords() const { return words_.join(QLatin1Char(' ')); }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    int columnForKey(const QString& key) const;
    QStringList words_;
};

}  // namespace tunescope::ui
