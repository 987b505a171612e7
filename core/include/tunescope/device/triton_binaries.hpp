#pragma once
// Triton's compiled kernels as a kernel source: reads a Triton cache directory (TRITON_CACHE_DIR, default
// ~/.triton/cache), finds the variants of FLA's l2norm_fwd_kernel, recovers their constexprs and launch settings,
// checks their argument list against the Triton versions whose launch parameters we know, and turns a variant into
// a TritonKernelBinary the CUDA/HIP plugins launch. See docs/triton-kernels.md.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/l2norm_selftest.hpp"

namespace tunescope {

inline constexpr std::string_view kTritonIndexFileName = "tunescope-triton-index.json";
inline constexpr std::string_view kTritonIndexFormat = "tunescope-triton-index-v1";

struct TritonArgument {
    std::string name;  // "x"
    std::string type;  // TTIR type: "!tt.ptr<bf16>", "f32", "i32"
    int divisibility = 0;  // tt.divisibility (pointers: the alignment Triton assumed), 0 when absent
    friend bool operator==(const TritonArgument&, const TritonArgument&) = default;
};

// One compiled variant of the kernel: one folder of the cache.
struct TritonVariant {
    std::filesystem::path folder;  // <cache>/<base32 hash>
    std::string hash;              // the metadata's hash
    std::string kernelName;
    std::string tritonVersion;
    std::string targetBackend;     // "cuda", "hip"
    std::string targetArch;        // "sm_90", "gfx942"
    int warpSize = 32;
    int numWarps = 0, numStages = 0, numCtas = 1;
    std::uint32_t sharedBytes = 0;
    std::uint64_t globalScratchBytes = 0, globalScratchAlign = 1, profileScratchBytes = 0, profileScratchAlign = 1;
    // Constexprs: from the filler's index when it lists this folder, else BT/BD from the TTIR's make_range shapes
    // (D and NB are then not recorded: NB is never read in the body, so nothing in the binary tells it).
    std::optional<int> blockRows, headDim, blockD, nb;
    std::string constexprSource;   // "index" or the TTIR file they were read from
    std::vector<TritonArgument> arguments;  // the kernel's own parameters, in order (without Triton's scratch ones)
    std::filesystem::path binaryPath;       // .cubin / .hsaco
    std::string binarySha256;               // of the bytes on disk
    std::string metadataSha256;             // of the metadata .json
    std::string metadataText;               // the metadata .json as read (recorded with sweep results)

    // "BT=8 num_warps=4 num_stages=3 NB=2" (NB "?" when not recorded).
    std::string describe() const;
    L2NormConfig config() const;  // BT (0 when unknown), num_warps, num_stages, num_ctas
};

struct TritonCacheScan {
    std::filesystem::path dir;
    std::vector<TritonVariant> variants;  // sorted by (BT, num_warps, num_stages, NB, folder)
    std::vector<std::string> notes;       // folders skipped and why (other kernels' folders are not noted)
    std::optional<std::string> indexFlaVersion;  // from the filler's index, when present
    std::optional<std::string> indexFlaSourceSha256;
};

// TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else $HOME/.triton/cache (Triton's own rule).
std::filesystem::path defaultTritonCacheDir();

// The Triton versions whose launch parameter list we know, e.g. "3.6" (3.6.x appends global_scratch and
// profile_scratch). A variant of another version is refused with the list.
std::vector<std::string> knownTritonVersions();

// Scans `dir` for folders holding <kernel>.json metadata. A variant that is broken (unreadable metadata, a missing
// binary, an argument list that is not l2norm's, an unknown Triton version) throws Error naming the file and what is
// wrong: a cache we measure from must be whole. Folders of other kernels or of Triton's own utilities are skipped.
// Throws when no variant of the kernel is found. With `verifyIndex`, binaries whose SHA-256 differs from the
// index's record are refused.
TritonCacheScan scanTritonCache(const std::filesystem::path& dir, std::string_view kernel = "l2norm_fwd_kernel");

// Parses one variant folder (used by the scan; exposed for tests). Throws Error naming the file.
TritonVariant readTritonVariant(const std::filesystem::path& folder, std::string_view kernel = "l2norm_fwd_kernel");

// Why this device cannot run the variant ("binary built for sm_90, this device is sm_80"), or empty when it can.
std::string tritonTargetMismatch(const TritonVariant& variant, const DeviceInfo& device);

// The variant FLA would launch for (config, NB): same BT, num_warps, num_stages, num_ctas, and NB (a variant whose NB
// is not recorded matches any NB only when it is the only one of its config). nullptr when the cache has none.
const TritonVariant* findTritonVariant(const TritonCacheScan& scan, const L2NormConfig& config, int nb);

// findTritonVariant, or Error "the Triton cache <dir> has no binary for BT=.. num_warps=.. NB=..: fill it with ...".
const TritonVariant& requireTritonVariant(const TritonCacheScan& scan, const L2NormConfig& config, int nb);

// What a measurement of this variant records as its kernel source (ResultRecord::kernelSource): kernel "triton",
// the kernel name, binary SHA-256, Triton version, folder, metadata SHA-256 and the metadata itself.
Json tritonKernelSourceJson(const TritonVariant& variant);

// Reads the binary (checking its SHA-256 against the one recorded at scan time) into what the plugins launch.
TritonKernelBinary loadTritonBinary(const TritonVariant& variant);

// The Triton binaries' self-test: every variant of the scan that targets `device`, at the self-test's sizes
// (l2normSelftestSizes), on fresh random inputs with poisoned outputs and guard rows, against the double-precision
// reference, with the same tolerances as our kernels (options.configs is ignored). Variants for another target are
// listed in configsSkipped with the reason. `onCase` also gets the variant.
L2NormSelftestSummary runTritonSelftest(
    Device& device, const TritonCacheScan& scan, const L2NormSelftestOptions& options,
    const std::function<void(const TritonVariant&, const L2NormSelftestCase&)>& onCase = {});

}  // namespace tunescope
