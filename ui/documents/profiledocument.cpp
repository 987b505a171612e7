#include "documents/profiledocument.hpp"

#include <QFileInfo>
#include <QUndoCommand>

#include "tunescope/base/errors.hpp"

namespace tunescope::ui {
namespace {

bool sameEvidence(const std::optional<MeasuredEvidence>& a, const std::optional<MeasuredEvidence>& b) {
    if (a.has_value() != b.has_value()) return false;
    if (!a) return true;
    return a->median_ms == b->median_ms && a->p20_ms == b->p20_ms && a->p80_ms == b->p80_ms &&
           a->samples == b->samples && a->device == b->device && a->results_sha256 == b->results_sha256;
}

// One undoable replacement of whole policy entries: before and after are full copies, so undo restores
// everything the entry held (evidence, unknown members) and not just the edited field.
class SetEntriesCommand : public QUndoCommand {
public:
    SetEntriesCommand(ProfileDocument* document, std::vector<PolicyEntry> before, std::vector<PolicyEntry> after,
                      const QString& text)
        : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)) {}
    void redo() override { document_->applyEntries(after_); }
    void undo() override { document_->applyEntries(before_); }

private:
    ProfileDocument* document_;
    std::vector<PolicyEntry> before_;
    std::vector<PolicyEntry> after_;
};

// Swaps the whole profile: what an import changed anywhere in it is undone at once.
class ReplaceProfileCommand : public QUndoCommand {
public:
    ReplaceProfileCommand(ProfileDocument* document, Profile before, Profile after, const QString& text)
        : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)) {}
    void redo() override { document_->applyProfile(after_); }
    void undo() override { document_->applyProfile(before_); }

private:
    ProfileDocument* document_;
    Profile before_;
    Profile after_;
};

QString errorText(const std::exception& error) { return QString::fromStdString(error.what()); }

}  // namespace

bool sameEntry(const PolicyEntry& a, const PolicyEntry& b) {
    return a.NB == b.NB && a.basis == b.basis && a.config == b.config && sameEvidence(a.evidence, b.evidence);
}

ProfileDocument::ProfileDocument(QObject* parent) : QObject(parent) {
    connect(&undo_, &QUndoStack::cleanChanged, this, [this] { emit modifiedChanged(isModified()); });
}

bool ProfileDocument::load(const QString& path, QString* error) {
    try {
        Profile loaded = loadProfile(path.toStdString());
        profile_ = loaded;
        disk_ = std::move(loaded);
    } catch (const std::exception& e) {
        if (error) *error = errorText(e);
        return false;
    }
    path_ = path;
    loaded_ = true;
    undo_.clear();
    undo_.setClean();
    emit reset();
    emit filePathChanged(path_);
    emit modifiedChanged(false);
    return true;
}

void ProfileDocument::adopt(Profile profile, const QString& path) {
    profile_ = std::move(profile);
    disk_.reset();
    path_ = path;
    loaded_ = true;
    undo_.clear();
    emit reset();
    emit filePathChanged(path_);
    emit modifiedChanged(true);
}

bool ProfileDocument::save(QString* error) {
    if (path_.isEmpty()) {
        if (error) *error = tr("The profile has no file name yet: use Save As.");
        return false;
    }
    return saveAs(path_, error);
}

bool ProfileDocument::saveAs(const QString& path, QString* error) {
    try {
        saveProfile(profile_, path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = errorText(e);
        return false;
    }
    disk_ = profile_;
    const bool renamed = path != path_;
    path_ = path;
    undo_.setClean();
    if (renamed) emit filePathChanged(path_);
    emit modifiedChanged(false);
    // Every "changed on disk" mark goes away.
    std::vector<std::int64_t> all;
    for (const auto& entry : profile_.per_NB_policy) all.push_back(entry.NB);
    emit entriesChanged(all);
    emit saved(path_);
    return true;
}

QString ProfileDocument::displayName() const {
    return path_.isEmpty() ? tr("untitled profile") : QFileInfo(path_).fileName();
}

bool ProfileDocument::isModified() const { return loaded_ && (!disk_ || !undo_.isClean()); }

bool ProfileDocument::setEntries(const std::vector<PolicyEntry>& entries, const QString& text) {
    std::vector<PolicyEntry> before, after;
    for (const PolicyEntry& entry : entries) {
        const PolicyEntry* current = profile_.policyFor(entry.NB);
        if (current && sameEntry(*current, entry)) continue;
        if (!current) continue;  // the table only edits existing rows; adding NBs is not an edit it offers
        before.push_back(*current);
        after.push_back(entry);
    }
    if (after.empty()) return false;
    undo_.push(new SetEntriesCommand(this, std::move(before), std::move(after), text));
    return true;
}

void ProfileDocument::applyEntries(const std::vector<PolicyEntry>& entries) {
    std::vector<std::int64_t> nbs;
    for (const PolicyEntry& entry : entries) {
        if (PolicyEntry* current = profile_.policyFor(entry.NB)) {
            *current = entry;
            nbs.push_back(entry.NB);
        }
    }
    if (!nbs.empty()) emit entriesChanged(nbs);
}

void ProfileDocument::replaceProfile(Profile profile, const QString& text) {
    undo_.push(new ReplaceProfileCommand(this, profile_, std::move(profile), text));
}

void ProfileDocument::applyProfile(const Profile& profile) {
    profile_ = profile;
    emit reset();
}

bool ProfileDocument::entryChangedOnDisk(std::int64_t nb) const {
    const PolicyEntry* now = profile_.policyFor(nb);
    if (!disk_) return true;
    const PolicyEntry* before = disk_->policyFor(nb);
    if (!now || !before) return now != before;
    return !sameEntry(*now, *before);
}

}  // namespace tunescope::ui
