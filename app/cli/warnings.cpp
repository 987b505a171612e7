// The one way tunescope-cli prints a warning (docs/sweep.md, "Reading it": a truncated last line is ignored and
// flagged by every command that reads results).
#include <iostream>

#include "commands.hpp"

namespace tunescope::cli {

void printWarnings(const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) std::cerr << "tunescope-cli: warning: " << w << '\n';
}

}  // namespace tunescope::cli
