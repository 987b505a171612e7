#pragma once
// A one-line label for text that may not fit (status messages, file paths): it keeps the full text, draws as much
// as fits with "…" where it is cut, and shows the full text as its tooltip when cut. It asks for little width, so
// a long message never makes the window wider (1280x720 at 2x).
#include <QLabel>

namespace tunescope::ui {

class ElidingLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidingLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    QString fullText() const { return full_; }
    // Whether the text is cut at the current width.
    bool isElided() const { return elided_; }
    // Where the "…" goes: the end for messages, the middle for file paths (the name stays readable).
    void setElideMode(Qt::TextElideMode mode);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void updateShown();
    QString full_;
    Qt::TextElideMode mode_ = Qt::ElideRight;
    bool elided_ = false;
};

}  // namespace tunescope::ui
