#pragma once
// Config grids for the l2norm sweep: FLA's default grid, grids from lists, and grid files (`sweep --grid`).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/device/device.hpp"

namespace tunescope {

// FLA's 25 configs (BT {8,16,32,64,128} x num_warps {1,2,4,8,16}) x num_stages {2,3,4} = 75, in that nesting order.
std::vector<L2NormConfig> defaultGrid();
std::vector<L2NormConfig> gridFromLists(const std::vector<int>& bt, const std::vector<int>& warps,
                                        const std::vector<int>& stages);
// A grid file: JSON (an array of configs, plain {"BT","num_warps","num_stages"} or Triton's {"kwargs": {"BT"}, ...},
// or an object of lists {"BT": [...], "num_warps": [...], "num_stages": [...]}) or CSV (header naming BT,
// num_warps, num_stages[, num_ctas]; one config per line). Errors name the file and the JSON Pointer or CSV line.
// Legality of the configs is checked later, with the plan (validatePlan).
std::vector<L2NormConfig> loadGridFile(const std::filesystem::path& file);
// The same, on text already read; `file` names it in errors.
std::vector<L2NormConfig> parseGridText(std::string_view text, const std::string& file);

}  // namespace tunescope
