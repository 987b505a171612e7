#include "tunescope/formats/validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "cublaslt_policy_internal.hpp"
#include "profile_internal.hpp"
#include "report_internal.hpp"
#include "tunescope/base/hashing.hpp"

namespace tunescope {

namespace fs = std::filesystem;

bool isValidTimingMs(double ms, bool failedMarker) {
    if (std::isinf(ms) && ms > 0) return failedMarker;
    return std::isfinite(ms) && ms > 0;
}

std::string timingRuleText(double ms, bool failedMarker) {
    std::string shown;
    if (std::isnan(ms)) shown = "NaN";
    else if (std::isinf(ms)) shown = ms > 0 ? "Infinity" : "-Infinity";
    else shown = formatPythonFloat(ms);
    return std::string("must be a finite number of milliseconds > 0") +
           (failedMarker ? " or Infinity (a config that failed)" : "") + ", not " + shown;
}

std::string_view toString(Severity severity) {
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "error";
}

std::string_view toString(DocumentKind kind) {
    switch (kind) {
    case DocumentKind::Profile: return "profile";
    case DocumentKind::CublasLtReport: return "cublaslt-report";
    case DocumentKind::CublasLtPolicy: return "cublaslt-policy";
    case DocumentKind::FlaConfig: return "fla-config";
    case DocumentKind::TritonAutotuneCache: return "triton-autotune-cache";
    case DocumentKind::Unknown: return "unknown";
    }
    return "unknown";
}

DocumentKind detectDocumentKind(const Json& document) {
    if (!document.is_object()) return DocumentKind::Unknown;
    if (const auto it = document.find("format"); it != document.end() && it->is_string() &&
                                                 it->get<std::string>() == kCublasLtPolicyFormat)
        return DocumentKind::CublasLtPolicy;
    if (document.contains("format") || document.contains("per_NB_policy")) return DocumentKind::Profile;
    if (document.contains("heuristics")) return DocumentKind::CublasLtReport;
    if (document.contains("autotune_entries")) return DocumentKind::FlaConfig;
    if (document.contains("configs_timings")) return DocumentKind::TritonAutotuneCache;
    return DocumentKind::Unknown;
}

TargetVendor targetVendorOf(std::string_view arch) {
    auto digitsFrom = [&](std::size_t pos) {
        return pos < arch.size() && std::isdigit(static_cast<unsigned char>(arch[pos]));
    };
    if (arch.rfind("gfx9", 0) == 0 && digitsFrom(4)) return TargetVendor::Amd;
    if (arch.rfind("sm_", 0) == 0 && digitsFrom(3)) return TargetVendor::Nvidia;
    return TargetVendor::Unknown;
}

std::size_t ValidationResult::count(Severity severity) const {
    return static_cast<std::size_t>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                                  [severity](const Diagnostic& d) { return d.severity == severity; }));
}

std::vector<Diagnostic> ValidationResult::withRule(std::string_view rule) const {
    std::vector<Diagnostic> out;
    for (const auto& d : diagnostics)
        if (d.rule == rule) out.push_back(d);
    return out;
}

Json toJson(const ValidationResult& result) {
    Json out = Json::object();
    out["file"] = result.file;
    out["valid"] = result.valid();
    Json list = Json::array();
    for (const auto& d : result.diagnostics) {
        Json item = Json::object();
        item["severity"] = std::string(toString(d.severity));
        item["rule"] = d.rule;
        item["path"] = d.path;
        item["message"] = d.message;
        list.push_back(std::move(item));
    }
    out["diagnostics"] = std::move(list);
    return out;
}

std::string formatDiagnostic(const Diagnostic& d) {
    return std::string(toString(d.severity)) + " [" + d.rule + "] " + (d.path.empty() ? "/" : d.path) + ": " +
           d.message;
}

namespace {

bool isPowerOfTwo(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

bool isSha256Hex(const std::string& text) {
    return text.size() == 64 &&
           std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// "1-3, 7, 9-12"
std::string describeRanges(const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& [from, to] : ranges) {
        if (shown == 8) {
            out += ", ... (" + std::to_string(ranges.size() - shown) + " more ranges)";
            break;
        }
        if (!out.empty()) out += ", ";
        out += from == to ? std::to_string(from) : std::to_string(from) + "-" + std::to_string(to);
        ++shown;
    }
    return out;
}

int smVersion(std::string_view arch) {
    int version = 0;
    for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i) {
        if (version > 100000) return version;  // "sm_99999999999" is no GPU; stop before int overflows
        version = version * 10 + (arch[i] - '0');
    }
    return version;
}

// Backend options that Triton's HIP backend takes through a Config's kwargs (Triton 3.7 HIPOptions).
bool isAmdBackendKwarg(const std::string& name) {
    return name == "waves_per_eu" || name == "matrix_instr_nonkdim" || name == "kpack" || name == "schedule_hint";
}

const std::set<std::string>& knownUnknownKeyPolicies() {
    static const std::set<std::string> policies{"raise before kernel/autotune", "fall back to triton autotune"};
    return policies;
}

class ProfileChecker {
public:
    ProfileChecker(const Profile& profile, const ValidationOptions& options, std::vector<Diagnostic>& out)
        : p_(profile), options_(options), out_(out), vendor_(targetVendorOf(profile.runtime.gpu_arch)) {}

    void run() {
        checkDocument();
        checkSupported();
        checkRuntime();
        checkFiles();
        checkDigests();
        checkSourceEvidence();
        checkPolicyCoverage();
        checkPolicyEntries();
        checkArchitectures();
    }

private:
    void add(Severity severity, std::string rule, std::string path, std::string message) {
        out_.push_back(Diagnostic{severity, std::move(rule), std::move(path), std::move(message)});
    }
    void error(std::string rule, std::string path, std::string message) {
        add(Severity::Error, std::move(rule), std::move(path), std::move(message));
    }
    void warning(std::string rule, std::string path, std::string message) {
        add(Severity::Warning, std::move(rule), std::move(path), std::move(message));
    }
    void info(std::string rule, std::string path, std::string message) {
        add(Severity::Info, std::move(rule), std::move(path), std::move(message));
    }

