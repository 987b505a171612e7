#pragma once
// Small text helpers shared by the command-line list parsers (sweep.cpp) and the CSV grid reader (grid_file.cpp).
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tunescope {

// `text` without leading and trailing spaces, tabs, CR and LF.
std::string trimmed(std::string_view text);
// The fields between `separator`s, each trimmed ("a, b,,c" -> {"a", "b", "", "c"}).
std::vector<std::string> splitFields(std::string_view text, char separator);
// A non-negative decimal integer (digits only, at most 18) up to `max`, or nullopt.
std::optional<long long> parseNonNegative(const std::string& text, long long max = std::numeric_limits<int>::max());

}  // namespace tunescope
