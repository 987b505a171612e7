#include "widgets/choicedelegate.hpp"

#include <QComboBox>

#include "models/policytablemodel.hpp"

namespace tunescope::ui {

QWidget* ChoiceDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                      const QModelIndex& index) const {
    const QVariantList choices = index.data(PolicyTableModel::ChoicesRole).toList();
    if (choices.isEmpty()) return QStyledItemDelegate::createEditor(parent, option, index);
    auto* combo = new QComboBox(parent);
    combo->setObjectName(QStringLiteral("choiceEditor"));
    for (const QVariant& choice : choices) combo->addItem(choice.toString(), choice);
    // Commit as soon as a value is picked, so one click-pick-done edit is one undo step.
    connect(combo, &QComboBox::activated, this, [this, combo] {
        auto* self = const_cast<ChoiceDelegate*>(this);
        emit self->commitData(combo);
        emit self->closeEditor(combo);
    });
    return combo;
}

void ChoiceDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    auto* combo = qobject_cast<QComboBox*>(editor);
    if (!combo) return QStyledItemDelegate::setEditorData(editor, index);
    const int at = combo->findText(index.data(Qt::EditRole).toString());
    combo->setCurrentIndex(at >= 0 ? at : 0);
}

void ChoiceDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
    auto* combo = qobject_cast<QComboBox*>(editor);
    if (!combo) return QStyledItemDelegate::setModelData(editor, model, index);
    if (combo->currentData().toString() == index.data(Qt::EditRole).toString()) return;
    model->setData(index, combo->currentData(), Qt::EditRole);
}

}  // namespace tunescope::ui
