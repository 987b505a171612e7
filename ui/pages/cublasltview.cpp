#include "pages/cublasltview.hpp"

#include <map>
#include <set>

#include <QComboBox>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "models/jsontreemodel.hpp"
#include "tunescope/gemm/gemm_driver.hpp"
#include "tunescope/gemm/gemm_enum_names.hpp"

namespace tunescope::ui {
namespace {

QString bytesText(std::int64_t bytes) {
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return QString::number(bytes >> 20) + QStringLiteral(" MiB");
    // "1.5 GiB", "12.3 MiB": ten digits of bytes are unreadable at a glance (the exact count is in the report).
    if (bytes >= (1LL << 30)) return QString::number(static_cast<double>(bytes) / (1LL << 30), 'f', 1) + QStringLiteral(" GiB");
    if (bytes >= (1LL << 20)) return QString::number(static_cast<double>(bytes) / (1LL << 20), 'f', 1) + QStringLiteral(" MiB");
    if (bytes >= (1LL << 10)) return QString::number(static_cast<double>(bytes) / (1LL << 10), 'f', 1) + QStringLiteral(" KiB");
    return QString::number(bytes) + QStringLiteral(" B");
}

QString withName(std::int64_t id, const std::string& name) {
    return name.empty() ? QString::number(id) : QString::number(id) + QStringLiteral(" (") + QString::fromStdString(name) + QLatin1Char(')');
}

QString optionalInt(const std::optional<std::int64_t>& value) {
    return value ? QString::number(*value) : QStringLiteral("-");
}

QStandardItem* item(const QString& text) {
    auto* cell = new QStandardItem(text);
    cell->setEditable(false);
    return cell;
}

QList<QStandardItem*> algorithmRow(int rank, const HeuristicAlgorithm& algo) {
    const CublasLtAlgoConfig& c = algo.config;
    QList<QStandardItem*> row{
        item(QStringLiteral("#") + QString::number(rank)),
        item(QString::number(c.algorithm_id)),
        item(withName(c.tile_id, gemm_enums::tileName(c.tile_id))),
        item(withName(c.stages_id, gemm_enums::stagesName(c.stages_id))),
        item(QString::number(c.split_k)),
        item(QString::number(c.reduction_scheme)),
        item(QString::number(c.custom_option)),
        item(QString::number(c.cta_swizzle)),
        item(c.inner_shape ? withName(*c.inner_shape, gemm_enums::innerShapeName(*c.inner_shape)) : QStringLiteral("-")),
        item(c.cluster_shape ? withName(*c.cluster_shape, gemm_enums::clusterShapeName(*c.cluster_shape)) : QStringLiteral("-")),
        item(algo.required_workspace_bytes ? bytesText(*algo.required_workspace_bytes) : QStringLiteral("-")),
        item(algo.waves ? QString::number(*algo.waves, 'f', 2) : QStringLiteral("-")),
        item(optionalInt(algo.state)),
    };
    if (c.split_k < 0)
        row[4]->setToolTip(QCoreApplication::translate("CublasLtView",
                                                       "Negative split-k: an undocumented heuristic sentinel, kept as "
                                                       "cuBLASLt returned it"));
    if (algo.capabilities && algo.capabilities->original.is_object())
        row[1]->setToolTip(QCoreApplication::translate("CublasLtView", "capabilities: %1")
                               .arg(QString::fromStdString(dumpJson(algo.capabilities->original, -1))));
    return row;
}

const Json* member(const Json& object, const char* name) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(name);
    return it == object.end() ? nullptr : &*it;
}

double numberOr(const Json* value, double fallback) { return value && value->is_number() ? value->get<double>() : fallback; }

}  // namespace

