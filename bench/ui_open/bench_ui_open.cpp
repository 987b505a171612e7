// Benchmark (not a test): opening the seed profile together with a synthetic 2400-record results file into the
// models and plots, as the app does, and what a redraw costs once it is open (panning and zooming).
// Run: QT_QPA_PLATFORM=offscreen bench_ui_open [--repeat N] [--results FILE]. Prints one line per stage, the median of N runs.
#include <algorithm>
#include <cstdio>
#include <vector>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>

#include "apppaths.hpp"
#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "mainwindow.hpp"
#include "models/policytablemodel.hpp"
#include "pages/plotsview.hpp"
#include "pages/policyeditor.hpp"
#include "pages/validationpanel.hpp"
#include "synthetic_results.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

// Reads every cell of the table (what painting the visible part costs, and more).
void touchTable(PolicyTableModel* model) {
    for (int row = 0; row < model->rowCount(); ++row)
        for (int column = 0; column < model->columnCount(); ++column) {
            const QModelIndex index = model->index(row, column);
            (void)index.data(Qt::DisplayRole);
            (void)index.data(Qt::BackgroundRole);
            (void)index.data(Qt::ToolTipRole);
        }
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TuneScope-bench"));
    int repeat = 7;
    QString resultsArgument;  // --results FILE: a real results file instead of the synthetic one
    for (int i = 1; i + 1 < argc; ++i) {
        if (QByteArray(argv[i]) == "--repeat") repeat = std::max(1, QByteArray(argv[i + 1]).toInt());
        if (QByteArray(argv[i]) == "--results") resultsArgument = QString::fromLocal8Bit(argv[i + 1]);
    }

    const QString profile = QDir(bundledProfilesDir()).filePath(QStringLiteral("fla-l2norm-gfx942-profile.json"));
    QTemporaryDir dir;
    QString results = resultsArgument;
    if (results.isEmpty()) {
        results = dir.filePath(QStringLiteral("synthetic-2400.jsonl"));
        const std::size_t lines = synthetic::writeSyntheticResults(results.toStdString());
        std::printf("input: %s + synthetic-2400.jsonl (%zu records: 2400 configs + 32 copy ceilings, %lld bytes)\n",
                    qPrintable(profile), lines, static_cast<long long>(QFileInfo(results).size()));
    } else {
        std::printf("input: %s + %s (%lld bytes)\n", qPrintable(profile), qPrintable(results),
                    static_cast<long long>(QFileInfo(results).size()));
    }

    std::vector<double> profileMs, resultsMs, modelsMs, plotsMs, totalMs, replotLatencyMs, replotHeatmapMs, refreshMs;
    for (int run = 0; run < repeat; ++run) {
        MainWindow window;
        window.resize(1500, 950);
        window.show();
        QApplication::processEvents();

        QElapsedTimer total;
        total.start();
        QElapsedTimer stage;
        stage.start();
        if (!window.openProfile(profile, true)) {
            std::fprintf(stderr, "%s\n", qPrintable(window.lastError()));
            return 2;
        }
        window.validationPanel()->revalidate();
        profileMs.push_back(stage.nsecsElapsed() / 1e6);

        stage.restart();
        if (!window.openResults(results, true)) {
            std::fprintf(stderr, "%s\n", qPrintable(window.lastError()));
            return 2;
        }
        resultsMs.push_back(stage.nsecsElapsed() / 1e6);

        stage.restart();
        touchTable(window.policyEditor()->model());
        modelsMs.push_back(stage.nsecsElapsed() / 1e6);

        // Every plot drawn once at its on-screen size, as switching to each tab would.
        stage.restart();
        PlotsView* plots = window.plotsView();
        int points = 0;
        for (PlotWidget* plot : {plots->latencyPlot(), plots->heatmapPlot(), plots->bandwidthPlot()}) {
            plot->replotNowMs();
            points += plot->pointCount();
        }
        plotsMs.push_back(stage.nsecsElapsed() / 1e6);
        totalMs.push_back(total.nsecsElapsed() / 1e6);
        if (run == 0)
            std::printf("drawn: %d points over the three plots, %d table rows x %d columns\n", points,
                        window.policyEditor()->model()->rowCount(), window.policyEditor()->model()->columnCount());

        // Interactivity once open: a redraw (pan/zoom) and a full rebuild (a streamed result arriving).
        window.showPage(MainWindow::Page::Plots);
        QApplication::processEvents();
        std::vector<double> latency, heatmap;
        for (int i = 0; i < 10; ++i) {
            latency.push_back(plots->latencyPlot()->replotNowMs());
            heatmap.push_back(plots->heatmapPlot()->replotNowMs());
        }
        replotLatencyMs.push_back(median(latency));
        replotHeatmapMs.push_back(median(heatmap));
        stage.restart();
        plots->latencyPlot()->refresh();
        plots->latencyPlot()->replotNowMs();
        refreshMs.push_back(stage.nsecsElapsed() / 1e6);
        window.close();
    }
    std::printf("median of %d runs (ms):\n", repeat);
    std::printf("  open profile + validate          %8.1f\n", median(profileMs));
    std::printf("  open results (parse + index)     %8.1f\n", median(resultsMs));
    std::printf("  policy table with regret, all cells %5.1f\n", median(modelsMs));
    std::printf("  draw the three plots             %8.1f\n", median(plotsMs));
    std::printf("  TOTAL open (target < 300)        %8.1f\n", median(totalMs));
    std::printf("  redraw latency plot (pan/zoom)   %8.1f\n", median(replotLatencyMs));
    std::printf("  redraw heatmap (pan/zoom)        %8.1f\n", median(replotHeatmapMs));
    std::printf("  rebuild + draw latency plot      %8.1f\n", median(refreshMs));
    return 0;
}
