#pragma once
// Table conveniences every results table shares: the selection (or the whole table) as CSV, and a "Copy as CSV"
// action (Ctrl+C on the table, and its context menu) that puts it on the clipboard.
#include <QString>

class QTableView;

namespace tunescope::ui {

// RFC 4180 CSV of the view's selected cells (or of every row when nothing is selected), header row first, in the
// view's current (sorted, filtered) order; only columns with a selected cell (or all) are written.
QString tableToCsv(const QTableView* view);

// Adds "Copy as CSV" (Ctrl+C while the table has focus) to the table's context menu.
void installCopyAsCsv(QTableView* view);

}  // namespace tunescope::ui
