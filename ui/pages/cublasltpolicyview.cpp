#include "pages/cublasltpolicyview.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/cublasltpolicymodel.hpp"
#include "tunescope/formats/signing.hpp"
#include "tunescope/formats/validation.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {

CublasLtPolicyView::CublasLtPolicyView(QWidget* parent)
    : QWidget(parent), model_(new CublasLtPolicyModel(this)), proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)), summary_(new QLabel(this)), details_(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("cublasLtPolicyView"));
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(CublasLtPolicyModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the file's order until a header is clicked
    proxy_->sort(-1);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    installCopyAsCsv(table_);
    details_->setReadOnly(true);
    details_->setLineWrapMode(QPlainTextEdit::NoWrap);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(tr("No cuBLASLt policy open. Make one with tunescope-cli export-cublaslt REPORT... --out "
                         "policy.json, then File > Open."));

    auto* open = new QPushButton(tr("Open policy..."), this);
    connect(open, &QPushButton::clicked, this, &CublasLtPolicyView::openDialog);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(open, 0, Qt::AlignTop);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(details_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showEntry(current.isValid() ? proxy_->mapToSource(current).row() : -1); });
}

bool CublasLtPolicyView::openPolicy(const QString& path, QString* error) {
    CublasLtPolicy policy;
    ValidationResult check;
    try {
        policy = loadCublasLtPolicy(path.toStdString());
        check = validateCublasLtPolicyJson(toJson(policy), path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    path_ = path;
    model_->setPolicy(std::move(policy));
    const SignatureStatus signature = inspectProfileSignature(path.toStdString());
    QString text = tr("%1: %2 entries; %3 errors, %4 warnings")
                       .arg(path)
                       .arg(model_->rowCount())
                       .arg(check.count(Severity::Error))
                       .arg(check.count(Severity::Warning));
    for (const Diagnostic& d : check.diagnostics)
        if (d.severity != Severity::Info) text += QStringLiteral("\n") + QString::fromStdString(formatDiagnostic(d));
    text += signature.signatureFound
                ? tr("\nSignature %1 found (claims key id %2); check it with Signing > Verify or tunescope-cli verify.")
                      .arg(QString::fromStdString(signature.signatureFile.filename().string()),
                           signature.claimedKeyIds.empty() ? tr("none") : QString::fromStdString(signature.claimedKeyIds.front()))
                : tr("\nNot signed (no %1 beside it).").arg(QString::fromStdString(signature.signatureFile.filename().string()));
    summary_->setText(text);
    table_->resizeColumnsToContents();
    selectEntry(model_->rowCount() > 0 ? proxy_->mapToSource(proxy_->index(0, 0)).row() : -1);
    emit policyOpened(path);
    return true;
}

void CublasLtPolicyView::selectEntry(int entry) {
    const QModelIndex at = proxy_->mapFromSource(model_->index(entry, 0));
    if (at.isValid()) table_->selectRow(at.row());
    showEntry(entry);
}

void CublasLtPolicyView::showEntry(int row) {
    const auto& entries = model_->policy().entries;
    if (row < 0 || row >= int(entries.size())) {
        details_->clear();
        return;
    }
    const LtPolicyEntry& e = entries[std::size_t(row)];
    QString text = tr("Entry %1: %2\n").arg(row).arg(QString::fromStdString(describe(e.matmul)));
    if (e.ties && e.ties->members.size() > 1) {
        text += tr("Tie set (%1 members; rule: %2)\n").arg(e.ties->members.size()).arg(QString::fromStdString(e.ties->rule));
        for (const LtTieMember& m : e.ties->members)
            text += QStringLiteral("  %1%2\n")
                        .arg(QString::fromStdString(describe(m.attributes)),
                             m.gain_percent ? tr(": %1%%2").arg(*m.gain_percent, 0, 'f', 2).arg(m.cleared ? tr(", cleared") : QString())
                                            : QString());
    }
    text += QStringLiteral("\n") + QString::fromStdString(dumpJson(toJson(e), 2));
    details_->setPlainText(text);
}

QString CublasLtPolicyView::summaryText() const { return summary_->text(); }
QString CublasLtPolicyView::detailsText() const { return details_->toPlainText(); }

void CublasLtPolicyView::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open cuBLASLt policy"), QString(), tr("Policies (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openPolicy(path, &error)) summary_->setText(tr("Could not open %1: %2").arg(path, error));
}

}  // namespace tunescope::ui
