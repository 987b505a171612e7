#include "tunescope/device/triton_launch.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/triton_binaries.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace {

template <typename T>
std::vector<std::uint8_t> bytesOf(T value) {
    std::vector<std::uint8_t> out(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
}

// IEEE binary16 from a double, rounding to nearest even as PyFloat_Pack2 does (overflow gives infinity).
std::uint16_t halfBits(double value) {
    const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double magnitude = std::fabs(value);
    if (std::isnan(value)) return std::uint16_t(sign | 0x7e00);
    if (magnitude >= 65520.0) return std::uint16_t(sign | 0x7c00);  // rounds past the largest half (65504)
    if (magnitude < 0x1p-14) {  // subnormal: a multiple of 2^-24
        const double units = std::nearbyint(magnitude * 0x1p24);  // the default mode: to nearest, ties to even
        return std::uint16_t(sign | std::uint16_t(units));        // 1024 units carries into the smallest normal
    }
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5, 1)
    double mantissa = std::nearbyint((fraction * 2 - 1) * 1024);
    int biased = exponent - 1 + 15;
    if (mantissa >= 1024) {
        mantissa = 0;
        ++biased;
    }
    if (biased >= 31) return std::uint16_t(sign | 0x7c00);
    return std::uint16_t(sign | (biased << 10) | int(mantissa));
}

std::int64_t integerValue(const std::string& name, const std::string& type, const Json& value, std::int64_t low,
                          std::int64_t high) {
    if (!value.is_number_integer())
        throw Error("", "", "argument " + name + " (" + type + ") needs an integer, not " + value.dump());
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
        throw Error("", "", "argument " + name + " (" + type + ") is out of range");
    const std::int64_t v = value.get<std::int64_t>();
    if (v < low || v > high)
        throw Error("", "", "argument " + name + " (" + type + ") = " + std::to_string(v) + " is out of range");
    return v;
}

std::uint64_t unsignedValue(const std::string& name, const std::string& type, const Json& value, std::uint64_t high) {
    if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0))
        throw Error("", "", "argument " + name + " (" + type + ") needs an integer >= 0, not " + value.dump());
    const std::uint64_t v = value.get<std::uint64_t>();
    if (v > high) throw Error("", "", "argument " + name + " (" + type + ") = " + std::to_string(v) + " is out of range");
    return v;
}

bool boolValue(const std::string& name, const std::string& type, const Json& value) {
    if (value.is_boolean()) return value.get<bool>();
    if (value.is_number_integer()) return value.get<std::int64_t>() != 0;
    throw Error("", "", "argument " + name + " (" + type + ") needs a boolean, not " + value.dump());
}

// --- the cubin's parameter record ----------------------------------------------------------------------------------

template <typename T>
T readAt(std::span<const std::uint8_t> bytes, std::uint64_t offset, const std::string& what) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) throw Error(what, "", "is truncated");
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
}

// The bytes of the ELF section named `wanted`, or an empty span.
std::span<const std::uint8_t> elfSection(std::span<const std::uint8_t> image, const std::string& wanted,
                                         const std::string& what) {
    if (image.size() < 64 || std::memcmp(image.data(), "\x7f" "ELF", 4) != 0 || image[4] != 2)
        throw Error(what, "", "is not a 64-bit ELF image (a cubin)");
    const auto sectionTable = readAt<std::uint64_t>(image, 0x28, what);
    const auto entrySize = readAt<std::uint16_t>(image, 0x3a, what);
    const auto count = readAt<std::uint16_t>(image, 0x3c, what);
    const auto namesIndex = readAt<std::uint16_t>(image, 0x3e, what);
    auto header = [&](std::uint64_t i) { return sectionTable + i * entrySize; };
    if (namesIndex >= count) throw Error(what, "", "has no section name table");
    const auto namesOffset = readAt<std::uint64_t>(image, header(namesIndex) + 0x18, what);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto nameOffset = readAt<std::uint32_t>(image, header(i), what);
        const std::uint64_t at = namesOffset + nameOffset;
        if (at >= image.size()) throw Error(what, "", "has a section name outside the image");
        const char* name = reinterpret_cast<const char*>(image.data() + at);
        const std::size_t length = strnlen(name, image.size() - at);
        if (std::string(name, length) != wanted) continue;
        const auto offset = readAt<std::uint64_t>(image, header(i) + 0x18, what);
        const auto size = readAt<std::uint64_t>(image, header(i) + 0x20, what);
        if (offset > image.size() || image.size() - offset < size) throw Error(what, "", "has a section past its end");
        return image.subspan(offset, size);
    }
    return {};
}

constexpr std::uint8_t kEiFormatNoValue = 0x01, kEiFormatHalf = 0x03, kEiFormatSized = 0x04;
constexpr std::uint8_t kEiAttrKparamInfo = 0x17;

}  // namespace

