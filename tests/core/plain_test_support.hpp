#pragma once
// What the plain C++ tests of tests/core/ share (they run without Qt Test, so that the core's decisions are checked
// where a user's build has no Qt): a CHECK that counts failures instead of stopping, a fresh scratch folder per
// case, and the seed profile.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace tunescope::plain_test {

inline int g_failures = 0;  // main returns non-zero when any CHECK failed

// An empty folder of its own under the system's temporary folder: <prefix>-<pid>-<name>.
inline std::filesystem::path tempDir(const std::string& prefix, const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// The source tree (TUNESCOPE_SOURCE_DIR, set by CMake, else the working folder): committed fixtures and captures.
inline std::filesystem::path sourceDir() {
    const char* dir = std::getenv("TUNESCOPE_SOURCE_DIR");
    return dir ? std::filesystem::path(dir) : std::filesystem::path(".");
}

// The committed seed profile (TUNESCOPE_PROFILES, set by CMake, else ./profiles).
inline std::filesystem::path seedProfile() {
    const char* dir = std::getenv("TUNESCOPE_PROFILES");
    return std::filesystem::path(dir ? dir : "profiles") / "fla-l2norm-gfx942-profile.json";
}

}  // namespace tunescope::plain_test

#define CHECK(condition)                                                                                    \
    do {                                                                                                    \
        if (!(condition)) {                                                                                 \
            std::cerr << __FILE__ << ":" << __LINE__ << ": CHECK failed: " #condition << std::endl;         \
            ++::tunescope::plain_test::g_failures;                                                          \
        }                                                                                                   \
    } while (0)
