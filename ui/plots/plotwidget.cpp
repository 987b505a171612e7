// First: QCustomPlot with its `foreach` allowed (see the header).
#include "plots/qcustomplot_include.hpp"

#include "plots/plotwidget.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QContextMenuEvent>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QHelpEvent>
#include <QMenu>
#include <QMessageBox>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>


namespace tunescope::ui {
namespace {

const QColor kConfigColour(70, 110, 170, 150);
const QColor kSpreadColour(70, 110, 170, 90);
const QColor kBestColour(0, 140, 60);
const QColor kProfileColour(200, 30, 30);
const QColor kProspectiveColour(230, 130, 0);
const QColor kCeilingColour(90, 90, 90);

// "20 us", "1 ms", "500 ms": a 1-2-5 tick needs no decimals.
QString tickLabel(double ms) {
    if (ms < 1.0) return QString::number(ms * 1000.0, 'g', 3) + QStringLiteral(" us");
    if (ms < 1000.0) return QString::number(ms, 'g', 3) + QStringLiteral(" ms");
    return QString::number(ms / 1000.0, 'g', 3) + QStringLiteral(" s");
}

QString statsText(const CellStats& stats) {
    return QStringLiteral("median ") + formatMs(stats.medianMs) + QStringLiteral("  (p20 ") + formatMs(stats.p20Ms) +
           QStringLiteral(", p80 ") + formatMs(stats.p80Ms) + QStringLiteral(")\nmin ") + formatMs(stats.minMs) +
           QStringLiteral(", rel. stdev ") + QString::number(stats.relStdev * 100.0, 'f', 2) +
           QStringLiteral(" %, ") + QString::number(stats.samples) + QStringLiteral(" samples\n") +
           QString::number(stats.gbPerS, 'f', 1) + QStringLiteral(" GB/s") +
           (stats.quality.isEmpty() ? QString() : QStringLiteral("\n") + stats.quality) +
           (stats.trustworthy ? QString() : QStringLiteral(": not converged, never ranked as best"));
}

// Where config column c of n is drawn inside its NB slot, so the configs of one NB do not overlap.
double slotOffset(int column, int columns) {
    if (columns <= 1) return 0.0;
    return (static_cast<double>(column) / (columns - 1) - 0.5) * 0.7;
}

// Moves the legend out of the axis rect into a row of its own under it, where it can hide no data point.
void placeLegendBelow(QCustomPlot* plot, int columns) {
    plot->axisRect()->insetLayout()->take(plot->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(2, 0, legendRow);
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setWrap(columns);  // before the fill order, which re-arranges the items by the wrap
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setVisible(true);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
}

QCPGraph* scatterGraph(QCustomPlot* plot, const QString& name, QCPScatterStyle style) {
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    return graph;
}

}  // namespace

PlotWidget::PlotWidget(Kind kind, QWidget* parent) : QWidget(parent), kind_(kind) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("plot"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->setContextMenuPolicy(Qt::DefaultContextMenu);
    plot_->setMinimumSize(320, 220);
    plot_->setNoAntialiasingOnDrag(true);
    layout->addWidget(plot_);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetView(); });
    // The axis rect's height is known after the layout: relabel the heatmap's rows then, and draw again if the
    // labels changed (a resize, a zoom). Converges in one extra replot: the labels do not change the height.
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        if (updateHeatmapTicks()) plot_->replot(QCustomPlot::rpQueuedReplot);
    });
    refresh();
}

PlotWidget::~PlotWidget() = default;

QString PlotWidget::title() const {
    switch (kind_) {
    case Kind::Latency: return tr("Latency per NB: every config, p20-p80 spread");
    case Kind::Heatmap: return tr("Median latency relative to the best config at each NB");
    case Kind::Bandwidth: return tr("Achieved bandwidth against the copy ceiling");
    case Kind::Candidates: return tr("cuBLASLt candidates: latency and parity");
    }
    return {};
}

void PlotWidget::setResults(const ResultsIndex* results, PolicyMarkers markers) {
    results_ = results;
    markers_ = std::move(markers);
    refresh();
}

void PlotWidget::setMarkers(PolicyMarkers markers) {
    markers_ = std::move(markers);
    refresh();
}

void PlotWidget::setCandidates(std::vector<CandidateBar> candidates, const QString& axisLabel, bool seconds) {
    candidates_ = std::move(candidates);
    candidatesAxis_ = axisLabel;
    candidatesInSeconds_ = seconds;
    refresh();
}

void PlotWidget::refresh() {
    // A hidden plot only notes that it is stale; it rebuilds when shown or asked for its contents.
    if (!isVisible()) {
        dirty_ = true;
        return;
    }
    rebuild();
}

void PlotWidget::ensureBuilt() const {
    if (dirty_) const_cast<PlotWidget*>(this)->rebuild();
}

int PlotWidget::pointCount() const {
    ensureBuilt();
    return pointCount_;
}

