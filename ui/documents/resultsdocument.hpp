#pragma once
// Sweep results as the views see them: the file the core read (or the records a running sweep has streamed so
// far), indexed NB x config for the plots and the table, and the regret of the open profile's policy (the core's
// computeRegret) per NB.
#include <map>
#include <optional>

#include <QObject>
#include <QString>

#include "documents/resultsindex.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope::ui {

// What the policy table shows for one NB, copied out of the core's RegretRow (whose pointers do not outlive
// the next record appended).
struct RegretSummary {
    double regret = 1.0;  // policy median / best median
    bool policyMeasured = false;
    bool withinNoise = false;
    QString verdict;  // FASTER / SLOWER / SAME / AMBIGUOUS (policy vs best)
    L2NormConfig bestConfig;
    double bestMedianMs = 0;
    double policyMedianMs = 0;
    QString policyQuality;  // non-empty when the policy's config was measured but did not converge (no regret then)
    double regretLow = 1.0, regretHigh = 1.0;  // the paired interval of policy / best over rounds
    std::vector<L2NormConfig> ties;              // configs indistinguishable from the fastest (tie rule's order)
};

class ResultsDocument : public QObject {
    Q_OBJECT
public:
    explicit ResultsDocument(QObject* parent = nullptr);

    // Reads a results file through the core (loadResults); on failure nothing changes and `error` names the file
    // and line.
    bool load(const QString& path, QString* error);
    // Takes over a file the core already read (e.g. on a worker thread).
    void adopt(ResultsFile file);
    // A sweep is starting: forget what was loaded, remember where the sweep writes.
    void beginLive(const QString& path, const QString& deviceLabel);
    // One record streamed in from a running sweep.
    void append(const ResultRecord& record);
    // The L2 regime the index, the plots and the regret show (a `--l2 both` file holds two: records of one regime
    // never mix with the other's, docs/sweep.md "L2 regimes"). Changing it re-indexes and emits reset().
    L2Regime regime() const { return regime_; }
    void setRegime(L2Regime regime);
    // The regimes the records hold, in the order cold, warm, hot.
    std::vector<L2Regime> regimes() const;
    void clear();

    bool isEmpty() const { return file_.records.empty(); }
    const ResultsFile& file() const { return file_; }
    const ResultsIndex& index() const { return index_; }
    QString filePath() const { return QString::fromStdString(file_.path.string()); }
    bool isLive() const { return live_; }
    void setLive(bool live) { live_ = live; }

    // Regret of `policy` (NB -> config) against the best measured config per NB, through the core.
    std::map<int, RegretSummary> regret(const std::map<int, L2NormConfig>& policy) const;

signals:
    void reset();     // replaced wholesale (load, clear, sweep start)
    void appended();  // records were added (a running sweep)

private:
    void indexRecord(const ResultRecord& record);

    ResultsFile file_;
    // The converged records only (raw samples dropped): what "best" and the regret are computed over.
    ResultsFile trusted_;
    ResultsIndex index_;
    L2Regime regime_ = L2Regime::Cold;
    bool live_ = false;
};

// The policy of a profile as the sweep and regret see it.
std::map<int, L2NormConfig> policyConfigs(const Profile& profile);

}  // namespace tunescope::ui
