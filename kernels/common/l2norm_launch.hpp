#pragma once
// Host-side entry points into the GPU kernels (CUDA and HIP alike). Host code that includes no device code calls
// these; each returns without checking errors: the caller checks the runtime's last error after every launch.
#include <cstdint>

namespace tunescope::l2norm {

// Cache hints on the kernel's 16-byte loads and stores (CUDA PTX qualifiers; HIP ignores all but the default).
enum class LoadHint : int {
    kNoAllocate = 0,              // ld.global.nc.L1::no_allocate
    kReadOnly = 1,                // ld.global.nc
    kEvictFirst = 2,              // ld.global.cs
    kNoAllocatePrefetch256 = 3,   // ld.global.nc.L1::no_allocate.L2::256B
    kPlain = 4,                   // ld.global (what Triton emits)
    kPlainNoAllocate = 5,         // ld.global.L1::no_allocate
};
inline constexpr int kLoadHintCount = 6;
enum class StoreHint : int { kWriteBack = 0, kStreaming = 1 };

struct LaunchArgs {
    const void* x = nullptr;    // [rows, 128] bf16, 16-byte aligned
    void* y = nullptr;          // [rows, 128] bf16, 16-byte aligned
    float* rstd = nullptr;      // [rows] fp32
    float eps = 1e-6f;
    std::int64_t rows = 0;
    LoadHint loadHint = LoadHint::kReadOnly;
    StoreHint storeHint = StoreHint::kWriteBack;
    void* stream = nullptr;     // cudaStream_t / hipStream_t
};

using Launcher = void (*)(const LaunchArgs&);

// The launcher of one instantiated config, or nullptr if (blockRows, warps, stages) was not instantiated.
Launcher findLauncher(int blockRows, int warps, int stages);

// Threads per "warp" in the launch space: 32 on NVIDIA, 64 on AMD gfx9 (wave64).
int lanesPerWarp();

// x[i] = randomInputElement(seed, i) for i < elements.
void launchFillRandom(std::uint16_t* x, std::uint64_t elements, std::uint64_t seed, void* stream);
// Reads `bytes` (a multiple of 16) of `buffer` and writes one word of `sink` only if an impossible value shows up,
// so the reads cannot be optimised away. With a memset before it: the cold-L2 flush.
void launchReadAll(const void* buffer, std::uint64_t bytes, unsigned* sink, void* stream);
// One thread spins for `cycles` SM clock cycles (torch.cuda._sleep's spin): the device stays busy, with no memory
// traffic and L2 untouched, while the host queues what follows.
void launchSpin(std::uint64_t cycles, void* stream);

}  // namespace tunescope::l2norm
