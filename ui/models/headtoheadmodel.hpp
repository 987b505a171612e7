#pragma once
// A head-to-head run (`tunescope-cli confirm`) as judged by the core's judgeHeadToHead(): per NB both configs, both
// medians, the candidate / baseline ratio with its paired interval, the worst A/A control, the rounds and the
// verdict. The head-to-head page (pages/headtoheadview) shows it.
#include <memory>

#include <QAbstractTableModel>

#include "tunescope/sweep/head_to_head.hpp"
#include "tunescope/sweep/results.hpp"

namespace tunescope::ui {

// One row per NB. Sorting uses SortRole (numbers as numbers); the display shows units.
class HeadToHeadModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NbColumn, CandidateColumn, BaselineColumn, CandidateMedianColumn, BaselineMedianColumn, RatioColumn,
                  IntervalColumn, ControlColumn, RoundsColumn, VerdictColumn, kColumns };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit HeadToHeadModel(QObject* parent = nullptr);
    // The report's rows point into the file; the model keeps it alive.
    void setReport(std::shared_ptr<const ResultsFile> file, HeadToHeadReport report);
    const HeadToHeadReport& report() const { return report_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ResultsFile> file_;
    HeadToHeadReport report_;
};

}  // namespace tunescope::ui
