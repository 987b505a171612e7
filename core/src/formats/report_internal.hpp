#pragma once
// Private: the collecting reader behind parseReport(), used by validation to report every schema problem at once.
#include "model_reader.hpp"
#include "tunescope/formats/report.hpp"

namespace tunescope::detail {

CublasLtReport readReport(const Json& document, ModelReader& reader);

}  // namespace tunescope::detail
