#pragma once
// The cuBLASLt types that cross the plugin boundary (gemm_backend.hpp): an algorithm's raw bytes, its decoded
// configuration and capabilities, heuristic answers, AlgoCheck results, the output check and the environment. What
// the cuBLASLt plugin sees of the explorer; the explorer itself (gemm_explorer.hpp) builds on these.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tunescope::gemm {

// cublasLtMatmulAlgo_t is uint64_t data[8]; cuBLASLt promises it replays with the same library version.
using RawAlgo = std::array<std::uint8_t, 64>;
std::string rawAlgoToHex(const RawAlgo& raw);  // 128 lowercase hex digits
// Throws Error(file, path, ...) unless `hex` is exactly 128 hex digits.
RawAlgo rawAlgoFromHex(std::string_view hex, const std::string& file, const std::string& path);

// cublasLtReductionScheme_t bits.
inline constexpr std::uint32_t kReductionNone = 0, kReductionInPlace = 1, kReductionComputeType = 2,
                               kReductionOutputType = 4;
std::string reductionSchemeName(std::uint32_t scheme);  // "NONE", "INPLACE", "COMPUTE_TYPE", "OUTPUT_TYPE"
// OUTPUT_TYPE keeps split-k partial sums in the output type (BF16): reduced precision (TE PR #3440).
inline bool isReducedPrecisionReduction(std::uint32_t scheme) { return scheme == kReductionOutputType; }

// The CUBLASLT_ALGO_CONFIG_* attributes, with cuBLASLt's own types.
struct AlgoConfig {
    int algorithmId = -1;
    std::uint32_t tileId = 0;           // cublasLtMatmulTile_t
    std::uint32_t stagesId = 0;         // cublasLtMatmulStages_t
    std::int32_t splitK = 1;            // negative values come from heuristics and are kept as they are
    std::uint32_t reductionScheme = 0;  // cublasLtReductionScheme_t
    std::uint32_t customOption = 0;
    std::uint32_t ctaSwizzle = 0;
    std::uint16_t innerShape = 0;       // cublasLtMatmulInnerShape_t
    std::uint16_t clusterShape = 0;     // cublasLtClusterShape_t, 0 = AUTO
    auto operator<=>(const AlgoConfig&) const = default;
    // "algo 66 tile 128x352 stages 64xAUTO splitk 1 red NONE custom 5 swizzle 0 inner 0 cluster 2x1x1"
    std::string describe() const;
};

// Parses "algo=66,tile=428,stages=35,custom=5,cluster=3" (also splitk, red, swizzle, inner; tile, stages and
// cluster may be given by name: tile=128x352, stages=64xAUTO, cluster=2x1x1). Unset fields: split-k 1, others 0.
// Throws Error naming the bad item.
AlgoConfig parseAlgoConfigText(std::string_view text);

// The CUBLASLT_ALGO_CAP_* of one algorithm. No capability lists inner or cluster shapes (CUDA 13.0 header).
struct AlgoCapabilities {
    bool read = false;  // false: the capability query failed (see `error`)
    std::string error;
    int splitKSupport = 0;
    std::uint32_t reductionSchemeMask = 0;
    std::uint32_t ctaSwizzleSupport = 0;
    int customOptionMax = 0;
    int stridedBatchSupport = 0;
    int outOfPlaceResultSupport = 0;
    int uploSupport = 0;
    std::vector<std::uint32_t> tileIds;    // empty: TILE_UNDEFINED only
    std::vector<std::uint32_t> stagesIds;  // empty: STAGES_UNDEFINED only
    int customMemoryOrder = 0;
    std::uint32_t pointerModeMask = 0;
    std::uint32_t epilogueMask = 0;
    int ldNegative = 0;
    std::uint64_t numericalImplFlags = 0;
    std::uint32_t minAlignmentABytes = 0, minAlignmentBBytes = 0, minAlignmentCBytes = 0, minAlignmentDBytes = 0;
};

// One cublasLtMatmulHeuristicResult_t, decoded.
struct HeuristicAlgo {
    AlgoConfig config;
    RawAlgo raw{};
    std::uint64_t requiredWorkspaceBytes = 0;
    double waves = 0.0;
    int state = 0;      // result.state
    int apiStatus = 0;  // status of decoding it (ConfigGetAttribute), 0 = fine
    AlgoCapabilities capabilities;
};

// cublasLtMatmulAlgoGetHeuristic for one workspace cap.
struct HeuristicSet {
    std::uint64_t maxWorkspaceBytes = 0;
    int requestedCount = 0;
    int returnedCount = 0;
    int apiStatus = 0;  // the call's own status (NOT_SUPPORTED: no heuristic for this combination)
    std::string error;
    std::vector<HeuristicAlgo> algorithms;
};

// AlgoInit + ConfigSetAttribute + AlgoCheck of one configuration.
struct CheckResult {
    int apiStatus = 0;      // of the first call that failed, 0 when all passed
    std::string failedCall; // "cublasLtMatmulAlgoInit", "ConfigSetAttribute(TILE_ID)", "cublasLtMatmulAlgoCheck"
    std::uint64_t requiredWorkspaceBytes = 0;
    double waves = 0.0;
    RawAlgo raw{};
    bool ok() const { return apiStatus == 0; }
};

struct OutputParity {
    bool checked = false;
    std::string sha256;                   // of the logical block of D as BF16 bytes, column by column
    bool bitwiseEqualToBaseline = false;
    std::uint64_t differingElements = 0;  // vs the baseline's output
    double maxAbsError = 0.0;             // max |D - ref| against the FP32 reference GEMM on the GPU
    double maxRelError = 0.0;             // max |D - ref| / max |ref|
    bool finite = true;                   // no NaN or Inf in D
};

struct GemmEnvironment {
    std::string platform;        // "Linux-6.18...-x86_64"
    std::string device;          // "NVIDIA H200"
    int ccMajor = 0, ccMinor = 0;
    int multiprocessors = 0;
    std::uint64_t l2Bytes = 0;
    std::uint64_t memoryBytes = 0;
    int clockMHz = 0;
    std::string driver;          // "580.159.04" or the CUDA driver API version
    int driverApiVersion = 0;    // cudaDriverGetVersion
    int cudaRuntimeVersion = 0;  // cudaRuntimeGetVersion
    int compiledCudaVersion = 0; // CUDART_VERSION the plugin was built with
    int compiledCublasVersion = 0;  // CUBLAS_VERSION the plugin was built with
    std::uint64_t cublasLtVersion = 0;        // cublasLtGetVersion(): the replay key
    std::uint64_t cublasLtCudartVersion = 0;  // cublasLtGetCudartVersion()
    bool clusterLaunch = false;
};

}  // namespace tunescope::gemm
