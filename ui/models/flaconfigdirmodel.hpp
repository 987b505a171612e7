#pragma once
// The FLA_CONFIG_DIR page's table (pages/flaconfigdirview): one kernel of a folder that `capture export-fla` wrote
// (formats/fla_config_dir.hpp) at a time: one row per autotune entry of the kernel's file (FLA's key, its hash, the
// config FLA_CACHE_MODE=strict loads, the best timing), then one per key the folder left to FLA's own autotune.
// With a comparison folder: the other folder's config and what diffFlaConfigDirs says changed per key, and rows
// for the keys only the other folder has.
#include <optional>
#include <string>
#include <vector>

#include <QAbstractTableModel>
#include <QStringList>

#include "tunescope/formats/fla_config_dir.hpp"

namespace tunescope::ui {

class FlaConfigDirDocument;

class FlaConfigDirModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The comparison's columns sit beside the config they compare with; the hash, for lookups, last.
    enum Column { KeyColumn, ConfigColumn, OtherConfigColumn, ChangeColumn, BestTimingColumn, KeyHashColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,  // best timings as numbers (us)
        ChoicesRole,                  // config column: the legal config indices (QVariantList of int)
        ChoiceLabelsRole,             // config column: their flaConfigText (QStringList, same order)
        ChangedOnDiskRole,            // whether the key's choice differs from the folder on disk
    };
    using QAbstractTableModel::QAbstractTableModel;

    // Shows the document's folder as it would be saved and follows its edits; editable while the document has a
    // capture. Null: a read-only table of setDir's folder.
    void setDocument(FlaConfigDirDocument* document);
    FlaConfigDirDocument* document() const { return document_; }

    // Where a column is in the table: -1 for the comparison's columns while there is no comparison.
    int section(Column column) const;
    Column columnAt(int section) const;

    void setDir(FlaConfigDir dir);  // shows kernel 0; a comparison set before is compared with the new folder
    // The same folder with other entries (an edit): the shown kernel stays, and rows are updated in place when the
    // kernel's keys stay in the same order (else the model is reset).
    void updateDir(FlaConfigDir dir);
    const FlaConfigDir& dir() const { return dir_; }
    // The folder the table is compared with (nullopt: none), and what differs between the two.
    void setComparison(std::optional<FlaConfigDir> other);
    const std::optional<FlaConfigDir>& comparison() const { return other_; }
    const std::optional<FlaConfigDirDiff>& diff() const { return diff_; }

    // The kernels: the folder's files in the manifest's order, then kernels with only keys FLA autotunes, then
    // (comparing) kernels only the other folder has.
    int kernelCount() const { return int(kernels_.size()); }
    QString kernelName(int kernel) const;
    // "chunk_fwd_kernel_o (3 keys)": what the kernel selector lists.
    QString kernelLabel(int kernel) const;
    void setKernel(int kernel);
    int kernel() const { return kernel_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

private:
    // One key of the shown kernel: its entry in this folder and in the other (either may be missing), and the
    // changes between them.
    struct Row {
        std::string keyHash;
        const FlaConfigDirEntry* entry = nullptr;
        const FlaConfigDirEntry* otherEntry = nullptr;
        bool autotunedHere = false, autotunedThere = false;  // in the folder's keys_without_choice
        std::vector<const FlaConfigDirChange*> changes;
    };
    struct KernelKeys {
        std::string name;
        int keysHere = 0, keysOnlyThere = 0;
    };

    void rebuildKernels();
    void rebuildRows();
    QVariant display(const Row& row, Column column) const;
    QVariant toolTip(const Row& row, Column column) const;
    QVariant editData(const Row& row, Column column, int role) const;
    bool changed(const Row& row, Column column) const;
    std::string shownKernel() const;

    FlaConfigDirDocument* document_ = nullptr;
    FlaConfigDir dir_;
    std::optional<FlaConfigDir> other_;
    std::optional<FlaConfigDirDiff> diff_;
    std::vector<KernelKeys> kernels_;
    std::vector<Row> rows_;
    int kernel_ = -1;
};

}  // namespace tunescope::ui
