#include "tunescope/json_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tunescope {
namespace fs = std::filesystem;

std::string readTextFile(const fs::path& file, std::uintmax_t maxBytes) {
    const std::string name = file.string();
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (ec || !fs::exists(status)) throw Error(name, "", "file not found");
    if (fs::is_directory(status)) throw Error(name, "", "is a folder, not a file");
    if (!fs::is_regular_file(status)) throw Error(name, "", "is not a regular file");
    const auto size = fs::file_size(file, ec);
    if (ec) throw Error(name, "", "cannot read its size: " + ec.message());
    if (size > maxBytes)
        throw Error(name, "", "is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(maxBytes) +
                                  " bytes for this kind of file");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(name, "", std::string("cannot open for reading: ") + std::strerror(errno));
    std::string text;
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.gcount() != static_cast<std::streamsize>(size)) throw Error(name, "", "read failed (file changed while reading?)");
    return text;
}

namespace {

// Replaces the bare tokens Infinity / -Infinity outside strings with same-length overflowing literals, so byte
// offsets (and thus line/column in errors) stay right. NaN has no JSON literal form and stays an error.
std::string replaceNonFiniteTokens(std::string_view text) {
    std::string out(text);
    bool inString = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') { inString = true; continue; }
        if (out.compare(i, 8, "Infinity") == 0) {
            out.replace(i, 8, "1e999   ");
            i += 7;
        }
    }
    return out;
}

void lineAndColumn(std::string_view text, std::size_t byteOffset, std::size_t& line, std::size_t& column) {
    line = 1;
    column = 1;
    const std::size_t end = std::min(byteOffset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') { ++line; column = 1; }
        else ++column;
    }
}

}  // namespace

Json parseJson(std::string_view text, const std::string& file, const JsonReadOptions& options) {
    const std::string prepared = options.allowNonFiniteTokens ? replaceNonFiniteTokens(text) : std::string(text);
    try {
        return Json::parse(prepared);
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's byte is 1-based and points just past the offending character.
        std::size_t line = 0, column = 0;
        lineAndColumn(text, e.byte > 0 ? e.byte - 1 : 0, line, column);
        std::string what = e.what();
        // Keep nlohmann's explanation but drop its "[json.exception.parse_error.101] parse error at line..." prefix.
        if (const auto pos = what.find(": syntax error"); pos != std::string::npos) what = what.substr(pos + 2);
        else if (const auto colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
        throw Error(file, "", "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) +
                                  ": " + what);
    }
}

Json readJsonFile(const fs::path& file, const JsonReadOptions& options) {
    return parseJson(readTextFile(file, options.maxBytes), file.string(), options);
}

std::string dumpJson(const Json& value, int indent) {
    return value.dump(indent, ' ', /*ensure_ascii=*/true);
}

void writeFileAtomic(const fs::path& file, std::string_view bytes, unsigned mode) {
    const std::string name = file.string();
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    std::error_code ec;
    if (fs::is_directory(file, ec)) throw Error(name, "", "cannot save: a folder of that name exists");
    std::random_device rd;
    const fs::path tmp = dir / ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(rd()));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) throw Error(name, "", std::string("cannot save: cannot create a temp file in ") + dir.string() + ": " +
                                          std::strerror(errno));
    auto fail = [&](const char* what) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw Error(name, "", std::string("cannot save (") + what + "): " + std::strerror(err) +
                                  "; the previous file is unchanged");
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write");
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, mode) != 0) fail("chmod");
    if (::fsync(fd) != 0) fail("fsync");
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error(name, "", std::string("cannot save (close): ") + std::strerror(err));
    }
    if (::rename(tmp.c_str(), file.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error(name, "", std::string("cannot save (rename): ") + std::strerror(err) +
                                  "; the previous file is unchanged");
    }
    // Make the rename itself durable.
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::string jsonPointerAppend(const std::string& base, std::string_view token) {
    std::string out = base;
    out += '/';
    for (const char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string jsonPointerAppend(const std::string& base, std::size_t index) {
    return base + "/" + std::to_string(index);
}

std::string jsonTypeName(const Json& value) {
    switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::string: return "string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "number";
    case Json::value_t::object: return "object";
    case Json::value_t::array: return "array";
    case Json::value_t::binary: return "binary";
    case Json::value_t::discarded: return "discarded";
    }
    return "unknown";
}

}  // namespace tunescope
