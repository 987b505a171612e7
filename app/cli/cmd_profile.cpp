// Profile commands: validate, convert, lookup, diff, import-triton, import-fla, export-fla.
// Exit codes (tunescope/errors.hpp): 0 ok, 1 invalid / refused / different, 2 usage or I/O. Output is stable:
// pipelines parse it (prefer --json where offered).
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/json_layout.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"
#include "tunescope/formats/diff.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/formats/lookup.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/report.hpp"
#include "tunescope/formats/triton_cache.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope::cli {

namespace fs = std::filesystem;

namespace {

void printJson(const Json& value) { std::cout << dumpJson(value, 2) << '\n'; }

std::string summaryCounts(const ValidationResult& r) {
    return std::to_string(r.count(Severity::Error)) + " errors, " + std::to_string(r.count(Severity::Warning)) +
           " warnings, " + std::to_string(r.count(Severity::Info)) + " infos";
}

// Options that describe a profile made from scratch by an import.
void addNewProfileOptions(CLI::App* sub, NewProfileOptions& o) {
    const std::string group = "New profile (without --into)";
    sub->add_option("--key-heads", o.keyHeads, "key heads H in T = B * L * H (default 16)")->group(group);
    sub->add_option("--batch-min", o.batchSizeMin, "smallest supported batch (default 1)")->group(group);
    sub->add_option("--batch-max", o.batchSizeMax, "largest supported batch (default 8)")->group(group);
    sub->add_option("--padded-tokens-max", o.paddedTokensMax, "largest supported padded length (default 16384)")
        ->group(group);
    sub->add_option("--gpu-arch", o.gpuArch, "target architecture, e.g. gfx942 or sm_90 (decides the config rules)")
        ->group(group);
    sub->add_option("--triton", o.triton, "Triton version the caches come from")->group(group);
    sub->add_option("--fla", o.fla, "FLA version")->group(group);
    sub->add_option("--torch", o.torch, "torch version")->group(group);
    sub->add_option("--hip", o.hip, "HIP runtime version (AMD)")->group(group);
    sub->add_option("--cuda", o.cuda, "CUDA runtime version (NVIDIA)")->group(group);
    sub->add_option("--target", o.target, "free text: what the profile is for")->group(group);
}

// A profile exported for one GPU and loaded on another runs configs tuned (and checked) for the first: FLA's
// loader does not look at the architecture. Probing finds the GPUs this machine has (none: no warning).
std::vector<std::string> targetMismatchWarnings(const Profile& profile) {
    std::vector<std::string> warnings;
    for (const BackendProbe& probe : probeBackends()) {
        if (probe.name == "cpu" || !probe.backend || !probe.backend->available()) continue;
        for (const DeviceInfo& device : probe.backend->devices())
            if (device.architecture.substr(0, device.architecture.find(':')) != profile.runtime.gpu_arch)
                warnings.push_back("the profile targets " + profile.runtime.gpu_arch + " but this machine's " +
                                   probe.name + " device " + std::to_string(device.index) + " (" + device.name +
                                   ") is " + device.architecture + "; FLA will load these configs there regardless");
    }
    return warnings;
}

int reportImport(const ImportSummary& s, const std::string& out, bool wrote) {
    for (const auto& line : s.messages) std::cout << line << '\n';
    std::cout << "evidence added " << s.evidenceAdded << ", replaced " << s.evidenceReplaced << "; policy entries set "
              << s.policySet << "; skipped " << s.skipped << '\n';
    if (!wrote) {
        std::cerr << "tunescope-cli: nothing usable to import; " << out << " was not written\n";
        return kExitInvalid;
    }
    std::cout << "wrote " << out << '\n';
    return kExitOk;
}

// ---------------------------------------------------------------------------------------------------------------

void registerValidate(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string file;
        bool json = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("validate", "Check a profile, cuBLASLt report, FLA capture manifest or FLA_CONFIG_DIR "
                                               "against every rule");
    sub->footer(
        "Prints one line per diagnostic (severity, rule, JSON Pointer, message) and a summary.\n"
        "Files listed in a profile's files[] are looked for beside it and their SHA-256 checked.\n"
        "Exit: 0 valid (warnings allowed), 1 invalid (schema errors included), 2 usage, unreadable file or JSON syntax "
        "error.\n"
        "An FLA capture manifest (\"format\": \"tunescope-fla-capture-v1\") is checked by its own rules: \"valid (...)\",\n"
        "or exit 2 with one \"FILE: at /pointer: message\" line per fault on stderr.\n"
        "A capture sweep's results (\"format\": \"tunescope-fla-capture-sweep-v1\") are checked the same way: the\n"
        "quantile order, eligible configs' totals, the chosen config the lowest eligible total.\n"
        "A folder (or its tunescope-fla-config-dir.json) is checked as the FLA_CONFIG_DIR capture export-fla wrote:\n"
        "the manifest, its digest, every listed file's size, SHA-256, FLA format and entry count, unlisted files;\n"
        "\"DIR: valid (FLA_CONFIG_DIR, ...)\" or exit 2 with one line per fault on stderr.");
    sub->add_option("file", args->file, "the profile, report, capture manifest or FLA_CONFIG_DIR")->required();
    sub->add_flag("--json", args->json,
                  "print {\"file\", \"valid\", \"diagnostics\": [{\"severity\", \"rule\", \"path\", \"message\"}]}");
    sub->callback([args, &ctx] {
        if (isFlaConfigDirPath(args->file)) {  // a folder capture export-fla wrote (docs/fla-capture.md)
            ctx.exitCode = runConfigDirValidate(args->file, args->json);
            return;
        }
        if (isCaptureManifestFile(args->file)) {  // an FLA capture manifest: its own rules (docs/fla-capture.md)
            ctx.exitCode = runCaptureValidate(args->file);
            return;
        }
        if (isCaptureSweepFile(args->file)) {  // sweep --manifest's results (docs/fla-capture.md section 10)
            ctx.exitCode = runCaptureSweepValidate(args->file);
            return;
        }
        const ValidationResult result = validateFile(args->file);
        if (args->json) {
            printJson(toJson(result));
        } else {
            for (const auto& d : result.diagnostics) std::cout << result.file << ": " << formatDiagnostic(d) << '\n';
            std::cout << result.file << ": " << (result.valid() ? "valid" : "invalid") << " " << toString(result.kind)
                      << " (" << summaryCounts(result) << ")\n";
        }
        ctx.exitCode = result.valid() ? kExitOk : kExitInvalid;
    });
}

void registerConvert(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string in, out;
        int indent = -1;
        bool rehash = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("convert", "Load a profile, cuBLASLt policy or report through its model and write it back");
    sub->footer(
        "The kind is detected from the content. Unknown members and member order are kept; without --indent the\n"
        "input's layout is kept too, so converting an unchanged file gives the same bytes. --out - writes to stdout.\n"
        "Exit: 0 written, 2 usage, unreadable, malformed or wrongly typed input, or write failure (old file kept).");
    sub->add_option("in", args->in, "input profile or report")->required();
    sub->add_option("--out", args->out, "output file (written atomically), or - for stdout")->required();
    sub->add_option("--indent", args->indent, "re-indent with N spaces (0 = one member per line, no indent)")
        ->check(CLI::Range(0, 16));
    sub->add_flag("--rehash", args->rehash,
                  "cuBLASLt policies: set entries_sha256 to the entries as they are (after a deliberate hand edit)");
    sub->callback([args, &ctx] {
        const std::string text = readTextFile(args->in);
        JsonReadOptions options;
        options.rejectDuplicateKeys = true;
        const Json document = parseJson(text, args->in, options);
        const DocumentKind kind = detectDocumentKind(document);
        std::string bytes;
        if (args->rehash && kind != DocumentKind::CublasLtPolicy)
            throw Error(args->in, "", "--rehash is for cuBLASLt policies (their entries_sha256)");
        if (kind == DocumentKind::Profile) {
            Profile profile = parseProfileText(text, args->in);
            if (args->indent >= 0) profile.layout = JsonLayout::indented(args->indent);
            bytes = serializeProfile(profile);
        } else if (kind == DocumentKind::CublasLtReport) {
            CublasLtReport report = parseReportText(text, args->in);
            if (args->indent >= 0) report.layout = JsonLayout::indented(args->indent);
            bytes = serializeReport(report);
        } else if (kind == DocumentKind::CublasLtPolicy) {
            CublasLtPolicy policy = parseCublasLtPolicyText(text, args->in);
            if (args->indent >= 0) policy.layout = JsonLayout::indented(args->indent);
            if (args->rehash) policy.entries_sha256 = cublasLtPolicyEntriesSha256(policy);
            bytes = serializeCublasLtPolicy(policy);
        } else {
            throw Error(args->in, "",
                        "neither an l2norm profile (\"format\"), a cuBLASLt policy nor a cuBLASLt report "
                        "(\"heuristics\"); convert reads only those");
        }
        if (args->out == "-") {
            std::cout << bytes;
            if (!bytes.empty() && bytes.back() != '\n') std::cout << '\n';
        } else {
            writeFileAtomic(args->out, bytes);
            std::cout << "wrote " << args->out << " (" << toString(kind) << ", " << bytes.size() << " bytes)\n";
        }
        ctx.exitCode = kExitOk;
    });
}

// CLI11 reads an integer that does not fit as the type's largest value; refuse it as a usage error instead.
CLI::Validator fitsInt64() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::int64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (ec == std::errc::result_out_of_range) return "integer " + text + " does not fit in 64 bits";
            if (ec != std::errc() || ptr != end) return "\"" + text + "\" is not an integer";
            return {};
        },
        "INT64");
}

