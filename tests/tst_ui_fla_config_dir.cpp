// The FLA_CONFIG_DIR page: two folders that capture export-fla writes from CI's H100 fixture (FLA's own choices and
// the scripted ones) shown one kernel at a time under QAbstractItemModelTester, compared key by key as
// diffFlaConfigDirs compares them; a folder with a changed kernel file is refused with the file and the manifest's
// pointer named; the main window routes a folder (and its manifest) to the page.
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "mainwindow.hpp"
#include "models/flaconfigdirmodel.hpp"
#include "pages/flaconfigdirview.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

std::unique_ptr<QAbstractItemModelTester> test(QAbstractItemModel* model) {
    return std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

QString captureData(const QString& name) {
    return QDir(qEnvironmentVariable("TUNESCOPE_TESTDATA")).filePath(QStringLiteral("fla-capture/") + name);
}

QString cell(const FlaConfigDirModel& model, int row, FlaConfigDirModel::Column column, int role = Qt::DisplayRole) {
    return model.index(row, model.section(column)).data(role).toString();
}

// The (kernel, key hash) pairs whose change column names `what`, over every kernel of the model.
std::set<std::pair<std::string, std::string>> keysShowing(FlaConfigDirModel& model, const QString& what) {
    std::set<std::pair<std::string, std::string>> keys;
    for (int k = 0; k < model.kernelCount(); ++k) {
        model.setKernel(k);
        for (int row = 0; row < model.rowCount(); ++row)
            if (cell(model, row, FlaConfigDirModel::ChangeColumn).split(QStringLiteral(", ")).contains(what))
                keys.emplace(model.kernelName(k).toStdString(), cell(model, row, FlaConfigDirModel::KeyHashColumn).toStdString());
    }
    return keys;
}

}  // namespace

