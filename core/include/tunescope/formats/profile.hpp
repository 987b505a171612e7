#pragma once
// The l2norm per-NB launch profile ("decision-fla-l2norm-profile-v1"; seed: profiles/fla-l2norm-gfx942-profile.json).
//
// A profile says, for every NB bucket production can hit, which Triton launch config FLA's l2norm_fwd_kernel uses,
// and on what basis (copied from production's own autotune choice, measured, or prospective). See docs/formats.md.
//
// The model is lossless: every struct keeps the JSON object it was read from (`original`), and toJson() writes the
// typed fields back into it. Members the model does not know, and the order of all members, survive load + save;
// saving an unchanged seed gives the same bytes. Values are plain value types: copy, compare, edit, save.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/base/json_layout.hpp"
#include "tunescope/device/device.hpp"

namespace tunescope {

inline constexpr std::string_view kProfileFormat = "decision-fla-l2norm-profile-v1";

// Basis names of per_NB_policy entries.
inline constexpr std::string_view kBasisOriginal = "original-production-chosen";  // = source evidence for its NB
inline constexpr std::string_view kBasisMeasured = "measured-best";              // carries an `evidence` object
inline constexpr std::string_view kBasisImportedFla = "imported-fla-config";     // taken from an FLA config file
inline constexpr std::string_view kBasisProspectivePrefix = "prospective";      // no measurement behind it

// One Triton launch config, as Triton 3.7's Config.__dict__ writes it:
// {"kwargs": {"BT": 32}, "num_warps": 8, "num_ctas": 1, "num_stages": 3, "maxnreg": null, "pre_hook": null,
//  "ir_override": null}.
struct TritonConfig {
    int BT = 32;                             // kwargs.BT: rows per program
    int num_warps = 4;                       // warps (wavefronts on AMD) per program
    int num_ctas = 1;                        // CTAs per cluster (must be 1 on AMD gfx9)
    int num_stages = 3;                      // software-pipelining depth (Triton's Config default is 3)
    std::optional<int> maxnreg;              // register cap; null on AMD (HIP has no such option)
    Json pre_hook = nullptr;                 // must be null: a Python callable cannot be stored (kept to diagnose)
    std::optional<std::string> ir_override;  // IR file replacing a compile stage; null on AMD
    Json extraKwargs = Json::object();       // kwargs other than BT (e.g. AMD's waves_per_eu), in file order
    Json extraFields = Json::object();       // members Triton's Config does not have (validation reports them)

    friend bool operator==(const TritonConfig&, const TritonConfig&) = default;
};

// Canonical JSON in Config.__dict__ order (kwargs, num_warps, num_ctas, num_stages, maxnreg, pre_hook, ir_override).
Json toJson(const TritonConfig& config);
// Reads a config object. Throws Error(fileName, path + "/...", ...) for missing members, wrong types, out of range.
TritonConfig tritonConfigFromJson(const Json& json, const std::string& fileName = "", const std::string& path = "");
// Writes `config` into an existing config object, keeping its member order and unchanged bytes.
void writeTritonConfig(Json& slot, const TritonConfig& config);
// "BT=32 num_warps=8 num_stages=3 num_ctas=1" (+ maxnreg/ir_override/extra kwargs when set): for messages and diffs.
std::string describe(const TritonConfig& config);

// The device layer's view of the same launch.
L2NormConfig toL2NormConfig(const TritonConfig& config);
TritonConfig fromL2NormConfig(const L2NormConfig& config);

// FLA's runtime autotune key for l2norm_fwd_kernel: [D, NB, str(x.dtype), str(y.dtype), str(rstd.dtype)],
// e.g. [128, 1, "torch.bfloat16", "torch.bfloat16", "torch.float32"].
struct AutotuneKey {
    std::int64_t headDimension = 128;
    std::int64_t NB = 1;
    std::string bodyDtype = "torch.bfloat16";
    std::string outputDtype = "torch.bfloat16";
    std::string rstdDtype = "torch.float32";

    Json toJson() const;
    // Accepts numbers or decimal strings for D and NB (newer Triton writes every key item as a string).
    static std::optional<AutotuneKey> fromJson(const Json& key);
    friend bool operator==(const AutotuneKey&, const AutotuneKey&) = default;
};

// "torch.bfloat16" for "bfloat16" (the profile's `supported` spells dtypes without the torch. prefix).
std::string torchDtype(std::string_view dtype);

struct Supported {
    std::int64_t head_dimension = 128;
    std::int64_t key_heads = 16;
    std::string body_dtype = "bfloat16";
    std::string output_dtype = "bfloat16";
    std::string rstd_dtype = "float32";
    std::int64_t batch_size_min = 1;
    std::int64_t batch_size_max = 8;
    std::int64_t padded_tokens_max = 16384;
    std::int64_t NB_min = 1;
    std::int64_t NB_max = 32;
    std::string NB_formula = "ceil(B*padded_tokens*16/65536)";
    std::string unknown_key = "raise before kernel/autotune";
    Json original = Json::object();

