#pragma once
// The FLA_CONFIG_DIR page: a folder that `tunescope-cli capture export-fla` wrote (docs/fla-capture.md, "The folder:
// validate, sign, lookup, diff"), checked as `tunescope-cli validate DIR` checks it (formats/fla_config_dir.hpp), with
// a kernel selector and the selected kernel's entries as a table (models/flaconfigdirmodel); optionally compared with
// a second folder, per key and in the manifest members the two disagree on.
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

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
    FlaConfigDirModel* model() { return model_; }
    QComboBox* kernelBox() { return kernels_; }
    QTableView* table() { return table_; }
    QString summaryText() const;
    QString comparisonText() const;

public slots:
    void openDialog();
    void compareDialog();

signals:
    void folderOpened(const QString& path);

private:
    void fillKernels();
    void showKernel(int kernel);
    void showComparison();

    QString path_, comparisonPath_;
    FlaConfigDirModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QLabel* comparison_;
    QPushButton* compare_;
    QPushButton* stopComparing_;
    QComboBox* kernels_;
    QTableView* table_;
};

}  // namespace tunescope::ui
