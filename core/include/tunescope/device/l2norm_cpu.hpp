#pragma once
// The CPU l2norm: the multithreaded reference that the CPU backend times (the same fp32 math as the GPU kernels),
// and a double-precision reference that the self-test compares every backend against.
#include <cstdint>

namespace tunescope::cpu {

// Threads used when a call passes threads = 0: the hardware's, at least 1.
int defaultThreadCount();

// y = bf16(x * rstd), rstd = 1 / sqrt(sum(x^2) + eps) in fp32, per row of 128 bf16 values (bits). Rows are split
// over `threads` threads (0 = defaultThreadCount()); small inputs run on fewer.
void l2normForward(const std::uint16_t* x, std::uint16_t* y, float* rstd, std::int64_t rows, float eps,
                   int threads = 0);

// The exact function in double precision: yExact = x / sqrt(sum(x^2) + eps), rstdExact = 1 / sqrt(...), where
// the sum is formed in double (exact for bf16 inputs: 128 squares of 8-bit significands).
void l2normReference(const std::uint16_t* x, double* yExact, double* rstdExact, std::int64_t rows, double eps);

// x[i] = l2norm::randomInputElement(seed, i): the same tensor every backend fills for this seed.
void fillRandomInput(std::uint16_t* x, std::uint64_t elements, std::uint64_t seed, int threads = 0);

// Copies bytes on `threads` threads (the CPU's copy ceiling, timed like the l2norm).
void parallelCopy(void* destination, const void* source, std::uint64_t bytes, int threads = 0);

// Writes then reads `bytes` of `buffer` on `threads` threads, so that none of the next sample's data is cached.
// Returns a value derived from the reads (so they cannot be optimised away).
std::uint64_t flushCaches(std::uint8_t* buffer, std::uint64_t bytes, int threads = 0);

}  // namespace tunescope::cpu
