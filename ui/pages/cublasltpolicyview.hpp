#pragma once
// The cuBLASLt policy page: a policy made by `tunescope-cli export-cublaslt` (docs/cublaslt-policy.md) as a table of
// its entries (models/cublasltpolicymodel), what validation says of it (digest, rules) and whether a signature lies
// beside it, and the selected entry in full (algorithm bytes, tie set, environment, source report).
#include <optional>

#include <QWidget>

#include "tunescope/formats/cublaslt_policy.hpp"

class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace tunescope::ui {

class CublasLtPolicyModel;

class CublasLtPolicyView : public QWidget {
    Q_OBJECT
public:
    explicit CublasLtPolicyView(QWidget* parent = nullptr);

    // Loads and validates the policy (a file that does not load leaves the page as it was).
    bool openPolicy(const QString& path, QString* error);
    QString filePath() const { return path_; }
    CublasLtPolicyModel* model() { return model_; }
    QTableView* table() { return table_; }
    // Selects the row of policy entry `entry` (whatever the sort) and shows it in full below the table.
    void selectEntry(int entry);
    QString summaryText() const;
    QString detailsText() const;

public slots:
    void openDialog();

signals:
    void policyOpened(const QString& path);

private:
    void showEntry(int row);

    QString path_;
    CublasLtPolicyModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* summary_;
    QPlainTextEdit* details_;
};

}  // namespace tunescope::ui
