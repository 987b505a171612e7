// The FLA_CONFIG_DIR page: two folders that capture export-fla writes from CI's H100 fixture (FLA's own choices and
// the scripted ones) shown one kernel at a time under QAbstractItemModelTester, compared key by key as
// diffFlaConfigDirs compares them; a folder with a changed kernel file is refused with the file and the manifest's
// pointer named; the main window routes a folder (and its manifest) to the page. The page as an editor: a folder
// whose capture lies beside it is edited through the model's setData and the combo box delegate, one undo step per
// pick, saved with choices source "edited" into a folder that checks and that FLA's loader (restated, and FLA's own
// cache.py where .fla/ holds it) reads back with the picked config; illegal configs are refused; a failed save leaves
// every byte of the folder as it was; a folder without its capture is read-only and says why.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QImage>
#include <QPixmap>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "documents/flaconfigdirdocument.hpp"
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


// Every file of a folder and its bytes: what a failed save must leave as it was.
std::map<QString, QByteArray> folderBytes(const QString& folder) {
    std::map<QString, QByteArray> out;
    for (const QString& name : QDir(folder).entryList(QDir::Files | QDir::Hidden)) {
        QFile f(QDir(folder).filePath(name));
        if (f.open(QIODevice::ReadOnly)) out[name] = f.readAll();
    }
    return out;
}

// The first row of the shown kernels (the model switched to its kernel) whose key may choose another config than
// its current one: its row, and that other config.
std::optional<std::pair<int, int>> editableRow(FlaConfigDirModel& model) {
    for (int k = 0; k < model.kernelCount(); ++k) {
        model.setKernel(k);
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex index = model.index(row, model.section(FlaConfigDirModel::ConfigColumn));
            const int current = index.data(Qt::EditRole).toInt();
            for (const QVariant& legal : index.data(FlaConfigDirModel::ChoicesRole).toList())
                if (index.data(Qt::EditRole).isValid() && legal.toInt() != current) return std::pair(row, legal.toInt());
        }
    }
    return std::nullopt;
}

// Opens the folder and changes one entry's config through the model (the setup of the failed-save tests).
bool openAndEditOneEntry(const QString& folder, FlaConfigDirDocument& document, FlaConfigDirModel& model,
                         QString* error) {
    if (!document.open(folder, error)) return false;
    model.setDocument(&document);
    const auto editable = editableRow(model);
    if (!editable) {
        *error = QStringLiteral("no editable row in ") + folder;
        return false;
    }
    if (!model.setData(model.index(editable->first, model.section(FlaConfigDirModel::ConfigColumn)), editable->second)) {
        *error = QStringLiteral("the model refused a legal config");
        return false;
    }
    return true;
}

// tests/fla_config_dir_check.py over a folder: FLA's loader restated, or FLA's own cache.py (`own`; it prints
// "SKIP: ..." and exits 0 where .fla/ lacks FLA's source). Exit code and output; -1 without python3.
std::pair<int, QString> flaLoaderCheck(const QString& folder, const QString& capture, const QString& choices, bool own) {
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty()) return {-1, QStringLiteral("python3 not found")};
    QStringList args{QDir(qEnvironmentVariable("TUNESCOPE_SOURCE_DIR")).filePath(QStringLiteral("tests/fla_config_dir_check.py")),
                     folder, QStringLiteral("--capture"), capture, QStringLiteral("--choices"), choices};
    if (own) args << QStringLiteral("--own-loader");
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(python, args);
    if (!process.waitForFinished(120000)) return {-1, QStringLiteral("timed out")};
    return {process.exitCode(), QString::fromUtf8(process.readAll())};
}

