// l2norm probe: our kernel against the device-to-device copy and against Triton's own machine code for FLA's
// kernel, in ONE process, on the same buffers, with the cold-L2 method of tunescope-cli (write then read 3x the L2
// before every sample, CUDA events around one launch), interleaved round by round (alternating order) so that
// clock drift hits every variant alike:
//   - cudaMemcpyAsync D2D of the same byte count (the ceiling), and a one-vector-per-thread copy kernel;
//   - every config of ours in the default sweep grid (kernels/common/l2norm_kernel.inc);
//   - a minimal Triton-shaped kernel with and without the rstd store (how much the rstd store pattern costs);
//   - Triton's cubins for FLA's kernel (bench/l2norm_probe/triton_dump.py), loaded with the driver API.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/common bench/l2norm_probe/probe.cu -lcuda -o probe
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "l2norm_support.inc"

using namespace tunescope::l2norm;

namespace tunescope::l2norm {
template Launcher launcherForBlockRows<8>(int, int);
template Launcher launcherForBlockRows<16>(int, int);
template Launcher launcherForBlockRows<32>(int, int);
template Launcher launcherForBlockRows<64>(int, int);
template Launcher launcherForBlockRows<128>(int, int);
}  // namespace tunescope::l2norm

#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
            std::exit(1);                                                                                \
        }                                                                                                \
    } while (0)
#define CHECK_CU(call)                                                                                   \
    do {                                                                                                 \
        CUresult r_ = (call);                                                                            \
        if (r_ != CUDA_SUCCESS) {                                                                        \
            const char* s_ = nullptr;                                                                    \
            cuGetErrorString(r_, &s_);                                                                   \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?");            \
            std::exit(1);                                                                                \
        }                                                                                                \
    } while (0)

namespace {

__global__ void readAll(const uint4* buffer, std::size_t vectors, unsigned* sink) {
    unsigned folded = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < vectors;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const uint4 v = buffer[i];
        folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (folded == 0x9e3779b9u) *sink = folded;
}

__global__ void fillRandom(std::uint16_t* x, std::size_t elements, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < elements;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = randomInputElement(seed, i);
}

__global__ void copyKernel(const uint4* source, uint4* destination, std::size_t vectors) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < vectors) destination[i] = source[i];
}

__device__ __forceinline__ uint4 loadPlain(const uint4* a) {
    uint4 v;
    asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(a));
    return v;
}

// Triton's shape for FLA's kernel: the block's [BT, 128] tile is loaded whole (each thread BT/(2W) vectors), then
// reduced, scaled and stored; 16 lanes a row; 32-bit indices; compiler-scheduled (non-volatile) loads.
template <int BT, int W, bool kWriteRstd, bool kPlainLoad>
__global__ void __launch_bounds__(W * 32) minimalKernel(const uint4* __restrict__ x, uint4* __restrict__ y,
                                                        float* __restrict__ rstd, float eps, int rows) {
    constexpr int kSlots = W * 2;
    constexpr int kPer = BT >= kSlots ? BT / kSlots : 1;
    const int slot = int(threadIdx.x) >> 4, part = int(threadIdx.x) & 15;
    if (BT < kSlots && slot >= BT) return;
    const int row0 = int(blockIdx.x) * BT + slot;
    uint4 v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
        const int row = row0 + i * kSlots;
        v[i] = make_uint4(0, 0, 0, 0);
        if (row < rows) v[i] = kPlainLoad ? loadPlain(x + row * 16 + part) : __ldg(x + row * 16 + part);
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
        const int row = row0 + i * kSlots;
        const float x0 = device::lowHalf(v[i].x), x1 = device::highHalf(v[i].x);
        const float x2 = device::lowHalf(v[i].y), x3 = device::highHalf(v[i].y);
        const float x4 = device::lowHalf(v[i].z), x5 = device::highHalf(v[i].z);
        const float x6 = device::lowHalf(v[i].w), x7 = device::highHalf(v[i].w);
        float s = ((x0 * x0 + x1 * x1) + (x2 * x2 + x3 * x3)) + ((x4 * x4 + x5 * x5) + (x6 * x6 + x7 * x7));
        s += __shfl_xor_sync(0xffffffffu, s, 8, 16);
        s += __shfl_xor_sync(0xffffffffu, s, 4, 16);
        s += __shfl_xor_sync(0xffffffffu, s, 2, 16);
        s += __shfl_xor_sync(0xffffffffu, s, 1, 16);
        const float r = rsqrtf(s + eps);
        uint4 o;
        o.x = device::packPair(x0 * r, x1 * r);
        o.y = device::packPair(x2 * r, x3 * r);
        o.z = device::packPair(x4 * r, x5 * r);
        o.w = device::packPair(x6 * r, x7 * r);
        if (row < rows) {
            y[row * 16 + part] = o;
            if (kWriteRstd && part == 0) rstd[row] = r;
        }
    }
}