void PlotWidget::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_) rebuild();
}

void PlotWidget::rebuild() {
    dirty_ = false;
    plot_->clearPlottables();
    plot_->clearItems();
    plot_->plotLayout()->clear();
    auto* axisRect = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, title(), QFont(font().family(), 11, QFont::Bold)));
    plot_->plotLayout()->addElement(1, 0, axisRect);
    plot_->xAxis = axisRect->axis(QCPAxis::atBottom);
    plot_->yAxis = axisRect->axis(QCPAxis::atLeft);
    plot_->xAxis2 = axisRect->axis(QCPAxis::atTop);
    plot_->yAxis2 = axisRect->axis(QCPAxis::atRight);
    plot_->legend = new QCPLegend;
    axisRect->insetLayout()->addElement(plot_->legend, Qt::AlignTop | Qt::AlignLeft);
    plot_->legend->setLayer(QStringLiteral("legend"));
    plot_->legend->setBrush(QColor(255, 255, 255, 220));
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->legend->setVisible(false);
    hoverPoints_.clear();
    heatmapColumns_.clear();
    pointCount_ = 0;

    switch (kind_) {
    case Kind::Latency: buildLatency(); break;
    case Kind::Heatmap: buildHeatmap(); break;
    case Kind::Bandwidth: buildBandwidth(); break;
    case Kind::Candidates: buildCandidates(); break;
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::showEmptyMessage(const QString& message) {
    auto* text = new QCPItemText(plot_);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(0.5, 0.5);
    text->setText(message);
    text->setColor(Qt::darkGray);
    text->setFont(QFont(font().family(), 11));
}

void PlotWidget::buildLatency() {
    plot_->xAxis->setLabel(tr("NB (blocks of 65536 rows x 128)"));
    QSharedPointer<QCPAxisTickerFixed> nbTicker(new QCPAxisTickerFixed);
    nbTicker->setTickStep(1.0);
    nbTicker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(nbTicker);
    if (!results_ || results_->empty()) {
        plot_->yAxis->setLabel(tr("latency"));
        showEmptyMessage(tr("No results loaded: open a results file or run a sweep"));
        plot_->xAxis->setRange(0.5, 32.5);
        return;
    }
    const auto& nbs = results_->nbs();
    const auto& configs = results_->configs();
    const int columns = static_cast<int>(configs.size());
    QVector<double> keys, values, minus, plus;
    QVector<double> bestKeys, bestValues, profileKeys, profileValues, prospectiveKeys, prospectiveValues;
    QVector<double> roughKeys, roughValues;  // cells whose sampling did not converge: drawn apart, never best
    std::vector<std::size_t> cellHoverPoints;  // hoverPoints_ entries of drawn cells, for off-scale clamping
    keys.reserve(static_cast<qsizetype>(nbs.size() * configs.size()));
    values.reserve(keys.capacity());
    minus.reserve(keys.capacity());
    plus.reserve(keys.capacity());
    hoverPoints_.reserve(static_cast<std::size_t>(keys.capacity()) + 3 * nbs.size());
    std::vector<double> drawn;  // values drawn, for a range that is not set by one outlier
    drawn.reserve(static_cast<std::size_t>(keys.capacity()));
    double low = std::numeric_limits<double>::max(), high = 0;
    for (int row = 0; row < static_cast<int>(nbs.size()); ++row) {
        const int nb = nbs[static_cast<std::size_t>(row)];
        const int bestColumn = results_->bestColumn(row);
        const CellStats* bestStats = results_->cell(row, bestColumn);
        // Relative mode divides by the best median at this NB, so every NB shares one scale around 1.
        const double scale = relativeLatency_ && bestStats && bestStats->medianMs > 0 ? 1.0 / bestStats->medianMs : 1.0;
        for (int column = 0; column < columns; ++column) {
            const CellStats* stats = results_->cell(row, column);
            if (!stats || stats->medianMs <= 0) continue;
            const double key = nb + slotOffset(column, columns);
            const double value = stats->medianMs * scale;
            if (!stats->trustworthy) {
                low = std::min(low, stats->medianMs * scale);  // drawn too, so inside the range
                high = std::max(high, stats->medianMs * scale);
                roughKeys.push_back(key);
                roughValues.push_back(value);
                cellHoverPoints.push_back(hoverPoints_.size());
                hoverPoints_.push_back({key, value, QString(), row, column});
                continue;
            }
            keys.push_back(key);
            values.push_back(value);
            minus.push_back(std::max(0.0, stats->medianMs - stats->p20Ms) * scale);
            plus.push_back(std::max(0.0, stats->p80Ms - stats->medianMs) * scale);
            low = std::min(low, (stats->p20Ms > 0 ? stats->p20Ms : stats->medianMs) * scale);
            high = std::max(high, stats->p80Ms * scale);
            drawn.push_back(value);
            // The hover text of 2400 points is written only for the one hovered (cellText).
            cellHoverPoints.push_back(hoverPoints_.size());
            hoverPoints_.push_back({key, value, QString(), row, column});
            if (column == bestColumn) {
                bestKeys.push_back(key);
                bestValues.push_back(value);
            }
        }
        auto marker = markers_.find(nb);
        if (marker != markers_.end()) {
            const int column = results_->configColumn(marker->second.config);
            const CellStats* stats = results_->cell(row, column);
            if (stats) {
                const double key = nb + slotOffset(column, columns);
                (marker->second.prospective ? prospectiveKeys : profileKeys).push_back(key);
                (marker->second.prospective ? prospectiveValues : profileValues).push_back(stats->medianMs * scale);
                QString text = QStringLiteral("NB ") + QString::number(nb) + QStringLiteral(": the profile's ") +
                               (marker->second.prospective ? QStringLiteral("prospective ") : QString()) +
                               QStringLiteral("config ") + configLabel(marker->second.config) + QLatin1Char('\n') +
                               statsText(*stats);
                if (bestStats && stats->trustworthy)
                    text += QStringLiteral("\nregret ") +
                            QString::number((stats->medianMs / bestStats->medianMs - 1.0) * 100.0, 'f', 1) +
                            QStringLiteral(" % vs best ") +
                            configLabel(configs[static_cast<std::size_t>(bestColumn)]);
                hoverPoints_.push_back({key, stats->medianMs * scale, text});
            }
        }
    }

    QCPGraph* all = scatterGraph(plot_, tr("config median"), QCPScatterStyle(QCPScatterStyle::ssDisc, kConfigColour, 3));
    all->setData(keys, values, true);
    auto* spread = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    spread->removeFromLegend();
    spread->setDataPlottable(all);
    spread->setData(minus, plus);
    spread->setPen(QPen(kSpreadColour));
    spread->setWhiskerWidth(2);
    QCPGraph* rough = scatterGraph(plot_, tr("not converged (never best)"),
                                   QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(QColor(150, 150, 150), 1), Qt::NoBrush, 5));
    rough->setData(roughKeys, roughValues, true);
    if (roughKeys.isEmpty()) rough->removeFromLegend();
    QCPGraph* best = scatterGraph(plot_, tr("measured best"),
                                  QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBestColour, 2), Qt::NoBrush, 11));
    best->setData(bestKeys, bestValues, true);
    QCPGraph* profile = scatterGraph(plot_, tr("profile's config"),
                                     QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kProfileColour, 2), Qt::NoBrush, 10));
    profile->setData(profileKeys, profileValues, true);
    QCPGraph* prospective =
        scatterGraph(plot_, tr("profile's prospective config"),
                     QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(kProspectiveColour, 2), Qt::NoBrush, 10));
    prospective->setData(prospectiveKeys, prospectiveValues, true);
    pointCount_ = static_cast<int>(keys.size() + roughKeys.size());
    // Below the plot, not inset: 2400 points (and the off-scale arrows along the top edge) leave no empty corner.
    placeLegendBelow(plot_, 3);
    offScaleCount_ = 0;
    plot_->xAxis->setRange(nbs.front() - 0.6, nbs.back() + 0.6);
    if (relativeLatency_) {
        plot_->yAxis->setLabel(tr("median / best median at the NB (whiskers p20-p80)"));
        // Most configs sit within a few percent of the best; show up to the 95th percentile, not the worst outlier.
        std::sort(drawn.begin(), drawn.end());
        const double upper = drawn.empty() ? 2.0 : drawn[static_cast<std::size_t>(0.95 * (drawn.size() - 1))];
        const double top = std::max(1.05, upper * 1.02);
        plot_->yAxis->setRange(std::min(0.99, low), top);
        // Points above the range are not dropped: each shows as an arrow at the top edge, its value on hover.
        QVector<double> offKeys, offValues;
        const double edge = top - (top - std::min(0.99, low)) * 0.015;
        for (std::size_t at : cellHoverPoints) {
            HoverPoint& point = hoverPoints_[at];
            if (point.value <= top) continue;
            offKeys.push_back(point.key);
            offValues.push_back(edge);
            point.value = edge;
        }
        offScaleCount_ = static_cast<int>(offKeys.size());
        if (!offKeys.isEmpty()) {
            QCPGraph* off = scatterGraph(plot_, tr("%1 above the scale (hover for the value)").arg(offKeys.size()),
                                         QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(QColor(120, 60, 160), 1.5), Qt::NoBrush, 7));
            off->setData(offKeys, offValues, true);
        }
    } else {
        plot_->yAxis->setLabel(tr("median latency (log scale, whiskers p20-p80)"));
        plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
        // 1-2-5 ticks labelled in us/ms: a log axis over 10 us..300 us otherwise shows only two labels.
        QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
        for (double decade = 1e-4; decade < 1e5; decade *= 10)
            for (double step : {1.0, 2.0, 5.0})
                if (decade * step >= low * 0.5 && decade * step <= high * 2.0) ticks->addTick(decade * step, tickLabel(decade * step));
        ticks->setSubTickCount(0);
        plot_->yAxis->setTicker(ticks);
        plot_->yAxis->grid()->setSubGridVisible(false);
        if (high > 0) plot_->yAxis->setRange(low * 0.8, high * 1.25);
    }
}

