#include "pages/diffview.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "documents/profiledocument.hpp"
#include "models/diffmodel.hpp"

namespace tunescope::ui {

DiffView::DiffView(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new DiffModel(this)), view_(new QTableView(this)),
      other_(new QListWidget(this)), title_(new QLabel(this)) {
    setObjectName(QStringLiteral("diffView"));
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    auto* leftFile = new QPushButton(tr("Left: file..."), this);
    auto* leftDisk = new QPushButton(tr("Left: on disk"), this);
    auto* rightFile = new QPushButton(tr("Right: file..."), this);
    auto* rightEditor = new QPushButton(tr("Right: editor"), this);
    leftDisk->setToolTip(tr("The open profile as it is saved on disk"));
    rightEditor->setToolTip(tr("The open profile with its unsaved edits"));
    for (auto* button : {leftFile, leftDisk, rightFile, rightEditor}) buttons->addWidget(button);
    buttons->addStretch();
    layout->addLayout(buttons);
    title_->setObjectName(QStringLiteral("diffTitle"));
    title_->setWordWrap(true);
    layout->addWidget(title_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    view_->setObjectName(QStringLiteral("diffTable"));
    view_->setModel(model_);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setAlternatingRowColors(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    splitter->addWidget(view_);
    auto* otherBox = new QWidget(this);
    auto* otherLayout = new QVBoxLayout(otherBox);
    otherLayout->setContentsMargins(0, 0, 0, 0);
    otherLayout->addWidget(new QLabel(tr("Other members that differ (JSON Patch op and path):"), otherBox));
    other_->setObjectName(QStringLiteral("diffOther"));
    otherLayout->addWidget(other_);
    splitter->addWidget(otherBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(leftFile, &QPushButton::clicked, this, [this] { chooseFile(true); });
    connect(rightFile, &QPushButton::clicked, this, [this] { chooseFile(false); });
    connect(leftDisk, &QPushButton::clicked, this, &DiffView::setLeftToDisk);
    connect(rightEditor, &QPushButton::clicked, this, &DiffView::setRightToEditor);
    connect(document, &ProfileDocument::reset, this, &DiffView::refresh);
    connect(document, &ProfileDocument::entriesChanged, this, &DiffView::refresh);
    refresh();
}

bool DiffView::loadSide(Side& side, const QString& path, QString* error) {
    try {
        side.file = loadProfile(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    side.kind = Side::Kind::File;
    side.path = path;
    refresh();
    return true;
}

bool DiffView::setLeftFile(const QString& path, QString* error) { return loadSide(left_, path, error); }
bool DiffView::setRightFile(const QString& path, QString* error) { return loadSide(right_, path, error); }

void DiffView::setLeftToDisk() {
    left_ = Side{Side::Kind::Disk, std::nullopt, {}};
    refresh();
}

void DiffView::setRightToEditor() {
    right_ = Side{Side::Kind::Editor, std::nullopt, {}};
    refresh();
}

void DiffView::chooseFile(bool left) {
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with profile"), QString(),
                                                      tr("Profiles (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!(left ? setLeftFile(path, &error) : setRightFile(path, &error)))
        QMessageBox::warning(this, tr("Compare profiles"), error);
}

const Profile* DiffView::profileOf(const Side& side) const {
    switch (side.kind) {
    case Side::Kind::Editor: return document_ && document_->hasProfile() ? &document_->profile() : nullptr;
    case Side::Kind::Disk: return document_ ? document_->diskProfile() : nullptr;
    case Side::Kind::File: return side.file ? &*side.file : nullptr;
    }
    return nullptr;
}

QString DiffView::describeSide(const Side& side) const {
    switch (side.kind) {
    case Side::Kind::Editor:
        // Say "unsaved edits" only when there are some: otherwise the editor holds what is on disk.
        return document_ && document_->isModified() ? tr("the editor (%1, with unsaved edits)").arg(document_->displayName())
                                                    : tr("the editor (%1, no unsaved edits)").arg(document_ ? document_->displayName() : QString());
    case Side::Kind::Disk: return tr("%1 on disk").arg(document_ ? document_->displayName() : QString());
    case Side::Kind::File: return QFileInfo(side.path).fileName();
    }
    return {};
}

void DiffView::refresh() {
    const Profile* left = profileOf(left_);
    const Profile* right = profileOf(right_);
    other_->clear();
    if (!left || !right) {
        model_->setDiff({});
        title_->setText(tr("Left: %1. Right: %2. Nothing to compare yet.").arg(describeSide(left_), describeSide(right_)));
        return;
    }
    ProfileDiff diff = diffProfiles(*left, *right);
    for (const OtherChange& change : diff.other)
        other_->addItem(QString::fromStdString(change.op) + QStringLiteral("  ") + QString::fromStdString(change.path));
    title_->setText(tr("Left: %1. Right: %2. %n NB(s) differ", nullptr, static_cast<int>(diff.policy.size()))
                        .arg(describeSide(left_), describeSide(right_)) +
                    tr(", %n other member(s).", nullptr, static_cast<int>(diff.other.size())));
    model_->setDiff(std::move(diff));
    view_->resizeColumnsToContents();
}

}  // namespace tunescope::ui
