#pragma once
// Renders each main view of the real app to PNG (docs/screenshots/): the policy editor on the seed profile, the
// validation panel after a jump, the three plots over a results file, the sweep page, the cuBLASLt view on the seed
// report, the diff view and the compare page. Run as `tunescope --screenshots DIR --results FILE [--report FILE]
// [--compare-a A --compare-b B] [--capture-sweep S] [--fla-config-dir D [--fla-config-dir-compare D2]]` (under xvfb-run for xcb, or with
// QT_QPA_PLATFORM=offscreen). Returns a process exit code.
#include <QString>

namespace tunescope::ui {

// `reportFile` (optional) is an explorer report shown after the seed report (its timed candidates); `compareA` and
// `compareB` (optional) are two results files for the compare page; `captureSweep` (optional) a `sweep --manifest`
// results file for the capture-sweep page; `flaConfigDir` (optional) a folder `capture export-fla` wrote for the
// FLA_CONFIG_DIR page, compared with `flaConfigDirCompare` when that is given too.
int takeScreenshots(const QString& dir, const QString& resultsFile, const QString& reportFile = {},
                    const QString& compareA = {}, const QString& compareB = {}, const QString& captureSweep = {},
                    const QString& flaConfigDir = {}, const QString& flaConfigDirCompare = {});

}  // namespace tunescope::ui
