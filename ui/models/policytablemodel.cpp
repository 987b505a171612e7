#include "models/policytablemodel.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QRegularExpression>

#include <limits>

#include "documents/resultsindex.hpp"
#include "models/legalvalues.hpp"

namespace tunescope::ui {
namespace {

const QColor kChangedBackground(255, 243, 176);  // a pale yellow: edited, not yet saved

}  // namespace

PolicyTableModel::PolicyTableModel(ProfileDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    connect(document, &ProfileDocument::reset, this, &PolicyTableModel::onReset);
    connect(document, &ProfileDocument::entriesChanged, this, &PolicyTableModel::onEntriesChanged);
}

void PolicyTableModel::setResults(const ResultsDocument* results) {
    if (results_) disconnect(results_, nullptr, this, nullptr);
    results_ = results;
    if (results_) {
        connect(results_, &ResultsDocument::reset, this, &PolicyTableModel::resultsChanged);
        connect(results_, &ResultsDocument::appended, this, &PolicyTableModel::resultsChanged);
    }
    resultsChanged();
}

void PolicyTableModel::recomputeRegret() {
    regret_.clear();
    if (hasResults() && document_ && document_->hasProfile()) regret_ = results_->regret(policyConfigs(document_->profile()));
}

void PolicyTableModel::resultsChanged() {
    recomputeRegret();
    const bool show = hasResults();
    if (show != resultColumnsShown_) {
        if (show) {
            beginInsertColumns({}, kProfileColumns, kResultColumns - 1);
            resultColumnsShown_ = true;
            endInsertColumns();
        } else {
            beginRemoveColumns({}, kProfileColumns, kResultColumns - 1);
            resultColumnsShown_ = false;
            endRemoveColumns();
        }
    } else if (show && rowCount() > 0) {
        emit dataChanged(index(0, MeasuredColumn), index(rowCount() - 1, RegretColumn));
    }
}

int PolicyTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !document_ || !document_->hasProfile()) return 0;
    return static_cast<int>(document_->profile().per_NB_policy.size());
}

int PolicyTableModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return resultColumnsShown_ ? kResultColumns : kProfileColumns;
}

std::int64_t PolicyTableModel::nbOfRow(int row) const {
    const auto& policy = document_->profile().per_NB_policy;
    return row >= 0 && row < static_cast<int>(policy.size()) ? policy[static_cast<std::size_t>(row)].NB : -1;
}

int PolicyTableModel::rowOfNb(std::int64_t nb) const {
    const auto& policy = document_->profile().per_NB_policy;
    for (std::size_t row = 0; row < policy.size(); ++row)
        if (policy[row].NB == nb) return static_cast<int>(row);
    return -1;
}

QVariant PolicyTableModel::displayValue(const PolicyEntry& entry, int column) const {
    const TritonConfig& config = entry.config;
    switch (column) {
    case NbColumn: return QVariant::fromValue<qlonglong>(entry.NB);
    case BtColumn: return config.BT;
    case WarpsColumn: return config.num_warps;
    case StagesColumn: return config.num_stages;
    case CtasColumn: return config.num_ctas;
    case MaxnregColumn: return config.maxnreg ? QVariant(*config.maxnreg) : QVariant(QStringLiteral("null"));
    case BasisColumn: return QString::fromStdString(entry.basis);
    case EvidenceColumn: return evidenceText(entry);
    default: break;
    }
    auto summary = regret_.find(static_cast<int>(entry.NB));
    if (summary == regret_.end()) return {};
    const RegretSummary& r = summary->second;
    switch (column) {
    case MeasuredColumn:
        if (!r.policyQuality.isEmpty()) return QString(formatMs(r.policyMedianMs) + tr(" (not converged)"));
        return r.policyMeasured ? formatMs(r.policyMedianMs) : QVariant();
    case BestColumn:
        if (r.bestMedianMs <= 0) return {};
        return QString(configLabel(r.bestConfig) + QStringLiteral("  ") + formatMs(r.bestMedianMs));
    case RegretColumn:
        if (!r.policyQuality.isEmpty()) return tr("n/a: %1").arg(r.policyQuality);
        if (!r.policyMeasured) return {};
        return QString(QString::number((r.regret - 1.0) * 100.0, 'f', 1) + QStringLiteral(" %") +
                       regretIntervalText(r) + (r.withinNoise ? tr(" (tie)") : QString()));
    default: return {};
    }
}

