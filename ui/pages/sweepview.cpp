#include "pages/sweepview.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>

#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "documents/sweeprunner.hpp"
#include "plots/plotbinding.hpp"
#include "tunescope/base/hashing.hpp"

namespace tunescope::ui {
namespace {

QString formatDuration(double seconds) {
    if (seconds < 0) return QStringLiteral("?");
    const qint64 total = static_cast<qint64>(seconds + 0.5);
    return QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

std::vector<int> intList(const QLineEdit* edit, const char* what) {
    return parseIntList(edit->text().trimmed().toStdString(), what);
}

}  // namespace

SweepView::SweepView(ProfileDocument* profile, ResultsDocument* results, QWidget* parent)
    : QWidget(parent), profile_(profile), results_(results), runner_(new SweepRunner(this)),
      backend_(new QComboBox(this)), device_(new QComboBox(this)), nbList_(new QLineEdit(QStringLiteral("1-32"), this)),
      gridKind_(new QComboBox(this)), btList_(new QLineEdit(QStringLiteral("8,16,32,64,128"), this)),
      warpsList_(new QLineEdit(QStringLiteral("1,2,4,8,16"), this)), stagesList_(new QLineEdit(QStringLiteral("2,3,4"), this)),
      gridFile_(new QLineEdit(this)), minSamples_(new QSpinBox(this)), maxNoise_(new QDoubleSpinBox(this)),
      minTime_(new QDoubleSpinBox(this)), timeout_(new QDoubleSpinBox(this)), l2Regime_(new QComboBox(this)), timer_(new QComboBox(this)),
      profileConfigs_(new QCheckBox(tr("also time the profile's own configs (regret)"), this)),
      allowMixedArchitectures_(new QCheckBox(tr("promote even if the profile then mixes GPU architectures"), this)),
      output_(new QLineEdit(this)), start_(new QPushButton(tr("Start sweep"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)), promote_(new QPushButton(tr("Promote measured winners"), this)),
      progressBar_(new QProgressBar(this)), progressLabel_(new QLabel(this)), log_(new QPlainTextEdit(this)),
      livePlot_(new PlotWidget(PlotWidget::Kind::Latency, this)) {
    setObjectName(QStringLiteral("sweepView"));
    backend_->setObjectName(QStringLiteral("sweepBackend"));
    device_->setObjectName(QStringLiteral("sweepDevice"));
    nbList_->setObjectName(QStringLiteral("sweepNbList"));
    start_->setObjectName(QStringLiteral("sweepStart"));
    cancel_->setObjectName(QStringLiteral("sweepCancel"));
    promote_->setObjectName(QStringLiteral("sweepPromote"));
    progressBar_->setObjectName(QStringLiteral("sweepProgress"));
    livePlot_->setObjectName(QStringLiteral("sweepLivePlot"));

    auto* form = new QWidget(this);
    auto* formLayout = new QVBoxLayout(form);
    formLayout->setContentsMargins(0, 0, 0, 0);

    auto* deviceBox = new QGroupBox(tr("Device"), form);
    auto* deviceForm = new QFormLayout(deviceBox);
    deviceForm->addRow(tr("Backend"), backend_);
    deviceForm->addRow(tr("Device"), device_);
    formLayout->addWidget(deviceBox);

    auto* shapeBox = new QGroupBox(tr("What to measure"), form);
    auto* shapeForm = new QFormLayout(shapeBox);
    nbList_->setToolTip(tr("NB list, e.g. 1-32 or 1,2,4-8; each NB is T = NB x 65536 rows of 128"));
    shapeForm->addRow(tr("NB"), nbList_);
    gridKind_->addItem(tr("FLA's 25 configs x num_stages {2,3,4} (75)"));
    gridKind_->addItem(tr("Lists below"));
    gridKind_->addItem(tr("Grid file (JSON or CSV)"));
    gridKind_->setObjectName(QStringLiteral("sweepGridKind"));
    shapeForm->addRow(tr("Grid"), gridKind_);
    shapeForm->addRow(tr("BT"), btList_);
    shapeForm->addRow(tr("num_warps"), warpsList_);
    shapeForm->addRow(tr("num_stages"), stagesList_);
    auto* gridFileRow = new QHBoxLayout;
    gridFileRow->addWidget(gridFile_);
    auto* browseGrid = new QPushButton(tr("..."), form);
    gridFileRow->addWidget(browseGrid);
    shapeForm->addRow(tr("Grid file"), gridFileRow);
    profileConfigs_->setChecked(true);
    shapeForm->addRow(profileConfigs_);
    formLayout->addWidget(shapeBox);

    auto* ruleBox = new QGroupBox(tr("Stopping rule"), form);
    auto* ruleForm = new QFormLayout(ruleBox);
    const StoppingRule defaults;
    minSamples_->setRange(1, 100000);
    minSamples_->setValue(defaults.minSamples);
    maxNoise_->setRange(0.01, 100.0);
    maxNoise_->setDecimals(2);
    maxNoise_->setSuffix(QStringLiteral(" %"));
    maxNoise_->setValue(defaults.maxRelNoise * 100.0);
    minTime_->setRange(0, 1e6);
    minTime_->setSuffix(QStringLiteral(" ms"));
    minTime_->setValue(defaults.minTimeMs);
    timeout_->setRange(1, 1e7);
    timeout_->setSuffix(QStringLiteral(" ms"));
    timeout_->setValue(defaults.timeoutMs);
    ruleForm->addRow(tr("Min samples"), minSamples_);
    ruleForm->addRow(tr("Stop at relative noise"), maxNoise_);
    ruleForm->addRow(tr("Min measured time"), minTime_);
    ruleForm->addRow(tr("Timeout per measurement"), timeout_);
    l2Regime_->setObjectName(QStringLiteral("sweepL2Regime"));
    for (const char* regime : {"cold", "warm", "both", "hot"}) l2Regime_->addItem(QString::fromLatin1(regime));
    l2Regime_->setToolTip(tr("What the L2 holds before each sample: cold (flushed: a buffer several times the L2 "
                             "written then read), warm (the input just written by a producer kernel, as after the "
                             "layer that made it), both (cold and warm in the same rounds) or hot (nothing in between)"));
    ruleForm->addRow(tr("L2 before each sample"), l2Regime_);
    timer_->setObjectName(QStringLiteral("sweepTimer"));
    for (const char* timer : {"auto", "cupti", "events", "steady_clock"}) timer_->addItem(QString::fromLatin1(timer));
    timer_->setToolTip(tr("What times a sample: auto (CUPTI kernel durations on CUDA where CUPTI loads, else device "
                          "events; steady_clock on the CPU), cupti, events or steady_clock"));
    ruleForm->addRow(tr("Timer"), timer_);
    formLayout->addWidget(ruleBox);

    auto* outRow = new QHBoxLayout;
    output_->setObjectName(QStringLiteral("sweepOutput"));
    output_->setText(defaultOutputFile());
    output_->setToolTip(tr("Results file (JSON Lines). An existing file of the same plan is resumed."));
    outRow->addWidget(output_);
    auto* browseOut = new QPushButton(tr("..."), form);
    outRow->addWidget(browseOut);
    auto* outForm = new QFormLayout;
    outForm->addRow(tr("Results file"), outRow);
    formLayout->addLayout(outForm);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addStretch();
    buttons->addWidget(promote_);
    formLayout->addLayout(buttons);
    allowMixedArchitectures_->setObjectName(QStringLiteral("sweepAllowMixedArchitectures"));
    allowMixedArchitectures_->setToolTip(tr("Without it, promote refuses a profile whose entries would come from more "
                                            "than one GPU architecture (e.g. CPU or H200 timings beside production's "
                                            "gfx942 choices): FLA would load all of them on one GPU"));
    formLayout->addWidget(allowMixedArchitectures_);
    progressBar_->setRange(0, 1);
    progressBar_->setValue(0);
    formLayout->addWidget(progressBar_);
    progressLabel_->setObjectName(QStringLiteral("sweepProgressLabel"));
    progressLabel_->setText(tr("Idle."));
    formLayout->addWidget(progressLabel_);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);
    log_->setPlaceholderText(tr("Sweep notes and failures appear here."));
    formLayout->addWidget(log_, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(form);
    splitter->addWidget(livePlot_);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(splitter);
    bindPlot(livePlot_, profile, results);

    promote_->setToolTip(tr("Each prospective entry whose NB was measured becomes measured-best with its evidence; "
                            "ties within noise keep the incumbent. One undo step."));
    connect(start_, &QPushButton::clicked, this, &SweepView::startSweep);
    connect(cancel_, &QPushButton::clicked, this, &SweepView::cancelSweep);
    connect(promote_, &QPushButton::clicked, this, [this] {
        const int changed = promoteWinners();
        if (changed < 0) QMessageBox::warning(this, tr("Promote measured winners"), lastError_);
    });
    connect(backend_, &QComboBox::currentIndexChanged, this, &SweepView::refreshDevices);
    connect(gridKind_, &QComboBox::currentIndexChanged, this, &SweepView::updateButtons);
    connect(browseGrid, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Grid file"), QString(), tr("Grids (*.json *.csv)"));
        if (!path.isEmpty()) gridFile_->setText(path);
    });
    connect(browseOut, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Results file"), output_->text(),
                                                          tr("Sweep results (*.jsonl)"), nullptr,
                                                          QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty()) output_->setText(path);
    });
    connect(runner_, &SweepRunner::started, this, [this](const QString& label) { log(tr("Sweep on %1").arg(label)); });
    connect(runner_, &SweepRunner::recordMeasured, this, [this](const ResultRecord& record) {
        if (results_) results_->append(record);
    });
    connect(runner_, &SweepRunner::measurementFailed, this, [this](const QString& text) {
        ++failures_;
        log(tr("failed: %1").arg(text));
    });
    connect(runner_, &SweepRunner::note, this, &SweepView::log);
    connect(runner_, &SweepRunner::progress, this, &SweepView::onProgress);
    connect(runner_, &SweepRunner::finished, this, &SweepView::onFinished);
    if (profile) {
        connect(profile, &ProfileDocument::reset, this, &SweepView::updateButtons);
    }
    if (results) connect(results, &ResultsDocument::reset, this, &SweepView::updateButtons);
    refreshBackends();
    updateButtons();
}