void PlotWidget::setLatencyRelative(bool relative) {
    if (relativeLatency_ == relative) return;
    relativeLatency_ = relative;
    refresh();
}

int PlotWidget::heatmapLabelStride() const {
    // Labels need a line of the tick font each: thin to every k-th row only where the visible rows do not fit.
    const QCPRange visible = plot_->yAxis->range();
    const double rowsShown = std::max(1.0, visible.size());
    const double pixels = std::max(1, plot_->axisRect()->height());
    const double line = QFontMetricsF(plot_->yAxis->tickLabelFont()).height() + 1.0;
    return std::max(1, static_cast<int>(std::ceil(rowsShown * line / pixels)));
}

bool PlotWidget::updateHeatmapTicks() {
    if (kind_ != Kind::Heatmap || heatmapColumns_.empty()) return false;
    const int stride = heatmapLabelStride();
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(plot_->yAxis->ticker());
    if (!ticker) return false;
    const QCPRange visible = plot_->yAxis->range();
    const int columns = static_cast<int>(heatmapColumns_.size());
    const int first = std::clamp(static_cast<int>(std::ceil(visible.lower)), 0, columns - 1);
    const int last = std::clamp(static_cast<int>(std::floor(visible.upper)), 0, columns - 1);
    // Multiples of the stride, so the same rows keep their labels while panning.
    QMap<double, QString> ticks;
    for (int column = (first + stride - 1) / stride * stride; column <= last; column += stride)
        ticks.insert(column, heatmapColumns_[static_cast<std::size_t>(column)]);
    if (stride == heatmapStride_ && ticks == ticker->ticks()) return false;
    heatmapStride_ = stride;
    ticker->setTicks(ticks);
    plot_->yAxis->setLabel(stride == 1 ? tr("config (BT, num_warps, num_stages)")
                                       : tr("config (BT, warps, stages): 1 row in %1 labelled, hover or zoom for all").arg(stride));
    return true;
}

