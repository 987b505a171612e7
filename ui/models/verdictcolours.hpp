#pragma once
// The verdict colours of the compare and head-to-head pages, in their tables (the models' ForegroundRole) and
// their plots alike.
#include <QColor>

namespace tunescope::ui {

inline const QColor kFasterColour(0, 140, 60);
inline const QColor kSlowerColour(200, 30, 30);
// A head-to-head NB without a verdict: NOISY (an A/A control differed) or NOT MEASURED.
inline const QColor kUnjudgedColour(170, 90, 0);

}  // namespace tunescope::ui
