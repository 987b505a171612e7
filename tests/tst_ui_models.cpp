// Every GUI model under QAbstractItemModelTester, fed with the seeds and a results file: the policy table with
// result columns, validation, diff, JSON tree, cuBLASLt heuristics and split-k models; the validation panel's
// jump to the named cell; plots (points drawn, hover text, exports).
// QCustomPlot's header uses `foreach`; allow it for this include only, as the plotting code does.
#undef QT_NO_FOREACH
#include <qcustomplot.h>
#undef foreach
#define QT_NO_FOREACH

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "../bench/ui_open/synthetic_results.hpp"  // shared with bench_ui_open, outside ui/
#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "mainwindow.hpp"
#include "models/capturesweepmodel.hpp"
#include "models/cublasltpolicymodel.hpp"
#include "models/diffmodel.hpp"
#include "models/jsontreemodel.hpp"
#include "models/policytablemodel.hpp"
#include "models/validationmodel.hpp"
#include "pages/capturesweepview.hpp"
#include "pages/cublasltpolicyview.hpp"
#include "pages/cublasltview.hpp"
#include "pages/diffview.hpp"
#include "pages/plotsview.hpp"
#include "pages/policyeditor.hpp"
#include "pages/validationpanel.hpp"
#include "sweep_test_fixtures.hpp"
#include "tunescope/sweep/fla_capture_compare.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"
#include "tunescope/sweep/sweep.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

QString sample(const char* name) {
    return QDir(qEnvironmentVariable("TUNESCOPE_PROFILES")).filePath(QString::fromLatin1(name));
}

