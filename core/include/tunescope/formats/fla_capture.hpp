#pragma once
// The FLA capture manifest (format tunescope-fla-capture-v1, docs/fla-capture.md): what scripts/fla_capture.py
// recorded of every fla_cache_autotune kernel a real FLA op launched, its configs, launches and Triton binaries.
// The reader enforces the rules of scripts/fla_manifest_check.py (the manifest's Python checker): duplicate keys,
// NaN, numbers a double does not hold, unknown members at every level, legal values, FLA's key recomputed from the
// arguments and its md5, tensor origins, and the digest (SHA-256 of the RFC 8785 canonical body). Every fault
// names the JSON Pointer of what is wrong; the ctest fla_capture_checkers_agree keeps both checkers on the same
// pointers for every committed bad manifest.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"

namespace tunescope {

inline constexpr std::string_view kFlaCaptureFormat = "tunescope-fla-capture-v1";
inline constexpr std::string_view kFlaCaptureDigestAlgorithm = "sha256-rfc8785";

struct FlaCaptureFault {
    std::string pointer;  // RFC 6901; empty for a fault of the whole file (unreadable, malformed)
    std::string message;
};

struct FlaCaptureStack {
    std::string fla_version, triton_version;
    std::optional<std::string> torch_version, cuda_version, hip_version, python_version;
    std::vector<std::pair<std::string, std::string>> fla_sources;  // path inside the fla package -> sha256
};

struct FlaCaptureDevice {
    std::string name, fla_gpu_name, backend, arch;  // backend "cuda" or "hip"; arch "sm_90" or "gfx942"
    std::optional<std::pair<int, int>> capability;
    int warp_size = 32;
    std::optional<std::int64_t> multiprocessors, max_shared_mem_bytes, total_memory_bytes;
};

struct FlaCaptureGenerator {
    std::string distribution;  // uniform (low, high), normal (mean, std), zeros
    double low = 0, high = 0, mean = 0, std = 0;
    std::string transform;  // none, sigmoid, logsigmoid
    double scale = 1;
    std::string normalize;  // none, l2_last_dim
};

struct FlaCaptureTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    std::string dtype;                    // a torch dtype, "torch.bfloat16"
    FlaCaptureGenerator generator;        // inputs only
    std::optional<std::string> sha256;    // outputs only; null in the hand-made fixture
};

struct FlaCaptureCase {
    std::string id, op;  // op: chunk_gated_delta_rule or l2norm_fwd
    Json params = Json::object();
    std::vector<FlaCaptureTensor> inputs, outputs;
    std::int64_t seed = 0;
    std::optional<double> first_call_s, extra_compile_s, steady_median_ms;
    std::int64_t repeat_calls = 0;
    std::optional<std::int64_t> fla_cache_benchmarks, other_benchmarks;
    std::vector<std::string> other_autotuned_kernels;
    std::int64_t launch_count = 0;
};

// triton.Config.__dict__, the form FLA's config files hold. `original` is the object as the manifest wrote it
// (what an FLA config file copies).
struct FlaCaptureConfig {
    Json kwargs = Json::object();
    int num_warps = 4, num_ctas = 1, num_stages = 3;
    std::optional<int> maxnreg;
    std::optional<std::string> ir_override;
    Json original = Json::object();
};

enum class FlaArgKind { Config, Constexpr, None, Scalar, Tensor };
std::string_view toString(FlaArgKind kind);

struct FlaTensorOrigin {
    enum class Kind { OpInput, LaunchArg, New } kind = Kind::New;
    std::string input;           // OpInput: the case's input
    std::int64_t sequence = -1;  // LaunchArg: an earlier launch of the same case ...
    std::string arg;             // ... and its tensor argument
};

struct FlaCaptureArgument {
    std::string name;
    FlaArgKind kind = FlaArgKind::None;
    Json value;  // constexpr and scalar: the value (a constexpr may be {"repr": text})
    std::string triton_type;  // scalar ("i32", "fp32", ...) and tensor ("*bf16", ...)
    bool do_not_specialize = false;  // scalar
    // tensor
    std::string dtype;
    std::vector<std::int64_t> shape, strides;
    std::int64_t storage_offset = 0, storage_bytes = 0;
    bool aligned_16 = false;
    FlaTensorOrigin origin;
};

struct FlaCaptureVariant {
    std::int64_t config = 0;
    std::vector<std::int64_t> grid;
    std::optional<std::string> binary;         // Triton metadata hash, a key of FlaCapture::binaries
    std::optional<std::string> compile_error;  // when the config did not compile
};

