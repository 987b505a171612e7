#include "tunescope/device/plugin_folders.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#ifndef TUNESCOPE_BACKEND_DIR
#define TUNESCOPE_BACKEND_DIR ""
#endif

namespace tunescope {

namespace fs = std::filesystem;

std::vector<fs::path> pluginFolders(const std::string& exeDir) {
    std::vector<fs::path> folders;
    if (const char* fromEnvironment = std::getenv("TUNESCOPE_PLUGIN_DIR"); fromEnvironment && *fromEnvironment)
        folders.emplace_back(fromEnvironment);
    fs::path executableFolder = exeDir;
    if (executableFolder.empty()) {
        std::error_code error;
        const fs::path executable = fs::read_symlink("/proc/self/exe", error);
        if (!error) executableFolder = executable.parent_path();
    }
    if (!executableFolder.empty()) {
        folders.push_back(executableFolder.parent_path() / "lib" / "tunescope");
        folders.push_back(executableFolder.parent_path() / "lib");
    }
    if (*TUNESCOPE_BACKEND_DIR) folders.emplace_back(TUNESCOPE_BACKEND_DIR);
    // The same folder reached twice (the build's bin/../lib is its lib) is searched and reported once.
    std::vector<fs::path> unique;
    for (const fs::path& folder : folders) {
        const fs::path normal = folder.lexically_normal();
        if (std::find(unique.begin(), unique.end(), normal) == unique.end()) unique.push_back(normal);
    }
    return unique;
}

}  // namespace tunescope
