// The policy editor's document and table model on the seed profile: model sanity, legal-only edits, undo/redo,
// changed-vs-disk marks, apply-to-selected, JSON Pointer <-> cell, saves (atomic, lossless).
#include <csignal>

#include <sys/resource.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "documents/profiledocument.hpp"
#include "models/policytablemodel.hpp"
#include "tunescope/base/json_io.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

QString seedProfile() {
    return QDir(qEnvironmentVariable("TUNESCOPE_PROFILES")).filePath(QStringLiteral("fla-l2norm-gfx942-profile.json"));
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll();
}

}  // namespace

class TestUiPolicy : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QVERIFY(dir.isValid());
        copy = dir.filePath(QStringLiteral("profile.json"));
        QFile::remove(copy);
        QVERIFY(QFile::copy(seedProfile(), copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        document = std::make_unique<ProfileDocument>();
        QString error;
        QVERIFY2(document->load(copy, &error), qPrintable(error));
        model = std::make_unique<PolicyTableModel>(document.get());
        tester = std::make_unique<QAbstractItemModelTester>(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }
    void cleanup() {
        tester.reset();
        model.reset();
        document.reset();
    }

    void seedRows() {
        QCOMPARE(model->rowCount(), 32);
        QCOMPARE(model->columnCount(), int(PolicyTableModel::kProfileColumns));
        QCOMPARE(model->index(0, PolicyTableModel::NbColumn).data().toInt(), 1);
        QCOMPARE(model->index(0, PolicyTableModel::BtColumn).data().toInt(), 32);
        QCOMPARE(model->index(0, PolicyTableModel::WarpsColumn).data().toInt(), 8);
        QCOMPARE(model->index(1, PolicyTableModel::WarpsColumn).data().toInt(), 1);
        QCOMPARE(model->index(13, PolicyTableModel::BasisColumn).data().toString(),
                 QStringLiteral("prospective-fixed-original-NB18-setting"));
        QVERIFY(!model->index(0, PolicyTableModel::BtColumn).data(PolicyTableModel::ChangedOnDiskRole).toBool());
        QVERIFY(!document->isModified());
    }

    void offersOnlyLegalValuesForAmd() {
        // gfx942: num_warps up to 16, num_ctas fixed at 1, maxnreg fixed at null.
        const QVariantList warps = model->index(0, PolicyTableModel::WarpsColumn).data(PolicyTableModel::ChoicesRole).toList();
        QCOMPARE(warps, (QVariantList{1, 2, 4, 8, 16}));
        QVERIFY(!(model->flags(model->index(0, PolicyTableModel::CtasColumn)) & Qt::ItemIsEditable));
        QVERIFY(!(model->flags(model->index(0, PolicyTableModel::MaxnregColumn)) & Qt::ItemIsEditable));
        QVERIFY(!model->setData(model->index(0, PolicyTableModel::WarpsColumn), 32));  // legal on NVIDIA only
        QVERIFY(!model->setData(model->index(0, PolicyTableModel::BtColumn), 48));
        QVERIFY(!document->isModified());
        QCOMPARE(document->undoStack()->count(), 0);
    }

    void editUndoRedo() {
        QSignalSpy changed(model.get(), &QAbstractItemModel::dataChanged);
        const QModelIndex warps = model->index(4, PolicyTableModel::WarpsColumn);  // NB 5: w16, original
        QCOMPARE(warps.data().toInt(), 16);
        QVERIFY(model->setData(warps, 4));
        QCOMPARE(warps.data().toInt(), 4);
        QVERIFY(changed.count() >= 1);
        QVERIFY(document->isModified());
        QVERIFY(warps.data(PolicyTableModel::ChangedOnDiskRole).toBool());
        QVERIFY(warps.data(Qt::ToolTipRole).toString().contains(QStringLiteral("on disk: 16")));
        // A hand-edited config is no longer production's choice.
        QCOMPARE(model->index(4, PolicyTableModel::BasisColumn).data().toString(), PolicyTableModel::manualEditBasis());
        QCOMPARE(document->profile().policyFor(5)->config.num_warps, 4);

        document->undoStack()->undo();
        QCOMPARE(warps.data().toInt(), 16);
        QCOMPARE(model->index(4, PolicyTableModel::BasisColumn).data().toString(),
                 QStringLiteral("original-production-chosen"));
        QVERIFY(!warps.data(PolicyTableModel::ChangedOnDiskRole).toBool());
        QVERIFY(!document->isModified());

        document->undoStack()->redo();
        QCOMPARE(warps.data().toInt(), 4);
        QVERIFY(document->isModified());
        QCOMPARE(document->undoStack()->undoText(), QStringLiteral("Set num_warps of NB 5 to 4"));
    }

    void applyConfigToSelectedIsOneUndoStep() {
        const QList<int> rows{13, 14, 15, 16};  // NB 14..17, prospective
        QVERIFY(model->applyConfigOfRow(1, rows));  // NB 2: BT16 w1
        QCOMPARE(document->undoStack()->count(), 1);
        for (int row : rows) {
            QCOMPARE(model->index(row, PolicyTableModel::BtColumn).data().toInt(), 16);
            QCOMPARE(model->index(row, PolicyTableModel::WarpsColumn).data().toInt(), 1);
        }
        document->undoStack()->undo();
        for (int row : rows) QCOMPARE(model->index(row, PolicyTableModel::WarpsColumn).data().toInt(), 8);
        QVERIFY(!document->isModified());
    }

    void pointerToCellAndBack() {
        const QModelIndex cell = model->indexForPointer(QStringLiteral("/per_NB_policy/13/config/num_warps"));
        QVERIFY(cell.isValid());
        QCOMPARE(cell.row(), 13);
        QCOMPARE(cell.column(), int(PolicyTableModel::WarpsColumn));
        QCOMPARE(model->pointerForIndex(cell), QStringLiteral("/per_NB_policy/13/config/num_warps"));
        QCOMPARE(model->indexForPointer(QStringLiteral("/per_NB_policy/2/config/kwargs/BT")).column(),
                 int(PolicyTableModel::BtColumn));
        QCOMPARE(model->indexForPointer(QStringLiteral("/per_NB_policy/7")).column(), int(PolicyTableModel::NbColumn));
        QVERIFY(!model->indexForPointer(QStringLiteral("/supported/NB_max")).isValid());
        QVERIFY(!model->indexForPointer(QStringLiteral("/per_NB_policy/99/basis")).isValid());
    }

    void unchangedSaveKeepsBytes() {
        const QByteArray before = readAll(copy);
        QString error;
        QVERIFY2(document->save(&error), qPrintable(error));
        QCOMPARE(readAll(copy), before);
    }

    void saveWritesEditAndClearsMarks() {
        QVERIFY(model->setData(model->index(0, PolicyTableModel::BtColumn), 64));
        QString error;
        QVERIFY2(document->save(&error), qPrintable(error));
        QVERIFY(!document->isModified());
        QVERIFY(!model->index(0, PolicyTableModel::BtColumn).data(PolicyTableModel::ChangedOnDiskRole).toBool());
        const Json saved = readJsonFile(copy.toStdString());
        QCOMPARE(saved["per_NB_policy"][0]["config"]["kwargs"]["BT"].get<int>(), 64);
        QCOMPARE(QString::fromStdString(saved["per_NB_policy"][0]["basis"].get<std::string>()),
                 PolicyTableModel::manualEditBasis());
        // Undo after saving makes the document differ from disk again.
        document->undoStack()->undo();
        QVERIFY(document->isModified());
        QVERIFY(model->index(0, PolicyTableModel::BtColumn).data(PolicyTableModel::ChangedOnDiskRole).toBool());
    }

    void failedSaveLeavesFileAndStateAlone() {
        const QByteArray before = readAll(copy);
        QVERIFY(model->setData(model->index(2, PolicyTableModel::BtColumn), 128));
        // Files may not grow past 4 KiB: writing the ~20 KiB temp file fails midway (EFBIG, even as root), so the
        // atomic save must fail, remove its temp file, and leave the old file as it was.
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
        rlimit tiny = saved;
        tiny.rlim_cur = 4096;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &tiny), 0);
        QString error;
        const bool ok = document->save(&error);
        setrlimit(RLIMIT_FSIZE, &saved);
        QVERIFY(!ok);
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(QFileInfo(copy).fileName()), qPrintable(error));
        QCOMPARE(readAll(copy), before);
        QVERIFY(document->isModified());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temp file left behind
    }

    void loadErrorNamesFileAndKeepsDocument() {
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"decision-fla-l2norm-profile-v1\", \"per_NB_policy\": [ {\"NB\": \"x\"} ]}");
        file.close();
        QString error;
        QVERIFY(!document->load(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("bad.json")), qPrintable(error));
        QCOMPARE(document->filePath(), copy);
        QCOMPARE(model->rowCount(), 32);
        QVERIFY(!document->load(dir.path(), &error));  // a folder
        QVERIFY(!error.isEmpty());
    }

private:
    QTemporaryDir dir;
    QString copy;
    std::unique_ptr<ProfileDocument> document;
    std::unique_ptr<PolicyTableModel> model;
    std::unique_ptr<QAbstractItemModelTester> tester;
};

QTEST_MAIN(TestUiPolicy)
#include "tst_ui_policy.moc"
