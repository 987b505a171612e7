#include "commands.hpp"

namespace tunescope::cli {

void registerSigningCommands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace tunescope::cli