SweepView::~SweepView() {
    runner_->cancel();
    runner_->wait();
}

QString SweepView::defaultOutputFile() const {
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (dir.isEmpty()) dir = QDir::tempPath();
    return QDir(dir).filePath(QStringLiteral("sweeps/sweep-") +
                              QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                              QStringLiteral(".jsonl"));
}

void SweepView::refreshBackends() {
    backend_->clear();
    for (const BackendProbe& probe : probeBackends()) {
        const QString name = QString::fromStdString(probe.name);
        const bool usable = probe.backend && probe.reason.empty();
        backend_->addItem(usable ? name : name + tr(" (unavailable)"), name);
        const int row = backend_->count() - 1;
        if (!usable) {
            backend_->setItemData(row, QString::fromStdString(probe.reason), Qt::ToolTipRole);
            // Keep it listed, greyed out, so the user sees why it is missing.
            backend_->setItemData(row, 0, Qt::UserRole - 1);
            log(tr("backend %1 unavailable: %2").arg(name, QString::fromStdString(probe.reason)));
        }
    }
    refreshDevices();
}

void SweepView::refreshDevices() {
    device_->clear();
    const QString name = backend_->currentData().toString();
    if (name.isEmpty()) return;
    for (const BackendProbe& probe : probeBackends()) {
        if (QString::fromStdString(probe.name) != name || !probe.backend) continue;
        const auto devices = probe.backend->devices();
        for (const DeviceInfo& info : devices) device_->addItem(QString::fromStdString(deviceLabel(info)), QVariantList{info.index});
        if (devices.size() > 1) {
            QVariantList all;
            for (const DeviceInfo& info : devices) all.push_back(info.index);
            device_->addItem(tr("all %1 devices (one worker each)").arg(devices.size()), all);
        }
    }
    updateButtons();
}

