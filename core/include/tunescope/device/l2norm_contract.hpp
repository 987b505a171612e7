#pragma once
// What the CPU reference, the CUDA and the HIP l2norm share: the shape, the launch space, and the random input
// generator (so that a seed gives the same bf16 tensor on every backend).
#include <cstdint>

#include "tunescope/device/bf16.hpp"

namespace tunescope::l2norm {

inline constexpr int kHeadDim = 128;                  // D: elements per row
inline constexpr int kRowBytes = kHeadDim * 2;        // one bf16 row, 256 B = 16 vectors of 16 B
inline constexpr int kLanesPerRow = kRowBytes / 16;   // lanes that share a row, one 16-byte vector each
inline constexpr std::uint64_t kBytesPerRow = 2 * kRowBytes + 4;  // x read + y written + rstd written

// The launch space Triton's configs express for FLA's l2norm_fwd_kernel (see kernels/README.md).
inline constexpr int kBlockRowsChoices[] = {8, 16, 32, 64, 128};
inline constexpr int kWarpChoices[] = {1, 2, 4, 8, 16, 32};  // 32 only where a warp is 32 lanes (NVIDIA)
inline constexpr int kStageChoices[] = {1, 2, 3, 4};

TUNESCOPE_HOST_DEVICE inline std::uint64_t splitMix64(std::uint64_t state) {
    state += 0x9e3779b97f4a7c15ull;
    state = (state ^ (state >> 30)) * 0xbf58476d1ce4e5b9ull;
    state = (state ^ (state >> 27)) * 0x94d049bb133111ebull;
    return state ^ (state >> 31);
}

// Element `index` (row-major, row = index / 128) of the random input for `seed`: never zero, never NaN or inf.
// Each row gets its own power-of-two scale in [2^-6, 2^5) and each element a random sign, a random 7-bit
// mantissa and an exponent spread of 2^-2..2^1, so rows have very different norms (rstd spans ~2^-10..2^9).
TUNESCOPE_HOST_DEVICE inline std::uint64_t randomRowHash(std::uint64_t seed, std::uint64_t row) {
    return splitMix64(seed ^ (row * 0xd1b54a32d192ed03ull));
}

// Element `index` of a row whose randomRowHash is `rowHash` (see randomInputElement).
TUNESCOPE_HOST_DEVICE inline std::uint16_t randomElementOfRow(std::uint64_t rowHash, std::uint64_t index) {
    const std::uint64_t elementHash = splitMix64(rowHash ^ (index * 0x9e3779b97f4a7c15ull) ^ 0x5851f42d4c957f2dull);
    const int rowExponent = int(rowHash % 11) - 6;                // -6..4
    const int elementExponent = int((elementHash >> 8) % 4) - 2;  // -2..1
    const std::uint32_t exponent = std::uint32_t(127 + rowExponent + elementExponent);
    const std::uint32_t mantissa = std::uint32_t(elementHash & 0x7f);
    const std::uint32_t sign = std::uint32_t((elementHash >> 7) & 1);
    return std::uint16_t((sign << 15) | (exponent << 7) | mantissa);
}

// Element `index` (row-major, row = index / 128) of the random input for `seed`: never zero, never NaN or inf.
// Each row gets its own power-of-two scale in [2^-6, 2^5) and each element a random sign, a random 7-bit
// mantissa and an exponent spread of 2^-2..2^1, so rows have very different norms (rstd spans ~2^-10..2^9).
TUNESCOPE_HOST_DEVICE inline std::uint16_t randomInputElement(std::uint64_t seed, std::uint64_t index) {
    return randomElementOfRow(randomRowHash(seed, index / kHeadDim), index);
}

}  // namespace tunescope::l2norm
