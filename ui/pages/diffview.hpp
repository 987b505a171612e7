#pragma once
// Differences between two profiles through the core's diffProfiles(): per-NB config and basis changes in a
// table, every other differing member as a JSON Pointer below it. Each side is a file or the profile in the
// editor (with its unsaved edits); by default the file on disk against the editor, i.e. what Save would change.
#include <optional>

#include <QPointer>
#include <QWidget>

#include "tunescope/formats/profile.hpp"

class QLabel;
class QListWidget;
class QTableView;

namespace tunescope::ui {

class DiffModel;
class ProfileDocument;

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(ProfileDocument* document, QWidget* parent = nullptr);

    // Each side: a file, or (empty path) the profile in the editor.
    bool setLeftFile(const QString& path, QString* error);
    bool setRightFile(const QString& path, QString* error);
    void setLeftToDisk();  // the editor's file as it is on disk
    void setRightToEditor();
    void refresh();

    DiffModel* model() { return model_; }
    QListWidget* otherChanges() { return other_; }

private:
    struct Side {
        enum class Kind { Editor, Disk, File } kind = Kind::Editor;
        std::optional<Profile> file;  // for Kind::File
        QString path;
    };
    const Profile* profileOf(const Side& side) const;
    QString describeSide(const Side& side) const;
    bool loadSide(Side& side, const QString& path, QString* error);
    void chooseFile(bool left);

    QPointer<ProfileDocument> document_;
    Side left_{Side::Kind::Disk, std::nullopt, {}};
    Side right_{Side::Kind::Editor, std::nullopt, {}};
    DiffModel* model_;
    QTableView* view_;
    QListWidget* other_;
    QLabel* title_;
};

}  // namespace tunescope::ui
