#pragma once
// One open FLA_CONFIG_DIR as an editable document (pages/flaconfigdirview): the folder as it is on disk (checked as
// `tunescope-cli validate DIR` checks it), the FLA capture it was exported from, the current choice of config per
// (kernel, key) and the undo stack every edit goes through. Views never change the choices directly.
//
// The capture is looked for beside the folder: the manifest's /capture/file (a basename) in the folder's parent,
// then in the folder itself, its digest the manifest's /capture/digest. Without it (or with "Attach capture..." not
// done yet) the document is read-only and captureStatus() says why: which configs may be chosen is a fact of the
// capture (exportableFlaConfigs), not of the folder.
//
// Save writes the folder again through exportFlaConfigDir (every file staged, then renamed: a failure leaves the
// folder as it was) with choices source "edited", then reads it back with checkFlaConfigDir. A signature file beside
// the manifest is kept, but no longer covers the folder: signatureStale() says so until the folder is opened again.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUndoStack>

#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"

namespace tunescope::ui {

class FlaConfigDirDocument : public QObject {
    Q_OBJECT
public:
    explicit FlaConfigDirDocument(QObject* parent = nullptr);
    ~FlaConfigDirDocument() override;

    // Checks and reads the folder (or its manifest file) and looks for its capture. A folder that does not check
    // leaves the document as it was, and `error` holds every fault as "file: at /pointer: message". Clears the
    // undo history.
    bool open(const QString& path, QString* error, QStringList* warnings = nullptr);
    // Attaches a capture manifest by hand; refused (the document unchanged) when it is not the capture the folder
    // names (its digest) or the folder's entries are not its configs.
    bool attachCapture(const QString& manifest, QString* error);

    bool hasFolder() const { return disk_.has_value(); }
    // The folder as it is on disk (as last opened or saved). Only with hasFolder().
    const FlaConfigDir& disk() const { return *disk_; }
    // The folder as Save would write it: the disk folder while nothing differs, else built from the choices as
    // exportFlaConfigDir writes them (the same documents, flaConfigDocuments).
    const FlaConfigDir& current() const { return current_ ? *current_ : *disk_; }
    QString folderPath() const { return path_; }

    bool canEdit() const { return capture_.has_value(); }
    const FlaCapture* capture() const { return capture_ ? &*capture_ : nullptr; }
    QString capturePath() const { return capturePath_; }
    // Which capture editing uses, or why editing is off.
    QString captureStatus() const { return captureStatus_; }

    // Every choice now (the capture's config indices); empty without a capture.
    const FlaChoices& choices() const { return choices_; }
    // The choice for (kernel, key) now (null: FLA autotunes the key), and the configs that may be chosen for it
    // (exportableFlaConfigs of the capture; empty without a capture).
    const FlaChoice* choice(const std::string& kernel, const std::string& keyHash) const;
    std::vector<std::size_t> legalConfigs(const std::string& kernel, const std::string& keyHash) const;
    // The config index the folder on disk holds for the key, if any.
    std::optional<std::size_t> diskConfig(const std::string& kernel, const std::string& keyHash) const;
    bool entryChangedOnDisk(const std::string& kernel, const std::string& keyHash) const;

    // Chooses config `config` for the key in one undoable step. False (nothing pushed) without a capture, for a
    // config that may not be chosen, or when it is the current choice already.
    bool setChoice(const std::string& kernel, const std::string& keyHash, std::size_t config);
    // Replaces (or, with nullopt, removes) the choice without the undo stack; the undo commands call it.
    void applyChoice(const std::string& kernel, const std::string& keyHash, const std::optional<FlaChoice>& choice);

    bool isModified() const { return disk_ && !undo_.isClean(); }
    // Writes the folder again (see the header comment). On failure nothing on disk changes and `error` names the
    // file (and JSON Pointer where there is one). Saving an unmodified folder writes nothing.
    bool save(QString* error);
    // A signature file lies beside the manifest and the folder was saved since it was opened: the signature covers
    // the old manifest and must be made again (`tunescope-cli sign DIR --key K`).
    bool signatureStale() const { return signatureStale_; }
    QString signaturePath() const;
    QUndoStack* undoStack() { return &undo_; }

signals:
    // A folder was opened or saved, or a capture attached: views rebuild.
    void reset();
    // A choice changed (edit, undo, redo): current() is rebuilt.
    void choicesChanged();
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    void findCapture();
    bool adoptCapture(FlaCapture capture, const QString& path, QString* error);
    void rebuildCurrent();

    std::optional<FlaConfigDir> disk_;
    std::optional<FlaConfigDir> current_;  // nullopt while the choices are the disk folder's
    std::optional<FlaCapture> capture_;
    FlaChoices choices_, diskChoices_;
    QString path_, capturePath_, captureStatus_;
    bool signatureStale_ = false;
    QUndoStack undo_;
};

}  // namespace tunescope::ui