    std::string vendorName() const {
        switch (vendor_) {
        case TargetVendor::Amd: return "AMD " + p_.runtime.gpu_arch;
        case TargetVendor::Nvidia: return "NVIDIA " + p_.runtime.gpu_arch;
        case TargetVendor::Unknown: break;
        }
        return "an unknown target";
    }

    void checkDocument() {
        static const std::set<std::string> modes{"disabled", "strict", "fuzzy", "full", "default", "always"};
        if (!modes.count(p_.cache_mode))
            error("cache-mode", "/cache_mode",
                  "unknown FLA cache mode \"" + p_.cache_mode +
                      "\"; FLA_CACHE_MODE takes disabled, strict, fuzzy, full, default or always (strict: exact key "
                      "match only)");
        else if (p_.cache_mode == "disabled")
            warning("cache-mode", "/cache_mode",
                    "cache_mode \"disabled\" means FLA never reads the exported config file; use \"strict\"");
        if (!(p_.numerical_tolerance_unchanged > 0))
            error("numerical-tolerance", "/numerical_tolerance_unchanged",
                  "the tolerance must be a positive number (the seed has 1e-06)");
    }

    void checkSupported() {
        const Supported& s = p_.supported;
        if (s.batch_size_min > s.batch_size_max)
            error("supported-range", "/supported/batch_size_min",
                  "batch_size_min " + std::to_string(s.batch_size_min) + " is larger than batch_size_max " +
                      std::to_string(s.batch_size_max));
        if (s.NB_min > s.NB_max)
            error("supported-range", "/supported/NB_min",
                  "NB_min " + std::to_string(s.NB_min) + " is larger than NB_max " + std::to_string(s.NB_max));
        const auto expected = s.expectedNbMax();
        if (!expected) {
            error("nb-max-formula", "/supported/NB_max",
                  "batch_size_max * padded_tokens_max * key_heads overflows 64 bits; these limits cannot be real");
        } else if (*expected != s.NB_max) {
            error("nb-max-formula", "/supported/NB_max",
                  "NB_max is " + std::to_string(s.NB_max) + " but ceil(batch_size_max * padded_tokens_max * key_heads / "
                  "65536) = ceil(" + std::to_string(s.batch_size_max) + " * " + std::to_string(s.padded_tokens_max) +
                      " * " + std::to_string(s.key_heads) + " / 65536) = " + std::to_string(*expected) +
                      "; set NB_max to " + std::to_string(*expected) + " or fix the batch/token limits");
        }
        if (const auto smallest = s.nbFor(s.batch_size_min, 1); smallest && *smallest != s.NB_min)
            warning("nb-min", "/supported/NB_min",
                    "NB_min is " + std::to_string(s.NB_min) + " but the smallest supported shape (batch " +
                        std::to_string(s.batch_size_min) + ", 1 padded token) gives NB " + std::to_string(*smallest));
        if (s.NB_formula != s.expectedNbFormula())
            warning("nb-formula", "/supported/NB_formula",
                    "NB_formula \"" + s.NB_formula + "\" does not read as FLA's formula for " +
                        std::to_string(s.key_heads) + " key heads: \"" + s.expectedNbFormula() +
                        "\" (TuneScope computes NB with the latter)");
        if (!knownUnknownKeyPolicies().count(s.unknown_key))
            error("unknown-key-policy", "/supported/unknown_key",
                  "unknown policy \"" + s.unknown_key +
                      "\" for shapes outside the supported range; use \"raise before kernel/autotune\" (production "
                      "refuses the shape) or \"fall back to triton autotune\"");
        if (s.unknown_key == "raise before kernel/autotune")
            warning("fla-unknown-key", "/supported/unknown_key",
                    "FLA alone cannot keep this promise: with FLA_CACHE_MODE=strict a shape outside NB " +
                        std::to_string(s.NB_min) + ".." + std::to_string(s.NB_max) +
                        " finds no entry and falls back to Triton autotune without an error; the caller must refuse "
                        "it before the kernel (tunescope-cli lookup answers, docs/formats.md shows the guard)");
        static const std::set<std::string> dtypes{"bfloat16", "float16", "float32", "torch.bfloat16", "torch.float16",
                                                  "torch.float32"};
        for (const char* key : {"body_dtype", "output_dtype", "rstd_dtype"}) {
            const std::string& value = key == std::string("body_dtype")     ? s.body_dtype
                                       : key == std::string("output_dtype") ? s.output_dtype
                                                                            : s.rstd_dtype;
            if (!dtypes.count(value))
                warning("dtype", std::string("/supported/") + key,
                        "\"" + value + "\" is not a dtype the l2norm kernel is used with (bfloat16, float16, float32)");
        }
        if (s.head_dimension > 512)
            warning("supported-range", "/supported/head_dimension",
                    "FLA uses the BT-tiled l2norm_fwd_kernel only for D <= 512; head_dimension " +
                        std::to_string(s.head_dimension) + " runs l2norm_fwd_kernel1, which this profile does not tune");
    }

    void checkRuntime() {
        const auto& r = p_.runtime;
        if (vendor_ == TargetVendor::Unknown)
            warning("target-arch", "/runtime/gpu_arch",
                    "gpu_arch \"" + r.gpu_arch + "\" is neither gfx9xx (AMD) nor sm_XX (NVIDIA); configs are checked "
                    "with NVIDIA's limits only");
        if (vendor_ == TargetVendor::Amd && r.cuda)
            warning("target-arch", "/runtime/cuda", "an AMD gpu_arch with a CUDA runtime version: which is it?");
        if (vendor_ == TargetVendor::Nvidia && r.hip)
            warning("target-arch", "/runtime/hip", "an NVIDIA gpu_arch with a HIP runtime version: which is it?");
    }

