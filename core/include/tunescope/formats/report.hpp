#pragma once
// The cuBLASLt exploration report (seed: profiles/cublaslt-gb10-nvfp4-fc2-report.json; the explorer writes the
// same field names plus its own). A typed, lossless model: every struct keeps the JSON object it came from
// (`original`), toJson() writes the typed fields back into it, and the layout the file was written in is kept,
// so load + save of an unchanged report gives the same bytes. Fields the seed has but a report may lack are
// std::optional; extra fields are kept. Negative split_k values (undocumented library sentinels) stay as they are.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/base/json_layout.hpp"

namespace tunescope {

// cublasLtMatmulAlgo_t's config attributes, under the report's names.
struct CublasLtAlgoConfig {
    std::int64_t algorithm_id = 0;
    std::int64_t tile_id = 0;
    std::int64_t stages_id = 0;
    std::int64_t split_k = 1;  // negative values are heuristic sentinels, kept exactly
    std::int64_t reduction_scheme = 0;
    std::int64_t custom_option = 0;
    std::int64_t cta_swizzle = 0;
    std::optional<std::int64_t> inner_shape;    // null/absent when not reported
    std::optional<std::int64_t> cluster_shape;  // null/absent when not reported

    friend bool operator==(const CublasLtAlgoConfig&, const CublasLtAlgoConfig&) = default;
};
// "algo 70 tile 20 stages 37 split_k -2 reduction 2 custom 0 swizzle 0"
std::string describe(const CublasLtAlgoConfig& config);

// A config object standing on its own (selected, requested_config, selected_config), with its extra members.
struct AlgoConfigObject {
    CublasLtAlgoConfig config;
    Json original = Json::object();
};

// One algorithm's capabilities as a report file holds them: every field optional, the JSON object kept. A type of
// its own, not gemm::AlgoCapabilities (what the explorer reads from cuBLASLt), since formats and gemm never include
// each other (docs/architecture.md).
struct ReportedCapabilities {
    std::optional<std::int64_t> split_k_support;
    std::optional<std::int64_t> reduction_scheme_mask;
    std::optional<std::int64_t> cta_swizzle_support;
    std::optional<std::int64_t> custom_option_max;
    std::optional<std::int64_t> strided_batch_support;
    std::optional<std::int64_t> out_of_place_result_support;
    std::optional<std::vector<std::int64_t>> tile_ids;
    std::optional<std::vector<std::int64_t>> stages_ids;
    std::optional<std::string> inner_cluster_shape_capability_note;
    Json original = Json::object();
};

// One answer of cublasLtMatmulAlgoGetHeuristic (or one explicit check), with its config at the same level.
struct HeuristicAlgorithm {
    CublasLtAlgoConfig config;
    std::optional<std::int64_t> required_workspace_bytes;
    std::optional<double> waves;
    std::optional<std::int64_t> state;
    std::optional<std::int64_t> api_status;
    std::optional<bool> valid;
    std::optional<ReportedCapabilities> capabilities;
    Json original = Json::object();
};

struct HeuristicSet {
    std::int64_t max_workspace_bytes = 0;
    std::optional<std::int64_t> requested_count;
    std::optional<std::int64_t> returned_count;
    std::vector<HeuristicAlgorithm> algorithms;
    Json original = Json::object();
};

struct SplitKCheck {
    HeuristicAlgorithm result;                       // what cuBLASLt said about the requested config
    std::optional<AlgoConfigObject> requested_config;  // what was asked for
};

struct ReportExtension {
    std::optional<std::int64_t> cuda_version;
    std::optional<std::int64_t> cublas_version;
    std::optional<std::int64_t> cuda_runtime_version;
    std::optional<std::int64_t> cublaslt_runtime_version;
    std::optional<bool> stream_k_public_control;
    std::optional<std::string> stream_k_note;
    Json original = Json::object();
};

struct ReportEnvironment {
    std::optional<std::string> platform;
    std::optional<std::string> python;
    std::optional<std::string> torch;
    std::optional<std::string> torch_cuda;
    std::optional<std::string> device;
    std::optional<std::vector<std::int64_t>> device_capability;  // [major, minor]
    std::optional<std::string> driver;                           // may be null
    std::optional<std::string> git_commit;                       // may be null
    std::optional<std::string> checkpoint_path;
    std::optional<std::string> checkpoint_sha256;  // may be null
    std::optional<std::string> checkpoint_hash_note;
    std::optional<std::vector<std::pair<std::string, std::string>>> environment_switches;  // in file order
    std::optional<ReportExtension> extension;
    std::optional<std::string> comfy_kitchen;
    Json original = Json::object();
};

struct ReportWorkload {
    std::optional<std::vector<std::int64_t>> resolution;
    std::optional<std::int64_t> frames;
    std::optional<std::int64_t> steps;
    std::optional<std::int64_t> sampler_step;
    std::optional<std::int64_t> seed;
    std::optional<std::int64_t> text_tokens;
    std::optional<std::int64_t> tokens;
    std::optional<std::vector<std::int64_t>> hidden_shape;
    std::optional<std::vector<std::vector<std::int64_t>>> segments;
    Json original = Json::object();
};

struct Fc2Boundary {
    std::optional<std::int64_t> block;
    std::optional<std::vector<std::int64_t>> gate_up_shape;
    std::optional<std::vector<std::int64_t>> activation_qdata_shape;
    std::optional<std::vector<std::int64_t>> weight_qdata_shape;
    std::optional<std::vector<std::int64_t>> logical_mnk;
    std::optional<std::vector<std::int64_t>> descriptor_mnk_after_padding;
    std::optional<std::string> producer;
    std::optional<bool> no_bias;
    Json original = Json::object();
};

struct BaselineKernelMetadata {
    std::optional<std::string> path;
    Json descriptors;  // free-form descriptor settings (object), null when absent
    std::optional<bool> profiler_cuda_events_available;
    std::optional<std::string> profiler_note;
    Json top_cuda_events;                  // array of profiler events, null when absent
    std::optional<std::string> output_sha256;  // may be null
    Json original = Json::object();
};

// Bitwise comparison of an output against the baseline's.
struct ParityCheck {
    std::optional<bool> bf16_exact;
    std::optional<std::int64_t> different_elements;
    std::optional<double> max_abs;
    std::optional<double> mean_abs;
    std::optional<std::string> actual_sha256;
    std::optional<std::string> expected_sha256;
    Json original = Json::object();
};

struct DispatchDelta {
    std::optional<std::int64_t> attempts;
    std::optional<std::int64_t> successes;
    std::optional<std::int64_t> fallbacks;
    Json original = Json::object();
};

// The end-to-end run with the selected config replacing production's.
struct Trajectory {
    std::optional<std::int64_t> steps;
    std::optional<std::vector<std::int64_t>> resolution;
    std::optional<std::int64_t> frames;
    std::optional<std::int64_t> seed;
    std::optional<double> baseline_seconds;
    std::optional<double> candidate_seconds;
    std::optional<double> improvement_percent;
    std::optional<ParityCheck> video_parity;
    std::optional<ParityCheck> audio_parity;
    std::optional<bool> bf16_exact;
    std::optional<AlgoConfigObject> selected_config;
    std::optional<std::int64_t> supplied_workspace_bytes;
    std::optional<bool> production_dispatch;
    std::optional<DispatchDelta> dispatch_delta;
    Json original = Json::object();
};

struct UnsupportedFeature {
    std::string feature;
    std::optional<bool> supported_public_control;
    std::optional<std::string> reason;
    Json original = Json::object();
};

struct CublasLtReport {
    std::optional<std::string> mode;  // "production-trajectory" (seed), "gemm-explore" (our explorer)
    std::optional<ReportEnvironment> environment;
    std::optional<ReportWorkload> workload;
    std::optional<Fc2Boundary> fc2_boundary;
    std::optional<BaselineKernelMetadata> baseline_kernel_metadata;
    std::vector<HeuristicSet> heuristics;  // one per workspace cap; required
    std::vector<SplitKCheck> explicit_split_k_checks;
    std::optional<AlgoConfigObject> selected;  // null when the exploration selected nothing
    std::optional<Trajectory> trajectory;
    std::vector<UnsupportedFeature> errors_and_unsupported;

    Json original = Json::object();
    JsonLayout layout;
    std::string fileName;
};

// Throws Error(fileName, JSON Pointer, message) for missing "heuristics", wrong types, out-of-range integers,
// non-finite numbers where a finite one is needed.
CublasLtReport parseReport(const Json& document, const std::string& fileName = "");
CublasLtReport parseReportText(std::string_view text, const std::string& fileName);
CublasLtReport loadReport(const std::filesystem::path& file);

Json toJson(const CublasLtReport& report);
std::string serializeReport(const CublasLtReport& report);  // in report.layout
void saveReport(const CublasLtReport& report, const std::filesystem::path& file);  // atomic

}  // namespace tunescope