void registerLookup(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string profile;
        std::int64_t batch = 0, paddedTokens = 0;
        bool json = false;
        PolicyLookupArgs policy;
        std::string kernel, key;  // FLA_CONFIG_DIRs
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("lookup", "What production does for one shape: NB, autotune key and config "
                                             "(profiles), which algorithm a cuBLASLt policy gives one GEMM, or "
                                             "which config an FLA_CONFIG_DIR gives one kernel and key");
    sub->footer(
        "Profiles: NB = ceil(batch * padded_tokens * key_heads / 65536), as FLA computes it (--batch, --padded-tokens).\n"
        "cuBLASLt policies: the GEMM in the explorer's row-major terms (--m --n --k [--dtype] [--layout]); with --gpu,\n"
        "--arch and --cublaslt-version the answer is what the loaders decide there (before cublasLtMatmulAlgoCheck).\n"
        "FLA_CONFIG_DIRs (a folder capture export-fla wrote, or its manifest): --kernel NAME lists the kernel's keys;\n"
        "with --key (FLA's autotune key as a JSON array, or its key hash) the entry FLA_CACHE_MODE=strict loads.\n"
        "Exit: 0 the profile has a config / the policy's entry is used / the folder has the kernel (and key), 1 the\n"
        "shape is outside `supported` (the unknown_key policy answers) / the loaders fall back to the heuristic / no\n"
        "such kernel or key in the folder, 2 usage or unreadable/invalid file or folder.");
    sub->add_option("profile", args->profile, "the profile, cuBLASLt policy or FLA_CONFIG_DIR")->required();
    sub->add_option("--batch,-b", args->batch, "profiles: batch size B")->check(fitsInt64());
    sub->add_option("--padded-tokens,-l", args->paddedTokens, "profiles: padded sequence length L")->check(fitsInt64());
    addPolicyLookupOptions(sub, args->policy);
    const std::string folderGroup = "FLA_CONFIG_DIR";
    sub->add_option("--kernel", args->kernel, "FLA_CONFIG_DIRs: the kernel (its file is KERNEL.json)")->group(folderGroup);
    sub->add_option("--key", args->key,
                    "FLA_CONFIG_DIRs: FLA's autotune key as a JSON array ('[64, 128, \"torch.bfloat16\"]') or its "
                    "32-digit key hash; without it the kernel's keys are listed")
        ->group(folderGroup);
    sub->add_flag("--json", args->json,
                  "print {\"batch\", \"padded_tokens\", \"rows\", \"NB\", \"autotune_key\", \"outcome\", \"config\", "
                  "\"basis\", \"error\", \"unknown_key\"} (profiles) or {\"outcome\", \"entry\", \"fallback\", "
                  "\"detail\", \"algo\"} (policies) or {\"kernel_name\", \"outcome\", \"file\", \"key_hash\", "
                  "\"autotune_key\", \"config\", \"best_timing\", \"keys\", \"keys_without_choice\", \"error\"} "
                  "(FLA_CONFIG_DIRs)");
    sub->callback([args, sub, &ctx] {
        if (isFlaConfigDirPath(args->profile)) {
            if (args->kernel.empty()) throw Error("", "", "lookup in an FLA_CONFIG_DIR needs --kernel NAME [--key KEY]");
            ctx.exitCode = runConfigDirLookup(args->profile, args->kernel, args->key, args->json);
            return;
        }
        if (!args->kernel.empty() || !args->key.empty())
            throw Error(args->profile, "", "--kernel and --key are for FLA_CONFIG_DIRs (a folder capture export-fla wrote)");
        if (detectDocumentKind(readJsonFile(args->profile)) == DocumentKind::CublasLtPolicy) {
            ctx.exitCode = runPolicyLookup(args->profile, args->policy, args->json);
            return;
        }
        if (sub->count("--batch") == 0 || sub->count("--padded-tokens") == 0)
            throw Error("", "", "lookup of a profile needs --batch and --padded-tokens");
        const Profile profile = loadProfile(args->profile);
        const LookupAnswer answer = lookup(profile, args->batch, args->paddedTokens);
        if (args->json) {
            printJson(toJson(answer));
        } else if (answer.ok()) {
            std::cout << "NB " << *answer.NB << " (rows " << *answer.rows << " = " << answer.batch << " x "
                      << answer.paddedTokens << " x " << profile.supported.key_heads << ")\n";
            std::cout << "autotune key " << answer.key->toJson().dump() << '\n';
            std::cout << "config " << describe(*answer.config) << '\n';
            std::cout << "basis " << answer.basis << '\n';
        } else {
            std::cerr << "tunescope-cli: " << args->profile << ": " << answer.error << '\n';
        }
        ctx.exitCode = answer.ok() ? kExitOk : kExitInvalid;
    });
}

