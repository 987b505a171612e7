#pragma once
// Where the bundled sample profiles are, resolved at run time so the same binary works from the build tree and
// from an installation: $TUNESCOPE_PROFILES, then <exe>/../share/tunescope/profiles, then the source tree's
// profiles/ folder recorded at build time.
#include <QString>
#include <QStringList>

namespace tunescope::ui {

QString bundledProfilesDir();
// The sample files (*.json) in that folder, sorted; empty when none is found.
QStringList bundledSamples();

}  // namespace tunescope::ui
