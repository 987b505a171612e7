#pragma once
// The CPU backend (always present): internal to the core; reach it through probeBackends()/openBackend("cpu").
#include <memory>

#include "tunescope/device/device.hpp"

namespace tunescope {
std::unique_ptr<Backend> makeCpuBackend();
}  // namespace tunescope
