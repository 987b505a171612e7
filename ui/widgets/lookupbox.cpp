#include "widgets/lookupbox.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include "documents/profiledocument.hpp"
#include "tunescope/formats/lookup.hpp"

namespace tunescope::ui {

LookupBox::LookupBox(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), batch_(new QSpinBox(this)), paddedTokens_(new QSpinBox(this)),
      answer_(new QLabel(this)) {
    setObjectName(QStringLiteral("lookupBox"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("<b>Lookup</b> batch B"), this);
    layout->addWidget(title);
    batch_->setObjectName(QStringLiteral("lookupBatch"));
    batch_->setRange(0, 1 << 20);
    batch_->setValue(1);
    batch_->setToolTip(tr("Batch size B; values outside the profile's supported range show what production does then"));
    layout->addWidget(batch_);
    layout->addWidget(new QLabel(tr("padded tokens L"), this));
    paddedTokens_->setObjectName(QStringLiteral("lookupPaddedTokens"));
    paddedTokens_->setRange(0, 1 << 24);
    paddedTokens_->setValue(4096);
    paddedTokens_->setSingleStep(256);
    layout->addWidget(paddedTokens_);
    answer_->setObjectName(QStringLiteral("lookupAnswer"));
    answer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    answer_->setTextFormat(Qt::PlainText);
    layout->addWidget(answer_, 1);
    connect(batch_, &QSpinBox::valueChanged, this, &LookupBox::update);
    connect(paddedTokens_, &QSpinBox::valueChanged, this, &LookupBox::update);
    connect(document, &ProfileDocument::reset, this, &LookupBox::update);
    connect(document, &ProfileDocument::entriesChanged, this, &LookupBox::update);
    update();
}

void LookupBox::setShape(int batch, int paddedTokens) {
    batch_->setValue(batch);
    paddedTokens_->setValue(paddedTokens);
    update();
}

QString LookupBox::answerText() const { return answer_->text(); }

void LookupBox::update() {
    qint64 nb = -1;
    QString text;
    if (!document_ || !document_->hasProfile()) {
        text = tr("(no profile)");
    } else {
        const LookupAnswer a = lookup(document_->profile(), batch_->value(), paddedTokens_->value());
        const QString rows = a.rows ? QString::number(*a.rows) : tr("overflow");
        const QString nbText = a.NB ? QString::number(*a.NB) : tr("overflow");
        if (a.ok() && a.config) {
            nb = a.NB.value_or(-1);
            text = tr("T = %1 rows -> NB %2 -> %3 (basis %4)")
                       .arg(rows, nbText, QString::fromStdString(describe(*a.config)), QString::fromStdString(a.basis));
        } else if (a.outcome == LookupOutcome::Autotune) {
            text = tr("T = %1 rows -> NB %2: outside the profile; Triton autotunes at run time (%3)")
                       .arg(rows, nbText, QString::fromStdString(a.error));
        } else {
            text = tr("T = %1 rows -> NB %2: production raises: %3").arg(rows, nbText, QString::fromStdString(a.error));
        }
    }
    answer_->setText(text);
    if (nb != answerNb_) {
        answerNb_ = nb;
        emit answerChanged(nb);
    }
}

}  // namespace tunescope::ui