void registerDiff(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string a, b;
        bool json = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("diff", "Per-NB config and basis changes between two profiles (or per-entry "
                                           "changes between two cuBLASLt policies, or per kernel and key between two "
                                           "FLA_CONFIG_DIRs)");
    sub->footer(
        "One line per changed NB (\"NB 14: config ... -> ...; basis ... -> ...\"), then other members that differ\n"
        "(\"other: replace /status\").\n"
        "Two FLA_CONFIG_DIRs (folders or their manifests): one line per kernel and key whose entry was added, removed,\n"
        "or holds another config, timing or key, then the manifest members that differ (capture, choices, device,\n"
        "stack, keys_without_choice).\n"
        "Exit: 0 identical, 1 different, 2 usage or unreadable/invalid profile or folder.");
    sub->add_option("a", args->a, "the profile before")->required();
    sub->add_option("b", args->b, "the profile after")->required();
    sub->add_flag("--json", args->json, "print {\"identical\", \"policy\": [...], \"other\": [...]}");
    sub->callback([args, &ctx] {
        const bool folderA = isFlaConfigDirPath(args->a), folderB = isFlaConfigDirPath(args->b);
        if (folderA != folderB)
            throw Error(folderA ? args->b : args->a, "",
                        "not an FLA_CONFIG_DIR while the other is: diff compares two folders capture export-fla wrote, "
                        "not a folder and a file");
        if (folderA) {
            ctx.exitCode = runConfigDirDiff(args->a, args->b, args->json);
            return;
        }
        const DocumentKind kindA = detectDocumentKind(readJsonFile(args->a));
        const DocumentKind kindB = detectDocumentKind(readJsonFile(args->b));
        if ((kindA == DocumentKind::CublasLtPolicy) != (kindB == DocumentKind::CublasLtPolicy))
            throw Error(kindA == DocumentKind::CublasLtPolicy ? args->b : args->a, "/format",
                        "not \"tunescope-cublaslt-policy-v1\" while the other file is a cuBLASLt policy: diff compares "
                        "two profiles or two cuBLASLt policies, not one of each");
        if (kindA == DocumentKind::CublasLtPolicy) {
            ctx.exitCode = runPolicyDiff(args->a, args->b, args->json);
            return;
        }
        const ProfileDiff diff = diffProfiles(loadProfile(args->a), loadProfile(args->b));
        if (args->json) {
            printJson(toJson(diff));
        } else if (diff.empty()) {
            std::cout << "identical\n";
        } else {
            for (const auto& change : diff.policy) std::cout << formatPolicyChange(change) << '\n';
            for (const auto& other : diff.other) std::cout << "other: " << other.op << ' ' << other.path << '\n';
            std::cout << diff.policy.size() << " NB entries differ, " << diff.other.size() << " other changes\n";
        }
        ctx.exitCode = diff.empty() ? kExitOk : kExitInvalid;
    });
}

