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
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/flaconfigdirmodel.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
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
    : QWidget(parent), model_(new FlaConfigDirModel(this)), proxy_(new QSortFilterProxyModel(this)),
      summary_(new QLabel(this)), comparison_(new QLabel(this)), compare_(new QPushButton(tr("Compare with..."), this)),
      stopComparing_(new QPushButton(tr("Stop comparing"), this)), kernels_(new QComboBox(this)),
      table_(new QTableView(this)) {
    setObjectName(QStringLiteral("flaConfigDirView"));
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(FlaConfigDirModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the file's order until a header is clicked
    proxy_->sort(-1);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setStretchLastSection(true);
    installCopyAsCsv(table_);
    for (QLabel* label : {summary_, comparison_}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    summary_->setText(tr("No FLA_CONFIG_DIR open. Make one with tunescope-cli capture export-fla M.json --choices "
                         "C.json --out DIR, then File > Open FLA_CONFIG_DIR."));
    comparison_->setVisible(false);
    kernels_->setObjectName(QStringLiteral("flaConfigDirKernel"));
    kernels_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    compare_->setEnabled(false);
    stopComparing_->setEnabled(false);

    auto* open = new QPushButton(tr("Open folder..."), this);
    connect(open, &QPushButton::clicked, this, &FlaConfigDirView::openDialog);
    connect(compare_, &QPushButton::clicked, this, &FlaConfigDirView::compareDialog);
    connect(stopComparing_, &QPushButton::clicked, this, &FlaConfigDirView::stopComparing);
    auto* buttons = new QVBoxLayout;
    for (QPushButton* button : {open, compare_, stopComparing_}) buttons->addWidget(button);
    buttons->addStretch(1);
    auto* text = new QVBoxLayout;
    text->addWidget(summary_);
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
    std::optional<FlaConfigDir> dir = checkedFolder(path, error, &warnings);
    if (!dir) return false;
    path_ = path;
    QString text = tr("%1: %2. Each row is the config FLA_CACHE_MODE=strict loads for one autotune key; best timings "
                      "are Triton's p50 with p20-p80.")
                       .arg(QString::fromStdString(dir->folder.string()), QString::fromStdString(flaConfigDirSummary(*dir)));
    for (const QString& w : warnings) text += tr("\nwarning: %1").arg(w);
    summary_->setText(text);
    model_->setDir(std::move(*dir));
    fillKernels();
    showComparison();
    compare_->setEnabled(true);
    emit folderOpened(path);
    return true;
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
