// First: QCustomPlot with its `foreach` allowed (see the header).
#include "plots/qcustomplot_include.hpp"

#include "pages/headtoheadview.hpp"

#include <algorithm>

#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/headtoheadmodel.hpp"
#include "models/verdictcolours.hpp"
#include "plots/plotparts.hpp"
#include "widgets/tabletools.hpp"

namespace tunescope::ui {
namespace {

const QColor kTieColour(70, 110, 170);
const QColor kUndecidedColour(150, 150, 150);

}  // namespace

HeadToHeadView::HeadToHeadView(QWidget* parent)
    : QWidget(parent), file_(new QLineEdit(this)), threshold_(new QDoubleSpinBox(this)), summary_(new QLabel(this)),
      model_(new HeadToHeadModel(this)), proxy_(new QSortFilterProxyModel(this)), table_(new QTableView(this)),
      plot_(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("headToHeadView"));
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Confirm results:"), this));
    file_->setObjectName(QStringLiteral("headToHeadFile"));
    file_->setReadOnly(true);
    file_->setPlaceholderText(tr("a results file of tunescope-cli confirm (.jsonl, .jsonl.gz)"));
    row->addWidget(file_, 1);
    auto* browse = new QPushButton(tr("Open..."), this);
    browse->setObjectName(QStringLiteral("headToHeadOpen"));
    connect(browse, &QPushButton::clicked, this, &HeadToHeadView::openDialog);
    row->addWidget(browse);
    row->addWidget(new QLabel(tr("Threshold:"), this));
    threshold_->setObjectName(QStringLiteral("headToHeadThreshold"));
    threshold_->setRange(0.1, 10.0);
    threshold_->setSingleStep(0.1);
    threshold_->setDecimals(1);
    threshold_->setSuffix(QStringLiteral(" %"));
    threshold_->setValue(0.5);
    threshold_->setToolTip(tr("The relative gap the paired interval must clear for FASTER or SLOWER"));
    connect(threshold_, &QDoubleSpinBox::valueChanged, this, [this] { judge(); });
    row->addWidget(threshold_);
    layout->addLayout(row);

