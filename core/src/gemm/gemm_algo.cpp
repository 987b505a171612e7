#include "tunescope/gemm/gemm_algo.hpp"

#include <charconv>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/gemm/gemm_enum_names.hpp"

namespace tunescope::gemm {

std::string rawAlgoToHex(const RawAlgo& raw) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(raw.size() * 2);
    for (std::uint8_t byte : raw) {
        out.push_back(digits[byte >> 4]);
        out.push_back(digits[byte & 15]);
    }
    return out;
}

RawAlgo rawAlgoFromHex(std::string_view hex, const std::string& file, const std::string& path) {
    RawAlgo raw{};
    if (hex.size() != raw.size() * 2)
        throw Error(file, path, "expected 128 hex digits (a 64-byte cublasLtMatmulAlgo_t), found " +
                                    std::to_string(hex.size()) + " characters");
    auto nibble = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw Error(file, path, std::string("'") + c + "' is not a hex digit");
    };
    for (std::size_t i = 0; i < raw.size(); ++i)
        raw[i] = static_cast<std::uint8_t>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
    return raw;
}

std::string reductionSchemeName(std::uint32_t scheme) {
    switch (scheme) {
        case kReductionNone: return "NONE";
        case kReductionInPlace: return "INPLACE";
        case kReductionComputeType: return "COMPUTE_TYPE";
        case kReductionOutputType: return "OUTPUT_TYPE";
        default: return "MASK_" + std::to_string(scheme);
    }
}

std::string AlgoConfig::describe() const {
    std::ostringstream out;
    out << "algo " << algorithmId << " tile " << gemm_enums::nameOr(gemm_enums::tileName(tileId), tileId) << " stages "
        << gemm_enums::nameOr(gemm_enums::stagesName(stagesId), stagesId) << " splitk " << splitK << " red "
        << reductionSchemeName(reductionScheme) << " custom " << customOption << " swizzle " << ctaSwizzle
        << " inner " << gemm_enums::nameOr(gemm_enums::innerShapeName(innerShape), innerShape) << " cluster "
        << gemm_enums::nameOr(gemm_enums::clusterShapeName(clusterShape), clusterShape);
    return out.str();
}

AlgoConfig parseAlgoConfigText(std::string_view text) {
    AlgoConfig c;
    bool haveAlgo = false;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string item(text.substr(start, comma - start));
        start = comma + 1;
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw Error("", "", "config item '" + item + "' is not key=value (in '" + std::string(text) + "')");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        auto number = [&](long long min, long long max) -> long long {
            long long v = 0;
            const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || ptr != value.data() + value.size() || v < min || v > max)
                throw Error("", "", "config item '" + item + "': expected an integer in " + std::to_string(min) +
                                        ".." + std::to_string(max));
            return v;
        };
        auto byName = [&](long long (*lookup)(const std::string&), long long max) -> long long {
            const long long v = lookup(value);
            return v >= 0 ? v : number(0, max);
        };
        if (key == "algo" || key == "algorithm_id") {
            c.algorithmId = int(number(0, 1 << 20));
            haveAlgo = true;
        } else if (key == "tile" || key == "tile_id") {
            c.tileId = std::uint32_t(byName(gemm_enums::tileIdFromName, 1 << 20));
        } else if (key == "stages" || key == "stages_id") {
            c.stagesId = std::uint32_t(byName(gemm_enums::stagesIdFromName, 1 << 20));
        } else if (key == "cluster" || key == "cluster_shape") {
            c.clusterShape = std::uint16_t(byName(gemm_enums::clusterShapeIdFromName, 65535));
        } else if (key == "splitk" || key == "split_k") {
            c.splitK = std::int32_t(number(-1024, 1024));
        } else if (key == "red" || key == "reduction_scheme") {
            c.reductionScheme = std::uint32_t(number(0, 7));
        } else if (key == "custom" || key == "custom_option") {
            c.customOption = std::uint32_t(number(0, 1 << 20));
        } else if (key == "swizzle" || key == "cta_swizzle") {
            c.ctaSwizzle = std::uint32_t(number(0, 1));
        } else if (key == "inner" || key == "inner_shape") {
            c.innerShape = std::uint16_t(number(0, 65535));
        } else {
            throw Error("", "", "unknown config key '" + key +
                                    "' (expected algo, tile, stages, splitk, red, custom, swizzle, inner, cluster)");
        }
    }
    if (!haveAlgo) throw Error("", "", "config '" + std::string(text) + "' names no algo=<id>");
    return c;
}

}  // namespace tunescope::gemm
