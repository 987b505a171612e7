#include "mainwindow.hpp"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QPlainTextEdit>
#include <QVBoxLayout>
#include <QScreen>
#include <QScrollArea>
#include <QHeaderView>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>
#include <QUndoStack>

#include "apppaths.hpp"
#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "models/jsontreemodel.hpp"
#include "models/policytablemodel.hpp"
#include "pages/capturesweepview.hpp"
#include "pages/compareview.hpp"
#include "pages/cublasltpolicyview.hpp"
#include "pages/cublasltview.hpp"
#include "pages/diffview.hpp"
#include "pages/flaconfigdirview.hpp"
#include "pages/headtoheadview.hpp"
#include "pages/plotsview.hpp"
#include "pages/policyeditor.hpp"
#include "pages/sweepview.hpp"
#include "pages/validationpanel.hpp"
#include "signingactions.hpp"
#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/version.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/formats/triton_cache.hpp"
#include "tunescope/formats/validation.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"
#include "widgets/elidinglabel.hpp"

// The icons live in the ui library's resources; a static library needs them registered explicitly.
static void initTuneScopeResources() { Q_INIT_RESOURCE(tunescope); }

namespace tunescope::ui {
namespace {

const QString kRecentFiles = QStringLiteral("recentFiles");
constexpr int kMaxRecent = 10;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), profile_(new ProfileDocument(this)), results_(new ResultsDocument(this)),
      pages_(new QTabWidget(this)), editor_(new PolicyEditor(profile_, results_, this)),
      plots_(new PlotsView(profile_, results_, this)), sweep_(new SweepView(profile_, results_, this)),
      cublasLt_(new CublasLtView(this)), cublasLtPolicy_(new CublasLtPolicyView(this)), captureSweep_(new CaptureSweepView(this)),
      flaConfigDir_(new FlaConfigDirView(this)), diff_(new DiffView(profile_, this)), compare_(new CompareView(this)),
      headToHead_(new HeadToHeadView(this)),
      watcher_(new QFileSystemWatcher(this)), documentTree_(new QTreeView(this)),
      documentModel_(new JsonTreeModel(this)), validation_(new ValidationPanel(profile_, this)),
      validationDock_(new QDockWidget(tr("Validation"), this)), statusMessage_(new ElidingLabel(this)),
      statusFile_(new ElidingLabel(this)), statusSignature_(new QLabel(this)), statusValidation_(new QLabel(this)) {
    initTuneScopeResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/tunescope/tunescope.svg")));
    setAcceptDrops(true);
    pages_->setObjectName(QStringLiteral("pages"));
    // Form-heavy pages scroll instead of forcing a large minimum window size (1280x720 laptops, 2x scaling).
    auto scrolled = [this](QWidget* page) {
        auto* area = new QScrollArea(this);
        area->setWidget(page);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        return area;
    };
    pages_->addTab(editor_, tr("Policy"));
    pages_->addTab(plots_, tr("Plots"));
    pages_->addTab(scrolled(sweep_), tr("Sweep"));
    pages_->addTab(scrolled(cublasLt_), tr("cuBLASLt"));
    pages_->addTab(diff_, tr("Diff"));
    documentTree_->setObjectName(QStringLiteral("documentTree"));
    documentTree_->setModel(documentModel_);
    documentTree_->setUniformRowHeights(true);
    documentTree_->setAlternatingRowColors(true);
    // Every column as wide as its longest shown text; the tree scrolls sideways rather than cutting values off.
    documentTree_->header()->setStretchLastSection(false);
    documentTree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    documentTree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    pages_->addTab(documentTree_, tr("Document"));
    pages_->addTab(compare_, tr("Compare"));
    pages_->addTab(headToHead_, tr("Head to head"));
    pages_->addTab(cublasLtPolicy_, tr("cuBLASLt policy"));
    pages_->addTab(captureSweep_, tr("Capture sweep"));
    pages_->addTab(flaConfigDir_, tr("FLA_CONFIG_DIR"));
    pages_->setUsesScrollButtons(true);
    setCentralWidget(pages_);

    validationDock_->setObjectName(QStringLiteral("validationDock"));
    validationDock_->setWidget(validation_);
    // The dock may shrink to a few rows, float, or be tabbed with other docks; never a fixed share of the window.
    validationDock_->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    validation_->setMinimumHeight(0);
    setDockOptions(dockOptions() | QMainWindow::AllowTabbedDocks);
    addDockWidget(Qt::BottomDockWidgetArea, validationDock_);

    statusMessage_->setObjectName(QStringLiteral("statusMessage"));
    statusFile_->setObjectName(QStringLiteral("statusFile"));
    statusFile_->setElideMode(Qt::ElideMiddle);
    statusSignature_->setObjectName(QStringLiteral("statusSignature"));
    statusValidation_->setObjectName(QStringLiteral("statusValidation"));
    statusBar()->addWidget(statusMessage_, 3);
    statusBar()->addPermanentWidget(statusValidation_);
    statusBar()->addPermanentWidget(statusSignature_);
    statusBar()->addPermanentWidget(statusFile_);  // its whole path when there is room, cut in the middle when not
    statusMessageTimer_.setSingleShot(true);
    connect(&statusMessageTimer_, &QTimer::timeout, statusMessage_, [this] { statusMessage_->setFullText({}); });

    createMenus();

    connect(validation_, &ValidationPanel::jumpRequested, this, &MainWindow::jumpToPointer);
    connect(validation_, &ValidationPanel::summaryChanged, this, &MainWindow::updateValidationCounts);
    connect(profile_, &ProfileDocument::filePathChanged, this, &MainWindow::updateValidationCounts);
    updateValidationCounts();
    connect(profile_, &ProfileDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(profile_, &ProfileDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(profile_, &ProfileDocument::reset, this, &MainWindow::refreshDocumentTree);
    connect(profile_, &ProfileDocument::saved, this, &MainWindow::updateSignature);
    documentTreeTimer_.setSingleShot(true);
    documentTreeTimer_.setInterval(300);
    connect(&documentTreeTimer_, &QTimer::timeout, this, &MainWindow::refreshDocumentTree);
    connect(profile_, &ProfileDocument::entriesChanged, &documentTreeTimer_, qOverload<>(&QTimer::start));
    auto showMessage = [this](const QString& text) { showStatus(text, 8000); };
    connect(editor_, &PolicyEditor::message, this, showMessage);
    connect(sweep_, &SweepView::message, this, showMessage);
    connect(cublasLt_, &CublasLtView::message, this, showMessage);
    connect(compare_, &CompareView::message, this, showMessage);
    connect(headToHead_, &HeadToHeadView::message, this, showMessage);
    connect(results_, &ResultsDocument::reset, this, [this] {
        if (!results_->isLive() && !results_->filePath().isEmpty()) compare_->setFileA(results_->filePath());
    });
    watchTimer_.setSingleShot(true);
    watchTimer_.setInterval(200);
    connect(watcher_, &QFileSystemWatcher::fileChanged, &watchTimer_, qOverload<>(&QTimer::start));
    connect(watcher_, &QFileSystemWatcher::directoryChanged, &watchTimer_, qOverload<>(&QTimer::start));
    connect(&watchTimer_, &QTimer::timeout, this, &MainWindow::onWatchedFileChanged);
    connect(profile_, &ProfileDocument::saved, this, &MainWindow::watchProfile);
    connect(plots_, &PlotsView::hovered, this, [this](const QString& text) {
        if (!text.isEmpty()) showStatus(text, 4000, false);  // hover texts: too many for the log
    });
    connect(cublasLt_, &CublasLtView::reportOpened, this, &MainWindow::addRecentFile);
    connect(cublasLtPolicy_, &CublasLtPolicyView::policyOpened, this, &MainWindow::addRecentFile);
    connect(captureSweep_, &CaptureSweepView::sweepOpened, this, &MainWindow::addRecentFile);
    connect(flaConfigDir_, &FlaConfigDirView::folderOpened, this, &MainWindow::addRecentFile);

    QSettings settings;
    // Geometry per screen (name and size): a layout made on a 2560x1440 monitor does not suit the laptop panel.
    const QString key = geometryKey();
    restoreGeometry(settings.value(key + QStringLiteral("/geometry")).toByteArray());
    restoreState(settings.value(key + QStringLiteral("/state")).toByteArray());
    if (!settings.contains(key + QStringLiteral("/geometry"))) {
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        resize(std::min(1400, available.width() * 9 / 10), std::min(900, available.height() * 9 / 10));
    }
    updateTitle();
}

MainWindow::~MainWindow() {
    // The profile document outlives this destructor (QWidget deletes children later), and its undo stack signals
    // modifiedChanged as it goes: no slot of a half-destroyed window may run then.
    profile_->disconnect(this);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a profile, a sweep results file or a cuBLASLt report"));
    file->addAction(tr("Open FLA_CONFIG_&DIR..."), this, &MainWindow::openFlaConfigDirDialog)
        ->setObjectName(QStringLiteral("openFlaConfigDirAction"));
    QMenu* samples = file->addMenu(tr("Open &sample"));
    const QStringList sampleFiles = bundledSamples();
    for (const QString& sample : sampleFiles)
        samples->addAction(QFileInfo(sample).fileName(), this, [this, sample] { openFile(sample); });
    if (sampleFiles.isEmpty()) samples->addAction(tr("(no bundled samples found)"))->setEnabled(false);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    rebuildRecentMenu();
    file->addSeparator();
    QAction* saveAction = file->addAction(tr("&Save"), this, [this] { save(); });
    saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save &as..."), this, &MainWindow::saveAsDialog);
    // QKeySequence::SaveAs is empty on some desktops (no platform theme); bind the usual key explicitly.
    saveAsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAsAction->setObjectName(QStringLiteral("saveAsAction"));
    file->addSeparator();
    file->addAction(tr("Export &FLA config cache..."), this, &MainWindow::exportFlaDialog);
    file->addAction(tr("Export cuBLASLt &report..."), cublasLt_, &CublasLtView::exportDialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = profile_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = profile_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* apply = edit->addAction(tr("Apply config of current row to selected NBs"), editor_,
                                     &PolicyEditor::applyCurrentConfigToSelection);
    apply->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    edit->addAction(tr("Promote measured winners"), sweep_, [this] {
        if (sweep_->promoteWinners() < 0) QMessageBox::warning(this, tr("Promote measured winners"), sweep_->lastError());
    });

    QMenu* signing = menuBar()->addMenu(tr("&Signing"));
    signing->addAction(tr("&Hash (SHA-256, canonical)..."), this, [this] {
        if (!requireSavedProfile(tr("hash"))) return;
        QString unsaved;
        try {
            if (profile_->isModified()) unsaved = QString::fromStdString(sha256Hex(canonicalize(toJson(profile_->profile()))));
        } catch (const std::exception& e) {
            unsaved = QString::fromStdString(e.what());
        }
        showHashDialog(this, profile_->filePath(), unsaved);
    });
    signing->addAction(tr("&Sign..."), this, [this] {
        if (profile_->isModified() && !maybeSave()) return;
        if (!requireSavedProfile(tr("sign"))) return;
        if (!signDialog(this, profile_->filePath()).isEmpty()) updateSignature();
    });
    signing->addAction(tr("&Verify..."), this, [this] {
        if (!requireSavedProfile(tr("verify"))) return;
        verifyDialog(this, profile_->filePath());
        updateSignature();
    });
    signing->addSeparator();
    signing->addAction(tr("&Generate key pair..."), this, [this] { keygenDialog(this); });
    signing->addAction(tr("&Trusted public keys..."), this, [this] {
        trustedKeysDialog(this);
        updateSignature();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(validationDock_->toggleViewAction());
    view->addAction(tr("&Message log"), this, &MainWindow::showMessageLog)->setObjectName(QStringLiteral("messageLogAction"));
    const QStringList names{tr("Policy"), tr("Plots"), tr("Sweep"), tr("cuBLASLt"), tr("Diff"), tr("Document"), tr("Compare"),
                            tr("Head to head"), tr("cuBLASLt policy")};
    for (int i = 0; i < names.size(); ++i) {
        QAction* action = view->addAction(names[i], this, [this, i] { pages_->setCurrentIndex(i); });
        action->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About TuneScope"), this, [this] {
        QMessageBox::about(this, tr("About TuneScope"),
                           tr("TuneScope %1 (%2)\nA workbench for GPU kernel launch settings per problem size: l2norm "
                              "profiles, NB sweeps and cuBLASLt exploration.")
                               .arg(QString::fromStdString(versionString()), QString::fromStdString(gitSha())));
    });
}

void MainWindow::showStatus(const QString& text, int timeoutMs, bool log) {
    statusMessage_->setFullText(text);
    if (timeoutMs > 0) statusMessageTimer_.start(timeoutMs);
    if (!log || text.isEmpty()) return;
    messageLog_.push_back(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss  ")) + text);
    constexpr qsizetype kMaxLog = 500;
    if (messageLog_.size() > kMaxLog) messageLog_.remove(0, messageLog_.size() - kMaxLog);
}

void MainWindow::showMessageLog() {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Message log"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* text = new QPlainTextEdit(&dialog);
    text->setReadOnly(true);
    text->setPlainText(messageLog_.isEmpty() ? tr("(no messages yet)") : messageLog_.join(QLatin1Char('\n')));
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(900, 400);
    dialog.exec();
}

void MainWindow::updateValidationCounts() {
    // The counts where they stay visible: the status bar, and the dock's title (shown when it is tabbed or small).
    // The panel checks the open profile whichever page is shown (a cuBLASLt policy page shows its own counts), so
    // the title names the profile.
    const QString counts = validation_->countsText();
    const QString profile = QFileInfo(profile_->filePath()).fileName();
    const QString what = profile.isEmpty() ? tr("Validation") : tr("Validation of %1").arg(profile);
    validationDock_->setWindowTitle(counts.isEmpty() ? what : tr("%1: %2").arg(what, counts));
    statusValidation_->setText(counts);
    statusValidation_->setToolTip(validation_->summaryText());
}

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentFiles).toStringList(); }

void MainWindow::addRecentFile(const QString& path) {
    if (path.isEmpty()) return;
    QStringList files = recentFiles();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecent) files.removeLast();
    QSettings().setValue(kRecentFiles, files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    const QStringList files = recentFiles();
    for (const QString& path : files) recentMenu_->addAction(path, this, [this, path] { openFile(path); });
    if (files.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear list"), this, [this] {
        QSettings().remove(kRecentFiles);
        rebuildRecentMenu();
    });
}

void MainWindow::fail(const QString& title, const QString& message, bool quiet) {
    lastError_ = message;
    showStatus(message, 10000);
    if (!quiet) QMessageBox::warning(this, title, message);
}

bool MainWindow::openFile(const QString& path, bool quiet) {
    const QFileInfo info(path);
    if (!info.exists()) {
        fail(tr("Open"), tr("%1: no such file").arg(path), quiet);
        return false;
    }
    if (path.endsWith(QLatin1String(".jsonl")) || path.endsWith(QLatin1String(".jsonl.gz"))) return openResults(path, quiet);
    // Every folder is taken for an FLA_CONFIG_DIR (its check says what a folder lacks), and so is its manifest file.
    if (isFlaConfigDirPath(path.toStdString())) return openFlaConfigDir(path, quiet);
    DocumentKind kind = DocumentKind::Unknown;
    try {
        // Infinity tokens allowed: Triton's autotune cache times failed configs as bare Infinity (the import reads
        // it with the same core reader as the CLI's import-triton); every other kind's loader stays strict.
        JsonReadOptions detect;
        detect.allowNonFiniteTokens = true;
        const Json document = readJsonFile(path.toStdString(), detect);
        // A capture sweep has a "format" too: its own page, before the profile's detection takes it.
        if (isFlaCaptureSweepDocument(document)) return openCaptureSweep(path, quiet);
        kind = detectDocumentKind(document);
    } catch (const std::exception& e) {
        // Not one JSON document: maybe results (JSON Lines) under another name.
        QString resultsError;
        if (results_->load(path, &resultsError)) {
            addRecentFile(path);
            showPage(Page::Plots);
            return true;
        }
        fail(tr("Open"), QString::fromStdString(e.what()), quiet);
        return false;
    }
    switch (kind) {
    case DocumentKind::Profile: return openProfile(path, quiet);
    case DocumentKind::CublasLtReport: return openReport(path, quiet);
    case DocumentKind::CublasLtPolicy: return openCublasLtPolicy(path, quiet);
    case DocumentKind::FlaConfig: return importFile(path, DocumentKindHint::FlaConfig, quiet);
    case DocumentKind::TritonAutotuneCache: return importFile(path, DocumentKindHint::TritonCache, quiet);
    default:
        // A results file whose header happens to be the whole content, or something else.
        if (results_->load(path, nullptr)) {
            addRecentFile(path);
            showPage(Page::Plots);
            return true;
        }
        fail(tr("Open"),
             tr("%1: not a profile, a sweep results file, a cuBLASLt report or policy (it looks like: %2)")
                 .arg(path, QString::fromUtf8(toString(kind).data(), static_cast<qsizetype>(toString(kind).size()))),
             quiet);
        return false;
    }
}

bool MainWindow::openProfile(const QString& path, bool quiet) {
    if (profile_->isModified() && !quiet && !maybeSave()) return false;
    QString error;
    if (!profile_->load(path, &error)) {
        fail(tr("Open profile"), error, quiet);
        return false;
    }
    addRecentFile(path);
    updateSignature();
    watchProfile();
    showPage(Page::Policy);
    showStatus(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::importFile(const QString& path, DocumentKindHint kind, bool quiet) {
    const QString what = kind == DocumentKindHint::FlaConfig ? tr("FLA config file") : tr("Triton autotune cache");
    if (profile_->hasProfile() && !quiet) {
        const auto answer = QMessageBox::question(
            this, tr("Import"), tr("%1 is an %2. Import it into %3? (One undo step.)").arg(QFileInfo(path).fileName(), what, profile_->displayName()));
        if (answer != QMessageBox::Yes) return false;
    }
    ImportSummary summary;
    try {
        if (profile_->hasProfile()) {
            Profile imported = profile_->profile();
            summary = kind == DocumentKindHint::FlaConfig ? importFlaConfig(imported, loadFlaConfig(path.toStdString()))
                                                          : importTritonCaches(imported, loadTritonAutotuneCaches(path.toStdString()));
            profile_->replaceProfile(std::move(imported), tr("Import %1").arg(QFileInfo(path).fileName()));
        } else {
            Profile created = kind == DocumentKindHint::FlaConfig
                                  ? profileFromFlaConfig(loadFlaConfig(path.toStdString()), NewProfileOptions{}, &summary)
                                  : profileFromTritonCaches(loadTritonAutotuneCaches(path.toStdString()), NewProfileOptions{}, &summary);
            profile_->adopt(std::move(created));
        }
    } catch (const std::exception& e) {
        fail(tr("Import"), QString::fromStdString(e.what()), quiet);
        return false;
    }
    addRecentFile(path);
    showPage(Page::Policy);
    showStatus(tr("Imported %1: %2 policy entries set, %3 evidence added, %4 replaced, %5 skipped")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(summary.policySet)
                                 .arg(summary.evidenceAdded)
                                 .arg(summary.evidenceReplaced)
                                 .arg(summary.skipped),
                             10000);
    return true;
}

bool MainWindow::openResults(const QString& path, bool quiet) {
    QString error;
    if (!results_->load(path, &error)) {
        fail(tr("Open results"), error, quiet);
        return false;
    }
    addRecentFile(path);
    // What the reader ignored and flagged, in the words the CLI prints (ResultsFile::warnings).
    for (const std::string& warning : results_->file().warnings)
        showStatus(tr("warning: %1").arg(QString::fromStdString(warning)), 10000);
    // A confirm run (its plan has a baseline policy) opens on its verdicts; its records also feed the other pages.
    const Json& plan = results_->file().header.plan;
    if (plan.is_object() && plan.contains("baseline") &&
        headToHead_->showResults(std::make_shared<const ResultsFile>(results_->file()), path, nullptr)) {
        showPage(Page::HeadToHead);
        return true;
    }
    showPage(Page::Plots);
    return true;
}

bool MainWindow::openReport(const QString& path, bool quiet) {
    QString error;
    if (!cublasLt_->openReport(path, &error)) {
        fail(tr("Open cuBLASLt report"), error, quiet);
        return false;
    }
    showPage(Page::CublasLt);
    return true;
}

bool MainWindow::openCublasLtPolicy(const QString& path, bool quiet) {
    QString error;
    if (!cublasLtPolicy_->openPolicy(path, &error)) {
        fail(tr("Open cuBLASLt policy"), error, quiet);
        return false;
    }
    showPage(Page::CublasLtPolicy);
    showStatus(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::openCaptureSweep(const QString& path, bool quiet) {
    QString error;
    if (!captureSweep_->openSweep(path, &error)) {
        fail(tr("Open capture sweep"), error, quiet);
        return false;
    }
    showPage(Page::CaptureSweep);
    showStatus(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::openFlaConfigDir(const QString& path, bool quiet) {
    if (!quiet && !flaConfigDir_->confirmDiscard()) return false;  // the page's unsaved edits: saved, or kept open
    QString error;
    if (!flaConfigDir_->openFolder(path, &error)) {
        fail(tr("Open FLA_CONFIG_DIR"), error, quiet);
        return false;
    }
    showPage(Page::FlaConfigDir);
    showStatus(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::save() {
    if (!profile_->hasProfile()) return false;
    if (profile_->filePath().isEmpty()) {
        saveAsDialog();
        return !profile_->isModified();
    }
    return saveAs(profile_->filePath());
}

bool MainWindow::saveAs(const QString& path) {
    QString error;
    if (!profile_->saveAs(path, &error)) {
        fail(tr("Save profile"), error, false);
        return false;
    }
    addRecentFile(path);
    showStatus(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::exportFla(const QString& dir, bool allowMixedArchitectures) {
    if (!profile_->hasProfile()) {
        lastError_ = tr("No profile open.");
        return false;
    }
    try {
        const FlaExportResult result =
            tunescope::exportFla(profile_->profile(), dir.toStdString(), "", allowMixedArchitectures);
        showStatus(tr("Wrote %1 and %2 (sha256 %3)")
                                     .arg(QString::fromStdString(result.configFile.string()),
                                          QString::fromStdString(result.manifestFile.string()),
                                          QString::fromStdString(result.configSha256)),
                                 10000);
    } catch (const std::exception& e) {
        lastError_ = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool MainWindow::maybeSave() {
    if (!profile_->isModified()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("%1 has unsaved changes. Save them?").arg(profile_->displayName()),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                             QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) return save();
    return true;
}

bool MainWindow::requireSavedProfile(const QString& action) {
    if (profile_->hasProfile() && !profile_->filePath().isEmpty()) return true;
    QMessageBox::information(this, tr("Signing"), tr("Open or save a profile to %1 it.").arg(action));
    return false;
}

void MainWindow::showPage(Page page) { pages_->setCurrentIndex(static_cast<int>(page)); }

void MainWindow::jumpToPointer(const QString& pointer) {
    if (editor_->jumpToPointer(pointer)) {
        showPage(Page::Policy);
        return;
    }
    refreshDocumentTree();
    const QModelIndex index = documentModel_->indexForPointer(pointer);
    if (!index.isValid()) return;
    showPage(Page::Document);
    documentTree_->setCurrentIndex(index);
    documentTree_->scrollTo(index, QAbstractItemView::PositionAtCenter);
    documentTree_->setFocus(Qt::OtherFocusReason);
}

void MainWindow::refreshDocumentTree() {
    documentTreeTimer_.stop();
    if (!profile_->hasProfile()) {
        documentModel_->setDocument(Json::object());
        return;
    }
    documentModel_->setDocument(toJson(profile_->profile()));
    documentTree_->expandToDepth(0);
}

void MainWindow::updateTitle() {
    const QString name = profile_->hasProfile() ? profile_->displayName() : tr("no profile");
    setWindowTitle(name + (profile_->isModified() ? QStringLiteral(" *") : QString()) + QStringLiteral(" - TuneScope"));
    statusFile_->setFullText(profile_->filePath().isEmpty() ? name : profile_->filePath());
}

void MainWindow::updateSignature() {
    if (!profile_->hasProfile() || profile_->filePath().isEmpty()) {
        signatureText_.clear();
        editor_->setSignatureText({}, true);
        statusSignature_->clear();
        return;
    }
    const SignatureSummary summary = summarizeSignature(profile_->filePath(), trustedPublicKeys());
    signatureText_ = summary.text;
    const bool good = summary.state == SignatureSummary::State::Good;
    editor_->setSignatureText(summary.state == SignatureSummary::State::NotSigned ? QString() : summary.text, good);
    switch (summary.state) {
    case SignatureSummary::State::NotSigned: statusSignature_->setText(tr("not signed")); break;
    case SignatureSummary::State::Good: statusSignature_->setText(tr("signed by %1: valid").arg(summary.keyId)); break;
    case SignatureSummary::State::Bad: statusSignature_->setText(tr("signature by %1 does NOT hold").arg(summary.keyId)); break;
    case SignatureSummary::State::UnknownKey: statusSignature_->setText(tr("signed by unknown key %1").arg(summary.keyId)); break;
    case SignatureSummary::State::Problem: statusSignature_->setText(tr("signature unusable")); break;
    }
    statusSignature_->setToolTip(summary.text);
}

QString MainWindow::signatureText() const { return signatureText_; }

QString MainWindow::geometryKey() const {
    const QScreen* current = screen();
    if (!current) return QStringLiteral("window");
    const QSize size = current->size();
    QString name = current->name();
    name.replace(QLatin1Char('/'), QLatin1Char('_'));
    return QStringLiteral("window/") + name + QLatin1Char('-') + QString::number(size.width()) + QLatin1Char('x') +
           QString::number(size.height());
}

namespace {
QByteArray fileDigest(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}
}  // namespace

void MainWindow::watchProfile() {
    if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
    if (!watcher_->directories().isEmpty()) watcher_->removePaths(watcher_->directories());
    const QString path = profile_->filePath();
    if (path.isEmpty()) return;
    watchedBytes_ = fileDigest(path);
    // The folder too: editors that save by rename replace the file, and the watch on the old one ends there.
    watcher_->addPath(path);
    watcher_->addPath(QFileInfo(path).absolutePath());
    const QString signature = path + QStringLiteral(".sig.json");
    if (QFileInfo::exists(signature)) watcher_->addPath(signature);
}

void MainWindow::onWatchedFileChanged() { checkProfileOnDisk(); }

void MainWindow::checkProfileOnDisk() {
    const QString path = profile_->filePath();
    if (path.isEmpty() || reloadPromptOpen_) return;
    if (!watcher_->files().contains(path) && QFileInfo::exists(path)) watcher_->addPath(path);  // re-arm after a rename
    const QString signature = path + QStringLiteral(".sig.json");
    if (!watcher_->files().contains(signature) && QFileInfo::exists(signature)) watcher_->addPath(signature);
    updateSignature();  // the profile or its signature changed: the banner must say what holds now
    const QByteArray digest = fileDigest(path);
    if (digest.isEmpty() || digest == watchedBytes_) return;  // deleted (keep the edits) or our own save
    watchedBytes_ = digest;
    if (profile_->isModified()) {
        reloadPromptOpen_ = true;
        const auto answer = QMessageBox::question(
            this, tr("Profile changed on disk"),
            tr("%1 was changed by another program. Reload it and lose your unsaved edits?").arg(path),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        reloadPromptOpen_ = false;
        if (answer != QMessageBox::Yes) {
            showStatus(tr("%1 changed on disk; your edits are kept (saving will overwrite it)").arg(path), 10000);
            return;
        }
    }
    QString error;
    if (!profile_->load(path, &error)) {
        fail(tr("Reload profile"), tr("%1 changed on disk and no longer loads: %2").arg(path, error), true);
        return;
    }
    updateSignature();
    showStatus(tr("Reloaded %1 (changed on disk)").arg(path), 8000);
}

void MainWindow::openDialog() {
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("dialogs/openDir"), bundledProfilesDir()).toString();
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open"), dir,
        tr("TuneScope files (*.json *.jsonl *.json.gz *.jsonl.gz);;Profiles, reports, FLA configs, Triton caches (*.json *.json.gz);;"
           "Sweep results (*.jsonl *.jsonl.gz);;All files (*)"));
    if (paths.isEmpty()) return;
    settings.setValue(QStringLiteral("dialogs/openDir"), QFileInfo(paths.front()).absolutePath());
    for (const QString& path : paths) openFile(path);
}

void MainWindow::openFlaConfigDirDialog() {
    QSettings settings;
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open FLA_CONFIG_DIR (a folder capture export-fla wrote)"), settings.value(QStringLiteral("dialogs/openDir")).toString());
    if (dir.isEmpty()) return;
    settings.setValue(QStringLiteral("dialogs/openDir"), QFileInfo(dir).absolutePath());
    openFlaConfigDir(dir);
}

void MainWindow::saveAsDialog() {
    if (!profile_->hasProfile()) return;
    QString path = QFileDialog::getSaveFileName(this, tr("Save profile as"), profile_->filePath(), tr("Profiles (*.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");  // the filter says .json; honour it
    saveAs(path);
}

void MainWindow::exportFlaDialog() {
    if (!profile_->hasProfile()) {
        QMessageBox::information(this, tr("Export FLA config cache"), tr("Open a profile first."));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for l2norm_fwd_kernel.json and the manifest (FLA_CONFIG_DIR)"));
    if (dir.isEmpty()) return;
    bool allowMixed = false;
    if (const auto architectures = policyArchitectures(profile_->profile()); architectures.size() > 1) {
        allowMixed = QMessageBox::question(this, tr("Export FLA config cache"),
                                           tr("The entries were chosen on more than one GPU architecture (%1); FLA "
                                              "would load all of them on one GPU. Export anyway?")
                                               .arg(QString::fromStdString(describePolicyArchitectures(architectures)))) ==
                     QMessageBox::Yes;
        if (!allowMixed) return;
    }
    if (!exportFla(dir, allowMixed)) QMessageBox::warning(this, tr("Export FLA config cache"), lastError_);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave() || !flaConfigDir_->confirmDiscard()) {
        event->ignore();
        return;
    }
    sweep_->cancelSweep();
    QSettings settings;
    settings.setValue(geometryKey() + QStringLiteral("/geometry"), saveGeometry());
    settings.setValue(geometryKey() + QStringLiteral("/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) openFile(url.toLocalFile());
    event->acceptProposedAction();
}

}  // namespace tunescope::ui
