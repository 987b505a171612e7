#include "widgets/flaconfigdelegate.hpp"

#include <QComboBox>

#include "models/flaconfigdirmodel.hpp"

namespace tunescope::ui {

QWidget* FlaConfigDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                         const QModelIndex& index) const {
    const QVariantList choices = index.data(FlaConfigDirModel::ChoicesRole).toList();
    const QStringList labels = index.data(FlaConfigDirModel::ChoiceLabelsRole).toStringList();
    if (choices.isEmpty() || labels.size() != choices.size()) return nullptr;  // nothing may be chosen: no editor
    auto* combo = new QComboBox(parent);
    combo->setObjectName(QStringLiteral("flaConfigEditor"));
    combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (qsizetype i = 0; i < choices.size(); ++i) combo->addItem(labels[i], choices[i]);
    // Commit as soon as a config is picked, so one pick is one undo step.
    connect(combo, &QComboBox::activated, this, [this, combo] {
        auto* self = const_cast<FlaConfigDelegate*>(this);
        emit self->commitData(combo);
        emit self->closeEditor(combo);
    });
    Q_UNUSED(option);
    return combo;
}

void FlaConfigDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    auto* combo = qobject_cast<QComboBox*>(editor);
    if (!combo) return QStyledItemDelegate::setEditorData(editor, index);
    const QVariant current = index.data(Qt::EditRole);
    const int at = current.isValid() ? combo->findData(current) : -1;
    combo->setCurrentIndex(at >= 0 ? at : 0);
}

void FlaConfigDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
    auto* combo = qobject_cast<QComboBox*>(editor);
    if (!combo) return QStyledItemDelegate::setModelData(editor, model, index);
    const QVariant current = index.data(Qt::EditRole);
    if (current.isValid() && combo->currentData() == current) return;
    model->setData(index, combo->currentData(), Qt::EditRole);
}

}  // namespace tunescope::ui
