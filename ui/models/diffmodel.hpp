#pragma once
// The per-NB policy changes of the core's diffProfiles(), one row per NB added, removed or changed: the config on
// each side, the basis and the fields that changed. The diff page (pages/diffview) shows it.
#include <QAbstractTableModel>

#include "tunescope/formats/diff.hpp"

namespace tunescope::ui {

class DiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NbColumn, ChangeColumn, BeforeColumn, AfterColumn, BasisColumn, FieldsColumn, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setDiff(ProfileDiff diff);
    const ProfileDiff& diff() const { return diff_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ProfileDiff diff_;
};

}  // namespace tunescope::ui
