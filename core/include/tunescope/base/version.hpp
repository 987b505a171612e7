#pragma once
#include <string>

namespace tunescope {
// The TuneScope version and the git sha it was built from, for sweep headers and reports.
std::string versionString();
std::string gitSha();
}  // namespace tunescope
