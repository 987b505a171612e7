#include "l2norm_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bf16.hpp"
#include "l2norm_common.hpp"

namespace tunescope::cpu {

namespace {

constexpr int kD = l2norm::kHeadDim;
// From 16 MiB of output on, y bypasses the caches (see normalizeRow).
constexpr std::int64_t kStreamingRows = (16 << 20) / l2norm::kRowBytes;

// Runs body(part, begin, end) over [0, count) split into up to `threads` contiguous parts, on the calling thread
// plus one thread per other part. Parts of fewer than `minimumPerThread` items are not worth a thread.
template <typename Body>
void parallelFor(std::int64_t count, int threads, std::int64_t minimumPerThread, Body body) {
    if (threads <= 0) threads = defaultThreadCount();
    const std::int64_t useful = std::max<std::int64_t>(1, count / std::max<std::int64_t>(1, minimumPerThread));
    const int parts = int(std::min<std::int64_t>(threads, useful));
    if (parts <= 1) {
        body(0, std::int64_t(0), count);
        return;
    }
    std::vector<std::jthread> workers;
    workers.reserve(std::size_t(parts - 1));
    const std::int64_t chunk = (count + parts - 1) / parts;
    for (int part = 1; part < parts; ++part) {
        const std::int64_t begin = std::min(count, part * chunk);
        const std::int64_t end = std::min(count, begin + chunk);
        workers.emplace_back([=] { body(part, begin, end); });
    }
    body(0, std::int64_t(0), std::min(count, chunk));
}

#if defined(__SSE2__)
// One row with SSE2 (part of every x86-64 CPU): 16 vectors of 8 bf16. Same arithmetic as the portable version
// below and as the GPU kernels: fp32 squares summed, IEEE sqrt and division, round to nearest even, NaN kept.
// Streaming (non-temporal) stores skip the read-for-ownership of y's lines: a third less memory traffic, as glibc's
// memcpy does for large copies. Used when y is 16-byte aligned and the output is larger than the caches want.
template <bool Streaming>
inline void normalizeRow(const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ y, float* rstdOut,
                         float eps) {
    const __m128i zero = _mm_setzero_si128();
    __m128 low[16], high[16];
    __m128 sum0 = _mm_setzero_ps(), sum1 = _mm_setzero_ps(), sum2 = _mm_setzero_ps(), sum3 = _mm_setzero_ps();
    for (int v = 0; v < 16; v += 2) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x) + v);
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x) + v + 1);
        // Interleaving zeros below each bf16 makes its fp32 value (bits << 16).
        low[v] = _mm_castsi128_ps(_mm_unpacklo_epi16(zero, a));
        high[v] = _mm_castsi128_ps(_mm_unpackhi_epi16(zero, a));
        low[v + 1] = _mm_castsi128_ps(_mm_unpacklo_epi16(zero, b));
        high[v + 1] = _mm_castsi128_ps(_mm_unpackhi_epi16(zero, b));
        sum0 = _mm_add_ps(sum0, _mm_mul_ps(low[v], low[v]));
        sum1 = _mm_add_ps(sum1, _mm_mul_ps(high[v], high[v]));
        sum2 = _mm_add_ps(sum2, _mm_mul_ps(low[v + 1], low[v + 1]));
        sum3 = _mm_add_ps(sum3, _mm_mul_ps(high[v + 1], high[v + 1]));
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, _mm_add_ps(_mm_add_ps(sum0, sum1), _mm_add_ps(sum2, sum3)));
    const float sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    const float rstd = 1.0f / std::sqrt(sum + eps);
    const __m128 scale = _mm_set1_ps(rstd);
    const __m128i bias = _mm_set1_epi32(0x7fff), one = _mm_set1_epi32(1), quietBit = _mm_set1_epi32(0x40);
    auto toBf16 = [&](__m128 value) {
        const __m128i bits = _mm_castps_si128(value);
        const __m128i odd = _mm_and_si128(_mm_srli_epi32(bits, 16), one);
        // Arithmetic shift keeps each result a sign-extended 16-bit number, so the signed pack below is exact.
        const __m128i rounded = _mm_srai_epi32(_mm_add_epi32(bits, _mm_add_epi32(bias, odd)), 16);
        const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(value, value));
        const __m128i quieted = _mm_or_si128(_mm_srai_epi32(bits, 16), quietBit);
        return _mm_or_si128(_mm_and_si128(nan, quieted), _mm_andnot_si128(nan, rounded));
    };
    for (int v = 0; v < 16; ++v) {
        const __m128i packed = _mm_packs_epi32(toBf16(_mm_mul_ps(low[v], scale)), toBf16(_mm_mul_ps(high[v], scale)));
        if constexpr (Streaming) {
            _mm_stream_si128(reinterpret_cast<__m128i*>(y) + v, packed);
        } else {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(y) + v, packed);
        }
    }
    *rstdOut = rstd;
}
#else
// One row, portable: fixed trip counts that compilers vectorise.
template <bool Streaming>
inline void normalizeRow(const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ y, float* rstdOut,
                         float eps) {
    float values[kD];
    for (int i = 0; i < kD; ++i) values[i] = bf16::floatFromBits(std::uint32_t(x[i]) << 16);
    float partial[16] = {};
    for (int i = 0; i < kD; i += 16) {
        for (int j = 0; j < 16; ++j) partial[j] += values[i + j] * values[i + j];
    }
    float sum = 0.0f;
    for (int j = 0; j < 16; ++j) sum += partial[j];
    const float rstd = 1.0f / std::sqrt(sum + eps);
    for (int i = 0; i < kD; ++i) y[i] = bf16::fromFloat(values[i] * rstd);
    *rstdOut = rstd;
}
#endif

}  // namespace