// The choices of a document as a tunescope-fla-choices-v1 file (what fla_config_dir_check.py expects).
void writeChoicesFile(const FlaChoices& choices, const QString& path) {
    Json list = Json::array();
    for (const FlaChoice& c : choices.choices)
        list.push_back({{"kernel_name", c.kernel_name}, {"key_hash", c.key_hash}, {"config", c.config}});
    writeFileAtomic(path.toStdString(), dumpJson(Json{{"format", kFlaChoicesFormat}, {"choices", list}}, 2) + "\n");
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

    // The scripted folder without its capture beside it: read-only, and the page says why; attaching another
    // capture is refused with the manifest's pointer, attaching its own turns editing on.
    void folderWithoutItsCaptureIsReadOnly() {
        FlaConfigDirView view;
        QString error;
        QVERIFY2(view.openFolder(scripted, &error), qPrintable(error));
        FlaConfigDirDocument* document = view.document();
        QVERIFY(!document->canEdit());
        QVERIFY2(view.editText().startsWith(QStringLiteral("Read-only")) &&
                     view.editText().contains(QStringLiteral("h100-gdr-fwd-T4096.json")) &&
                     view.editText().contains(QStringLiteral("Attach capture")),
                 qPrintable(view.editText()));
        FlaConfigDirModel* model = view.model();
        const QModelIndex config = model->index(0, model->section(FlaConfigDirModel::ConfigColumn));
        QVERIFY(!(model->flags(config) & Qt::ItemIsEditable));
        QVERIFY(!model->setData(config, 0));
        QVERIFY(!config.data(FlaConfigDirModel::ChoicesRole).isValid());
        auto* save = view.findChild<QPushButton*>(QStringLiteral("flaConfigDirSave"));
        QVERIFY(save && !save->isEnabled());
        QVERIFY(!view.save(&error));
        QVERIFY2(error.contains(QStringLiteral("Read-only")), qPrintable(error));

        QVERIFY(!view.attachCapture(captureData(QStringLiteral("gdr-fwd-T4096-handmade.json")), &error));
        QVERIFY2(error.contains(QStringLiteral("/capture/digest")), qPrintable(error));
        QVERIFY(!document->canEdit());
        QVERIFY2(view.attachCapture(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")), &error), qPrintable(error));
        QVERIFY(document->canEdit());
        QVERIFY2(view.editText().startsWith(QStringLiteral("Editing")), qPrintable(view.editText()));
        QVERIFY(model->flags(config) & Qt::ItemIsEditable);

        // The capture in the folder itself is found too (a name FLA never loads: a warning, not a fault).
        const QString inside = freshFolder(QStringLiteral("inside"), /*captureBeside=*/false);
        QVERIFY(QFile::copy(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")),
                            QDir(inside).filePath(QStringLiteral("h100-gdr-fwd-T4096.json"))));
        QVERIFY2(view.openFolder(inside, &error), qPrintable(error));
        QVERIFY2(document->canEdit(), qPrintable(view.editText()));
    }

    // setData and undo under QAbstractItemModelTester; illegal configs refused; Save writes an "edited" folder
    // that checks, holds the picked config and that FLA's loader reads back; a signature beside it is kept and said
    // to be outdated.
    void editThroughTheModelUndoAndSave() {
        const QString folder = freshFolder(QStringLiteral("edit"));
        FlaConfigDirView view;
        QString error;
        QVERIFY2(view.openFolder(folder, &error), qPrintable(error));
        FlaConfigDirDocument* document = view.document();
        QVERIFY2(document->canEdit(), qPrintable(view.editText()));
        FlaConfigDirModel* model = view.model();
        auto tester = test(model);
        const FlaCapture& capture = *document->capture();
        // Every key offers exactly what the capture lets it export.
        for (int k = 0; k < model->kernelCount(); ++k) {
            model->setKernel(k);
            for (int row = 0; row < model->rowCount(); ++row) {
                const QModelIndex index = model->index(row, model->section(FlaConfigDirModel::ConfigColumn));
                QVariantList expected;
                for (std::size_t i : exportableFlaConfigs(capture, model->kernelName(k).toStdString(),
                                                          cell(*model, row, FlaConfigDirModel::KeyHashColumn).toStdString()))
                    expected << int(i);
                QCOMPARE(index.data(FlaConfigDirModel::ChoicesRole).toList(), expected);
            }
        }
        const auto editable = editableRow(*model);
        QVERIFY2(editable, "some key must offer a second config");
        const auto [row, other] = *editable;
        const std::string kernel = model->kernelName(model->kernel()).toStdString();
        const std::string key = cell(*model, row, FlaConfigDirModel::KeyHashColumn).toStdString();
        const FlaCaptureKernel* captured = capture.kernel(kernel);
        QVERIFY(captured);
        const QModelIndex index = model->index(row, model->section(FlaConfigDirModel::ConfigColumn));
        const int before = index.data(Qt::EditRole).toInt();
        const QString beforeText = index.data().toString();

        // Illegal indices: out of range, negative, not a number.
        QVERIFY(!model->setData(index, int(captured->configs.size())));
        QVERIFY(!model->setData(index, -1));
        QVERIFY(!model->setData(index, QStringLiteral("fast")));
        QVERIFY(!model->setData(index, other, Qt::DisplayRole));
        QCOMPARE(document->undoStack()->count(), 0);

        QVERIFY(model->setData(index, other));
        QCOMPARE(index.data(Qt::EditRole).toInt(), other);
        QCOMPARE(index.data().toString(), QString::fromStdString(flaConfigText(captured->configs[std::size_t(other)].original)));
        QVERIFY(index.data(FlaConfigDirModel::ChangedOnDiskRole).toBool());
        QVERIFY(index.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(index.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Changed; on disk: ") + beforeText));
        QVERIFY(document->isModified());
        QCOMPARE(document->undoStack()->count(), 1);
        document->undoStack()->undo();
        QCOMPARE(index.data(Qt::EditRole).toInt(), before);
        QCOMPARE(index.data().toString(), beforeText);
        QVERIFY(!index.data(FlaConfigDirModel::ChangedOnDiskRole).toBool());
        QVERIFY(!document->isModified());
        document->undoStack()->redo();
        QCOMPARE(index.data(Qt::EditRole).toInt(), other);

        // A signature beside the manifest: kept by the save, and said to no longer cover the folder.
        const QString signature = document->signaturePath();
        const QByteArray signatureBytes("{\"placeholder\": \"a signature of the manifest before the edit\"}\n");
        {
            QFile f(signature);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(signatureBytes);
        }
        QVERIFY2(view.save(&error), qPrintable(error));
        QVERIFY(!document->isModified());
        QVERIFY(!index.data(FlaConfigDirModel::ChangedOnDiskRole).toBool());
        QCOMPARE(index.data(Qt::EditRole).toInt(), other);
        QCOMPARE(folderBytes(folder).at(QFileInfo(signature).fileName()), signatureBytes);
        QVERIFY2(view.editText().contains(QStringLiteral("no longer covers the folder")) &&
                     view.editText().contains(QStringLiteral("tunescope-cli sign ")),
                 qPrintable(view.editText()));
        QVERIFY(view.summaryText().contains(QStringLiteral("edited choices")));

        const FlaConfigDirCheck check = checkFlaConfigDir(folder.toStdString());
        QVERIFY2(check.faults.empty(), check.faults.empty() ? "" : check.faults.front().what());
        const Json& choices = check.dir->manifest["choices"];
        QVERIFY(choices["source"] == "edited");
        QVERIFY(choices["file"].is_null() && choices["sha256"].is_null());
        const FlaConfigDirEntry* entry = check.dir->kernel(kernel)->entry(key);
        QVERIFY(entry);
        QVERIFY(entry->config == captured->configs[std::size_t(other)].original);

        // FLA's loader finds the picked config for every launch of the key (restated; FLA's own where .fla/ has it).
        const QString choicesFile = temp.filePath(QStringLiteral("edit-choices.json"));
        writeChoicesFile(document->choices(), choicesFile);
        const QString manifest = QDir(folder).filePath(QStringLiteral("../h100-gdr-fwd-T4096.json"));
        for (const bool own : {false, true}) {
            const auto [code, out] = flaLoaderCheck(folder, manifest, choicesFile, own);
            if (code == -1) QSKIP(qPrintable(out));
            QVERIFY2(code == 0, qPrintable(out));
            if (own && out.startsWith(QStringLiteral("SKIP:"))) qInfo("%s", qPrintable(out));
        }
    }

    // The delegate: a combo box of only the legal configs, the pick committed as one undo step. The page while
    // editing, the combo box open, is saved to /tmp/fla-config-dir-edit.png.
    void editThroughTheDelegate() {
        const QString folder = freshFolder(QStringLiteral("delegate"));
        FlaConfigDirView view;
        QString error;
        QVERIFY2(view.openFolder(folder, &error), qPrintable(error));
        view.resize(1280, 560);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        FlaConfigDirModel* model = view.model();
        auto tester = test(model);
        const auto editable = editableRow(*model);
        QVERIFY(editable);
        const auto [row, other] = *editable;
        view.kernelBox()->setCurrentIndex(model->kernel());
        const QModelIndex source = model->index(row, model->section(FlaConfigDirModel::ConfigColumn));
        const int before = source.data(Qt::EditRole).toInt();
        QTableView* table = view.table();
        const auto* proxy = static_cast<const QSortFilterProxyModel*>(table->model());
        const QModelIndex shown = proxy->mapFromSource(source);
        table->setCurrentIndex(shown);
        table->edit(shown);
        auto* combo = table->findChild<QComboBox*>(QStringLiteral("flaConfigEditor"));
        QVERIFY(combo);
        const QVariantList legal = source.data(FlaConfigDirModel::ChoicesRole).toList();
        QCOMPARE(combo->count(), int(legal.size()));
        QCOMPARE(combo->currentData().toInt(), before);
        for (int i = 0; i < combo->count(); ++i)
            QCOMPARE(combo->itemText(i), source.data(FlaConfigDirModel::ChoiceLabelsRole).toStringList().at(i));
        combo->showPopup();
        QTest::qWait(50);
        const QRect area(view.mapToGlobal(QPoint(0, 0)), view.size());
        QPixmap shot = view.screen()->grabWindow(0, area.x(), area.y(), area.width(), area.height());
        if (shot.isNull()) shot = view.grab();
        QVERIFY(shot.save(QStringLiteral("/tmp/fla-config-dir-edit.png")));
        if (const QString dir = qEnvironmentVariable("TUNESCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("fla-config-dir-edit.png"))));
        combo->hidePopup();
        const int at = combo->findData(other);
        QVERIFY(at >= 0);
        combo->setCurrentIndex(at);
        emit combo->activated(at);
        QTRY_VERIFY(!table->findChild<QComboBox*>(QStringLiteral("flaConfigEditor")) ||
                    !table->findChild<QComboBox*>(QStringLiteral("flaConfigEditor"))->isVisible());
        QCOMPARE(source.data(Qt::EditRole).toInt(), other);
        QCOMPARE(view.document()->undoStack()->count(), 1);
        // The page after the pick: the changed key marked, Save folder and Undo enabled.
        QVERIFY(view.grab().save(QStringLiteral("/tmp/fla-config-dir-edited.png")));
        auto* undo = view.findChild<QPushButton*>(QStringLiteral("flaConfigDirUndo"));
        auto* save = view.findChild<QPushButton*>(QStringLiteral("flaConfigDirSave"));
        QVERIFY(undo && undo->isEnabled() && save && save->isEnabled());
        undo->click();
        QCOMPARE(source.data(Qt::EditRole).toInt(), before);
        QVERIFY(!save->isEnabled());
    }

    // A config that did not compile for a launch of the key (planted in a copy of the capture: its variant loses its
    // binary) is not offered, and setData refuses it.
    void configWithoutBinaryIsRefused() {
        Json doc = readJsonFile(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")).toStdString());
        Json& variant = doc["kernels"][5]["launches"][0]["variants"][1];
        doc["binaries"].erase(variant["binary"].get<std::string>());
        variant["binary"] = nullptr;
        variant["compile_error"] = "out of resources: shared memory";
        doc["digest"]["value"] = flaCaptureDigest(doc);
        const QString parent = temp.filePath(QStringLiteral("planted"));
        QVERIFY(QDir().mkpath(parent));
        const QString manifest = QDir(parent).filePath(QStringLiteral("h100-gdr-fwd-T4096.json"));
        writeFileAtomic(manifest.toStdString(), dumpJson(doc, 1));
        const FlaCapture capture = readFlaCapture(manifest.toStdString());
        const std::string kernel = capture.kernels[5].kernel_name, key = capture.kernels[5].launches[0].key_hash;
        FlaChoices choices = capturedFlaChoices(capture);
        for (FlaChoice& c : choices.choices)
            if (c.kernel_name == kernel && c.key_hash == key && c.config == 1) c.config = 0;
        const QString folder = QDir(parent).filePath(QStringLiteral("dir"));
        exportFlaConfigDir(capture, choices, folder.toStdString());

        FlaConfigDirView view;
        QString error;
        QVERIFY2(view.openFolder(folder, &error), qPrintable(error));
        QVERIFY2(view.document()->canEdit(), qPrintable(view.editText()));
        FlaConfigDirModel* model = view.model();
        auto tester = test(model);
        for (int k = 0; k < model->kernelCount(); ++k)
            if (model->kernelName(k).toStdString() == kernel) model->setKernel(k);
        QCOMPARE(model->kernelName(model->kernel()).toStdString(), kernel);
        int row = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (cell(*model, r, FlaConfigDirModel::KeyHashColumn).toStdString() == key) row = r;
        QVERIFY(row >= 0);
        const QModelIndex index = model->index(row, model->section(FlaConfigDirModel::ConfigColumn));
        const QVariantList legal = index.data(FlaConfigDirModel::ChoicesRole).toList();
        QVERIFY(!legal.contains(QVariant(1)) && legal.size() == int(capture.kernels[5].configs.size()) - 1);
        QVERIFY(!model->setData(index, 1));
        QVERIFY(!view.document()->setChoice(kernel, key, 1));
        QCOMPARE(view.document()->undoStack()->count(), 0);
        QVERIFY(model->setData(index, legal.back()));
        QCOMPARE(index.data(Qt::EditRole), legal.back());
    }

    // A write that fails (a file-size limit below the files' size: works as root too) leaves every byte as it was.
    void failedSaveLeavesTheFolder() {
        const QString folder = freshFolder(QStringLiteral("failed-save"));
        FlaConfigDirDocument document;
        FlaConfigDirModel model;
        QString error;
        QVERIFY2(openAndEditOneEntry(folder, document, model, &error), qPrintable(error));
        const auto before = folderBytes(folder);
        struct rlimit saved {};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = saved;
        small.rlim_cur = 64;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
        const bool ok = document.save(&error);
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previousHandler);
        QVERIFY(!ok);
        QVERIFY2(error.contains(folder), qPrintable(error));
        QVERIFY(folderBytes(folder) == before);
        QVERIFY(document.isModified());
        QVERIFY(checkFlaConfigDir(folder.toStdString()).faults.empty());
    }

    void readOnlyFolderSaveFails() {
        if (::geteuid() == 0) QSKIP("running as root: a read-only folder does not stop root (failedSaveLeavesTheFolder covers a failed write)");
        const QString folder = freshFolder(QStringLiteral("read-only"));
        FlaConfigDirDocument document;
        FlaConfigDirModel model;
        QString error;
        QVERIFY2(openAndEditOneEntry(folder, document, model, &error), qPrintable(error));
        const auto before = folderBytes(folder);
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::ExeOwner);
        const bool ok = document.save(&error);
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(!ok);
        QVERIFY2(error.contains(folder), qPrintable(error));
        QVERIFY(folderBytes(folder) == before);
    }

private:
    // A folder of the scripted choices at <temp>/<name>/dir, with the capture beside it (<temp>/<name>/) unless not.
    QString freshFolder(const QString& name, bool captureBeside = true) {
        const QString parent = temp.filePath(name);
        QDir().mkpath(parent);
        if (captureBeside)
            QFile::copy(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")), QDir(parent).filePath(QStringLiteral("h100-gdr-fwd-T4096.json")));
        const QString dir = QDir(parent).filePath(QStringLiteral("dir"));
        const FlaCapture capture = readFlaCapture(captureData(QStringLiteral("h100-gdr-fwd-T4096.json")).toStdString());
        exportFlaConfigDir(capture,
                           readFlaChoices(captureData(QStringLiteral("choices/h100-gdr-fwd-T4096-scripted.json")).toStdString()),
                           dir.toStdString());
        return dir;
    }

    QTemporaryDir temp;
    QString captured, scripted, tampered, tamperedFile;
};

QTEST_MAIN(TestUiFlaConfigDir)
#include "tst_ui_fla_config_dir.moc"