QString PolicyTableModel::regretIntervalText(const RegretSummary& r) {
    if (!(r.regretHigh > 0) || r.regretLow == r.regretHigh) return {};
    return QStringLiteral(" [") + QString::number((r.regretLow - 1.0) * 100.0, 'f', 1) + QStringLiteral(", ") +
           QString::number((r.regretHigh - 1.0) * 100.0, 'f', 1) + QStringLiteral("]");
}

QString PolicyTableModel::tieSetText(const RegretSummary& r) {
    QStringList configs;
    for (const L2NormConfig& c : r.ties) configs << configLabel(c);
    return configs.isEmpty() ? tr("none recorded") : configs.join(QStringLiteral(", "));
}

QString PolicyTableModel::evidenceText(const PolicyEntry& entry) const {
    if (entry.evidence) {
        const MeasuredEvidence& e = *entry.evidence;
        return QStringLiteral("median ") + formatMs(e.median_ms) + QStringLiteral(" (p20 ") + formatMs(e.p20_ms) +
               QStringLiteral(", p80 ") + formatMs(e.p80_ms) + QStringLiteral("), ") + QString::number(e.samples) +
               QStringLiteral(" samples on ") + QString::fromStdString(e.device);
    }
    if (entry.basis == kBasisOriginal) {
        if (const SourceEvidence* source = document_->profile().evidenceFor(entry.NB))
            return tr("production autotune cache %1…").arg(QString::fromStdString(source->source_autotune_sha256.substr(0, 12)));
        return tr("no source evidence for this NB");
    }
    if (entry.isProspective()) return tr("none: no measurement backs this entry");
    return {};
}

QVariant PolicyTableModel::sortValue(const PolicyEntry& entry, int column) const {
    constexpr double kLast = std::numeric_limits<double>::max();  // unmeasured rows sort after every number
    switch (column) {
    case NbColumn: return static_cast<double>(entry.NB);
    case BtColumn: return entry.config.BT;
    case WarpsColumn: return entry.config.num_warps;
    case StagesColumn: return entry.config.num_stages;
    case CtasColumn: return entry.config.num_ctas;
    case MaxnregColumn: return entry.config.maxnreg ? *entry.config.maxnreg : -1;
    case BasisColumn:
    case EvidenceColumn: return displayValue(entry, column).toString();
    default: break;
    }
    auto summary = regret_.find(static_cast<int>(entry.NB));
    if (summary == regret_.end()) return kLast;
    const RegretSummary& r = summary->second;
    switch (column) {
    case MeasuredColumn: return r.policyMeasured ? r.policyMedianMs : kLast;
    case BestColumn: return r.bestMedianMs > 0 ? r.bestMedianMs : kLast;
    case RegretColumn: return r.policyMeasured && r.policyQuality.isEmpty() ? r.regret : kLast;
    default: return {};
    }
}

QVariant PolicyTableModel::diskValue(const PolicyEntry* entry, int column) const {
    if (!entry) return tr("(not in the file on disk)");
    return displayValue(*entry, column);
}

bool PolicyTableModel::cellChanged(const PolicyEntry& entry, int column) const {
    if (column >= kProfileColumns) return false;
    const Profile* disk = document_->diskProfile();
    if (!disk) return true;
    const PolicyEntry* before = disk->policyFor(entry.NB);
    if (!before) return true;
    if (column == NbColumn) return false;
    if (column == EvidenceColumn)
        return !sameEntry(entry, *before) && (entry.evidence.has_value() || before->evidence.has_value()) &&
               evidenceText(entry) != evidenceText(*before);
    return displayValue(entry, column) != displayValue(*before, column);
}

