#pragma once
// The l2norm self-test: every instantiated launch config of a device, on fresh random inputs (never zeros), with
// poisoned outputs, at tail sizes, against a double-precision reference. y must be within 1 bf16 ulp of the exact
// value and rstd within 1e-6 relative.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tunescope/device/device.hpp"

namespace tunescope {

// The whole launch space: BT {8..128} x num_warps {1..32} x num_stages {1..4}; a device filters it with supports().
std::vector<L2NormConfig> l2normLaunchSpace();

struct L2NormSelftestOptions {
    std::uint64_t seed = 0;  // 0: a fresh seed from std::random_device (printed so that a failure can be replayed)
    float eps = kL2NormDefaultEps;
    double yToleranceUlps = 1.0;
    double rstdRelativeTolerance = 1e-6;
    std::vector<L2NormConfig> configs;  // empty: the whole l2normLaunchSpace()
};

struct L2NormSelftestCase {
    L2NormConfig config;
    std::int64_t rows = 0;
    std::uint64_t seed = 0;
    bool passed = false;
    double worstYUlps = 0;         // largest |y - exact| in bf16 ulps of the exact value
    double worstRstdRelative = 0;  // largest |rstd - exact| / exact
    std::string detail;            // the first bad element, or the error the device raised
};

struct L2NormSelftestSummary {
    std::uint64_t seed = 0;
    int configsRun = 0;
    int casesRun = 0;
    int casesFailed = 0;
    std::vector<std::string> configsSkipped;  // "BT=8 num_warps=32 num_stages=1: <why the device refuses it>"
    bool passed() const { return casesRun > 0 && casesFailed == 0; }
};

// Sizes every config runs: T = 1, 7, 65537 and 13*BT + 3 (several blocks, not a multiple of BT).
std::vector<std::int64_t> l2normSelftestSizes(int blockRows);

// Checks one case's outputs (result.rows rows of x) against the double-precision reference; fills passed, the worst
// errors and the first bad element.
void checkL2NormCase(L2NormSelftestCase& result, const std::vector<std::uint16_t>& x,
                     const std::vector<std::uint16_t>& y, const std::vector<float>& rstd,
                     const L2NormSelftestOptions& options);

// A summary with the options' seed, or a fresh one when it is 0.
L2NormSelftestSummary startL2NormSelftest(const L2NormSelftestOptions& options);
// Runs one kernel on host buffers: x in, y and rstd out (what Device::runL2Norm and runTritonL2Norm do).
using L2NormHostRun = std::function<void(std::span<const std::uint16_t> x, std::span<std::uint16_t> y,
                                         std::span<float> rstd)>;
// One config's cases, every l2normSelftestSizes(blockRows) size: a fresh random input reproducible from the summary's
// seed, poisoned outputs, `run`, the reference check; device errors become failed cases. Shared by the native kernel
// and the Triton binaries' self-test (triton_binaries.hpp).
void runL2NormSelftestCases(const L2NormConfig& config, int blockRows, const L2NormHostRun& run,
                            const L2NormSelftestOptions& options, L2NormSelftestSummary& summary,
                            const std::function<void(const L2NormSelftestCase&)>& onCase);

// Runs the self-test on `device`, calling `onCase` after each (config, size). Device errors become failed cases.
L2NormSelftestSummary runL2NormSelftest(Device& device, const L2NormSelftestOptions& options,
                                        const std::function<void(const L2NormSelftestCase&)>& onCase = {});

}  // namespace tunescope
