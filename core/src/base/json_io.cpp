#include "tunescope/base/json_io.hpp"

#include "reading_internal.hpp"
#include "tunescope/base/gz_io.hpp"
#include "tunescope/base/json_layout.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unordered_map>
#include <unistd.h>

namespace tunescope {
namespace fs = std::filesystem;

namespace detail {

void requireRegularFile(const fs::path& file) {
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (ec || !fs::exists(status)) throw Error(file.string(), "", "file not found");
    if (fs::is_directory(status)) throw Error(file.string(), "", "is a folder, not a file");
    if (!fs::is_regular_file(status)) throw Error(file.string(), "", "is not a regular file");
}

}  // namespace detail

std::string readTextFile(const fs::path& file, std::uintmax_t maxBytes) {
    const std::string name = file.string();
    detail::requireRegularFile(file);
    std::error_code ec;
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
    if (isGzip(text)) {  // .jsonl.gz / .json.gz archives read like the plain files, within the lower of two limits
        const std::uintmax_t inflated = maxInflatedBytes();
        if (inflated < maxBytes)
            return gunzip(text, inflated, name,
                          "the limit for gzip input (tunescope-cli --max-inflated-mib N raises it, up to " +
                              std::to_string(maxBytes >> 20) + " MiB for this kind of file)");
        return gunzip(text, maxBytes, name);
    }
    return text;
}

std::optional<std::size_t> findExcessiveNesting(std::string_view text, std::size_t maxDepth) {
    std::size_t depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth) return i;
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

namespace {

// Python writes float('inf') as the bare token Infinity. nlohmann refuses both that token and overflowing
// literals, so the tokens become same-length marker strings (a private-use code point the text does not
// contain) that the DOM builder turns back into +-infinity. Byte offsets, and so line/column, stay right.
struct InfinityMarkers {
    std::string positive, negative;  // the decoded marker strings
    std::string positiveToken, negativeToken;  // their JSON spelling: 8 and 9 bytes, like the tokens they replace
    std::string nan, nanToken;  // NaN (3 bytes) grows to 8: nanGrowthAt maps offsets back
    std::vector<std::size_t> nanGrowthAt;  // offsets in the prepared text just past each grown NaN marker

    std::size_t originalOffset(std::size_t preparedOffset) const {
        std::size_t grown = 0;
        for (const std::size_t at : nanGrowthAt)
            if (at <= preparedOffset) grown += 5;
        return preparedOffset >= grown ? preparedOffset - grown : 0;
    }
};

std::string utf8(unsigned codePoint) {
    std::string out;
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
    return out;
}

bool containsCodePoint(std::string_view text, unsigned codePoint) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "%04x", codePoint);
    const std::string lower = std::string("\\u") + escaped;
    std::string upper = lower;
    for (char& c : upper)
        if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    return text.find(utf8(codePoint)) != std::string_view::npos || text.find(lower) != std::string_view::npos ||
           text.find(upper) != std::string_view::npos;
}

std::string replaceNonFiniteTokens(std::string_view text, InfinityMarkers& markers) {
    unsigned codePoint = 0xE000;
    while (codePoint < 0xF8FD && (containsCodePoint(text, codePoint) || containsCodePoint(text, codePoint + 1) ||
                                  containsCodePoint(text, codePoint + 2)))
        codePoint += 3;
    char escaped[16];
    std::snprintf(escaped, sizeof escaped, "\\u%04X", codePoint);
    markers.positiveToken = std::string("\"") + escaped + "\"";
    std::snprintf(escaped, sizeof escaped, "\\u%04X", codePoint + 1);
    markers.negativeToken = std::string(" \"") + escaped + "\"";
    markers.positive = utf8(codePoint);
    markers.negative = utf8(codePoint + 1);
    std::snprintf(escaped, sizeof escaped, "\\u%04X", codePoint + 2);
    markers.nanToken = std::string("\"") + escaped + "\"";
    markers.nan = utf8(codePoint + 2);

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
        if (out.compare(i, 9, "-Infinity") == 0) {
            out.replace(i, 9, markers.negativeToken);
            i += 8;
        } else if (out.compare(i, 8, "Infinity") == 0) {
            out.replace(i, 8, markers.positiveToken);
            i += 7;
        } else if (out.compare(i, 3, "NaN") == 0) {
            out.replace(i, 3, markers.nanToken);
            i += 7;
            markers.nanGrowthAt.push_back(i + 1);
        }
    }
    return out;
}

// Builds the DOM through SAX so that a failure knows where it happened (line, column and JSON Pointer), nesting
// is bounded (serialising and walking are recursive), and duplicate keys can be refused.
class DomBuilder : public nlohmann::json_sax<Json> {
public:
    static constexpr std::size_t kMaxDepth = kMaxJsonDepth;

    DomBuilder(const JsonReadOptions& options, const InfinityMarkers* markers) : options_(options), markers_(markers) {}