bool isPassedToKernel(const TritonLaunchArg& arg) {
    if (arg.kind == TritonLaunchArg::Kind::Tensor) return true;
    if (arg.kind != TritonLaunchArg::Kind::Scalar) return false;
    const bool isInt = arg.tritonType.size() > 1 && (arg.tritonType[0] == 'i' || arg.tritonType[0] == 'u') &&
                       arg.tritonType != "i1" && arg.tritonType != "u1";
    return !(isInt && !arg.doNotSpecialize && arg.value.is_number_integer() && arg.value == 1);
}

std::vector<std::uint8_t> encodeTritonScalar(const std::string& name, const std::string& type, const Json& value) {
    if (type == "i1" || type == "u1") return bytesOf<std::uint8_t>(boolValue(name, type, value) ? 1 : 0);
    if (type == "i8") return bytesOf(std::int8_t(integerValue(name, type, value, INT8_MIN, INT8_MAX)));
    if (type == "i16") return bytesOf(std::int16_t(integerValue(name, type, value, INT16_MIN, INT16_MAX)));
    if (type == "i32") return bytesOf(std::int32_t(integerValue(name, type, value, INT32_MIN, INT32_MAX)));
    if (type == "i64") return bytesOf(integerValue(name, type, value, INT64_MIN, INT64_MAX));
    if (type == "u8") return bytesOf(std::uint8_t(unsignedValue(name, type, value, UINT8_MAX)));
    if (type == "u16") return bytesOf(std::uint16_t(unsignedValue(name, type, value, UINT16_MAX)));
    if (type == "u32") return bytesOf(std::uint32_t(unsignedValue(name, type, value, UINT32_MAX)));
    if (type == "u64") return bytesOf(unsignedValue(name, type, value, UINT64_MAX));
    if (type == "fp16" || type == "bf16" || type == "fp32" || type == "f32" || type == "fp64") {
        if (!value.is_number()) throw Error("", "", "argument " + name + " (" + type + ") needs a number, not " + value.dump());
        const double v = value.get<double>();
        if (type == "fp64") return bytesOf(std::bit_cast<std::uint64_t>(v));
        const std::uint32_t floatBits = std::bit_cast<std::uint32_t>(float(v));
        if (type == "bf16") return bytesOf(std::uint16_t(floatBits >> 16));  // pack_bf16 truncates
        if (type == "fp16") return bytesOf(halfBits(v));
        return bytesOf(floatBits);
    }
    throw Error("", "", "argument " + name + " has Triton type '" + type +
                            "', which this launcher does not pass (known: i1 i8 i16 i32 i64 u1 u8 u16 u32 u64 fp16 "
                            "bf16 fp32 fp64 and pointers)");
}

std::vector<KernelParam> buildTritonParams(const std::vector<TritonLaunchArg>& args) {
    std::vector<KernelParam> params;
    for (const TritonLaunchArg& arg : args) {
        if (!isPassedToKernel(arg)) continue;
        KernelParam param;
        param.name = arg.name;
        if (arg.kind == TritonLaunchArg::Kind::Tensor) {
            if (arg.tritonType.empty() || arg.tritonType[0] != '*')
                throw Error("", "", "tensor argument " + arg.name + " has type '" + arg.tritonType + "', not a pointer");
            if (arg.buffer < 0) throw Error("", "", "tensor argument " + arg.name + " has no buffer");
            param.kind = KernelParam::Kind::Buffer;
            param.buffer = arg.buffer;
            param.byteOffset = arg.byteOffset;
        } else {
            param.bytes = encodeTritonScalar(arg.name, arg.tritonType, arg.value);
        }
        params.push_back(std::move(param));
    }
    params.push_back(KernelParam{KernelParam::Kind::GlobalScratch, "global_scratch", {}, -1, 0});
    params.push_back(KernelParam{KernelParam::Kind::ProfileScratch, "profile_scratch", {}, -1, 0});
    return params;
}

std::uint32_t kernelParamSize(const KernelParam& param) {
    return param.kind == KernelParam::Kind::Value ? std::uint32_t(param.bytes.size()) : 8u;
}

std::vector<CubinParam> cubinKernelParams(std::span<const std::uint8_t> image, const std::string& kernelName) {
    const std::string what = "the cubin of " + kernelName;
    const std::span<const std::uint8_t> info = elfSection(image, ".nv.info." + kernelName, what);
    if (info.empty()) throw Error(what, "", "has no .nv.info." + kernelName + " section");
    std::vector<CubinParam> params;
    std::uint64_t at = 0;
    while (at < info.size()) {
        const auto format = readAt<std::uint8_t>(info, at, what);
        const auto attribute = readAt<std::uint8_t>(info, at + 1, what);
        std::uint64_t payload = 0, next = 0;
        if (format == kEiFormatNoValue) {
            next = at + 2;
        } else if (format == kEiFormatHalf) {
            next = at + 4;
        } else if (format == kEiFormatSized) {
            payload = readAt<std::uint16_t>(info, at + 2, what);
            next = at + 4 + payload;
        } else {
            throw Error(what, "", "has an .nv.info attribute of unknown format " + std::to_string(format));
        }
        if (attribute == kEiAttrKparamInfo && format == kEiFormatSized && payload >= 12) {
            CubinParam p;
            p.ordinal = readAt<std::uint16_t>(info, at + 8, what);
            p.offset = readAt<std::uint16_t>(info, at + 10, what);
            p.size = (readAt<std::uint32_t>(info, at + 12, what) >> 18) & 0x3fff;
            params.push_back(p);
        }
        at = next;
    }
    std::sort(params.begin(), params.end(), [](const CubinParam& a, const CubinParam& b) { return a.ordinal < b.ordinal; });
    return params;
}