class TestUiFlaConfigDir : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TuneScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_fla_config_dir"));
        QSettings().clear();
        QVERIFY(temp.isValid());
        const FlaCapture capture = readFlaCapture(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")).toStdString());
        captured = temp.filePath(QStringLiteral("captured"));
        scripted = temp.filePath(QStringLiteral("scripted"));
        tampered = temp.filePath(QStringLiteral("tampered"));
        const FlaChoices scriptedChoices =
            readFlaChoices(captureData(QStringLiteral("choices/h100-gdr-fwd-T4096-scripted.json")).toStdString());
        exportFlaConfigDir(capture, capturedFlaChoices(capture), captured.toStdString());
        exportFlaConfigDir(capture, scriptedChoices, scripted.toStdString());
        exportFlaConfigDir(capture, scriptedChoices, tampered.toStdString());
        // One byte of one kernel file changed: same size, another SHA-256 than the manifest lists.
        tamperedFile = QDir(tampered).filePath(QStringLiteral("chunk_fwd_kernel_o.json"));
        std::string text = readTextFile(tamperedFile.toStdString());
        const std::size_t at = text.find("\"num_warps\": ");
        QVERIFY(at != std::string::npos);
        char& digit = text[at + 13];
        digit = digit == '4' ? '8' : '4';
        writeFileAtomic(tamperedFile.toStdString(), text);
    }

    void modelShowsOneKernelAtATime() {
        const FlaConfigDir dir = readFlaConfigDir(scripted.toStdString());
        FlaConfigDirModel model;
        auto tester = test(&model);
        model.setDir(dir);
        QCOMPARE(model.kernelCount(), int(dir.kernels.size()));
        QCOMPARE(model.columnCount(), int(FlaConfigDirModel::ColumnCount) - 2);
        QCOMPARE(model.kernelLabel(0), QStringLiteral("l2norm_fwd_kernel (1 key)"));
        for (int k = 0; k < model.kernelCount(); ++k) {
            model.setKernel(k);
            const FlaConfigDirKernel& kernel = dir.kernels[std::size_t(k)];
            QCOMPARE(model.kernelName(k), QString::fromStdString(kernel.kernel_name));
            QCOMPARE(model.rowCount(), int(kernel.entries.size()));
            for (int row = 0; row < model.rowCount(); ++row) {
                const FlaConfigDirEntry& entry = kernel.entries[std::size_t(row)];
                QCOMPARE(cell(model, row, FlaConfigDirModel::ConfigColumn), QString::fromStdString(flaConfigText(entry.config)));
                QCOMPARE(cell(model, row, FlaConfigDirModel::ConfigColumn, Qt::ToolTipRole),
                         QString::fromStdString(dumpJson(entry.config, 2)));
                QCOMPARE(cell(model, row, FlaConfigDirModel::KeyHashColumn), QString::fromStdString(entry.key_hash));
                QCOMPARE(cell(model, row, FlaConfigDirModel::KeyColumn), QString::fromStdString(dumpJson(entry.autotune_key, -1)));
                // The scripted choices carry [p50, p20, p80] ms: shown in us, sorted by the p50.
                const double p50 = entry.best_timing[0].get<double>();
                QVERIFY(cell(model, row, FlaConfigDirModel::BestTimingColumn)
                            .startsWith(QString::fromStdString(formatUs(p50)) + QStringLiteral(" (")));
                QCOMPARE(model.index(row, model.section(FlaConfigDirModel::BestTimingColumn))
                             .data(FlaConfigDirModel::SortRole)
                             .toDouble(),
                         p50 * 1000.0);
                QCOMPARE(model.section(FlaConfigDirModel::ChangeColumn), -1);
            }
        }
        model.setKernel(model.kernelCount());  // out of range: ignored
        QCOMPARE(model.kernel(), model.kernelCount() - 1);
    }

    void comparisonShowsWhereTheChoicesDiffer() {
        const FlaConfigDir here = readFlaConfigDir(scripted.toStdString());
        const FlaConfigDir there = readFlaConfigDir(captured.toStdString());
        const FlaConfigDirDiff diff = diffFlaConfigDirs(here, there);
        std::set<std::pair<std::string, std::string>> configChanges;
        for (const FlaConfigDirChange& c : diff.entries)
            if (c.what == "config") configChanges.emplace(c.kernel_name, c.key_hash);
        QVERIFY2(!configChanges.empty(), "the scripted choices must differ from FLA's own somewhere");

        FlaConfigDirModel model;
        auto tester = test(&model);
        model.setDir(here);
        model.setKernel(2);
        model.setComparison(there);
        QCOMPARE(model.kernel(), 2);  // the same kernel stays shown
        QCOMPARE(model.columnCount(), int(FlaConfigDirModel::ColumnCount));
        QVERIFY(model.diff().has_value());
        QCOMPARE(model.headerData(model.section(FlaConfigDirModel::OtherConfigColumn), Qt::Horizontal).toString(),
                 QStringLiteral("Other folder's config"));
        QCOMPARE(model.headerData(model.columnCount() - 1, Qt::Horizontal).toString(), QStringLiteral("Key hash"));
        QCOMPARE(keysShowing(model, QStringLiteral("config")), configChanges);
        for (int k = 0; k < model.kernelCount(); ++k) {  // the other folder's config beside this one's
            model.setKernel(k);
            const FlaConfigDirKernel* other = there.kernel(model.kernelName(k).toStdString());
            QVERIFY(other);
            for (int row = 0; row < model.rowCount(); ++row) {
                const FlaConfigDirEntry* entry = other->entry(cell(model, row, FlaConfigDirModel::KeyHashColumn).toStdString());
                QVERIFY(entry);
                QCOMPARE(cell(model, row, FlaConfigDirModel::OtherConfigColumn), QString::fromStdString(flaConfigText(entry->config)));
            }
        }
        model.setComparison(std::nullopt);
        QCOMPARE(model.columnCount(), int(FlaConfigDirModel::ColumnCount) - 2);
        QCOMPARE(model.headerData(model.columnCount() - 1, Qt::Horizontal).toString(), QStringLiteral("Key hash"));
        QVERIFY(!model.diff());

        // A folder without one kernel's file: that kernel's key is a row only the other folder has.
        FlaConfigDir fewer = here;
        const FlaConfigDirKernel dropped = fewer.kernels.back();
        fewer.kernels.pop_back();
        model.setDir(fewer);
        QCOMPARE(model.kernelCount(), int(here.kernels.size()) - 1);
        model.setComparison(here);
        QCOMPARE(model.kernelCount(), int(here.kernels.size()));
        model.setKernel(model.kernelCount() - 1);
        QCOMPARE(model.kernelLabel(model.kernel()),
                 QString::fromStdString(dropped.kernel_name) + QStringLiteral(" (0 keys, 1 only in the other folder)"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(model, 0, FlaConfigDirModel::ConfigColumn), QStringLiteral("-"));
        QCOMPARE(cell(model, 0, FlaConfigDirModel::OtherConfigColumn),
                 QString::fromStdString(flaConfigText(dropped.entries.front().config)));
        QCOMPARE(cell(model, 0, FlaConfigDirModel::ChangeColumn), QStringLiteral("added"));
        QCOMPARE(cell(model, 0, FlaConfigDirModel::BestTimingColumn), QStringLiteral("-"));
    }

    // A partial export: the keys without a choice are rows that say FLA autotunes them.
    void keysWithoutChoiceAreRows() {
        const FlaCapture capture = readFlaCapture(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")).toStdString());
        FlaChoices one = capturedFlaChoices(capture);
        one.choices.resize(1);
        const QString partial = temp.filePath(QStringLiteral("partial"));
        exportFlaConfigDir(capture, one, partial.toStdString());
        const FlaConfigDir dir = readFlaConfigDir(partial.toStdString());
        QCOMPARE(dir.keysWithoutChoice.size(), std::size_t(5));
        FlaConfigDirModel model;
        auto tester = test(&model);
        model.setDir(dir);
        QCOMPARE(model.kernelCount(), 6);  // the one kernel file, and five kernels FLA autotunes
        model.setKernel(1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(cell(model, 0, FlaConfigDirModel::KeyHashColumn), QString::fromStdString(dir.keysWithoutChoice.front().second));
        QCOMPARE(cell(model, 0, FlaConfigDirModel::ConfigColumn), QStringLiteral("none: FLA autotunes this key"));
        model.setComparison(readFlaConfigDir(captured.toStdString()));
        QCOMPARE(cell(model, 0, FlaConfigDirModel::ChangeColumn), QStringLiteral("added"));
        QVERIFY(!cell(model, 0, FlaConfigDirModel::OtherConfigColumn).isEmpty());
        QCOMPARE(model.rowCount(), 1);
    }

    void pageOpensComparesAndRefuses() {
        FlaConfigDirView view;
        QString error;
        QVERIFY2(view.openFolder(scripted, &error), qPrintable(error));
        const FlaConfigDir dir = readFlaConfigDir(scripted.toStdString());
        QVERIFY2(view.summaryText().contains(QString::fromStdString(flaConfigDirSummary(dir))), qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(scripted));
        auto* kernels = view.findChild<QComboBox*>(QStringLiteral("flaConfigDirKernel"));
        QVERIFY(kernels);
        QCOMPARE(kernels->count(), int(dir.kernels.size()));
        QCOMPARE(kernels->itemText(0), view.model()->kernelLabel(0));
        kernels->setCurrentIndex(3);
        QCOMPARE(view.model()->kernel(), 3);

        QVERIFY2(view.compareWith(captured, &error), qPrintable(error));
        QCOMPARE(view.model()->kernel(), 3);
        QCOMPARE(kernels->currentIndex(), 3);
        const FlaConfigDirDiff diff = diffFlaConfigDirs(dir, readFlaConfigDir(captured.toStdString()));
        QVERIFY(!diff.other.empty());  // scripted and captured choices: at least /choices differs
        for (const std::string& member : diff.other)
            QVERIFY2(view.comparisonText().contains(QString::fromStdString(member)), qPrintable(view.comparisonText()));
        QVERIFY(view.comparisonText().contains(QStringLiteral("%1 changes in entries").arg(diff.entries.size())));

        // The changed file is named, with the manifest's pointer to the SHA-256 it no longer matches.
        QVERIFY(!view.openFolder(tampered, &error));
        QVERIFY2(error.contains(tamperedFile) && error.contains(QStringLiteral("(at /files/")) &&
                     error.contains(QStringLiteral("sha256")),
                 qPrintable(error));
        QCOMPARE(view.folderPath(), scripted);  // a refused folder leaves the page as it was
        QVERIFY(!view.compareWith(tampered, &error));
        QVERIFY(error.contains(tamperedFile));
        QCOMPARE(view.comparisonPath(), QDir(captured).absolutePath());
        view.stopComparing();
        QCOMPARE(view.model()->columnCount(), int(FlaConfigDirModel::ColumnCount) - 2);
        QVERIFY(view.comparisonText().isEmpty());
    }

    void mainWindowRoutesFoldersToThePage() {
        MainWindow window;
        QVERIFY2(window.openFile(scripted, /*quiet=*/true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::FlaConfigDir));
        QCOMPARE(window.pages()->currentWidget(), window.flaConfigDirView());
        QCOMPARE(window.flaConfigDirView()->folderPath(), scripted);
        QVERIFY(window.recentFiles().contains(QDir(scripted).absolutePath()));
        window.showPage(MainWindow::Page::Policy);
        const QString manifest = QDir(captured).filePath(QString::fromUtf8(kFlaConfigDirManifestName.data()));
        QVERIFY2(window.openFile(manifest, true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::FlaConfigDir));
        QVERIFY(!window.openFile(tampered, true));
        QVERIFY2(window.lastError().contains(tamperedFile), qPrintable(window.lastError()));
        const QString empty = temp.filePath(QStringLiteral("empty"));
        QVERIFY(QDir().mkpath(empty));
        QVERIFY(!window.openFile(empty, true));  // a folder without a manifest: the check names what is missing
        QVERIFY2(window.lastError().contains(QString::fromUtf8(kFlaConfigDirManifestName.data())), qPrintable(window.lastError()));

        // The page as it shows, compared with FLA's own choices (TUNESCOPE_SCREENSHOT_DIR set: saved there too).
        QVERIFY(window.openFile(scripted, true));
        QString error;
        QVERIFY2(window.flaConfigDirView()->compareWith(captured, &error), qPrintable(error));
        window.resize(1280, 720);
        window.validationDock()->hide();  // the dock is about the profile; the page needs the height
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage shot = window.flaConfigDirView()->grab().toImage();
        QVERIFY(!shot.isNull());
        QVERIFY(shot.save(temp.filePath(QStringLiteral("fla-config-dir.png"))));
        QVERIFY(!QImage(temp.filePath(QStringLiteral("fla-config-dir.png"))).isNull());
        if (const QString dir = qEnvironmentVariable("TUNESCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("fla-config-dir.png"))));
    }

private:
    QTemporaryDir temp;
    QString captured, scripted, tampered, tamperedFile;
};

QTEST_MAIN(TestUiFlaConfigDir)
#include "tst_ui_fla_config_dir.moc"
