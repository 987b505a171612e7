// libFuzzer target: grid files (`sweep --grid`): JSON arrays of configs, objects of lists, and CSV.
// Invariant besides the sanitizers: an accepted grid written back as CSV parses to the same configs.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tunescope/base/errors.hpp"
#include "tunescope/sweep/grid_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<L2NormConfig> grid;
    try {
        grid = parseGridText(text, "fuzz-grid");
    } catch (const Error&) {
        return 0;
    }
    std::string csv = "BT,num_warps,num_stages,num_ctas\n";
    for (const L2NormConfig& c : grid) {
        if (c.blockRows < 0 || c.blockRows > 1024 || c.numWarps < 0 || c.numWarps > 1024 || c.numStages < 0 ||
            c.numStages > 1024 || c.numCtas < 0 || c.numCtas > 1024)
            std::abort();  // the parser promises values in 0..1024
        csv += std::to_string(c.blockRows) + "," + std::to_string(c.numWarps) + "," + std::to_string(c.numStages) +
               "," + std::to_string(c.numCtas) + "\n";
    }
    if (parseGridText(csv, "fuzz-grid-roundtrip") != grid) std::abort();
    return 0;
}
