#pragma once
// The readers of results files and signatures take paths: each input is written to one temp file per process.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

inline std::filesystem::path fuzzInputFile(const std::uint8_t* data, std::size_t size, const char* suffix) {
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("tunescope-fuzz-" + std::to_string(::getpid()) + suffix);
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                  static_cast<std::streamsize>(size));
    return file;
}
