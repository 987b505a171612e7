#include "widgets/elidinglabel.hpp"

#include <QFontMetrics>
#include <QFontMetricsF>
#include <QResizeEvent>

#include <algorithm>
#include <cmath>

namespace tunescope::ui {

ElidingLabel::ElidingLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);  // its full width when there is room, less when not
}

void ElidingLabel::setFullText(const QString& text) {
    full_ = text;
    updateShown();
}

void ElidingLabel::setElideMode(Qt::TextElideMode mode) {
    mode_ = mode;
    updateShown();
}

QSize ElidingLabel::minimumSizeHint() const { return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()}; }

QSize ElidingLabel::sizeHint() const {
    const QMargins m = contentsMargins();
    // Rounded up, plus a pixel: elidedText() measures in fractions of a pixel and cuts a text that fits "exactly".
    const QString line = QString(full_).replace(QLatin1Char('\n'), QStringLiteral("  |  "));
    const int width = static_cast<int>(std::ceil(QFontMetricsF(font()).horizontalAdvance(line))) + 2;
    return {width + m.left() + m.right() + 2 * margin(), QLabel::sizeHint().height()};
}

void ElidingLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    updateShown();
}

void ElidingLabel::updateShown() {
    // One line: messages with line breaks show them as separators.
    const QString line = QString(full_).replace(QLatin1Char('\n'), QStringLiteral("  |  "));
    const int width = contentsRect().width() - 2 * margin();
    const QString shown = fontMetrics().elidedText(line, mode_, std::max(0, width));
    elided_ = shown != line;
    QLabel::setText(shown);
    setToolTip(elided_ ? full_ : QString());
    updateGeometry();
}

}  // namespace tunescope::ui