std::unique_ptr<QAbstractItemModelTester> test(QAbstractItemModel* model) {
    return std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

}  // namespace

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir.isValid());
        profilePath = dir.filePath(QStringLiteral("profile.json"));
        QVERIFY(QFile::copy(sample("fla-l2norm-gfx942-profile.json"), profilePath));
        QFile::setPermissions(profilePath, QFile::ReadOwner | QFile::WriteOwner);
        resultsPath = dir.filePath(QStringLiteral("results.jsonl"));
        QCOMPARE(synthetic::writeSyntheticResults(resultsPath.toStdString(), 8, 6), std::size_t(8 * 76));
    }

    void policyTableWithResults() {
        ProfileDocument document;
        ResultsDocument results;
        PolicyTableModel model(&document);
        auto tester = test(&model);
        QString error;
        QVERIFY2(document.load(profilePath, &error), qPrintable(error));
        model.setResults(&results);
        QCOMPARE(model.columnCount(), int(PolicyTableModel::kProfileColumns));
        QVERIFY2(results.load(resultsPath, &error), qPrintable(error));
        QCOMPARE(model.columnCount(), int(PolicyTableModel::kResultColumns));
        QCOMPARE(results.index().nbs().size(), std::size_t(8));
        QCOMPARE(results.index().configs().size(), std::size_t(75));
        // NB 1: the seed's BT32 w8 s3 is in the grid, so it has a median, a best config and a regret >= 0.
        QVERIFY(!model.index(0, PolicyTableModel::MeasuredColumn).data().toString().isEmpty());
        QVERIFY(model.index(0, PolicyTableModel::BestColumn).data().toString().startsWith(QStringLiteral("BT")));
        const QString regret = model.index(0, PolicyTableModel::RegretColumn).data().toString();
        QVERIFY2(regret.contains(QLatin1Char('%')), qPrintable(regret));
        QVERIFY2(!regret.startsWith(QLatin1Char('-')), qPrintable(regret));  // never faster than the best
        // NB 20 was not measured: no result cells.
        QVERIFY(model.index(19, PolicyTableModel::MeasuredColumn).data().isNull());
        // Editing the config changes the measured median shown (it follows the policy).
        const QString before = model.index(0, PolicyTableModel::MeasuredColumn).data().toString();
        QVERIFY(model.setData(model.index(0, PolicyTableModel::WarpsColumn), 1));
        QVERIFY(model.index(0, PolicyTableModel::MeasuredColumn).data().toString() != before);
        document.undoStack()->undo();
        QCOMPARE(model.index(0, PolicyTableModel::MeasuredColumn).data().toString(), before);
        results.clear();
        QCOMPARE(model.columnCount(), int(PolicyTableModel::kProfileColumns));
    }

    // Issue 11: the regret column carries its paired interval over rounds, and its tooltip names the tie set.
    void regretIntervalAndTieSetFromRounds() {
        tunescope::testing::ScriptedDevice device;
        SweepPlan plan;
        plan.backend = "scripted";
        plan.shapes = shapesFromNbList({1});
        plan.grid = gridFromLists({8, 32}, {1, 8}, {2, 3});  // holds the seed's NB 1 config, BT=32 8 warps 3 stages
        plan.rule.minSamples = 5;
        plan.rule.minTimeMs = 0;
        plan.rule.timeoutMs = 1e9;
        plan.rounds = 3;
        const QString out = dir.filePath(QStringLiteral("rounds.jsonl"));
        SweepOptions options;
        options.out = out.toStdString();
        options.deviceWarmupMs = 0;
        const SweepOutcome outcome = runSweep(plan, {&device}, options);
        QCOMPARE(outcome.failed, std::size_t(0));

        ProfileDocument document;
        ResultsDocument results;
        PolicyTableModel model(&document);
        auto tester = test(&model);
        QString error;
        QVERIFY2(document.load(profilePath, &error), qPrintable(error));
        model.setResults(&results);
        QVERIFY2(results.load(out, &error), qPrintable(error));
        const QString regret = model.index(0, PolicyTableModel::RegretColumn).data().toString();
        QVERIFY2(regret.contains(QLatin1Char('[')) && regret.contains(QLatin1Char(']')), qPrintable(regret));
        const QString tip = model.index(0, PolicyTableModel::RegretColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("95% interval")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Tie set")), qPrintable(tip));
        // The scripted device makes BT=8 configs the fastest: the tie set names one, never the slow seed config.
        const QString ties = tip.section(QStringLiteral("Tie set"), 1);
        QVERIFY2(ties.contains(QStringLiteral("BT8")) || ties.contains(QStringLiteral("BT 8")) ||
                     ties.contains(QStringLiteral("8/")),
                 qPrintable(tip));
        const auto summary = results.regret(policyConfigs(document.profile()));
        QVERIFY(!summary.at(1).ties.empty());
        QVERIFY(summary.at(1).regretLow <= summary.at(1).regret && summary.at(1).regret <= summary.at(1).regretHigh);
        for (const L2NormConfig& c : summary.at(1).ties) QCOMPARE(c.blockRows, 8);
    }

    void validationModelOnSeed() {
        ProfileDocument document;
        ValidationPanel panel(&document);
        auto tester = test(panel.model());
        QString error;
        QVERIFY(document.load(profilePath, &error));
        panel.revalidate();
        const ValidationResult& result = panel.model()->result();
        QVERIFY(result.valid());
        QCOMPARE(result.withRule("basis-prospective").size() + 0, std::size_t(18));
        QVERIFY(panel.model()->rowCount() >= 19);  // 18 prospective warnings + the missing l2norm_fwd_kernel.json
    }

    void validationUpdatesAsTheUserEdits() {
        ProfileDocument document;
        ValidationPanel panel(&document);
        PolicyTableModel model(&document);
        QString error;
        QVERIFY(document.load(profilePath, &error));
        QVERIFY(panel.model()->result().valid());
        // Make NB 1's entry claim production's choice with another config: an error the validator names.
        PolicyEntry entry = *document.entry(1);
        entry.config.num_warps = 2;
        QVERIFY(document.setEntries({entry}, QStringLiteral("test edit")));
        QTRY_VERIFY(!panel.model()->result().valid());
        bool named = false;
        for (const Diagnostic& d : panel.model()->result().diagnostics)
            named = named || (d.severity == Severity::Error && QString::fromStdString(d.path).startsWith(QStringLiteral("/per_NB_policy/0")));
        QVERIFY(named);
        document.undoStack()->undo();
        QTRY_VERIFY(panel.model()->result().valid());
    }

    void validationJumpSelectsTheNamedCell() {
        MainWindow window;
        QVERIFY(window.openProfile(profilePath, true));
        window.validationPanel()->revalidate();
        ValidationModel* model = window.validationPanel()->model();
        int row = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, ValidationModel::PathColumn).data().toString() == QStringLiteral("/per_NB_policy/13/basis")) row = r;
        QVERIFY2(row >= 0, "the seed's NB 14 prospective warning");
        QSignalSpy jumps(window.validationPanel(), &ValidationPanel::jumpRequested);
        QTableView* view = window.validationPanel()->view();
        view->setCurrentIndex(model->index(row, 0));
        emit view->activated(model->index(row, 0));  // what a double-click or Enter does
        QCOMPARE(jumps.count(), 1);
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::Policy));
        const QModelIndex current = window.policyEditor()->view()->currentIndex();
        QCOMPARE(current.row(), 13);
        QCOMPARE(current.column(), int(PolicyTableModel::BasisColumn));
        QCOMPARE(current.data(PolicyTableModel::NbRole).toInt(), 14);

        // A pointer outside the table lands on the document tree.
        window.jumpToPointer(QStringLiteral("/files/0/sha256"));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::Document));
        QCOMPARE(window.documentTree()->currentIndex().data(JsonTreeModel::PointerRole).toString(), QStringLiteral("/files/0/sha256"));
    }

    void diffModel() {
        ProfileDocument document;
        QString error;
        QVERIFY(document.load(profilePath, &error));
        DiffView view(&document);
        auto tester = test(view.model());
        QCOMPARE(view.model()->rowCount(), 0);  // disk vs editor, no edits
        PolicyTableModel model(&document);
        QVERIFY(model.applyConfigOfRow(8, {13, 14}));  // NB 9's config onto NB 14, 15
        QCOMPARE(view.model()->rowCount(), 2);
        QCOMPARE(view.model()->index(0, DiffModel::NbColumn).data().toInt(), 14);
        QVERIFY(view.model()->index(0, DiffModel::AfterColumn).data().toString().contains(QStringLiteral("BT=8")));
        QVERIFY(view.model()->index(0, DiffModel::BasisColumn).data().toString().contains(QStringLiteral("->")));
        // Against the report file (not a profile) the diff refuses with a message naming it.
        QVERIFY(!view.setLeftFile(sample("cublaslt-gb10-nvfp4-fc2-report.json"), &error));
        QVERIFY(error.contains(QStringLiteral("cublaslt-gb10")));
    }

    void jsonTreeModel() {
        JsonTreeModel model;
        auto tester = test(&model);
        model.setDocument(readJsonFile(profilePath.toStdString()));
        const QModelIndex index = model.indexForPointer(QStringLiteral("/per_NB_policy/13/config/num_warps"));
        QVERIFY(index.isValid());
        QCOMPARE(index.data().toString(), QStringLiteral("num_warps"));
        QCOMPARE(model.index(index.row(), JsonTreeModel::ValueColumn, index.parent()).data().toString(), QStringLiteral("8"));
        // A missing member lands on its deepest existing ancestor.
        QCOMPARE(model.indexForPointer(QStringLiteral("/supported/nope")).data(JsonTreeModel::PointerRole).toString(),
                 QStringLiteral("/supported"));
        QCOMPARE(jsonPointerTokens(QStringLiteral("/a~1b/c~0d")), (QStringList{QStringLiteral("a/b"), QStringLiteral("c~d")}));
    }

    void cublasLtPolicyModelAndPage() {
        const QString policy =
            QDir(qEnvironmentVariable("TUNESCOPE_TESTDATA")).filePath(QStringLiteral("cublaslt-policy/policy.json"));
        CublasLtPolicyModel model;
        auto tester = test(&model);
        model.setPolicy(loadCublasLtPolicy(policy.toStdString()));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(CublasLtPolicyModel::ColumnCount));
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(0, CublasLtPolicyModel::ShapeColumn).toString(), QStringLiteral("64x5376x14336 TN bf16"));
        QCOMPARE(cell(0, CublasLtPolicyModel::GainColumn).toString(), QStringLiteral("3.48%"));
        QCOMPARE(cell(0, CublasLtPolicyModel::IntervalColumn).toString(), QStringLiteral("[3.47, 3.49]"));
        QCOMPARE(cell(0, CublasLtPolicyModel::TiesColumn).toString(), QStringLiteral("2 tied"));
        QVERIFY(cell(0, CublasLtPolicyModel::AlgorithmColumn).toString().contains(QStringLiteral("tile 112x64")));
        QCOMPARE(cell(0, CublasLtPolicyModel::BytesColumn).toString(), QStringLiteral("raw bytes"));
        QCOMPARE(cell(1, CublasLtPolicyModel::GainColumn).toString(), QStringLiteral("heuristic kept"));
        QCOMPARE(cell(2, CublasLtPolicyModel::BytesColumn).toString(), QStringLiteral("rebuilt from attributes"));
        QCOMPARE(cell(2, CublasLtPolicyModel::GpuColumn).toString(), QStringLiteral("NVIDIA GB10 (sm_121)"));
        QCOMPARE(cell(0, CublasLtPolicyModel::GainColumn, CublasLtPolicyModel::SortRole).toDouble(),
                 model.policy().entries[0].gain.percent);
        QCOMPARE(cell(1, CublasLtPolicyModel::VersionColumn).toLongLong(), 130100);

        // The window opens a policy on its own page, with the validation verdict and the selected entry in full.
        MainWindow window;
        QVERIFY(window.openFile(policy, /*quiet=*/true));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::CublasLtPolicy));
        CublasLtPolicyView* view = window.cublasLtPolicyView();
        QCOMPARE(view->model()->rowCount(), 3);
        QVERIFY2(view->summaryText().contains(QStringLiteral("3 entries; 0 errors")), qPrintable(view->summaryText()));
        QVERIFY(view->summaryText().contains(QStringLiteral("Not signed")));
        QVERIFY(view->detailsText().contains(QStringLiteral("Entry 0: m=5376 n=64 k=14336")));
        QVERIFY(view->detailsText().contains(QStringLiteral("Tie set (2 members")));
        view->table()->sortByColumn(CublasLtPolicyModel::GainColumn, Qt::DescendingOrder);
        view->selectEntry(2);
        QVERIFY(view->detailsText().startsWith(QStringLiteral("Entry 2:")));
        QCOMPARE(view->table()->currentIndex().row(), 0);  // the seed's 7.55% sorts first
        // A hand edit without rehashing: the page says what validation says.
        QTemporaryDir temp;
        QFile in(policy);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        bytes.replace("\"custom_option\": 5", "\"custom_option\": 4");
        const QString edited = temp.filePath(QStringLiteral("edited.json"));
        QFile out(edited);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();
        QVERIFY(window.openFile(edited, true));
        QVERIFY(view->summaryText().contains(QStringLiteral("[entries-digest]")));
        QString error;
        QVERIFY(!view->openPolicy(temp.filePath(QStringLiteral("missing.json")), &error));
        QVERIFY(error.contains(QStringLiteral("missing.json")));
        QCOMPARE(view->filePath(), edited);  // a file that does not load leaves the page as it was
    }

    // Issue 24: two capture sweeps compared on the page (run 17's H100 sweep as this run, run 19's as the other: the
    // same capture, builds before and after the loader fix; BENCHMARKS.md "Run 19 re-read"): the model's two extra
    // columns come and go with the comparison, the other run's choice is marked, the ratios are the core's, the plot
    // gains the other run's series; a refused file leaves the page as it was.
    void captureSweepComparison() {
        const QString data = qEnvironmentVariable("TUNESCOPE_TESTDATA");
        const QString a = QDir(data).filePath(QStringLiteral("fla-capture/sweep-h100-run17-launch-runs.json"));
        const QString b = QDir(data).filePath(QStringLiteral("fla-capture/sweep-h100-run19.json"));
        const FlaCaptureSweepCheck checkA = checkFlaCaptureSweepFile(a.toStdString());
        const FlaCaptureSweepCheck checkB = checkFlaCaptureSweepFile(b.toStdString());
        QVERIFY(checkA.sweep && checkB.sweep);
        const FlaCaptureComparison comparison = compareFlaCaptureSweeps(*checkA.sweep, "a", *checkB.sweep, "b");
        QCOMPARE(comparison.decisions.size(), std::size_t(8));
        QCOMPARE(comparison.sameChoices, std::size_t(6));
        CaptureSweepModel model;
        auto tester = test(&model);
        model.setSweep(*checkA.sweep);
        QCOMPARE(model.columnCount(), int(CaptureSweepModel::OtherTotalColumn));
        model.setComparison(comparison);
        QCOMPARE(model.columnCount(), int(CaptureSweepModel::ColumnCount));
        model.setDecision(2);  // l2norm at T=65536: run 17 chose #16, run 19 #22
        const FlaCaptureCompareDecision* d = model.comparedDecision();
        QVERIFY(d && d->chosenA == 16u && d->chosenB == 22u);
        const auto rowOf = [&](std::size_t config) {
            for (int row = 0; row < model.rowCount(); ++row)
                if (model.index(row, CaptureSweepModel::ConfigColumn).data(CaptureSweepModel::SortRole).toULongLong() == config)
                    return row;
            return -1;
        };
        const int other = rowOf(22), mine = rowOf(16);
        QVERIFY(other >= 0 && mine >= 0);
        QVERIFY(model.index(other, CaptureSweepModel::PickColumn).data().toString().contains(QStringLiteral("the other run's choice")));
        QVERIFY(!model.index(mine, CaptureSweepModel::PickColumn).data().toString().contains(QStringLiteral("other run")));
        for (const FlaCaptureCompareConfig& c : d->configs) {
            if (!c.ratio) continue;
            const int row = rowOf(c.config);
            QCOMPARE(model.index(row, CaptureSweepModel::OtherRatioColumn).data(CaptureSweepModel::SortRole).toDouble(), *c.ratio);
            QCOMPARE(model.index(row, CaptureSweepModel::OtherRatioColumn).data().toString(),
                     QStringLiteral("x%1").arg(*c.ratio, 0, 'f', 4));
        }
        model.setDecision(3);
        QVERIFY(model.comparedDecision() && model.comparedDecision()->sameChoice());
        model.setComparison(std::nullopt);
        QCOMPARE(model.columnCount(), int(CaptureSweepModel::OtherTotalColumn));
        QVERIFY(!model.comparedDecision());

        MainWindow window;
        QVERIFY2(window.openFile(a, /*quiet=*/true), qPrintable(window.lastError()));
        CaptureSweepView* view = window.captureSweepView();
        view->decisionBox()->setCurrentIndex(2);
        QCOMPARE(view->plot()->graphCount(), 3);
        QString error;
        QVERIFY2(view->compareWith(b, &error), qPrintable(error));
        QVERIFY2(view->comparisonText().contains(QStringLiteral("6 of 8 decisions chose the same config")),
                 qPrintable(view->comparisonText()));
        QVERIFY2(view->comparisonText().contains(QStringLiteral("the other run chose config 22")), qPrintable(view->comparisonText()));
        QCOMPARE(view->plot()->graphCount(), 4);
        QCOMPARE(view->model()->columnCount(), int(CaptureSweepModel::ColumnCount));
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage shot = window.grab().toImage();
        QVERIFY(!shot.isNull());
        if (const QString dir = qEnvironmentVariable("TUNESCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("capture-sweep-compare.png"))));
        const QString bad = QDir(data).filePath(QStringLiteral("fla-capture/sweep-files/chosen-not-lowest.json"));
        QVERIFY(!view->compareWith(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("chosen-not-lowest.json")), qPrintable(error));
        QVERIFY(view->comparisonText().contains(QStringLiteral("6 of 8")));  // the page kept its comparison
        view->stopComparing();
        QCOMPARE(view->plot()->graphCount(), 3);
        QVERIFY(view->comparisonText().isEmpty());
    }

    // Issue 24: the capture sweep's results (the H100's sweep of BENCHMARKS.md run 17) on a page of their own, with a
    // kernel-and-key selector; a file with an impossible record is refused with its pointer.
    void captureSweepModelAndPage() {
        const QString data = qEnvironmentVariable("TUNESCOPE_TESTDATA");
        const QString sweep = QDir(data).filePath(QStringLiteral("fla-capture/sweep-h100-run17-launch-runs.json"));
        const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(sweep.toStdString());
        QVERIFY(check.sweep);
        CaptureSweepModel model;
        auto tester = test(&model);
        model.setSweep(*check.sweep);
        QCOMPARE(model.decisionCount(), 8);
        QCOMPARE(model.rowCount(), 25);  // l2norm at T=4096: 25 configs
        QCOMPARE(model.decisionLabel(0), QStringLiteral("l2norm_fwd_kernel, key 878a9638 (2 launches)"));
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(11, CaptureSweepModel::PickColumn).toString(), QStringLiteral("chosen"));
        QCOMPARE(cell(8, CaptureSweepModel::PickColumn).toString(), QStringLiteral("FLA's autotune"));
        QCOMPARE(cell(11, CaptureSweepModel::RatioColumn).toString(), QStringLiteral("x1.000"));
        QCOMPARE(cell(8, CaptureSweepModel::RatioColumn).toString(), QStringLiteral("x1.041"));
        QCOMPARE(cell(11, CaptureSweepModel::LabelColumn).toString(), QStringLiteral("BT=16 num_warps=4 num_stages=3"));
        for (int row = 0; row < model.rowCount(); ++row)  // the chosen config has the lowest total
            QVERIFY(cell(row, CaptureSweepModel::TotalColumn, CaptureSweepModel::SortRole).toDouble() >=
                    cell(11, CaptureSweepModel::TotalColumn, CaptureSweepModel::SortRole).toDouble());
        model.setDecision(4);  // kkt_solve: FLA's autotune and the sweep agree
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(cell(3, CaptureSweepModel::PickColumn).toString(), QStringLiteral("chosen, FLA's autotune"));
        model.setDecision(8);  // out of range: ignored
        QCOMPARE(model.decision(), 4);

        MainWindow window;
        QVERIFY2(window.openFile(sweep, /*quiet=*/true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::CaptureSweep));
        CaptureSweepView* view = window.captureSweepView();
        QVERIFY2(view->summaryText().contains(QStringLiteral("21 launches, 8 decisions (kernel, key), 8 with a chosen "
                                                             "config, 3 where FLA's own autotune chose another")),
                 qPrintable(view->summaryText()));
        QCOMPARE(view->decisionBox()->count(), 8);
        view->decisionBox()->setCurrentIndex(6);
        QCOMPARE(view->model()->decision(), 6);
        QCOMPARE(view->model()->rowCount(), 12);
        QCOMPARE(view->plot()->graphCount(), 3);
        QCOMPARE(view->plot()->graph(0)->dataCount(), 12);  // every eligible config of kernel_h
        QCOMPARE(view->plot()->graph(1)->dataCount(), 1);   // the chosen one
        // The page as it shows (TUNESCOPE_SCREENSHOT_DIR set: saved there, for docs/screenshots/capture-sweep.png).
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage shot = window.grab().toImage();
        QVERIFY(!shot.isNull() && shot.width() >= 1280);
        if (const QString dir = qEnvironmentVariable("TUNESCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("capture-sweep.png"))));
        // A file with an impossible record: refused, the page keeps what it showed.
        const QString bad = QDir(data).filePath(QStringLiteral("fla-capture/sweep-files/chosen-not-lowest.json"));
        QVERIFY(!window.openFile(bad, true));
        QVERIFY2(window.lastError().contains(QStringLiteral("/decisions/0/chosen_config")), qPrintable(window.lastError()));
        QCOMPARE(view->filePath(), sweep);
    }

    void cublasLtModelsOnSeedReport() {
        CublasLtView view;
        auto heuristicsTester = test(view.heuristicsModel());
        auto splitKTester = test(view.splitKModel());
        QString error;
        QVERIFY2(view.openReport(sample("cublaslt-gb10-nvfp4-fc2-report.json"), &error), qPrintable(error));
        QStandardItemModel* heuristics = view.heuristicsModel();
        QCOMPARE(heuristics->rowCount(), 6);  // workspace sizes 0, 4, 8, 16, 32, 64 MiB
        QCOMPARE(heuristics->item(0)->rowCount(), 5);
        QCOMPARE(heuristics->item(1)->rowCount(), 7);
        // The heuristic sentinel split_k -2 is shown as it is.
        QCOMPARE(heuristics->item(0)->child(0, 4)->text(), QStringLiteral("-2"));
        QStandardItemModel* splitK = view.splitKModel();
        QCOMPARE(splitK->rowCount(), 5);  // split 1, 2, 4, 8, 16
        QVERIFY(splitK->item(0, 0)->text().startsWith(QStringLiteral("valid")));
        bool invalidSeen = false;
        for (int row = 1; row < splitK->rowCount(); ++row)
            for (int column = 0; column < splitK->columnCount(); ++column)
                invalidSeen = invalidSeen || splitK->item(row, column)->text().startsWith(QStringLiteral("invalid"));
        QVERIFY(invalidSeen);
        // The seed has no per-candidate timings: its end-to-end run is charted, both runs bitwise equal.
        const auto bars = candidateBars(*view.report());
        QCOMPARE(bars.size(), std::size_t(2));
        QVERIFY(bars[0].baseline);
        QVERIFY(bars[1].selected);
        QCOMPARE(bars[1].parity, CandidateBar::Parity::BitwiseEqual);
        QVERIFY(bars[1].medianMs < bars[0].medianMs);
        QVERIFY(view.candidatesPlot()->pointCount() == 2);
        QVERIFY(selectionSummary(*view.report()).contains(QStringLiteral("algo 70")));
    }

    void explorerReportCandidates() {
        // An explorer-style report: candidates with finalists, parity, and a selection naming them.
        Json report = readJsonFile(sample("cublaslt-gb10-nvfp4-fc2-report.json").toStdString());
        Json candidates = Json::array();
        for (int i = 0; i < 3; ++i) {
            Json c = {{"index", i}, {"source", "test"}, {"algorithm_id", 70}, {"tile_id", 20}, {"stages_id", 37},
                      {"split_k", 1}, {"reduction_scheme", 0}, {"custom_option", i}, {"cta_swizzle", 0},
                      {"inner_shape", 0}, {"cluster_shape", 0}};
            c["final"] = {{"median_ms", 2.0 - 0.1 * i}, {"p20_ms", 1.95 - 0.1 * i}, {"p80_ms", 2.05 - 0.1 * i}};
            c["parity"] = {{"bitwise_equal_to_baseline", i != 2}, {"max_rel_error", i == 2 ? 0.5 : 0.0}};
            if (i == 0)
                c["power"] = {{"mean_power_w", 699.6}, {"power_limit_w", 700.0}, {"joules_per_launch", 5.81},
                              {"mean_sm_clock_mhz", 1460.0}, {"megacycles_per_launch", 12.1}, {"power_limited", true}};
            candidates.push_back(c);
        }
        report["candidates"] = candidates;
        report["selected"]["candidate_index"] = 1;
        report["selected"]["baseline_candidate_index"] = 0;
        report["power_state"] = {{"measured", true}, {"note", "the heuristic top drew 699.6 W of a 700.0 W limit"}};
        const CublasLtReport parsed = parseReport(report, "explorer.json");
        QVERIFY(selectionSummary(parsed).contains(QStringLiteral("Power: the heuristic top drew 699.6 W")));
        const auto bars = candidateBars(parsed);
        QCOMPARE(bars.size(), std::size_t(3));
        QCOMPARE(bars[0].medianMs, 1.8);  // sorted fastest first
        QCOMPARE(bars[0].parity, CandidateBar::Parity::Different);
        QVERIFY(bars[1].selected);
        QCOMPARE(bars[1].parity, CandidateBar::Parity::BitwiseEqual);
        QVERIFY(bars[2].baseline);
        QVERIFY(bars[2].details.contains(QStringLiteral("power window: 700 W of 700 W, 5.810 J/launch, 1460 MHz, 12.10 Mcycles (power-limited)")));
    }

    void plotsDrawHoverAndExport() {
        ProfileDocument document;
        ResultsDocument results;
        QString error;
        QVERIFY(document.load(profilePath, &error));
        QVERIFY(results.load(resultsPath, &error));
        PlotsView view(&document, &results);
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        PlotWidget* latency = view.latencyPlot();
        QCOMPARE(latency->pointCount(), 8 * 75);
        QCOMPARE(view.heatmapPlot()->pointCount(), 8 * 75);
        QCOMPARE(view.bandwidthPlot()->pointCount(), 8 + 8 + 8);  // best, copy ceiling, profile's config per NB
        latency->replotNowMs();
        const auto position = latency->positionOfPoint(0);
        QVERIFY(position.has_value());
        const QString hover = latency->hoverTextAt(*position);
        QVERIFY2(hover.contains(QStringLiteral("NB 1")) && hover.contains(QStringLiteral("median")), qPrintable(hover));
        QVERIFY(latency->hoverTextAt(QPoint(2, 2)).isEmpty());
        for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            const QString path = dir.filePath(QStringLiteral("latency.") + suffix);
            QVERIFY2(latency->exportTo(path, &error, 800, 500), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        QImage png(dir.filePath(QStringLiteral("latency.png")));
        QCOMPARE(png.size(), QSize(800, 500));
        QFile svg(dir.filePath(QStringLiteral("latency.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QVERIFY(!latency->exportTo(dir.filePath(QStringLiteral("latency.bmpx")), &error));
        QVERIFY(error.contains(QStringLiteral("unknown export format")));
        QVERIFY(!latency->exportTo(QStringLiteral("/nonexistent-dir/latency.png"), &error));

        // Heatmap hover names the cell.
        PlotWidget* heatmap = view.heatmapPlot();
        view.tabs()->setCurrentWidget(heatmap);
        heatmap->replotNowMs();
        const auto cell = heatmap->positionOfPoint(75 + 2);  // NB 2, third config
        QVERIFY(cell.has_value());
        const QString cellText = heatmap->hoverTextAt(*cell);
        QVERIFY2(cellText.startsWith(QStringLiteral("NB 2  BT8 w1 s4")), qPrintable(cellText));
        QVERIFY(cellText.contains(QStringLiteral("x the best at this NB")));
    }

private:
    QTemporaryDir dir;
    QString profilePath;
    QString resultsPath;
};

QTEST_MAIN(TestUiModels)
#include "tst_ui_models.moc"
