#pragma once
// The one way ui/ includes QCustomPlot. Its header uses Q_FOREACH under the name `foreach`; the project forbids it
// (QT_NO_FOREACH), so it is allowed for this one include only (the pattern of KDAB hotspot's frequencypage.cpp).
// Include this before any other Qt header: qforeach.h decides once per translation unit.
#undef QT_NO_FOREACH
#include <qcustomplot.h>
#undef foreach
#define QT_NO_FOREACH
