#include "tunescope/base/version.hpp"

namespace tunescope {
std::string versionString() { return TUNESCOPE_VERSION; }
std::string gitSha() { return TUNESCOPE_GIT_SHA; }
}  // namespace tunescope
