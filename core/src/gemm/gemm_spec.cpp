#include "tunescope/gemm/gemm_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "tunescope/base/errors.hpp"

namespace tunescope {

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// Without std::isspace characters at either end. Not base's trimmed, which strips only " \t\r\n" (and whose name
// this one would clash with in a unity build of the core).
std::string stripSpace(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return std::string(text);
}

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;

}  // namespace

GemmDtype gemmDtypeFromString(std::string_view text) {
    const std::string t = lowered(stripSpace(text));
    if (t == "bf16" || t == "bfloat16") return GemmDtype::Bf16;
    if (t == "fp8" || t == "fp8e4m3" || t == "e4m3" || t == "fp8_e4m3") return GemmDtype::Fp8E4M3;
    if (t == "nvfp4" || t == "fp4") return GemmDtype::Nvfp4;
    throw Error("", "", "unknown dtype '" + std::string(text) + "' (expected bf16, fp8 or nvfp4)");
}

std::string toString(GemmDtype dtype) {
    switch (dtype) {
        case GemmDtype::Bf16: return "bf16";
        case GemmDtype::Fp8E4M3: return "fp8e4m3";
        case GemmDtype::Nvfp4: return "nvfp4";
    }
    return "?";
}

GemmLayout gemmLayoutFromString(std::string_view text) {
    const std::string t = lowered(stripSpace(text));
    if (t == "tn") return GemmLayout::TN;
    if (t == "nn") return GemmLayout::NN;
    if (t == "nt") return GemmLayout::NT;
    throw Error("", "", "unknown layout '" + std::string(text) + "' (expected TN, NN or NT)");
}

std::string toString(GemmLayout layout) {
    switch (layout) {
        case GemmLayout::TN: return "TN";
        case GemmLayout::NN: return "NN";
        case GemmLayout::NT: return "NT";
    }
    return "?";
}

std::uint64_t GemmSpec::maxWorkspaceBytes() const {
    return workspaceBytes.empty() ? 0 : *std::max_element(workspaceBytes.begin(), workspaceBytes.end());
}

namespace {
std::uint64_t elementBytes(GemmDtype dtype, std::uint64_t count) {
    switch (dtype) {
        case GemmDtype::Bf16: return count * 2;
        case GemmDtype::Fp8E4M3: return count;
        case GemmDtype::Nvfp4: return (count + 1) / 2;
    }
    return count;
}
}  // namespace

std::uint64_t GemmSpec::inputBytesA() const {
    return elementBytes(dtype, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(k));
}
std::uint64_t GemmSpec::inputBytesB() const {
    return elementBytes(dtype, static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(k));
}

void validateGemmSpec(const GemmSpec& spec) {
    auto positive = [](std::int64_t value, const char* path, const char* name) {
        if (value <= 0) throw Error("", path, std::string(name) + " must be at least 1 (got " + std::to_string(value) + ")");
        if (value > kMaxDim)
            throw Error("", path, std::string(name) + " = " + std::to_string(value) + " is too large (at most 2^31-1)");
    };
    positive(spec.m, "/m", "M");
    positive(spec.n, "/n", "N");
    positive(spec.k, "/k", "K");
    auto logical = [](std::int64_t value, std::int64_t padded, const char* path, const char* name) {
        if (value < 0) throw Error("", path, std::string(name) + " must not be negative");
        if (value > padded)
            throw Error("", path, std::string(name) + " = " + std::to_string(value) +
                                      " is larger than the descriptor size " + std::to_string(padded));
    };
    logical(spec.mLogical, spec.m, "/m_logical", "logical M");
    logical(spec.nLogical, spec.n, "/n_logical", "logical N");
    logical(spec.kLogical, spec.k, "/k_logical", "logical K");
    if (spec.workspaceBytes.empty()) throw Error("", "/workspaces", "at least one workspace size is needed");
    if (spec.heuristicCount < 1 || spec.heuristicCount > 1024)
        throw Error("", "/heuristic_count",
                    "heuristic count must be 1..1024 (got " + std::to_string(spec.heuristicCount) + ")");
    if (spec.dtype == GemmDtype::Nvfp4 && spec.k % 32 != 0)
        throw Error("", "/k", "NVFP4 needs K to be a multiple of 32 (packed pairs, 16-element scale blocks, "
                              "16-byte aligned rows)");
}