    void checkFiles() {
        for (std::size_t i = 0; i < p_.files.size(); ++i) {
            const FileEntry& f = p_.files[i];
            const std::string at = jsonPointerAppend("/files", i);
            const fs::path rel(f.file);
            bool escapes = f.file.empty() || rel.is_absolute();
            for (const auto& part : rel)
                if (part == "..") escapes = true;
            if (escapes) {
                error("file-path", at + "/file",
                      "\"" + f.file + "\" must be a plain name relative to the profile's folder (no absolute paths, "
                      "no ..): the profile travels with its files");
                continue;
            }
            if (!isSha256Hex(f.sha256)) {
                error("sha256-format", at + "/sha256", "not a SHA-256: expected 64 lowercase hex digits");
                continue;
            }
            if (!options_.baseDir) continue;
            const fs::path file = *options_.baseDir / rel;
            std::error_code ec;
            const auto status = fs::status(file, ec);
            if (ec || !fs::exists(status)) {
                warning("file-missing", at + "/file",
                        f.file + " is listed but not beside the profile (looked for " + file.string() +
                            "), so its SHA-256 cannot be checked; put it there or export it (tunescope-cli export-fla)");
                continue;
            }
            try {
                const std::string actual = sha256FileHex(file);
                if (actual != f.sha256)
                    error("file-sha256", at + "/sha256",
                          f.file + " has SHA-256 " + actual + ", but the profile lists " + f.sha256 +
                              ": the file changed after the profile was written (re-export, or restore the file)");
            } catch (const Error& e) {
                error("file-unreadable", at + "/file", e.what());
            }
        }
    }

    void checkDigest(const std::string& path, const std::string& value) {
        if (!isSha256Hex(value)) error("sha256-format", path, "not a SHA-256: expected 64 lowercase hex digits");
    }

    void checkDigests() {
        if (p_.fla_source_sha256)
            for (const auto& d : *p_.fla_source_sha256) checkDigest(jsonPointerAppend("/fla_source_sha256", d.path), d.sha256);
        if (p_.builder_sha256) checkDigest("/builder_sha256", *p_.builder_sha256);
        for (std::size_t i = 0; i < p_.source_evidence.size(); ++i)
            checkDigest(jsonPointerAppend("/source_evidence", i) + "/source_autotune_sha256",
                        p_.source_evidence[i].source_autotune_sha256);
    }

    void checkConfig(const TritonConfig& c, const std::string& at) {
        const std::int64_t maxWarps = vendor_ == TargetVendor::Amd ? 16 : 32;
        if (!isPowerOfTwo(c.BT) || c.BT < 8 || c.BT > 128)
            error("config-bt", at + "/kwargs/BT",
                  "BT " + std::to_string(c.BT) + " is not one of FLA's block sizes 8, 16, 32, 64, 128");
        if (!isPowerOfTwo(c.num_warps) || c.num_warps > maxWarps)
            error("config-num-warps", at + "/num_warps",
                  "num_warps " + std::to_string(c.num_warps) + " is not legal on " + vendorName() +
                      ": it must be a power of two up to " + std::to_string(maxWarps) +
                      (vendor_ == TargetVendor::Amd ? " (wave64: 16 warps = 1024 threads, the workgroup limit)" : ""));
        if (vendor_ == TargetVendor::Amd) {
            if (c.num_ctas != 1)
                error("config-num-ctas", at + "/num_ctas",
                      "num_ctas must be 1 on " + vendorName() + " (Triton refuses num_ctas > 1 before GFX1250)");
            if (c.maxnreg)
                error("config-maxnreg", at + "/maxnreg",
                      "maxnreg must be null on " + vendorName() + ": the HIP backend has no such option and Triton "
                      "fails to compile with it");
            if (c.ir_override)
                error("config-ir-override", at + "/ir_override",
                      "ir_override must be null on " + vendorName() + ": the HIP backend has no such option");
        } else {
            const int sm = smVersion(p_.runtime.gpu_arch);
            if (!isPowerOfTwo(c.num_ctas) || c.num_ctas > 16)
                error("config-num-ctas", at + "/num_ctas",
                      "num_ctas " + std::to_string(c.num_ctas) + " must be a power of two up to 16");
            else if (c.num_ctas > 1 && vendor_ == TargetVendor::Nvidia && sm < 90)
                error("config-num-ctas", at + "/num_ctas",
                      "num_ctas > 1 (thread-block clusters) needs sm_90 or newer; this profile targets " +
                          p_.runtime.gpu_arch);
            if (c.maxnreg && (*c.maxnreg < 16 || *c.maxnreg > 255))
                error("config-maxnreg", at + "/maxnreg",
                      "maxnreg " + std::to_string(*c.maxnreg) + " is outside the registers a thread can have (16..255)");
            if (c.ir_override)
                warning("config-ir-override", at + "/ir_override",
                        "ir_override replaces a compile stage with \"" + *c.ir_override +
                            "\", a file this profile does not carry: it must exist on every production machine");
        }
        if (c.num_stages < 1)
            error("config-num-stages", at + "/num_stages", "num_stages must be at least 1");
        if (!c.pre_hook.is_null())
            error("config-pre-hook", at + "/pre_hook",
                  "pre_hook must be null: a Python callable cannot be stored, FLA forces it to None and Triton skips "
                  "its disk cache when a config has one");
        for (const auto& [key, value] : c.extraKwargs.items()) {
            if (vendor_ == TargetVendor::Amd && isAmdBackendKwarg(key))
                info("config-kwargs", jsonPointerAppend(at + "/kwargs", key),
                     key + " is a HIP backend option passed through kwargs");
            else
                error("config-kwargs", jsonPointerAppend(at + "/kwargs", key),
                      "l2norm_fwd_kernel has no meta-parameter \"" + key + "\" (only BT): Triton would fail to launch");
        }
        for (const auto& [key, value] : c.extraFields.items())
            error("config-unknown-field", jsonPointerAppend(at, key),
                  "\"" + key + "\" is not a Triton Config field (kwargs, num_warps, num_ctas, num_stages, maxnreg, "
                  "pre_hook, ir_override): Triton's Config(**dict) would fail");
    }