void SweepView::setNbList(const QString& text) { nbList_->setText(text); }

void SweepView::setGridLists(const QString& bt, const QString& warps, const QString& stages) {
    gridKind_->setCurrentIndex(1);
    btList_->setText(bt);
    warpsList_->setText(warps);
    stagesList_->setText(stages);
}

void SweepView::setStoppingRule(int minSamples, double maxRelNoisePercent, double minTimeMs, double timeoutMs) {
    minSamples_->setValue(minSamples);
    maxNoise_->setValue(maxRelNoisePercent);
    minTime_->setValue(minTimeMs);
    timeout_->setValue(timeoutMs);
}

void SweepView::setOutputFile(const QString& path) { output_->setText(path); }

void SweepView::setBackend(const QString& name) {
    const int at = backend_->findData(name);
    if (at >= 0) backend_->setCurrentIndex(at);
}

void SweepView::setMeasureProfileConfigs(bool on) { profileConfigs_->setChecked(on); }

SweepPlan SweepView::planFromForm() const {
    SweepPlan plan;
    plan.backend = backend_->currentData().toString().toStdString();
    plan.shapes = shapesFromNbList(intList(nbList_, "NB"));
    switch (gridKind_->currentIndex()) {
    case 0: plan.grid = defaultGrid(); break;
    case 1: plan.grid = gridFromLists(intList(btList_, "BT"), intList(warpsList_, "num_warps"), intList(stagesList_, "num_stages")); break;
    default:
        if (gridFile_->text().trimmed().isEmpty()) throw Error("", "", "choose a grid file");
        plan.grid = loadGridFile(gridFile_->text().trimmed().toStdString());
    }
    plan.rule.minSamples = minSamples_->value();
    plan.rule.maxRelNoise = maxNoise_->value() / 100.0;
    plan.rule.minTimeMs = minTime_->value();
    plan.rule.timeoutMs = timeout_->value();
    plan.l2Regimes = parseL2Regimes(l2Regime_->currentText().toStdString());
    plan.timer = timer_->currentText().toStdString();
    if (profileConfigs_->isChecked() && profile_ && profile_->hasProfile()) {
        const auto policy = policyConfigs(profile_->profile());
        for (const SweepShape& shape : plan.shapes) {
            auto it = policy.find(shape.nb);
            if (it != policy.end()) plan.profileConfigs[shape.nb] = it->second;
        }
        plan.profileFile = QFileInfo(profile_->filePath()).fileName().toStdString();
        if (!profile_->filePath().isEmpty()) {
            try {
                plan.profileSha256 = sha256FileHex(profile_->filePath().toStdString());
            } catch (const std::exception&) {
                // An unsaved profile has no file digest; the header records its name only.
            }
        }
    }
    return plan;
}

