// First: QCustomPlot with its `foreach` allowed (see the header).
#include "plots/qcustomplot_include.hpp"

#include "pages/compareview.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "documents/resultsindex.hpp"
#include "models/comparemodel.hpp"
#include "models/verdictcolours.hpp"
#include "plots/plotparts.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {
namespace {

const QColor kSameColour(70, 110, 170, 120);
const QColor kAmbiguousColour(150, 150, 150, 120);

QString percent(double fraction) {
    return (fraction >= 0 ? QStringLiteral("+") : QString()) + QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %");
}

// "h200-run6/sweep.jsonl.gz": archived runs are often all called sweep.jsonl.gz, so the folder tells them apart.
QString shortPath(const std::string& path) {
    const QFileInfo info(QString::fromStdString(path));
    return info.dir().dirName() + QLatin1Char('/') + info.fileName();
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), fileA_(new QLineEdit(this)), fileB_(new QLineEdit(this)), filter_(new QLineEdit(this)),
      summary_(new QLabel(this)), model_(new CompareModel(this)), proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)), plot_(new QCustomPlot(this)), plotTabs_(new QTabWidget(this)),
      latencyNb_(new QComboBox(this)), latencyPlot_(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("compareView"));
    auto* layout = new QVBoxLayout(this);
    auto* files = new QFormLayout;
    auto fileRow = [this](QLineEdit* edit, const QString& name, const QString& placeholder) {
        edit->setObjectName(name);
        edit->setPlaceholderText(placeholder);
        auto* row = new QHBoxLayout;
        row->addWidget(edit, 1);
        auto* browse = new QPushButton(tr("Browse..."), this);
        connect(browse, &QPushButton::clicked, this, [this, edit] {
            const QString path = QFileDialog::getOpenFileName(this, tr("Results file"), edit->text(),
                                                              tr("Sweep results (*.jsonl *.jsonl.gz);;All files (*)"));
            if (!path.isEmpty()) edit->setText(path);
        });
        row->addWidget(browse);
        return row;
    };
    files->addRow(tr("Run A (baseline):"), fileRow(fileA_, QStringLiteral("compareFileA"), tr("results file (.jsonl, .jsonl.gz)")));
    files->addRow(tr("Run B:"), fileRow(fileB_, QStringLiteral("compareFileB"), tr("results file compared with A")));
    layout->addLayout(files);
    auto* tools = new QHBoxLayout;
    auto* run = new QPushButton(tr("Compare"), this);
    run->setObjectName(QStringLiteral("compareRun"));
    connect(run, &QPushButton::clicked, this, &CompareView::runFromFields);
    tools->addWidget(run);
    filter_->setObjectName(QStringLiteral("compareFilter"));
    filter_->setPlaceholderText(tr("Filter rows (e.g. SLOWER, BT=8, stalled)"));
    filter_->setClearButtonEnabled(true);
    tools->addWidget(filter_, 1);
    layout->addLayout(tools);

    summary_->setObjectName(QStringLiteral("compareSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(tr("Choose two results files of the same sweep plan (e.g. two runs, two GPUs, before and after a "
                         "driver update) and press Compare."));
    layout->addWidget(summary_);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(CompareModel::SortRole);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    table_->setObjectName(QStringLiteral("compareTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(CompareModel::NbColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setTabKeyNavigation(false);  // Tab moves on to the next widget instead of trapping focus in the table
    installCopyAsCsv(table_);

    plot_->setObjectName(QStringLiteral("compareRatioPlot"));
    plot_->setMinimumSize(240, 160);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    latencyPlot_->setObjectName(QStringLiteral("compareLatencyPlot"));
    latencyPlot_->setMinimumSize(240, 160);
    latencyPlot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    latencyNb_->setObjectName(QStringLiteral("compareLatencyNb"));
    latencyNb_->setToolTip(tr("The NB whose configs are plotted"));
    connect(latencyNb_, &QComboBox::currentIndexChanged, this, [this] { rebuildLatencyPlot(); });
    auto* latencyPage = new QWidget(this);
    auto* latencyLayout = new QVBoxLayout(latencyPage);
    latencyLayout->setContentsMargins(0, 0, 0, 0);
    auto* nbRow = new QHBoxLayout;
    nbRow->addWidget(new QLabel(tr("NB:"), latencyPage));
    nbRow->addWidget(latencyNb_);
    nbRow->addStretch(1);
    latencyLayout->addLayout(nbRow);
    latencyLayout->addWidget(latencyPlot_, 1);
    plotTabs_->setObjectName(QStringLiteral("comparePlotTabs"));
    plotTabs_->addTab(plot_, tr("B/A per NB"));
    plotTabs_->addTab(latencyPage, tr("Latency per config"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plotTabs_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({420, 260});  // the plot gets the larger share
    layout->addWidget(splitter, 1);
    rebuildPlot();
    rebuildLatencyPlot();
}

CompareView::~CompareView() = default;

void CompareView::setFileA(const QString& path) { fileA_->setText(path); }

void CompareView::runFromFields() {
    const QString a = fileA_->text().trimmed(), b = fileB_->text().trimmed();
    if (a.isEmpty() || b.isEmpty()) {
        summary_->setText(tr("Choose both results files first (run A and run B)."));
        emit message(summary_->text());
        return;
    }
    QString error;
    if (!compareFiles(a, b, &error)) {
        summary_->setText(error);
        emit message(error);
    }
}

bool CompareView::compareFiles(const QString& fileA, const QString& fileB, QString* error) {
    std::shared_ptr<ResultsFile> a, b;
    try {
        a = std::make_shared<ResultsFile>(loadResults(fileA.toStdString()));
        b = std::make_shared<ResultsFile>(loadResults(fileB.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    fileA_->setText(fileA);
    fileB_->setText(fileB);
    RunComparison comparison = compareRuns(*a, *b);
    model_->setComparison(a, b, std::move(comparison));
    summary_->setText(summaryText());
    rebuildPlot();
    fillLatencyNbs();
    rebuildLatencyPlot();
    emit message(tr("Compared %1 pairs").arg(model_->rowCount()));
    return true;
}

QString CompareView::summaryText() const {
    const RunComparison& c = model_->comparison();
    if (c.rows.empty() && c.onlyInA + c.onlyInB == 0) return {};
    const auto who = [&](const std::string& device, const std::string& kernel) {
        QString text = QString::fromStdString(device);
        if (c.kernelA != c.kernelB) text += QStringLiteral(", ") + QString::fromStdString(describeKernel(kernel));
        return text;
    };
    QString text = tr("A: %1 (%2)    B: %3 (%4)\n")
                       .arg(shortPath(c.fileA), who(c.deviceA, c.kernelA), shortPath(c.fileB), who(c.deviceB, c.kernelB));
    text += tr("%1 pairs, B against A: %2 FASTER, %3 SLOWER, %4 SAME, %5 AMBIGUOUS; geometric mean B/A %6.")
                .arg(c.rows.size())
                .arg(c.faster)
                .arg(c.slower)
                .arg(c.same)
                .arg(c.ambiguous)
                .arg(c.geomeanRatio, 0, 'f', 4);
    text += tr(" Winners changed at %1 of %2 NBs, %3 of them significantly").arg(c.winnersChanged).arg(c.perNb.size()).arg(c.winnersChangedSignificantly);
    double worst = 0;
    int worstNb = 0;
    for (const RunComparisonNb& nb : c.perNb)
        if (nb.regretOfAWinnerOnB && *nb.regretOfAWinnerOnB > worst) {
            worst = *nb.regretOfAWinnerOnB;
            worstNb = nb.nb;
        }
    if (worstNb > 0) text += tr("; keeping A's winners costs at most %1 on B (NB %2)").arg(percent(worst)).arg(worstNb);
    text += QLatin1Char('.');
    if (c.lowestRankCorrelation)
        text += tr(" Configs rank alike: Spearman %1 at worst (NB %2).")
                    .arg(*c.lowestRankCorrelation, 0, 'f', 3)
                    .arg(c.lowestRankNb);
    if (c.untrustworthyPairs > 0)
        text += tr("\n%1 pairs have a side that did not converge: listed, never a winner.").arg(c.untrustworthyPairs);
    if (c.onlyInA + c.onlyInB > 0) text += tr("\n%1 records only in A, %2 only in B.").arg(c.onlyInA).arg(c.onlyInB);
    return text;
}

void CompareView::rebuildPlot() {
    plot_->clearPlottables();
    plot_->clearItems();
    plottedPoints_ = 0;
    const RunComparison& c = model_->comparison();
    plot_->xAxis->setLabel(tr("NB (configs of one NB spread across its slot)"));
    plot_->yAxis->setLabel(tr("B/A (whiskers: 95% interval)"));
    if (c.rows.empty()) {
        plot_->legend->setVisible(false);
        plot_->replot();
        return;
    }
    // One graph per verdict, so the legend explains the colours; configs spread inside the NB slot.
    struct Series {
        Comparison verdict;
        QString name;
        QColor colour;
        QVector<double> keys, values, minus, plus;
    };
    std::vector<Series> series{{Comparison::Same, tr("SAME"), kSameColour, {}, {}, {}, {}},
                               {Comparison::Ambiguous, tr("AMBIGUOUS"), kAmbiguousColour, {}, {}, {}, {}},
                               {Comparison::Faster, tr("FASTER on B"), kFasterColour, {}, {}, {}, {}},
                               {Comparison::Slower, tr("SLOWER on B"), kSlowerColour, {}, {}, {}, {}}};
    std::map<int, int> perNbCount, perNbIndex;
    for (const RunComparisonRow& row : c.rows)
        if (row.kind == ResultRecord::Kind::L2Norm) ++perNbCount[row.nb];
    double low = 1.0, high = 1.0;
    int nbMin = 1 << 30, nbMax = 0;
    for (const RunComparisonRow& row : c.rows) {
        if (row.kind != ResultRecord::Kind::L2Norm || row.ratio <= 0) continue;
        const int count = perNbCount[row.nb], at = perNbIndex[row.nb]++;
        const double key = row.nb + (count > 1 ? (static_cast<double>(at) / (count - 1) - 0.5) * 0.7 : 0.0);
        for (Series& s : series)
            if (s.verdict == row.verdict) {
                s.keys.push_back(key);
                s.values.push_back(row.ratio);
                s.minus.push_back(std::max(0.0, row.ratio - row.ratioLow));
                s.plus.push_back(std::max(0.0, row.ratioHigh - row.ratio));
            }
        low = std::min(low, row.ratio);
        high = std::max(high, row.ratio);
        nbMin = std::min(nbMin, row.nb);
        nbMax = std::max(nbMax, row.nb);
        ++plottedPoints_;
    }
    for (const Series& s : series) {
        const bool strong = s.verdict == Comparison::Faster || s.verdict == Comparison::Slower;
        QColor whisker = s.colour;
        whisker.setAlpha(strong ? 200 : 70);
        addPointsWithWhiskers(plot_, s.name + QStringLiteral(" (") + QString::number(s.keys.size()) + QLatin1Char(')'),
                              QCPScatterStyle(strong ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, s.colour,
                                              strong ? 6 : 4),
                              s.keys, s.values, s.minus, s.plus, whisker);
    }
    auto* unity = new QCPItemStraightLine(plot_);
    unity->point1->setCoords(0, 1);
    unity->point2->setCoords(1, 1);
    unity->setPen(QPen(Qt::black, 1, Qt::DashLine));
    plot_->xAxis->setRange(nbMin - 0.6, nbMax + 0.6);
    // A symmetric range around 1, at least +-2%, so "unchanged" sits in the middle and small moves stay visible.
    const double span = std::max({0.02, 1.0 - low, high - 1.0}) * 1.15;
    plot_->yAxis->setRange(1.0 - span, 1.0 + span);
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    const QString title = tr("Median of B (%1) / median of A (%2), per NB x l2norm config (copy ceilings: table only)")
                              .arg(QString::fromStdString(c.deviceB), QString::fromStdString(c.deviceA));
    setTitleAndLegendRow(plot_, title, font());
    plot_->replot();
}

void CompareView::fillLatencyNbs() {
    const RunComparison& c = model_->comparison();
    const QSignalBlocker block(latencyNb_);
    latencyNb_->clear();
    int preferred = -1;
    for (const RunComparisonNb& nb : c.perNb) {
        const bool hasPairs = std::any_of(c.rows.begin(), c.rows.end(), [&](const RunComparisonRow& row) {
            return row.kind == ResultRecord::Kind::L2Norm && row.nb == nb.nb;
        });
        if (!hasPairs) continue;
        QString label = QString::number(nb.nb);
        if (nb.rankCorrelation) label += tr("  (Spearman %1)").arg(*nb.rankCorrelation, 0, 'f', 3);
        latencyNb_->addItem(label, nb.nb);
        if (nb.nb == c.lowestRankNb) preferred = latencyNb_->count() - 1;  // open where the runs agree least
    }
    if (latencyNb_->count() > 0) latencyNb_->setCurrentIndex(preferred >= 0 ? preferred : 0);
}

void CompareView::rebuildLatencyPlot() {
    latencyPlot_->clearPlottables();
    latencyPlot_->clearItems();
    latencyPoints_ = 0;
    latencyConfigs_.clear();
    const RunComparison& c = model_->comparison();
    latencyPlot_->xAxis->setLabel(tr("config (BT/num_warps/num_stages), B's fastest first"));
    latencyPlot_->yAxis->setLabel(tr("median, us (p20-p80)"));
    const QVariant chosen = latencyNb_->currentData();
    std::vector<const RunComparisonRow*> rows;
    if (chosen.isValid())
        for (const RunComparisonRow& row : c.rows)
            if (row.kind == ResultRecord::Kind::L2Norm && row.nb == chosen.toInt() && row.a && row.b) rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const RunComparisonRow* x, const RunComparisonRow* y) {
        return x->b->m.medianMs < y->b->m.medianMs;
    });
    const auto runName = [&](const char* letter, const std::string& device, const std::string& kernel) {
        QString text = QString::fromLatin1(letter) + QStringLiteral(": ") + QString::fromStdString(describeKernel(kernel));
        if (c.deviceA != c.deviceB) text += QStringLiteral(", ") + QString::fromStdString(device);
        return text;
    };
    struct Series {
        QString name;
        QColor colour;
        QCPScatterStyle::ScatterShape shape;
        QVector<double> keys, values, minus, plus;
    };
    Series a{runName("A", c.deviceA, c.kernelA), QColor(40, 90, 170), QCPScatterStyle::ssSquare, {}, {}, {}, {}};
    Series b{runName("B", c.deviceB, c.kernelB), QColor(220, 110, 20), QCPScatterStyle::ssDisc, {}, {}, {}, {}};
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double low = 1e300, high = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RunComparisonRow& row = *rows[i];
        const double key = static_cast<double>(i);
        for (auto [series, record] : {std::pair{&a, row.a}, std::pair{&b, row.b}}) {
            const double median = record->m.medianMs * 1000.0;
            series->keys.push_back(key);
            series->values.push_back(median);
            series->minus.push_back(std::max(0.0, median - record->m.p20Ms * 1000.0));
            series->plus.push_back(std::max(0.0, record->m.p80Ms * 1000.0 - median));
            low = std::min(low, record->m.p20Ms * 1000.0);
            high = std::max(high, record->m.p80Ms * 1000.0);
        }
        const QString label = configLabel(row.config);
        ticker->addTick(key, label);
        latencyConfigs_.push_back(label);
        ++latencyPoints_;
    }
    latencyPlot_->xAxis->setTicker(ticker);
    latencyPlot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);  // x = 0 is the first config, not a zero
    latencyPlot_->xAxis->setTickLabelRotation(rows.size() > 8 ? 60 : 0);
    for (const Series& s : {a, b}) {
        QColor whisker = s.colour;
        whisker.setAlpha(150);
        addPointsWithWhiskers(latencyPlot_, s.name, QCPScatterStyle(s.shape, s.colour, s.colour, 6), s.keys, s.values,
                              s.minus, s.plus, whisker);
    }
    QString title = tr("Choose two results files and press Compare");
    if (!rows.empty()) {
        const int nb = chosen.toInt();
        const auto found = std::find_if(c.perNb.begin(), c.perNb.end(), [&](const RunComparisonNb& x) { return x.nb == nb; });
        title = tr("NB %1: each config's median in A and in B").arg(nb);
        if (found != c.perNb.end() && found->rankCorrelation)
            title += tr("; rank agreement (Spearman) %1 over %2 configs")
                         .arg(*found->rankCorrelation, 0, 'f', 3)
                         .arg(found->rankedConfigs);
        latencyPlot_->xAxis->setRange(-0.6, static_cast<double>(rows.size()) - 0.4);
        const double pad = std::max(0.02 * high, 0.05 * (high - low));
        latencyPlot_->yAxis->setRange(std::max(0.0, low - pad), high + pad);
    }
    latencyPlot_->legend->setVisible(!rows.empty());
    latencyPlot_->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    setTitleAndLegendRow(latencyPlot_, title, font());
    latencyPlot_->replot();
}

}  // namespace tunescope::ui