std::string paramsMismatch(const std::vector<KernelParam>& params, const std::vector<CubinParam>& cubin) {
    if (params.size() != cubin.size())
        return "the launch passes " + std::to_string(params.size()) + " parameters, the cubin takes " +
               std::to_string(cubin.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (cubin[i].ordinal != i) return "the cubin's parameter records skip ordinal " + std::to_string(i);
        if (kernelParamSize(params[i]) != cubin[i].size)
            return "parameter " + std::to_string(i) + " (" + params[i].name + ") is " +
                   std::to_string(kernelParamSize(params[i])) + " bytes, the cubin takes " + std::to_string(cubin[i].size);
    }
    return "";
}

TritonKernelBinary readTritonKernelFiles(const fs::path& folder, const std::string& kernelName,
                                         const std::string& metadataFile, const std::string& binaryFile) {
    const fs::path metadataPath = folder / metadataFile;
    const std::string file = metadataPath.string();
    const Json metadata = parseJson(readTextFile(metadataPath), file);
    auto member = [&](const char* name) -> const Json& {
        if (!metadata.is_object() || !metadata.contains(name)) throw Error(file, std::string("/") + name, "is missing");
        return metadata[name];
    };
    auto unsignedMember = [&](const char* name, std::uint64_t fallback) -> std::uint64_t {
        if (!metadata.contains(name) || metadata[name].is_null()) return fallback;
        if (!metadata[name].is_number_unsigned()) throw Error(file, std::string("/") + name, "must be an integer >= 0");
        return metadata[name].get<std::uint64_t>();
    };
    TritonKernelBinary binary;
    binary.label = (folder / binaryFile).string();
    binary.kernelName = kernelName;
    if (member("name") != kernelName) throw Error(file, "/name", "does not name kernel " + kernelName);
    binary.tritonVersion = member("triton_version").is_string() ? member("triton_version").get<std::string>() : "";
    const std::vector<std::string> known = knownTritonVersions();
    const std::string family = binary.tritonVersion.substr(0, binary.tritonVersion.find('.', binary.tritonVersion.find('.') + 1));
    if (std::find(known.begin(), known.end(), family) == known.end())
        throw Error(file, "/triton_version", "Triton " + binary.tritonVersion + " is not a version whose launch "
                                             "parameters this build knows (3.6.x): its kernels are not launched");
    const Json& target = member("target");
    if (!target.is_object() || !target.contains("backend") || !target.contains("arch") || !target.contains("warp_size"))
        throw Error(file, "/target", "must hold backend, arch and warp_size");
    binary.targetBackend = target["backend"].get<std::string>();
    binary.targetArch = target["arch"].is_number_integer() ? "sm_" + std::to_string(target["arch"].get<int>())
                                                            : target["arch"].get<std::string>();
    binary.warpSize = target["warp_size"].get<int>();
    binary.numWarps = int(unsignedMember("num_warps", 4));
    binary.numCtas = int(unsignedMember("num_ctas", 1));
    const std::uint64_t shared = unsignedMember("shared", 0);
    if (shared > 0xffffffffull) throw Error(file, "/shared", "is over 4 GiB");
    binary.sharedBytes = std::uint32_t(shared);
    binary.globalScratchBytes = unsignedMember("global_scratch_size", 0);
    binary.globalScratchAlign = unsignedMember("global_scratch_align", 1);
    binary.profileScratchBytes = unsignedMember("profile_scratch_size", 0);
    binary.profileScratchAlign = unsignedMember("profile_scratch_align", 1);
    if (metadata.value("launch_cooperative_grid", false) || metadata.value("launch_pdl", false))
        throw Error(file, "", "asks for a cooperative or programmatic-dependent launch, which this launcher does not do");
    if (!metadata.value("tensordesc_meta", Json::array()).empty())
        throw Error(file, "/tensordesc_meta", "the kernel takes TMA tensor descriptors, which this launcher does not build");
    const std::string bytes = readTextFile(folder / binaryFile, 256ull << 20);
    binary.image.assign(bytes.begin(), bytes.end());
    return binary;
}

}  // namespace tunescope
