#pragma once
// "What does production do for batch B and padded tokens L?": the core's lookup() answered in place, live as the
// numbers change and as the policy is edited.
#include <QPointer>
#include <QWidget>

class QLabel;
class QSpinBox;

namespace tunescope::ui {

class ProfileDocument;

class LookupBox : public QWidget {
    Q_OBJECT
public:
    explicit LookupBox(ProfileDocument* document, QWidget* parent = nullptr);

    void setShape(int batch, int paddedTokens);
    QString answerText() const;
    // The NB the current answer names, or -1 (the editor highlights that row).
    qint64 answerNb() const { return answerNb_; }

signals:
    void answerChanged(qint64 nb);

private:
    void update();

    QPointer<ProfileDocument> document_;
    QSpinBox* batch_;
    QSpinBox* paddedTokens_;
    QLabel* answer_;
    qint64 answerNb_ = -1;
};

}  // namespace tunescope::ui