template <int BT, int W, bool kWriteRstd, bool kPlainLoad>
void launchMinimal(const uint4* x, uint4* y, float* rstd, int rows, cudaStream_t stream) {
    minimalKernel<BT, W, kWriteRstd, kPlainLoad><<<(rows + BT - 1) / BT, W * 32, 0, stream>>>(x, y, rstd, 1e-6f, rows);
}

struct TritonKernel {
    std::string stem;
    int bt = 0, threads = 0, shared = 0;
    CUfunction function = nullptr;
    std::vector<char> paramTypes;  // 'p' u64, 'f' f32, 'i' u32/s32, 'l' u64 used as an integer (T)
};

// The .entry's parameters, in order, from Triton's PTX.
std::vector<std::string> ptxParamTypes(const std::string& ptxPath) {
    std::ifstream in(ptxPath);
    std::string line;
    std::vector<std::string> types;
    bool inEntry = false;
    while (std::getline(in, line)) {
        if (line.find(".entry") != std::string::npos) inEntry = true;
        if (!inEntry) continue;
        const auto at = line.find(".param .");
        if (at != std::string::npos) {
            std::istringstream words(line.substr(at + 7));
            std::string type;
            words >> type;
            types.push_back(type);
        }
        if (line.find(')') != std::string::npos && !types.empty()) break;
    }
    return types;
}

std::vector<TritonKernel> loadTriton(const std::string& dir) {
    std::vector<TritonKernel> kernels;
    std::ifstream index(dir + "/index.txt");
    std::string stem, name;
    int bt, warps, threads, shared;
    while (index >> stem >> bt >> warps >> threads >> shared >> name) {
        TritonKernel k;
        k.stem = stem;
        k.bt = bt;
        k.threads = threads;
        k.shared = shared;
        CUmodule module;
        CHECK_CU(cuModuleLoad(&module, (dir + "/" + stem + ".cubin").c_str()));
        CHECK_CU(cuModuleGetFunction(&k.function, module, name.c_str()));
        const auto types = ptxParamTypes(dir + "/" + stem + ".ptx");
        std::printf("triton %s: %s, %d threads, %d B shared, params:", stem.c_str(), name.c_str(), threads, shared);
        for (std::size_t i = 0; i < types.size(); ++i) {
            std::printf(" %s", types[i].c_str());
            if (i < 3) k.paramTypes.push_back('p');
            else if (i == 3) k.paramTypes.push_back('f');
            else if (i == 4) k.paramTypes.push_back(types[i] == ".u64" || types[i] == ".s64" ? 'l' : 'i');
            else k.paramTypes.push_back('p');
        }
        std::printf("\n");
        if (shared > 48 * 1024)
            CHECK_CU(cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared));
        kernels.push_back(k);
    }
    return kernels;
}

void launchTriton(const TritonKernel& k, void* x, void* y, float* rstd, int rows, cudaStream_t stream) {
    void* pointers[3] = {x, y, rstd};
    void* null = nullptr;
    float eps = 1e-6f;
    int rows32 = rows;
    long long rows64 = rows;
    std::vector<void*> params;
    for (std::size_t i = 0; i < k.paramTypes.size(); ++i) {
        switch (k.paramTypes[i]) {
            case 'p': params.push_back(i < 3 ? &pointers[i] : &null); break;
            case 'f': params.push_back(&eps); break;
            case 'i': params.push_back(&rows32); break;
            default: params.push_back(&rows64); break;
        }
    }
    CHECK_CU(cuLaunchKernel(k.function, unsigned((rows + k.bt - 1) / k.bt), 1, 1, unsigned(k.threads), 1, 1,
                            unsigned(k.shared), stream, params.data(), nullptr));
}

