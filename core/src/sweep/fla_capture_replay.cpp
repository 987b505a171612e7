// The replay of a captured case: buffers per distinct tensor, inputs drawn from the case's generators, the launch of
// one config from its Triton binary, and the comparison of outputs (docs/fla-capture.md, section 10).
#include "tunescope/sweep/fla_capture_replay.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numbers>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/device/bf16.hpp"

namespace tunescope {

namespace fs = std::filesystem;

namespace {

// Item sizes of the manifest's dtypes (docs/fla-capture.md 4.8).
std::size_t itemSize(const std::string& dtype) {
    static const std::map<std::string, std::size_t> sizes = {
        {"torch.bfloat16", 2}, {"torch.float16", 2}, {"torch.float32", 4}, {"torch.float64", 8},
        {"torch.int8", 1},     {"torch.int16", 2},   {"torch.int32", 4},   {"torch.int64", 8},
        {"torch.uint8", 1},    {"torch.bool", 1}};
    const auto it = sizes.find(dtype);
    if (it == sizes.end()) throw Error("", "", "dtype " + dtype + " is not one a replay allocates");
    return it->second;
}

bool isFloatDtype(const std::string& dtype) {
    return dtype == "torch.bfloat16" || dtype == "torch.float16" || dtype == "torch.float32" || dtype == "torch.float64";
}

// splitmix64: a small, fast, well-mixed generator (the replay draws the capture's distributions, not its bits).
struct SplitMix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1p-53; }  // [0, 1)
};

std::uint16_t halfFromFloat(float value) {
    // Round to nearest even through the bits: exact for every float (normal, subnormal half, overflow to infinity).
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);
    if (magnitude >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // >= 65520: infinity
    if (magnitude < 0x38800000u) {                                       // below 2^-14: a half subnormal
        const float scaled = std::bit_cast<float>(magnitude) * 0x1p24f;  // units of 2^-24, exact
        return std::uint16_t(sign | std::uint32_t(std::nearbyint(scaled)));
    }
    const std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return std::uint16_t(sign | ((rounded - 0x38000000u) >> 13));
}

float floatFromHalf(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const int exponent = (h >> 10) & 0x1f;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) return (sign ? -1.f : 1.f) * float(mantissa) * 0x1p-24f;
    if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | (std::uint32_t(exponent - 15 + 127) << 23) | (mantissa << 13));
}

void storeAs(const std::string& dtype, double value, std::uint8_t* out) {
    auto put = [&](auto v) { std::memcpy(out, &v, sizeof v); };
    if (dtype == "torch.bfloat16") put(bf16::fromFloat(float(value)));
    else if (dtype == "torch.float16") put(halfFromFloat(float(value)));
    else if (dtype == "torch.float32") put(float(value));
    else if (dtype == "torch.float64") put(value);
    else if (dtype == "torch.bool") put(std::uint8_t(value != 0));
    else if (dtype == "torch.int8") put(std::int8_t(std::nearbyint(value)));
    else if (dtype == "torch.uint8") put(std::uint8_t(std::nearbyint(value)));
    else if (dtype == "torch.int16") put(std::int16_t(std::nearbyint(value)));
    else if (dtype == "torch.int32") put(std::int32_t(std::nearbyint(value)));
    else put(std::int64_t(std::nearbyint(value)));
}

double loadAs(const std::string& dtype, const std::uint8_t* in) {
    auto get = [&](auto v) {
        std::memcpy(&v, in, sizeof v);
        return v;
    };
    if (dtype == "torch.bfloat16") return bf16::toFloat(get(std::uint16_t{}));
    if (dtype == "torch.float16") return floatFromHalf(get(std::uint16_t{}));
    if (dtype == "torch.float32") return get(float{});
    return get(double{});
}

// Which buffer a tensor argument lives in: its first appearance in the case ("input:q", "new:3:A").
std::string originKey(const FlaTensorOrigin& origin, std::int64_t sequence, const std::string& arg) {
    switch (origin.kind) {
        case FlaTensorOrigin::Kind::OpInput: return "input:" + origin.input;
        case FlaTensorOrigin::Kind::New: return "new:" + std::to_string(sequence) + ":" + arg;
        case FlaTensorOrigin::Kind::LaunchArg: break;
    }
    return "arg:" + std::to_string(origin.sequence) + ":" + origin.arg;
}

TritonLaunchArg::Kind launchArgKind(FlaArgKind kind) {
    switch (kind) {
        case FlaArgKind::Tensor: return TritonLaunchArg::Kind::Tensor;
        case FlaArgKind::Scalar: return TritonLaunchArg::Kind::Scalar;
        case FlaArgKind::None: return TritonLaunchArg::Kind::None;
        case FlaArgKind::Config:
        case FlaArgKind::Constexpr: break;
    }
    return TritonLaunchArg::Kind::Constexpr;
}

}  // namespace

