#include "widgets/tabletools.hpp"

#include <set>

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QTableView>

namespace tunescope::ui {
namespace {

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    return QLatin1Char('"') + QString(text).replace(QStringLiteral("\""), QStringLiteral("\"\"")) + QLatin1Char('"');
}

}  // namespace

QString tableToCsv(const QTableView* view) {
    const QAbstractItemModel* model = view->model();
    if (!model) return {};
    std::set<int> rows, columns;
    if (view->selectionModel())
        for (const QModelIndex& index : view->selectionModel()->selectedIndexes()) {
            rows.insert(index.row());
            columns.insert(index.column());
        }
    if (rows.empty()) {
        for (int row = 0; row < model->rowCount(); ++row) rows.insert(row);
        for (int column = 0; column < model->columnCount(); ++column) columns.insert(column);
    }
    QStringList lines;
    QStringList header;
    for (int column : columns) header << csvField(model->headerData(column, Qt::Horizontal).toString());
    lines << header.join(QLatin1Char(','));
    for (int row : rows) {
        QStringList fields;
        for (int column : columns) fields << csvField(model->index(row, column).data().toString());
        lines << fields.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void installCopyAsCsv(QTableView* view) {
    auto* copy = new QAction(QObject::tr("Copy as CSV"), view);
    copy->setObjectName(QStringLiteral("copyAsCsv"));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QAction::triggered, view, [view] { QGuiApplication::clipboard()->setText(tableToCsv(view)); });
    view->addAction(copy);
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace tunescope::ui
