// The main window as a user drives it: open by content (profile, results, report), edit + save + reopen, export
// the FLA config cache and reopen its manifest, report export keeps bytes, recent files, drag and drop, errors
// that name the file, and signing (keygen, sign, verify on open, tampering detected).
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTimer>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include "../bench/ui_open/synthetic_results.hpp"  // shared with bench_ui_open, outside ui/
#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"
#include "mainwindow.hpp"
#include "models/policytablemodel.hpp"
#include "pages/cublasltview.hpp"
#include "pages/policyeditor.hpp"
#include "signingactions.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/validation.hpp"

using namespace tunescope;
using namespace tunescope::ui;

namespace {

QString sample(const char* name) {
    return QDir(qEnvironmentVariable("TUNESCOPE_PROFILES")).filePath(QString::fromLatin1(name));
}

QByteArray bytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestUiMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TuneScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui_mainwindow"));
        QSettings().clear();
        QVERIFY(dir.isValid());
        profilePath = dir.filePath(QStringLiteral("seed.json"));
        QVERIFY(QFile::copy(sample("fla-l2norm-gfx942-profile.json"), profilePath));
        QFile::setPermissions(profilePath, QFile::ReadOwner | QFile::WriteOwner);
    }

    void opensEachKindByContent() {
        MainWindow window;
        QVERIFY2(window.openFile(profilePath, true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::Policy));
        QCOMPARE(window.policyEditor()->model()->rowCount(), 32);
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("seed.json")));

        const QString results = dir.filePath(QStringLiteral("r.jsonl"));
        synthetic::writeSyntheticResults(results.toStdString(), 3, 4);
        QVERIFY2(window.openFile(results, true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::Plots));
        QCOMPARE(window.resultsDocument()->index().nbs().size(), std::size_t(3));

        QVERIFY2(window.openFile(sample("cublaslt-gb10-nvfp4-fc2-report.json"), true), qPrintable(window.lastError()));
        QCOMPARE(window.pages()->currentIndex(), int(MainWindow::Page::CublasLt));
        QVERIFY(window.cublasLtView()->hasReport());

        const QStringList recent = window.recentFiles();
        QCOMPARE(recent.value(0), QFileInfo(sample("cublaslt-gb10-nvfp4-fc2-report.json")).absoluteFilePath());
        QVERIFY(recent.contains(QFileInfo(results).absoluteFilePath()));
        QVERIFY(recent.contains(QFileInfo(profilePath).absoluteFilePath()));
    }

    void badFilesGiveMessagesNamingThem() {
        MainWindow window;
        QVERIFY(!window.openFile(dir.filePath(QStringLiteral("missing.json")), true));
        QVERIFY(window.lastError().contains(QStringLiteral("missing.json")));
        QVERIFY(!window.openFile(dir.path(), true));
        QVERIFY(window.lastError().contains(QStringLiteral("folder")));
        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"decision-fla-l2norm-profile-v1\",\n \"status\": }");
        file.close();
        QVERIFY(!window.openFile(broken, true));
        QVERIFY2(window.lastError().contains(QStringLiteral("broken.json")) && window.lastError().contains(QStringLiteral("line 2")),
                 qPrintable(window.lastError()));
        QVERIFY(!window.profileDocument()->hasProfile());
    }

    void editSaveReopen() {
        const QString path = dir.filePath(QStringLiteral("edited.json"));
        QVERIFY(QFile::copy(profilePath, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        {
            MainWindow window;
            QVERIFY(window.openProfile(path, true));
            PolicyTableModel* model = window.policyEditor()->model();
            QVERIFY(model->setData(model->index(20, PolicyTableModel::WarpsColumn), 4));
            QVERIFY(window.windowTitle().contains(QLatin1Char('*')));
            QVERIFY(window.save());
            QVERIFY(!window.windowTitle().contains(QLatin1Char('*')));
        }
        MainWindow reopened;
        QVERIFY(reopened.openProfile(path, true));
        QCOMPARE(reopened.policyEditor()->model()->index(20, PolicyTableModel::WarpsColumn).data().toInt(), 4);
        QCOMPARE(reopened.policyEditor()->model()->index(20, PolicyTableModel::BasisColumn).data().toString(),
                 PolicyTableModel::manualEditBasis());
        QVERIFY(!reopened.profileDocument()->isModified());
    }

    void exportFlaAndReopenManifest() {
        MainWindow window;
        QVERIFY(window.openProfile(profilePath, true));
        const QString out = dir.filePath(QStringLiteral("fla-export"));
        QVERIFY2(window.exportFla(out), qPrintable(window.lastError()));
        const QString config = QDir(out).filePath(QStringLiteral("l2norm_fwd_kernel.json"));
        const QString manifest = QDir(out).filePath(QStringLiteral("seed.json"));
        QVERIFY(QFile::exists(config));
        QVERIFY(QFile::exists(manifest));
        // The config file reads back with an entry per NB, keyed by FLA's hash.
        const FlaConfigFile fla = loadFlaConfig(config.toStdString());
        QCOMPARE(fla.entries.size(), std::size_t(32));
        QVERIFY(std::any_of(fla.entries.begin(), fla.entries.end(),
                            [](const FlaConfigEntry& e) { return e.hash == "878a9638751a7375a0fb15d3a7767659"; }));
        // The manifest opens in the app; its files[] digest matches the file written, so it validates clean of
        // file problems.
        MainWindow reopened;
        QVERIFY2(reopened.openFile(manifest, true), qPrintable(reopened.lastError()));
        const Profile& profile = reopened.profileDocument()->profile();
        QCOMPARE(profile.per_NB_policy.size(), std::size_t(32));
        QCOMPARE(profile.files.front().sha256, sha256FileHex(config.toStdString()));
        const ValidationResult result = validateFile(manifest.toStdString());
        QVERIFY(result.valid());
        for (const Diagnostic& d : result.diagnostics) QVERIFY2(d.rule.rfind("files", 0) != 0, formatDiagnostic(d).c_str());
        // A folder that cannot be created fails with a message.
        QVERIFY(!window.exportFla(profilePath + QStringLiteral("/sub")));
        QVERIFY(!window.lastError().isEmpty());
    }

    void importFlaConfigIsOneUndoStep() {
        // An FLA config file exported from a profile whose NB 20 differs from the seed's.
        Profile changed = loadProfile(profilePath.toStdString());
        TritonConfig config = changed.policyFor(20)->config;
        config.num_warps = 2;
        config.BT = 16;
        changed.setPolicy(20, config, "prospective-test");
        const QString out = dir.filePath(QStringLiteral("fla-import"));
        exportFla(changed, out.toStdString());
        MainWindow window;
        QVERIFY(window.openProfile(profilePath, true));
        QVERIFY2(window.openFile(QDir(out).filePath(QStringLiteral("l2norm_fwd_kernel.json")), true), qPrintable(window.lastError()));
        const PolicyEntry* imported = window.profileDocument()->entry(20);
        QCOMPARE(imported->config.num_warps, 2);
        QCOMPARE(QString::fromStdString(imported->basis), QStringLiteral("imported-fla-config"));
        QCOMPARE(window.profileDocument()->undoStack()->count(), 1);
        QVERIFY(window.policyEditor()->model()->index(19, PolicyTableModel::WarpsColumn).data(PolicyTableModel::ChangedOnDiskRole).toBool());
        window.profileDocument()->undoStack()->undo();
        QCOMPARE(window.profileDocument()->entry(20)->config.num_warps, 8);
        QVERIFY(!window.profileDocument()->isModified());
        // With no profile open, the file becomes a new, unsaved profile.
        MainWindow empty;
        QVERIFY(empty.openFile(QDir(out).filePath(QStringLiteral("l2norm_fwd_kernel.json")), true));
        QVERIFY(empty.profileDocument()->hasProfile());
        QVERIFY(empty.profileDocument()->isModified());
        QCOMPARE(empty.profileDocument()->entry(20)->config.num_warps, 2);
    }

    void reportExportKeepsBytes() {
        CublasLtView view;
        QString error;
        QVERIFY(view.openReport(sample("cublaslt-gb10-nvfp4-fc2-report.json"), &error));
        const QString out = dir.filePath(QStringLiteral("report-copy.json"));
        QVERIFY2(view.exportReport(out, &error), qPrintable(error));
        QCOMPARE(bytes(out), bytes(sample("cublaslt-gb10-nvfp4-fc2-report.json")));
        QVERIFY(view.openReport(out, &error));
    }

    void unsavedChangesPrompt() {
        const QString path = dir.filePath(QStringLiteral("prompt.json"));
        QVERIFY(QFile::copy(profilePath, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        MainWindow window;
        window.show();
        QVERIFY(window.openProfile(path, true));
        PolicyTableModel* model = window.policyEditor()->model();
        QVERIFY(model->setData(model->index(3, PolicyTableModel::WarpsColumn), 2));
        // Answer the prompt the way a user would, by pressing one of its buttons.
        auto answer = [](QMessageBox::StandardButton button) {
            QTimer::singleShot(0, [button] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                QVERIFY(box->text().contains(QStringLiteral("prompt.json")));
                box->button(button)->click();
            });
        };
        answer(QMessageBox::Cancel);
        QVERIFY(!window.close());  // cancelled: the window stays, the edit too
        QVERIFY(window.profileDocument()->isModified());
        answer(QMessageBox::Save);
        QVERIFY(window.close());
        QVERIFY(!window.profileDocument()->isModified());
        MainWindow reopened;
        QVERIFY(reopened.openProfile(path, true));
        QCOMPARE(reopened.policyEditor()->model()->index(3, PolicyTableModel::WarpsColumn).data().toInt(), 2);
        // Discard: the edit is dropped, the file stays as saved.
        QVERIFY(reopened.policyEditor()->model()->setData(reopened.policyEditor()->model()->index(3, PolicyTableModel::WarpsColumn), 4));
        answer(QMessageBox::Discard);
        QVERIFY(reopened.close());
        QCOMPARE(loadProfile(path.toStdString()).policyFor(4)->config.num_warps, 2);
    }

    void dragAndDropOpens() {
        MainWindow window;
        window.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(profilePath)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(window.profileDocument()->hasProfile());
        QCOMPARE(window.profileDocument()->filePath(), profilePath);
    }

    void signVerifyOnOpenAndTamper() {
        const QString signedPath = dir.filePath(QStringLiteral("signed.json"));
        QVERIFY(QFile::copy(profilePath, signedPath));
        QFile::setPermissions(signedPath, QFile::ReadOwner | QFile::WriteOwner);
        QString error;
        const QString keyBase = dir.filePath(QStringLiteral("alice"));
        const QString keyId = generateKeys(keyBase, QStringLiteral("correct horse"), &error);
        QVERIFY2(!keyId.isEmpty(), qPrintable(error));
        QVERIFY(privateKeyIsEncrypted(keyBase + QStringLiteral(".pem")));
        QVERIFY(signProfileWithKey(signedPath, keyBase + QStringLiteral(".pem"), QStringLiteral("wrong"), &error).isEmpty());
        QVERIFY(!error.isEmpty());
        QVERIFY2(!signProfileWithKey(signedPath, keyBase + QStringLiteral(".pem"), QStringLiteral("correct horse"), &error).isEmpty(),
                 qPrintable(error));

        setTrustedPublicKeys({});
        {
            MainWindow window;
            QVERIFY(window.openProfile(signedPath, true));
            QVERIFY2(window.signatureText().contains(keyId) && window.signatureText().contains(QStringLiteral("not among")),
                     qPrintable(window.signatureText()));
        }
        setTrustedPublicKeys({keyBase + QStringLiteral(".pub.pem")});
        {
            MainWindow window;
            QVERIFY(window.openProfile(signedPath, true));
            QVERIFY2(window.signatureText().contains(QStringLiteral("holds")), qPrintable(window.signatureText()));
            QVERIFY(window.policyEditor()->signatureBanner()->isVisibleTo(&window));
            // An edit saved through the app changes a value: the signature no longer holds.
            PolicyTableModel* model = window.policyEditor()->model();
            QVERIFY(model->setData(model->index(25, PolicyTableModel::BtColumn), 64));
            QVERIFY(window.save());
            QVERIFY2(window.signatureText().contains(QStringLiteral("does NOT hold")), qPrintable(window.signatureText()));
        }
        QVERIFY(hashReport(signedPath).contains(QString::fromStdString(sha256FileHex(signedPath.toStdString()))));
        setTrustedPublicKeys({});
    }

    // A signed profile edited on disk by another program: the banner says "does NOT hold"; once the file is
    // restored, the watcher's re-check turns it back into "holds" (issue 14, item 7).
    void signatureHoldsAgainAfterRestore() {
        const QString path = dir.filePath(QStringLiteral("watched-signed.json"));
        QVERIFY(QFile::copy(profilePath, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        QString error;
        const QString keyBase = dir.filePath(QStringLiteral("bob"));
        QVERIFY2(!generateKeys(keyBase, QString(), &error).isEmpty(), qPrintable(error));
        QVERIFY2(!signProfileWithKey(path, keyBase + QStringLiteral(".pem"), QString(), &error).isEmpty(), qPrintable(error));
        setTrustedPublicKeys({keyBase + QStringLiteral(".pub.pem")});
        const QByteArray original = bytes(path);
        MainWindow window;
        QVERIFY(window.openProfile(path, true));
        QLabel* banner = window.policyEditor()->signatureBanner();
        QVERIFY2(banner->text().contains(QStringLiteral("holds")) && !banner->text().contains(QStringLiteral("NOT")),
                 qPrintable(banner->text()));

        // Another program changes one value and saves.
        Profile edited = loadProfile(path.toStdString());
        edited.per_NB_policy[5].config.num_warps = edited.per_NB_policy[5].config.num_warps == 2 ? 4 : 2;
        saveProfile(edited, path.toStdString());
        QTRY_VERIFY_WITH_TIMEOUT(banner->text().contains(QStringLiteral("does NOT hold")), 5000);
        QVERIFY(window.signatureText().contains(QStringLiteral("does NOT hold")));
        QCOMPARE(window.policyEditor()->model()->index(5, PolicyTableModel::WarpsColumn).data().toInt(),
                 edited.per_NB_policy[5].config.num_warps);

        // Restored byte for byte (as `git checkout` would): the signature holds again, the table shows the original.
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(original);
        file.close();
        QTRY_VERIFY_WITH_TIMEOUT(!banner->text().contains(QStringLiteral("NOT")) && banner->text().contains(QStringLiteral("holds")), 5000);
        QVERIFY2(window.signatureText().contains(QStringLiteral("holds")) && !window.signatureText().contains(QStringLiteral("NOT")),
                 qPrintable(window.signatureText()));
        QVERIFY(window.findChild<QLabel*>(QStringLiteral("statusSignature"))->text().contains(QStringLiteral("valid")));
        QCOMPARE(bytes(path), original);
        QVERIFY(!window.profileDocument()->isModified());
        setTrustedPublicKeys({});
    }

private:
    QTemporaryDir dir;
    QString profilePath;
};

QTEST_MAIN(TestUiMainWindow)
#include "tst_ui_mainwindow.moc"