    void checkSourceEvidence() {
        const Supported& s = p_.supported;
        std::map<std::int64_t, std::size_t> firstIndex;
        for (std::size_t i = 0; i < p_.source_evidence.size(); ++i) {
            const SourceEvidence& e = p_.source_evidence[i];
            const std::string at = jsonPointerAppend("/source_evidence", i);
            checkKey(e.key, at + "/key");
            if (e.key.NB < s.NB_min || e.key.NB > s.NB_max)
                warning("autotune-key", at + "/key/1",
                        "evidence for NB " + std::to_string(e.key.NB) + ", outside the supported NB_min..NB_max = " +
                            std::to_string(s.NB_min) + ".." + std::to_string(s.NB_max) + "; no policy entry uses it");
            if (const auto [it, inserted] = firstIndex.emplace(e.key.NB, i); !inserted)
                error("autotune-key", at + "/key",
                      "a second source_evidence entry for NB " + std::to_string(e.key.NB) + " (the first is /source_evidence/" +
                          std::to_string(it->second) + "): which one did production choose?");
            checkConfig(e.chosen_config, at + "/chosen_config");
        }
    }

    void checkKey(const AutotuneKey& key, const std::string& at) {
        const Supported& s = p_.supported;
        const AutotuneKey expected = s.keyFor(key.NB);
        if (key.headDimension != expected.headDimension)
            error("autotune-key", at + "/0",
                  "key head dimension " + std::to_string(key.headDimension) + " does not match supported.head_dimension " +
                      std::to_string(s.head_dimension));
        const std::pair<const std::string*, const std::string*> dtypes[] = {
            {&key.bodyDtype, &expected.bodyDtype}, {&key.outputDtype, &expected.outputDtype}, {&key.rstdDtype, &expected.rstdDtype}};
        const char* names[] = {"body_dtype", "output_dtype", "rstd_dtype"};
        for (int k = 0; k < 3; ++k)
            if (*dtypes[k].first != *dtypes[k].second)
                error("autotune-key", at + "/" + std::to_string(k + 2),
                      "key dtype \"" + *dtypes[k].first + "\" does not match supported." + names[k] + " (FLA's key says \"" +
                          *dtypes[k].second + "\")");
    }

    void checkPolicyCoverage() {
        const Supported& s = p_.supported;
        std::set<std::int64_t> seen;
        std::int64_t previous = INT64_MIN;
        bool ordered = true;
        for (std::size_t i = 0; i < p_.per_NB_policy.size(); ++i) {
            const std::int64_t nb = p_.per_NB_policy[i].NB;
            const std::string at = jsonPointerAppend("/per_NB_policy", i) + "/NB";
            if (nb < s.NB_min || nb > s.NB_max)
                error("nb-coverage", at,
                      "NB " + std::to_string(nb) + " is outside supported NB_min..NB_max = " + std::to_string(s.NB_min) +
                          ".." + std::to_string(s.NB_max) + "; remove the entry or widen the supported range");
            if (!seen.insert(nb).second)
                error("nb-coverage", at, "NB " + std::to_string(nb) + " appears more than once; keep one entry per NB");
            else if (nb < previous && ordered) {
                error("nb-coverage", at,
                      "NB " + std::to_string(nb) + " comes after NB " + std::to_string(previous) +
                          ": entries must be in ascending NB order");
                ordered = false;
            }
            previous = std::max(previous, nb);
        }
        if (s.NB_min > s.NB_max) return;
        // Missing NBs as ranges, computed from the gaps so that a huge NB_max costs nothing.
        std::vector<std::pair<std::int64_t, std::int64_t>> missing;
        std::int64_t next = s.NB_min;
        bool coveredToMax = false;  // NB_max itself has an entry (next = NB_max + 1 could overflow)
        for (const std::int64_t nb : seen) {
            if (nb < s.NB_min || nb > s.NB_max) continue;
            if (nb > next) missing.emplace_back(next, nb - 1);
            if (nb == s.NB_max) {
                coveredToMax = true;
                break;
            }
            next = nb + 1;
        }
        if (!coveredToMax && next <= s.NB_max) missing.emplace_back(next, s.NB_max);
        if (!missing.empty())
            error("nb-coverage", "/per_NB_policy",
                  "no entry for NB " + describeRanges(missing) + ": per_NB_policy must cover NB_min..NB_max (" +
                      std::to_string(s.NB_min) + ".." + std::to_string(s.NB_max) + ") exactly once each");
    }

