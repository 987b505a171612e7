#include "plots/qcustomplot_include.hpp"  // first: it decides QT_NO_FOREACH for this file

#include "pages/capturesweepview.hpp"

#include <optional>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/capturesweepmodel.hpp"
#include "tunescope/base/errors.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {

CaptureSweepView::CaptureSweepView(QWidget* parent)
    : QWidget(parent), model_(new CaptureSweepModel(this)), proxy_(new QSortFilterProxyModel(this)),
      summary_(new QLabel(this)), comparison_(new QLabel(this)), stopComparing_(new QPushButton(tr("Stop comparing"), this)),
      decisions_(new QComboBox(this)), table_(new QTableView(this)), plot_(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("captureSweepView"));
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(CaptureSweepModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    proxy_->sort(-1);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setStretchLastSection(true);
    installCopyAsCsv(table_);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(tr("No capture sweep open. Make one with tunescope-cli sweep --manifest M.json --triton-cache DIR "
                         "--out sweep.json on a GPU, then File > Open."));
    decisions_->setObjectName(QStringLiteral("captureSweepDecision"));
    decisions_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    plot_->setMinimumHeight(180);
    plot_->yAxis->setLabel(tr("total over the key's launches (us)"));
    plot_->xAxis->setLabel(tr("config"));
    QSharedPointer<QCPAxisTickerFixed> configTicks(new QCPAxisTickerFixed);  // configs are whole numbers
    configTicks->setTickStep(1.0);
    configTicks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(configTicks);
    plot_->legend->setVisible(true);

    comparison_->setObjectName(QStringLiteral("captureSweepComparison"));
    comparison_->setWordWrap(true);
    comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    comparison_->setVisible(false);
    stopComparing_->setVisible(false);
    auto* open = new QPushButton(tr("Open sweep..."), this);
    connect(open, &QPushButton::clicked, this, &CaptureSweepView::openDialog);
    auto* compare = new QPushButton(tr("Compare with..."), this);
    compare->setObjectName(QStringLiteral("captureSweepCompare"));
    compare->setToolTip(tr("Another capture sweep (another GPU, stack or day): its totals beside these, its choices, "
                           "and what this run's choices cost there"));
    connect(compare, &QPushButton::clicked, this, &CaptureSweepView::compareDialog);
    connect(stopComparing_, &QPushButton::clicked, this, &CaptureSweepView::stopComparing);
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(compare);
    buttons->addWidget(stopComparing_);
    buttons->addStretch(1);
    auto* text = new QVBoxLayout;
    text->addWidget(summary_);
    text->addWidget(comparison_);
    auto* top = new QHBoxLayout;
    top->addLayout(text, 1);
    top->addLayout(buttons, 0);
    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Kernel and key:"), this));
    pick->addWidget(decisions_, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(plot_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(pick);
    layout->addWidget(split, 1);
    connect(decisions_, &QComboBox::currentIndexChanged, this, &CaptureSweepView::showDecision);
}

namespace {

// Every fault of a refused file as FILE: at /pointer: message, one per line.
QString faultLines(const FlaCaptureSweepCheck& check) {
    QStringList lines;
    for (const FlaCaptureFault& f : check.faults) lines << QString::fromStdString(Error(check.file, f.pointer, f.message).what());
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

bool CaptureSweepView::openSweep(const QString& path, QString* error) {
    const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(path.toStdString());
    if (!check.sweep) {
        if (error) *error = faultLines(check);
        return false;
    }
    path_ = path;
    const FlaCaptureSweepFile& s = *check.sweep;
    std::size_t chosen = 0, differs = 0;
    for (const FlaDecisionRun& d : s.sweep.decisions) {
        chosen += d.chosen.has_value();
        differs += d.chosen && d.capturedChoice && *d.chosen != *d.capturedChoice;
    }
    summary_->setText(tr("%1: %2, timer %3, L2 %4, %5 rounds; %6 launches, %7 decisions (kernel, key), %8 with a "
                         "chosen config, %9 where FLA's own autotune chose another. Totals are medians summed over "
                         "the key's launches; bars are p20-p80.")
                          .arg(path, QString::fromStdString(s.sweep.device), QString::fromStdString(s.sweep.timer),
                               QString::fromStdString(s.l2))
                          .arg(s.rounds)
                          .arg(s.sweep.launches.size())
                          .arg(s.sweep.decisions.size())
                          .arg(chosen)
                          .arg(differs));
    model_->setSweep(*check.sweep);
    {
        const QSignalBlocker block(decisions_);
        decisions_->clear();
        for (int i = 0; i < model_->decisionCount(); ++i) decisions_->addItem(model_->decisionLabel(i));
        decisions_->setCurrentIndex(model_->decisionCount() > 0 ? 0 : -1);
    }
    comparison_->clear();  // setSweep dropped the comparison: it was of the sweep this one replaces
    comparison_->setVisible(false);
    stopComparing_->setVisible(false);
    showDecision(decisions_->currentIndex());
    emit sweepOpened(path);
    return true;
}

bool CaptureSweepView::compareWith(const QString& path, QString* error) {
    if (path_.isEmpty()) {
        if (error) *error = tr("Open a capture sweep first: the comparison is of that sweep with %1").arg(path);
        return false;
    }
    const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(path.toStdString());
    if (!check.sweep) {
        if (error) *error = faultLines(check);
        return false;
    }
    model_->setComparison(compareFlaCaptureSweeps(model_->sweep(), path_.toStdString(), *check.sweep, path.toStdString()));
    comparison_->setVisible(true);
    stopComparing_->setVisible(true);
    showDecision(decisions_->currentIndex());
    return true;
}

void CaptureSweepView::stopComparing() {
    model_->setComparison(std::nullopt);
    comparison_->clear();
    comparison_->setVisible(false);
    stopComparing_->setVisible(false);
    showDecision(decisions_->currentIndex());
}

QString CaptureSweepView::comparisonText() const { return comparison_->text(); }

// The whole comparison in one line, then the current decision's.
void CaptureSweepView::updateComparisonText() {
    const FlaCaptureComparison* c = model_->comparison();
    if (!c) return;
    QString text = tr("Compared with %1 (%2): %3 of %4 decisions chose the same config")
                       .arg(QString::fromStdString(c->fileB), QString::fromStdString(c->deviceB))
                       .arg(c->sameChoices)
                       .arg(c->decisions.size());
    if (c->worstRegret)
        text += tr("; keeping this run's choices costs at most %1% there (%2)")
                    .arg(*c->worstRegret * 100.0, 0, 'f', 2)
                    .arg(QString::fromStdString(c->worstRegretDecision));
    text += tr("; geometric mean of the configs' totals other / this: %1.").arg(c->geomeanRatio, 0, 'f', 4);
    if (!c->sameCapture()) text += tr(" The runs replayed different captures: only shared kernels and keys compare.");
    if (c->onlyInA + c->onlyInB > 0)
        text += tr(" %1 decisions only here, %2 only in the other run.").arg(c->onlyInA).arg(c->onlyInB);
    const FlaCaptureCompareDecision* d = model_->comparedDecision();
    if (!d) {
        text += tr("\nThis kernel and key: not in the other run.");
    } else if (d->sameChoice()) {
        text += tr("\nThis kernel and key: both runs chose config %1.").arg(qulonglong(*d->chosenA));
    } else if (d->regretOfAChoiceOnB) {
        text += tr("\nThis kernel and key: the other run chose config %1; this run's choice costs %2% there (%3).")
                    .arg(d->chosenB ? QString::number(qulonglong(*d->chosenB)) : QStringLiteral("-"))
                    .arg(*d->regretOfAChoiceOnB * 100.0, 0, 'f', 2)
                    .arg(d->aChoiceWithinBSpread ? tr("inside its p20-p80: a tie there") : tr("outside its p20-p80"));
    } else {
        text += tr("\nThis kernel and key: this run's choice was not measured in the other run.");
    }
    if (d && d->rankCorrelation) text += tr(" Rank agreement (Spearman): %1.").arg(*d->rankCorrelation, 0, 'f', 3);
    comparison_->setText(text);
}

void CaptureSweepView::showDecision(int decision) {
    model_->setDecision(decision);
    table_->resizeColumnsToContents();
    updateComparisonText();
    replot();
}

void CaptureSweepView::replot() {
    plot_->clearPlottables();
    const FlaDecisionRun* d = model_->currentDecision();
    if (!d) {
        plot_->replot();
        return;
    }
    // One series for every eligible config, one for the chosen, one for FLA's choice (drawn over it).
    auto series = [&](const QString& name, const QColor& colour, QCPScatterStyle::ScatterShape shape, double size) {
        QCPGraph* g = plot_->addGraph();
        g->setName(name);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(shape, colour, colour, size));
        return g;
    };
    QCPGraph* all = series(tr("eligible configs"), QColor(0x40, 0x60, 0xa0), QCPScatterStyle::ssDisc, 6);
    QCPGraph* chosen = series(tr("chosen"), QColor(0x20, 0x90, 0x30), QCPScatterStyle::ssDiamond, 11);
    QCPGraph* fla = series(tr("FLA's autotune"), QColor(0xc0, 0x50, 0x20), QCPScatterStyle::ssCross, 12);
    auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    bars->setName(tr("p20-p80"));
    bars->setDataPlottable(all);
    QVector<double> x, y, below, above;
    double low = 1e300, high = 0;
    for (const FlaDecisionConfig& c : d->configs) {
        if (!c.eligible) continue;
        const double us = c.totalMs * 1000.0;
        x << double(c.config);
        y << us;
        below << us - c.totalP20Ms * 1000.0;
        above << c.totalP80Ms * 1000.0 - us;
        low = std::min(low, c.totalP20Ms * 1000.0);
        high = std::max(high, c.totalP80Ms * 1000.0);
        if (d->chosen && c.config == *d->chosen) chosen->addData(double(c.config), us);
        if (d->capturedChoice && c.config == *d->capturedChoice) fla->addData(double(c.config), us);
    }
    all->setData(x, y);
    bars->setData(below, above);
    if (const FlaCaptureCompareDecision* other = model_->comparedDecision()) {
        QCPGraph* b = series(tr("the other run"), QColor(0x90, 0x40, 0xa0), QCPScatterStyle::ssTriangle, 7);
        for (const FlaCaptureCompareConfig& c : other->configs) {
            if (!c.totalB) continue;
            b->addData(double(c.config), *c.totalB * 1000.0);
            low = std::min(low, *c.totalB * 1000.0);
            high = std::max(high, *c.totalB * 1000.0);
        }
    }
    plot_->xAxis->setRange(-0.5, double(d->configs.empty() ? 1 : d->configs.back().config) + 0.5);
    if (high > 0) plot_->yAxis->setRange(low - 0.05 * (high - low) - 1e-3, high + 0.05 * (high - low) + 1e-3);
    plot_->replot();
}

QString CaptureSweepView::summaryText() const { return summary_->text(); }

void CaptureSweepView::compareDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Compare with another capture sweep"), QString(), tr("Sweep results (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!compareWith(path, &error)) {
        comparison_->setVisible(true);
        comparison_->setText(tr("Could not compare with %1:\n%2").arg(path, error));
    }
}

void CaptureSweepView::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open capture sweep"), QString(), tr("Sweep results (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openSweep(path, &error)) summary_->setText(tr("Could not open %1:\n%2").arg(path, error));
}

}  // namespace tunescope::ui