QVariantList PolicyTableModel::choices(const PolicyEntry& entry, int column) const {
    const TargetLimits limits = targetLimits(document_->profile());
    QVariantList list;
    auto addInts = [&list](const std::vector<int>& values, int current) {
        bool hasCurrent = false;
        for (int v : values) {
            list.push_back(v);
            hasCurrent = hasCurrent || v == current;
        }
        Q_UNUSED(hasCurrent);  // an illegal current value is not offered again: the editor only offers legal ones
    };
    switch (column) {
    case BtColumn: addInts(limits.blockRows, entry.config.BT); break;
    case WarpsColumn: addInts(limits.numWarps, entry.config.num_warps); break;
    case StagesColumn: addInts(limits.numStages, entry.config.num_stages); break;
    case CtasColumn: addInts(limits.numCtas, entry.config.num_ctas); break;
    case MaxnregColumn:
        list.push_back(QStringLiteral("null"));
        for (int v : limits.maxnreg) list.push_back(v);
        break;
    case BasisColumn: {
        QStringList bases{QString::fromUtf8(kBasisOriginal.data(), static_cast<qsizetype>(kBasisOriginal.size())),
                          QString::fromUtf8(kBasisMeasured.data(), static_cast<qsizetype>(kBasisMeasured.size())),
                          QString::fromUtf8(kBasisImportedFla.data(), static_cast<qsizetype>(kBasisImportedFla.size())),
                          manualEditBasis()};
        const QString current = QString::fromStdString(entry.basis);
        if (!bases.contains(current)) bases.prepend(current);
        for (const QString& basis : bases) list.push_back(basis);
        break;
    }
    default: break;
    }
    return list;
}

QString PolicyTableModel::resultTooltip(const PolicyEntry& entry, int column) const {
    if (!results_) return {};
    const CellStats* measured = results_->index().find(static_cast<int>(entry.NB), toL2NormConfig(entry.config));
    if (column == MeasuredColumn && !measured)
        return tr("The results have no measurement of this entry's config at NB %1.").arg(entry.NB);
    if (column == RegretColumn) {
        auto summary = regret_.find(static_cast<int>(entry.NB));
        QString tip = tr("How much slower the profile's config is than the fastest measured config at this NB.");
        if (summary != regret_.end() && summary->second.policyMeasured) {
            const RegretSummary& r = summary->second;
            tip += tr("\nProfile's config vs best: %1, paired over rounds; 95% interval of the regret %2 .. %3 %")
                       .arg(r.verdict)
                       .arg((r.regretLow - 1.0) * 100.0, 0, 'f', 2)
                       .arg((r.regretHigh - 1.0) * 100.0, 0, 'f', 2);
            tip += tr("\nTie set (indistinguishable from the fastest, docs/sweep.md): %1").arg(tieSetText(r));
        }
        return tip;
    }
    // The best column describes the best config's own record, not the profile's.
    if (column == BestColumn) {
        auto summary = regret_.find(static_cast<int>(entry.NB));
        if (summary == regret_.end() || summary->second.bestMedianMs <= 0) return {};
        measured = results_->index().find(static_cast<int>(entry.NB), summary->second.bestConfig);
    }
    if (measured)
        return tr("median %1, p20 %2, p80 %3, %4 GB/s\n%5")
            .arg(formatMs(measured->medianMs), formatMs(measured->p20Ms), formatMs(measured->p80Ms))
            .arg(measured->gbPerS, 0, 'f', 1)
            .arg(measured->quality);
    return {};
}