    void checkPolicyEntries() {
        for (std::size_t i = 0; i < p_.per_NB_policy.size(); ++i) {
            const PolicyEntry& e = p_.per_NB_policy[i];
            const std::string at = jsonPointerAppend("/per_NB_policy", i);
            const std::string nb = std::to_string(e.NB);
            checkConfig(e.config, at + "/config");
            if (e.basis == kBasisOriginal) {
                const SourceEvidence* evidence = p_.evidenceFor(e.NB);
                if (!evidence) {
                    error("basis-original", at + "/basis",
                          "NB " + nb + " claims basis \"" + e.basis + "\" but source_evidence has no autotune record "
                          "for NB " + nb + "; import it (tunescope-cli import-triton) or change the basis");
                } else if (!(evidence->chosen_config == e.config)) {
                    const auto index = static_cast<std::size_t>(evidence - p_.source_evidence.data());
                    error("basis-original", at + "/config",
                          "NB " + nb + " claims production's choice, but its config (" + describe(e.config) +
                              ") differs from what production chose (/source_evidence/" + std::to_string(index) +
                              "/chosen_config: " + describe(evidence->chosen_config) +
                              "); restore that config or change the basis");
                }
            } else if (e.isProspective()) {
                warning("basis-prospective", at + "/basis",
                        "NB " + nb + " uses a prospective config (" + describe(e.config) + ", basis \"" + e.basis +
                            "\"): no measurement backs it; measure it (tunescope-cli sweep, then promote) before "
                            "relying on it");
            } else if (e.basis == kBasisMeasured) {
                if (!e.evidence)
                    error("basis-measured", at + "/basis",
                          "NB " + nb + " is \"measured-best\" but has no evidence object (median_ms, p20_ms, p80_ms, "
                          "samples, device, results_sha256)");
            } else if (e.basis == kBasisImportedFla) {
                info("basis-imported", at + "/basis",
                     "NB " + nb + " was taken from an FLA config file; no measurement in this profile backs it");
            } else {
                warning("basis-unknown", at + "/basis",
                        "unknown basis \"" + e.basis + "\"; known: original-production-chosen, measured-best, "
                        "imported-fla-config, prospective-*");
            }
            if (e.evidence) checkMeasuredEvidence(e, at + "/evidence");
        }
    }

    // Entries chosen on different GPU architectures: FLA loads them all on one GPU (promote and export-fla refuse
    // this unless --allow-mixed-architectures).
    void checkArchitectures() {
        const auto architectures = policyArchitectures(p_);
        if (architectures.size() > 1)
            warning("mixed-architectures", "/per_NB_policy",
                    "the entries were chosen on more than one GPU architecture: " +
                        describePolicyArchitectures(architectures) +
                        "; measure every NB on the target (sweep, then promote --all-bases)");
    }

    void checkMeasuredEvidence(const PolicyEntry& e, const std::string& at) {
        const MeasuredEvidence& m = *e.evidence;
        if (e.basis != kBasisMeasured)
            warning("basis-measured", at,
                    "an evidence object on an entry whose basis is \"" + e.basis + "\", not \"measured-best\"");
        if (!isValidTimingMs(m.median_ms) || !isValidTimingMs(m.p20_ms) || !isValidTimingMs(m.p80_ms))
            error("evidence-timing", at + "/median_ms", "timings must be positive milliseconds");
        else if (!(m.p20_ms <= m.median_ms && m.median_ms <= m.p80_ms))
            error("evidence-timing", at,
                  "the quantiles are out of order: p20_ms <= median_ms <= p80_ms must hold (" + formatPythonFloat(m.p20_ms) +
                      ", " + formatPythonFloat(m.median_ms) + ", " + formatPythonFloat(m.p80_ms) + ")");
        checkDigest(at + "/results_sha256", m.results_sha256);
        if (m.device.empty()) warning("evidence-device", at + "/device", "the device that measured it is not named");
    }

