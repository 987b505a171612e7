#pragma once
// The FLA_CONFIG_DIR page's config editor: a combo box of only the configs the capture lets the key choose
// (FlaConfigDirModel::ChoicesRole, each shown as its flaConfigText from ChoiceLabelsRole), committed as the config
// index (Qt::EditRole). No free text, so an index the capture did not compile for every launch cannot be entered.
#include <QStyledItemDelegate>

namespace tunescope::ui {

class FlaConfigDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

}  // namespace tunescope::ui