struct FlaCaptureLaunch {
    std::string case_id;
    std::int64_t sequence = 0;
    std::string signature_source;
    Json autotune_key = Json::array();  // FLA's key, JSON scalars
    std::string key_hash;               // FLA's md5 of it: the entry id in FLA's config file
    std::vector<std::string> key_arg_names, dtype_arg_names;
    std::vector<FlaCaptureArgument> args;  // one per kernel arg_names entry
    std::string autotune_source;  // benchmarked, fla_config_file, memory, triton_disk_cache, single_config, not_run
    std::int64_t autotune_benchmarks = 0;
    std::optional<double> autotune_seconds;
    std::optional<std::int64_t> chosen_config;
    Json timings_ms;  // null, or per config [p50, p20, p80] ms or null
    std::vector<FlaCaptureVariant> variants;  // one per config
};

struct FlaCaptureKernel {
    std::string kernel_name, source_file;
    std::vector<std::string> arg_names, constexpr_names, do_not_specialize, key_names;
    std::vector<FlaCaptureConfig> configs;
    std::vector<FlaCaptureLaunch> launches;
};

struct FlaCaptureFileEntry {
    std::string name, sha256;
    std::int64_t bytes = 0;
};

struct FlaCaptureBinary {
    std::string hash;  // Triton's metadata hash, the member name in /binaries
    std::string kernel_name, folder, metadata_file, binary_file;
    std::vector<FlaCaptureFileEntry> files;
    std::string target_backend;
    Json target_arch;  // cuda: an integer (90); hip: "gfx942"
    int target_warp_size = 32;
    int num_warps = 4, num_stages = 3, num_ctas = 1;
    std::int64_t shared = 0;
};

struct FlaCapture {
    std::string fileName;
    std::string capture_kind;  // device or hand-made
    std::string captured_by, created_utc, tool_name, tool_version;
    FlaCaptureStack stack;
    FlaCaptureDevice device;
    std::vector<std::pair<std::string, std::string>> environment;
    std::vector<FlaCaptureCase> cases;
    std::vector<FlaCaptureKernel> kernels;
    std::vector<FlaCaptureBinary> binaries;     // in file order
    std::vector<FlaCaptureFileEntry> archives;  // the Triton cache archives beside the manifest
    std::string digest;                         // /digest/value
    Json document;                              // the manifest as read

    const FlaCaptureKernel* kernel(std::string_view name) const;
    const FlaCaptureBinary* binary(std::string_view hash) const;
    const FlaCaptureCase* findCase(std::string_view id) const;
};

// A "format" that names a capture manifest of any version ("tunescope-fla-capture-v..."): the documents the reader
// answers for, refusing other versions at /format.
bool isFlaCaptureDocument(const Json& document);

// Every fault of a parsed manifest (parsed with NaN and Infinity tokens allowed and duplicate keys kept, as
// checkFlaCaptureText does), as the Python checker finds them; empty when the manifest is valid. Does not look for
// duplicate keys or inexact numbers: those need the text (checkFlaCaptureText).
std::vector<FlaCaptureFault> checkFlaCaptureJson(const Json& document);

struct FlaCaptureCheck {
    std::string file;
    std::vector<FlaCaptureFault> faults;  // empty: `capture` holds the manifest
    std::optional<FlaCapture> capture;
};

// The whole check of a manifest's text or file: unreadable, not UTF-8 or malformed (one fault, empty pointer), then
// the value faults of the text (duplicates, NaN, inexact numbers), then the schema (checkFlaCaptureJson).
FlaCaptureCheck checkFlaCaptureText(std::string_view text, const std::string& fileName);
FlaCaptureCheck checkFlaCaptureFile(const std::filesystem::path& file);

// The manifest of a valid file; throws Error(file, pointer, message) of its first fault otherwise.
FlaCapture readFlaCapture(const std::filesystem::path& file);

// The digest of section 6: SHA-256 of the RFC 8785 canonical form of the manifest without its `digest` member.
std::string flaCaptureDigest(const Json& document);

// "device capture, 3 cases, 6 kernels, 21 launches, 252 variants, 109 binaries" (the Python checker's words).
std::string flaCaptureSummary(const FlaCapture& capture);

// Python's `json.dumps(value)`-style text of a JSON value for messages (strings quoted).
std::string flaCaptureValueText(const Json& value);

}  // namespace tunescope