    const Profile& p_;
    const ValidationOptions& options_;
    std::vector<Diagnostic>& out_;
    TargetVendor vendor_;
};


// ---------------------------------------------------------------------------------------------------------------
// cuBLASLt policies. The legal names are the ones the loaders (include/tunescope/cublaslt_policy.hpp,
// python/tunescope_cublaslt_policy.py) map to cuBLASLt's values: a valid policy is a loadable one.
// ---------------------------------------------------------------------------------------------------------------

const std::set<std::string>& legalLtOps() {
    static const std::set<std::string> names{"CUBLAS_OP_N", "CUBLAS_OP_T"};
    return names;
}
const std::set<std::string>& legalLtOrders() {
    static const std::set<std::string> names{"CUBLASLT_ORDER_COL", "CUBLASLT_ORDER_ROW"};
    return names;
}
const std::set<std::string>& legalLtDataTypes() {
    static const std::set<std::string> names{"CUDA_R_16F", "CUDA_R_16BF", "CUDA_R_32F", "CUDA_R_64F", "CUDA_R_8I",
                                             "CUDA_R_32I", "CUDA_R_8F_E4M3", "CUDA_R_8F_E5M2", "CUDA_R_4F_E2M1"};
    return names;
}
const std::set<std::string>& legalLtComputeTypes() {
    static const std::set<std::string> names{"CUBLAS_COMPUTE_16F", "CUBLAS_COMPUTE_32F", "CUBLAS_COMPUTE_32F_FAST_16F",
                                             "CUBLAS_COMPUTE_32F_FAST_16BF", "CUBLAS_COMPUTE_32F_FAST_TF32",
                                             "CUBLAS_COMPUTE_64F", "CUBLAS_COMPUTE_32I"};
    return names;
}
const std::set<std::string>& legalLtScaleModes() {
    static const std::set<std::string> names{
        "CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F",    "CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3",
        "CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0",   "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F",
        "CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F",    "CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F"};
    return names;
}
const std::set<std::string>& legalLtEpilogues() {
    static const std::set<std::string> names{"CUBLASLT_EPILOGUE_DEFAULT",   "CUBLASLT_EPILOGUE_RELU",
                                             "CUBLASLT_EPILOGUE_BIAS",      "CUBLASLT_EPILOGUE_RELU_BIAS",
                                             "CUBLASLT_EPILOGUE_GELU",      "CUBLASLT_EPILOGUE_GELU_BIAS"};
    return names;
}
const std::set<std::string>& legalLtPointerModes() {
    static const std::set<std::string> names{"CUBLASLT_POINTER_MODE_HOST", "CUBLASLT_POINTER_MODE_DEVICE"};
    return names;
}
const std::set<std::string>& legalGainRegimes() {
    static const std::set<std::string> names{"sustained", "burst", "end-to-end"};
    return names;
}
const std::set<std::string>& legalGainBases() {
    static const std::set<std::string> names{"verified", "confirm", "trajectory", "heuristic-kept"};
    return names;
}

std::string joined(const std::set<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

class PolicyChecker {
public:
    PolicyChecker(const CublasLtPolicy& policy, std::vector<Diagnostic>& out) : p_(policy), out_(out) {}

    void run() {
        checkDigest();
        if (p_.entries.empty()) warning("no-entries", "/entries", "the policy has no entries: every matmul falls back to the heuristic");
        std::map<std::string, std::size_t> seen;
        for (std::size_t i = 0; i < p_.entries.size(); ++i) {
            const LtPolicyEntry& e = p_.entries[i];
            const std::string at = jsonPointerAppend("/entries", i);
            const std::string key = detail::policyEntryKey(e);
            if (const auto [it, fresh] = seen.emplace(key, i); !fresh)
                error("duplicate-entry", at, "entry " + std::to_string(i) + " has the same matmul and environment as entry " +
                                                 std::to_string(it->second) + " (" + key + "): a loader would not know which to use");
            checkMatmul(e.matmul, at + "/matmul");
            if (e.library == kLibraryCublasLt) checkCublasLtAlgo(e, at);
            else if (e.library == kLibraryHipblasLt) checkHipblasLtAlgo(e, at);
            else error("library", at + "/library", "library \"" + e.library + "\" is neither \"cublaslt\" nor \"hipblaslt\"");
            checkGain(e, at + "/gain");
            checkTies(e, at);
            checkEnvironment(e, at + "/environment");
            if (e.parity && e.parity->output_sha256 && !isSha256Hex(*e.parity->output_sha256))
                error("parity", at + "/parity/output_sha256", "output_sha256 must be 64 lowercase hex digits");
        }
    }

private:
    void error(std::string rule, std::string path, std::string message) {
        out_.push_back(Diagnostic{Severity::Error, std::move(rule), std::move(path), std::move(message)});
    }
    void warning(std::string rule, std::string path, std::string message) {
        out_.push_back(Diagnostic{Severity::Warning, std::move(rule), std::move(path), std::move(message)});
    }

    void checkDigest() {
        std::string expected;
        try {
            expected = cublasLtPolicyEntriesSha256(p_);
        } catch (const Error& e) {
            error("entries-digest", "/entries", "the entries have no canonical form: " + e.message());
            return;
        }
        if (p_.entries_sha256 != expected)
            error("entries-digest", "/entries_sha256",
                  "entries_sha256 is \"" + p_.entries_sha256 + "\" but the entries hash to " + expected +
                      ": the entries were edited after export (export again, or sign the policy you mean to keep)");
    }

    void legal(const std::string& value, const std::set<std::string>& names, const std::string& path, const char* what) {
        if (!names.count(value))
            error("matmul-legal", path, "\"" + value + "\" is not a " + what + " the loaders know (" + joined(names) + ")");
    }

    void checkMatmul(const LtMatmul& m, const std::string& at) {
        legal(m.transa, legalLtOps(), at + "/transa", "transpose");
        legal(m.transb, legalLtOps(), at + "/transb", "transpose");
        legal(m.order, legalLtOrders(), at + "/order", "matrix order");
        for (auto [name, value] : {std::pair{"a_type", &m.a_type}, std::pair{"b_type", &m.b_type},
                                   std::pair{"c_type", &m.c_type}, std::pair{"d_type", &m.d_type},
                                   std::pair{"scale_type", &m.scale_type}})
            legal(*value, legalLtDataTypes(), at + "/" + name, "data type");
        if (m.bias_type) legal(*m.bias_type, legalLtDataTypes(), at + "/bias_type", "data type");
        legal(m.compute_type, legalLtComputeTypes(), at + "/compute_type", "compute type");
        legal(m.a_scale_mode, legalLtScaleModes(), at + "/a_scale_mode", "scale mode");
        legal(m.b_scale_mode, legalLtScaleModes(), at + "/b_scale_mode", "scale mode");
        legal(m.epilogue, legalLtEpilogues(), at + "/epilogue", "epilogue");
        legal(m.pointer_mode, legalLtPointerModes(), at + "/pointer_mode", "pointer mode");
        // Column-major storage: op(A) is m x k, so A is stored m x k (N) or k x m (T) and ld covers its rows.
        if (m.order == "CUBLASLT_ORDER_COL") {
            const std::int64_t aRows = m.transa == "CUBLAS_OP_T" ? m.k : m.m;
            const std::int64_t bRows = m.transb == "CUBLAS_OP_T" ? m.n : m.k;
            for (auto [name, ld, rows] : {std::tuple{"lda", m.lda, aRows}, std::tuple{"ldb", m.ldb, bRows},
                                          std::tuple{"ldc", m.ldc, m.m}, std::tuple{"ldd", m.ldd, m.m}})
                if (ld < rows)
                    error("matmul-ld", at + "/" + name, std::string(name) + " " + std::to_string(ld) +
                                                            " is smaller than the rows it must cover (" + std::to_string(rows) + ")");
        }
        for (auto [name, value] : {std::pair{"a", m.min_alignment_a_bytes}, std::pair{"b", m.min_alignment_b_bytes},
                                   std::pair{"c", m.min_alignment_c_bytes}, std::pair{"d", m.min_alignment_d_bytes}})
            if (!isPowerOfTwo(value))
                error("matmul-alignment", at + "/min_alignment_bytes/" + name, "an alignment must be a power of two");
        if ((m.epilogue.find("BIAS") != std::string::npos) != m.bias_type.has_value())
            error("matmul-bias", at + "/bias_type", "a bias type goes with a *_BIAS epilogue and only with one");
    }

    void checkCublasLtAlgo(const LtPolicyEntry& e, const std::string& at) {
        if (!e.algo.attributes)
            error("algo-attributes", at + "/algo/attributes",
                  "a cuBLASLt entry needs its CUBLASLT_ALGO_CONFIG_* values (the loaders check the raw bytes against "
                  "them, or rebuild the algorithm from them)");
        if (e.algo.solution_index || e.algo.solution_name)
            warning("algo-library", at + "/algo", "a cuBLASLt entry with a hipBLASLt solution: the loaders ignore it");
        if (!e.environment.cublaslt_version)
            error("environment", at + "/environment/cublaslt_version",
                  "a cuBLASLt entry needs the cuBLASLt version it was measured with (cublasLtGetVersion()); raw "
                  "algorithm bytes hold only for that version");
        if (targetVendorOf(e.environment.architecture) != TargetVendor::Nvidia)
            error("environment", at + "/environment/architecture",
                  "a cuBLASLt entry needs an NVIDIA architecture (sm_XX), not \"" + e.environment.architecture + "\"");
    }

    void checkHipblasLtAlgo(const LtPolicyEntry& e, const std::string& at) {
        if (!e.algo.solution_index || *e.algo.solution_index <= 0)
            error("hipblaslt-solution", at + "/algo/solution_index",
                  "a hipBLASLt entry needs a positive solution_index (hipBLASLt ignores 0 and below)");
        if (!e.algo.solution_name || e.algo.solution_name->empty() ||
            e.algo.solution_name->find_first_of(",\r\n") != std::string::npos)
            error("hipblaslt-solution", at + "/algo/solution_name",
                  "a hipBLASLt entry needs its solution_name (one line, no commas): hipBLASLt checks the index by it");
        if (e.algo.data || e.algo.attributes)
            warning("algo-library", at + "/algo", "a hipBLASLt entry with cuBLASLt algorithm data: nothing reads it");
        if (targetVendorOf(e.environment.architecture) != TargetVendor::Amd)
            error("environment", at + "/environment/architecture",
                  "a hipBLASLt entry needs an AMD architecture (gfx9xx), not \"" + e.environment.architecture + "\"");
    }

    void checkGain(const LtPolicyEntry& e, const std::string& at) {
        const LtPolicyGain& g = e.gain;
        if (!legalGainRegimes().count(g.regime))
            error("gain", at + "/regime", "regime \"" + g.regime + "\" is not one of " + joined(legalGainRegimes()));
        if (!legalGainBases().count(g.basis))
            error("gain", at + "/basis", "basis \"" + g.basis + "\" is not one of " + joined(legalGainBases()));
        if (g.interval_95_percent && !(g.interval_95_percent->first <= g.percent && g.percent <= g.interval_95_percent->second))
            error("gain", at + "/interval_95_percent", "the interval does not contain the gain " + formatPythonFloat(g.percent));
        if (!g.over_heuristic && (g.percent != 0.0 || g.basis != "heuristic-kept"))
            warning("gain", at + "/over_heuristic",
                    "an entry that keeps the heuristic's choice should state a gain of 0 on basis \"heuristic-kept\"");
        if (g.over_heuristic && g.basis == "heuristic-kept")
            error("gain", at + "/basis", "basis \"heuristic-kept\" but over_heuristic is true");
    }

    void checkTies(const LtPolicyEntry& e, const std::string& at) {
        if (!e.ties) return;
        if (e.ties->rule.empty()) error("ties", at + "/ties/rule", "a tie set states the rule that picked from it");
        if (!e.gain.over_heuristic || !e.algo.attributes) return;
        bool member = false;
        for (const LtTieMember& m : e.ties->members) member = member || m.attributes.sameValues(*e.algo.attributes);
        if (!member)
            error("ties", at + "/ties/members",
                  "the entry's algorithm is not in its own tie set: the tie rule picks from the set, so the pick "
                  "must be a member");
    }

    void checkEnvironment(const LtPolicyEntry& e, const std::string& at) {
        if (e.environment.gpu.empty())
            error("environment", at + "/gpu", "the GPU name the entry holds for is empty (e.g. \"NVIDIA H200\")");
    }

    const CublasLtPolicy& p_;
    std::vector<Diagnostic>& out_;
};

void addIssues(const detail::ModelReader& reader, std::vector<Diagnostic>& out) {
    for (const auto& issue : reader.issues())
        out.push_back(Diagnostic{Severity::Error, issue.rule, issue.path, issue.message});
}

}  // namespace

std::map<std::string, std::vector<std::int64_t>> policyArchitectures(const Profile& profile) {
    // The architecture production's and imported choices were made on: the oldest runtime block kept.
    std::string source = profile.runtime.gpu_arch;
    const Json& history = profile.original.is_object() && profile.original.contains("runtime_history")
                              ? profile.original["runtime_history"]
                              : Json();
    if (history.is_array() && !history.empty() && history[0].is_object() && history[0].contains("runtime") &&
        history[0]["runtime"].is_object() && history[0]["runtime"].contains("gpu_arch") &&
        history[0]["runtime"]["gpu_arch"].is_string())
        source = history[0]["runtime"]["gpu_arch"].get<std::string>();
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const PolicyEntry& e : profile.per_NB_policy) {
        std::string arch;
        if (e.basis == kBasisMeasured && e.evidence) {
            const Json& evidence = e.evidence->original;
            if (evidence.is_object() && evidence.contains("architecture") && evidence["architecture"].is_string()) {
                arch = evidence["architecture"].get<std::string>();
            } else {
                const std::string& device = e.evidence->device;  // "NVIDIA H200 (sm_90)"
                const std::size_t open = device.rfind('(');
                if (open != std::string::npos && device.back() == ')') arch = device.substr(open + 1, device.size() - open - 2);
            }
        } else if (e.basis == kBasisOriginal || e.basis == kBasisImportedFla) {
            arch = source;
        }
        if (!arch.empty()) out[arch].push_back(e.NB);
    }
    for (auto& [arch, nbs] : out) std::sort(nbs.begin(), nbs.end());
    return out;
}

