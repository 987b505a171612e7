#pragma once
// Shared by the formats tests (tst_profile, tst_report, tst_validation, tst_interop, tst_cli_profile).
#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <QtTest/QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tunescope/base/json_io.hpp"

namespace formats_test {

inline std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

// tests/data/formats/<name>
inline std::filesystem::path data(const std::string& name) {
    return std::filesystem::path(env("TUNESCOPE_TESTDATA")) / "formats" / name;
}

// profiles/<name> (the bundled copies of the seeds)
inline std::filesystem::path bundled(const std::string& name) {
    return std::filesystem::path(env("TUNESCOPE_PROFILES")) / name;
}

inline const std::string kProfileSeed = "fla-l2norm-gfx942-profile.json";
inline const std::string kReportSeed = "cublaslt-gb10-nvfp4-fc2-report.json";

// The read-only originals in ../shared/seeds when this checkout has them (developers and CI do).
inline std::filesystem::path sharedSeed(const std::string& name) {
    return std::filesystem::path(env("TUNESCOPE_SOURCE_DIR")) / ".." / "shared" / "seeds" / name;
}

inline std::string readBytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
}

inline tunescope::Json seedJson() { return tunescope::readJsonFile(bundled(kProfileSeed)); }

inline QString q(const std::string& text) { return QString::fromStdString(text); }
inline QString q(const std::filesystem::path& path) { return QString::fromStdString(path.string()); }

}  // namespace formats_test