void fillHeuristicsModel(QStandardItemModel* model, const CublasLtReport& report) {
    model->clear();
    model->setHorizontalHeaderLabels({QCoreApplication::translate("CublasLtView", "workspace / rank"),
                                      QStringLiteral("algo"), QStringLiteral("tile"), QStringLiteral("stages"),
                                      QStringLiteral("split_k"), QStringLiteral("reduction"), QStringLiteral("custom"),
                                      QStringLiteral("swizzle"), QStringLiteral("inner"), QStringLiteral("cluster"),
                                      QStringLiteral("workspace"), QStringLiteral("waves"), QStringLiteral("state")});
    for (const HeuristicSet& set : report.heuristics) {
        auto* top = item(QCoreApplication::translate("CublasLtView", "max workspace %1: %2 of %3 returned")
                             .arg(bytesText(set.max_workspace_bytes), optionalInt(set.returned_count),
                                  optionalInt(set.requested_count)));
        QList<QStandardItem*> topRow{top};
        for (int i = 1; i < model->columnCount(); ++i) topRow.push_back(item({}));
        int rank = 0;
        for (const HeuristicAlgorithm& algo : set.algorithms) {
            QList<QStandardItem*> row = algorithmRow(rank++, algo);
            // The config the report selected stands out wherever the heuristic returned it.
            if (report.selected && algo.config == report.selected->config) {
                row[0]->setText(QStringLiteral("\u25B6 ") + row[0]->text() + QCoreApplication::translate("CublasLtView", " (selected)"));
                row[0]->setToolTip(QCoreApplication::translate("CublasLtView", "The config this report selected"));
                for (QStandardItem* cell : row) {
                    QFont font = cell->font();
                    font.setBold(true);
                    cell->setFont(font);
                }
            }
            top->appendRow(row);
        }
        model->appendRow(topRow);
    }
}

void fillSplitKModel(QStandardItemModel* model, const CublasLtReport& report) {
    model->clear();
    std::set<std::int64_t> splits, schemes;
    std::map<std::pair<std::int64_t, std::int64_t>, const SplitKCheck*> cells;
    for (const SplitKCheck& check : report.explicit_split_k_checks) {
        const CublasLtAlgoConfig& c = check.requested_config ? check.requested_config->config : check.result.config;
        splits.insert(c.split_k);
        schemes.insert(c.reduction_scheme);
        cells[{c.split_k, c.reduction_scheme}] = &check;
    }
    QStringList columns;
    for (std::int64_t scheme : schemes) {
        static const char* names[] = {"NONE", "INPLACE", "COMPUTE_TYPE", "", "OUTPUT_TYPE"};
        const QString name = scheme >= 0 && scheme <= 4 ? QString::fromLatin1(names[scheme]) : QString();
        columns.push_back(QCoreApplication::translate("CublasLtView", "reduction %1%2")
                              .arg(scheme)
                              .arg(name.isEmpty() ? QString() : QStringLiteral(" ") + name));
    }
    model->setHorizontalHeaderLabels(columns);
    int row = 0;
    for (std::int64_t split : splits) {
        model->setVerticalHeaderItem(row, item(QStringLiteral("split_k ") + QString::number(split)));
        int column = 0;
        for (std::int64_t scheme : schemes) {
            auto it = cells.find({split, scheme});
            QStandardItem* cell = item(QStringLiteral(""));
            if (it != cells.end()) {
                const HeuristicAlgorithm& r = it->second->result;
                const bool valid = r.valid.value_or(r.state.value_or(1) == 0);
                const Json* note = member(r.original, "note");
                const Json* overCap = member(r.original, "over_workspace_cap");
                const bool needsMore = overCap && overCap->is_boolean() && overCap->get<bool>();
                QString text = valid ? (needsMore ? QCoreApplication::translate("CublasLtView", "needs %1")
                                                         .arg(bytesText(r.required_workspace_bytes.value_or(0)))
                                                  : QCoreApplication::translate("CublasLtView", "valid, workspace %1")
                                                         .arg(bytesText(r.required_workspace_bytes.value_or(0))))
                                     : QCoreApplication::translate("CublasLtView", "invalid (state %1)").arg(optionalInt(r.state));
                if (scheme == 4 && split > 1) text += QCoreApplication::translate("CublasLtView", ", reduced precision");
                cell->setText(text);
                cell->setToolTip(note && note->is_string() ? QString::fromStdString(note->get<std::string>()) : text);
                cell->setBackground(valid ? (needsMore ? QColor(255, 236, 179) : QColor(210, 240, 210)) : QColor(245, 215, 215));
            } else {
                cell->setText(QCoreApplication::translate("CublasLtView", "not checked"));
                cell->setForeground(Qt::gray);
            }
            model->setItem(row, column++, cell);
        }
        ++row;
    }
}

