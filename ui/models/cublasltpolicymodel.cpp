#include "models/cublasltpolicymodel.hpp"

#include <QCoreApplication>

namespace tunescope::ui {

namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

QString typeName(const std::string& cudaName) {
    const std::string prefix = "CUDA_R_";
    return q(cudaName.rfind(prefix, 0) == 0 ? cudaName.substr(prefix.size()) : cudaName);
}

}  // namespace

void CublasLtPolicyModel::setPolicy(CublasLtPolicy policy) {
    beginResetModel();
    policy_ = std::move(policy);
    endResetModel();
}

int CublasLtPolicyModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(policy_.entries.size());
}

int CublasLtPolicyModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString CublasLtPolicyModel::shapeText(const LtPolicyEntry& e) {
    const Json problem = e.matmul.original.value("row_major_problem", Json());
    if (problem.is_object() && problem.value("m", Json()).is_number_integer() && problem.value("layout", Json()).is_string())
        return QStringLiteral("%1x%2x%3 %4 %5")
            .arg(problem["m"].get<qint64>())
            .arg(problem.value("n", 0))
            .arg(problem.value("k", 0))
            .arg(q(problem["layout"].get<std::string>()), q(problem.value("dtype", std::string())));
    return tr("m=%1 n=%2 k=%3 (cuBLASLt)").arg(e.matmul.m).arg(e.matmul.n).arg(e.matmul.k);
}

QVariant CublasLtPolicyModel::display(const LtPolicyEntry& e, int column) const {
    const LtPolicyGain& g = e.gain;
    switch (column) {
    case ShapeColumn: return shapeText(e);
    case TypesColumn:
        return QStringLiteral("%1 x %2 -> %3").arg(typeName(e.matmul.a_type), typeName(e.matmul.b_type), typeName(e.matmul.d_type));
    case AlgorithmColumn: {
        if (!e.isCublasLt())
            return tr("%1 solution %2").arg(q(e.library)).arg(e.algo.solution_index.value_or(0));
        if (!e.algo.attributes) return tr("(no attributes)");
        const LtAlgoAttributes& a = *e.algo.attributes;
        return tr("algo %1, tile %2, stages %3, custom %4, cluster %5")
            .arg(a.algo_id)
            .arg(e.algo.tile ? q(*e.algo.tile) : QString::number(a.tile_id))
            .arg(e.algo.stages ? q(*e.algo.stages) : QString::number(a.stages_id))
            .arg(a.custom_option)
            .arg(e.algo.cluster ? q(*e.algo.cluster) : QString::number(a.cluster_shape_id.value_or(0)));
    }
    case BytesColumn:
        if (!e.isCublasLt()) return QString();
        return e.algo.data ? tr("raw bytes") : tr("rebuilt from attributes");
    case GainColumn:
        return g.over_heuristic ? QStringLiteral("%1%").arg(g.percent, 0, 'f', 2) : tr("heuristic kept");
    case IntervalColumn:
        if (!g.interval_95_percent) return QStringLiteral("-");
        return QStringLiteral("[%1, %2]").arg(g.interval_95_percent->first, 0, 'f', 2).arg(g.interval_95_percent->second, 0, 'f', 2);
    case RegimeColumn: return QStringLiteral("%1, %2").arg(q(g.regime), q(g.basis));
    case TiesColumn:
        if (!e.ties) return tr("not recorded");
        return e.ties->members.size() <= 1 ? tr("none") : tr("%1 tied").arg(e.ties->members.size());
    case GpuColumn: return QStringLiteral("%1 (%2)").arg(q(e.environment.gpu), q(e.environment.architecture));
    case VersionColumn:
        return e.environment.cublaslt_version ? QVariant(qint64(*e.environment.cublaslt_version))
                                              : QVariant(q(e.environment.hipblaslt_version.value_or("-")));
    default: return {};
    }
}

QVariant CublasLtPolicyModel::sortValue(const LtPolicyEntry& e, int column) const {
    switch (column) {
    case ShapeColumn: return double(e.matmul.m) * double(e.matmul.n) * double(e.matmul.k);
    case GainColumn: return e.gain.over_heuristic ? e.gain.percent : 0.0;
    case IntervalColumn: return e.gain.interval_95_percent ? e.gain.interval_95_percent->first : -1e9;
    case TiesColumn: return e.ties ? int(e.ties->members.size()) : -1;
    case VersionColumn: return qint64(e.environment.cublaslt_version.value_or(0));
    default: return display(e, column);
    }
}

QVariant CublasLtPolicyModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const LtPolicyEntry& e = policy_.entries[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole: return display(e, index.column());
    case SortRole: return sortValue(e, index.column());
    case Qt::ToolTipRole:
        if (index.column() == ShapeColumn) return q(describe(e.matmul));
        if (index.column() == AlgorithmColumn && e.algo.attributes) return q(describe(*e.algo.attributes));
        if (index.column() == GainColumn && e.gain.original.contains("reason") && e.gain.original["reason"].is_string())
            return q(e.gain.original["reason"].get<std::string>());
        if (index.column() == TiesColumn && e.ties) return q(e.ties->rule);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == GainColumn || index.column() == VersionColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    default: return {};
    }
}

QVariant CublasLtPolicyModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    static const char* names[] = {"Shape (M x N x K)", "Types", "Algorithm", "Bytes", "Gain",
                                  "95% interval", "Regime, basis", "Ties", "GPU", "cuBLASLt"};
    return section >= 0 && section < ColumnCount ? QCoreApplication::translate("CublasLtPolicyModel", names[section]) : QVariant();
}

}  // namespace tunescope::ui
