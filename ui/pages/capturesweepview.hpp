#pragma once
// The capture sweep page: the results of `sweep --manifest` (docs/fla-capture.md section 10) read with their checks
// (sweep/fla_capture_sweep_file.hpp), a selector of the decisions (kernel and FLA key), the selected decision's
// configs as a table (models/capturesweepmodel) and their totals with p20-p80 bars, the chosen config and FLA's own
// choice marked. "Compare with..." reads a second capture sweep (another GPU, stack or day) and shows, per decision,
// the other run's totals beside this run's, its choice, and what this run's choice costs there
// (sweep/fla_capture_compare.hpp, the same numbers as `tunescope-cli compare A B`).
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

class CaptureSweepModel;

class CaptureSweepView : public QWidget {
    Q_OBJECT
public:
    explicit CaptureSweepView(QWidget* parent = nullptr);

    // Reads and checks the file; one that is refused leaves the page as it was and `error` names the file and the
    // JSON Pointer of every fault.
    bool openSweep(const QString& path, QString* error);
    // Compares the open sweep (A) with another (B); a refused file leaves the page as it was, `error` naming its
    // faults with their JSON Pointers.
    bool compareWith(const QString& path, QString* error);
    void stopComparing();
    QString comparisonText() const;
    QString filePath() const { return path_; }
    CaptureSweepModel* model() { return model_; }
    QComboBox* decisionBox() { return decisions_; }
    QTableView* table() { return table_; }
    QCustomPlot* plot() { return plot_; }
    QString summaryText() const;

public slots:
    void openDialog();
    void compareDialog();

signals:
    void sweepOpened(const QString& path);

private:
    void showDecision(int decision);
    void replot();
    void updateComparisonText();

    QString path_;
    CaptureSweepModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QLabel* comparison_;
    QPushButton* stopComparing_;
    QComboBox* decisions_;
    QTableView* table_;
    QCustomPlot* plot_;
};

}  // namespace tunescope::ui
