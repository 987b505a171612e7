#pragma once
// Two sweep results files compared by the core's compareRuns() (run A = baseline, run B): per shape x config both
// medians, the ratio B/A with its interval, the verdict and how each side's sampling ended. The compare page
// (pages/compareview) shows it in a sorted, filtered table.
#include <memory>

#include <QAbstractTableModel>

#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/run_compare.hpp"

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

}  // namespace tunescope::ui