namespace {

// "#470 algo 66 192x224 64xAUTO custom 7 cluster 2x1x1" (+ split-k and swizzle when they are not the default).
QString shortCandidateLabel(int index, const Json& c) {
    auto number = [&c](const char* name) { return static_cast<long long>(numberOr(member(c, name), 0)); };
    auto named = [](long long id, const std::string& name) { return name.empty() ? QString::number(id) : QString::fromStdString(name); };
    QString label = QStringLiteral("#") + QString::number(index) + QStringLiteral(" algo ") + QString::number(number("algorithm_id")) +
                    QLatin1Char(' ') + named(number("tile_id"), gemm_enums::tileName(number("tile_id"))) + QLatin1Char(' ') +
                    named(number("stages_id"), gemm_enums::stagesName(number("stages_id"))) + QStringLiteral(" custom ") +
                    QString::number(number("custom_option"));
    if (number("split_k") != 1)
        label += QStringLiteral(" splitK ") + QString::number(number("split_k")) + QStringLiteral(" red ") +
                 QString::number(number("reduction_scheme"));
    if (number("cta_swizzle") != 0) label += QStringLiteral(" swizzle ") + QString::number(number("cta_swizzle"));
    if (number("cluster_shape") != 0)
        label += QStringLiteral(" cluster ") + named(number("cluster_shape"), gemm_enums::clusterShapeName(number("cluster_shape")));
    return label;
}

}  // namespace

