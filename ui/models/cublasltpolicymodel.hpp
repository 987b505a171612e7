#pragma once
// The cuBLASLt policy page's table (pages/cublasltpolicyview): one row per policy entry, the shape in the explorer's
// terms, the types, the algorithm (attributes and whether the raw bytes are there), the gain with its interval,
// regime and basis, the tie set, and the GPU and cuBLASLt version it holds for.
#include <QAbstractTableModel>

#include "tunescope/formats/cublaslt_policy.hpp"

namespace tunescope::ui {

class CublasLtPolicyModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ShapeColumn,
        TypesColumn,
        AlgorithmColumn,
        BytesColumn,
        GainColumn,
        IntervalColumn,
        RegimeColumn,
        TiesColumn,
        GpuColumn,
        VersionColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };  // numbers as numbers (gain, interval's lower end, ties, version)
    using QAbstractTableModel::QAbstractTableModel;

    void setPolicy(CublasLtPolicy policy);
    const CublasLtPolicy& policy() const { return policy_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "64x5376x14336 TN bf16" (the explorer's M x N x K), or cuBLASLt's m x n x k when the entry has no row-major
    // description.
    static QString shapeText(const LtPolicyEntry& entry);

private:
    QVariant display(const LtPolicyEntry& entry, int column) const;
    QVariant sortValue(const LtPolicyEntry& entry, int column) const;
    CublasLtPolicy policy_;
};

}  // namespace tunescope::ui
