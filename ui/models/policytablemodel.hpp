#pragma once
// The policy editor's table: one row per per_NB_policy entry (NB 1..32 in the seed), the launch config and its
// basis, and, when sweep results are loaded, what was measured. Edits go through the document's undo stack.
#include <QAbstractTableModel>
#include <QPointer>

#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"

namespace tunescope::ui {

class PolicyTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NbColumn,
        BtColumn,
        WarpsColumn,
        StagesColumn,
        CtasColumn,
        MaxnregColumn,
        BasisColumn,
        EvidenceColumn,
        // Present only while results are loaded.
        MeasuredColumn,
        BestColumn,
        RegretColumn,
    };
    static constexpr int kProfileColumns = EvidenceColumn + 1;
    static constexpr int kResultColumns = RegretColumn + 1;

    enum Role {
        ChoicesRole = Qt::UserRole + 1,  // QVariantList of the values legal for this cell (delegates offer only these)
        ChangedOnDiskRole,               // bool: the cell differs from the file on disk
        NbRole,                          // the row's NB
        ChoiceLabelsRole,                // QStringList matching ChoicesRole, for display
        SortRole,                        // numbers as numbers (NB, config fields, medians, regret); text otherwise
    };

    explicit PolicyTableModel(ProfileDocument* document, QObject* parent = nullptr);

    // The model reads the results in place and follows their reset/appended signals (streaming sweeps).
    void setResults(const ResultsDocument* results);
    void resultsChanged();
    bool hasResults() const { return results_ && !results_->isEmpty(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The cell a JSON Pointer into the profile names ("/per_NB_policy/13/config/num_warps" -> row 13, warps);
    // an invalid index when the pointer is not inside the policy table.
    QModelIndex indexForPointer(const QString& pointer) const;
    // The JSON Pointer of a cell (the inverse).
    QString pointerForIndex(const QModelIndex& index) const;

    // Sets the config of `rows` to the config of row `sourceRow` in one undoable step.
    bool applyConfigOfRow(int sourceRow, const QList<int>& rows);
    bool applyConfig(const TritonConfig& config, const QList<int>& rows, const QString& text);

    std::int64_t nbOfRow(int row) const;
    int rowOfNb(std::int64_t nb) const;

    // Basis given to an entry whose config was edited by hand: no measurement backs the new config.
    static QString manualEditBasis() { return QStringLiteral("prospective-manual-edit"); }

private:
    void onEntriesChanged(const std::vector<std::int64_t>& nbs);
    void onReset();
    QVariant displayValue(const PolicyEntry& entry, int column) const;
    QVariant diskValue(const PolicyEntry* entry, int column) const;
    QVariant sortValue(const PolicyEntry& entry, int column) const;
    QVariantList choices(const PolicyEntry& entry, int column) const;
    bool cellChanged(const PolicyEntry& entry, int column) const;
    QString evidenceText(const PolicyEntry& entry) const;
    // " [low, high]" of the regret's paired interval in percent; empty for single-round (v1) results.
    static QString regretIntervalText(const RegretSummary& r);
    static QString tieSetText(const RegretSummary& r);
    QString resultTooltip(const PolicyEntry& entry, int column) const;

    QPointer<ProfileDocument> document_;
    void recomputeRegret();
    QPointer<const ResultsDocument> results_;
    std::map<int, RegretSummary> regret_;
    bool resultColumnsShown_ = false;
};

}  // namespace tunescope::ui
