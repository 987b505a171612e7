#pragma once
// The compare page: two sweep results files side by side (run A = baseline, run B), per shape x config the ratio
// B/A of the medians with the conservative verdict and interval of the core's compareRuns() (the same numbers as
// `tunescope-cli compare`), a plot of the ratios per NB coloured by verdict, and a summary of what changed: each
// run's winner per NB and what keeping A's winner costs on B (docs/gui.md). A second plot overlays both runs'
// latency per config at one NB, ordered by B, with the rank agreement: a stand-in sweep beside a sweep of FLA's
// Triton kernel shows where they rank configs differently.
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTabWidget;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

class CompareModel;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // Loads both files through the core (.jsonl or .jsonl.gz) and compares them; false with a message naming the
    // file on failure (what was shown before stays).
    bool compareFiles(const QString& fileA, const QString& fileB, QString* error);
    // Uses the results a window already holds as run A (saves reading it twice).
    void setFileA(const QString& path);

    CompareModel* model() { return model_; }
    QSortFilterProxyModel* proxy() { return proxy_; }
    QTableView* table() { return table_; }
    QLabel* summary() { return summary_; }
    QCustomPlot* plot() { return plot_; }
    int plottedPoints() const { return plottedPoints_; }
    // The latency overlay: one NB (latencyNbBox), each config's median in A and in B (p20-p80 whiskers).
    QCustomPlot* latencyPlot() { return latencyPlot_; }
    QComboBox* latencyNbBox() { return latencyNb_; }
    QTabWidget* plotTabs() { return plotTabs_; }
    int latencyPoints() const { return latencyPoints_; }  // configs plotted (each has an A and a B point)
    // The configs of the overlay, left to right (B's fastest first).
    QStringList latencyConfigs() const { return latencyConfigs_; }
    QString summaryText() const;

signals:
    void message(const QString& text);

private:
    void rebuildPlot();
    void rebuildLatencyPlot();
    void fillLatencyNbs();
    void runFromFields();

    QLineEdit* fileA_;
    QLineEdit* fileB_;
    QLineEdit* filter_;
    QLabel* summary_;
    CompareModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QCustomPlot* plot_;
    QTabWidget* plotTabs_;
    QComboBox* latencyNb_;
    QCustomPlot* latencyPlot_;
    int plottedPoints_ = 0;
    int latencyPoints_ = 0;
    QStringList latencyConfigs_;
};

}  // namespace tunescope::ui