std::vector<CandidateBar> candidateBars(const CublasLtReport& report, QString* axisNote, bool* seconds) {
    std::vector<CandidateBar> bars;
    if (seconds) *seconds = false;
    const Json* candidates = member(report.original, "candidates");
    const Json* selected = member(report.original, "selected");
    const int selectedIndex = static_cast<int>(numberOr(selected ? member(*selected, "candidate_index") : nullptr, -1));
    const int baselineIndex = static_cast<int>(numberOr(selected ? member(*selected, "baseline_candidate_index") : nullptr, -1));
    if (candidates && candidates->is_array() && !candidates->empty()) {
        // The finalists were re-timed back to back with the measurement engine: those are comparable with each
        // other. First-pass numbers come from a different, shorter method, so they are charted only when there
        // are no finalists.
        std::vector<CandidateBar> finalists, firstPass;
        for (const Json& c : *candidates) {
            if (!c.is_object()) continue;
            CandidateBar bar;
            const int index = static_cast<int>(numberOr(member(c, "index"), -1));
            bar.label = shortCandidateLabel(index, c);
            try {
                bar.details = QString::fromStdString(gemm::algoConfigFromJson(c, report.fileName, "/candidates").describe());
            } catch (const std::exception&) {
            }
            bar.baseline = index == baselineIndex;
            bar.selected = index == selectedIndex;
            auto addDetail = [&bar](const QString& line) { bar.details += (bar.details.isEmpty() ? QString() : QStringLiteral("\n")) + line; };
            const Json* error = member(c, "error");
            if (error && error->is_string()) addDetail(QString::fromStdString(error->get<std::string>()));
            if (const Json* parity = member(c, "parity"); parity && parity->is_object()) {
                const Json* equal = member(*parity, "bitwise_equal_to_baseline");
                const double relError = numberOr(member(*parity, "max_rel_error"), -1);
                bar.parity = equal && equal->is_boolean() && equal->get<bool>() ? CandidateBar::Parity::BitwiseEqual
                             : relError >= 0 && relError <= 1e-2              ? CandidateBar::Parity::WithinBound
                                                                              : CandidateBar::Parity::Different;
                if (relError >= 0) addDetail(QStringLiteral("max rel. error vs FP32 reference ") + QString::number(relError, 'g', 3));
            }
            if (const Json* source = member(c, "source"); source && source->is_string())
                addDetail(QStringLiteral("found by: ") + QString::fromStdString(source->get<std::string>()));
            const Json* final = member(c, "final");
            const Json* first = member(c, "first_pass");
            if (const Json* power = member(c, "power"); power && power->is_object()) {
                const double watts = numberOr(member(*power, "mean_power_w"), -1);
                const double limit = numberOr(member(*power, "power_limit_w"), -1);
                const double joules = numberOr(member(*power, "joules_per_launch"), -1);
                const double mhz = numberOr(member(*power, "mean_sm_clock_mhz"), -1);
                const double megacycles = numberOr(member(*power, "megacycles_per_launch"), -1);
                const Json* limited = member(*power, "power_limited");
                QString line = QCoreApplication::translate("CublasLtView", "power window:");
                if (watts > 0) line += QStringLiteral(" %1 W").arg(watts, 0, 'f', 0);
                if (limit > 0) line += QCoreApplication::translate("CublasLtView", " of %1 W").arg(limit, 0, 'f', 0);
                if (joules > 0) line += QStringLiteral(", %1 J/launch").arg(joules, 0, 'f', 3);
                if (mhz > 0) line += QStringLiteral(", %1 MHz").arg(mhz, 0, 'f', 0);
                if (megacycles > 0) line += QStringLiteral(", %1 Mcycles").arg(megacycles, 0, 'f', 2);
                if (limited && limited->is_boolean() && limited->get<bool>())
                    line += QCoreApplication::translate("CublasLtView", " (power-limited)");
                addDetail(line);
            }
            if (final && final->is_object()) {
                bar.medianMs = numberOr(member(*final, "median_ms"), 0);
                bar.p20Ms = numberOr(member(*final, "p20_ms"), 0);
                bar.p80Ms = numberOr(member(*final, "p80_ms"), 0);
                if (const Json* verdict = member(*final, "verdict_vs_baseline"); verdict && verdict->is_string())
                    addDetail(QStringLiteral("vs baseline: ") + QString::fromStdString(verdict->get<std::string>()));
                if (bar.medianMs > 0) finalists.push_back(bar);
            } else if (first && first->is_object()) {
                bar.medianMs = numberOr(member(*first, "median_ms"), 0);
                addDetail(QStringLiteral("first pass only (not a finalist)"));
                if (bar.medianMs > 0) firstPass.push_back(bar);
            }
        }
        auto byMedian = [](const CandidateBar& a, const CandidateBar& b) { return a.medianMs < b.medianMs; };
        std::sort(finalists.begin(), finalists.end(), byMedian);
        std::sort(firstPass.begin(), firstPass.end(), byMedian);
        if (!finalists.empty()) {
            bars = finalists;
            if (axisNote)
                *axisNote = QCoreApplication::translate("CublasLtView", "finalists re-timed back to back: median ms per GEMM call, "
                                                                        "whiskers p20-p80 (%1 candidates timed in the first pass)")
                                .arg(finalists.size() + firstPass.size());
        } else {
            for (const CandidateBar& bar : firstPass) {
                if (bars.size() >= 20) break;
                bars.push_back(bar);
            }
            if (axisNote)
                *axisNote = QCoreApplication::translate("CublasLtView", "first-pass median ms per GEMM call, fastest %1 of %2")
                                .arg(bars.size())
                                .arg(firstPass.size());
        }
        return bars;
    }
    // The seed format has no per-candidate timings: show its end-to-end run, baseline against the selected config.
    if (report.trajectory && report.trajectory->baseline_seconds && report.trajectory->candidate_seconds) {
        const Trajectory& t = *report.trajectory;
        CandidateBar baseline;
        baseline.label = QCoreApplication::translate("CublasLtView", "production run");
        baseline.medianMs = *t.baseline_seconds * 1000.0;
        baseline.baseline = true;
        baseline.parity = CandidateBar::Parity::BitwiseEqual;
        CandidateBar candidate;
        candidate.label = QCoreApplication::translate("CublasLtView", "run with the selected config");
        if (t.selected_config) candidate.details = QString::fromStdString(describe(t.selected_config->config));
        candidate.medianMs = *t.candidate_seconds * 1000.0;
        candidate.selected = true;
        const bool exact = t.bf16_exact.value_or(false);
        candidate.parity = exact ? CandidateBar::Parity::BitwiseEqual : CandidateBar::Parity::Different;
        candidate.details += QCoreApplication::translate("CublasLtView", "\nend-to-end trajectory, %1 % faster; bf16 exact: %2")
                                 .arg(t.improvement_percent.value_or(0), 0, 'f', 2)
                                 .arg(exact ? QStringLiteral("yes") : QStringLiteral("no"));
        bars = {baseline, candidate};
        if (seconds) *seconds = true;
        if (axisNote)
            *axisNote = QCoreApplication::translate("CublasLtView", "whole trajectory wall time in seconds (this report has no "
                                                                    "per-candidate GEMM timings)");
    }
    return bars;
}