    summary_->setObjectName(QStringLiteral("headToHeadSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(tr("Open the results of tunescope-cli confirm CANDIDATE --baseline BASELINE (e.g. an export "
                         "against FLA's own autotune, measured on the GPU): per NB the two policies' configs in the same "
                         "fresh rounds, with an A/A control."));
    layout->addWidget(summary_);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(HeadToHeadModel::SortRole);
    table_->setObjectName(QStringLiteral("headToHeadTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(HeadToHeadModel::NbColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setTabKeyNavigation(false);
    installCopyAsCsv(table_);
    plot_->setObjectName(QStringLiteral("headToHeadPlot"));
    plot_->setMinimumSize(240, 160);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plot_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    rebuildPlot();
}

void HeadToHeadView::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Confirm results"), file_->text(),
                                                      tr("Results (*.jsonl *.jsonl.gz);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openFile(path, &error)) {
        summary_->setText(error);
        emit message(error);
    }
}

bool HeadToHeadView::openFile(const QString& path, QString* error) {
    std::shared_ptr<const ResultsFile> results;
    try {
        results = std::make_shared<const ResultsFile>(loadResults(path.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return showResults(std::move(results), path, error);
}

bool HeadToHeadView::showResults(std::shared_ptr<const ResultsFile> results, const QString& path, QString* error) {
    try {
        (void)judgeHeadToHead(*results, threshold_->value() / 100.0);  // refuses a file that is not a head-to-head run
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    results_ = std::move(results);
    file_->setText(path);
    judge();
    emit message(tr("Head to head: %1 NBs from %2").arg(model_->rowCount()).arg(QFileInfo(path).fileName()));
    return true;
}

void HeadToHeadView::setThreshold(double threshold) { threshold_->setValue(threshold * 100.0); }

void HeadToHeadView::judge() {
    if (!results_) return;
    model_->setReport(results_, judgeHeadToHead(*results_, threshold_->value() / 100.0));
    summary_->setText(summaryText());
    rebuildPlot();
}

void HeadToHeadView::rebuildPlot() {
    plot_->clearPlottables();
    plot_->clearItems();
    plottedPoints_ = 0;
    plot_->xAxis->setLabel(tr("NB"));
    plot_->yAxis->setLabel(tr("candidate / baseline"));
    const HeadToHeadReport& r = model_->report();
    // One graph per verdict, so the legend explains the colours.
    struct Series {
        std::vector<HeadToHeadVerdict> verdicts;
        QString name;
        QColor colour;
        bool strong;
        QVector<double> keys, values, minus, plus;
    };
    std::vector<Series> series{
        {{HeadToHeadVerdict::Faster}, tr("FASTER"), kFasterColour, true, {}, {}, {}, {}},
        {{HeadToHeadVerdict::Slower}, tr("SLOWER"), kSlowerColour, true, {}, {}, {}, {}},
        {{HeadToHeadVerdict::Tie}, tr("TIE"), kTieColour, false, {}, {}, {}, {}},
        {{HeadToHeadVerdict::Undecided}, tr("UNDECIDED"), kUndecidedColour, false, {}, {}, {}, {}},
        {{HeadToHeadVerdict::Noisy}, tr("NOISY (A/A differed)"), kUnjudgedColour, false, {}, {}, {}, {}},
        {{HeadToHeadVerdict::SameConfig}, tr("same config"), QColor(190, 190, 190), false, {}, {}, {}, {}}};
    double low = 1.0, high = 1.0;
    int nbMin = 1 << 30, nbMax = 0;
    for (const HeadToHeadRow& row : r.rows) {
        if (!row.candidateRecord || !row.baselineRecord || !(row.paired.ratio > 0)) continue;
        for (Series& s : series) {
            if (std::find(s.verdicts.begin(), s.verdicts.end(), row.verdict) == s.verdicts.end()) continue;
            s.keys.push_back(row.nb);
            s.values.push_back(row.paired.ratio);
            s.minus.push_back(std::max(0.0, row.paired.ratio - row.paired.low));
            s.plus.push_back(std::max(0.0, row.paired.high - row.paired.ratio));
        }
        low = std::min(low, row.paired.low);
        high = std::max(high, row.paired.high);
        nbMin = std::min(nbMin, row.nb);
        nbMax = std::max(nbMax, row.nb);
        ++plottedPoints_;
    }
    if (plottedPoints_ == 0) {
        plot_->legend->setVisible(false);
        plot_->replot();
        return;
    }
    for (const Series& s : series) {
        if (s.keys.isEmpty()) continue;
        QColor whisker = s.colour;
        whisker.setAlpha(s.strong ? 220 : 120);
        addPointsWithWhiskers(plot_, s.name + QStringLiteral(" (") + QString::number(s.keys.size()) + QLatin1Char(')'),
                              QCPScatterStyle(s.strong ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, s.colour,
                                              s.strong ? 8 : 6),
                              s.keys, s.values, s.minus, s.plus, whisker);
    }
    const auto horizontal = [&](double y, const QPen& pen) {
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(0, y);
        line->point2->setCoords(1, y);
        line->setPen(pen);
    };
    horizontal(1.0, QPen(Qt::black, 1, Qt::DashLine));
    horizontal(1.0 - r.threshold, QPen(QColor(200, 120, 0), 1, Qt::DashDotLine));
    horizontal(1.0 + r.threshold, QPen(QColor(200, 120, 0), 1, Qt::DashDotLine));
    plot_->xAxis->setRange(nbMin - 0.6, nbMax + 0.6);
    // Symmetric around 1 and wide enough for the threshold band, so "no difference" sits in the middle.
    const double span = std::max({2 * r.threshold, 1.0 - low, high - 1.0}) * 1.15;
    plot_->yAxis->setRange(1.0 - span, 1.0 + span);
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    setTitleAndLegendRow(plot_, tr("Candidate / baseline per NB, paired over rounds; whiskers: the interval; dash-dot: the threshold, %1%")
                                    .arg(r.threshold * 100, 0, 'f', 1),
                         font());
    plot_->replot();
}

QString HeadToHeadView::summaryText() const {
    const HeadToHeadReport& r = model_->report();
    if (r.rows.empty()) return {};
    QString measuredOn;
    if (results_) {
        for (const DeviceInfo& d : results_->header.devices)
            measuredOn += (measuredOn.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(d.name) +
                          QStringLiteral(" (") + QString::fromStdString(d.backend) + QStringLiteral(")");
        const Json& plan = results_->header.plan;
        if (plan.is_object() && plan.contains("kernel") && plan["kernel"] == "triton") measuredOn += tr(", FLA's Triton kernel");
    }
    QString text = tr("candidate %1 against baseline %2, threshold %3%, measured on %4\n")
                       .arg(QString::fromStdString(r.candidateFile), QString::fromStdString(r.baselineFile))
                       .arg(r.threshold * 100, 0, 'f', 1)
                       .arg(measuredOn.isEmpty() ? tr("an unnamed device") : measuredOn);
    text += tr("%1 NBs: %2 same config, %3 FASTER, %4 TIE, %5 SLOWER, %6 UNDECIDED, %7 NOISY, %8 NOT MEASURED\n")
                .arg(r.rows.size())
                .arg(r.count(HeadToHeadVerdict::SameConfig))
                .arg(r.count(HeadToHeadVerdict::Faster))
                .arg(r.count(HeadToHeadVerdict::Tie))
                .arg(r.count(HeadToHeadVerdict::Slower))
                .arg(r.count(HeadToHeadVerdict::Undecided))
                .arg(r.count(HeadToHeadVerdict::Noisy))
                .arg(r.count(HeadToHeadVerdict::NotMeasured));
    if (r.atLeastAsFast())
        text += r.count(HeadToHeadVerdict::Undecided) == 0
                    ? tr("The candidate is at least as fast as the baseline at every NB.")
                    : tr("The candidate is not shown slower at any NB; where UNDECIDED, more rounds would narrow the "
                         "interval.");
    else
        text += tr("The candidate is NOT shown at least as fast at every NB (SLOWER, NOISY or NOT MEASURED above).");
    return text;
}

}  // namespace tunescope::ui