QStringList PlotWidget::heatmapTickLabels() const {
    ensureBuilt();
    QStringList labels;
    if (auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(plot_->yAxis->ticker()))
        for (const QString& label : ticker->ticks()) labels << label;
    return labels;
}

std::optional<QRect> PlotWidget::legendRect() const {
    ensureBuilt();
    if (!plot_->legend || !plot_->legend->visible()) return std::nullopt;
    return plot_->legend->outerRect();
}

void PlotWidget::buildHeatmap() {
    plot_->xAxis->setLabel(tr("NB"));
    plot_->yAxis->setLabel(tr("config (BT, num_warps, num_stages)"));
    if (!results_ || results_->empty() || results_->configs().empty()) {
        showEmptyMessage(tr("No results loaded: open a results file or run a sweep"));
        return;
    }
    const auto& nbs = results_->nbs();
    const auto& configs = results_->configs();
    const int rows = static_cast<int>(nbs.size());
    const int columns = static_cast<int>(configs.size());

    auto* map = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map->setName(tr("median / best"));
    map->data()->setSize(rows, columns);
    map->data()->setRange(QCPRange(0, std::max(1, rows - 1)), QCPRange(0, std::max(1, columns - 1)));
    if (rows == 1 || columns == 1) {
        // A one-cell-wide map needs a non-empty range; widen it by half a cell on each side.
        map->data()->setRange(QCPRange(rows == 1 ? -0.5 : 0, rows == 1 ? 0.5 : rows - 1),
                              QCPRange(columns == 1 ? -0.5 : 0, columns == 1 ? 0.5 : columns - 1));
    }
    double worst = 1.0;
    std::vector<double> ratios;
    ratios.reserve(static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns));
    for (int row = 0; row < rows; ++row) {
        const CellStats* best = results_->cell(row, results_->bestColumn(row));
        for (int column = 0; column < columns; ++column) {
            const CellStats* stats = results_->cell(row, column);
            double ratio = std::numeric_limits<double>::quiet_NaN();
            if (stats && best && best->medianMs > 0) {
                ratio = stats->medianMs / best->medianMs;
                worst = std::max(worst, ratio);
                ratios.push_back(ratio);
                ++pointCount_;
            }
            map->data()->setCell(row, column, ratio);
        }
    }
    map->removeFromLegend();
    auto* scale = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(1, 1, scale);
    scale->setType(QCPAxis::atRight);
    map->setColorScale(scale);  // before the gradient: attaching a scale gives the map the scale's gradient
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(0, 104, 55));
    gradient.setColorStopAt(0.15, QColor(102, 189, 99));
    gradient.setColorStopAt(0.4, QColor(255, 255, 191));
    gradient.setColorStopAt(0.7, QColor(253, 174, 97));
    gradient.setColorStopAt(1.0, QColor(165, 0, 38));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    scale->setGradient(gradient);
    map->setGradient(gradient);
    map->setInterpolate(false);
    // The colour range ends at the 95th percentile of the ratios (at most 2x): on a well-tuned device most configs
    // sit within a few percent of the best, and a scale set by the worst outlier paints them all the same.
    std::sort(ratios.begin(), ratios.end());
    const double p95 = ratios.empty() ? 2.0 : ratios[static_cast<std::size_t>(0.95 * (ratios.size() - 1))];
    const double top = std::clamp(p95, 1.05, 2.0);
    map->setDataRange(QCPRange(1.0, top));
    scale->axis()->setLabel(tr("median / best at the NB (clamped at %1)").arg(top, 0, 'f', 2));
    auto* marginGroup = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, marginGroup);
    (void)worst;

    QSharedPointer<QCPAxisTickerText> nbTicker(new QCPAxisTickerText);
    const int nbStride = std::max(1, rows / 32);
    for (int row = 0; row < rows; row += nbStride) nbTicker->addTick(row, QString::number(nbs[static_cast<std::size_t>(row)]));
    plot_->xAxis->setTicker(nbTicker);
    // The config labels follow the visible rows (zoom) and the height (updateHeatmapTicks, after each layout).
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    plot_->yAxis->setTickLabelFont(QFont(font().family(), 7));
    heatmapStride_ = 0;
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->grid()->setVisible(false);

    // The profile's config at each NB, outlined on its cell.
    QVector<double> keys, values, prospectiveKeys, prospectiveValues;
    for (const auto& [nb, marker] : markers_) {
        const int row = results_->nbRow(nb);
        const int column = results_->configColumn(marker.config);
        if (row < 0 || column < 0) continue;
        (marker.prospective ? prospectiveKeys : keys).push_back(row);
        (marker.prospective ? prospectiveValues : values).push_back(column);
    }
    QCPGraph* profile = scatterGraph(plot_, tr("profile's config"),
                                     QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(Qt::black, 2), Qt::NoBrush, 9));
    profile->setData(keys, values, true);
    QCPGraph* prospective =
        scatterGraph(plot_, tr("profile's prospective config"),
                     QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(QColor(40, 40, 200), 2, Qt::DotLine), Qt::NoBrush, 9));
    prospective->setData(prospectiveKeys, prospectiveValues, true);
    // The legend goes below the map, where it hides no cell.
    if (!keys.isEmpty() || !prospectiveKeys.isEmpty()) placeLegendBelow(plot_, 2);
    plot_->xAxis->setRange(-0.5, rows - 0.5);
    plot_->yAxis->setRange(-0.5, columns - 0.5);
    for (const auto& config : configs) heatmapColumns_.push_back(configLabel(config));
    updateHeatmapTicks();
}