QString selectionSummary(const CublasLtReport& report) {
    QString text;
    if (report.selected) {
        text = QCoreApplication::translate("CublasLtView", "Selected: %1").arg(QString::fromStdString(describe(report.selected->config)));
        const Json& s = report.selected->original;
        if (const Json* reason = member(s, "reason"); reason && reason->is_string())
            text += QStringLiteral("\n") + QString::fromStdString(reason->get<std::string>());
        if (const Json* gain = member(s, "improvement_percent"); gain && gain->is_number())
            text += QCoreApplication::translate("CublasLtView", "\nGain over the heuristic top: %1 %").arg(gain->get<double>(), 0, 'f', 2);
    } else {
        text = QCoreApplication::translate("CublasLtView", "No config selected in this report.");
    }
    if (report.trajectory) {
        const Trajectory& t = *report.trajectory;
        if (t.improvement_percent)
            text += QCoreApplication::translate("CublasLtView", "\nEnd-to-end: %1 s -> %2 s (%3 % faster), bf16 exact: %4")
                        .arg(t.baseline_seconds.value_or(0), 0, 'f', 2)
                        .arg(t.candidate_seconds.value_or(0), 0, 'f', 2)
                        .arg(*t.improvement_percent, 0, 'f', 2)
                        .arg(t.bf16_exact.value_or(false) ? QStringLiteral("yes") : QStringLiteral("no"));
        if (t.dispatch_delta)
            text += QCoreApplication::translate("CublasLtView", "; dispatch %1/%2 successes, %3 fallbacks")
                        .arg(optionalInt(t.dispatch_delta->successes), optionalInt(t.dispatch_delta->attempts),
                             optionalInt(t.dispatch_delta->fallbacks));
    }
    if (const Json* power = member(report.original, "power_state"); power && power->is_object()) {
        const Json* measured = member(*power, "measured");
        const Json* note = member(*power, "note");
        if (measured && measured->is_boolean() && measured->get<bool>() && note && note->is_string())
            text += QCoreApplication::translate("CublasLtView", "\nPower: %1").arg(QString::fromStdString(note->get<std::string>()));
    }
    for (const UnsupportedFeature& feature : report.errors_and_unsupported)
        text += QCoreApplication::translate("CublasLtView", "\nUnsupported: %1: %2")
                    .arg(QString::fromStdString(feature.feature), QString::fromStdString(feature.reason.value_or("")));
    return text;
}