    bool null() override { return add(Json(nullptr)); }
    bool boolean(bool value) override { return add(Json(value)); }
    bool number_integer(number_integer_t value) override { return add(Json(value)); }
    bool number_unsigned(number_unsigned_t value) override { return add(Json(value)); }
    bool number_float(number_float_t value, const string_t&) override { return add(Json(value)); }
    bool string(string_t& value) override {
        if (markers_) {
            if (value == markers_->positive) return add(Json(std::numeric_limits<double>::infinity()));
            if (value == markers_->negative) return add(Json(-std::numeric_limits<double>::infinity()));
            if (value == markers_->nan) return add(Json(std::numeric_limits<double>::quiet_NaN()));
        }
        return add(Json(std::move(value)));
    }
    bool binary(binary_t&) override { return fail("binary values are not JSON"); }
    bool start_object(std::size_t) override { return open(Json::object()); }
    bool start_array(std::size_t) override { return open(Json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& name) override {
        Frame& frame = stack_.back();
        frame.existingIndex = findMember(frame, name);
        frame.key = std::move(name);
        frame.haveKey = true;
        if (options_.rejectDuplicateKeys && frame.existingIndex) return fail("duplicate key \"" + frame.key + "\"");
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
        errorOffset_ = position;
        std::string what = e.what();
        // Keep nlohmann's explanation but drop its "[json.exception...] parse error at line ..." prefix.
        if (const auto pos = what.find(": syntax error"); pos != std::string::npos) what = what.substr(pos + 2);
        else if (const auto colon = what.rfind("] "); colon != std::string::npos) what = what.substr(colon + 2);
        error_ = what;
        pointerAtError_ = pointer();
        return false;
    }

    Json take() { return std::move(root_); }
    const std::string& error() const { return error_; }
    const std::string& pointerAtError() const { return pointerAtError_; }
    std::optional<std::size_t> errorOffset() const { return errorOffset_; }
    bool nestingTooDeep() const { return nestingTooDeep_; }

private:
    struct Frame {
        Json* container;
        std::string key;
        bool haveKey = false;
        std::optional<std::size_t> existingIndex;  // where `key` already is in this object (a duplicate), if it is
        // Member positions by name, built once an object grows past a few members: ordered_json looks names up
        // linearly, which made an object of n members cost n^2 to read (200k keys took minutes).
        std::unordered_map<std::string, std::size_t> index;
    };
    static constexpr std::size_t kLinearLookupLimit = 16;

    // ordered_map is a std::vector of members; its own operator[] takes names only.
    static Json::object_t::Container& memberVector(Json& object) { return object.get_ref<Json::object_t&>(); }

    static std::optional<std::size_t> findMember(Frame& frame, const std::string& name) {
        auto& members = memberVector(*frame.container);
        if (frame.index.empty() && members.size() > kLinearLookupLimit)
            for (std::size_t i = 0; i < members.size(); ++i) frame.index.emplace(members[i].first, i);
        if (!frame.index.empty()) {
            const auto it = frame.index.find(name);
            return it == frame.index.end() ? std::nullopt : std::optional<std::size_t>(it->second);
        }
        for (std::size_t i = 0; i < members.size(); ++i)
            if (members[i].first == name) return i;
        return std::nullopt;
    }

    Json* slotForNewValue(Json&& value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        Frame& frame = stack_.back();
        if (frame.container->is_array()) {
            frame.container->push_back(std::move(value));
            return &frame.container->back();
        }
        auto& members = memberVector(*frame.container);
        frame.haveKey = false;
        if (frame.existingIndex) {  // a repeated name (allowed here): the later value wins, in the first's place
            Json& slot = members[*frame.existingIndex].second;
            slot = std::move(value);
            return &slot;
        }
        if (!frame.index.empty()) frame.index.emplace(frame.key, members.size());
        // The vector's own append: ordered_map's emplace/operator[] would search the members again.
        members.emplace_back(frame.key, std::move(value));  // key kept: pointer() names open members
        return &members.back().second;
    }
    bool add(Json&& value) {
        slotForNewValue(std::move(value));
        return true;
    }
    bool open(Json&& container) {
        if (stack_.size() >= kMaxDepth) {
            error_ = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
            nestingTooDeep_ = true;
            return false;  // no pointer: it would be 512 levels long; parseJson adds the line and column
        }
        Json* slot = slotForNewValue(std::move(container));
        stack_.push_back(Frame{slot, {}, false, std::nullopt, {}});
        return true;
    }
    bool close() {
        stack_.pop_back();
        return true;
    }
    bool fail(const std::string& message) {
        error_ = message;
        pointerAtError_ = pointer();
        return false;
    }
    std::string pointer() const {
        std::string out;
        for (std::size_t i = 0; i < stack_.size(); ++i) {
            const Frame& frame = stack_[i];
            const bool inner = i + 1 < stack_.size();  // the next frame is the last element of this one
            if (frame.container->is_array()) {
                const std::size_t size = frame.container->size();
                out = jsonPointerAppend(out, inner ? size - 1 : size);
            } else if (frame.haveKey || inner) {
                out = jsonPointerAppend(out, frame.key);
            }
        }
        return out;
    }

    const JsonReadOptions& options_;
    const InfinityMarkers* markers_;
    Json root_;
    std::vector<Frame> stack_;
    std::string error_;
    std::string pointerAtError_;
    std::optional<std::size_t> errorOffset_;
    bool nestingTooDeep_ = false;
};

}  // namespace

