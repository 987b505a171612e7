// A real CPU-backend sweep driven through the sweep page (tiny NB range and grid): results stream in by signals
// while the UI thread keeps running, the plots and the policy table fill, cancel stops cleanly with the results file
// intact, and "promote measured winners" is one undoable edit whose result passes validation.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "documents/sweeprunner.hpp"
#include "models/policytablemodel.hpp"
#include "pages/sweepview.hpp"
#include "plots/plotwidget.hpp"
#include "tunescope/formats/validation.hpp"

using namespace tunescope;
using namespace tunescope::ui;

class TestUiSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir.isValid());
        profilePath = dir.filePath(QStringLiteral("profile.json"));
        QVERIFY(QFile::copy(QDir(qEnvironmentVariable("TUNESCOPE_PROFILES")).filePath(QStringLiteral("fla-l2norm-gfx942-profile.json")),
                            profilePath));
        QFile::setPermissions(profilePath, QFile::ReadOwner | QFile::WriteOwner);
    }

    void cpuSweepStreamsIntoTheViews() {
        ProfileDocument profile;
        ResultsDocument results;
        QString error;
        QVERIFY(profile.load(profilePath, &error));
        PolicyTableModel table(&profile);
        table.setResults(&results);
        SweepView view(&profile, &results);
        view.setBackend(QStringLiteral("cpu"));
        QVERIFY(view.findChild<QComboBox*>(QStringLiteral("sweepDevice"))->count() >= 1);
        view.setNbList(QStringLiteral("1-2"));
        view.setGridLists(QStringLiteral("8,32"), QStringLiteral("1,8"), QStringLiteral("3"));
        view.setStoppingRule(3, 50.0, 0.0, 300.0);
        const QString out = dir.filePath(QStringLiteral("sweep.jsonl"));
        view.setOutputFile(out);

        QSignalSpy records(view.runner(), &SweepRunner::recordMeasured);
        QSignalSpy progress(view.runner(), &SweepRunner::progress);
        QSignalSpy finished(view.runner(), &SweepRunner::finished);
        // The UI thread must stay free while the sweep runs: count timer ticks during it.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(5);

        QTest::mouseClick(view.startButton(), Qt::LeftButton);
        QVERIFY2(view.runner()->isRunning(), qPrintable(view.lastError()));
        QVERIFY(!view.startButton()->isEnabled());
        QVERIFY(view.cancelButton()->isEnabled());
        QVERIFY(finished.wait(120000));
        ticker.stop();
        const auto outcome = finished.first().at(0).value<SweepOutcome>();
        QVERIFY2(finished.first().at(1).toString().isEmpty(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(!outcome.interrupted);
        QCOMPARE(outcome.failed, std::size_t(0));
        // 2 NB x (copy + 4 grid configs + the profile's config when it is outside the grid).
        QVERIFY(outcome.measured >= 10);
        QCOMPARE(static_cast<std::size_t>(records.count()), outcome.measured);
        QVERIFY(progress.count() >= records.count());
        QVERIFY2(ticks > 0, "the UI thread ran while the sweep was measuring");
        QCOMPARE(view.progressBar()->value(), view.progressBar()->maximum());
        QVERIFY(view.progressLabel()->text().startsWith(QStringLiteral("Done")));

        // Streamed records reached the results document, the plots and the policy table.
        QCOMPARE(results.file().records.size(), outcome.measured);
        QCOMPARE(results.index().nbs(), (std::vector<int>{1, 2}));
        auto* plot = view.findChild<PlotWidget*>(QStringLiteral("sweepLivePlot"));
        QVERIFY(plot);
        QTRY_VERIFY(plot->pointCount() >= 8);
        QCOMPARE(table.columnCount(), int(PolicyTableModel::kResultColumns));
        QVERIFY(!table.index(0, PolicyTableModel::MeasuredColumn).data().toString().isEmpty());  // the profile's config was timed
        // The file on disk holds the same measurements.
        QCOMPARE(loadResults(out.toStdString()).records.size(), outcome.measured);

        // Promote: NB 1 and 2 are production's choices in the seed, so nothing prospective was measured ...
        QVERIFY(view.promoteButton()->isEnabled());
        QCOMPARE(view.promoteWinners(), 0);
        QCOMPARE(profile.undoStack()->count(), 0);
        // ... make NB 2 prospective (as an edit), then promote: one undo step, measured-best with evidence.
        PolicyEntry entry = *profile.entry(2);
        entry.basis = "prospective-test";
        QVERIFY(profile.setEntries({entry}, QStringLiteral("make NB 2 prospective")));
        QCOMPARE(view.promoteWinners(), 1);
        QCOMPARE(profile.undoStack()->count(), 2);
        const PolicyEntry* promoted = profile.entry(2);
        QCOMPARE(QString::fromStdString(promoted->basis), QStringLiteral("measured-best"));
        QVERIFY(promoted->evidence.has_value());
        QVERIFY(promoted->evidence->median_ms > 0);
        QCOMPARE(QString::fromStdString(promoted->evidence->results_sha256).size(), 64);
        const ValidationResult validation = validateProfile(profile.profile());
        for (const Diagnostic& d : validation.diagnostics)
            QVERIFY2(d.severity != Severity::Error, formatDiagnostic(d).c_str());
        profile.undoStack()->undo();
        QCOMPARE(QString::fromStdString(profile.entry(2)->basis), QStringLiteral("prospective-test"));
        QVERIFY(!profile.entry(2)->evidence.has_value());
        profile.undoStack()->redo();
        QCOMPARE(QString::fromStdString(profile.entry(2)->basis), QStringLiteral("measured-best"));
    }

    void cancelStopsAndKeepsWhatWasMeasured() {
        ProfileDocument profile;
        ResultsDocument results;
        QString error;
        QVERIFY(profile.load(profilePath, &error));
        SweepView view(&profile, &results);
        view.setBackend(QStringLiteral("cpu"));
        // Small shapes with many NBs: the first shape's records arrive within seconds even on a loaded 2-core
        // machine (75 configs x 3 rounds per shape took over a minute there), and many shapes are left to cancel.
        view.setNbList(QStringLiteral("1-32"));
        view.setGridLists(QStringLiteral("8,16"), QStringLiteral("1,2"), QStringLiteral("3"));
        view.setStoppingRule(5, 50.0, 0.0, 300.0);
        view.setMeasureProfileConfigs(false);
        const QString out = dir.filePath(QStringLiteral("cancelled.jsonl"));
        view.setOutputFile(out);
        QSignalSpy records(view.runner(), &SweepRunner::recordMeasured);
        QSignalSpy finished(view.runner(), &SweepRunner::finished);
        QVERIFY(view.startSweep());
        QVERIFY(records.wait(60000));
        QTest::mouseClick(view.cancelButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        const auto outcome = finished.first().at(0).value<SweepOutcome>();
        QVERIFY(outcome.interrupted);
        QVERIFY(outcome.notRun > 0);
        QVERIFY(view.progressLabel()->text().startsWith(QStringLiteral("Cancelled")));
        QCOMPARE(loadResults(out.toStdString()).records.size(), outcome.measured);
        QVERIFY(view.startButton()->isEnabled());
    }

    void refusesBadInputWithAMessage() {
        ProfileDocument profile;
        ResultsDocument results;
        SweepView view(&profile, &results);
        view.setBackend(QStringLiteral("cpu"));
        view.setNbList(QStringLiteral("3-1"));
        view.setOutputFile(dir.filePath(QStringLiteral("never.jsonl")));
        QVERIFY(!view.startSweep());
        QVERIFY(!view.lastError().isEmpty());
        QVERIFY(!view.runner()->isRunning());
        view.setNbList(QStringLiteral("1"));
        view.setGridLists(QStringLiteral("12"), QStringLiteral("1"), QStringLiteral("3"));  // BT 12 is not a config
        QVERIFY(!view.startSweep());
        QVERIFY2(view.lastError().contains(QStringLiteral("12")), qPrintable(view.lastError()));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("never.jsonl"))));
        QCOMPARE(view.promoteWinners(), -1);  // no profile, no results
    }

private:
    QTemporaryDir dir;
    QString profilePath;
};

QTEST_MAIN(TestUiSweep)
#include "tst_ui_sweep.moc"
