#include "gemm_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace tunescope::cublaslt_kernels {

namespace {

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Magnitude in [1/16, 1], random sign.
__device__ __forceinline__ float randomValue(std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t bits = splitmix64(seed * 0x100000001b3ull ^ splitmix64(index));
    const float unit = float(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    const float magnitude = 0.0625f + unit * 0.9375f;
    return (bits & 1ull) ? -magnitude : magnitude;
}

__global__ void fillBf16Kernel(__nv_bfloat16* out, std::uint64_t count, std::uint64_t seed) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(randomValue(seed, i));
}

__global__ void fillFp8Kernel(__nv_fp8_e4m3* out, std::uint64_t count, std::uint64_t seed) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = __nv_fp8_e4m3(randomValue(seed, i));  // 1/16 is well inside E4M3's normal range: never zero
}

// FP4 E2M1 codes: 0 0.5 1 1.5 2 3 4 6; bit 3 is the sign. Codes 1..7 are non-zero.
__global__ void fillFp4Kernel(std::uint8_t* out, std::uint64_t bytes, std::uint64_t seed) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < bytes;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint64_t r = splitmix64(seed ^ splitmix64(i));
        const std::uint8_t lo = std::uint8_t(1 + (r % 7)) | std::uint8_t(((r >> 8) & 1) << 3);
        const std::uint8_t hi = std::uint8_t(1 + ((r >> 16) % 7)) | std::uint8_t(((r >> 24) & 1) << 3);
        out[i] = std::uint8_t(lo | (hi << 4));
    }
}

__global__ void fillBytesKernel(std::uint8_t* out, std::uint8_t value, std::uint64_t count) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = value;
}

__device__ __forceinline__ float fp4Value(std::uint8_t code) {
    const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    const float v = table[code & 7];
    return (code & 8) ? -v : v;
}

__device__ __forceinline__ float loadElement(const OperandView& v, std::int64_t index) {
    switch (v.type) {
        case ElementType::Bf16:
            return __bfloat162float(static_cast<const __nv_bfloat16*>(v.data)[index]) * v.scale;
        case ElementType::Fp8E4M3:
            return float(static_cast<const __nv_fp8_e4m3*>(v.data)[index]) * v.scale;
        case ElementType::Fp4E2M1: {
            const std::uint8_t byte = static_cast<const std::uint8_t*>(v.data)[index >> 1];
            return fp4Value((index & 1) ? std::uint8_t(byte >> 4) : std::uint8_t(byte & 15)) * v.scale;
        }
    }
    return 0.0f;
}

// 64 x 64 output tile per block, 16 x 16 threads, 4 x 4 outputs per thread, K in steps of 16.
constexpr int kTile = 64;
constexpr int kStepK = 16;