std::string describePolicyArchitectures(const std::map<std::string, std::vector<std::int64_t>>& architectures) {
    std::string text;
    for (const auto& [arch, nbs] : architectures) {
        std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
        for (std::int64_t nb : nbs)
            if (!ranges.empty() && ranges.back().second + 1 == nb) ranges.back().second = nb;
            else ranges.emplace_back(nb, nb);
        text += (text.empty() ? "" : ", ") + arch + " (NB " + describeRanges(ranges) + ")";
    }
    return text;
}

ValidationResult validateProfileJson(const Json& document, const std::string& fileName, const ValidationOptions& options) {
    ValidationResult result;
    result.file = fileName;
    result.kind = DocumentKind::Profile;
    detail::ModelReader reader(fileName, /*collect=*/true);
    const Profile profile = detail::readProfile(document, reader);
    addIssues(reader, result.diagnostics);
    if (!reader.issues().empty()) {
        result.diagnostics.push_back(Diagnostic{Severity::Info, "schema", "",
                                                "the other rules run once the schema errors above are fixed"});
        return result;
    }
    ProfileChecker(profile, options, result.diagnostics).run();
    return result;
}

ValidationResult validateProfile(const Profile& profile, const ValidationOptions& options) {
    return validateProfileJson(toJson(profile), profile.fileName, options);
}

