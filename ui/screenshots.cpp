#include "screenshots.hpp"

#include <cstdio>

#include <QApplication>
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
#include "cublasltview.hpp"
#include "diffview.hpp"
#include "mainwindow.hpp"
#include "plotsview.hpp"
#include "policyeditor.hpp"
#include "policytablemodel.hpp"
#include "profiledocument.hpp"
#include "validationmodel.hpp"

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

int takeScreenshots(const QString& dir, const QString& resultsFile) {
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
    failures += !save(&window, dir, QStringLiteral("validation.png"));

    window.showPage(MainWindow::Page::Plots);
    PlotsView* plots = window.plotsView();
    const char* plotNames[] = {"plot-latency.png", "plot-heatmap.png", "plot-bandwidth.png"};
    for (int tab = 0; tab < 3; ++tab) {
        plots->tabs()->setCurrentIndex(tab);
        failures += !save(&window, dir, QString::fromLatin1(plotNames[tab]));
    }

    window.showPage(MainWindow::Page::Sweep);
    failures += !save(&window, dir, QStringLiteral("sweep.png"));

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

    // Diff: edit the editor's copy (apply NB 9's config to NB 14..17, promote when results are there) and compare
    // it with the file on disk.
    PolicyEditor* editor = window.policyEditor();
    QTableView* table = editor->view();
    PolicyTableModel* model = editor->model();
    table->setCurrentIndex(model->index(8, PolicyTableModel::BtColumn));
    table->selectionModel()->clearSelection();
    for (int row = 13; row <= 16; ++row)
        table->selectionModel()->select(model->index(row, PolicyTableModel::BtColumn), QItemSelectionModel::Select);
    editor->applyCurrentConfigToSelection();
    model->setData(model->index(19, PolicyTableModel::WarpsColumn), 4);
    window.showPage(MainWindow::Page::Diff);
    failures += !save(&window, dir, QStringLiteral("diff.png"));

    window.showPage(MainWindow::Page::Policy);
    failures += !save(&window, dir, QStringLiteral("policy-edited.png"));

    // Standalone plot exports, as the Export menu writes them.
    QString error;
    plots->latencyPlot()->exportTo(QDir(dir).filePath(QStringLiteral("export-latency.svg")), &error);
    window.profileDocument()->undoStack()->setClean();  // no "unsaved changes" prompt on the way out
    window.close();
    return failures == 0 ? 0 : 1;
}

}  // namespace tunescope::ui
