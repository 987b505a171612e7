#include "pages/flaconfigdirview.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

#include "documents/flaconfigdirdocument.hpp"
#include "models/flaconfigdirmodel.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "widgets/flaconfigdelegate.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {
namespace {

// The folder when it checks; otherwise every fault, each naming its file and the JSON Pointer inside it.
std::optional<FlaConfigDir> checkedFolder(const QString& path, QString* error, QStringList* warnings = nullptr) {
    FlaConfigDirCheck check = checkFlaConfigDir(path.toStdString());
    if (!check.dir) {
        if (error) {
            QStringList lines;
            for (const Error& fault : check.faults) lines << QString::fromStdString(fault.what());
            *error = lines.join(QLatin1Char('\n'));
        }
        return std::nullopt;
    }
    if (warnings)
        for (const std::string& w : check.warnings) *warnings << QString::fromStdString(w);
    return std::move(check.dir);
}

}  // namespace

FlaConfigDirView::FlaConfigDirView(QWidget* parent)
    : QWidget(parent), document_(new FlaConfigDirDocument(this)), model_(new FlaConfigDirModel(this)),
      proxy_(new QSortFilterProxyModel(this)), summary_(new QLabel(this)), comparison_(new QLabel(this)),
      edit_(new QLabel(this)), attach_(new QPushButton(tr("Attach capture..."), this)),
      save_(new QPushButton(tr("Save folder"), this)), undo_(new QPushButton(tr("Undo"), this)),
      redo_(new QPushButton(tr("Redo"), this)), compare_(new QPushButton(tr("Compare with..."), this)),
      stopComparing_(new QPushButton(tr("Stop comparing"), this)), kernels_(new QComboBox(this)),
      table_(new QTableView(this)) {
    setObjectName(QStringLiteral("flaConfigDirView"));
    model_->setDocument(document_);  // first: the model has the folder before the page's own slots run
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(FlaConfigDirModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the file's order until a header is clicked
    proxy_->sort(-1);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setStretchLastSection(true);
    installCopyAsCsv(table_);
    // The config column's editor: only the configs the capture compiled for every launch of the key.
    table_->setItemDelegateForColumn(model_->section(FlaConfigDirModel::ConfigColumn), new FlaConfigDelegate(table_));
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                            QAbstractItemView::EditKeyPressed);
    for (QLabel* label : {summary_, comparison_, edit_}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    summary_->setText(tr("No FLA_CONFIG_DIR open. Make one with tunescope-cli capture export-fla M.json --choices "
                         "C.json --out DIR, then File > Open FLA_CONFIG_DIR."));
    comparison_->setVisible(false);
    edit_->setVisible(false);
    edit_->setObjectName(QStringLiteral("flaConfigDirEditState"));
    kernels_->setObjectName(QStringLiteral("flaConfigDirKernel"));
    kernels_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (QPushButton* button : {attach_, save_, undo_, redo_, compare_, stopComparing_}) button->setEnabled(false);
    attach_->setObjectName(QStringLiteral("flaConfigDirAttach"));
    save_->setObjectName(QStringLiteral("flaConfigDirSave"));
    save_->setToolTip(tr("Write the edited entries into the folder (every file atomically; choices source "
                         "\"edited\"). The window's Ctrl+S saves the profile, not this folder."));
    undo_->setObjectName(QStringLiteral("flaConfigDirUndo"));
    redo_->setObjectName(QStringLiteral("flaConfigDirRedo"));

    auto* open = new QPushButton(tr("Open folder..."), this);
    connect(open, &QPushButton::clicked, this, &FlaConfigDirView::openDialog);
    connect(attach_, &QPushButton::clicked, this, &FlaConfigDirView::attachDialog);
    connect(save_, &QPushButton::clicked, this, &FlaConfigDirView::saveClicked);
    QUndoStack* undo = document_->undoStack();
    connect(undo, &QUndoStack::canUndoChanged, undo_, &QPushButton::setEnabled);
    connect(undo, &QUndoStack::canRedoChanged, redo_, &QPushButton::setEnabled);
    connect(undo, &QUndoStack::undoTextChanged, undo_, [this](const QString& t) { undo_->setToolTip(t); });
    connect(undo, &QUndoStack::redoTextChanged, redo_, [this](const QString& t) { redo_->setToolTip(t); });
    connect(undo_, &QPushButton::clicked, undo, &QUndoStack::undo);
    connect(redo_, &QPushButton::clicked, undo, &QUndoStack::redo);
    connect(compare_, &QPushButton::clicked, this, &FlaConfigDirView::compareDialog);
    connect(stopComparing_, &QPushButton::clicked, this, &FlaConfigDirView::stopComparing);
    connect(document_, &FlaConfigDirDocument::reset, this, [this] {
        fillKernels();
        showComparison();
        showSummary();
        showEditState();
    });
    connect(document_, &FlaConfigDirDocument::choicesChanged, this, [this] {
        fillKernels();  // the labels, and the kernel's index where an edit gave a kernel its first file
        showComparison();
        showEditState();
    });
    connect(document_, &FlaConfigDirDocument::modifiedChanged, this, &FlaConfigDirView::showEditState);
    connect(document_, &FlaConfigDirDocument::saved, this, &FlaConfigDirView::showSummary);
    auto* buttons = new QVBoxLayout;
    for (QPushButton* button : {open, attach_, save_}) buttons->addWidget(button);
    auto* undoRedo = new QHBoxLayout;
    undoRedo->addWidget(undo_);
    undoRedo->addWidget(redo_);
    buttons->addLayout(undoRedo);
    for (QPushButton* button : {compare_, stopComparing_}) buttons->addWidget(button);
    buttons->addStretch(1);
    auto* text = new QVBoxLayout;
    text->addWidget(summary_);
    text->addWidget(edit_);
    text->addWidget(comparison_);
    auto* top = new QHBoxLayout;
    top->addLayout(text, 1);
    top->addLayout(buttons);
    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Kernel:"), this));
    pick->addWidget(kernels_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(pick);
    layout->addWidget(table_, 1);
    connect(kernels_, &QComboBox::currentIndexChanged, this, &FlaConfigDirView::showKernel);
}

bool FlaConfigDirView::openFolder(const QString& path, QString* error) {
    QStringList warnings;
    if (!document_->open(path, error, &warnings)) return false;  // the page as it was
    path_ = path;
    warnings_ = warnings;
    showSummary();
    compare_->setEnabled(true);
    emit folderOpened(path);
    return true;
}

void FlaConfigDirView::showSummary() {
    if (!document_->hasFolder()) return;
    const FlaConfigDir& dir = document_->disk();
    QString text = tr("%1: %2. Each row is the config FLA_CACHE_MODE=strict loads for one autotune key; best timings "
                      "are Triton's p50 with p20-p80.")
                       .arg(QString::fromStdString(dir.folder.string()), QString::fromStdString(flaConfigDirSummary(dir)));
    for (const QString& w : warnings_) text += tr("\nwarning: %1").arg(w);
    summary_->setText(text);
}

void FlaConfigDirView::showEditState() {
    const bool open = document_->hasFolder();
    edit_->setVisible(open);
    attach_->setEnabled(open && !document_->isModified());
    save_->setEnabled(document_->canEdit() && document_->isModified());
    if (!open) return;
    QString text = document_->captureStatus();
    if (document_->isModified())
        text += tr("\nUnsaved changes (marked): Save folder writes them into %1 with choices source \"edited\".")
                    .arg(QString::fromStdString(document_->disk().folder.string()));
    if (document_->signatureStale())
        text += tr("\nThe signature %1 no longer covers the folder: the save changed its manifest. Make it again: "
                   "tunescope-cli sign %2 --key K.")
                    .arg(document_->signaturePath(), QString::fromStdString(document_->disk().folder.string()));
    edit_->setText(text);
}

QString FlaConfigDirView::editText() const { return edit_->text(); }

bool FlaConfigDirView::attachCapture(const QString& manifest, QString* error) {
    return document_->attachCapture(manifest, error);
}

bool FlaConfigDirView::save(QString* error) { return document_->save(error); }

bool FlaConfigDirView::confirmDiscard() {
    if (!document_->isModified()) return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"), tr("The FLA_CONFIG_DIR %1 has unsaved changes. Save them?").arg(path_),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    QString error;
    if (save(&error)) return true;
    QMessageBox::warning(this, tr("Save FLA_CONFIG_DIR"), tr("Could not save %1:\n%2").arg(path_, error));
    return false;
}

void FlaConfigDirView::saveClicked() {
    QString error;
    if (!save(&error)) QMessageBox::warning(this, tr("Save FLA_CONFIG_DIR"), tr("Could not save %1:\n%2").arg(path_, error));
}

void FlaConfigDirView::attachDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Attach the FLA capture this folder was exported from"),
                                                      QString(), tr("FLA capture manifests (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!attachCapture(path, &error)) QMessageBox::warning(this, tr("Attach capture"), error);
}

bool FlaConfigDirView::compareWith(const QString& path, QString* error) {
    std::optional<FlaConfigDir> other = checkedFolder(path, error);
    if (!other) return false;
    comparisonPath_ = QString::fromStdString(other->folder.string());
    model_->setComparison(std::move(other));
    fillKernels();
    showComparison();
    return true;
}

void FlaConfigDirView::stopComparing() {
    comparisonPath_.clear();
    model_->setComparison(std::nullopt);
    fillKernels();
    showComparison();
}

void FlaConfigDirView::fillKernels() {
    {
        const QSignalBlocker block(kernels_);
        kernels_->clear();
        for (int i = 0; i < model_->kernelCount(); ++i) kernels_->addItem(model_->kernelLabel(i));
        kernels_->setCurrentIndex(model_->kernel());
    }
    showKernel(kernels_->currentIndex());
}

void FlaConfigDirView::showKernel(int kernel) {
    model_->setKernel(kernel);
    table_->resizeColumnsToContents();
}

void FlaConfigDirView::showComparison() {
    const std::optional<FlaConfigDirDiff>& diff = model_->diff();
    stopComparing_->setEnabled(diff.has_value());
    comparison_->setVisible(diff.has_value());
    if (!diff) {
        comparison_->clear();
        return;
    }
    // How many changes of each kind ("6 config, 6 best_timing"), in the order the diff first names them.
    std::vector<std::pair<std::string, int>> kinds;
    for (const FlaConfigDirChange& c : diff->entries) {
        auto kind = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == c.what; });
        if (kind == kinds.end()) kind = kinds.insert(kinds.end(), {c.what, 0});
        ++kind->second;
    }
    QStringList counts;
    for (const auto& [what, count] : kinds) counts << QStringLiteral("%1 %2").arg(count).arg(QString::fromStdString(what));
    QString text = tr("Compared with %1: %2 changes in entries%3, shown per key in the change column.")
                       .arg(comparisonPath_)
                       .arg(diff->entries.size())
                       .arg(counts.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(counts.join(QStringLiteral(", "))));
    QStringList other;
    for (const std::string& member : diff->other) other << QString::fromStdString(member);
    text += other.isEmpty() ? tr(" The manifests agree besides their files.")
                            : tr(" Manifest members that differ: %1.").arg(other.join(QStringLiteral(", ")));
    comparison_->setText(text);
}

QString FlaConfigDirView::summaryText() const { return summary_->text(); }
QString FlaConfigDirView::comparisonText() const { return comparison_->text(); }

void FlaConfigDirView::openDialog() {
    if (!confirmDiscard()) return;
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open FLA_CONFIG_DIR"));
    if (path.isEmpty()) return;
    QString error;
    if (!openFolder(path, &error)) summary_->setText(tr("Could not open %1:\n%2").arg(path, error));
}

void FlaConfigDirView::compareDialog() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Compare with FLA_CONFIG_DIR"));
    if (path.isEmpty()) return;
    QString error;
    if (!compareWith(path, &error)) {
        comparison_->setText(tr("Could not compare with %1:\n%2").arg(path, error));
        comparison_->setVisible(true);
    }
}

}  // namespace tunescope::ui