FlaReplayCase planFlaReplayCase(const FlaCapture& capture, const std::string& caseId) {
    FlaReplayCase replay;
    replay.caseId = caseId;
    for (std::size_t k = 0; k < capture.kernels.size(); ++k)
        for (std::size_t l = 0; l < capture.kernels[k].launches.size(); ++l)
            if (capture.kernels[k].launches[l].case_id == caseId) replay.launches.push_back({k, l, capture.kernels[k].launches[l].sequence, {}, {}});
    std::sort(replay.launches.begin(), replay.launches.end(),
              [](const FlaReplayLaunch& a, const FlaReplayLaunch& b) { return a.sequence < b.sequence; });
    std::map<std::string, int> bufferOf;  // origin key -> buffer; "arg:S:NAME" keys alias the tensor's first key
    for (FlaReplayLaunch& launch : replay.launches) {
        const FlaCaptureLaunch& captured = capture.kernels[launch.kernel].launches[launch.launch];
        for (const FlaCaptureArgument& arg : captured.args) {
            TritonLaunchArg out{arg.name, launchArgKind(arg.kind), arg.triton_type, arg.value, arg.do_not_specialize, -1, 0};
            if (arg.kind == FlaArgKind::Tensor) {
                const std::string key = originKey(arg.origin, launch.sequence, arg.name);
                auto it = bufferOf.find(key);
                if (it == bufferOf.end()) {
                    if (arg.origin.kind == FlaTensorOrigin::Kind::LaunchArg)
                        throw Error(capture.fileName, "", "case " + caseId + " launch " + std::to_string(launch.sequence) +
                                                             ": tensor " + arg.name + " names launch " +
                                                             std::to_string(arg.origin.sequence) + "'s " + arg.origin.arg +
                                                             ", which no earlier launch of the case had");
                    it = bufferOf.emplace(key, int(replay.buffers.size())).first;
                    replay.buffers.push_back({caseId + ":" + key, 0, {}});
                    replay.bufferInputs.push_back(arg.origin.kind == FlaTensorOrigin::Kind::OpInput ? arg.origin.input : "");
                }
                // Later launches that see this memory name it by this launch's argument.
                bufferOf.emplace("arg:" + std::to_string(launch.sequence) + ":" + arg.name, it->second);
                ReplayBuffer& buffer = replay.buffers[std::size_t(it->second)];
                buffer.bytes = std::max(buffer.bytes, std::uint64_t(arg.storage_bytes));
                out.buffer = it->second;
                out.byteOffset = std::uint64_t(arg.storage_offset) * itemSize(arg.dtype);
                launch.tensors.push_back({arg.name, arg.dtype, it->second, out.byteOffset,
                                          arg.origin.kind == FlaTensorOrigin::Kind::New});
            }
            launch.args.push_back(std::move(out));
        }
    }
    return replay;
}

std::vector<std::uint8_t> generateFlaInput(const FlaCaptureTensor& input, std::uint64_t seed) {
    std::size_t count = 1;
    for (std::int64_t d : input.shape) count *= std::size_t(std::max<std::int64_t>(d, 0));
    const std::size_t rowLength = input.shape.empty() ? 1 : std::size_t(std::max<std::int64_t>(input.shape.back(), 1));
    const FlaCaptureGenerator& g = input.generator;
    SplitMix random{seed};
    std::vector<double> values(count);
    for (double& v : values) {
        if (g.distribution == "uniform") {
            v = g.low + (g.high - g.low) * random.uniform();
        } else if (g.distribution == "normal") {  // Box-Muller, one value per pair of draws
            const double u = 1.0 - random.uniform(), w = random.uniform();
            v = g.mean + g.std * std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * w);
        } else {
            v = 0;
        }
        if (g.transform == "sigmoid") v = 1.0 / (1.0 + std::exp(-v));
        else if (g.transform == "logsigmoid") v = -std::log1p(std::exp(-v));
        v *= g.scale;
    }
    if (g.normalize == "l2_last_dim") {
        for (std::size_t row = 0; row + rowLength <= count; row += rowLength) {
            double sum = 0;
            for (std::size_t i = 0; i < rowLength; ++i) sum += values[row + i] * values[row + i];
            const double norm = std::sqrt(sum);
            if (norm > 0)
                for (std::size_t i = 0; i < rowLength; ++i) values[row + i] /= norm;
        }
    }
    const std::size_t size = itemSize(input.dtype);
    std::vector<std::uint8_t> bytes(count * size);
    for (std::size_t i = 0; i < count; ++i) storeAs(input.dtype, values[i], bytes.data() + i * size);
    return bytes;
}

void fillFlaReplayInputs(const FlaCapture& capture, FlaReplayCase& replay) {
    const FlaCaptureCase* c = capture.findCase(replay.caseId);
    if (!c) throw Error(capture.fileName, "", "has no case " + replay.caseId);
    for (std::size_t i = 0; i < c->inputs.size(); ++i) {
        const FlaCaptureTensor& input = c->inputs[i];
        for (std::size_t b = 0; b < replay.buffers.size(); ++b) {
            if (replay.bufferInputs[b] != input.name) continue;
            std::vector<std::uint8_t> bytes = generateFlaInput(input, std::uint64_t(c->seed) * 0x100000001b3ull + i);
            if (bytes.size() > replay.buffers[b].bytes) bytes.resize(replay.buffers[b].bytes);
            replay.buffers[b].initial = std::move(bytes);
        }
    }
}

