#pragma once
// An editor that offers only the values the model lists under PolicyTableModel::ChoicesRole (the values legal for
// the profile's target), as a combo box; no free text, so an illegal value cannot be typed in.
#include <QStyledItemDelegate>

namespace tunescope::ui {

class ChoiceDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

}  // namespace tunescope::ui