QVariant PolicyTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.parent().isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const auto& policy = document_->profile().per_NB_policy;
    const PolicyEntry& entry = policy[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole: return displayValue(entry, column);
    case Qt::ToolTipRole: {
        if (column >= kProfileColumns) {
            // The cell's own text first: a narrow column elides it, the tooltip never does.
            const QString text = displayValue(entry, column).toString();
            const QString details = resultTooltip(entry, column);
            if (text.isEmpty() || details.startsWith(text)) return details;
            return QString(text + (details.isEmpty() ? QString() : QStringLiteral("\n") + details));
        }
        QString tip;
        if (column == BasisColumn) tip = QString::fromStdString(entry.basis);
        if (column == BasisColumn && entry.isProspective()) tip += tr("\nProspective: no measurement backs this config.");
        if (column == EvidenceColumn) tip = evidenceText(entry);
        if (cellChanged(entry, column)) {
            const Profile* disk = document_->diskProfile();
            const QVariant before = disk ? diskValue(disk->policyFor(entry.NB), column) : QVariant(tr("(never saved)"));
            if (!tip.isEmpty()) tip += QLatin1Char('\n');
            tip += tr("Changed; on disk: %1").arg(before.toString());
        }
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::BackgroundRole:
        if (cellChanged(entry, column)) return QBrush(kChangedBackground);
        return {};
    case Qt::FontRole:
        if (cellChanged(entry, column)) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        if (column == BasisColumn && entry.isProspective()) return QBrush(QColor(170, 90, 0));
        return {};
    case Qt::TextAlignmentRole:
        if (column <= MaxnregColumn) return int(Qt::AlignCenter);
        return {};
    case ChoicesRole: return choices(entry, column);
    case ChoiceLabelsRole: {
        QStringList labels;
        for (const QVariant& v : choices(entry, column)) labels.push_back(v.toString());
        return labels;
    }
    case ChangedOnDiskRole: return cellChanged(entry, column);
    case SortRole: return sortValue(entry, column);
    case NbRole: return QVariant::fromValue<qlonglong>(entry.NB);
    default: return {};
    }
}

bool PolicyTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.row() >= rowCount()) return false;
    if (!(flags(index) & Qt::ItemIsEditable)) return false;
    const PolicyEntry& current = document_->profile().per_NB_policy[static_cast<std::size_t>(index.row())];
    // Only legal values are accepted, whatever the editor sent.
    const QVariantList legal = choices(current, index.column());
    bool isLegal = false;
    for (const QVariant& v : legal) isLegal = isLegal || v.toString() == value.toString();
    if (!isLegal) return false;

    PolicyEntry edited = current;
    bool ok = true;
    const int number = value.toInt(&ok);
    switch (index.column()) {
    case BtColumn: edited.config.BT = number; break;
    case WarpsColumn: edited.config.num_warps = number; break;
    case StagesColumn: edited.config.num_stages = number; break;
    case CtasColumn: edited.config.num_ctas = number; break;
    case MaxnregColumn:
        if (value.toString() == QLatin1String("null"))
            edited.config.maxnreg.reset();
        else
            edited.config.maxnreg = number;
        ok = true;
        break;
    case BasisColumn:
        edited.basis = value.toString().toStdString();
        if (edited.basis != kBasisMeasured) edited.evidence.reset();
        ok = true;
        break;
    default: return false;
    }
    if (!ok) return false;
    if (index.column() != BasisColumn && !(edited.config == current.config)) {
        // A hand-edited config is not what production chose nor what was measured.
        edited.basis = manualEditBasis().toStdString();
        edited.evidence.reset();
    }
    const QString text = tr("Set %1 of NB %2 to %3")
                             .arg(headerData(index.column(), Qt::Horizontal).toString())
                             .arg(current.NB)
                             .arg(value.toString());
    return document_->setEntries({edited}, text);
}

bool PolicyTableModel::applyConfigOfRow(int sourceRow, const QList<int>& rows) {
    if (sourceRow < 0 || sourceRow >= rowCount()) return false;
    const PolicyEntry& source = document_->profile().per_NB_policy[static_cast<std::size_t>(sourceRow)];
    return applyConfig(source.config, rows,
                       tr("Apply %1 (NB %2) to %3 NBs")
                           .arg(QString::fromStdString(describe(source.config)))
                           .arg(source.NB)
                           .arg(rows.size()));
}

bool PolicyTableModel::applyConfig(const TritonConfig& config, const QList<int>& rows, const QString& text) {
    std::vector<PolicyEntry> entries;
    for (int row : rows) {
        if (row < 0 || row >= rowCount()) continue;
        PolicyEntry entry = document_->profile().per_NB_policy[static_cast<std::size_t>(row)];
        if (entry.config == config) continue;
        entry.config = config;
        entry.basis = manualEditBasis().toStdString();
        entry.evidence.reset();
        entries.push_back(std::move(entry));
    }
    return document_->setEntries(entries, text);
}