Json parseJson(std::string_view text, const std::string& file, const JsonReadOptions& options) {
    // nlohmann takes a NUL byte for the end of its input and would ignore whatever follows it; JSON never holds one.
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
        std::size_t line = 0, column = 0;
        lineAndColumn(text, nul, line, column);
        throw Error(file, "", "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) +
                                  ": a NUL byte (JSON text never holds one)");
    }
    InfinityMarkers markers;
    const std::string prepared =
        options.allowNonFiniteTokens ? replaceNonFiniteTokens(text, markers) : std::string(text);
    DomBuilder builder(options, options.allowNonFiniteTokens ? &markers : nullptr);
    bool ok = false;
    try {
        ok = Json::sax_parse(prepared, &builder);
    } catch (const nlohmann::json::exception& e) {
        throw Error(file, builder.pointerAtError(), std::string("invalid JSON: ") + e.what());
    }
    if (ok) return builder.take();
    std::string where;
    if (builder.nestingTooDeep()) {
        // SAX callbacks carry no position; the bracket that went too deep is found again in the text.
        if (const auto bracket = findExcessiveNesting(text, DomBuilder::kMaxDepth)) {
            std::size_t line = 0, column = 0;
            lineAndColumn(text, *bracket, line, column);
            where = " at line " + std::to_string(line) + ", column " + std::to_string(column);
        }
    } else if (const auto offset = builder.errorOffset()) {
        // nlohmann's offset counts the bytes read, i.e. it points just past the offending character.
        std::size_t line = 0, column = 0;
        const std::size_t at = options.allowNonFiniteTokens ? markers.originalOffset(*offset) : *offset;
        lineAndColumn(text, at > 0 ? at - 1 : 0, line, column);
        where = " at line " + std::to_string(line) + ", column " + std::to_string(column);
    }
    throw Error(file, builder.pointerAtError(), "invalid JSON" + where + ": " + builder.error());
}

Json readJsonFile(const fs::path& file, const JsonReadOptions& options) {
    return parseJson(readTextFile(file, options.maxBytes), file.string(), options);
}

std::string dumpJson(const Json& value, int indent) {
    if (indent < 0) return serializeJson(value, JsonLayout{JsonLayout::Style::Compact, 0, false, nullptr});
    return serializeJson(value, JsonLayout::indented(indent));
}

namespace {
void syncFolder(const fs::path& dir) {
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}
fs::path folderOf(const fs::path& file) { return file.has_parent_path() ? file.parent_path() : fs::path("."); }
}  // namespace

StagedFile::StagedFile(fs::path file, std::string_view bytes, std::optional<unsigned> mode) : file_(std::move(file)) {
    const std::string name = file_.string();
    const fs::path dir = folderOf(file_);
    std::error_code ec;
    if (fs::is_directory(file_, ec)) throw Error(name, "", "cannot save: a folder of that name exists");
    if (!mode) {
        struct stat st {};
        mode = ::stat(file_.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? (st.st_mode & 07777) : 0644;
    }
    std::random_device rd;
    // Built by appending: GCC 12 warns falsely (-Wrestrict, its bug 105329) on "." + std::string&& at -O3.
    std::string tmpName = ".";
    tmpName += file_.filename().string();
    tmpName += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
    const fs::path tmp = dir / tmpName;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, *mode);
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
    if (::fchmod(fd, *mode) != 0) fail("chmod");
    if (::fsync(fd) != 0) fail("fsync");
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error(name, "", std::string("cannot save (close): ") + std::strerror(err));
    }
    temp_ = tmp;
}

StagedFile::~StagedFile() {
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void StagedFile::commit() {
    if (::rename(temp_.c_str(), file_.c_str()) != 0) {
        const int err = errno;
        throw Error(file_.string(), "", std::string("cannot save (rename): ") + std::strerror(err) +
                                            "; the previous file is unchanged");
    }
    committed_ = true;
    syncFolder(folderOf(file_));  // makes the rename itself durable
}

void writeFileAtomic(const fs::path& file, std::string_view bytes, std::optional<unsigned> mode) {
    StagedFile staged(file, bytes, mode);
    staged.commit();
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

void lineAndColumn(std::string_view text, std::size_t byteOffset, std::size_t& line, std::size_t& column) {
    line = 1;
    column = 1;
    const std::size_t end = std::min(byteOffset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') { ++line; column = 1; }
        else ++column;
    }
}

Json finiteOrNull(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json positiveOrNull(int value) { return value > 0 ? Json(value) : Json(nullptr); }

}  // namespace tunescope
