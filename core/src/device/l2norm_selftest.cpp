#include "tunescope/device/l2norm_selftest.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/bf16.hpp"
#include "tunescope/device/l2norm_contract.hpp"
#include "tunescope/device/l2norm_cpu.hpp"

namespace tunescope {

std::vector<L2NormConfig> l2normLaunchSpace() {
    std::vector<L2NormConfig> space;
    for (int blockRows : l2norm::kBlockRowsChoices) {
        for (int warps : l2norm::kWarpChoices) {
            for (int stages : l2norm::kStageChoices) {
                L2NormConfig config;
                config.blockRows = blockRows;
                config.numWarps = warps;
                config.numStages = stages;
                space.push_back(config);
            }
        }
    }
    return space;
}

std::vector<std::int64_t> l2normSelftestSizes(int blockRows) { return {1, 7, 65537, 13 * std::int64_t(blockRows) + 3}; }

void checkL2NormCase(L2NormSelftestCase& result, const std::vector<std::uint16_t>& x,
                     const std::vector<std::uint16_t>& y, const std::vector<float>& rstd,
                     const L2NormSelftestOptions& options) {
    const std::int64_t rows = result.rows;
    std::vector<double> yExact(x.size());
    std::vector<double> rstdExact(static_cast<std::size_t>(rows));
    cpu::l2normReference(x.data(), yExact.data(), rstdExact.data(), rows, double(options.eps));
    result.passed = true;
    auto fail = [&](const std::string& what) {
        if (result.passed) result.detail = what;
        result.passed = false;
    };
    for (std::int64_t row = 0; row < rows; ++row) {
        const double exact = rstdExact[std::size_t(row)];
        const double got = rstd[std::size_t(row)];
        const double relative = std::isnan(got) ? std::numeric_limits<double>::infinity() : std::fabs(got - exact) / exact;
        result.worstRstdRelative = std::max(result.worstRstdRelative, relative);
        if (!(relative <= options.rstdRelativeTolerance)) {
            std::ostringstream text;
            text.precision(9);
            text << "rstd[" << row << "] = " << got << ", exact " << exact << " (relative error " << relative << ")";
            fail(text.str());
        }
        for (int column = 0; column < l2norm::kHeadDim; ++column) {
            const std::size_t i = std::size_t(row) * l2norm::kHeadDim + std::size_t(column);
            const double value = bf16::toFloat(y[i]);
            const double ulps = std::isnan(value) ? std::numeric_limits<double>::infinity()
                                                  : std::fabs(value - yExact[i]) / bf16::ulpAt(yExact[i]);
            result.worstYUlps = std::max(result.worstYUlps, ulps);
            if (!(ulps <= options.yToleranceUlps)) {
                std::ostringstream text;
                text.precision(9);
                text << "y[" << row << "][" << column << "] = " << value << " (bits 0x" << std::hex << y[i]
                     << std::dec << "), exact " << yExact[i] << " (" << ulps << " ulp)";
                fail(text.str());
            }
        }
    }
}

L2NormSelftestSummary startL2NormSelftest(const L2NormSelftestOptions& options) {
    L2NormSelftestSummary summary;
    summary.seed = options.seed;
    if (summary.seed == 0) {
        std::random_device entropy;
        summary.seed = (std::uint64_t(entropy()) << 32) ^ entropy();
        if (summary.seed == 0) summary.seed = 1;
    }
    return summary;
}

void runL2NormSelftestCases(const L2NormConfig& config, int blockRows, const L2NormHostRun& run,
                            const L2NormSelftestOptions& options, L2NormSelftestSummary& summary,
                            const std::function<void(const L2NormSelftestCase&)>& onCase) {
    for (std::int64_t rows : l2normSelftestSizes(blockRows)) {
        L2NormSelftestCase result;
        result.config = config;
        result.rows = rows;
        // A fresh input for every case, reproducible from the printed seed.
        result.seed = l2norm::splitMix64(summary.seed + std::uint64_t(summary.casesRun) + 1);
        const std::size_t elements = std::size_t(rows) * l2norm::kHeadDim;
        std::vector<std::uint16_t> x(elements), y(elements, std::uint16_t(0xffff));
        std::vector<float> rstd(std::size_t(rows), std::numeric_limits<float>::quiet_NaN());
        cpu::fillRandomInput(x.data(), elements, result.seed);
        try {
            run(x, y, rstd);
            checkL2NormCase(result, x, y, rstd, options);
        } catch (const std::exception& e) {
            result.passed = false;
            result.detail = e.what();
        }
        ++summary.casesRun;
        if (!result.passed) ++summary.casesFailed;
        if (onCase) onCase(result);
    }
}

L2NormSelftestSummary runL2NormSelftest(Device& device, const L2NormSelftestOptions& options,
                                        const std::function<void(const L2NormSelftestCase&)>& onCase) {
    L2NormSelftestSummary summary = startL2NormSelftest(options);
    const std::vector<L2NormConfig> configs = options.configs.empty() ? l2normLaunchSpace() : options.configs;
    for (const L2NormConfig& config : configs) {
        std::string why;
        if (!device.supports(config, &why)) {
            summary.configsSkipped.push_back(configText(config) + ": " + why);
            continue;
        }
        ++summary.configsRun;
        const auto run = [&](std::span<const std::uint16_t> x, std::span<std::uint16_t> y, std::span<float> rstd) {
            device.runL2Norm(config, x, y, rstd, options.eps);
        };
        runL2NormSelftestCases(config, config.blockRows, run, options, summary, onCase);
    }
    return summary;
}

}  // namespace tunescope
