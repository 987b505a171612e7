#include "models/policysortfilterproxy.hpp"

#include "models/policytablemodel.hpp"

namespace tunescope::ui {

PolicySortFilterProxy::PolicySortFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(PolicyTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void PolicySortFilterProxy::setFilterWords(const QString& text) {
    const QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words == words_) return;
    words_ = words;
    invalidateRowsFilter();
}

int PolicySortFilterProxy::columnForKey(const QString& key) const {
    const QString k = key.toLower();
    if (k == QLatin1String("warps")) return PolicyTableModel::WarpsColumn;
    if (k == QLatin1String("stages")) return PolicyTableModel::StagesColumn;
    if (k == QLatin1String("ctas")) return PolicyTableModel::CtasColumn;
    for (int column = 0; column < sourceModel()->columnCount(); ++column)
        if (sourceModel()->headerData(column, Qt::Horizontal).toString().toLower() == k) return column;
    return -1;
}

bool PolicySortFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QAbstractItemModel* source = sourceModel();
    for (const QString& word : words_) {
        const qsizetype equals = word.indexOf(QLatin1Char('='));
        const int keyColumn = equals > 0 ? columnForKey(word.left(equals)) : -1;
        if (keyColumn >= 0) {
            const QString cell = source->index(sourceRow, keyColumn, sourceParent).data().toString();
            if (cell.compare(word.mid(equals + 1), Qt::CaseInsensitive) != 0) return false;
            continue;
        }
        bool found = false;
        for (int column = 0; column < source->columnCount(sourceParent) && !found; ++column)
            found = source->index(sourceRow, column, sourceParent).data().toString().contains(word, Qt::CaseInsensitive);
        if (!found) return false;
    }
    return true;
}

bool PolicySortFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString)
        return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
    return a.toDouble() < b.toDouble();
}

}  // namespace tunescope::ui