CapturedKernelLaunch makeFlaCapturedLaunch(const FlaCapture& capture, const FlaReplayLaunch& launch, std::size_t config,
                                           const fs::path& tritonCache) {
    const FlaCaptureKernel& kernel = capture.kernels[launch.kernel];
    const FlaCaptureLaunch& captured = kernel.launches[launch.launch];
    const std::string where = kernel.kernel_name + " config " + std::to_string(config) + " at " + captured.case_id + "#" +
                              std::to_string(captured.sequence);
    if (config >= captured.variants.size()) throw Error("", "", where + ": no such variant");
    const FlaCaptureVariant& variant = captured.variants[config];
    if (!variant.binary) throw Error("", "", where + ": did not compile (" + variant.compile_error.value_or("no binary") + ")");
    const FlaCaptureBinary* record = capture.binary(*variant.binary);
    if (!record) throw Error(capture.fileName, "", where + ": binary " + *variant.binary + " is not in /binaries");
    CapturedKernelLaunch out;
    out.label = where;
    out.binary = readTritonKernelFiles(tritonCache / record->folder, record->kernel_name, record->metadata_file,
                                       record->binary_file);
    for (const FlaCaptureFileEntry& file : record->files) {
        if (file.name != record->binary_file) continue;
        const std::string_view bytes(reinterpret_cast<const char*>(out.binary.image.data()), out.binary.image.size());
        if (sha256Hex(bytes) != file.sha256)
            throw Error(out.binary.label, "", "SHA-256 differs from the manifest's record " + file.sha256 +
                                                  ": not the binary the capture compiled");
    }
    if (out.binary.numWarps != record->num_warps || out.binary.numCtas != record->num_ctas ||
        out.binary.sharedBytes != std::uint64_t(record->shared))
        throw Error(out.binary.label, "", "metadata differs from the manifest's record (num_warps, num_ctas, shared)");
    for (std::size_t d = 0; d < 3; ++d)
        out.grid[d] = d < variant.grid.size() ? std::uint32_t(variant.grid[d]) : 1u;
    out.params = buildTritonParams(launch.args);
    if (out.binary.targetBackend == "cuda") {
        const std::string mismatch = paramsMismatch(out.params, cubinKernelParams(out.binary.image, out.binary.kernelName));
        if (!mismatch.empty()) throw Error(out.binary.label, "", where + ": " + mismatch);
    }
    return out;
}

FlaOutputCheck compareFlaOutput(const std::string& dtype, std::span<const std::uint8_t> reference,
                                std::span<const std::uint8_t> got, double tolerance) {
    FlaOutputCheck check;
    if (reference.size() != got.size()) {
        check.passed = check.bitwise = false;
        check.message = "sizes differ (" + std::to_string(reference.size()) + " and " + std::to_string(got.size()) + " bytes)";
        return check;
    }
    const std::size_t size = itemSize(dtype);
    const bool floating = isFloatDtype(dtype);
    double diffSquares = 0, refSquares = 0;
    std::string firstBad;
    for (std::size_t at = 0; at + size <= reference.size(); at += size) {
        const bool same = std::memcmp(reference.data() + at, got.data() + at, size) == 0;
        if (!floating) {
            check.differing += same ? 0 : 1;
            continue;
        }
        const double r = loadAs(dtype, reference.data() + at);
        if (same) {
            if (std::isfinite(r)) refSquares += r * r;
            continue;
        }
        ++check.differing;
        const double g = loadAs(dtype, got.data() + at);
        if (!std::isfinite(r) || !std::isfinite(g)) {
            if (firstBad.empty())
                firstBad = "element " + std::to_string(at / size) + " is " + std::to_string(g) + ", the reference " +
                           std::to_string(r);
            continue;
        }
        diffSquares += (g - r) * (g - r);
        refSquares += r * r;
    }
    if (check.differing == 0) {
        check.message = "bitwise equal";
        return check;
    }
    check.bitwise = false;
    const std::string count = std::to_string(check.differing) + " of " + std::to_string(reference.size() / size) +
                              " elements differ";
    if (!floating) {
        check.passed = false;
        check.message = count + " (an integer output must match bitwise)";
        return check;
    }
    check.rmsRatio = refSquares > 0 ? std::sqrt(diffSquares / refSquares) : INFINITY;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3g", check.rmsRatio);
    if (!firstBad.empty()) {
        check.passed = false;
        check.message = count + ", " + firstBad;
    } else if (!(check.rmsRatio <= tolerance)) {
        check.passed = false;
        check.message = "rms ratio " + std::string(ratio) + " over the tolerance " + std::to_string(tolerance) + " (" + count + ")";
    } else {
        check.message = "rms ratio " + std::string(ratio) + " (" + count + ")";
    }
    return check;
}

}  // namespace tunescope
