#pragma once
// One open l2norm profile: the model the core loaded, the copy that is on disk (to mark changed cells), the file
// path, and the undo stack every edit goes through. Views never change the profile directly.
#include <optional>
#include <vector>

#include <QObject>
#include <QString>
#include <QUndoStack>

#include "tunescope/formats/profile.hpp"

namespace tunescope::ui {

class ProfileDocument : public QObject {
    Q_OBJECT
public:
    explicit ProfileDocument(QObject* parent = nullptr);

    // Loads through the core (loadProfile); on failure the document is unchanged and `error` names the file and
    // the JSON path. Clears the undo history.
    bool load(const QString& path, QString* error);
    // Adopts a profile that is not (yet) a file, e.g. a new one; it counts as unsaved.
    void adopt(Profile profile, const QString& path = {});
    // Atomic save through the core (saveProfile). On failure the file on disk is untouched.
    bool save(QString* error);
    bool saveAs(const QString& path, QString* error);

    bool hasProfile() const { return loaded_; }
    const Profile& profile() const { return profile_; }
    // The profile as it is on disk (as last loaded or saved); null for a profile never saved.
    const Profile* diskProfile() const { return disk_ ? &*disk_ : nullptr; }
    QString filePath() const { return path_; }
    QString displayName() const;
    bool isModified() const;
    QUndoStack* undoStack() { return &undo_; }

    // Replaces the policy entries with these NBs (all in one undoable step named `text`). Entries equal to the
    // current ones are dropped; nothing is pushed when none differs. Returns whether an edit was pushed.
    bool setEntries(const std::vector<PolicyEntry>& entries, const QString& text);
    // The entry for NB as it is now, or null.
    const PolicyEntry* entry(std::int64_t nb) const { return profile_.policyFor(nb); }
    // Whether the NB's entry differs from the file on disk (always true for a profile never saved).
    bool entryChangedOnDisk(std::int64_t nb) const;

    // Replaces the whole profile in one undoable step (imports change source evidence as well as the policy).
    void replaceProfile(Profile profile, const QString& text);

    // Applies entries without the undo stack; the undo commands call it.
    void applyEntries(const std::vector<PolicyEntry>& entries);
    void applyProfile(const Profile& profile);

signals:
    // The whole profile was replaced (load, adopt): views rebuild.
    void reset();
    // Some policy entries changed (edit, undo, redo).
    void entriesChanged(const std::vector<std::int64_t>& nbs);
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);
    void saved(const QString& path);

private:
    Profile profile_;
    std::optional<Profile> disk_;
    QString path_;
    bool loaded_ = false;
    QUndoStack undo_;
};

// Entries equal in everything the file would record (config, basis, evidence).
bool sameEntry(const PolicyEntry& a, const PolicyEntry& b);

}  // namespace tunescope::ui
