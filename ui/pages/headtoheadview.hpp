#pragma once
// The head-to-head page: a results file written by `tunescope-cli confirm` (two policies re-measured against each
// other per NB in fresh paired rounds, each with an A/A control), judged by the core's judgeHeadToHead() at the
// threshold chosen here: per NB both configs, both medians, the candidate / baseline ratio with its interval, the
// worst A/A control and the verdict, and the one-line answer "at least as fast at every NB?" (docs/gui.md,
// docs/sweep.md "Head to head").
#include <memory>

#include <QWidget>

#include "tunescope/sweep/results.hpp"

class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

class HeadToHeadModel;

class HeadToHeadView : public QWidget {
    Q_OBJECT
public:
    explicit HeadToHeadView(QWidget* parent = nullptr);

    // Loads a confirm results file (.jsonl or .jsonl.gz) through the core and judges it; false with a message
    // naming the file when it cannot be read or is not a head-to-head run (what was shown before stays).
    bool openFile(const QString& path, QString* error);
    // The same for a file already loaded elsewhere (the main window's results): nothing is read again.
    bool showResults(std::shared_ptr<const ResultsFile> results, const QString& path, QString* error);
    // Judges the loaded file again at another threshold (fraction, 0.005 = 0.5%); nothing is re-read.
    void setThreshold(double threshold);

    HeadToHeadModel* model() { return model_; }
    QTableView* table() { return table_; }
    QLabel* summary() { return summary_; }
    QString summaryText() const;
    // The ratio per NB with its interval, coloured by verdict, and the threshold band around 1.
    QCustomPlot* plot() { return plot_; }
    int plottedPoints() const { return plottedPoints_; }

signals:
    void message(const QString& text);

private:
    void openDialog();
    void judge();
    void rebuildPlot();

    QLineEdit* file_;
    QDoubleSpinBox* threshold_;
    QLabel* summary_;
    HeadToHeadModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QCustomPlot* plot_;
    int plottedPoints_ = 0;
    std::shared_ptr<const ResultsFile> results_;
};

}  // namespace tunescope::ui