bool SweepView::startSweep() {
    lastError_.clear();
    failures_ = 0;
    SweepPlan plan;
    try {
        plan = planFromForm();
    } catch (const std::exception& e) {
        lastError_ = QString::fromStdString(e.what());
        log(tr("cannot start: %1").arg(lastError_));
        emit message(lastError_);
        return false;
    }
    std::vector<int> devices;
    for (const QVariant& index : device_->currentData().toList()) devices.push_back(index.toInt());
    const QString out = output_->text().trimmed();
    if (out.isEmpty()) {
        lastError_ = tr("Choose a results file: the sweep writes every measurement there as it goes.");
        log(tr("cannot start: %1").arg(lastError_));
        emit message(lastError_);
        output_->setFocus(Qt::OtherFocusReason);
        return false;
    }
    // The loaded results are replaced on screen by the live sweep (they stay on disk): ask first.
    if (results_ && !results_->isEmpty() && !results_->isLive()) {
        const QString question =
            tr("The plots and the policy table show %1 (%2 measurements). The sweep will replace them on screen (the "
               "file stays on disk; reopen it, or compare both runs on the Compare page). Start the sweep?")
                .arg(results_->filePath())
                .arg(results_->file().records.size());
        const bool go = confirmReplace_ ? confirmReplace_(question)
                                        : QMessageBox::question(this, tr("Replace loaded results?"), question,
                                                                QMessageBox::Yes | QMessageBox::Cancel,
                                                                QMessageBox::Cancel) == QMessageBox::Yes;
        if (!go) {
            lastError_ = tr("Cancelled: the loaded results were kept.");
            log(lastError_);
            return false;
        }
    }
    QDir().mkpath(QFileInfo(out).absolutePath());
    QString error;
    if (!runner_->start(plan, devices, out, &error)) {
        lastError_ = error;
        log(tr("cannot start: %1").arg(error));
        emit message(error);
        return false;
    }
    if (results_) results_->beginLive(out, device_->currentText());
    progressBar_->setRange(0, 0);  // busy until the first progress report
    progressLabel_->setText(tr("Starting..."));
    updateButtons();
    emit sweepStarted();
    return true;
}

void SweepView::cancelSweep() {
    if (!runner_->isRunning()) return;
    runner_->cancel();
    progressLabel_->setText(tr("Cancelling after the current measurement..."));
    log(tr("cancel requested; everything measured so far stays in the results file"));
}

