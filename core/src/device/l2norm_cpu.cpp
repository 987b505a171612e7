#include "tunescope/device/l2norm_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "tunescope/device/bf16.hpp"
#include "tunescope/device/l2norm_contract.hpp"

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

// One row, portable and complete (NaN and infinity inputs included): the semantics the vector paths follow.
inline void normalizeRowPortable(const std::uint16_t* x, std::uint16_t* y, float* rstdOut, float eps) {
    float values[kD];
    for (int i = 0; i < kD; ++i) values[i] = bf16::toFloat(x[i]);
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

#if defined(__SSE2__)
// x86-64: SSE2 (every x86-64 CPU) and AVX2 (chosen at run time). The same arithmetic as the GPU kernels: fp32
// squares summed, IEEE sqrt and division, one multiply per element, round to nearest even. A row whose sum or
// rstd is not finite (NaN or infinity in the input, eps = 0 on a zero row) takes the portable path, so the vector
// code needs no NaN handling: with finite x and rstd, |x * rstd| <= 1.
//
// Streaming (non-temporal) stores skip the read-for-ownership of y's lines, a third less memory traffic, as
// glibc's memcpy does for large copies; used for large outputs when y is 16-byte aligned.

template <bool Streaming>
inline void normalizeRowSse2(const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ y, float* rstdOut,
                             float eps) {
    const __m128i zero = _mm_setzero_si128();
    __m128 low[16], high[16];
    __m128 sum0 = _mm_setzero_ps(), sum1 = _mm_setzero_ps();
    for (int v = 0; v < 16; ++v) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x) + v);
        // Interleaving zeros below each bf16 makes its fp32 value (bits << 16).
        low[v] = _mm_castsi128_ps(_mm_unpacklo_epi16(zero, packed));
        high[v] = _mm_castsi128_ps(_mm_unpackhi_epi16(zero, packed));
        sum0 = _mm_add_ps(sum0, _mm_mul_ps(low[v], low[v]));
        sum1 = _mm_add_ps(sum1, _mm_mul_ps(high[v], high[v]));
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, _mm_add_ps(sum0, sum1));
    const float sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    const float rstd = 1.0f / std::sqrt(sum + eps);
    if (!std::isfinite(sum) || !std::isfinite(rstd)) {
        normalizeRowPortable(x, y, rstdOut, eps);
        return;
    }
    const __m128 scale = _mm_set1_ps(rstd);
    const __m128i bias = _mm_set1_epi32(0x7fff), one = _mm_set1_epi32(1);
    auto toBf16 = [&](__m128 value) {
        const __m128i bits = _mm_castps_si128(value);
        const __m128i odd = _mm_and_si128(_mm_srli_epi32(bits, 16), one);
        // Arithmetic shift keeps each result a sign-extended 16-bit number, so the signed pack below is exact.
        return _mm_srai_epi32(_mm_add_epi32(bits, _mm_add_epi32(bias, odd)), 16);
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

template <bool Streaming>
__attribute__((target("avx2"))) void normalizeRowsAvx2(const std::uint16_t* x, std::uint16_t* y, float* rstd,
                                                       std::int64_t begin, std::int64_t end, float eps) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
    for (std::int64_t row = begin; row < end; ++row) {
        const std::uint16_t* in = x + row * kD;
        std::uint16_t* out = y + row * kD;
        // unpack and pack below both work within 128-bit lanes, so their permutations cancel out.
        __m256 low[8], high[8];
        __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
        for (int v = 0; v < 8; ++v) {
            const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in) + v);
            low[v] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, packed));
            high[v] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, packed));
            sum0 = _mm256_add_ps(sum0, _mm256_mul_ps(low[v], low[v]));
            sum1 = _mm256_add_ps(sum1, _mm256_mul_ps(high[v], high[v]));
        }
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, _mm256_add_ps(sum0, sum1));
        const float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        const float scale = 1.0f / std::sqrt(sum + eps);
        if (!std::isfinite(sum) || !std::isfinite(scale)) {
            normalizeRowPortable(in, out, rstd + row, eps);
            continue;
        }
        const __m256 scaleVector = _mm256_set1_ps(scale);
        for (int v = 0; v < 8; ++v) {
            const __m256i lowBits = _mm256_castps_si256(_mm256_mul_ps(low[v], scaleVector));
            const __m256i highBits = _mm256_castps_si256(_mm256_mul_ps(high[v], scaleVector));
            const __m256i lowRounded = _mm256_srai_epi32(
                _mm256_add_epi32(lowBits, _mm256_add_epi32(bias, _mm256_and_si256(_mm256_srli_epi32(lowBits, 16), one))), 16);
            const __m256i highRounded = _mm256_srai_epi32(
                _mm256_add_epi32(highBits, _mm256_add_epi32(bias, _mm256_and_si256(_mm256_srli_epi32(highBits, 16), one))), 16);
            const __m256i packed = _mm256_packs_epi32(lowRounded, highRounded);
            if constexpr (Streaming) {
                _mm256_stream_si256(reinterpret_cast<__m256i*>(out) + v, packed);
            } else {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out) + v, packed);
            }
        }
        rstd[row] = scale;
    }
}

template <bool Streaming>
void normalizeRowsSse2(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t begin, std::int64_t end,
                       float eps) {
    for (std::int64_t row = begin; row < end; ++row) normalizeRowSse2<Streaming>(x + row * kD, y + row * kD, rstd + row, eps);
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");

void normalizeRows(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t begin, std::int64_t end,
                   float eps, bool streaming) {
    if (kHasAvx2) {
        streaming ? normalizeRowsAvx2<true>(x, y, rstd, begin, end, eps)
                  : normalizeRowsAvx2<false>(x, y, rstd, begin, end, eps);
    } else {
        streaming ? normalizeRowsSse2<true>(x, y, rstd, begin, end, eps)
                  : normalizeRowsSse2<false>(x, y, rstd, begin, end, eps);
    }
    if (streaming) _mm_sfence();  // streaming stores are weakly ordered: each writing thread fences its own
}
#else
void normalizeRows(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t begin, std::int64_t end,
                   float eps, bool /*streaming*/) {
    for (std::int64_t row = begin; row < end; ++row) normalizeRowPortable(x + row * kD, y + row * kD, rstd + row, eps);
}
#endif

}  // namespace

int defaultThreadCount() { return int(std::max(1u, std::thread::hardware_concurrency())); }

void l2normForward(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t rows, float eps,
                   int threads) {
    const bool streaming = rows >= kStreamingRows && reinterpret_cast<std::uintptr_t>(y) % 32 == 0;
    parallelFor(rows, threads, 2048, [=](int, std::int64_t begin, std::int64_t end) {
        normalizeRows(x, y, rstd, begin, end, eps, streaming);
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
