#pragma once
// Each group of tunescope-cli subcommands lives in its own file and registers itself here.
// A command's callback stores its exit code in CliContext::exitCode (see tunescope/errors.hpp for the codes).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tunescope::cli {

struct CliContext {
    int exitCode = 0;
};

void registerProfileCommands(CLI::App& app, CliContext& ctx);   // validate convert lookup diff import-* export-fla
void registerSigningCommands(CLI::App& app, CliContext& ctx);   // hash keygen sign verify
void registerDeviceCommands(CLI::App& app, CliContext& ctx);    // devices selftest bench-l2norm
void registerSweepCommands(CLI::App& app, CliContext& ctx);     // sweep confirm
void registerResultsCommands(CLI::App& app, CliContext& ctx);   // merge promote decisions
void registerExplorerCommands(CLI::App& app, CliContext& ctx);  // explore replay
void registerCompareCommands(CLI::App& app, CliContext& ctx);   // compare

// Prints what a reader ignored and flagged (ResultsFile::warnings, and the warnings of promote and merge, which
// carry the reader's), one "tunescope-cli: warning: ..." line each on stderr: every command the same way.
void printWarnings(const std::vector<std::string>& warnings);

}  // namespace tunescope::cli