std::string describe(const GemmSpec& spec) {
    std::string text = std::to_string(spec.m) + "x" + std::to_string(spec.n) + "x" + std::to_string(spec.k);
    if (spec.logicalM() != spec.m || spec.logicalN() != spec.n || spec.logicalK() != spec.k)
        text += " (logical " + std::to_string(spec.logicalM()) + "x" + std::to_string(spec.logicalN()) + "x" +
                std::to_string(spec.logicalK()) + ")";
    return text + " " + toString(spec.layout) + " " + toString(spec.dtype);
}

Json gemmSpecToJson(const GemmSpec& spec) {
    Json j;
    j["row_major_problem"] = spec.layout == GemmLayout::TN ? "Y[M,N] = X[M,K] @ W[N,K]^T"
                             : spec.layout == GemmLayout::NN ? "Y[M,N] = X[M,K] @ W[K,N]"
                                                             : "Y[M,N] = X[K,M]^T @ W[K,N]";
    j["m"] = spec.m;
    j["n"] = spec.n;
    j["k"] = spec.k;
    j["logical_mnk"] = Json::array({spec.logicalM(), spec.logicalN(), spec.logicalK()});
    j["descriptor_mnk_after_padding"] = Json::array({spec.m, spec.n, spec.k});
    j["layout"] = toString(spec.layout);
    j["cublaslt_mnk"] = Json::array({spec.n, spec.m, spec.k});
    j["dtype"] = toString(spec.dtype);
    switch (spec.dtype) {
        case GemmDtype::Bf16:
            j["types"] = {{"a", "CUDA_R_16BF"}, {"b", "CUDA_R_16BF"}, {"c", "CUDA_R_16BF"}, {"d", "CUDA_R_16BF"},
                          {"compute", "CUBLAS_COMPUTE_32F"}, {"scale", "CUDA_R_32F"}};
            break;
        case GemmDtype::Fp8E4M3:
            j["types"] = {{"a", "CUDA_R_8F_E4M3"}, {"b", "CUDA_R_8F_E4M3"}, {"c", "CUDA_R_16BF"}, {"d", "CUDA_R_16BF"},
                          {"compute", "CUBLAS_COMPUTE_32F"}, {"scale", "CUDA_R_32F"},
                          {"a_scale", 1.0}, {"b_scale", 1.0}};
            break;
        case GemmDtype::Nvfp4:
            j["types"] = {{"a", "CUDA_R_4F_E2M1"}, {"b", "CUDA_R_4F_E2M1"}, {"c", "CUDA_R_16BF"}, {"d", "CUDA_R_16BF"},
                          {"compute", "CUBLAS_COMPUTE_32F"}, {"scale", "CUDA_R_32F"},
                          {"block_scale_mode", "VEC16_UE4M3"}};
            break;
    }
    j["alpha"] = 1.0;
    j["beta"] = 0.0;
    j["workspaces"] = spec.workspaceBytes;
    j["heuristic_count"] = spec.heuristicCount;
    return j;
}

