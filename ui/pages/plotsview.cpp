#include "pages/plotsview.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

#include "documents/resultsdocument.hpp"
#include "plots/plotbinding.hpp"

namespace tunescope::ui {

PlotsView::PlotsView(ProfileDocument* profile, ResultsDocument* results, QWidget* parent)
    : QWidget(parent), results_(results), header_(new QLabel(this)), regime_(new QComboBox(this)),
      tabs_(new QTabWidget(this)),
      latency_(new PlotWidget(PlotWidget::Kind::Latency, this)),
      heatmap_(new PlotWidget(PlotWidget::Kind::Heatmap, this)),
      bandwidth_(new PlotWidget(PlotWidget::Kind::Bandwidth, this)) {
    setObjectName(QStringLiteral("plotsView"));
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    header_->setObjectName(QStringLiteral("plotsHeader"));
    header_->setTextFormat(Qt::PlainText);
    top->addWidget(header_, 1);
    regime_->setObjectName(QStringLiteral("plotsL2Regime"));
    regime_->setToolTip(tr("The L2 regime shown: cold (flushed before each sample) or warm (the input just written "
                           "by a producer kernel); which config wins can differ between them"));
    regime_->setVisible(false);
    top->addWidget(regime_);
    auto* relative = new QCheckBox(tr("Latency relative to the best at each NB"), this);
    relative->setObjectName(QStringLiteral("latencyRelative"));
    relative->setToolTip(tr("Divide every median by the fastest median at its NB, so all NBs share one scale"));
    top->addWidget(relative);
    auto* exportButton = new QPushButton(tr("Export plot..."), this);
    exportButton->setToolTip(tr("Save the plot on screen as PNG, SVG or PDF"));
    top->addWidget(exportButton);
    layout->addLayout(top);
    latency_->setObjectName(QStringLiteral("latencyPlot"));
    heatmap_->setObjectName(QStringLiteral("heatmapPlot"));
    bandwidth_->setObjectName(QStringLiteral("bandwidthPlot"));
    tabs_->addTab(latency_, tr("Latency per NB"));
    tabs_->addTab(heatmap_, tr("Heatmap NB x config"));
    tabs_->addTab(bandwidth_, tr("Bandwidth vs copy"));
    layout->addWidget(tabs_, 1);
    auto* hint = new QLabel(tr("Hover a point for its config and numbers; wheel zooms, drag pans, double-click resets, "
                               "right-click exports."),
                            this);
    hint->setStyleSheet(QStringLiteral("color: gray"));
    layout->addWidget(hint);
    for (PlotWidget* plot : {latency_, heatmap_, bandwidth_}) {
        bindPlot(plot, profile, results);
        connect(plot, &PlotWidget::hovered, this, &PlotsView::hovered);
    }
    connect(exportButton, &QPushButton::clicked, this, &PlotsView::exportCurrent);
    connect(relative, &QCheckBox::toggled, latency_, &PlotWidget::setLatencyRelative);
    connect(regime_, &QComboBox::activated, this, [this](int item) {
        L2Regime regime = L2Regime::Cold;
        if (results_ && l2RegimeFromString(regime_->itemData(item).toString().toStdString(), &regime))
            results_->setRegime(regime);
    });
    connect(results, &ResultsDocument::reset, this, &PlotsView::updateHeader);
    connect(results, &ResultsDocument::appended, this, &PlotsView::updateHeader);
    updateHeader();
}

PlotWidget* PlotsView::currentPlot() { return qobject_cast<PlotWidget*>(tabs_->currentWidget()); }

void PlotsView::exportCurrent() {
    if (PlotWidget* plot = currentPlot()) plot->exportDialog();
}

void PlotsView::updateHeader() {
    if (!results_ || results_->isEmpty()) {
        header_->setText(tr("No results loaded. Open a sweep results file (File > Open) or run a sweep."));
        return;
    }
    const std::vector<L2Regime> regimes = results_->regimes();
    regime_->clear();
    for (L2Regime r : regimes) {
        const QString name = QString::fromStdString(toString(r));
        regime_->addItem(tr("%1 L2").arg(name), name);
        if (r == results_->regime()) regime_->setCurrentIndex(regime_->count() - 1);
    }
    regime_->setVisible(regimes.size() > 1);
    const ResultsIndex& index = results_->index();
    header_->setText(tr("%1 on %2 (%6 L2): %3 measurements, %4 NBs x %5 configs")
                         .arg(index.source, index.deviceLabel.isEmpty() ? tr("unknown device") : index.deviceLabel)
                         .arg(index.measurementCount())
                         .arg(index.nbs().size())
                         .arg(index.configs().size())
                         .arg(QString::fromStdString(toString(results_->regime()))));
}

}  // namespace tunescope::ui
