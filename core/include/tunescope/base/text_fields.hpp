#pragma once
// Small text helpers: parsing list fields (the sweep's options, the CSV grid reader) and formatting numbers.
#include <cstdint>
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

// printf's "%.*f": `value` with `decimals` digits after the point.
std::string formatFixed(double value, int decimals);
// A time given in milliseconds, in microseconds with two decimals: "12.34 us".
std::string formatUs(double ms);
// A fraction as a percentage with `decimals` digits after the point: 0.0123 -> "1.23%" (two decimals).
std::string formatPercent(double fraction, int decimals);
// Bytes in whole mebibytes, rounded down: "512 MiB".
std::string formatMiB(std::uint64_t bytes);

}  // namespace tunescope