void PlotWidget::buildBandwidth() {
    plot_->xAxis->setLabel(tr("NB"));
    plot_->yAxis->setLabel(tr("achieved bandwidth (GB/s)"));
    QSharedPointer<QCPAxisTickerFixed> nbTicker(new QCPAxisTickerFixed);
    nbTicker->setTickStep(1.0);
    nbTicker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(nbTicker);
    if (!results_ || results_->empty()) {
        showEmptyMessage(tr("No results loaded: open a results file or run a sweep"));
        plot_->xAxis->setRange(0.5, 32.5);
        return;
    }
    QVector<double> nbKeys, bestValues, profileKeys, profileValues, copyKeys, copyValues;
    double high = 0;
    for (int row = 0; row < static_cast<int>(results_->nbs().size()); ++row) {
        const int nb = results_->nbs()[static_cast<std::size_t>(row)];
        const int bestColumn = results_->bestColumn(row);
        const CellStats* best = results_->cell(row, bestColumn);
        const CellStats* copy = results_->copy(nb);
        if (best) {
            nbKeys.push_back(nb);
            bestValues.push_back(best->gbPerS);
            high = std::max(high, best->gbPerS);
            QString text = QStringLiteral("NB ") + QString::number(nb) + QStringLiteral(" best ") +
                           configLabel(results_->configs()[static_cast<std::size_t>(bestColumn)]) +
                           QLatin1Char('\n') + statsText(*best);
            if (copy && copy->gbPerS > 0)
                text += QStringLiteral("\n") + QString::number(best->gbPerS / copy->gbPerS * 100.0, 'f', 1) +
                        QStringLiteral(" % of the copy ceiling");
            hoverPoints_.push_back({static_cast<double>(nb), best->gbPerS, text});
        }
        if (copy) {
            copyKeys.push_back(nb);
            copyValues.push_back(copy->gbPerS);
            high = std::max(high, copy->gbPerS);
            hoverPoints_.push_back({static_cast<double>(nb), copy->gbPerS,
                                    QStringLiteral("NB ") + QString::number(nb) +
                                        QStringLiteral(" device-to-device copy of the same bytes\n") + statsText(*copy)});
        }
        auto marker = markers_.find(nb);
        if (marker != markers_.end()) {
            if (const CellStats* stats = results_->find(nb, marker->second.config)) {
                profileKeys.push_back(nb);
                profileValues.push_back(stats->gbPerS);
                hoverPoints_.push_back({static_cast<double>(nb), stats->gbPerS,
                                        QStringLiteral("NB ") + QString::number(nb) + QStringLiteral(" profile's ") +
                                            configLabel(marker->second.config) + QLatin1Char('\n') + statsText(*stats)});
            }
        }
    }
    QCPGraph* ceiling = plot_->addGraph();
    ceiling->setName(tr("copy ceiling (same bytes)"));
    ceiling->setPen(QPen(kCeilingColour, 2, Qt::DashLine));
    ceiling->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, kCeilingColour, 6));
    ceiling->setData(copyKeys, copyValues, true);
    QCPGraph* best = plot_->addGraph();
    best->setName(tr("measured best config"));
    best->setPen(QPen(kBestColour, 2));
    best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kBestColour, 6));
    best->setData(nbKeys, bestValues, true);
    QCPGraph* profile = scatterGraph(plot_, tr("profile's config"),
                                     QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kProfileColour, 2), Qt::NoBrush, 9));
    profile->setData(profileKeys, profileValues, true);
    pointCount_ = static_cast<int>(nbKeys.size() + copyKeys.size() + profileKeys.size());
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    plot_->xAxis->setRange(results_->nbs().front() - 0.6, results_->nbs().back() + 0.6);
    plot_->yAxis->setRange(0, high > 0 ? high * 1.15 : 1.0);
}