void registerImportTriton(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string source, into, out, kernel{kL2NormKernelName};
        NewProfileOptions options;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("import-triton", "Import Triton autotune cache files as evidence and policy");
    sub->footer(
        "SOURCE is one <kernel>.autotune.json or a Triton cache folder (searched recursively). Each file's best\n"
        "config becomes source evidence (with the file's SHA-256) and the NB's policy (original-production-chosen).\n"
        "With --into, the profile is updated (measured-best entries keep their config); without, a new profile is\n"
        "made (NBs without a cache get the largest imported NB's config, basis prospective-fixed-...).\n"
        "Exit: 0 written, 1 nothing usable (nothing written), 2 usage or unreadable/malformed input.");
    sub->add_option("source", args->source, "cache file or folder")->required();
    sub->add_option("--into", args->into, "profile to import into (read, not changed unless it is also --out)");
    sub->add_option("--out", args->out, "profile to write (atomically)")->required();
    sub->add_option("--kernel", args->kernel, "kernel name in the cache file names (default l2norm_fwd_kernel)");
    addNewProfileOptions(sub, args->options);
    sub->callback([args, &ctx] {
        const auto caches = loadTritonAutotuneCaches(args->source, args->kernel);
        ImportSummary summary;
        Profile profile;
        if (!args->into.empty()) {
            profile = loadProfile(args->into);
            summary = importTritonCaches(profile, caches);
        } else {
            bool usable = false;
            for (const auto& c : caches) usable = usable || c.parsedKey.has_value();
            if (usable) profile = profileFromTritonCaches(caches, args->options, &summary);
            else summary = importTritonCaches(profile, caches);  // skips every cache, each with its reason
        }
        const bool changed = summary.evidenceAdded + summary.evidenceReplaced + summary.policySet > 0;
        if (changed) saveProfile(profile, args->out);
        ctx.exitCode = reportImport(summary, args->out, changed);
    });
}

