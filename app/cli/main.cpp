// tunescope-cli: the headless face of TuneScope, for GPU nodes and pipelines.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/gz_io.hpp"
#include "tunescope/base/version.hpp"

int main(int argc, char** argv) {
    using namespace tunescope;
    CLI::App app{"TuneScope: per-problem-size GPU kernel launch policies - validate, hash, sign, sweep, explore"};
    app.name("tunescope-cli");
    app.require_subcommand(1);
    app.set_version_flag("--version", "tunescope-cli " + versionString() + " (" + gitSha() + ")");
    // Any command may read a gzipped file; the limit on what one may inflate to is the process's (base/gz_io).
    app.fallthrough();
    std::uintmax_t maxInflatedMib = kDefaultMaxInflatedBytes >> 20;
    app.add_option("--max-inflated-mib", maxInflatedMib,
                   "most MiB a gzipped input (.jsonl.gz, .json.gz) may inflate to; larger ones are refused (exit 2) "
                   "before they fill memory. Results files go up to 1024, other JSON files up to 64 (docs/formats.md)")
        ->capture_default_str()
        ->check(CLI::Range(std::uintmax_t{1}, std::uintmax_t{1} << 20))
        ->each([](const std::string& text) { setMaxInflatedBytes(std::stoull(text) << 20); });
    cli::CliContext ctx;
    cli::registerProfileCommands(app, ctx);
    cli::registerSigningCommands(app, ctx);
    cli::registerDeviceCommands(app, ctx);
    cli::registerSweepCommands(app, ctx);
    cli::registerResultsCommands(app, ctx);
    cli::registerExplorerCommands(app, ctx);
    cli::registerCompareCommands(app, ctx);
    cli::registerCublasLtPolicyCommands(app, ctx);
    cli::registerCaptureCommands(app, ctx);
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
