// First: QCustomPlot with its `foreach` allowed (see the header).
#include "plots/qcustomplot_include.hpp"

#include "plots/plotparts.hpp"

namespace tunescope::ui {

void addPointsWithWhiskers(QCustomPlot* plot, const QString& name, const QCPScatterStyle& style,
                           const QVector<double>& keys, const QVector<double>& values, const QVector<double>& minus,
                           const QVector<double>& plus, const QColor& whisker) {
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    graph->setData(keys, values, true);
    auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(graph);
    bars->setData(minus, plus);
    bars->setPen(QPen(whisker));
}

// A bold title on top and the legend in one row under it, off the data (over 2400 points, any corner inside the axis
// rect hides some); later calls only change the title.
void setTitleAndLegendRow(QCustomPlot* plot, const QString& title, const QFont& font) {
    if (auto* existing = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0))) {
        existing->setText(title);
        return;
    }
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont(font.family(), font.pointSize(), QFont::Bold)));
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->insertRow(1);
    auto* legendRow = new QCPLayoutGrid;  // a grid of its own, inset: the legend's frame stays inside the widget
    legendRow->setMargins(QMargins(2, 0, 3, 0));
    plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setMargins(QMargins(4, 2, 4, 2));
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
}

}  // namespace tunescope::ui
