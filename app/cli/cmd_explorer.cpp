#include "commands.hpp"

namespace tunescope::cli {

void registerExplorerCommands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace tunescope::cli