void registerImportFla(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string file, into, out;
        NewProfileOptions options;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("import-fla", "Import FLA's config-cache file (l2norm_fwd_kernel.json)");
    sub->footer(
        "Every autotune entry becomes the policy for its NB (basis imported-fla-config, or original-production-chosen\n"
        "when it equals production's recorded choice). An entry filed under a hash FLA would not compute is imported\n"
        "with a warning. Without --into a new profile is made.\n"
        "Exit: 0 written, 1 nothing usable (nothing written), 2 usage or unreadable/malformed input.");
    sub->add_option("file", args->file, "the FLA config file")->required();
    sub->add_option("--into", args->into, "profile to import into");
    sub->add_option("--out", args->out, "profile to write (atomically)")->required();
    addNewProfileOptions(sub, args->options);
    sub->callback([args, &ctx] {
        const FlaConfigFile file = loadFlaConfig(args->file);
        ImportSummary summary;
        Profile profile;
        if (!args->into.empty()) {
            profile = loadProfile(args->into);
            summary = importFlaConfig(profile, file);
        } else {
            bool usable = false;
            for (const auto& e : file.entries) usable = usable || e.parsedKey.has_value();
            if (usable) profile = profileFromFlaConfig(file, args->options, &summary);
            else summary = importFlaConfig(profile, file);  // skips every entry, each with its reason
        }
        const bool changed = summary.evidenceAdded + summary.evidenceReplaced + summary.policySet > 0;
        if (changed) saveProfile(profile, args->out);
        ctx.exitCode = reportImport(summary, args->out, changed);
    });
}

