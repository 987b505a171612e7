#pragma once
// The plots page (latency per NB, heatmap, bandwidth against the copy ceiling) over the results document, with
// the open profile's configs marked. While a sweep streams results in, the plots redraw at most a few times a
// second so the UI stays responsive.
#include <QPointer>
#include <QWidget>

#include "plots/plotwidget.hpp"

class QComboBox;
class QLabel;
class QTabWidget;

namespace tunescope::ui {

class ProfileDocument;
class ResultsDocument;

class PlotsView : public QWidget {
    Q_OBJECT
public:
    PlotsView(ProfileDocument* profile, ResultsDocument* results, QWidget* parent = nullptr);

    PlotWidget* latencyPlot() { return latency_; }
    PlotWidget* heatmapPlot() { return heatmap_; }
    PlotWidget* bandwidthPlot() { return bandwidth_; }
    QTabWidget* tabs() { return tabs_; }
    PlotWidget* currentPlot();

public slots:
    void exportCurrent();

signals:
    void hovered(const QString& text);

private:
    void updateHeader();

    QPointer<ResultsDocument> results_;
    QLabel* header_;
    QComboBox* regime_;  // which L2 regime the plots show; shown when the results hold more than one
    QTabWidget* tabs_;
    PlotWidget* latency_;
    PlotWidget* heatmap_;
    PlotWidget* bandwidth_;
};

}  // namespace tunescope::ui
