#include "models/flaconfigdirmodel.hpp"

#include <algorithm>

#include <QBrush>
#include <QColor>

#include "tunescope/base/text_fields.hpp"

namespace tunescope::ui {
namespace {

constexpr int kComparisonColumns = 2;  // OtherConfigColumn and ChangeColumn

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

QVariant FlaConfigDirModel::toolTip(const Row& row, Column column) const {
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
    default: return {};
    }
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
