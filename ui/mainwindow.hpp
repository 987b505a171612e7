#pragma once
// The TuneScope main window: documents (profile, sweep results, cuBLASLt report), the pages over them, menus,
// recent files, drag and drop, sample profiles, unsaved-changes prompts and remembered settings.
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

class QAction;
class QDockWidget;
class QFileSystemWatcher;
class QLabel;
class QMenu;
class QTabWidget;
class QTreeView;

namespace tunescope::ui {

class CompareView;
class HeadToHeadView;
class ElidingLabel;
class CublasLtView;
class CublasLtPolicyView;
class CaptureSweepView;
class FlaConfigDirView;
class DiffView;
class JsonTreeModel;
class PlotsView;
class PolicyEditor;
class ProfileDocument;
class ResultsDocument;
class SweepView;
class ValidationPanel;

enum class DocumentKindHint { FlaConfig, TritonCache };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class Page { Policy, Plots, Sweep, CublasLt, Diff, Document, Compare, HeadToHead, CublasLtPolicy, CaptureSweep, FlaConfigDir };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a profile, a results file (.jsonl), a cuBLASLt report or an FLA_CONFIG_DIR (any folder, or the folder's
    // manifest), judged by its content; shows errors in a message box unless `quiet`, and returns false with the
    // message in lastError().
    bool openFile(const QString& path, bool quiet = false);
    bool openProfile(const QString& path, bool quiet = false);
    bool openResults(const QString& path, bool quiet = false);
    bool openReport(const QString& path, bool quiet = false);
    bool openCublasLtPolicy(const QString& path, bool quiet = false);
    bool openCaptureSweep(const QString& path, bool quiet = false);  // sweep --manifest's results file
    bool openFlaConfigDir(const QString& path, bool quiet = false);  // capture export-fla's folder, or its manifest
    // An FLA config file or a Triton autotune cache: imported into the open profile (one undo step), or made into
    // a new, unsaved profile when none is open (the core's import functions, as `import-fla` / `import-triton`).
    bool importFile(const QString& path, DocumentKindHint kind, bool quiet = false);
    bool save();
    bool saveAs(const QString& path);
    // Exports the FLA config-cache folder (config file + manifest) through the core; false with lastError().
    // Refuses a profile whose entries come from more than one GPU architecture unless allowMixedArchitectures (the
    // dialog asks).
    bool exportFla(const QString& dir, bool allowMixedArchitectures = false);
    // Asks to save unsaved edits; false when the user cancels.
    bool maybeSave();

    void showPage(Page page);
    // Shows the value a JSON Pointer names: the policy table cell, or the node in the document tree.
    void jumpToPointer(const QString& pointer);

    ProfileDocument* profileDocument() { return profile_; }
    ResultsDocument* resultsDocument() { return results_; }
    PolicyEditor* policyEditor() { return editor_; }
    ValidationPanel* validationPanel() { return validation_; }
    QDockWidget* validationDock() { return validationDock_; }
    PlotsView* plotsView() { return plots_; }
    SweepView* sweepView() { return sweep_; }
    CublasLtView* cublasLtView() { return cublasLt_; }
    CublasLtPolicyView* cublasLtPolicyView() { return cublasLtPolicy_; }
    CaptureSweepView* captureSweepView() { return captureSweep_; }
    FlaConfigDirView* flaConfigDirView() { return flaConfigDir_; }
    DiffView* diffView() { return diff_; }
    CompareView* compareView() { return compare_; }
    HeadToHeadView* headToHeadView() { return headToHead_; }
    QTreeView* documentTree() { return documentTree_; }
    QTabWidget* pages() { return pages_; }
    QString lastError() const { return lastError_; }
    QStringList recentFiles() const;
    QString signatureText() const;
    // Status messages go to a label that never widens the window: cut to fit with the full text in its tooltip,
    // and kept (with the time) in the message log (View > Message log). `log` false for hover texts.
    void showStatus(const QString& text, int timeoutMs = 8000, bool log = true);
    ElidingLabel* statusMessage() { return statusMessage_; }
    QLabel* statusValidation() { return statusValidation_; }
    QStringList messageLog() const { return messageLog_; }
    // The profile changed on disk: reload it when it has no unsaved edits, else ask (reload or keep the edits).
    // Also re-checks the signature. Public for tests; the file watcher calls it.
    void checkProfileOnDisk();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();
    void updateSignature();
    void refreshDocumentTree();
    void updateValidationCounts();
    void showMessageLog();
    void fail(const QString& title, const QString& message, bool quiet);
    bool requireSavedProfile(const QString& action);
    void openDialog();
    void saveAsDialog();
    void exportFlaDialog();
    void openFlaConfigDirDialog();
    // File watching: the open profile (and its signature) changed on disk.
    void watchProfile();
    void onWatchedFileChanged();
    QString geometryKey() const;

    ProfileDocument* profile_;
    ResultsDocument* results_;
    QTabWidget* pages_;
    PolicyEditor* editor_;
    PlotsView* plots_;
    SweepView* sweep_;
    CublasLtView* cublasLt_;
    CublasLtPolicyView* cublasLtPolicy_;
    CaptureSweepView* captureSweep_;
    FlaConfigDirView* flaConfigDir_;
    DiffView* diff_;
    CompareView* compare_;
    HeadToHeadView* headToHead_;
    QFileSystemWatcher* watcher_;
    QTimer watchTimer_;  // coalesces the bursts of change signals one save makes
    QByteArray watchedBytes_;  // the profile's bytes as last loaded, saved or reloaded: our own saves are no change
    bool reloadPromptOpen_ = false;
    QTreeView* documentTree_;
    JsonTreeModel* documentModel_;
    ValidationPanel* validation_;
    QDockWidget* validationDock_;
    QMenu* recentMenu_ = nullptr;
    ElidingLabel* statusMessage_;
    QTimer statusMessageTimer_;
    QStringList messageLog_;
    ElidingLabel* statusFile_;
    QLabel* statusSignature_;
    QLabel* statusValidation_;
    QTimer documentTreeTimer_;
    QString lastError_;
    QString signatureText_;
};

}  // namespace tunescope::ui
