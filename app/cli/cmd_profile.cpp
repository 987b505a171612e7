#include "commands.hpp"

namespace tunescope::cli {

void registerProfileCommands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace tunescope::cli
