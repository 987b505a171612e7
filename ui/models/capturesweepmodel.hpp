#pragma once
// The capture sweep page's table (pages/capturesweepview): the results of `sweep --manifest` (docs/fla-capture.md
// section 10) for one decision at a time, a kernel and its FLA key: one row per config with its label, whether it
// was eligible (and why not), its total over the key's launches with p20 and p80, its ratio to the chosen config,
// and which config the sweep chose and which FLA's own autotune chose in the capture. With a second sweep compared
// (sweep/fla_capture_compare.hpp, this file as A), two more columns: the config's total in the other run and the
// ratio other / this; the pick column also names the other run's choice.
#include <optional>

#include <QAbstractTableModel>

#include "tunescope/sweep/fla_capture_compare.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"

namespace tunescope::ui {

class CaptureSweepModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ConfigColumn, LabelColumn, EligibleColumn, TotalColumn, P20Column, P80Column, RatioColumn, PickColumn,
        OtherTotalColumn, OtherRatioColumn,  // only while a comparison is set
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };  // totals and ratios as numbers
    using QAbstractTableModel::QAbstractTableModel;

    void setSweep(FlaCaptureSweepFile sweep);  // shows decision 0
    const FlaCaptureSweepFile& sweep() const { return sweep_; }
    int decisionCount() const { return int(sweep_.sweep.decisions.size()); }
    // "l2norm_fwd_kernel, key 878a9638 (2 launches)": what the decision selector lists.
    QString decisionLabel(int decision) const;
    void setDecision(int decision);
    int decision() const { return decision_; }
    const FlaDecisionRun* currentDecision() const;
    // The comparison of this sweep (as A) with another; unset: none. The model keeps its own copy.
    void setComparison(std::optional<FlaCaptureComparison> comparison);
    const FlaCaptureComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
    // The current decision in the comparison; null when none is set or the other run lacks this kernel and key.
    const FlaCaptureCompareDecision* comparedDecision() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const FlaDecisionConfig* chosenConfig() const;
    const FlaCaptureCompareConfig* comparedConfig(std::size_t config) const;
    FlaCaptureSweepFile sweep_;
    int decision_ = -1;
    std::optional<FlaCaptureComparison> comparison_;
};

}  // namespace tunescope::ui