namespace {

std::int64_t readInt(const Json& object, const char* key, const std::string& file, const std::string& base,
                     bool required, std::int64_t fallback) {
    const std::string path = jsonPointerAppend(base, key);
    if (!object.contains(key)) {
        if (required) throw Error(file, path, std::string("missing required integer '") + key + "'");
        return fallback;
    }
    const Json& v = object.at(key);
    if (!v.is_number_integer())
        throw Error(file, path, std::string("expected an integer, found ") + jsonTypeName(v));
    return v.get<std::int64_t>();
}

std::string readString(const Json& object, const char* key, const std::string& file, const std::string& base) {
    const std::string path = jsonPointerAppend(base, key);
    if (!object.contains(key)) throw Error(file, path, std::string("missing required string '") + key + "'");
    const Json& v = object.at(key);
    if (!v.is_string()) throw Error(file, path, std::string("expected a string, found ") + jsonTypeName(v));
    return v.get<std::string>();
}

}  // namespace

GemmSpec gemmSpecFromJson(const Json& value, const std::string& file, const std::string& path) {
    if (!value.is_object()) throw Error(file, path, "expected an object, found " + jsonTypeName(value));
    GemmSpec spec;
    spec.m = readInt(value, "m", file, path, true, 0);
    spec.n = readInt(value, "n", file, path, true, 0);
    spec.k = readInt(value, "k", file, path, true, 0);
    if (value.contains("logical_mnk")) {
        const Json& l = value.at("logical_mnk");
        const std::string lp = jsonPointerAppend(path, "logical_mnk");
        if (!l.is_array() || l.size() != 3)
            throw Error(file, lp, "expected an array of three integers");
        for (std::size_t i = 0; i < 3; ++i)
            if (!l[i].is_number_integer())
                throw Error(file, jsonPointerAppend(lp, i), "expected an integer, found " + jsonTypeName(l[i]));
        spec.mLogical = l[0].get<std::int64_t>();
        spec.nLogical = l[1].get<std::int64_t>();
        spec.kLogical = l[2].get<std::int64_t>();
    }
    try {
        spec.layout = gemmLayoutFromString(readString(value, "layout", file, path));
    } catch (const Error& e) {
        if (!e.file().empty()) throw;
        throw Error(file, jsonPointerAppend(path, "layout"), e.message());
    }
    try {
        spec.dtype = gemmDtypeFromString(readString(value, "dtype", file, path));
    } catch (const Error& e) {
        if (!e.file().empty()) throw;
        throw Error(file, jsonPointerAppend(path, "dtype"), e.message());
    }
    if (value.contains("workspaces")) {
        const Json& w = value.at("workspaces");
        const std::string wp = jsonPointerAppend(path, "workspaces");
        if (!w.is_array()) throw Error(file, wp, "expected an array of byte counts, found " + jsonTypeName(w));
        spec.workspaceBytes.clear();
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (!w[i].is_number_unsigned() && !(w[i].is_number_integer() && w[i].get<std::int64_t>() >= 0))
                throw Error(file, jsonPointerAppend(wp, i), "expected a non-negative integer, found " + jsonTypeName(w[i]));
            spec.workspaceBytes.push_back(w[i].get<std::uint64_t>());
        }
    }
    spec.heuristicCount = static_cast<int>(readInt(value, "heuristic_count", file, path, false, 32));
    try {
        validateGemmSpec(spec);
    } catch (const Error& e) {
        throw Error(file, path + e.jsonPath(), e.message());
    }
    return spec;
}

std::vector<std::uint64_t> parseWorkspaceListMiB(std::string_view text) {
    std::vector<std::uint64_t> out;
    std::set<std::uint64_t> seen;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string item = stripSpace(text.substr(start, comma - start));
        if (item.empty()) throw Error("", "", "empty entry in the workspace list '" + std::string(text) + "'");
        std::uint64_t mib = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), mib);
        if (ec != std::errc() || ptr != item.data() + item.size())
            throw Error("", "", "workspace '" + item + "' is not a whole number of MiB");
        if (mib > 65536) throw Error("", "", "workspace " + item + " MiB is too large (at most 65536 MiB)");
        if (!seen.insert(mib).second) throw Error("", "", "workspace " + item + " MiB is listed twice");
        out.push_back(mib * kMiB);
        start = comma + 1;
    }
    return out;
}

}  // namespace tunescope
