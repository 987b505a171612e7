// FLA capture commands (docs/fla-capture.md, "The C++ side"): capture plan, capture export-fla, the capture side of
// validate and sweep --manifest, and the FLA_CONFIG_DIR side of validate, lookup and diff. Exit codes: 0 ok, 1 a
// sweep that found no eligible config for some key, a lookup that finds no entry or folders that differ, 2 usage,
// unreadable or refused manifest or folder, or a sweep that cannot run here.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/triton_binaries.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/sweep/fla_capture_confirm.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"
#include "tunescope/sweep/fla_capture_replay.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"

namespace tunescope::cli {

namespace {

void registerCapturePlan(CLI::App& capture, CliContext& ctx) {
    struct Args {
        std::string manifest;
        bool json = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = capture.add_subcommand("plan", "Print the tuning plan of a capture: one decision per (kernel, key)");
    sub->footer(
        "FLA's config file holds one config per (kernel, key_hash), so every launch of a kernel with the same key, in\n"
        "any case, is one decision. Per decision: its launches (case#sequence), its configs, FLA's own choice, and\n"
        "which configs have a compiled binary for every launch (only those can be measured and exported).\n"
        "Exit: 0 printed, 2 usage or a manifest the reader refuses (FILE: at /pointer: message).");
    sub->add_option("manifest", args->manifest, "the capture manifest (tunescope-fla-capture-v1)")->required();
    sub->add_flag("--json", args->json, "print the plan as JSON");
    sub->callback([args, &ctx] {
        const FlaCapturePlan plan = planFlaCapture(readFlaCapture(args->manifest));
        if (args->json) std::cout << dumpJson(toJson(plan), 2) << '\n';
        else std::cout << formatFlaCapturePlan(plan);
        ctx.exitCode = kExitOk;
    });
}

void registerCaptureExportFla(CLI::App& capture, CliContext& ctx) {
    struct Args {
        std::string manifest, choices, out;
        bool captured = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = capture.add_subcommand("export-fla", "Write one FLA_CONFIG_DIR from a capture and a config per (kernel, key)");
    sub->footer(
        "Writes {kernel_name}.json per kernel with a choice, in the format FLA's fla/ops/utils/cache.py loads, and\n"
        "tunescope-fla-config-dir.json beside them (SHA-256 of each file, the capture, its device and stack).\n"
        "--choices: {\"format\": \"tunescope-fla-choices-v1\", \"choices\": [{\"kernel_name\", \"key_hash\", \"config\",\n"
        "\"best_timing\"?}]} (docs/fla-capture.md); --captured-choices: FLA's own autotune choices in the capture.\n"
        "Exit: 0 written, 2 usage, a refused manifest, or a choice naming an unknown kernel or key, a config outside\n"
        "the kernel's list or without a compiled binary (FILE: at /pointer: message, into the choices file).");
    sub->add_option("manifest", args->manifest, "the capture manifest")->required();
    auto* choices = sub->add_option("--choices", args->choices, "the chosen config per (kernel_name, key_hash)");
    auto* captured = sub->add_flag("--captured-choices", args->captured, "export FLA's own choices recorded in the capture");
    choices->excludes(captured);
    sub->add_option("--out", args->out, "the FLA_CONFIG_DIR to write (created)")->required();
    sub->callback([args, &ctx] {
        if (args->choices.empty() && !args->captured) throw Error("", "", "give --choices FILE or --captured-choices");
        const FlaCapture capture = readFlaCapture(args->manifest);
        const FlaChoices choices = args->captured ? capturedFlaChoices(capture) : readFlaChoices(args->choices);
        const FlaConfigDirExport result = exportFlaConfigDir(capture, choices, args->out);
        for (const auto& f : result.files)
            std::cout << "wrote " << f.path.string() << " (" << f.entries << " key" << (f.entries == 1 ? "" : "s")
                      << ", sha256 " << f.sha256 << ")\n";
        std::cout << "wrote " << result.manifestFile.string() << '\n';
        for (const auto& [kernel, key] : result.withoutChoice)
            std::cerr << "tunescope-cli: warning: no choice for " << kernel << " key " << key
                      << ": FLA autotunes it (and FLA_CACHE_MODE=strict finds no entry)\n";
        ctx.exitCode = kExitOk;
    });
}

}  // namespace

bool isCaptureManifestFile(const std::string& file) {
    std::string text;
    try {
        text = readTextFile(file);
    } catch (const Error&) {
        return false;  // not readable: the profile validator says why
    }
    JsonReadOptions options;
    options.allowNonFiniteTokens = true;
    try {
        return isFlaCaptureDocument(parseJson(text, file, options));
    } catch (const Error&) {
        // Malformed: a capture if its opening names the format (the writer puts "format" first), so that its
        // syntax error is reported as the capture checker reports it.
        return text.substr(0, 256).find("\"tunescope-fla-capture-v") != std::string::npos;
    }
}

bool isCaptureSweepFile(const std::string& file) {
    try {
        return isFlaCaptureSweepDocument(parseJson(readTextFile(file), file));
    } catch (const Error&) {
        return false;  // unreadable or malformed: the profile validator says why
    }
}

int runCaptureSweepValidate(const std::string& file) {
    const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(file);
    for (const auto& f : check.faults) std::cerr << Error(check.file, f.pointer, f.message).what() << '\n';
    if (!check.sweep) {
        std::cerr << "tunescope-cli: " << check.file << ": refused, " << check.faults.size() << " fault"
                  << (check.faults.size() == 1 ? "" : "s") << '\n';
        return kExitUsageOrIo;
    }
    std::size_t chosen = 0;
    for (const auto& d : check.sweep->sweep.decisions) chosen += d.chosen.has_value();
    std::cout << check.file << ": valid (FLA capture sweep on " << check.sweep->sweep.device << ", timer "
              << check.sweep->sweep.timer << ", L2 " << check.sweep->l2 << ", " << check.sweep->rounds << " rounds: "
              << check.sweep->sweep.launches.size() << " launches, " << check.sweep->sweep.decisions.size()
              << " decisions, " << chosen << " with a chosen config)\n";
    return kExitOk;
}

int runCaptureValidate(const std::string& file) {
    const FlaCaptureCheck check = checkFlaCaptureFile(file);
    for (const auto& f : check.faults)
        std::cerr << Error(check.file, f.pointer, f.message).what() << '\n';
    if (!check.capture) {
        std::cerr << "tunescope-cli: " << check.file << ": refused, " << check.faults.size() << " fault"
                  << (check.faults.size() == 1 ? "" : "s") << '\n';
        return kExitUsageOrIo;
    }
    std::cout << check.file << ": valid (" << flaCaptureSummary(*check.capture) << ")\n";
    return kExitOk;
}

int runConfigDirValidate(const std::string& path, bool json) {
    const FlaConfigDirCheck check = checkFlaConfigDir(path);
    if (json) {
        Json faults = Json::array();
        for (const auto& f : check.faults)
            faults.push_back({{"file", f.file()}, {"pointer", f.jsonPath()}, {"message", f.message()}});
        std::cout << dumpJson({{"file", path}, {"kind", "FLA_CONFIG_DIR"}, {"valid", check.faults.empty()},
                               {"faults", faults}, {"warnings", check.warnings}},
                              2)
                  << '\n';
        return check.faults.empty() ? kExitOk : kExitUsageOrIo;
    }
    printWarnings(check.warnings);
    for (const auto& f : check.faults) std::cerr << f.what() << '\n';
    if (!check.dir) {
        std::cerr << "tunescope-cli: " << path << ": refused, " << check.faults.size() << " fault"
                  << (check.faults.size() == 1 ? "" : "s") << '\n';
        return kExitUsageOrIo;
    }
    std::cout << path << ": valid (FLA_CONFIG_DIR, " << flaConfigDirSummary(*check.dir) << ")\n";
    return kExitOk;
}

namespace {

void printConfigDirKeys(const FlaConfigDirLookup& answer) {
    const FlaConfigDirKernel& kernel = *answer.kernel;
    std::cout << kernel.file.filename().string() << ": " << kernel.entries.size() << " key"
              << (kernel.entries.size() == 1 ? "" : "s") << " (what FLA loads with FLA_CACHE_MODE=strict)\n";
    for (const auto& e : kernel.entries)
        std::cout << "  " << e.key_hash << ' ' << e.autotune_key.dump() << ": " << flaConfigText(e.config) << '\n';
    if (!answer.keysWithoutChoice.empty()) {
        std::cout << "keys without a choice (FLA autotunes them):";
        for (const auto& hash : answer.keysWithoutChoice) std::cout << ' ' << hash;
        std::cout << '\n';
    }
}

}  // namespace

int runConfigDirLookup(const std::string& path, const std::string& kernel, const std::string& key, bool json) {
    const FlaConfigDir dir = readFlaConfigDir(path);
    const FlaConfigDirLookup answer = lookupFlaConfigDir(dir, kernel, key);
    if (json) {
        std::cout << dumpJson(toJson(answer), 2) << '\n';
    } else if (!answer.ok()) {
        std::cerr << "tunescope-cli: " << path << ": " << answer.error << '\n';
    } else if (answer.outcome == FlaConfigDirLookup::Outcome::Keys) {
        printConfigDirKeys(answer);
    } else {
        const FlaConfigDirEntry& e = *answer.entry;
        std::cout << "kernel " << answer.kernel_name << " (" << answer.kernel->file.filename().string() << ")\n";
        std::cout << "key_hash " << e.key_hash << '\n';
        std::cout << "autotune_key " << e.autotune_key.dump() << '\n';
        std::cout << "config " << flaConfigText(e.config) << '\n';
        std::cout << "best_timing " << e.best_timing.dump() << '\n';
        std::cout << "entry " << Json{{"autotune_key", e.autotune_key}, {"config", e.config}, {"best_timing", e.best_timing}}.dump()
                  << '\n';
    }
    return answer.ok() ? kExitOk : kExitInvalid;
}

int runConfigDirDiff(const std::string& a, const std::string& b, bool json) {
    const FlaConfigDirDiff diff = diffFlaConfigDirs(readFlaConfigDir(a), readFlaConfigDir(b));
    if (json) {
        std::cout << dumpJson(toJson(diff), 2) << '\n';
    } else if (diff.empty()) {
        std::cout << "identical\n";
    } else {
        for (const auto& change : diff.entries) std::cout << formatFlaConfigDirChange(change) << '\n';
        for (const auto& other : diff.other) std::cout << "other: " << other << " differs\n";
        std::cout << diff.entries.size() << " entry changes, " << diff.other.size() << " other changes\n";
    }
    return diff.empty() ? kExitOk : kExitInvalid;
}

namespace {

// The device the replay runs on: --device of the capture's backend, which must be the capture's architecture.
std::unique_ptr<Device> openCaptureDevice(const FlaCapture& capture, int index) {
    std::unique_ptr<Backend> backend = openBackend(capture.device.backend);
    std::unique_ptr<Device> device = backend->openDevice(index);
    const std::string& arch = device->info().architecture;
    if (arch.substr(0, arch.find(':')) != capture.device.arch)
        throw Error("", "", deviceLabel(device->info()) + " is not " + capture.device.arch +
                                ", the architecture the captured kernels were compiled for (pick another with --device)");
    return device;
}

void writeJsonFile(const std::string& file, const Json& document) {
    writeFileAtomic(file, dumpJson(document, 2) + "\n");
}

// The refusal of a capture's replay where no device of its backend and architecture is found; empty when there is one.
std::optional<std::string> captureRefusal(const FlaCapture& capture) {
    std::vector<DeviceInfo> devices;
    std::vector<std::string> unavailable;
    for (const BackendProbe& probe : probeBackends()) {
        if (probe.backend && probe.backend->available())
            for (const DeviceInfo& d : probe.backend->devices()) devices.push_back(d);
        else
            unavailable.push_back(probe.name + ": " + probe.reason);
    }
    return flaCaptureSweepRefusal(capture, devices, unavailable);
}

FlaSweepOptions captureSweepOptions(const CaptureSweepArgs& args) {
    FlaSweepOptions options;
    options.tritonCache = args.tritonCache.empty() ? defaultTritonCacheDir() : std::filesystem::path(args.tritonCache);
    options.rule = args.rule;
    options.rounds = args.rounds;
    options.orderSeed = args.orderSeed;
    if (!l2RegimeFromString(args.l2, &options.regime))
        throw Error("", "", "--l2 must be cold, warm or hot with --manifest (got '" + args.l2 + "')");
    return options;
}

void announceReplay(const CaptureSweepArgs& args, const FlaCapture& capture, const Device& device,
                    const std::string& timer, FlaSweepOptions& options) {
    if (args.quiet) return;
    std::cerr << "tunescope-cli: replaying " << flaCaptureSummary(capture) << " on " << deviceLabel(device.info())
              << ", timer " << timer << ", L2 " << args.l2 << ", " << args.rounds << " rounds, binaries from "
              << options.tritonCache.string() << '\n';
    options.note = [](const std::string& line) { std::cerr << "tunescope-cli: " << line << '\n'; };
}

}  // namespace

int runCaptureSweep(const CaptureSweepArgs& args) {
    const FlaCapture capture = readFlaCapture(args.manifest);
    const FlaCapturePlan plan = planFlaCapture(capture);
    if (args.dryRun) {
        std::cout << formatFlaCapturePlan(plan);
        return kExitOk;
    }
    if (const auto refusal = captureRefusal(capture)) {
        std::cerr << "tunescope-cli: sweep --manifest " << args.manifest << ": refused: " << *refusal << '\n';
        return kExitUsageOrIo;
    }
    if (args.out.empty()) throw Error("", "", "--out is required (the results file of the capture's sweep)");
    const std::unique_ptr<Device> device = openCaptureDevice(capture, args.device);
    FlaSweepOptions options = captureSweepOptions(args);
    const std::string timer = device->useTimer(args.timer);
    announceReplay(args, capture, *device, timer, options);
    const FlaCaptureSweep sweep = runFlaCaptureSweep(capture, *device, options);
    writeJsonFile(args.out, toJson(sweep, options));
    std::cout << formatFlaCaptureSweep(sweep);
    std::cout << "wrote " << args.out << '\n';
    std::size_t chosen = 0;
    for (const auto& d : sweep.decisions) chosen += d.chosen ? 1 : 0;
    if (!args.choicesOut.empty()) {
        const Json choices = flaSweepChoices(sweep);
        checkFlaChoices(capture, parseFlaChoices(choices, args.choicesOut));  // what export-fla will accept
        writeJsonFile(args.choicesOut, choices);
        std::cout << "wrote " << args.choicesOut << " (" << chosen << " of " << sweep.decisions.size() << " keys)\n";
    }
    return chosen == sweep.decisions.size() ? kExitOk : kExitInvalid;
}

int runCaptureConfirm(const CaptureConfirmArgs& args) {
    const FlaCapture capture = readFlaCapture(args.sweep.manifest);
    if (!args.results.empty()) {
        // Judge a finished head to head again (another threshold, another machine): nothing is measured.
        if (!args.candidate.empty() || args.baseline != "captured" || !args.sweep.out.empty())
            throw Error("", "", "--results judges a finished run: give it with --manifest alone (no CANDIDATE, --baseline or --out)");
        const FlaConfirmFile file = readFlaConfirmFile(args.results, capture);
        const FlaConfirmReport report =
            judgeFlaConfirm(file.sweep.sweep, capture, file.candidate, file.baseline, args.threshold);
        if (!args.sweep.quiet) std::cout << formatFlaConfirm(report);
        return report.atLeastAsFast() ? kExitOk : kExitInvalid;
    }
    if (args.candidate.empty()) throw Error("", "", "confirm --manifest needs CANDIDATE (an FLA_CONFIG_DIR or a choices file)");
    // Both sides are read and matched to the capture's configs before any device is touched.
    const FlaChoices candidate = flaConfirmSide(capture, args.candidate);
    const FlaChoices baseline = flaConfirmSide(capture, args.baseline);
    if (const auto refusal = captureRefusal(capture)) {
        std::cerr << "tunescope-cli: confirm --manifest " << args.sweep.manifest << ": refused: " << *refusal << '\n';
        return kExitUsageOrIo;
    }
    if (args.sweep.out.empty()) throw Error("", "", "--out is required (the results file of the head to head)");
    const std::unique_ptr<Device> device = openCaptureDevice(capture, args.sweep.device);
    FlaSweepOptions options = captureSweepOptions(args.sweep);
    restrictToSides(options, candidate, baseline, args.noAa ? 1 : 2);
    const std::string timer = device->useTimer(args.sweep.timer);
    announceReplay(args.sweep, capture, *device, timer, options);
    const FlaCaptureSweep sweep = runFlaCaptureSweep(capture, *device, options);
    const FlaConfirmReport report = judgeFlaConfirm(sweep, capture, candidate, baseline, args.threshold);
    Json results = toJson(sweep, options);
    results["head_to_head"] = toJson(report);
    writeJsonFile(args.sweep.out, results);
    if (!args.sweep.quiet) std::cout << formatFlaConfirm(report) << "wrote " << args.sweep.out << '\n';
    return report.atLeastAsFast() ? kExitOk : kExitInvalid;
}

void registerCaptureCommands(CLI::App& app, CliContext& ctx) {
    auto* capture = app.add_subcommand("capture", "FLA capture manifests (scripts/fla_capture.py): plan, export-fla");
    capture->require_subcommand(1);
    registerCapturePlan(*capture, ctx);
    registerCaptureExportFla(*capture, ctx);
}

}  // namespace tunescope::cli
