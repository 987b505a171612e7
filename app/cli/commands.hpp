#pragma once
// Each group of tunescope-cli subcommands lives in its own file and registers itself here.
// A command's callback stores its exit code in CliContext::exitCode (see tunescope/errors.hpp for the codes).
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "tunescope/device/measurement.hpp"

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
void registerCublasLtPolicyCommands(CLI::App& app, CliContext& ctx);  // export-cublaslt export-hipblaslt
void registerCaptureCommands(CLI::App& app, CliContext& ctx);   // capture plan, capture export-fla

// FLA capture manifests (cmd_capture.cpp), reached from validate and sweep --manifest. Each returns the exit code.
bool isCaptureManifestFile(const std::string& file);  // a "format" of tunescope-fla-capture-v...
bool isCaptureSweepFile(const std::string& file);      // a "format" of tunescope-fla-capture-sweep-v1
int runCaptureSweepValidate(const std::string& file);  // valid (...) or exit 2 with FILE: at /pointer: message
int runCaptureValidate(const std::string& file);      // valid (...) or exit 2 with FILE: at /pointer: message
// FLA_CONFIG_DIRs that capture export-fla wrote (cmd_capture.cpp), reached from validate, lookup and diff when the
// argument is a folder or its manifest (isFlaConfigDirPath). Each returns the exit code.
int runConfigDirValidate(const std::string& path, bool json);  // valid (FLA_CONFIG_DIR, ...) or exit 2 per fault
int runConfigDirLookup(const std::string& path, const std::string& kernel, const std::string& key, bool json);
int runConfigDirDiff(const std::string& a, const std::string& b, bool json);
// sweep --manifest: --dry-run prints the plan; on a CUDA device of the capture's architecture every captured kernel and
// key is replayed, checked and timed (docs/fla-capture.md, section 10); elsewhere a refusal naming why.
struct CaptureSweepArgs {
    std::string manifest;
    bool dryRun = false;
    int device = 0;           // index within the capture's backend
    std::string tritonCache;  // empty: TRITON_CACHE_DIR or ~/.triton/cache
    std::string out;          // the results file (tunescope-fla-capture-sweep-v1)
    std::string choicesOut;   // the choices file (tunescope-fla-choices-v1), for capture export-fla --choices
    std::string timer = "auto";
    std::string l2;           // cold (default), warm or hot
    StoppingRule rule;
    int rounds = 3;
    unsigned long long orderSeed = 20261203;
    bool quiet = false;
};
int runCaptureSweep(const CaptureSweepArgs& args);

// confirm --manifest: a candidate FLA_CONFIG_DIR against a baseline (default: FLA's own picks in the capture), per
// kernel and key of the capture, replayed head to head (docs/fla-capture.md section 11).
struct CaptureConfirmArgs {
    CaptureSweepArgs sweep;  // manifest, device, Triton cache, timer, L2, rule, rounds; out: the results file
    std::string candidate, baseline = "captured";
    double threshold = 0.005;
    bool noAa = false;
    std::string results;  // judge this finished results file again (no device)
};
int runCaptureConfirm(const CaptureConfirmArgs& args);

// lookup and diff of cuBLASLt policies (cmd_cublaslt_policy.cpp), reached from the profile commands' dispatch on
// the document kind. Each returns the exit code.
struct PolicyLookupArgs {
    std::int64_t m = 0, n = 0, k = 0;
    std::string dtype = "bf16", layout = "TN";
    std::int64_t workspaceBytes = -1;  // -1: not checked
    std::string gpu, arch;
    std::int64_t cublasLtVersion = -1;  // -1: not checked
};
void addPolicyLookupOptions(CLI::App* sub, PolicyLookupArgs& args);
int runPolicyLookup(const std::string& policyFile, const PolicyLookupArgs& args, bool json);
int runPolicyDiff(const std::string& a, const std::string& b, bool json);

// Prints what a reader ignored and flagged (ResultsFile::warnings, and the warnings of promote and merge, which
// carry the reader's), one "tunescope-cli: warning: ..." line each on stderr: every command the same way.
void printWarnings(const std::vector<std::string>& warnings);

}  // namespace tunescope::cli
