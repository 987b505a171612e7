#pragma once
// The parameter array of one captured Triton kernel launch (docs/fla-capture.md, section 10): the core has built the
// list (tunescope/device/triton_launch.hpp: which arguments Triton 3.6 passes, in which order, scalars encoded as its
// launcher stores them); here each entry becomes the `void*` cuLaunchKernel reads: the value's bytes, or a device
// pointer (a replay buffer plus the view's offset, or a scratch buffer). Host-only, no runtime calls.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/device.hpp"

namespace tunescope::triton {

struct PackedKernelParams {
    std::vector<std::uint64_t> pointers;  // one slot per parameter; used by the pointer ones
    std::vector<void*> slots;             // what the launch passes as kernelParams
};

// `buffer(i)` gives replay buffer i's device address and size. The values are read from `params`, which must outlive
// the result. Throws Error naming the parameter whose buffer is missing or whose view starts past its buffer.
inline PackedKernelParams packKernelParams(const std::vector<KernelParam>& params,
                                           const std::function<std::pair<std::uint64_t, std::uint64_t>(int)>& buffer,
                                           std::uint64_t globalScratch, std::uint64_t profileScratch) {
    PackedKernelParams packed;
    packed.pointers.assign(params.size(), 0);  // sized once: slots point into it
    for (std::size_t i = 0; i < params.size(); ++i) {
        const KernelParam& p = params[i];
        switch (p.kind) {
            case KernelParam::Kind::Value:
                packed.slots.push_back(const_cast<std::uint8_t*>(p.bytes.data()));
                continue;
            case KernelParam::Kind::Buffer: {
                const auto [address, size] = buffer(p.buffer);
                if (address == 0 || p.byteOffset > size)
                    throw Error("", "", "parameter " + p.name + ": its replay buffer " + std::to_string(p.buffer) +
                                            " is missing or smaller than the view's offset");
                packed.pointers[i] = address + p.byteOffset;
                break;
            }
            case KernelParam::Kind::GlobalScratch: packed.pointers[i] = globalScratch; break;
            case KernelParam::Kind::ProfileScratch: packed.pointers[i] = profileScratch; break;
        }
        packed.slots.push_back(&packed.pointers[i]);
    }
    return packed;
}

}  // namespace tunescope::triton
