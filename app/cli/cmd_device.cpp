#include "commands.hpp"

namespace tunescope::cli {

void registerDeviceCommands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace tunescope::cli
