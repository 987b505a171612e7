#pragma once
// The cuBLASLt page: a report (the seed's format or the explorer's extension of it) opened through the core's
// lossless report model, or an exploration run on a CUDA device. Heuristic answers per workspace size, the
// explicit split-k grid with states and workspace, candidate latency bars with parity marks, the selected config,
// the raw document; export writes the report back (atomic, same bytes when unchanged).
#include <optional>
#include <vector>

#include <QFutureWatcher>
#include <QStandardItemModel>
#include <QWidget>

#include "plots/plotwidget.hpp"
#include "tunescope/formats/report.hpp"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QTreeView;

namespace tunescope::ui {

class JsonTreeModel;

// Rows of the heuristics tree: one per workspace size, its algorithms below.
void fillHeuristicsModel(QStandardItemModel* model, const CublasLtReport& report);
// The split-k grid: rows split_k, columns reduction schemes, each cell the check's state and workspace.
void fillSplitKModel(QStandardItemModel* model, const CublasLtReport& report);
// Timed candidates of an explorer report (finalists first), or the seed's end-to-end baseline vs candidate run.
// `axisNote` says what the values are; `seconds` is set when they are whole-run seconds rather than per-call ms.
std::vector<CandidateBar> candidateBars(const CublasLtReport& report, QString* axisNote = nullptr, bool* seconds = nullptr);
// One paragraph on what was selected and why.
QString selectionSummary(const CublasLtReport& report);

class CublasLtView : public QWidget {
    Q_OBJECT
public:
    explicit CublasLtView(QWidget* parent = nullptr);

    bool openReport(const QString& path, QString* error);
    void setReport(CublasLtReport report, const QString& path);
    bool hasReport() const { return report_.has_value(); }
    const CublasLtReport* report() const { return report_ ? &*report_ : nullptr; }
    QString filePath() const { return path_; }
    bool exportReport(const QString& path, QString* error);

    QStandardItemModel* heuristicsModel() { return heuristics_; }
    QStandardItemModel* splitKModel() { return splitK_; }
    PlotWidget* candidatesPlot() { return candidatesPlot_; }
    QTabWidget* tabs() { return tabs_; }

public slots:
    void openDialog();
    void exportDialog();
    void exploreDialog();

signals:
    void reportOpened(const QString& path);
    void message(const QString& text);

private:
    void showReport();
    void log(const QString& line);

    std::optional<CublasLtReport> report_;
    QString path_;
    QLabel* summary_;
    QLabel* selected_;
    QTabWidget* tabs_;
    QTreeView* heuristicsView_;
    QTableView* splitKView_;
    QTreeView* rawView_;
    QStandardItemModel* heuristics_;
    QStandardItemModel* splitK_;
    JsonTreeModel* raw_;
    PlotWidget* candidatesPlot_;
    QPlainTextEdit* log_;
    QPushButton* explore_;
    QFutureWatcher<void> exploration_;
};

}  // namespace tunescope::ui
