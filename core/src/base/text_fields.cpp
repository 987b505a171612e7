#include "tunescope/base/text_fields.hpp"

#include <cstdio>

namespace tunescope {

std::string trimmed(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(begin, end - begin + 1));
}

std::vector<std::string> splitFields(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = text.find(separator, start);
        parts.push_back(trimmed(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start)));
        if (at == std::string_view::npos) break;
        start = at + 1;
    }
    return parts;
}

std::optional<long long> parseNonNegative(const std::string& text, long long max) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return {};
    const long long value = std::stoll(text);
    if (value > max) return {};
    return value;
}

std::string formatFixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string formatUs(double ms) { return formatFixed(ms * 1000.0, 2) + " us"; }

std::string formatPercent(double fraction, int decimals) { return formatFixed(fraction * 100.0, decimals) + "%"; }

std::string formatMiB(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace tunescope