int defaultThreadCount() { return int(std::max(1u, std::thread::hardware_concurrency())); }

void l2normForward(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t rows, float eps,
                   int threads) {
    const bool streaming = rows >= kStreamingRows && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
    parallelFor(rows, threads, 2048, [=](int, std::int64_t begin, std::int64_t end) {
        if (streaming) {
            for (std::int64_t row = begin; row < end; ++row) {
                normalizeRow<true>(x + row * kD, y + row * kD, rstd + row, eps);
            }
#if defined(__SSE2__)
            _mm_sfence();  // streaming stores are weakly ordered: each writing thread fences its own
#endif
        } else {
            for (std::int64_t row = begin; row < end; ++row) {
                normalizeRow<false>(x + row * kD, y + row * kD, rstd + row, eps);
            }
        }
    });
}

void l2normReference(const std::uint16_t* x, double* yExact, double* rstdExact, std::int64_t rows, double eps) {
    for (std::int64_t row = 0; row < rows; ++row) {
        const std::uint16_t* in = x + row * kD;
        double sum = 0.0;
        for (int i = 0; i < kD; ++i) {
            const double value = bf16::toFloat(in[i]);
            sum += value * value;
        }
        const double root = std::sqrt(sum + eps);
        for (int i = 0; i < kD; ++i) yExact[row * kD + i] = double(bf16::toFloat(in[i])) / root;
        rstdExact[row] = 1.0 / root;
    }
}

void fillRandomInput(std::uint16_t* x, std::uint64_t elements, std::uint64_t seed, int threads) {
    // Row by row (the row's hash once), then any partial last row element by element.
    const std::int64_t rows = std::int64_t(elements / kD);
    parallelFor(rows, threads, 2048, [=](int, std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
            const std::uint64_t rowHash = l2norm::randomRowHash(seed, std::uint64_t(row));
            for (std::uint64_t i = std::uint64_t(row) * kD; i < std::uint64_t(row + 1) * kD; ++i) {
                x[i] = l2norm::randomElementOfRow(rowHash, i);
            }
        }
    });
    for (std::uint64_t i = std::uint64_t(rows) * kD; i < elements; ++i) x[i] = l2norm::randomInputElement(seed, i);
}

void parallelCopy(void* destination, const void* source, std::uint64_t bytes, int threads) {
    auto* out = static_cast<std::uint8_t*>(destination);
    const auto* in = static_cast<const std::uint8_t*>(source);
    parallelFor(std::int64_t(bytes), threads, 1 << 20, [=](int, std::int64_t begin, std::int64_t end) {
        std::memcpy(out + begin, in + begin, std::size_t(end - begin));
    });
}

std::uint64_t flushCaches(std::uint8_t* buffer, std::uint64_t bytes, int threads) {
    const std::int64_t words = std::int64_t(bytes / 8);
    auto* data = reinterpret_cast<std::uint64_t*>(buffer);
    std::vector<std::uint64_t> folded(std::size_t(threads <= 0 ? defaultThreadCount() : threads), 0);
    parallelFor(words, int(folded.size()), 1 << 17, [&](int part, std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) data[i] = std::uint64_t(i) * 0x9e3779b97f4a7c15ull;
        std::uint64_t sum = 0;
        for (std::int64_t i = begin; i < end; ++i) sum += data[i];
        folded[std::size_t(part)] = sum;
    });
    std::uint64_t total = 0;
    for (std::uint64_t value : folded) total += value;
    return total;
}

}  // namespace tunescope::cpu
