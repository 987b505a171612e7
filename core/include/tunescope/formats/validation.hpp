#pragma once
// Validation of profiles (and reports): every problem found, each as a Diagnostic with a severity, a stable rule
// name, the JSON Pointer of the offending value and a message a user can act on. The rules are listed in
// docs/formats.md ("Validation rules"). A document is valid when it has no error (warnings and infos allowed).
//
// Schema problems (missing members, wrong types) are diagnostics here, not exceptions: validate reports all of
// them at once. Only unreadable files and JSON syntax errors throw (tunescope::Error, CLI exit 2).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope {

enum class Severity { Error, Warning, Info };
std::string_view toString(Severity severity);  // "error", "warning", "info"

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string rule;     // stable name, e.g. "nb-coverage", "config-num-warps", "basis-prospective"
    std::string path;     // JSON Pointer, e.g. "/per_NB_policy/13/config/num_warps" ("" = the whole document)
    std::string message;  // what is wrong and what to do about it
    friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

// What kind of document a JSON value is, judged by its members.
enum class DocumentKind { Profile, CublasLtReport, CublasLtPolicy, FlaConfig, TritonAutotuneCache, Unknown };
// A "format" of "tunescope-cublaslt-policy-v1" is a cuBLASLt policy; any other "format" (or per_NB_policy) a profile.
DocumentKind detectDocumentKind(const Json& document);
// "profile", "cublaslt-report", "cublaslt-policy", "fla-config", "triton-autotune-cache"
std::string_view toString(DocumentKind kind);

// The one rule for a measured time in every file TuneScope reads (sweep results, Triton's autotune cache, FLA's
// config cache, a profile's evidence): a finite number of milliseconds > 0. Triton and FLA write +Infinity for a
// config that failed, which `failedMarker` lets through. NaN is never a time (Python's min() over timings holding
// NaN depends on their order, so no reader could tell which config was chosen).
bool isValidTimingMs(double ms, bool failedMarker = false);
// "must be a finite number of milliseconds > 0[ or Infinity (a config that failed)], not NaN": for messages.
std::string timingRuleText(double ms, bool failedMarker = false);

// Which launch rules apply: gfx9xx -> AMD (wave64, num_warps <= 16, num_ctas 1, no maxnreg/ir_override),
// sm_XX -> NVIDIA (num_warps <= 32), anything else -> Unknown (checked with the NVIDIA limits, plus a warning).
enum class TargetVendor { Amd, Nvidia, Unknown };
TargetVendor targetVendorOf(std::string_view gpuArch);

struct ValidationOptions {
    // The folder that holds the files listed in files[]; nullopt skips the file checks (e.g. an unsaved profile).
    std::optional<std::filesystem::path> baseDir;
};

struct ValidationResult {
    std::string file;
    DocumentKind kind = DocumentKind::Unknown;
    std::vector<Diagnostic> diagnostics;  // in document order, rule by rule

    bool valid() const { return count(Severity::Error) == 0; }
    std::size_t count(Severity severity) const;
    // Diagnostics whose rule is `rule` (tests, GUI filters).
    std::vector<Diagnostic> withRule(std::string_view rule) const;
};

ValidationResult validateProfileJson(const Json& document, const std::string& fileName,
                                     const ValidationOptions& options = {});
// The typed model, e.g. while editing in the GUI (fileName and the files folder come from the options/profile).
ValidationResult validateProfile(const Profile& profile, const ValidationOptions& options = {});
ValidationResult validateReportJson(const Json& document, const std::string& fileName);
// The cuBLASLt policy's rules (docs/cublaslt-policy.md, "Validation rules"): schema, legal enum names, the entries
// digest, one entry per matmul and environment, data words and attributes, gains, tie sets, hipBLASLt entries.
ValidationResult validateCublasLtPolicyJson(const Json& document, const std::string& fileName);

// Where each policy entry's config comes from, architecture -> its NBs (docs/formats.md, "Provenance"): a
// measured-best entry from its evidence ("architecture", else the "(...)" that ends its "device" label); production's
// and imported choices from the architecture the profile was first made for (the oldest runtime_history block's
// gpu_arch, else runtime.gpu_arch); prospective entries from none. More than one key: the profile mixes
// architectures, which promote and export-fla refuse unless told otherwise (rule "mixed-architectures").
std::map<std::string, std::vector<std::int64_t>> policyArchitectures(const Profile& profile);
// "gfx942 (NB 1-13, 18), sm_90 (NB 14-17, 19-32)": the map above in words, for refusals and warnings.
std::string describePolicyArchitectures(const std::map<std::string, std::vector<std::int64_t>>& architectures);

// Reads a file, decides what it is and validates it; the files beside a profile are checked against files[].
// Throws Error for unreadable files, folders, files over 64 MiB and JSON syntax errors.
ValidationResult validateFile(const std::filesystem::path& file);

// {"file": ..., "valid": bool, "diagnostics": [{"severity", "rule", "path", "message"}, ...]}
Json toJson(const ValidationResult& result);
// "error [nb-coverage] /per_NB_policy/3: ..." (path "/" shown for the whole document)
std::string formatDiagnostic(const Diagnostic& diagnostic);

}  // namespace tunescope
