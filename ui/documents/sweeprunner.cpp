#include "documents/sweeprunner.hpp"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "documents/resultsdocument.hpp"

namespace tunescope::ui {

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<tunescope::ResultRecord>();
    qRegisterMetaType<tunescope::SweepOutcome>();
}

SweepRunner::~SweepRunner() {
    cancel();
    wait();
}

void SweepRunner::cancel() { stop_ = true; }

void SweepRunner::wait() {
    if (future_.isValid()) future_.waitForFinished();
}

bool SweepRunner::start(const SweepPlan& plan, const std::vector<int>& deviceIndices, const QString& out,
                        QString* error) {
    if (running_) {
        if (error) *error = tr("A sweep is already running.");
        return false;
    }
    std::vector<Device*> devices;
    QString label;
    try {
        backend_ = openBackend(plan.backend);
        devices_.clear();
        for (int index : deviceIndices) {
            devices_.push_back(backend_->openDevice(index));
            devices.push_back(devices_.back().get());
            if (!label.isEmpty()) label += QStringLiteral(", ");
            label += QString::fromStdString(deviceLabel(devices_.back()->info()));
        }
        if (devices.empty()) throw Error("", "", "no device selected");
        std::vector<const Device*> constDevices(devices.begin(), devices.end());
        validatePlan(plan, constDevices);  // refuse before anything runs, with the core's message
    } catch (const std::exception& e) {
        devices_.clear();
        backend_.reset();
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }

    stop_ = false;
    running_ = true;
    emit started(label);
    QPointer<SweepRunner> self(this);
    const std::filesystem::path outPath = out.toStdString();
    future_ = QtConcurrent::run([this, self, plan, devices, outPath] {
        SweepOptions options;
        options.out = outPath;
        options.stopRequested = &stop_;
        // Called from worker threads (serialised by the core): copy what is needed and hand it to the UI thread.
        // progress fires once per round's measurement; only a shape's final records (written after its last
        // round) go to the views, through recordWritten.
        options.progress = [self](const SweepProgress& p) {
            const QString failure = QString::fromStdString(p.error);
            const int done = static_cast<int>(p.done), total = static_cast<int>(p.total);
            const double elapsed = p.elapsedS, left = p.etaS;
            QMetaObject::invokeMethod(self, [self, failure, done, total, elapsed, left] {
                if (!self) return;
                if (!failure.isEmpty()) emit self->measurementFailed(failure);
                emit self->progress(done, total, elapsed, left);
            }, Qt::QueuedConnection);
        };
        options.recordWritten = [self](const ResultRecord& written) {
            const ResultRecord record = written;
            QMetaObject::invokeMethod(self, [self, record] {
                if (self) emit self->recordMeasured(record);
            }, Qt::QueuedConnection);
        };
        options.note = [self](const std::string& text) {
            const QString message = QString::fromStdString(text);
            QMetaObject::invokeMethod(self, [self, message] { if (self) emit self->note(message); }, Qt::QueuedConnection);
        };
        SweepOutcome outcome;
        QString failure;
        try {
            outcome = runSweep(plan, devices, options);
        } catch (const std::exception& e) {
            failure = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(self, [self, outcome, failure] {
            if (!self) return;
            self->running_ = false;
            self->devices_.clear();
            self->backend_.reset();
            emit self->finished(outcome, failure);
        }, Qt::QueuedConnection);
    });
    return true;
}

}  // namespace tunescope::ui
