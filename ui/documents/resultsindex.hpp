#pragma once
// Sweep results arranged for the views: NB rows x config columns, each cell one measurement summary. The sweep
// writes measurements in any order (and streams them in while it runs), so the index grows in place and keeps
// its rows and columns sorted; the plots and the policy table read it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QString>

#include "tunescope/device/device.hpp"

namespace tunescope::ui {

struct CellStats {
    double medianMs = 0;
    double p20Ms = 0;
    double p80Ms = 0;
    double minMs = 0;
    double relStdev = 0;
    int samples = 0;
    double gbPerS = 0;  // achieved bandwidth at the median
    // Sampling converged (tunescope::isTrustworthy). A cell that stalled or timed out after a few samples is drawn
    // differently, is never "the best" and never enters a regret.
    bool trustworthy = true;
    QString quality;  // "converged, 183 samples" or "timeout after 2 samples"
};

// "BT32 w8 s3" (num_ctas shown only when it is not 1).
QString configLabel(const L2NormConfig& config);
// "11.52 us": a median in ms, always in microseconds (the compare and head-to-head tables).
QString formatUs(double ms);
// A time in the unit that reads best: "11.52 us", "1.234 ms", "2.500 s" (the plots and the policy table).
QString formatMs(double ms);

// Orders configs by BT, then num_warps, num_stages, num_ctas: the order the heatmap and the table use.
bool configLess(const L2NormConfig& a, const L2NormConfig& b);

class ResultsIndex {
public:
    void clear();
    // Adds or replaces one measurement; a config with numCtas 0 is not a config and is ignored.
    void add(int nb, const L2NormConfig& config, const CellStats& stats);
    // The copy-bandwidth ceiling measured at this NB (same bytes as the l2norm moves).
    void addCopy(int nb, const CellStats& stats);

    bool empty() const { return nbs_.empty(); }
    std::size_t measurementCount() const { return measurementCount_; }
    const std::vector<int>& nbs() const { return nbs_; }
    const std::vector<L2NormConfig>& configs() const { return configs_; }

    int nbRow(int nb) const;                             // -1 when the NB was not measured
    int configColumn(const L2NormConfig& config) const;  // -1 when the config was not measured
    const CellStats* cell(int row, int column) const;
    const CellStats* find(int nb, const L2NormConfig& config) const;
    const CellStats* copy(int nb) const;
    // The trustworthy config with the lowest median at this NB row, or -1 when the row has none.
    int bestColumn(int row) const;
    const CellStats* best(int nb) const;

    QString source;       // file the results came from, or "live sweep"
    QString deviceLabel;  // "cpu: AMD EPYC ... (x86_64)"

private:
    std::vector<int> nbs_;
    std::vector<L2NormConfig> configs_;
    // Keyed by (nb, config column) through maps so rows and columns can be inserted while results stream in.
    std::map<int, std::map<std::size_t, CellStats>> cellsByNb_;  // nb -> config id -> stats
    std::map<int, CellStats> copyByNb_;
    std::vector<std::size_t> columnIds_;  // column -> config id (ids are stable, columns move on insertion)
    std::size_t measurementCount_ = 0;
};

}  // namespace tunescope::ui
