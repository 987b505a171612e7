#include "models/flaconfigdirmodel.hpp"

#include <algorithm>

#include <QBrush>
#include <QColor>
#include <QFont>

#include "documents/flaconfigdirdocument.hpp"
#include "tunescope/base/text_fields.hpp"

namespace tunescope::ui {
namespace {

constexpr int kComparisonColumns = 2;  // OtherConfigColumn and ChangeColumn
const QColor kChangedBackground(255, 243, 176);  // a pale yellow: edited, not yet saved (as the policy table)

QString text(const std::string& s) { return QString::fromStdString(s); }

bool autotunes(const FlaConfigDir& dir, const std::string& kernel, const std::string& keyHash) {
    return std::find(dir.keysWithoutChoice.begin(), dir.keysWithoutChoice.end(), std::pair(kernel, keyHash)) !=
           dir.keysWithoutChoice.end();
}

// best_timing is [p50, p20, p80] in ms (null when the capture had no timing): the p50, or nullopt.
std::optional<double> bestMs(const FlaConfigDirEntry* entry) {
    if (!entry || !entry->best_timing.is_array() || entry->best_timing.empty() || !entry->best_timing[0].is_number())
        return std::nullopt;
    return entry->best_timing[0].get<double>();
}

// The order the table lists kernels in (files, then kernels with only keys FLA autotunes) and one kernel's keys in
// (entries, then keys without a choice): what rebuildKernels and rebuildRows start from.
std::vector<std::string> kernelOrder(const FlaConfigDir& dir) {
    std::vector<std::string> out;
    for (const FlaConfigDirKernel& k : dir.kernels) out.push_back(k.kernel_name);
    for (const auto& [kernel, keyHash] : dir.keysWithoutChoice)
        if (std::find(out.begin(), out.end(), kernel) == out.end()) out.push_back(kernel);
    return out;
}

std::vector<std::string> keyOrder(const FlaConfigDir& dir, const std::string& kernel) {
    std::vector<std::string> out;
    if (const FlaConfigDirKernel* k = dir.kernel(kernel))
        for (const FlaConfigDirEntry& e : k->entries) out.push_back(e.key_hash);
    for (const auto& [name, keyHash] : dir.keysWithoutChoice)
        if (name == kernel) out.push_back(keyHash);
    return out;
}

QString bestTimingText(const FlaConfigDirEntry* entry) {
    const std::optional<double> p50 = bestMs(entry);
    if (!p50) return QStringLiteral("-");
    QString out = text(formatUs(*p50));
    const Json& t = entry->best_timing;
    if (t.size() >= 3 && t[1].is_number() && t[2].is_number())
        out += QStringLiteral(" (%1-%2)").arg(text(formatFixed(t[1].get<double>() * 1000.0, 2)),
                                              text(formatFixed(t[2].get<double>() * 1000.0, 2)));
    return out;
}

}  // namespace

void FlaConfigDirModel::setDir(FlaConfigDir dir) {
    beginResetModel();
    dir_ = std::move(dir);
    if (other_) diff_ = diffFlaConfigDirs(dir_, *other_);
    rebuildKernels();
    kernel_ = kernels_.empty() ? -1 : 0;
    rebuildRows();
    endResetModel();
}

void FlaConfigDirModel::setDocument(FlaConfigDirDocument* document) {
    if (document_) disconnect(document_, nullptr, this, nullptr);
    document_ = document;
    if (!document_) return;
    connect(document_, &FlaConfigDirDocument::reset, this, [this] { setDir(document_->current()); });
    connect(document_, &FlaConfigDirDocument::choicesChanged, this, [this] { updateDir(document_->current()); });
    if (document_->hasFolder()) setDir(document_->current());
}

void FlaConfigDirModel::updateDir(FlaConfigDir dir) {
    const std::string shown = shownKernel();
    // An edit moves a key between "FLA autotunes it" and the entries, so the rows' order may change.
    const bool sameLayout = kernelOrder(dir_) == kernelOrder(dir) && keyOrder(dir_, shown) == keyOrder(dir, shown);
    if (!sameLayout) beginResetModel();
    dir_ = std::move(dir);
    if (other_) diff_ = diffFlaConfigDirs(dir_, *other_);
    rebuildKernels();
    kernel_ = kernels_.empty() ? -1 : 0;
    for (int i = 0; i < kernelCount(); ++i)
        if (kernelName(i).toStdString() == shown) kernel_ = i;
    rebuildRows();
    if (!sameLayout) endResetModel();
    else if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

std::string FlaConfigDirModel::shownKernel() const { return kernelName(kernel_).toStdString(); }

void FlaConfigDirModel::setComparison(std::optional<FlaConfigDir> other) {
    beginResetModel();
    // The shown kernel stays shown when the other folder has it too (its index may move: the list is rebuilt).
    const QString shown = kernelName(kernel_);
    other_ = std::move(other);
    diff_ = other_ ? std::optional(diffFlaConfigDirs(dir_, *other_)) : std::nullopt;
    rebuildKernels();
    kernel_ = kernels_.empty() ? -1 : 0;
    for (int i = 0; i < kernelCount(); ++i)
        if (kernelName(i) == shown) kernel_ = i;
    rebuildRows();
    endResetModel();
}

void FlaConfigDirModel::rebuildKernels() {
    kernels_.clear();
    const auto slot = [this](const std::string& name) -> KernelKeys& {
        for (KernelKeys& k : kernels_)
            if (k.name == name) return k;
        KernelKeys& added = kernels_.emplace_back();
        added.name = name;
        return added;
    };
    for (const FlaConfigDirKernel& k : dir_.kernels) slot(k.kernel_name).keysHere += int(k.entries.size());
    for (const auto& [kernel, keyHash] : dir_.keysWithoutChoice) ++slot(kernel).keysHere;
    if (!diff_) return;
    for (const FlaConfigDirChange& c : diff_->entries)
        if (c.what == "added" && !autotunes(dir_, c.kernel_name, c.key_hash)) ++slot(c.kernel_name).keysOnlyThere;
}

void FlaConfigDirModel::rebuildRows() {
    rows_.clear();
    if (kernel_ < 0) return;
    const std::string& name = kernels_[std::size_t(kernel_)].name;
    const FlaConfigDirKernel* here = dir_.kernel(name);
    const FlaConfigDirKernel* there = other_ ? other_->kernel(name) : nullptr;
    const auto find = [this](const std::string& keyHash) -> Row* {
        for (Row& r : rows_)
            if (r.keyHash == keyHash) return &r;
        return nullptr;
    };
    const auto row = [&](const std::string& keyHash) -> Row& {
        if (Row* r = find(keyHash)) return *r;
        Row& added = rows_.emplace_back();
        added.keyHash = keyHash;
        return added;
    };
    if (here)
        for (const FlaConfigDirEntry& e : here->entries) row(e.key_hash).entry = &e;
    for (const auto& [kernel, keyHash] : dir_.keysWithoutChoice)
        if (kernel == name) row(keyHash).autotunedHere = true;
    if (!other_) return;
    if (there)
        for (const FlaConfigDirEntry& e : there->entries) row(e.key_hash).otherEntry = &e;
    for (const auto& [kernel, keyHash] : other_->keysWithoutChoice)  // only keys shown already: the label counts them
        if (Row* r = kernel == name ? find(keyHash) : nullptr) r->autotunedThere = true;
    for (const FlaConfigDirChange& c : diff_->entries)
        if (c.kernel_name == name) row(c.key_hash).changes.push_back(&c);
}

QString FlaConfigDirModel::kernelName(int kernel) const {
    return kernel >= 0 && kernel < kernelCount() ? text(kernels_[std::size_t(kernel)].name) : QString();
}

QString FlaConfigDirModel::kernelLabel(int kernel) const {
    if (kernel < 0 || kernel >= kernelCount()) return {};
    const KernelKeys& k = kernels_[std::size_t(kernel)];
    QString label = text(k.name) + (k.keysHere == 1 ? tr(" (1 key") : tr(" (%1 keys").arg(k.keysHere));
    if (k.keysOnlyThere > 0) label += tr(", %1 only in the other folder").arg(k.keysOnlyThere);
    return label + QLatin1Char(')');
}

void FlaConfigDirModel::setKernel(int kernel) {
    if (kernel < -1 || kernel >= kernelCount() || kernel == kernel_) return;
    beginResetModel();
    kernel_ = kernel;
    rebuildRows();
    endResetModel();
}

int FlaConfigDirModel::section(Column column) const {
    if (other_ || column < OtherConfigColumn) return column;
    return column <= ChangeColumn ? -1 : column - kComparisonColumns;
}

FlaConfigDirModel::Column FlaConfigDirModel::columnAt(int section) const {
    return Column(other_ || section < OtherConfigColumn ? section : section + kComparisonColumns);
}

int FlaConfigDirModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int FlaConfigDirModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return other_ ? ColumnCount : ColumnCount - kComparisonColumns;
}

QVariant FlaConfigDirModel::display(const Row& row, Column column) const {
    const FlaConfigDirEntry* shown = row.entry ? row.entry : row.otherEntry;  // the key is the same in both
    const auto configText = [](const FlaConfigDirEntry* entry, bool autotuned) {
        if (entry) return text(flaConfigText(entry->config));
        return autotuned ? tr("none: FLA autotunes this key") : tr("-");
    };
    switch (column) {
    case KeyColumn: return shown ? text(dumpJson(shown->autotune_key, -1)) : tr("(key not recorded)");
    case KeyHashColumn: return text(row.keyHash);
    case ConfigColumn: return configText(row.entry, row.autotunedHere);
    case BestTimingColumn: return bestTimingText(row.entry);
    case OtherConfigColumn: return configText(row.otherEntry, row.autotunedThere);
    case ChangeColumn: {
        QStringList what;
        for (const FlaConfigDirChange* c : row.changes) what << text(c->what);
        return what.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

bool FlaConfigDirModel::changed(const Row& row, Column column) const {
    return document_ && document_->canEdit() && (column == ConfigColumn || column == BestTimingColumn) &&
           document_->entryChangedOnDisk(shownKernel(), row.keyHash);
}

QVariant FlaConfigDirModel::editData(const Row& row, Column column, int role) const {
    if (column != ConfigColumn || !document_ || !document_->canEdit()) return {};
    const std::string kernel = shownKernel();
    if (role == Qt::EditRole) {
        const FlaChoice* c = document_->choice(kernel, row.keyHash);
        return c ? QVariant(int(c->config)) : QVariant();
    }
    QVariantList indices;
    QStringList labels;
    const FlaCaptureKernel* k = document_->capture()->kernel(kernel);
    for (std::size_t i : document_->legalConfigs(kernel, row.keyHash)) {
        indices << int(i);
        labels << text(flaConfigText(k->configs[i].original));
    }
    return role == ChoicesRole ? QVariant(indices) : QVariant(labels);
}

QVariant FlaConfigDirModel::toolTip(const Row& row, Column column) const {
    if (changed(row, column) && column == ConfigColumn) {
        const FlaConfigDirKernel* disk = document_->disk().kernel(shownKernel());
        const FlaConfigDirEntry* before = disk ? disk->entry(row.keyHash) : nullptr;
        const QString now = row.entry ? text(dumpJson(row.entry->config, 2)) + QLatin1Char('\n') : QString();
        return QString(now + tr("Changed; on disk: %1")
                                 .arg(before ? text(flaConfigText(before->config)) : tr("none: FLA autotunes this key")));
    }
    switch (column) {
    case ConfigColumn: return row.entry ? text(dumpJson(row.entry->config, 2)) : QVariant();
    case OtherConfigColumn: return row.otherEntry ? text(dumpJson(row.otherEntry->config, 2)) : QVariant();
    case BestTimingColumn: return row.entry ? QVariant(text(dumpJson(row.entry->best_timing, -1)) + tr(" ms")) : QVariant();
    case ChangeColumn: {
        QStringList lines;
        for (const FlaConfigDirChange* c : row.changes) lines << text(formatFlaConfigDirChange(*c));
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    default: {
        const FlaConfigDirEntry* shown = row.entry ? row.entry : row.otherEntry;
        return shown ? text(dumpJson(shown->autotune_key, -1)) : QVariant();
    }
    }
}

QVariant FlaConfigDirModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const Row& row = rows_[std::size_t(index.row())];
    const Column column = columnAt(index.column());
    switch (role) {
    case Qt::DisplayRole: return display(row, column);
    case Qt::ToolTipRole: return toolTip(row, column);
    case SortRole:
        if (column == BestTimingColumn) return bestMs(row.entry).value_or(1e300) * 1000.0;  // "-" last
        return display(row, column);
    case Qt::TextAlignmentRole:
        return column == BestTimingColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::ForegroundRole:  // keys this folder has no config for
        return row.entry ? QVariant() : QVariant(QBrush(QColor(0x80, 0x80, 0x80)));
    case Qt::EditRole:
    case ChoicesRole:
    case ChoiceLabelsRole: return editData(row, column, role);
    case ChangedOnDiskRole: return changed(row, ConfigColumn);
    case Qt::BackgroundRole: return changed(row, column) ? QVariant(QBrush(kChangedBackground)) : QVariant();
    case Qt::FontRole: {
        if (!changed(row, column)) return {};
        QFont font;
        font.setBold(true);
        return font;
    }
    default: return {};
    }
}

Qt::ItemFlags FlaConfigDirModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (!index.isValid() || index.row() >= rowCount() || columnAt(index.column()) != ConfigColumn || !document_ ||
        !document_->canEdit())
        return f;
    const Row& row = rows_[std::size_t(index.row())];
    // A key of this folder (an entry, or one FLA autotunes) that has a config to choose; not a key only the other
    // folder has.
    if ((row.entry || row.autotunedHere) && !document_->legalConfigs(shownKernel(), row.keyHash).empty())
        f |= Qt::ItemIsEditable;
    return f;
}

bool FlaConfigDirModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || !(flags(index) & Qt::ItemIsEditable)) return false;
    // Only a config index the capture lets this key choose, whatever the editor sent.
    bool ok = false;
    const qulonglong config = value.toString().toULongLong(&ok);
    if (!ok) return false;
    const std::string key = rows_[std::size_t(index.row())].keyHash;
    const std::vector<std::size_t> legal = document_->legalConfigs(shownKernel(), key);
    if (std::find(legal.begin(), legal.end(), std::size_t(config)) == legal.end()) return false;
    document_->setChoice(shownKernel(), key, std::size_t(config));  // the document's change updates the rows
    return true;
}

QVariant FlaConfigDirModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (columnAt(section)) {
    case KeyColumn: return tr("Autotune key");
    case KeyHashColumn: return tr("Key hash");
    case ConfigColumn: return tr("Config");
    case BestTimingColumn: return tr("Best timing: p50 (p20-p80)");
    case OtherConfigColumn: return tr("Other folder's config");
    case ChangeColumn: return tr("Change");
    default: return {};
    }
}

}  // namespace tunescope::ui
