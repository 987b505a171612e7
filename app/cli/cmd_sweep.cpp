#include "commands.hpp"

namespace tunescope::cli {

void registerSweepCommands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace tunescope::cli