CublasLtView::CublasLtView(QWidget* parent)
    : QWidget(parent), summary_(new QLabel(this)), selected_(new QLabel(this)), tabs_(new QTabWidget(this)),
      heuristicsView_(new QTreeView(this)), splitKView_(new QTableView(this)), rawView_(new QTreeView(this)),
      heuristics_(new QStandardItemModel(this)), splitK_(new QStandardItemModel(this)), raw_(new JsonTreeModel(this)),
      candidatesPlot_(new PlotWidget(PlotWidget::Kind::Candidates, this)), log_(new QPlainTextEdit(this)),
      explore_(new QPushButton(tr("Run exploration..."), this)) {
    setObjectName(QStringLiteral("cublasLtView"));
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open report..."), this);
    auto* exportButton = new QPushButton(tr("Export report..."), this);
    explore_->setToolTip(tr("Explore cuBLASLt on this machine's CUDA device (needs the cuBLASLt plugin and a GPU)"));
    buttons->addWidget(open);
    buttons->addWidget(explore_);
    buttons->addWidget(exportButton);
    buttons->addStretch();
    layout->addLayout(buttons);
    summary_->setObjectName(QStringLiteral("cublasLtSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    layout->addWidget(summary_);
    selected_->setObjectName(QStringLiteral("cublasLtSelected"));
    selected_->setWordWrap(true);
    selected_->setTextFormat(Qt::PlainText);
    selected_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    selected_->setFrameShape(QFrame::StyledPanel);
    selected_->setMargin(6);
    layout->addWidget(selected_);

    heuristicsView_->setObjectName(QStringLiteral("heuristicsView"));
    heuristicsView_->setModel(heuristics_);
    heuristicsView_->setAlternatingRowColors(true);
    heuristicsView_->setUniformRowHeights(true);
    splitKView_->setObjectName(QStringLiteral("splitKView"));
    splitKView_->setModel(splitK_);
    splitKView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    rawView_->setObjectName(QStringLiteral("reportRawView"));
    rawView_->setModel(raw_);
    rawView_->setUniformRowHeights(true);
    candidatesPlot_->setObjectName(QStringLiteral("candidatesPlot"));
    tabs_->addTab(heuristicsView_, tr("Heuristics per workspace"));
    tabs_->addTab(splitKView_, tr("Split-k grid"));
    tabs_->addTab(candidatesPlot_, tr("Candidates"));
    tabs_->addTab(rawView_, tr("Document"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);
    log_->setPlaceholderText(tr("Exploration progress appears here."));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tabs_);
    splitter->addWidget(log_);
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(open, &QPushButton::clicked, this, &CublasLtView::openDialog);
    connect(exportButton, &QPushButton::clicked, this, &CublasLtView::exportDialog);
    connect(explore_, &QPushButton::clicked, this, &CublasLtView::exploreDialog);
    showReport();
}

bool CublasLtView::openReport(const QString& path, QString* error) {
    try {
        setReport(loadReport(path.toStdString()), path);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    emit reportOpened(path);
    return true;
}

void CublasLtView::setReport(CublasLtReport report, const QString& path) {
    report_ = std::move(report);
    path_ = path;
    showReport();
}

void CublasLtView::showReport() {
    if (!report_) {
        summary_->setText(tr("No cuBLASLt report open. Open one (the bundled sample is the GB10 NVFP4 fc2 report) or run "
                             "an exploration on a CUDA device."));
        selected_->setText({});
        heuristics_->clear();
        splitK_->clear();
        raw_->setDocument(Json::object());
        candidatesPlot_->setCandidates({});
        return;
    }
    const CublasLtReport& r = *report_;
    QString shape;
    if (r.fc2_boundary && r.fc2_boundary->descriptor_mnk_after_padding && r.fc2_boundary->descriptor_mnk_after_padding->size() == 3) {
        const auto& mnk = *r.fc2_boundary->descriptor_mnk_after_padding;
        shape = QStringLiteral("%1 x %2 x %3").arg(mnk[0]).arg(mnk[1]).arg(mnk[2]);
    } else if (r.workload && r.workload->original.contains("gemm")) {
        try {
            shape = QString::fromStdString(describe(gemmSpecFromJson(r.workload->original["gemm"], r.fileName, "/workload/gemm")));
        } catch (const std::exception&) {
        }
    }
    const QString device = r.environment && r.environment->device ? QString::fromStdString(*r.environment->device) : tr("unknown device");
    summary_->setText(tr("%1: mode %2 on %3, GEMM %4; %5 workspace sizes, %6 split-k checks.")
                          .arg(QFileInfo(path_).fileName(), QString::fromStdString(r.mode.value_or("?")), device,
                               shape.isEmpty() ? tr("(shape not recorded)") : shape)
                          .arg(r.heuristics.size())
                          .arg(r.explicit_split_k_checks.size()));
    selected_->setText(selectionSummary(r));
    fillHeuristicsModel(heuristics_, r);
    heuristicsView_->expandAll();
    for (int column = 0; column < heuristics_->columnCount(); ++column) heuristicsView_->resizeColumnToContents(column);
    fillSplitKModel(splitK_, r);
    raw_->setDocument(r.original);
    rawView_->expandToDepth(0);
    rawView_->resizeColumnToContents(0);
    QString axisNote;
    bool seconds = false;
    std::vector<CandidateBar> bars = candidateBars(r, &axisNote, &seconds);
    candidatesPlot_->setCandidates(std::move(bars), axisNote, seconds);
}

bool CublasLtView::exportReport(const QString& path, QString* error) {
    if (!report_) {
        if (error) *error = tr("No report to export.");
        return false;
    }
    try {
        saveReport(*report_, path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

void CublasLtView::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open cuBLASLt report"), QString(), tr("Reports (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openReport(path, &error)) QMessageBox::warning(this, tr("Open report"), error);
}

void CublasLtView::exportDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export cuBLASLt report"), path_, tr("Reports (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportReport(path, &error)) QMessageBox::warning(this, tr("Export report"), error);
    else emit message(tr("Report written to %1").arg(path));
}

void CublasLtView::log(const QString& line) { log_->appendPlainText(line); }

void CublasLtView::exploreDialog() {
    if (exploration_.isRunning()) {
        emit message(tr("An exploration is already running."));
        return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Run a cuBLASLt exploration"));
    auto* form = new QFormLayout(&dialog);
    auto* m = new QSpinBox(&dialog);
    auto* n = new QSpinBox(&dialog);
    auto* k = new QSpinBox(&dialog);
    for (QSpinBox* box : {m, n, k}) box->setRange(1, 1 << 30);
    m->setValue(37824);
    n->setValue(5376);
    k->setValue(14336);
    auto* dtype = new QComboBox(&dialog);
    dtype->addItems({QStringLiteral("bf16"), QStringLiteral("fp8"), QStringLiteral("nvfp4")});
    auto* layoutBox = new QComboBox(&dialog);
    layoutBox->addItems({QStringLiteral("TN"), QStringLiteral("NN"), QStringLiteral("NT")});
    auto* workspaces = new QLineEdit(QStringLiteral("0,4,8,16,32,64"), &dialog);
    auto* budget = new QDoubleSpinBox(&dialog);
    budget->setRange(5, 3600);
    budget->setValue(150);
    budget->setSuffix(QStringLiteral(" s"));
    auto* exact = new QComboBox(&dialog);
    exact->addItems({tr("bitwise equal to the heuristic top (production rule)"), tr("within an error bound of 1e-2")});
    form->addRow(tr("M (tokens)"), m);
    form->addRow(tr("N"), n);
    form->addRow(tr("K"), k);
    form->addRow(tr("dtype"), dtype);
    form->addRow(tr("layout"), layoutBox);
    form->addRow(tr("workspaces (MiB)"), workspaces);
    form->addRow(tr("time budget"), budget);
    form->addRow(tr("parity rule"), exact);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(box);
    connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;

    gemm::ExploreOptions options;
    try {
        options.spec.m = m->value();
        options.spec.n = n->value();
        options.spec.k = k->value();
        options.spec.dtype = gemmDtypeFromString(dtype->currentText().toStdString());
        options.spec.layout = gemmLayoutFromString(layoutBox->currentText().toStdString());
        std::vector<std::uint64_t> sizes = parseWorkspaceListMiB(workspaces->text().toStdString());
        options.spec.workspaceBytes = sizes;
        validateGemmSpec(options.spec);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Run exploration"), QString::fromStdString(e.what()));
        return;
    }
    options.budgetSeconds = budget->value();
    options.rule.exactParity = exact->currentIndex() == 0;
    log(tr("Exploring %1 ...").arg(QString::fromStdString(describe(options.spec))));
    explore_->setEnabled(false);
    const std::string exeDir = QCoreApplication::applicationDirPath().toStdString();
    QPointer<CublasLtView> self(this);
    exploration_.setFuture(QtConcurrent::run([self, options, exeDir] {
        auto post = [self](auto function) { QMetaObject::invokeMethod(self, function, Qt::QueuedConnection); };
        gemm::GemmBackendProbe probe = gemm::loadGemmBackend(exeDir);
        if (!probe.backend) {
            const QString reason = QString::fromStdString(probe.reason);
            post([self, reason] {
                if (!self) return;
                self->log(tr("No CUDA device for cuBLASLt: %1").arg(reason));
                self->explore_->setEnabled(true);
                emit self->message(tr("Cannot explore here: %1").arg(reason));
            });
            return;
        }
        try {
            gemm::ExplorationResult result = gemm::runExploration(*probe.backend.get(), options, [post, self](const std::string& line) {
                const QString text = QString::fromStdString(line);
                post([self, text] { if (self) self->log(text); });
            });
            const Json document = gemm::buildExplorerReport(result);
            CublasLtReport report = parseReport(document, "exploration");
            post([self, report] {
                if (!self) return;
                self->setReport(report, {});
                self->explore_->setEnabled(true);
                self->log(tr("Exploration done. Export the report to keep it."));
            });
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post([self, message] {
                if (!self) return;
                self->log(tr("Exploration failed: %1").arg(message));
                self->explore_->setEnabled(true);
                emit self->message(message);
            });
        }
    }));
}

}  // namespace tunescope::ui
