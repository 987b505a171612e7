#pragma once
// The sweep page: pick backend and device, NB list, config grid and stopping rule; start and cancel; progress with
// the time left; results stream into the results document (and so into every plot and the policy table) while
// the sweep runs on a worker thread. "Promote measured winners" turns the results into policy, undoably.
#include <QPointer>
#include <functional>

#include <QWidget>

#include "tunescope/sweep/promote.hpp"
#include "tunescope/sweep/sweep.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace tunescope::ui {

class PlotWidget;
class ProfileDocument;
class ResultsDocument;
class SweepRunner;

class SweepView : public QWidget {
    Q_OBJECT
public:
    SweepView(ProfileDocument* profile, ResultsDocument* results, QWidget* parent = nullptr);
    ~SweepView() override;

    // The plan the form describes (throws tunescope::Error naming the bad field).
    SweepPlan planFromForm() const;

    // Form access for tests and scripted use.
    void setNbList(const QString& text);
    void setGridLists(const QString& bt, const QString& warps, const QString& stages);
    void setStoppingRule(int minSamples, double maxRelNoisePercent, double minTimeMs, double timeoutMs);
    void setOutputFile(const QString& path);
    void setBackend(const QString& name);
    void setMeasureProfileConfigs(bool on);

    SweepRunner* runner() { return runner_; }
    QPushButton* startButton() { return start_; }
    QPushButton* cancelButton() { return cancel_; }
    QPushButton* promoteButton() { return promote_; }
    QProgressBar* progressBar() { return progressBar_; }
    QLabel* progressLabel() { return progressLabel_; }
    QString lastError() const { return lastError_; }
    // Asked before a sweep replaces results that are loaded (true = go ahead). The default asks with a message box;
    // scripted runs (screenshots) can answer themselves.
    void setReplaceConfirmation(std::function<bool(const QString& question)> confirm) { confirmReplace_ = std::move(confirm); }

public slots:
    bool startSweep();
    void cancelSweep();
    // Promotes through the core (promote()) and pushes the changed entries as one undo step; returns how many
    // entries changed (-1 when it could not run).
    int promoteWinners();

signals:
    void sweepStarted();
    void sweepFinished(bool ok);
    void message(const QString& text);

private:
    void refreshBackends();
    void refreshDevices();
    void onProgress(int done, int total, double elapsed, double left);
    void onFinished(const SweepOutcome& outcome, const QString& error);
    void updateButtons();
    void log(const QString& line);
    QString defaultOutputFile() const;

    QPointer<ProfileDocument> profile_;
    QPointer<ResultsDocument> results_;
    SweepRunner* runner_;
    QComboBox* backend_;
    QComboBox* device_;
    QLineEdit* nbList_;
    QComboBox* gridKind_;
    QLineEdit* btList_;
    QLineEdit* warpsList_;
    QLineEdit* stagesList_;
    QLineEdit* gridFile_;
    QSpinBox* minSamples_;
    QDoubleSpinBox* maxNoise_;
    QDoubleSpinBox* minTime_;
    QDoubleSpinBox* timeout_;
    QComboBox* l2Regime_;  // cold, warm, both, hot (docs/sweep.md, "L2 regimes")
    QComboBox* timer_;     // auto, cupti, events, steady_clock
    QCheckBox* profileConfigs_;
    QCheckBox* allowMixedArchitectures_;  // promote: entries of several GPU architectures in one profile
    QLineEdit* output_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* promote_;
    QProgressBar* progressBar_;
    QLabel* progressLabel_;
    QPlainTextEdit* log_;
    PlotWidget* livePlot_;
    QString lastError_;
    std::function<bool(const QString&)> confirmReplace_;
    int failures_ = 0;
};

}  // namespace tunescope::ui
