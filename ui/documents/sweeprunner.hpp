#pragma once
// Runs the core's runSweep() on a worker thread (QtConcurrent) and reports back on the UI thread through
// signals: one recordMeasured per finished measurement, progress with the time left, and finished at the end.
// Cancel asks the sweep to stop between measurements; everything measured stays in the results file.
#include <atomic>
#include <memory>
#include <vector>

#include <QFuture>
#include <QObject>
#include <QString>

#include "tunescope/sweep/sweep.hpp"

namespace tunescope::ui {

class SweepRunner : public QObject {
    Q_OBJECT
public:
    explicit SweepRunner(QObject* parent = nullptr);
    ~SweepRunner() override;  // cancels and waits: the worker must not outlive the object it reports to

    // Opens the devices (backend name + device indices) and starts the sweep into `out`. Returns false with a
    // message when it cannot start (a sweep is running, unknown backend, no device, invalid plan).
    bool start(const SweepPlan& plan, const std::vector<int>& deviceIndices, const QString& out, QString* error);
    void cancel();
    bool isRunning() const { return running_; }
    // Blocks until the worker has finished (tests, shutdown).
    void wait();

signals:
    void started(const QString& deviceLabel);
    void recordMeasured(const tunescope::ResultRecord& record);
    void measurementFailed(const QString& message);
    void progress(int done, int total, double elapsedSeconds, double secondsLeft);
    void note(const QString& text);
    // The sweep ended (completed, cancelled or failed); `error` is empty unless it could not run at all.
    void finished(const tunescope::SweepOutcome& outcome, const QString& error);

private:
    std::atomic<bool> stop_{false};
    bool running_ = false;
    QFuture<void> future_;
    std::vector<std::unique_ptr<Device>> devices_;
    std::unique_ptr<Backend> backend_;
};

}  // namespace tunescope::ui

Q_DECLARE_METATYPE(tunescope::ResultRecord)
Q_DECLARE_METATYPE(tunescope::SweepOutcome)
