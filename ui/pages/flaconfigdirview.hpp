#pragma once
// The FLA_CONFIG_DIR page: a folder that `tunescope-cli capture export-fla` wrote (docs/fla-capture.md, "The folder:
// validate, sign, lookup, diff"), checked as `tunescope-cli validate DIR` checks it (formats/fla_config_dir.hpp), with
// a kernel selector and the selected kernel's entries as a table (models/flaconfigdirmodel); optionally compared with
// a second folder, per key and in the manifest members the two disagree on.
//
// An editor too (documents/flaconfigdirdocument) when the folder's capture is found beside it or attached: the
// config column offers the configs the capture lets each key choose (widgets/flaconfigdelegate), every pick is one
// step of the page's undo stack (its Undo and Redo buttons: the window's Ctrl+Z and Ctrl+S belong to the profile),
// and Save folder writes the folder again with choices source "edited".
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

class FlaConfigDirDocument;
class FlaConfigDirModel;

class FlaConfigDirView : public QWidget {
    Q_OBJECT
public:
    explicit FlaConfigDirView(QWidget* parent = nullptr);

    // Checks and reads the folder (or its manifest file); one that is refused leaves the page as it was and
    // `error` holds every fault as "file: at /pointer: message".
    bool openFolder(const QString& path, QString* error);
    // Compares the open folder with another one (checked the same way); a refused one leaves the comparison as it was.
    bool compareWith(const QString& path, QString* error);
    void stopComparing();
    QString folderPath() const { return path_; }
    QString comparisonPath() const { return comparisonPath_; }
    // Attaches the folder's capture by hand (FlaConfigDirDocument::attachCapture); editing turns on.
    bool attachCapture(const QString& manifest, QString* error);
    // Writes the edits into the folder (FlaConfigDirDocument::save); on failure the folder is as it was.
    bool save(QString* error);
    // With unsaved edits, asks whether to save them (Save, Discard, Cancel); false: the user cancelled, or the save
    // failed. Whoever opens another folder or closes the window asks first.
    bool confirmDiscard();
    FlaConfigDirDocument* document() { return document_; }
    FlaConfigDirModel* model() { return model_; }
    QComboBox* kernelBox() { return kernels_; }
    QTableView* table() { return table_; }
    QString summaryText() const;
    QString comparisonText() const;
    // Whether editing is on (and with which capture) or why not, unsaved changes, a signature the save outdated.
    QString editText() const;

public slots:
    void openDialog();
    void compareDialog();
    void attachDialog();
    void saveClicked();

signals:
    void folderOpened(const QString& path);

private:
    void fillKernels();
    void showKernel(int kernel);
    void showComparison();
    void showSummary();
    void showEditState();

    QString path_, comparisonPath_;
    QStringList warnings_;
    FlaConfigDirDocument* document_;
    FlaConfigDirModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QLabel* comparison_;
    QLabel* edit_;
    QPushButton* attach_;
    QPushButton* save_;
    QPushButton* undo_;
    QPushButton* redo_;
    QPushButton* compare_;
    QPushButton* stopComparing_;
    QComboBox* kernels_;
    QTableView* table_;
};

}  // namespace tunescope::ui