__global__ void referenceGemmKernel(OperandView a, OperandView b, float* ref, std::int64_t n, std::int64_t m,
                                    std::int64_t k, std::int64_t ldRef) {
    __shared__ float tileA[kStepK][kTile + 1];  // [k][n]
    __shared__ float tileB[kStepK][kTile + 1];  // [k][m]
    const std::int64_t n0 = std::int64_t(blockIdx.x) * kTile;
    const std::int64_t m0 = std::int64_t(blockIdx.y) * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    float acc[4][4] = {};
    for (std::int64_t k0 = 0; k0 < k; k0 += kStepK) {
        // Walk memory in its contiguous direction so that neighbouring threads read neighbouring elements.
        for (int e = tid; e < kStepK * kTile; e += 256) {
            const bool aKFast = a.strideCol == 1;
            const int kk = aKFast ? e % kStepK : e / kTile, ii = aKFast ? e / kStepK : e % kTile;
            const std::int64_t gk = k0 + kk, gn = n0 + ii;
            tileA[kk][ii] = (gk < k && gn < n) ? loadElement(a, gn * a.strideRow + gk * a.strideCol) : 0.0f;
        }
        for (int e = tid; e < kStepK * kTile; e += 256) {
            const bool bKFast = b.strideRow == 1;
            const int kk = bKFast ? e % kStepK : e / kTile, jj = bKFast ? e / kStepK : e % kTile;
            const std::int64_t gk = k0 + kk, gm = m0 + jj;
            tileB[kk][jj] = (gk < k && gm < m) ? loadElement(b, gk * b.strideRow + gm * b.strideCol) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kStepK; ++kk) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = tileA[kk][tx + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) bv[j] = tileB[kk][ty + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const std::int64_t gn = n0 + tx + 16 * i, gm = m0 + ty + 16 * j;
            if (gn < n && gm < m) ref[gm * ldRef + gn] = acc[i][j];
        }
}

__global__ void compareKernel(const std::uint16_t* d, const std::uint16_t* baseline, const float* ref,
                              std::int64_t ld, std::int64_t n, std::int64_t m, CompareResult* out) {
    unsigned long long differing = 0, nonFinite = 0;
    float maxErr = 0.0f, maxRef = 0.0f;
    const std::int64_t total = n * m;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t col = e / n, row = e % n;
        const std::int64_t index = col * ld + row;
        const std::uint16_t bits = d[index];
        if (baseline && bits != baseline[index]) ++differing;
        const float value = __uint_as_float(std::uint32_t(bits) << 16);
        const float r = ref[index];
        if (!isfinite(value)) {
            ++nonFinite;
        } else {
            maxErr = fmaxf(maxErr, fabsf(value - r));
        }
        maxRef = fmaxf(maxRef, fabsf(r));
    }
    // Warp reduce, then one atomic per warp. Non-negative floats order like their bit patterns.
    for (int offset = 16; offset > 0; offset /= 2) {
        differing += __shfl_down_sync(0xffffffffu, differing, offset);
        nonFinite += __shfl_down_sync(0xffffffffu, nonFinite, offset);
        maxErr = fmaxf(maxErr, __shfl_down_sync(0xffffffffu, maxErr, offset));
        maxRef = fmaxf(maxRef, __shfl_down_sync(0xffffffffu, maxRef, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        if (differing) atomicAdd(&out->differing, differing);
        if (nonFinite) atomicAdd(&out->nonFinite, nonFinite);
        atomicMax(reinterpret_cast<unsigned int*>(&out->maxAbsError), __float_as_uint(maxErr));
        atomicMax(reinterpret_cast<unsigned int*>(&out->maxAbsRef), __float_as_uint(maxRef));
    }
}

__global__ void spinKernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

unsigned gridFor(std::uint64_t count) {
    const std::uint64_t blocks = (count + 255) / 256;
    return unsigned(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

}  // namespace

cudaError_t fillRandom(void* data, ElementType type, std::uint64_t count, std::uint64_t seed, cudaStream_t stream) {
    switch (type) {
        case ElementType::Bf16:
            fillBf16Kernel<<<gridFor(count), 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
            break;
        case ElementType::Fp8E4M3:
            fillFp8Kernel<<<gridFor(count), 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed);
            break;
        case ElementType::Fp4E2M1: {
            const std::uint64_t bytes = (count + 1) / 2;
            fillFp4Kernel<<<gridFor(bytes), 256, 0, stream>>>(static_cast<std::uint8_t*>(data), bytes, seed);
            break;
        }
    }
    return cudaGetLastError();
}

cudaError_t fillBytes(void* data, std::uint8_t value, std::uint64_t count, cudaStream_t stream) {
    fillBytesKernel<<<gridFor(count), 256, 0, stream>>>(static_cast<std::uint8_t*>(data), value, count);
    return cudaGetLastError();
}

cudaError_t referenceGemm(OperandView a, OperandView b, float* ref, std::int64_t n, std::int64_t m, std::int64_t k,
                          std::int64_t ldRef, cudaStream_t stream) {
    const dim3 grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
    if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
    referenceGemmKernel<<<grid, dim3(16, 16), 0, stream>>>(a, b, ref, n, m, k, ldRef);
    return cudaGetLastError();
}

cudaError_t compareOutputAsync(const std::uint16_t* d, const std::uint16_t* baseline, const float* ref,
                               std::int64_t ld, std::int64_t n, std::int64_t m, CompareResult* scratch,
                               cudaStream_t stream) {
    const unsigned grid = gridFor(std::uint64_t(n) * std::uint64_t(m));
    compareKernel<<<grid < 4096 ? grid : 4096, 256, 0, stream>>>(d, baseline, ref, ld, n, m, scratch);
    return cudaGetLastError();
}

cudaError_t compareOutput(const std::uint16_t* d, const std::uint16_t* baseline, const float* ref, std::int64_t ld,
                          std::int64_t n, std::int64_t m, CompareResult* scratch, CompareResult* hostResult,
                          cudaStream_t stream) {
    cudaError_t err = cudaMemsetAsync(scratch, 0, sizeof(CompareResult), stream);
    if (err != cudaSuccess) return err;
    err = compareOutputAsync(d, baseline, ref, ld, n, m, scratch, stream);
    if (err != cudaSuccess) return err;
    err = cudaMemcpyAsync(hostResult, scratch, sizeof(CompareResult), cudaMemcpyDeviceToHost, stream);
    if (err != cudaSuccess) return err;
    return cudaStreamSynchronize(stream);
}

cudaError_t spin(long long cycles, cudaStream_t stream) {
    spinKernel<<<1, 1, 0, stream>>>(cycles);
    return cudaGetLastError();
}

}  // namespace tunescope::cublaslt_kernels