Qt::ItemFlags PolicyTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid() || index.row() >= rowCount()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    switch (index.column()) {
    case BtColumn:
    case WarpsColumn:
    case StagesColumn:
    case BasisColumn: return f | Qt::ItemIsEditable;
    case CtasColumn:
    case MaxnregColumn: {
        // Editable only when the target allows more than one value (AMD: num_ctas 1 and maxnreg null, fixed).
        const PolicyEntry& entry = document_->profile().per_NB_policy[static_cast<std::size_t>(index.row())];
        return choices(entry, index.column()).size() > 1 ? f | Qt::ItemIsEditable : f;
    }
    default: return f;
    }
}

QVariant PolicyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Vertical) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case BtColumn: return tr("BT: rows per program (kwargs.BT)");
        case WarpsColumn: return tr("num_warps: warps (wavefronts on AMD) per program");
        case StagesColumn: return tr("num_stages: software-pipelining depth");
        case CtasColumn: return tr("num_ctas: CTAs per cluster (1 on AMD)");
        case MaxnregColumn: return tr("maxnreg: register cap (null on AMD)");
        case BasisColumn: return tr("Why this config: production's choice, measured best, imported, or prospective");
        case MeasuredColumn: return tr("Median of the profile's config at this NB in the loaded results");
        case BestColumn: return tr("The fastest config measured at this NB and its median");
        case RegretColumn: return tr("(profile's config / best) - 1");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case NbColumn: return tr("NB");
    case BtColumn: return tr("BT");
    case WarpsColumn: return tr("num_warps");
    case StagesColumn: return tr("num_stages");
    case CtasColumn: return tr("num_ctas");
    case MaxnregColumn: return tr("maxnreg");
    case BasisColumn: return tr("basis");
    case EvidenceColumn: return tr("evidence");
    case MeasuredColumn: return tr("measured median");
    case BestColumn: return tr("best config");
    case RegretColumn: return tr("regret");
    default: return {};
    }
}

QModelIndex PolicyTableModel::indexForPointer(const QString& pointer) const {
    static const QRegularExpression pattern(QStringLiteral("^/per_NB_policy/(\\d+)(/.*)?$"));
    const auto match = pattern.match(pointer);
    if (!match.hasMatch()) return {};
    const int row = match.captured(1).toInt();
    if (row < 0 || row >= rowCount()) return {};
    const QString rest = match.captured(2);
    int column = NbColumn;
    if (rest.startsWith(QLatin1String("/config/kwargs"))) column = BtColumn;
    else if (rest.startsWith(QLatin1String("/config/num_warps"))) column = WarpsColumn;
    else if (rest.startsWith(QLatin1String("/config/num_stages"))) column = StagesColumn;
    else if (rest.startsWith(QLatin1String("/config/num_ctas"))) column = CtasColumn;
    else if (rest.startsWith(QLatin1String("/config/maxnreg"))) column = MaxnregColumn;
    else if (rest.startsWith(QLatin1String("/config"))) column = BtColumn;
    else if (rest.startsWith(QLatin1String("/basis"))) column = BasisColumn;
    else if (rest.startsWith(QLatin1String("/evidence"))) column = EvidenceColumn;
    return index(row, column);
}

QString PolicyTableModel::pointerForIndex(const QModelIndex& index) const {
    if (!index.isValid()) return {};
    const QString base = QStringLiteral("/per_NB_policy/") + QString::number(index.row());
    switch (index.column()) {
    case BtColumn: return base + QStringLiteral("/config/kwargs/BT");
    case WarpsColumn: return base + QStringLiteral("/config/num_warps");
    case StagesColumn: return base + QStringLiteral("/config/num_stages");
    case CtasColumn: return base + QStringLiteral("/config/num_ctas");
    case MaxnregColumn: return base + QStringLiteral("/config/maxnreg");
    case BasisColumn: return base + QStringLiteral("/basis");
    case EvidenceColumn: return base + QStringLiteral("/evidence");
    default: return base;
    }
}

void PolicyTableModel::onEntriesChanged(const std::vector<std::int64_t>& nbs) {
    recomputeRegret();
    for (std::int64_t nb : nbs) {
        const int row = rowOfNb(nb);
        if (row >= 0) emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    }
}

void PolicyTableModel::onReset() {
    beginResetModel();
    recomputeRegret();
    endResetModel();
}

}  // namespace tunescope::ui
