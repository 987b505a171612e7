#include "pages/validationpanel.hpp"

#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "documents/profiledocument.hpp"
#include "models/validationmodel.hpp"

namespace tunescope::ui {

ValidationPanel::ValidationPanel(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new ValidationModel(this)), view_(new QTableView(this)),
      summary_(new QLabel(this)), details_(new QLabel(this)) {
    setObjectName(QStringLiteral("validationPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_->setObjectName(QStringLiteral("validationSummary"));
    summary_->setTextFormat(Qt::PlainText);
    layout->addWidget(summary_);
    view_->setObjectName(QStringLiteral("validationView"));
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->setWordWrap(false);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setToolTip(tr("Double-click (or press Enter on) a diagnostic to jump to the value it names"));
    layout->addWidget(view_, 1);
    details_->setObjectName(QStringLiteral("validationDetails"));
    details_->setTextFormat(Qt::PlainText);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setVisible(false);
    layout->addWidget(details_);
    connect(view_, &QTableView::activated, this, &ValidationPanel::activate);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        const Diagnostic* d = model_->diagnostic(current.row());
        details_->setText(d ? QString::fromStdString(formatDiagnostic(*d)) : QString());
        details_->setVisible(d != nullptr);
    });
    connect(model_, &QAbstractItemModel::modelReset, details_, [this] {
        details_->clear();
        details_->setVisible(false);
    });

    debounce_.setSingleShot(true);
    debounce_.setInterval(150);
    connect(&debounce_, &QTimer::timeout, this, &ValidationPanel::revalidate);
    connect(document, &ProfileDocument::reset, this, &ValidationPanel::revalidate);
    connect(document, &ProfileDocument::entriesChanged, this, &ValidationPanel::scheduleRevalidate);
    connect(document, &ProfileDocument::saved, this, &ValidationPanel::scheduleRevalidate);
    revalidate();
}

void ValidationPanel::scheduleRevalidate() { debounce_.start(); }

void ValidationPanel::revalidate() {
    debounce_.stop();
    if (!document_ || !document_->hasProfile()) {
        model_->setResult({});
        counts_.clear();
        summary_->setText(tr("No profile open."));
        emit summaryChanged(summary_->text());
        return;
    }
    ValidationOptions options;
    // files[] are checked against the folder the profile lives in; an unsaved profile has none yet.
    if (!document_->filePath().isEmpty())
        options.baseDir = QFileInfo(document_->filePath()).absolutePath().toStdString();
    ValidationResult result;
    try {
        result = validateProfile(document_->profile(), options);
    } catch (const std::exception& e) {
        result.diagnostics.push_back({Severity::Error, "validator", "", e.what()});
    }
    const std::size_t errors = result.count(Severity::Error);
    const std::size_t warnings = result.count(Severity::Warning);
    const std::size_t infos = result.count(Severity::Info);
    model_->setResult(std::move(result));
    view_->resizeColumnsToContents();
    auto count = [](std::size_t n, const QString& one, const QString& many) -> QString {
        return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many);
    };
    counts_ = count(errors, tr("error"), tr("errors")) + QStringLiteral(", ") + count(warnings, tr("warning"), tr("warnings")) +
              (infos > 0 ? QStringLiteral(", ") + count(infos, tr("info"), tr("infos")) : QString());
    summary_->setText((errors == 0 ? tr("Valid: ") : tr("Invalid: ")) + counts_ +
                      tr(". Double-click a row to jump to its value."));
    emit summaryChanged(summary_->text());
}

QString ValidationPanel::summaryText() const { return summary_->text(); }

void ValidationPanel::activate(const QModelIndex& index) {
    if (!index.isValid()) return;
    emit jumpRequested(index.data(ValidationModel::PointerRole).toString());
}

}  // namespace tunescope::ui
