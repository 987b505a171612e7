#include "pages/policyeditor.hpp"

#include <algorithm>

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "models/policysortfilterproxy.hpp"
#include "models/policytablemodel.hpp"
#include "widgets/choicedelegate.hpp"
#include "widgets/lookupbox.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {

PolicyEditor::PolicyEditor(ProfileDocument* document, ResultsDocument* results, QWidget* parent)
    : QWidget(parent), document_(document), model_(new PolicyTableModel(document, this)),
      proxy_(new PolicySortFilterProxy(this)), view_(new QTableView(this)), filter_(new QLineEdit(this)),
      lookup_(new LookupBox(document, this)), banner_(new QLabel(this)) {
    setObjectName(QStringLiteral("policyEditor"));
    auto* layout = new QVBoxLayout(this);
    banner_->setObjectName(QStringLiteral("signatureBanner"));
    banner_->setTextFormat(Qt::PlainText);
    banner_->setWordWrap(true);
    banner_->setVisible(false);
    banner_->setMargin(4);
    layout->addWidget(banner_);
    layout->addWidget(lookup_);

    auto* tools = new QHBoxLayout;
    auto* apply = new QPushButton(tr("Apply config of current row to selected NBs"), this);
    apply->setObjectName(QStringLiteral("applyConfigButton"));
    apply->setToolTip(tr("Select NB rows (Ctrl/Shift-click), make the row whose config you want current, then apply. "
                         "One undo step; the entries become prospective-manual-edit."));
    auto* undo = new QPushButton(tr("Undo"), this);
    auto* redo = new QPushButton(tr("Redo"), this);
    undo->setEnabled(false);
    redo->setEnabled(false);
    connect(document->undoStack(), &QUndoStack::canUndoChanged, undo, &QPushButton::setEnabled);
    connect(document->undoStack(), &QUndoStack::canRedoChanged, redo, &QPushButton::setEnabled);
    connect(undo, &QPushButton::clicked, document->undoStack(), &QUndoStack::undo);
    connect(redo, &QPushButton::clicked, document->undoStack(), &QUndoStack::redo);
    tools->addWidget(apply);
    filter_->setObjectName(QStringLiteral("policyFilter"));
    filter_->setPlaceholderText(tr("Filter rows (e.g. nb=14, bt=16, prospective, not converged)"));
    filter_->setToolTip(tr("Words that must all match: key=value matches one column exactly (nb, bt, warps, stages, "
                           "ctas, maxnreg, basis); any other word matches part of any cell. Click a header to sort."));
    filter_->setClearButtonEnabled(true);
    filter_->setMinimumWidth(160);
    tools->addWidget(filter_, 1);
    auto* legend = new QLabel(tr("Yellow bold cells differ from the file on disk; hover for the saved value."), this);
    legend->setStyleSheet(QStringLiteral("color: gray"));
    tools->addWidget(legend);
    tools->addWidget(undo);
    tools->addWidget(redo);
    layout->addLayout(tools);

    view_->setObjectName(QStringLiteral("policyTable"));
    proxy_->setSourceModel(model_);
    view_->setModel(proxy_);
    // NB ascending is the profile's own order; any header click sorts by that column (numbers as numbers).
    view_->horizontalHeader()->setSortIndicator(PolicyTableModel::NbColumn, Qt::AscendingOrder);
    view_->setSortingEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &PolicySortFilterProxy::setFilterWords);
    view_->setItemDelegate(new ChoiceDelegate(view_));
    // Tab moves on to the next widget (arrows move between cells): a table that swallows Tab traps keyboard users.
    view_->setTabKeyNavigation(false);
    installCopyAsCsv(view_);  // Ctrl+C / context menu: the selected cells (or the whole table) as CSV
    view_->setSelectionBehavior(QAbstractItemView::SelectItems);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                           QAbstractItemView::SelectedClicked);
    view_->setAlternatingRowColors(true);
    view_->setWordWrap(false);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    view_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(view_, 1);
    model_->setResults(results);

    // Columns fit their text after every change (a streaming sweep and edits change the regret and evidence
    // texts without a reset); coalesced, as a sweep changes cells many times a second.
    auto* resizeTimer = new QTimer(this);
    resizeTimer->setSingleShot(true);
    resizeTimer->setInterval(0);
    connect(resizeTimer, &QTimer::timeout, this, [this] { view_->resizeColumnsToContents(); });
    auto resize = [resizeTimer] { resizeTimer->start(); };
    connect(model_, &QAbstractItemModel::modelReset, this, resize);
    connect(model_, &QAbstractItemModel::columnsInserted, this, resize);
    connect(model_, &QAbstractItemModel::dataChanged, this, resize);
    connect(apply, &QPushButton::clicked, this, &PolicyEditor::applyCurrentConfigToSelection);
    view_->resizeColumnsToContents();
}

QModelIndex PolicyEditor::viewIndex(const QModelIndex& sourceIndex) const { return proxy_->mapFromSource(sourceIndex); }

QList<int> PolicyEditor::selectedRows() const {
    QList<int> rows;
    for (const QModelIndex& index : view_->selectionModel()->selectedIndexes()) {
        const int row = proxy_->mapToSource(index).row();
        if (!rows.contains(row)) rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

bool PolicyEditor::applyCurrentConfigToSelection() {
    const QModelIndex current = proxy_->mapToSource(view_->currentIndex());
    const QList<int> rows = selectedRows();
    if (!current.isValid() || rows.isEmpty()) {
        emit message(tr("Select the NB rows to change and make the source row current first."));
        return false;
    }
    const bool changed = model_->applyConfigOfRow(current.row(), rows);
    emit message(changed ? tr("Applied the config of NB %1 to %2 row(s).").arg(model_->nbOfRow(current.row())).arg(rows.size())
                         : tr("The selected rows already have that config."));
    return changed;
}

bool PolicyEditor::jumpToPointer(const QString& pointer) {
    const QModelIndex source = model_->indexForPointer(pointer);
    if (!source.isValid()) return false;
    if (!viewIndex(source).isValid()) filter_->clear();  // the row the diagnostic names must be shown
    const QModelIndex index = viewIndex(source);
    view_->setCurrentIndex(index);
    view_->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect);
    view_->scrollTo(index, QAbstractItemView::PositionAtCenter);
    view_->setFocus(Qt::OtherFocusReason);
    return true;
}

void PolicyEditor::setSignatureText(const QString& text, bool good) {
    banner_->setText(text);
    banner_->setVisible(!text.isEmpty());
    banner_->setStyleSheet(good ? QStringLiteral("background: #dff0d8; color: #1e4620; border-radius: 3px")
                                : QStringLiteral("background: #fcf8e3; color: #5c4400; border-radius: 3px"));
}

}  // namespace tunescope::ui
