#include "screenshots.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QEventLoop>
#include <QTimer>

#include "apppaths.hpp"
#include "documents/profiledocument.hpp"
#include "documents/sweeprunner.hpp"
#include "mainwindow.hpp"
#include "models/policytablemodel.hpp"
#include "models/validationmodel.hpp"
#include "pages/compareview.hpp"
#include "pages/cublasltpolicyview.hpp"
#include "pages/cublasltview.hpp"
#include "pages/diffview.hpp"
#include "pages/flaconfigdirview.hpp"
#include "pages/plotsview.hpp"
#include "pages/policyeditor.hpp"
#include "pages/sweepview.hpp"
#include "pages/validationpanel.hpp"
#include "tunescope/formats/cublaslt_policy_export.hpp"

namespace tunescope::ui {
namespace {

void settle() {
    // Let layouts, queued replots and the heatmap's resize rebuild run.
    for (int i = 0; i < 5; ++i) {
        QEventLoop loop;
        QTimer::singleShot(60, &loop, &QEventLoop::quit);
        loop.exec();
    }
}

bool save(QWidget* widget, const QString& dir, const QString& name) {
    settle();
    const QString path = QDir(dir).filePath(name);
    const bool ok = widget->grab().save(path);
    std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
    return ok;
}

}  // namespace

int takeScreenshots(const QString& dir, const QString& resultsFile, const QString& reportFile, const QString& compareA,
                    const QString& compareB, const QString& captureSweep, const QString& flaConfigDir,
                    const QString& flaConfigDirCompare) {
    QDir().mkpath(dir);
    const QString profilesDir = bundledProfilesDir();
    if (profilesDir.isEmpty()) {
        std::fprintf(stderr, "tunescope: no bundled profiles found (set TUNESCOPE_PROFILES)\n");
        return 2;
    }
    // Work on a copy, so edits for the diff view never touch the bundled sample.
    QTemporaryDir work;
    const QString profile = work.filePath(QStringLiteral("fla-l2norm-gfx942-profile.json"));
    QFile::copy(QDir(profilesDir).filePath(QStringLiteral("fla-l2norm-gfx942-profile.json")), profile);
    const QString report = QDir(profilesDir).filePath(QStringLiteral("cublaslt-gb10-nvfp4-fc2-report.json"));

    MainWindow window;
    window.resize(1500, 950);
    window.validationDock()->show();  // whatever an earlier session's saved layout says
    window.show();
    if (!window.openProfile(profile, true)) {
        std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
        return 2;
    }
    if (!resultsFile.isEmpty() && !window.openResults(resultsFile, true)) {
        std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
        return 2;
    }
    int failures = 0;

    window.showPage(MainWindow::Page::Policy);
    failures += !save(&window, dir, QStringLiteral("policy-editor.png"));

    // Validation: jump to the first prospective entry's warning, as a user double-clicking it would.
    ValidationModel* diagnostics = window.validationPanel()->model();
    for (int row = 0; row < diagnostics->rowCount(); ++row) {
        const QString pointer = diagnostics->index(row, 0).data(ValidationModel::PointerRole).toString();
        if (pointer.startsWith(QLatin1String("/per_NB_policy/13"))) {
            window.validationPanel()->view()->selectRow(row);
            window.jumpToPointer(pointer);
            break;
        }
    }
    // A taller panel for this one, so more diagnostics show.
    window.validationDock()->setMinimumHeight(340);
    failures += !save(&window, dir, QStringLiteral("validation.png"));
    window.validationDock()->setMinimumHeight(0);
    window.resizeDocks({window.validationDock()}, {170}, Qt::Vertical);

    window.showPage(MainWindow::Page::Plots);
    PlotsView* plots = window.plotsView();
    const char* plotNames[] = {"plot-latency.png", "plot-heatmap.png", "plot-bandwidth.png"};
    for (int tab = 0; tab < 3; ++tab) {
        plots->tabs()->setCurrentIndex(tab);
        failures += !save(&window, dir, QString::fromLatin1(plotNames[tab]));
    }
    plots->tabs()->setCurrentIndex(0);
    auto* relative = plots->findChild<QCheckBox*>(QStringLiteral("latencyRelative"));
    if (relative) relative->setChecked(true);
    failures += !save(&window, dir, QStringLiteral("plot-latency-relative.png"));
    if (relative) relative->setChecked(false);

    if (window.openReport(report, true)) {
        CublasLtView* view = window.cublasLtView();
        const char* names[] = {"cublaslt-heuristics.png", "cublaslt-splitk.png", "cublaslt-candidates.png"};
        for (int tab = 0; tab < 3; ++tab) {
            view->tabs()->setCurrentIndex(tab);
            failures += !save(&window, dir, QString::fromLatin1(names[tab]));
        }
    } else {
        std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
        ++failures;
    }
    if (!reportFile.isEmpty()) {
        if (window.openReport(reportFile, true)) {
            CublasLtView* view = window.cublasLtView();
            view->tabs()->setCurrentIndex(2);
            failures += !save(&window, dir, QStringLiteral("cublaslt-explorer-candidates.png"));
            view->tabs()->setCurrentIndex(0);
            failures += !save(&window, dir, QStringLiteral("cublaslt-explorer-heuristics.png"));
        } else {
            std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
            ++failures;
        }
    }

    // The cuBLASLt policy page: a policy exported from the seed's report (and the explorer report, when given), as
    // tunescope-cli export-cublaslt makes it.
    try {
        std::vector<std::filesystem::path> reports{report.toStdString()};
        if (!reportFile.isEmpty()) reports.push_back(reportFile.toStdString());
        const QString policy = work.filePath(QStringLiteral("cublaslt-policy.json"));
        saveCublasLtPolicy(exportCublasLtPolicy(reports).policy, policy.toStdString());
        if (window.openCublasLtPolicy(policy, true)) {
            failures += !save(&window, dir, QStringLiteral("cublaslt-policy.png"));
        } else {
            std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
            ++failures;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tunescope: cuBLASLt policy: %s\n", e.what());
        ++failures;
    }

    // The capture-sweep page (sweep --manifest's results: every kernel and key of an FLA capture).
    if (!captureSweep.isEmpty()) {
        if (window.openCaptureSweep(captureSweep, true)) {
            failures += !save(&window, dir, QStringLiteral("capture-sweep.png"));
        } else {
            std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
            ++failures;
        }
    }

    // The FLA_CONFIG_DIR page (capture export-fla's folder), compared with a second folder when one is given.
    if (!flaConfigDir.isEmpty()) {
        QString folderError;
        if (!window.openFlaConfigDir(flaConfigDir, true)) {
            std::fprintf(stderr, "tunescope: %s\n", qPrintable(window.lastError()));
            ++failures;
        } else if (!flaConfigDirCompare.isEmpty() && !window.flaConfigDirView()->compareWith(flaConfigDirCompare, &folderError)) {
            std::fprintf(stderr, "tunescope: %s\n", qPrintable(folderError));
            ++failures;
        } else {
            window.validationDock()->hide();  // the page needs the height; the dock is about the profile
            failures += !save(&window, dir, QStringLiteral("fla-config-dir.png"));
            window.validationDock()->show();
        }
    }

    // Diff: promote the measured winners into the editor's copy (when results are loaded) and apply NB 9's config
    // to NB 30..32 by hand, then compare with the file on disk.
    PolicyEditor* editor = window.policyEditor();
    QTableView* table = editor->view();
    PolicyTableModel* model = editor->model();
    if (!resultsFile.isEmpty() && window.sweepView()->promoteWinners() < 0)
        std::fprintf(stderr, "tunescope: promote: %s\n", qPrintable(window.sweepView()->lastError()));
    table->setCurrentIndex(editor->viewIndex(model->index(8, PolicyTableModel::BtColumn)));
    table->selectionModel()->clearSelection();
    for (int row = 29; row <= 31; ++row)
        table->selectionModel()->select(editor->viewIndex(model->index(row, PolicyTableModel::BtColumn)), QItemSelectionModel::Select);
    editor->applyCurrentConfigToSelection();
    window.showPage(MainWindow::Page::Diff);
    failures += !save(&window, dir, QStringLiteral("diff.png"));

    window.showPage(MainWindow::Page::Policy);
    table->scrollTo(editor->viewIndex(model->index(20, 0)));
    failures += !save(&window, dir, QStringLiteral("policy-edited.png"));

    // A standalone plot export, as the Export menu writes it (SVG), of the H200 results.
    QString error;
    if (!plots->latencyPlot()->exportTo(QDir(dir).filePath(QStringLiteral("export-latency.svg")), &error)) {
        std::fprintf(stderr, "tunescope: %s\n", qPrintable(error));
        ++failures;
    }

    // A live CPU sweep (tiny NB range and grid): the page mid-run, with results streaming into its plot.
    SweepView* sweep = window.sweepView();
    window.showPage(MainWindow::Page::Sweep);
    sweep->setBackend(QStringLiteral("cpu"));
    sweep->setNbList(QStringLiteral("1-6"));
    sweep->setGridLists(QStringLiteral("8,16,32,64,128"), QStringLiteral("1,2,4,8,16"), QStringLiteral("3"));
    sweep->setStoppingRule(5, 2.0, 0.0, 400.0);
    sweep->setOutputFile(work.filePath(QStringLiteral("cpu-sweep.jsonl")));
    sweep->setReplaceConfirmation([](const QString&) { return true; });  // the H200 results may go: pictures taken
    if (sweep->startSweep()) {
        int measured = 0;
        QObject::connect(sweep->runner(), &SweepRunner::recordMeasured, &window, [&measured] { ++measured; });
        QEventLoop loop;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
            if (measured >= 90 || !sweep->runner()->isRunning()) loop.quit();
        });
        poll.start(50);
        loop.exec();
        failures += !save(&window, dir, QStringLiteral("sweep.png"));
        sweep->cancelSweep();
        sweep->runner()->wait();
        settle();
    } else {
        std::fprintf(stderr, "tunescope: sweep: %s\n", qPrintable(sweep->lastError()));
        ++failures;
    }

    if (!compareA.isEmpty() && !compareB.isEmpty()) {
        window.showPage(MainWindow::Page::Compare);
        window.validationDock()->hide();  // the page needs the height; the dock is about the profile
        QString compareError;
        if (window.compareView()->compareFiles(compareA, compareB, &compareError)) {
            failures += !save(&window, dir, QStringLiteral("compare.png"));
            window.compareView()->plotTabs()->setCurrentIndex(1);  // both runs' latency per config at one NB
            settle();
            failures += !save(&window, dir, QStringLiteral("compare-latency.png"));
            window.compareView()->plotTabs()->setCurrentIndex(0);
            window.validationDock()->show();
        } else {
            std::fprintf(stderr, "tunescope: compare: %s\n", qPrintable(compareError));
            ++failures;
        }
    }

    window.profileDocument()->undoStack()->setClean();  // no "unsaved changes" prompt on the way out
    window.close();
    return failures == 0 ? 0 : 1;
}

}  // namespace tunescope::ui
