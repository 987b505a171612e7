#pragma once
// The capture sweep page: the results of `sweep --manifest` (docs/fla-capture.md section 10) read with their checks
// (sweep/fla_capture_sweep_file.hpp), a selector of the decisions (kernel and FLA key), the selected decision's
// configs as a table (models/capturesweepmodel) and their totals with p20-p80 bars, the chosen config and FLA's own
// choice marked.
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
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
    QString filePath() const { return path_; }
    CaptureSweepModel* model() { return model_; }
    QComboBox* decisionBox() { return decisions_; }
    QTableView* table() { return table_; }
    QCustomPlot* plot() { return plot_; }
    QString summaryText() const;

public slots:
    void openDialog();

signals:
    void sweepOpened(const QString& path);

private:
    void showDecision(int decision);
    void replot();

    QString path_;
    CaptureSweepModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QComboBox* decisions_;
    QTableView* table_;
    QCustomPlot* plot_;
};

}  // namespace tunescope::ui
