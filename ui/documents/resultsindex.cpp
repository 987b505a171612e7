#include "documents/resultsindex.hpp"

#include <algorithm>
#include <tuple>

#include "tunescope/base/text_fields.hpp"

namespace tunescope::ui {

QString configLabel(const L2NormConfig& config) {
    QString label = QStringLiteral("BT") + QString::number(config.blockRows) + QStringLiteral(" w") + QString::number(config.numWarps) +
                    QStringLiteral(" s") + QString::number(config.numStages);
    if (config.numCtas != 1) label += QStringLiteral(" c") + QString::number(config.numCtas);
    return label;
}

QString formatUs(double ms) { return QString::fromStdString(tunescope::formatUs(ms)); }

QString formatMs(double ms) {
    if (ms < 1.0) return formatUs(ms);
    if (ms < 1000.0) return QString::number(ms, 'f', 3) + QStringLiteral(" ms");
    return QString::number(ms / 1000.0, 'f', 3) + QStringLiteral(" s");
}

bool configLess(const L2NormConfig& a, const L2NormConfig& b) {
    return std::tie(a.blockRows, a.numWarps, a.numStages, a.numCtas) <
           std::tie(b.blockRows, b.numWarps, b.numStages, b.numCtas);
}

void ResultsIndex::clear() {
    nbs_.clear();
    configs_.clear();
    cellsByNb_.clear();
    copyByNb_.clear();
    columnIds_.clear();
    measurementCount_ = 0;
}

void ResultsIndex::add(int nb, const L2NormConfig& config, const CellStats& stats) {
    if (config.numCtas <= 0) return;
    auto nbIt = std::lower_bound(nbs_.begin(), nbs_.end(), nb);
    if (nbIt == nbs_.end() || *nbIt != nb) nbs_.insert(nbIt, nb);

    auto columnIt = std::lower_bound(configs_.begin(), configs_.end(), config, configLess);
    std::size_t id = 0;
    if (columnIt != configs_.end() && *columnIt == config) {
        id = columnIds_[static_cast<std::size_t>(columnIt - configs_.begin())];
    } else {
        id = columnIds_.size();  // ids are never reused
        const auto position = columnIt - configs_.begin();
        configs_.insert(columnIt, config);
        columnIds_.insert(columnIds_.begin() + position, id);
    }
    auto [it, inserted] = cellsByNb_[nb].insert_or_assign(id, stats);
    (void)it;
    if (inserted) ++measurementCount_;
}

void ResultsIndex::addCopy(int nb, const CellStats& stats) {
    copyByNb_[nb] = stats;
    auto nbIt = std::lower_bound(nbs_.begin(), nbs_.end(), nb);
    if (nbIt == nbs_.end() || *nbIt != nb) nbs_.insert(nbIt, nb);
}

int ResultsIndex::nbRow(int nb) const {
    auto it = std::lower_bound(nbs_.begin(), nbs_.end(), nb);
    return it != nbs_.end() && *it == nb ? static_cast<int>(it - nbs_.begin()) : -1;
}

int ResultsIndex::configColumn(const L2NormConfig& config) const {
    auto it = std::lower_bound(configs_.begin(), configs_.end(), config, configLess);
    return it != configs_.end() && *it == config ? static_cast<int>(it - configs_.begin()) : -1;
}

const CellStats* ResultsIndex::cell(int row, int column) const {
    if (row < 0 || column < 0 || row >= static_cast<int>(nbs_.size()) || column >= static_cast<int>(configs_.size()))
        return nullptr;
    auto nbIt = cellsByNb_.find(nbs_[static_cast<std::size_t>(row)]);
    if (nbIt == cellsByNb_.end()) return nullptr;
    auto it = nbIt->second.find(columnIds_[static_cast<std::size_t>(column)]);
    return it == nbIt->second.end() ? nullptr : &it->second;
}

const CellStats* ResultsIndex::find(int nb, const L2NormConfig& config) const {
    return cell(nbRow(nb), configColumn(config));
}

const CellStats* ResultsIndex::copy(int nb) const {
    auto it = copyByNb_.find(nb);
    return it == copyByNb_.end() ? nullptr : &it->second;
}

int ResultsIndex::bestColumn(int row) const {
    int best = -1;
    double bestMedian = 0;
    for (int column = 0; column < static_cast<int>(configs_.size()); ++column) {
        const CellStats* stats = cell(row, column);
        if (stats && stats->trustworthy && (best < 0 || stats->medianMs < bestMedian)) {
            best = column;
            bestMedian = stats->medianMs;
        }
    }
    return best;
}

const CellStats* ResultsIndex::best(int nb) const {
    const int row = nbRow(nb);
    return cell(row, bestColumn(row));
}

}  // namespace tunescope::ui