struct Variant {
    std::string name;
    std::function<void(int rows)> launch;
    std::vector<double> samples;
};

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double at = q * double(v.size() - 1);
    const std::size_t lo = std::size_t(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

}  // namespace

int main(int argc, char** argv) {
    std::string tritonDir;
    FILE* csv = nullptr;
    bool doBenchFlush = false;  // triton.testing.do_bench's cold cache: zero a 256 MB buffer, nothing read back
    std::vector<int> nbs;
    for (int nb = 1; nb <= 32; ++nb) nbs.push_back(nb);
    int rounds = 25;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--nb" && i + 1 < argc) {
            nbs.clear();
            std::stringstream list(argv[++i]);
            std::string item;
            while (std::getline(list, item, ',')) nbs.push_back(std::atoi(item.c_str()));
        } else if (a == "--csv" && i + 1 < argc) {
            csv = std::fopen(argv[++i], "w");
            if (csv) std::fprintf(csv, "nb,variant,median_us,p20_us,p80_us,samples\n");
        } else if (a == "--do-bench-flush") {
            doBenchFlush = true;
        } else if (a == "--rounds" && i + 1 < argc) {
            rounds = std::atoi(argv[++i]);
        } else {
            tritonDir = a;
        }
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(nullptr));
    CHECK_CU(cuInit(0));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, L2 %d MiB; cold cache: %s\n", prop.name, prop.multiProcessorCount,
                prop.l2CacheSize >> 20,
                doBenchFlush ? "do_bench's (zero 256 MB before each sample)" : "write then read 3x L2 before each sample");

    const int maxRows = *std::max_element(nbs.begin(), nbs.end()) * 65536;
    const std::size_t rowBytes = 256;
    const std::size_t slack = 8u << 20;
    char *x, *yAlloc, *copySource, *copyDestination, *flush;
    float* rstd;
    unsigned* sink;
    CHECK(cudaMalloc(&x, maxRows * rowBytes));
    CHECK(cudaMalloc(&yAlloc, maxRows * rowBytes + slack));
    CHECK(cudaMalloc(&rstd, maxRows * sizeof(float) + 4096));
    CHECK(cudaMalloc(&copySource, std::size_t(maxRows) * 258));
    CHECK(cudaMalloc(&copyDestination, std::size_t(maxRows) * 258));
    const std::size_t flushBytes = doBenchFlush ? std::size_t(256e6) : 3 * std::size_t(prop.l2CacheSize);
    CHECK(cudaMalloc(&flush, flushBytes));
    CHECK(cudaMalloc(&sink, 64));
    std::printf("x %p  y %p  rstd %p  (y - x = %lld MiB)\n", (void*)x, (void*)yAlloc, (void*)rstd,
                (long long)((yAlloc - x) >> 20));
    fillRandom<<<4096, 256>>>(reinterpret_cast<std::uint16_t*>(x), std::size_t(maxRows) * 128, 42);
    fillRandom<<<4096, 256>>>(reinterpret_cast<std::uint16_t*>(copySource), std::size_t(maxRows) * 129, 43);
    CHECK(cudaDeviceSynchronize());
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    const auto triton = tritonDir.empty() ? std::vector<TritonKernel>{} : loadTriton(tritonDir);
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    uint4* yv = reinterpret_cast<uint4*>(yAlloc);

    auto ours = [&](Launcher launcher, LoadHint hint, std::size_t yOffset) {
        return [=](int rows) {
            LaunchArgs a;
            a.x = x;
            a.y = yAlloc + yOffset;
            a.rstd = rstd;
            a.rows = rows;
            a.loadHint = hint;
            a.stream = stream;
            launcher(a);
        };
    };
    std::vector<Variant> variants;
    variants.push_back({"memcpy D2D", [&](int rows) {
                            CHECK(cudaMemcpyAsync(copyDestination, copySource, std::size_t(rows) * 258,
                                                  cudaMemcpyDeviceToDevice, stream));
                        }, {}});
    variants.push_back({"copy kernel", [&](int rows) {
                            const std::size_t vectors = std::size_t(rows) * 258 / 16;
                            copyKernel<<<unsigned((vectors + 255) / 256), 256, 0, stream>>>(
                                reinterpret_cast<const uint4*>(copySource), reinterpret_cast<uint4*>(copyDestination),
                                vectors);
                        }, {}});
    // Every config of ours in the default sweep grid (FLA's 25 BT x num_warps, num_stages 2..4) and every Triton
    // cubin given; a few reference kernels.
    for (int bt : {8, 16, 32, 64, 128})
        for (int w : {1, 2, 4, 8, 16})
            for (int st : {2, 3, 4}) {
                const Launcher launcher = findLauncher(bt, w, st);
                if (!launcher) continue;
                variants.push_back({"ours " + std::to_string(bt) + "/" + std::to_string(w) + "/" + std::to_string(st),
                                    ours(launcher, LoadHint::kReadOnly, 0), {}});
            }
    variants.push_back({"min 8/4 plain", [&](int rows) { launchMinimal<8, 4, true, true>(xv, yv, rstd, rows, stream); }, {}});
    variants.push_back({"min 8/4 plain no-rstd", [&](int rows) { launchMinimal<8, 4, false, true>(xv, yv, rstd, rows, stream); }, {}});
    for (const auto& k : triton) {
        variants.push_back({k.stem, [&, kp = &k](int rows) { launchTriton(*kp, x, yAlloc, rstd, rows, stream); }, {}});
    }

    auto coldFlush = [&] {
        CHECK(cudaMemsetAsync(flush, doBenchFlush ? 0 : 0x5a, flushBytes, stream));
        if (!doBenchFlush) readAll<<<8192, 256, 0, stream>>>(reinterpret_cast<const uint4*>(flush), flushBytes / 16, sink);
    };
    auto sample = [&](Variant& v, int rows) {
        coldFlush();
        CHECK(cudaEventRecord(start, stream));
        v.launch(rows);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        return double(ms) * 1e3;
    };

    for (int nb : nbs) {
        const int rows = nb * 65536;
        for (auto& v : variants) {
            v.samples.clear();
            for (int w = 0; w < 3; ++w) sample(v, rows);
        }
        for (int r = 0; r < rounds; ++r) {
            if (r % 2 == 0) {
                for (auto& v : variants) v.samples.push_back(sample(v, rows));
            } else {
                for (auto it = variants.rbegin(); it != variants.rend(); ++it) it->samples.push_back(sample(*it, rows));
            }
        }
        const double copy = quantile(variants[0].samples, 0.5);
        auto bestOf = [&](const std::string& prefix) {
            const Variant* best = nullptr;
            for (const auto& v : variants)
                if (v.name.rfind(prefix, 0) == 0 && (!best || quantile(v.samples, 0.5) < quantile(best->samples, 0.5)))
                    best = &v;
            return best;
        };
        const Variant* oursBest = bestOf("ours ");
        const Variant* tritonBest = bestOf("triton_");
        std::printf("NB %2d  memcpy %8.2f us | copy kernel %6.2f%% | ours best %-12s %8.2f us %6.2f%% of copy",
                    nb, copy, 100.0 * copy / quantile(variants[1].samples, 0.5), oursBest->name.c_str() + 5,
                    quantile(oursBest->samples, 0.5), 100.0 * copy / quantile(oursBest->samples, 0.5));
        if (tritonBest)
            std::printf(" | triton best %-14s %8.2f us %6.2f%% of copy | ours/triton %.4f", tritonBest->name.c_str() + 7,
                        quantile(tritonBest->samples, 0.5), 100.0 * copy / quantile(tritonBest->samples, 0.5),
                        quantile(oursBest->samples, 0.5) / quantile(tritonBest->samples, 0.5));
        std::printf("\n");
        std::fflush(stdout);
        if (csv) {
            for (const auto& v : variants)
                std::fprintf(csv, "%d,%s,%.3f,%.3f,%.3f,%zu\n", nb, v.name.c_str(), quantile(v.samples, 0.5),
                             quantile(v.samples, 0.2), quantile(v.samples, 0.8), v.samples.size());
            std::fflush(csv);
        }
    }
    if (csv) std::fclose(csv);
    return 0;
}
