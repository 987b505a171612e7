#include "models/jsontreemodel.hpp"

namespace tunescope::ui {

QStringList jsonPointerTokens(const QString& pointer) {
    QStringList tokens = pointer.split(QLatin1Char('/'));
    if (!tokens.isEmpty()) tokens.removeFirst();  // the empty text before the leading '/'
    for (QString& token : tokens) token.replace(QLatin1String("~1"), QLatin1String("/")).replace(QLatin1String("~0"), QLatin1String("~"));
    return tokens;
}

JsonTreeModel::JsonTreeModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Node>()) {}

JsonTreeModel::~JsonTreeModel() = default;

void JsonTreeModel::build(Node* node, const Json& value) {
    node->type = QString::fromStdString(jsonTypeName(value));
    if (value.is_object()) {
        node->value = tr("{%n member(s)}", nullptr, static_cast<int>(value.size()));
        int row = 0;
        for (const auto& [key, item] : value.items()) {
            auto child = std::make_unique<Node>();
            child->key = QString::fromStdString(key);
            child->pointer = QString::fromStdString(jsonPointerAppend(node->pointer.toStdString(), key));
            child->parent = node;
            child->row = row++;
            build(child.get(), item);
            node->children.push_back(std::move(child));
        }
    } else if (value.is_array()) {
        node->value = tr("[%n item(s)]", nullptr, static_cast<int>(value.size()));
        for (std::size_t i = 0; i < value.size(); ++i) {
            auto child = std::make_unique<Node>();
            child->key = QString::number(i);
            child->pointer = QString::fromStdString(jsonPointerAppend(node->pointer.toStdString(), i));
            child->parent = node;
            child->row = static_cast<int>(i);
            build(child.get(), value[i]);
            node->children.push_back(std::move(child));
        }
    } else if (value.is_string()) {
        node->value = QString::fromStdString(value.get<std::string>());
    } else {
        node->value = QString::fromStdString(dumpJson(value, -1));
    }
}

void JsonTreeModel::setDocument(const Json& document) {
    beginResetModel();
    root_ = std::make_unique<Node>();
    auto top = std::make_unique<Node>();
    top->key = QStringLiteral("(document)");
    top->parent = root_.get();
    build(top.get(), document);
    root_->children.push_back(std::move(top));
    endResetModel();
}

JsonTreeModel::Node* JsonTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

QModelIndex JsonTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    Node* node = nodeOf(parent);
    return createIndex(row, column, node->children[static_cast<std::size_t>(row)].get());
}

QModelIndex JsonTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    Node* node = static_cast<Node*>(child.internalPointer());
    Node* parentNode = node->parent;
    if (!parentNode || parentNode == root_.get()) return {};
    return createIndex(parentNode->row, 0, parentNode);
}

int JsonTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(nodeOf(parent)->children.size());
}

int JsonTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant JsonTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Node* node = nodeOf(index);
    if (role == PointerRole) return node->pointer.isEmpty() ? QStringLiteral("/") : node->pointer;
    if (role == Qt::ToolTipRole) {
        // The pointer, and the whole value: a long string is never only in a column too narrow for it.
        const QString pointer = node->pointer.isEmpty() ? QStringLiteral("/") : node->pointer;
        return index.column() == ValueColumn ? QString(pointer + QLatin1Char('\n') + node->value) : pointer;
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case KeyColumn: return node->key;
    case ValueColumn: return node->value;
    case TypeColumn: return node->type;
    default: return {};
    }
}

QVariant JsonTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case KeyColumn: return tr("member");
    case ValueColumn: return tr("value");
    case TypeColumn: return tr("type");
    default: return {};
    }
}

QModelIndex JsonTreeModel::indexForPointer(const QString& pointer) const {
    if (root_->children.empty()) return {};
    Node* node = root_->children.front().get();
    QModelIndex found = createIndex(0, 0, node);
    if (pointer.isEmpty() || pointer == QLatin1String("/")) return found;
    for (const QString& token : jsonPointerTokens(pointer)) {
        Node* next = nullptr;
        for (const auto& child : node->children)
            if (child->key == token) next = child.get();
        if (!next) break;
        node = next;
        found = createIndex(node->row, 0, node);
    }
    return found;
}

}  // namespace tunescope::ui