ValidationResult validateReportJson(const Json& document, const std::string& fileName) {
    ValidationResult result;
    result.file = fileName;
    result.kind = DocumentKind::CublasLtReport;
    detail::ModelReader reader(fileName, /*collect=*/true);
    const CublasLtReport report = detail::readReport(document, reader);
    addIssues(reader, result.diagnostics);
    if (!reader.issues().empty()) return result;
    for (std::size_t i = 0; i < report.heuristics.size(); ++i) {
        const HeuristicSet& set = report.heuristics[i];
        if (set.returned_count && *set.returned_count != static_cast<std::int64_t>(set.algorithms.size()))
            result.diagnostics.push_back(Diagnostic{
                Severity::Warning, "returned-count", jsonPointerAppend("/heuristics", i) + "/returned_count",
                "returned_count is " + std::to_string(*set.returned_count) + " but " +
                    std::to_string(set.algorithms.size()) + " algorithms are listed"});
    }
    if (report.trajectory) {
        const Trajectory& t = *report.trajectory;
        for (const auto& [name, parity] : {std::pair{"video_parity", &t.video_parity}, std::pair{"audio_parity", &t.audio_parity}}) {
            if (!*parity) continue;
            const ParityCheck& p = **parity;
            const bool hashesAgree = p.actual_sha256 && p.expected_sha256 && *p.actual_sha256 == *p.expected_sha256;
            if (p.bf16_exact.value_or(false) && (!hashesAgree || p.different_elements.value_or(0) != 0))
                result.diagnostics.push_back(Diagnostic{
                    Severity::Error, "parity", std::string("/trajectory/") + name + "/bf16_exact",
                    "claims a bitwise-exact output but the hashes or the element count say otherwise"});
        }
        if (t.baseline_seconds && t.candidate_seconds && t.improvement_percent && *t.baseline_seconds > 0) {
            const double computed = (*t.baseline_seconds - *t.candidate_seconds) / *t.baseline_seconds * 100.0;
            if (std::fabs(computed - *t.improvement_percent) > 1e-6 * std::max(1.0, std::fabs(computed)))
                result.diagnostics.push_back(Diagnostic{
                    Severity::Warning, "improvement", "/trajectory/improvement_percent",
                    "improvement_percent is " + formatPythonFloat(*t.improvement_percent) +
                        " but (baseline - candidate) / baseline gives " + formatPythonFloat(computed)});
        }
    }
    return result;
}

ValidationResult validateCublasLtPolicyJson(const Json& document, const std::string& fileName) {
    ValidationResult result;
    result.file = fileName;
    result.kind = DocumentKind::CublasLtPolicy;
    detail::ModelReader reader(fileName, /*collect=*/true);
    const CublasLtPolicy policy = detail::readCublasLtPolicy(document, reader);
    addIssues(reader, result.diagnostics);
    if (!reader.issues().empty()) {
        result.diagnostics.push_back(Diagnostic{Severity::Info, "schema", "",
                                                "the other rules run once the schema errors above are fixed"});
        return result;
    }
    PolicyChecker(policy, result.diagnostics).run();
    return result;
}

ValidationResult validateFile(const fs::path& file) {
    const std::string name = file.string();
    JsonReadOptions options;
    options.rejectDuplicateKeys = true;
    const Json document = parseJson(readTextFile(file), name, options);
    switch (detectDocumentKind(document)) {
    case DocumentKind::Profile: {
        ValidationOptions validation;
        validation.baseDir = file.has_parent_path() ? file.parent_path() : fs::path(".");
        return validateProfileJson(document, name, validation);
    }
    case DocumentKind::CublasLtReport: return validateReportJson(document, name);
    case DocumentKind::CublasLtPolicy: return validateCublasLtPolicyJson(document, name);
    case DocumentKind::FlaConfig:
    case DocumentKind::TritonAutotuneCache:
    case DocumentKind::Unknown: break;
    }
    ValidationResult result;
    result.file = name;
    result.kind = detectDocumentKind(document);
    result.diagnostics.push_back(Diagnostic{
        Severity::Error, "format", "",
        result.kind == DocumentKind::Unknown
            ? std::string("neither an l2norm profile (\"format\": \"decision-fla-l2norm-profile-v1\"), a cuBLASLt "
                          "policy (\"format\": \"tunescope-cublaslt-policy-v1\") nor a cuBLASLt report "
                          "(\"heuristics\": [...])")
            : "this is a " + std::string(toString(result.kind)) +
                  " file, not a profile or report: import it (tunescope-cli import-fla / import-triton)"});
    return result;
}

}  // namespace tunescope