void registerExportFla(CLI::App& app, CliContext& ctx) {
    struct Args {
        std::string profile, out, manifestName;
        bool force = false;
        bool allowMixedArchitectures = false;
    };
    auto args = std::make_shared<Args>();
    auto* sub = app.add_subcommand("export-fla", "Write FLA's l2norm_fwd_kernel.json and the profile side by side");
    sub->footer(
        "The folder works as FLA_CONFIG_DIR with FLA_CACHE_MODE=strict (FLA v0.5.1 and v0.5.2 have this loader;\n"
        "releases up to v0.5.0 have no FLA_CONFIG_DIR). The manifest (the profile) lists l2norm_fwd_kernel.json in\n"
        "files[] with the SHA-256 of the bytes written. Both files are written to temp names first, then renamed\n"
        "(the manifest first). Shapes outside the profile's NB range get no entry: FLA's strict mode then autotunes.\n"
        "A profile with validation errors is refused (its configs could break production) unless --force; so is\n"
        "one whose entries were chosen on more than one GPU architecture, unless --allow-mixed-architectures.\n"
        "The FLA file's triton_version is the profile's runtime.triton (after promote: the measured binaries').\n"
        "Exit: 0 written, 1 refused (validation errors, mixed architectures), 2 usage, unreadable profile or write\n"
        "failure.");
    sub->add_option("profile", args->profile, "the profile")->required();
    sub->add_option("--out", args->out, "folder to write into (created if missing)")->required();
    sub->add_option("--manifest-name", args->manifestName, "file name of the manifest (default: the profile's)");
    sub->add_flag("--force", args->force, "export even when the profile has validation errors");
    sub->add_flag("--allow-mixed-architectures", args->allowMixedArchitectures,
                  "export a profile whose entries were chosen on more than one GPU architecture");
    sub->callback([args, &ctx] {
        const Profile profile = loadProfile(args->profile);
        if (const auto architectures = policyArchitectures(profile);
            architectures.size() > 1 && !args->allowMixedArchitectures) {
            std::cerr << "tunescope-cli: " << args->profile << ": its entries were chosen on more than one GPU "
                      << "architecture (" << describePolicyArchitectures(architectures) << "); FLA would load all of "
                      << "them on one GPU. Measure every NB on the target (sweep, promote --all-bases), or give "
                      << "--allow-mixed-architectures. Not exported\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        const ValidationResult check = validateProfile(profile);
        if (!check.valid() && !args->force) {
            for (const auto& d : check.diagnostics)
                if (d.severity == Severity::Error) std::cerr << args->profile << ": " << formatDiagnostic(d) << '\n';
            std::cerr << "tunescope-cli: " << args->profile << ": has " << check.count(Severity::Error)
                      << " validation errors; not exported (use --force to export anyway)\n";
            ctx.exitCode = kExitInvalid;
            return;
        }
        const FlaExportResult result = exportFla(profile, args->out, args->manifestName, args->allowMixedArchitectures);
        std::cout << "triton_version " << result.manifest.runtime.triton << " (the profile's runtime.triton)\n";
        std::cout << "wrote " << result.configFile.string() << " (sha256 " << result.configSha256 << ", "
                  << result.manifest.per_NB_policy.size() << " entries)\n";
        std::cout << "wrote " << result.manifestFile.string() << '\n';
        std::cout << "use: FLA_CONFIG_DIR=" << fs::absolute(args->out).string() << " FLA_CACHE_MODE=strict\n";
        const Supported& s = profile.supported;
        std::cout << "covers NB " << s.NB_min << ".." << s.NB_max << " (batch " << s.batch_size_min << ".."
                  << s.batch_size_max << ", padded tokens up to " << s.padded_tokens_max << ", " << s.key_heads
                  << " key heads); outside it FLA finds no entry and Triton autotunes (strict mode raises nothing)";
        if (s.unknown_key == "raise before kernel/autotune")
            std::cout << ", so the profile's \"raise before kernel/autotune\" needs a guard in the caller"
                         " (tunescope-cli lookup answers)";
        std::cout << '\n';
        for (const std::string& warning : targetMismatchWarnings(profile))
            std::cerr << "tunescope-cli: warning: " << warning << '\n';
        ctx.exitCode = kExitOk;
    });
}

}  // namespace

void registerProfileCommands(CLI::App& app, CliContext& ctx) {
    registerValidate(app, ctx);
    registerConvert(app, ctx);
    registerLookup(app, ctx);
    registerDiff(app, ctx);
    registerImportTriton(app, ctx);
    registerImportFla(app, ctx);
    registerExportFla(app, ctx);
}

}  // namespace tunescope::cli
