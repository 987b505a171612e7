#pragma once
// A read-only tree over a JSON document (key, value, type), addressed by JSON Pointer: the profile's fields that
// are not in the policy table, and the raw cuBLASLt report. Diagnostics that name such a field jump here.
#include <memory>
#include <vector>

#include <QAbstractItemModel>

#include "tunescope/base/json_io.hpp"

namespace tunescope::ui {

class JsonTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, TypeColumn, ColumnCount };
    enum Role { PointerRole = Qt::UserRole + 1 };

    explicit JsonTreeModel(QObject* parent = nullptr);
    ~JsonTreeModel() override;

    void setDocument(const Json& document);
    // The index of the node a JSON Pointer names; for a pointer below a leaf or to a missing member, the deepest
    // node that exists on its path (so a jump lands as near as it can).
    QModelIndex indexForPointer(const QString& pointer) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        QString key;
        QString value;  // scalars and a summary for containers ("{17 members}", "[32 items]")
        QString type;
        QString pointer;
        Node* parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Node>> children;
    };
    static void build(Node* node, const Json& value);
    Node* nodeOf(const QModelIndex& index) const;

    std::unique_ptr<Node> root_;
};

// Splits a JSON Pointer into its unescaped tokens (~1 -> /, ~0 -> ~).
QStringList jsonPointerTokens(const QString& pointer);

}  // namespace tunescope::ui