    // FLA's bucket: NB = ceil(T / 65536) with T = B * L * key_heads rows. nullopt when the product overflows.
    std::optional<std::int64_t> nbFor(std::int64_t batch, std::int64_t paddedTokens) const;
    // ceil(batch_size_max * padded_tokens_max * key_heads / 65536): what NB_max must be.
    std::optional<std::int64_t> expectedNbMax() const;
    // The NB formula text for these key heads ("ceil(B*padded_tokens*16/65536)").
    std::string expectedNbFormula() const;
    AutotuneKey keyFor(std::int64_t nb) const;
};

struct RuntimeVersions {
    std::optional<std::string> torch;
    std::optional<std::string> hip;   // AMD profiles
    std::optional<std::string> cuda;  // NVIDIA profiles
    std::string triton;
    std::string fla;
    std::string gpu_arch;  // "gfx942" (AMD rules) or "sm_90" (NVIDIA rules)
    Json original = Json::object();
};

struct FileEntry {
    std::string file;    // a name relative to the profile's folder
    std::string sha256;  // 64 lowercase hex digits
    Json original = Json::object();
};

struct NamedDigest {
    std::string path;
    std::string sha256;
    friend bool operator==(const NamedDigest&, const NamedDigest&) = default;
};

// What production's autotune chose for one key, and the SHA-256 of the Triton cache file it came from.
struct SourceEvidence {
    AutotuneKey key;
    std::string source_autotune_sha256;
    TritonConfig chosen_config;
    // Triton's timings of the chosen config, [p50, p20, p80] in ms ("chosen_timing_ms"), kept by import-triton so
    // that export-fla can write them as FLA's best_timing. Absent in profiles made before.
    std::optional<std::vector<double>> chosen_timing_ms;
    Json original = Json::object();
};

// A measurement backing a "measured-best" entry; stored as the entry's "evidence" object.
struct MeasuredEvidence {
    double median_ms = 0;
    double p20_ms = 0;
    double p80_ms = 0;
    std::int64_t samples = 0;
    std::string device;          // e.g. "NVIDIA H200 (sm_90)"
    std::string results_sha256;  // SHA-256 of the sweep results file the numbers come from
    Json original = Json::object();
};

struct PolicyEntry {
    std::int64_t NB = 1;
    std::string basis;
    TritonConfig config;
    std::optional<MeasuredEvidence> evidence;  // only for measured entries
    Json original = Json::object();

    bool isProspective() const { return basis.rfind(kBasisProspectivePrefix, 0) == 0; }
};

struct Profile {
    std::string format{kProfileFormat};
    std::string status;
    std::string target;
    bool model_changes = false;
    double numerical_tolerance_unchanged = 1e-6;
    std::string cache_mode = "strict";
    Supported supported;
    RuntimeVersions runtime;
    std::vector<FileEntry> files;
    std::optional<std::vector<NamedDigest>> fla_source_sha256;
    std::vector<SourceEvidence> source_evidence;
    std::vector<PolicyEntry> per_NB_policy;
    std::optional<std::string> unseen_NB_claim;
    std::optional<std::string> other_kernels;
    std::optional<bool> compiled_binaries_included;
    std::optional<bool> private_paths_included;
    std::optional<std::string> builder_sha256;

    Json original = Json::object();  // the document as read (unknown members, member order)
    JsonLayout layout;               // the byte layout it was read in; saveProfile() writes the same
    std::string fileName;            // where it came from, for messages (may be empty)

    const PolicyEntry* policyFor(std::int64_t nb) const;
    PolicyEntry* policyFor(std::int64_t nb);
    const SourceEvidence* evidenceFor(std::int64_t nb) const;

    // Sets the config and basis for NB (inserting the entry in NB order if it is missing). Evidence replaces the
    // entry's evidence object; nullopt removes it.
    void setPolicy(std::int64_t nb, const TritonConfig& config, std::string basis,
                   std::optional<MeasuredEvidence> evidence = std::nullopt);
    // The sweep's promote: basis "measured-best" with the measurement that chose it.
    void setMeasuredBest(std::int64_t nb, const TritonConfig& config, const MeasuredEvidence& evidence);
};

// Reads a profile from parsed JSON. Throws Error(fileName, JSON Pointer, message) for a wrong format string,
// missing required members, wrong types, out-of-range integers and non-finite numbers. Semantic rules (NB coverage,
// legal configs, ...) are validateProfile()'s job, not the loader's.
Profile parseProfile(const Json& document, const std::string& fileName = "");
// Parses text (syntax errors with line and column; duplicate keys refused) and remembers its layout.
Profile parseProfileText(std::string_view text, const std::string& fileName);
// Reads a file (missing, folder, unreadable and over-64-MiB files are Errors).
Profile loadProfile(const std::filesystem::path& file);

// The document with the typed fields written back into `original`.
Json toJson(const Profile& profile);
// The bytes saveProfile() writes: toJson() in profile.layout.
std::string serializeProfile(const Profile& profile);
// Atomic save (temp file beside it, fsync, rename); a failed save leaves the old file untouched.
void saveProfile(const Profile& profile, const std::filesystem::path& file);

// A new, empty profile for `supported` and `runtime` (status "draft", no files, no evidence, no policy).
Profile makeProfile(const Supported& supported, const RuntimeVersions& runtime);

}  // namespace tunescope
