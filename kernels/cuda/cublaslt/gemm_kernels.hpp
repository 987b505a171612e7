#pragma once
// Helper kernels of the cuBLASLt explorer: random inputs, the FP32 reference GEMM, output comparison, and the
// spin kernel that hides host enqueue time before a timed launch. Plain types only: this header is shared by
// nvcc (C++17) and the C++20 plugin code.
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tunescope::cublaslt_kernels {

enum class ElementType : int { Bf16 = 0, Fp8E4M3 = 1, Fp4E2M1 = 2 };

// Fills `count` elements (FP4: count nibbles, packed two per byte, low nibble first) with values of magnitude in
// [1/16, 1] (FP4: codes 1..7 = 0.5..6) and a random sign, deterministic in (seed, index). Never zero.
cudaError_t fillRandom(void* data, ElementType type, std::uint64_t count, std::uint64_t seed, cudaStream_t stream);

// Fills bytes with one value (UE4M3 block scales).
cudaError_t fillBytes(void* data, std::uint8_t value, std::uint64_t count, cudaStream_t stream);

// How to read op(A)[n,k] and op(B)[k,m]: element index = i * strideI + j * strideJ.
struct OperandView {
    const void* data;
    ElementType type;
    std::int64_t strideRow;  // op(A): per n; op(B): per k
    std::int64_t strideCol;  // op(A): per k; op(B): per m
    float scale;             // dequantisation factor (FP8 scale, NVFP4 block scale when uniform)
};

// ref[m * ldRef + n] = sum_k op(A)[n,k] * op(B)[k,m] in FP32: Y[M,N] row-major, i.e. D column-major N x M.
cudaError_t referenceGemm(OperandView a, OperandView b, float* ref, std::int64_t n, std::int64_t m, std::int64_t k,
                          std::int64_t ldRef, cudaStream_t stream);

// Comparison of D (BF16, column-major ld) over the logical n x m block with the baseline (BF16) and ref (FP32).
struct CompareResult {
    unsigned long long differing;  // elements whose bits differ from the baseline
    unsigned long long nonFinite;  // NaN or Inf in D
    float maxAbsError;             // max |D - ref|
    float maxAbsRef;               // max |ref|
};
// `scratch` is device memory of at least sizeof(CompareResult). Synchronises the stream.
cudaError_t compareOutput(const std::uint16_t* d, const std::uint16_t* baseline, const float* ref, std::int64_t ld,
                          std::int64_t n, std::int64_t m, CompareResult* scratch, CompareResult* hostResult,
                          cudaStream_t stream);

// The same without synchronising: accumulates into `scratch` (zeroed by the caller) in stream order.
cudaError_t compareOutputAsync(const std::uint16_t* d, const std::uint16_t* baseline, const float* ref,
                               std::int64_t ld, std::int64_t n, std::int64_t m, CompareResult* scratch,
                               cudaStream_t stream);

// Keeps one block busy for about `cycles` SM clocks.
cudaError_t spin(long long cycles, cudaStream_t stream);

}  // namespace tunescope::cublaslt_kernels
