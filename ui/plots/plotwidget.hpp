#pragma once
// Every plot of the app. QCustomPlot is included only in plotwidget.cpp (its header uses `foreach`, which the
// project's QT_NO_FOREACH forbids); the rest of the UI sees these widgets and plain data.
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <QPointer>
#include <QRect>
#include <QStringList>
#include <QString>
#include <QWidget>

#include "documents/resultsindex.hpp"

class QCustomPlot;

namespace tunescope::ui {

// What the profile says at each NB, drawn over the measurements.
struct PolicyMarker {
    L2NormConfig config;
    bool prospective = false;  // the entry is a prospective setting, not a measured or production choice
};
using PolicyMarkers = std::map<int, PolicyMarker>;  // NB -> marker

// One timed cuBLASLt candidate for the bar chart.
struct CandidateBar {
    enum class Parity { Unknown, BitwiseEqual, WithinBound, Different };
    QString label;  // "algo 70 tile 20 stages 37 splitK 1 ..."
    double medianMs = 0;
    double p20Ms = 0;
    double p80Ms = 0;
    Parity parity = Parity::Unknown;
    bool baseline = false;  // the heuristic top the others are compared with
    bool selected = false;  // the config the report selected
    QString details;        // extra hover text (errors, workspace)
};

class PlotWidget : public QWidget {
    Q_OBJECT
public:
    enum class Kind {
        Latency,    // per NB, every config's median with its p20-p80 spread, policy and best marked
        Heatmap,    // NB x config, coloured by median relative to the best at that NB
        Bandwidth,  // achieved bandwidth of the best and the profile's config against the copy ceiling
        Candidates  // cuBLASLt candidate latency bars with parity marks
    };

    explicit PlotWidget(Kind kind, QWidget* parent = nullptr);
    ~PlotWidget() override;

    Kind kind() const { return kind_; }
    QString title() const;

    // The plot keeps a pointer to `results`; call refresh() after it changed (the sweep view does, throttled).
    void setResults(const ResultsIndex* results, PolicyMarkers markers);
    void setMarkers(PolicyMarkers markers);
    // `axisLabel` names what the bars measure; with `seconds` the values (still in medianMs) are shown in seconds.
    void setCandidates(std::vector<CandidateBar> candidates, const QString& axisLabel = {}, bool seconds = false);
    // Latency plot: medians divided by the best median at each NB (one shared scale around 1) instead of absolute.
    void setLatencyRelative(bool relative);
    bool latencyRelative() const { return relativeLatency_; }
    // Rebuilds the plot from the data; cheap enough to call a few times a second while a sweep streams.
    void refresh();

    // The caption an export carries: results file, device, date.
    QString exportCaption() const;
    // Writes the plot as PNG, SVG or PDF, chosen by the file's suffix, with exportCaption() under it; false with a
    // message on failure (a name without a suffix included).
    bool exportTo(const QString& path, QString* error, int width = 1200, int height = 700);

    // What hovering at this widget position shows (empty when nothing is near). The tooltip uses it.
    QString hoverTextAt(const QPoint& position) const;
    // The number of data points drawn (tests and the benchmark check that the plot is not empty).
    int pointCount() const;
    // Latency plot, relative view: points above the shown range, drawn as arrows at the top edge.
    int offScaleCount() const { return offScaleCount_; }
    // Redraws now and returns how long the redraw took (ms): what panning and zooming cost.
    double replotNowMs();
    // The widget position of a drawn point, for tests that hover it.
    std::optional<QPoint> positionOfPoint(int index) const;
    // Where the legend is drawn (plot widget coordinates, as positionOfPoint), none when hidden.
    std::optional<QRect> legendRect() const;
    // Heatmap: the config labels on the y axis now (they follow zoom and height; hover names the unlabelled rows).
    QStringList heatmapTickLabels() const;

public slots:
    void resetView();   // back to the full data range after zooming
    void exportDialog();  // asks for a file name, then exportTo

signals:
    void hovered(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    struct HoverPoint {
        double key;
        double value;
        QString text;     // for markers; empty for result cells, whose text is written on hover
        int row = -1;     // result cell (NB row, config column) when >= 0
        int column = -1;
    };
    void rebuild();
    void ensureBuilt() const;
    QString cellText(int row, int column) const;
    QString pointText(const HoverPoint& point) const;
    int heatmapLabelStride() const;
    // Sets the heatmap's config labels for the visible rows and the axis height; true when they changed.
    bool updateHeatmapTicks();
    void buildLatency();
    void buildHeatmap();
    void buildBandwidth();
    void buildCandidates();
    void showEmptyMessage(const QString& message);

    Kind kind_;
    QCustomPlot* plot_ = nullptr;
    const ResultsIndex* results_ = nullptr;
    PolicyMarkers markers_;
    std::vector<CandidateBar> candidates_;
    QString candidatesAxis_;
    bool candidatesInSeconds_ = false;
    bool relativeLatency_ = false;
    std::vector<HoverPoint> hoverPoints_;  // in plot coordinates; hovering picks the nearest on screen
    int pointCount_ = 0;
    int offScaleCount_ = 0;
    // Heatmap hover is a cell lookup rather than a nearest point.
    std::vector<QString> heatmapColumns_;
    int heatmapStride_ = 0;
    bool dirty_ = false;
};

}  // namespace tunescope::ui
