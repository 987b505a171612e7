#pragma once
// Errors that name what the user must fix: the file, the JSON Pointer inside it, and what is wrong.
#include <stdexcept>
#include <string>

namespace tunescope {

// Stable process exit codes shared by every CLI command; pipelines rely on them.
enum ExitCode : int {
    kExitOk = 0,
    kExitInvalid = 1,    // validation failed, signature bad, comparison failed
    kExitUsageOrIo = 2,  // bad arguments, unreadable/malformed input, I/O error
    kExitSkipped = 77,   // a test could not run here (no device), ctest's SKIP_RETURN_CODE
};

class Error : public std::runtime_error {
public:
    Error(std::string file, std::string jsonPath, std::string message)
        : std::runtime_error(format(file, jsonPath, message)),
          file_(std::move(file)), jsonPath_(std::move(jsonPath)), message_(std::move(message)) {}

    const std::string& file() const { return file_; }
    const std::string& jsonPath() const { return jsonPath_; }
    const std::string& message() const { return message_; }

private:
    static std::string format(const std::string& file, const std::string& path, const std::string& message) {
        std::string text;
        if (!file.empty()) text += file;
        if (!path.empty()) text += (text.empty() ? "" : ": ") + std::string("at ") + path;
        if (!text.empty()) text += ": ";
        return text + message;
    }
    std::string file_, jsonPath_, message_;
};

}  // namespace tunescope