void PlotWidget::buildCandidates() {
    // Horizontal bars: candidate labels are long and read better along the vertical axis.
    const double unit = candidatesInSeconds_ ? 1e-3 : 1.0;  // values are medianMs; shown in s or ms
    auto format = [this](double ms) { return candidatesInSeconds_ ? QString::number(ms / 1000.0, 'f', 2) + QStringLiteral(" s") : formatMs(ms); };
    plot_->xAxis->setLabel(candidatesAxis_.isEmpty() ? tr("latency (ms), whiskers p20-p80") : candidatesAxis_);
    if (candidates_.empty()) {
        showEmptyMessage(tr("No timed candidates in this report"));
        return;
    }
    QSharedPointer<QCPAxisTickerText> labels(new QCPAxisTickerText);
    const int count = static_cast<int>(candidates_.size());
    struct Group {
        CandidateBar::Parity parity;
        QString name;
        QColor colour;
    };
    const Group groups[] = {
        {CandidateBar::Parity::BitwiseEqual, tr("bitwise equal to baseline"), QColor(26, 150, 65)},
        {CandidateBar::Parity::WithinBound, tr("within error bound"), QColor(100, 150, 220)},
        {CandidateBar::Parity::Different, tr("differs from baseline"), QColor(215, 48, 39)},
        {CandidateBar::Parity::Unknown, tr("parity not recorded"), QColor(150, 150, 150)},
    };
    double high = 0, low = std::numeric_limits<double>::max();
    for (const Group& group : groups) {
        QVector<double> keys, values, minus, plus;
        for (int index = 0; index < count; ++index) {
            const CandidateBar& bar = candidates_[static_cast<std::size_t>(index)];
            if (bar.parity != group.parity) continue;
            keys.push_back(index);
            values.push_back(bar.medianMs * unit);
            minus.push_back(bar.p20Ms > 0 ? std::max(0.0, bar.medianMs - bar.p20Ms) * unit : 0.0);
            plus.push_back(bar.p80Ms > 0 ? std::max(0.0, bar.p80Ms - bar.medianMs) * unit : 0.0);
            high = std::max(high, std::max(bar.medianMs, bar.p80Ms) * unit);
            low = std::min(low, (bar.p20Ms > 0 ? bar.p20Ms : bar.medianMs) * unit);
        }
        if (keys.isEmpty()) continue;
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
        bars->setName(group.name);
        bars->setWidth(0.7);
        bars->setBrush(group.colour);
        bars->setPen(QPen(group.colour.darker(130)));
        bars->setData(keys, values, true);
        auto* whiskers = new QCPErrorBars(plot_->yAxis, plot_->xAxis);
        whiskers->removeFromLegend();
        whiskers->setDataPlottable(bars);
        whiskers->setData(minus, plus);
        whiskers->setPen(QPen(Qt::black));
        pointCount_ += static_cast<int>(keys.size());
    }
    const CandidateBar* baseline = nullptr;
    for (const auto& other : candidates_)
        if (other.baseline) baseline = &other;
    for (int index = 0; index < count; ++index) {
        const CandidateBar& bar = candidates_[static_cast<std::size_t>(index)];
        QString label = bar.label;
        if (bar.baseline) label += tr(" [baseline]");
        if (bar.selected) label = QStringLiteral("\u25B6 ") + label + tr(" [selected]");
        labels->addTick(index, label);
        QString text = bar.label + QLatin1Char('\n') + QStringLiteral("median ") + format(bar.medianMs);
        if (bar.p20Ms > 0) text += QStringLiteral(" (p20 ") + format(bar.p20Ms) + QStringLiteral(", p80 ") + format(bar.p80Ms) + QLatin1Char(')');
        if (baseline && baseline != &bar && baseline->medianMs > 0)
            text += QStringLiteral("\n") + QString::number((1.0 - bar.medianMs / baseline->medianMs) * 100.0, 'f', 2) +
                    QStringLiteral(" % faster than the baseline");
        if (!bar.details.isEmpty()) text += QLatin1Char('\n') + bar.details;
        hoverPoints_.push_back({static_cast<double>(index), bar.medianMs * unit, text});
    }
    plot_->yAxis->setTicker(labels);
    plot_->yAxis->setTickLabelFont(QFont(font().family(), count > 12 ? 8 : 9));
    plot_->yAxis->grid()->setVisible(false);
    plot_->yAxis->setRangeReversed(true);  // first candidate on top
    plot_->yAxis->setRange(-0.6, count - 0.4);
    // Bars of absolute values start at zero: a truncated axis makes a 7.5% gap look like 3x. The exact numbers and
    // the gap to the baseline are in each bar's hover text.
    (void)low;
    // Room on the right for the legend, so it never sits on the longest bars.
    plot_->xAxis->setRange(0.0, high * 1.3);
    plot_->legend->setVisible(true);
    // Fastest on top: the top right is where the bars are shortest.
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

QString PlotWidget::cellText(int row, int column) const {
    const CellStats* stats = results_ ? results_->cell(row, column) : nullptr;
    if (!stats) return {};
    const int bestColumn = results_->bestColumn(row);
    const CellStats* best = results_->cell(row, bestColumn);
    QString text = QStringLiteral("NB ") + QString::number(results_->nbs()[static_cast<std::size_t>(row)]) +
                   QStringLiteral("  ") + configLabel(results_->configs()[static_cast<std::size_t>(column)]) +
                   QLatin1Char('\n') + statsText(*stats);
    if (best && best->medianMs > 0) {
        if (column == bestColumn)
            text += QStringLiteral("\nthe best config at this NB");
        else
            text += QStringLiteral("\n+") + QString::number((stats->medianMs / best->medianMs - 1.0) * 100.0, 'f', 1) +
                    QStringLiteral(" % vs best");
    }
    return text;
}

QString PlotWidget::pointText(const HoverPoint& point) const {
    return point.row >= 0 ? cellText(point.row, point.column) : point.text;
}

std::optional<QPoint> PlotWidget::positionOfPoint(int index) const {
    ensureBuilt();
    if (kind_ == Kind::Heatmap) {
        // Cells in row-major order: NB row, then config column.
        const int columns = static_cast<int>(heatmapColumns_.size());
        if (!results_ || columns == 0 || index < 0 || index >= columns * static_cast<int>(results_->nbs().size()))
            return std::nullopt;
        return QPoint(static_cast<int>(plot_->xAxis->coordToPixel(index / columns)),
                      static_cast<int>(plot_->yAxis->coordToPixel(index % columns)));
    }
    if (index < 0 || index >= static_cast<int>(hoverPoints_.size())) return std::nullopt;
    const HoverPoint& point = hoverPoints_[static_cast<std::size_t>(index)];
    if (kind_ == Kind::Candidates)
        return QPoint(static_cast<int>(plot_->xAxis->coordToPixel(point.value) - 3),
                      static_cast<int>(plot_->yAxis->coordToPixel(point.key)));
    return QPoint(static_cast<int>(plot_->xAxis->coordToPixel(point.key)),
                  static_cast<int>(plot_->yAxis->coordToPixel(point.value)));
}

QString PlotWidget::hoverTextAt(const QPoint& position) const {
    ensureBuilt();
    if (kind_ == Kind::Heatmap) {
        if (!results_ || heatmapColumns_.empty()) return {};
        const int row = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(position.x())));
        const int column = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(position.y())));
        // Left of the map, on the config labels: the full label of that row, labelled or thinned out.
        const QRect area = plot_->axisRect()->rect();
        if (position.x() < area.left() && position.y() >= area.top() && position.y() <= area.bottom()) {
            if (column < 0 || column >= static_cast<int>(heatmapColumns_.size())) return {};
            return tr("config %1 (row %2 of %3)").arg(heatmapColumns_[static_cast<std::size_t>(column)]).arg(column + 1).arg(heatmapColumns_.size());
        }
        const CellStats* stats = results_->cell(row, column);
        const CellStats* best = results_->cell(row, results_->bestColumn(row));
        if (!stats || !best || best->medianMs <= 0) return {};
        return cellText(row, column) + QStringLiteral("\n") + QString::number(stats->medianMs / best->medianMs, 'f', 3) +
               QStringLiteral(" x the best at this NB");
    }
    if (kind_ == Kind::Candidates) {
        const double key = plot_->yAxis->pixelToCoord(position.y());
        const int index = static_cast<int>(std::lround(key));
        if (index < 0 || index >= static_cast<int>(hoverPoints_.size()) || std::abs(key - index) > 0.4) return {};
        if (plot_->xAxis->pixelToCoord(position.x()) > hoverPoints_[static_cast<std::size_t>(index)].value * 1.01)
            return {};
        return pointText(hoverPoints_[static_cast<std::size_t>(index)]);
    }
    // Nearest drawn point within a few pixels; later entries (markers) win ties so their text shows.
    constexpr double kReachPixels = 7.0;
    double bestDistance = kReachPixels * kReachPixels;
    const HoverPoint* nearest = nullptr;
    for (const HoverPoint& point : hoverPoints_) {
        const double dx = plot_->xAxis->coordToPixel(point.key) - position.x();
        const double dy = plot_->yAxis->coordToPixel(point.value) - position.y();
        const double distance = dx * dx + dy * dy;
        if (distance <= bestDistance) {
            bestDistance = distance;
            nearest = &point;
        }
    }
    return nearest ? pointText(*nearest) : QString();
}

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = hoverTextAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, plot_);
            return true;
        }
        if (event->type() == QEvent::MouseMove) {
            auto* move = static_cast<QMouseEvent*>(event);
            if (move->buttons() == Qt::NoButton) emit hovered(hoverTextAt(move->position().toPoint()));
        }
        if (event->type() == QEvent::ContextMenu) {
            auto* menuEvent = static_cast<QContextMenuEvent*>(event);
            QMenu menu;
            menu.addAction(tr("Export as PNG, SVG or PDF..."), this, &PlotWidget::exportDialog);
            menu.addAction(tr("Reset view"), this, &PlotWidget::resetView);
            menu.exec(menuEvent->globalPos());
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PlotWidget::resetView() { refresh(); }

double PlotWidget::replotNowMs() {
    ensureBuilt();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    return plot_->replotTime();
}

QString PlotWidget::exportCaption() const {
    QStringList parts;
    if (results_ && !results_->source.isEmpty()) parts << results_->source;
    if (results_ && !results_->deviceLabel.isEmpty()) parts << results_->deviceLabel;
    parts << tr("exported %1 by TuneScope").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    return parts.join(QStringLiteral("  |  "));
}

bool PlotWidget::exportTo(const QString& path, QString* error, int width, int height) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("pdf") && suffix != QLatin1String("svg")) {
        if (error)
            *error = suffix.isEmpty() ? tr("%1: the name has no suffix; end it in .png, .svg or .pdf").arg(path)
                                      : tr("%1: unknown export format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
        return false;
    }
    ensureBuilt();
    // A caption row (file, device, date) for the exported picture only: a plot out of context misleads.
    plot_->plotLayout()->insertRow(plot_->plotLayout()->rowCount());
    auto* caption = new QCPTextElement(plot_, exportCaption(), QFont(font().family(), std::max(7, font().pointSize() - 1)));
    caption->setTextColor(QColor(90, 90, 90));
    plot_->plotLayout()->addElement(plot_->plotLayout()->rowCount() - 1, 0, caption);
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    struct RemoveCaption {
        QCustomPlot* plot;
        QCPTextElement* caption;
        ~RemoveCaption() {
            plot->plotLayout()->remove(caption);  // deletes it
            plot->plotLayout()->simplify();
            plot->replot();
        }
    } removeCaption{plot_, caption};
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot_->savePng(path, width, height);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot_->savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(QSize(width, height));
        generator.setViewBox(QRect(0, 0, width, height));
        generator.setTitle(title());
        generator.setDescription(tr("TuneScope plot"));
        QCPPainter painter;
        if (painter.begin(&generator)) {
            plot_->toPainter(&painter, width, height);
            ok = painter.end();
        }
        ok = ok && QFileInfo(path).size() > 0;
    }
    if (!ok && error) *error = tr("%1: could not write the plot (is the folder writable?)").arg(path);
    return ok;
}

void PlotWidget::exportDialog() {
    QString filter;
    QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QString(),
                                                tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"), &filter);
    if (path.isEmpty()) return;
    // A name without a suffix gets the chosen filter's (the dialog does not add it on every platform).
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QLatin1String("svg")) ? QStringLiteral(".svg")
                : filter.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf") : QStringLiteral(".png");
    QString error;
    if (!exportTo(path, &error)) {
        QMessageBox::warning(this, tr("Export plot"), error);
        return;
    }
    emit hovered(tr("Exported the plot to %1").arg(path));
}

}  // namespace tunescope::ui