void SweepView::onProgress(int done, int total, double elapsed, double left) {
    progressBar_->setRange(0, std::max(1, total));
    progressBar_->setValue(done);
    progressLabel_->setText(tr("%1 of %2 measured, %3 failed; %4 elapsed, about %5 left")
                                .arg(done)
                                .arg(total)
                                .arg(failures_)
                                .arg(formatDuration(elapsed), formatDuration(left)));
}

void SweepView::onFinished(const SweepOutcome& outcome, const QString& error) {
    if (results_) results_->setLive(false);
    if (!error.isEmpty()) {
        lastError_ = error;
        progressLabel_->setText(tr("Sweep failed: %1").arg(error));
        log(tr("sweep failed: %1").arg(error));
    } else {
        progressBar_->setRange(0, std::max<int>(1, static_cast<int>(outcome.total)));
        progressBar_->setValue(static_cast<int>(outcome.resumed + outcome.measured + outcome.failed));
        progressLabel_->setText((outcome.interrupted ? tr("Cancelled: ") : tr("Done: ")) +
                                tr("%1 measured, %2 resumed, %3 failed, %4 not run.")
                                    .arg(outcome.measured)
                                    .arg(outcome.resumed)
                                    .arg(outcome.failed)
                                    .arg(outcome.notRun));
        for (const std::string& line : outcome.errors) log(QString::fromStdString(line));
        // Resumed records were not streamed: read the whole file so every view has all of it.
        if (outcome.resumed > 0 && results_) {
            QString loadError;
            if (!results_->load(results_->filePath(), &loadError)) log(loadError);
        }
    }
    updateButtons();
    emit sweepFinished(error.isEmpty());
}

int SweepView::promoteWinners() {
    lastError_.clear();
    if (!profile_ || !profile_->hasProfile() || !results_ || results_->isEmpty()) {
        lastError_ = tr("Open a profile and load or run a sweep first.");
        return -1;
    }
    PromoteOptions options;
    options.l2 = results_->regime();  // the regime the plots show: one decision never mixes regimes
    options.allowMixedArchitectures = allowMixedArchitectures_->isChecked();
    const QString resultsPath = results_->filePath();
    options.resultsFileName = QFileInfo(resultsPath).fileName().toStdString();
    PromoteReport report;
    try {
        options.resultsSha256 = sha256FileHex(resultsPath.toStdString());
        report = promote(profile_->profile(), results_->file(), options);
    } catch (const std::exception& e) {
        lastError_ = QString::fromStdString(e.what());
        return -1;
    }
    std::vector<PolicyEntry> changed;
    for (const PromoteEntry& entry : report.entries) {
        if (!entry.promoted) continue;
        if (const PolicyEntry* promoted = report.profile.policyFor(entry.nb)) changed.push_back(*promoted);
        log(QString::fromStdString(entry.note));
    }
    for (const std::string& warning : report.warnings) log(tr("warning: %1").arg(QString::fromStdString(warning)));
    const int count = static_cast<int>(changed.size());
    profile_->setEntries(changed, tr("Promote measured winners (%n NB(s))", nullptr, count));
    log(tr("promoted %n entry(ies) to measured-best", nullptr, count));
    emit message(tr("Promoted %n entry(ies); Edit > Undo reverts it.", nullptr, count));
    return count;
}

void SweepView::updateButtons() {
    const bool running = runner_->isRunning();
    start_->setEnabled(!running && device_->count() > 0);
    cancel_->setEnabled(running);
    promote_->setEnabled(!running && profile_ && profile_->hasProfile() && results_ && !results_->isEmpty());
    for (QWidget* w : std::initializer_list<QWidget*>{backend_, device_, nbList_, gridKind_, minSamples_, maxNoise_,
                                                      minTime_, timeout_, l2Regime_, timer_, profileConfigs_, output_})
        w->setEnabled(!running);
    // The grid fields follow the grid kind, and nothing is editable while a sweep runs.
    const int grid = gridKind_->currentIndex();
    btList_->setEnabled(!running && grid == 1);
    warpsList_->setEnabled(!running && grid == 1);
    stagesList_->setEnabled(!running && grid == 1);
    gridFile_->setEnabled(!running && grid == 2);
}

void SweepView::log(const QString& line) {
    log_->appendPlainText(QTime::currentTime().toString(QStringLiteral("HH:mm:ss ")) + line);
}

}  // namespace tunescope::ui
