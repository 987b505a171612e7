#include "documents/flaconfigdirdocument.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include <QUndoCommand>

#include "tunescope/base/errors.hpp"

namespace tunescope::ui {
namespace {

namespace fs = std::filesystem;

QString text(const std::string& s) { return QString::fromStdString(s); }

QString faultsText(const std::vector<Error>& faults) {
    QStringList lines;
    for (const Error& fault : faults) lines << text(fault.what());
    return lines.join(QLatin1Char('\n'));
}

std::string shortHash(const std::string& keyHash) { return keyHash.substr(0, 8); }

// One undoable change of one key's choice: before and after are whole choices (config and best timing), nullopt
// where the key had no choice (FLA autotuned it).
class SetChoiceCommand : public QUndoCommand {
public:
    SetChoiceCommand(FlaConfigDirDocument* document, std::string kernel, std::string keyHash,
                     std::optional<FlaChoice> before, FlaChoice after, const QString& text)
        : QUndoCommand(text), document_(document), kernel_(std::move(kernel)), keyHash_(std::move(keyHash)),
          before_(std::move(before)), after_(std::move(after)) {}
    void redo() override { document_->applyChoice(kernel_, keyHash_, after_); }
    void undo() override { document_->applyChoice(kernel_, keyHash_, before_); }

private:
    FlaConfigDirDocument* document_;
    std::string kernel_, keyHash_;
    std::optional<FlaChoice> before_;
    FlaChoice after_;
};

const FlaChoice* findChoice(const FlaChoices& choices, const std::string& kernel, const std::string& keyHash) {
    for (const FlaChoice& c : choices.choices)
        if (c.kernel_name == kernel && c.key_hash == keyHash) return &c;
    return nullptr;
}

// Triton's timing of `config` at the key's first launch that benchmarked (capturedFlaChoices' rule), or null.
Json capturedTiming(const FlaCapture& capture, const std::string& kernel, const std::string& keyHash,
                    std::size_t config) {
    const FlaCaptureKernel* k = capture.kernel(kernel);
    if (!k) return Json();
    for (const FlaCaptureLaunch& launch : k->launches)
        if (launch.key_hash == keyHash && launch.timings_ms.is_array() && config < launch.timings_ms.size())
            return launch.timings_ms[config];
    return Json();
}

// The folder exportFlaConfigDir would write for the choices, as checkFlaConfigDir would read it back (files not
// hashed: nothing is written). The manifest's /choices and /keys_without_choice are what Save writes.
FlaConfigDir folderOfChoices(const FlaCapture& capture, const FlaChoices& choices, const FlaConfigDir& disk) {
    FlaConfigDir out;
    out.folder = disk.folder;
    out.manifestFile = disk.manifestFile;
    out.manifest = disk.manifest;
    const std::map<std::string, Json> documents = flaConfigDocuments(capture, choices);
    Json without = Json::array();
    for (const FlaCaptureKernel& kernel : capture.kernels) {
        std::set<std::string> keys;
        for (const FlaCaptureLaunch& l : kernel.launches)
            if (!findChoice(choices, kernel.kernel_name, l.key_hash) && keys.insert(l.key_hash).second) {
                out.keysWithoutChoice.emplace_back(kernel.kernel_name, l.key_hash);
                without.push_back({{"kernel_name", kernel.kernel_name}, {"key_hash", l.key_hash}});
            }
        const auto doc = documents.find(kernel.kernel_name);
        if (doc == documents.end()) continue;
        FlaConfigDirKernel& k = out.kernels.emplace_back();
        k.kernel_name = kernel.kernel_name;
        k.file = disk.folder / (kernel.kernel_name + ".json");
        k.triton_version = doc->second["triton_version"].get<std::string>();
        k.default_config = doc->second["default_config"];
        const Json& entries = doc->second["autotune_entries"];
        for (auto it = entries.begin(); it != entries.end(); ++it)
            k.entries.push_back({it.key(), it.value()["autotune_key"], it.value()["config"], it.value()["best_timing"]});
    }
    out.manifest["choices"] = {{"source", kFlaChoicesEdited}, {"file", nullptr}, {"sha256", nullptr}};
    out.manifest["keys_without_choice"] = without;
    return out;
}

}  // namespace

FlaConfigDirDocument::FlaConfigDirDocument(QObject* parent) : QObject(parent) {
    connect(&undo_, &QUndoStack::cleanChanged, this, [this] { emit modifiedChanged(isModified()); });
}

// The undo stack, destroyed last, reports a clean state as it goes: nobody (a view being destroyed) hears it.
FlaConfigDirDocument::~FlaConfigDirDocument() { disconnect(&undo_, nullptr, this, nullptr); }

bool FlaConfigDirDocument::open(const QString& path, QString* error, QStringList* warnings) {
    FlaConfigDirCheck check = checkFlaConfigDir(path.toStdString());
    if (!check.dir) {
        if (error) *error = faultsText(check.faults);
        return false;
    }
    if (warnings)
        for (const std::string& w : check.warnings) *warnings << text(w);
    disk_ = std::move(check.dir);
    path_ = path;
    signatureStale_ = false;
    findCapture();
    undo_.clear();
    undo_.setClean();
    rebuildCurrent();
    emit reset();
    emit modifiedChanged(false);
    return true;
}

void FlaConfigDirDocument::findCapture() {
    capture_.reset();
    capturePath_.clear();
    choices_ = diskChoices_ = FlaChoices();
    const Json& c = disk_->manifest["capture"];
    // The manifest keeps a basename; a name with folders in it is not looked up outside the two folders.
    const fs::path name = fs::path(c["file"].get<std::string>()).filename();
    const fs::path folder = disk_->folder;
    const fs::path parent = fs::absolute(folder).lexically_normal().parent_path();
    QStringList notes;
    for (const fs::path& candidate : {parent / name, folder / name}) {
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        try {
            FlaCapture capture = readFlaCapture(candidate);
            QString why;
            if (adoptCapture(std::move(capture), text(candidate.string()), &why)) return;
            notes << why;
        } catch (const std::exception& e) {
            notes << text(e.what());
        }
    }
    captureStatus_ = tr("Read-only: editing needs the capture this folder was exported from (%1, digest %2), which "
                        "is neither in %3 nor in the folder. Which configs may be chosen for a key is the capture's "
                        "to say (a compiled binary for every launch): use Attach capture... to edit.")
                         .arg(text(name.string()), text(c["digest"].get<std::string>().substr(0, 12)),
                              text(parent.string()));
    if (!notes.isEmpty()) captureStatus_ += tr("\nNot used: %1").arg(notes.join(QStringLiteral("\n")));
}

bool FlaConfigDirDocument::adoptCapture(FlaCapture capture, const QString& path, QString* error) {
    FlaChoices choices;
    try {
        choices = flaChoicesOfConfigDir(capture, *disk_);  // the digest, and every entry one of its configs
    } catch (const std::exception& e) {
        if (error) *error = text(e.what());
        return false;
    }
    capture_ = std::move(capture);
    capturePath_ = path;
    choices_ = diskChoices_ = std::move(choices);
    captureStatus_ = tr("Editing with the capture %1: a key offers the configs with a compiled binary for every "
                        "launch of it. A config picked by hand gets the capture's Triton timing of it.")
                         .arg(path);
    return true;
}

bool FlaConfigDirDocument::attachCapture(const QString& manifest, QString* error) {
    if (!disk_) {
        if (error) *error = tr("No FLA_CONFIG_DIR is open.");
        return false;
    }
    if (isModified()) {
        if (error) *error = tr("Save or undo the changes before attaching another capture.");
        return false;
    }
    try {
        if (!adoptCapture(readFlaCapture(manifest.toStdString()), manifest, error)) return false;
    } catch (const std::exception& e) {
        if (error) *error = text(e.what());
        return false;
    }
    undo_.clear();
    undo_.setClean();
    rebuildCurrent();
    emit reset();
    return true;
}

const FlaChoice* FlaConfigDirDocument::choice(const std::string& kernel, const std::string& keyHash) const {
    return findChoice(choices_, kernel, keyHash);
}

std::vector<std::size_t> FlaConfigDirDocument::legalConfigs(const std::string& kernel, const std::string& keyHash) const {
    return capture_ ? exportableFlaConfigs(*capture_, kernel, keyHash) : std::vector<std::size_t>();
}

std::optional<std::size_t> FlaConfigDirDocument::diskConfig(const std::string& kernel, const std::string& keyHash) const {
    const FlaChoice* c = findChoice(diskChoices_, kernel, keyHash);
    return c ? std::optional(c->config) : std::nullopt;
}

bool FlaConfigDirDocument::entryChangedOnDisk(const std::string& kernel, const std::string& keyHash) const {
    const FlaChoice* now = choice(kernel, keyHash);
    const FlaChoice* before = findChoice(diskChoices_, kernel, keyHash);
    if (!now || !before) return now != before;
    return now->config != before->config || now->best_timing != before->best_timing;
}

bool FlaConfigDirDocument::setChoice(const std::string& kernel, const std::string& keyHash, std::size_t config) {
    const std::vector<std::size_t> legal = legalConfigs(kernel, keyHash);
    if (std::find(legal.begin(), legal.end(), config) == legal.end()) return false;
    const FlaChoice* current = choice(kernel, keyHash);
    if (current && current->config == config) return false;
    FlaChoice after{kernel, keyHash, config, Json(), ""};
    // Back to the disk's config: its timing too, so the key is unchanged again. Else the capture's timing of it.
    const FlaChoice* disk = findChoice(diskChoices_, kernel, keyHash);
    after.best_timing = disk && disk->config == config ? disk->best_timing : capturedTiming(*capture_, kernel, keyHash, config);
    const QString what = tr("Choose config %1 for %2 key %3").arg(config).arg(text(kernel), text(shortHash(keyHash)));
    undo_.push(new SetChoiceCommand(this, kernel, keyHash, current ? std::optional(*current) : std::nullopt,
                                    std::move(after), what));
    return true;
}

void FlaConfigDirDocument::applyChoice(const std::string& kernel, const std::string& keyHash,
                                       const std::optional<FlaChoice>& choice) {
    auto& list = choices_.choices;
    const auto at = std::find_if(list.begin(), list.end(),
                                 [&](const FlaChoice& c) { return c.kernel_name == kernel && c.key_hash == keyHash; });
    if (choice && at != list.end()) *at = *choice;
    else if (choice) list.push_back(*choice);
    else if (at != list.end()) list.erase(at);
    rebuildCurrent();
    emit choicesChanged();
}

void FlaConfigDirDocument::rebuildCurrent() {
    current_.reset();
    if (!disk_ || !capture_) return;
    bool changed = choices_.choices.size() != diskChoices_.choices.size();
    for (const FlaChoice& c : choices_.choices) changed = changed || entryChangedOnDisk(c.kernel_name, c.key_hash);
    if (changed) current_ = folderOfChoices(*capture_, choices_, *disk_);
}

QString FlaConfigDirDocument::signaturePath() const {
    return disk_ ? text(flaConfigDirSignaturePath(disk_->manifestFile).string()) : QString();
}

bool FlaConfigDirDocument::save(QString* error) {
    if (!disk_ || !capture_) {
        if (error) *error = disk_ ? tr("%1: %2").arg(path_, captureStatus_) : tr("No FLA_CONFIG_DIR is open.");
        return false;
    }
    if (!isModified()) return true;
    FlaChoices edited = choices_;
    edited.source = std::string(kFlaChoicesEdited);
    edited.fileName.clear();
    edited.sha256.clear();
    edited.capture_digest = capture_->digest;
    FlaChoices reread;
    FlaConfigDirCheck check;
    try {
        // Every file staged before any is renamed into place: a failure leaves the folder as it was.
        exportFlaConfigDir(*capture_, edited, disk_->folder);
        check = checkFlaConfigDir(disk_->folder);
        if (!check.dir) {
            if (error) *error = faultsText(check.faults);
            return false;
        }
        reread = flaChoicesOfConfigDir(*capture_, *check.dir);
    } catch (const std::exception& e) {
        if (error) *error = text(e.what());
        return false;
    }
    disk_ = std::move(check.dir);
    choices_ = diskChoices_ = std::move(reread);
    std::error_code ec;
    signatureStale_ = fs::exists(flaConfigDirSignaturePath(disk_->manifestFile), ec);
    undo_.setClean();
    rebuildCurrent();
    emit choicesChanged();
    emit modifiedChanged(false);
    emit saved(path_);
    return true;
}

}  // namespace tunescope::ui
