#pragma once
// Private to formats/: the capture manifest's checker (fla_capture_check.cpp) and the tables the reader shares
// with it. The rules are scripts/fla_manifest_check.py's, function by function, so that both find the same faults
// at the same JSON Pointers (ctest fla_capture_checkers_agree).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"

namespace tunescope::detail {

// torch dtype (str(tensor.dtype)) -> Triton pointee type and bytes per element, in the format's order.
struct FlaTorchDtype {
    std::string_view torch, triton;
    int itemsize;
};
const std::vector<FlaTorchDtype>& flaTorchDtypes();
const FlaTorchDtype* findFlaTorchDtype(std::string_view torch);

// The op's inputs (name, shape) and outputs for complete, valid params (section 2 of docs/fla-capture.md).
std::vector<std::pair<std::string, std::vector<std::int64_t>>> flaOpInputShapes(std::string_view op, const Json& params);
std::vector<std::string> flaOpOutputNames(std::string_view op, const Json& params);

// Bytes from the first element of a strided view to one past its last (0 for an empty view), saturating at 2^62.
std::int64_t flaTensorExtentBytes(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                                  int itemsize);

// The value as Python's str() would put it into a message: strings bare, everything else as compact JSON.
std::string pyStr(const Json& value);

}  // namespace tunescope::detail
