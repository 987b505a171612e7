#pragma once
// Pieces the compare and head-to-head plots share. QCustomPlot stays out of headers (its header uses `foreach`, see
// plotwidget.hpp): the callers include it themselves.
#include <QColor>
#include <QFont>
#include <QString>
#include <QVector>

class QCPScatterStyle;
class QCustomPlot;

namespace tunescope::ui {

// One graph of points (no line) with vertical whiskers of `minus` below and `plus` above each value.
void addPointsWithWhiskers(QCustomPlot* plot, const QString& name, const QCPScatterStyle& style,
                           const QVector<double>& keys, const QVector<double>& values, const QVector<double>& minus,
                           const QVector<double>& plus, const QColor& whisker);
// A bold title on top and the legend in one row under it, off the data; later calls only change the title.
void setTitleAndLegendRow(QCustomPlot* plot, const QString& title, const QFont& font);

}  // namespace tunescope::ui
