// tunescope-cli: the headless face of TuneScope, for GPU nodes and pipelines.
#include <cstdio>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/version.hpp"

int main(int argc, char** argv) {
    using namespace tunescope;
    CLI::App app{"TuneScope: per-problem-size GPU kernel launch policies - validate, hash, sign, sweep, explore"};
    app.name("tunescope-cli");
    app.require_subcommand(1);
    app.set_version_flag("--version", "tunescope-cli " + versionString() + " (" + gitSha() + ")");
    cli::CliContext ctx;
    cli::registerProfileCommands(app, ctx);
    cli::registerSigningCommands(app, ctx);
    cli::registerDeviceCommands(app, ctx);
    cli::registerSweepCommands(app, ctx);
    cli::registerResultsCommands(app, ctx);
    cli::registerExplorerCommands(app, ctx);
    cli::registerCompareCommands(app, ctx);
    cli::registerCublasLtPolicyCommands(app, ctx);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        // --help and --version exit 0; every other parse problem is a usage error.
        return code == 0 ? kExitOk : kExitUsageOrIo;
    } catch (const Error& e) {
        std::cerr << "tunescope-cli: " << e.what() << '\n';
        return kExitUsageOrIo;
    } catch (const std::exception& e) {
        std::cerr << "tunescope-cli: error: " << e.what() << '\n';
        return kExitUsageOrIo;
    }
    return ctx.exitCode;
}
