// Where the core looks for its run-time plugins (the CUDA/HIP device backends and the cuBLASLt explorer).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tunescope {

// In order, each folder once: $TUNESCOPE_PLUGIN_DIR, <executable's folder>/../lib/tunescope (an installed tree:
// `cmake --install`), <executable's folder>/../lib (a build tree) and the build's own library folder. exeDir empty:
// the running executable's folder (/proc/self/exe).
std::vector<std::filesystem::path> pluginFolders(const std::string& exeDir = {});

}  // namespace tunescope
