#pragma once
// Reading and writing JSON files without losing anything: key order is kept (ordered_json), syntax errors
// carry line and column, and saves are atomic (temp file in the same folder, flushed, renamed).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tunescope/base/errors.hpp"

namespace tunescope {

using Json = nlohmann::ordered_json;

struct JsonReadOptions {
    // Python's json writes float('inf') as the bare token Infinity (Triton's autotune cache does); accept
    // Infinity, -Infinity and NaN outside strings and turn them into IEEE values.
    bool allowNonFiniteTokens = false;
    // Refuse an object that names the same key twice (which value would a reader believe?).
    bool rejectDuplicateKeys = false;
    // Refuse files larger than this before reading them (a 200 MB "profile" is a mistake, not a profile).
    std::uintmax_t maxBytes = 64ull << 20;
};

// Readers refuse JSON nested deeper than this: walking, copying and serialising values recurse.
inline constexpr std::size_t kMaxJsonDepth = 512;

// The byte offset of the bracket that opens level maxDepth + 1 (strings skipped), or nullopt when the text nests
// no deeper than maxDepth. Linear and allocation-free, so it can run before any parser builds a value.
std::optional<std::size_t> findExcessiveNesting(std::string_view text, std::size_t maxDepth = kMaxJsonDepth);
// The 1-based line and column of byte `byteOffset` of `text` (columns count bytes), for error messages.
void lineAndColumn(std::string_view text, std::size_t byteOffset, std::size_t& line, std::size_t& column);

// Reads a whole regular file; throws Error naming the file when it is missing, a folder, unreadable or too big.
std::string readTextFile(const std::filesystem::path& file, std::uintmax_t maxBytes = 64ull << 20);

// Parses text as JSON; throws Error with "line L, column C" for syntax errors. `file` names the source in messages.
Json parseJson(std::string_view text, const std::string& file, const JsonReadOptions& options = {});

Json readJsonFile(const std::filesystem::path& file, const JsonReadOptions& options = {});

// Serialises like Python's json.dump(indent=N, ensure_ascii=True): the byte form of the seeds (floats as
// Python's repr(), non-finite floats as Infinity/NaN; see json_layout.hpp for the other layouts).
std::string dumpJson(const Json& value, int indent = 2);

// Writes bytes to a temp file beside `file`, fsyncs it and renames it over `file`. On failure the old file is
// untouched and the temp file removed. `mode` applies to the new file (e.g. 0600 for private keys); without one,
// a replaced file keeps its permission bits (a 0600 profile stays 0600) and a new file gets 0644.
void writeFileAtomic(const std::filesystem::path& file, std::string_view bytes,
                     std::optional<unsigned> mode = std::nullopt);

// The two halves of writeFileAtomic, for replacing several files together: every file is written and flushed
// under a temp name first (slow, may fail: nothing visible has changed yet), then each commit() is one rename.
// A StagedFile never committed removes its temp file.
class StagedFile {
public:
    StagedFile(std::filesystem::path file, std::string_view bytes, std::optional<unsigned> mode = std::nullopt);
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;
    ~StagedFile();
    void commit();
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_, temp_;
    bool committed_ = false;
};

// Appends "/token" with RFC 6901 escaping (~ -> ~0, / -> ~1).
std::string jsonPointerAppend(const std::string& base, std::string_view token);
std::string jsonPointerAppend(const std::string& base, std::size_t index);

// Human-readable JSON type name for messages ("string", "integer", "number", "object", ...).
std::string jsonTypeName(const Json& value);

// Numbers that may be missing, written as null: a non-finite double (not JSON; readers of results files take null
// back as +inf), an int of 0 or less (not known, e.g. a shape's B and L when it came from --nb).
Json finiteOrNull(double value);
Json positiveOrNull(int value);

}  // namespace tunescope
