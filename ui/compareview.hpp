#pragma once
// The compare page: two sweep results files side by side (run A = baseline, run B), per shape x config the ratio
// B/A of the medians with the conservative verdict and interval of the core's compareRuns() (the same numbers as
// `tunescope-cli compare`), a plot of the ratios per NB coloured by verdict, and a summary of what changed: each
// run's winner per NB and what keeping A's winner costs on B (docs/gui.md).
#include <memory>

#include <QAbstractTableModel>
#include <QWidget>

#include "tunescope/results.hpp"
#include "tunescope/run_compare.hpp"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

// One row per compared pair. Sorting uses SortRole (numbers as numbers); the display shows units.
class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NbColumn, ConfigColumn, MedianAColumn, MedianBColumn, RatioColumn, IntervalColumn, VerdictColumn,
                  QualityColumn, kColumns };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit CompareModel(QObject* parent = nullptr);
    // The comparison's rows point into the two files; the model keeps them alive.
    void setComparison(std::shared_ptr<const ResultsFile> a, std::shared_ptr<const ResultsFile> b, RunComparison comparison);
    const RunComparison& comparison() const { return comparison_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ResultsFile> a_, b_;
    RunComparison comparison_;
};

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
    QString summaryText() const;

signals:
    void message(const QString& text);

private:
    void rebuildPlot();
    void runFromFields();

    QLineEdit* fileA_;
    QLineEdit* fileB_;
    QLineEdit* filter_;
    QLabel* summary_;
    CompareModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QCustomPlot* plot_;
    int plottedPoints_ = 0;
};

}  // namespace tunescope::ui
