#pragma once
// bfloat16 <-> float by bit operations, identical on the CPU, in CUDA and in HIP device code.
// bf16 is kept as 16-bit storage (std::uint16_t) everywhere: CUDA's __nv_bfloat16 and ROCm 5.2's hip_bfloat16 are
// different types, and their conversions need not agree with each other or with the CPU reference.
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TUNESCOPE_HOST_DEVICE __host__ __device__
#else
#define TUNESCOPE_HOST_DEVICE
#endif

namespace tunescope::bf16 {

TUNESCOPE_HOST_DEVICE inline std::uint32_t floatBits(float value) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#elif defined(__HIP_DEVICE_COMPILE__)
    return __builtin_bit_cast(std::uint32_t, value);
#else
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
#endif
}

TUNESCOPE_HOST_DEVICE inline float floatFromBits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#elif defined(__HIP_DEVICE_COMPILE__)
    return __builtin_bit_cast(float, bits);
#else
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
#endif
}

// Exact: every bf16 value is a float with the low 16 mantissa bits zero.
TUNESCOPE_HOST_DEVICE inline float toFloat(std::uint16_t bits) { return floatFromBits(std::uint32_t(bits) << 16); }

// Round to nearest, ties to even (what Triton's .to(tl.bfloat16) and torch do). NaN stays NaN (quiet, sign kept);
// values past the largest bf16 round to infinity, as IEEE rounding says.
TUNESCOPE_HOST_DEVICE inline std::uint16_t fromFloat(float value) {
    const std::uint32_t bits = floatBits(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((bits >> 16) | 0x0040u);
    const std::uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);
    return std::uint16_t((bits + roundingBias) >> 16);
}

// Distance from `value` to the next bf16 away from zero at its magnitude (8 significant bits), for "within 1 ulp"
// checks. For |value| below the smallest normal it is the subnormal spacing.
inline double ulpAt(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const int exponent = int((bits >> 52) & 0x7ff) - 1023;  // |value| in [2^exponent, 2^(exponent+1))
    if (exponent < -126) return 0x1p-133;
    return std::ldexp(1.0, exponent - 7);
}

}  // namespace tunescope::bf16
