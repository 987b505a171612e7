#pragma once
// Private: what base's readers share (json_io.cpp defines them): the checks before a file is opened.
#include <filesystem>

namespace tunescope::detail {

// Throws Error naming the file when it is missing, a folder or not a regular file.
void requireRegularFile(const std::filesystem::path& file);

}  // namespace tunescope::detail
