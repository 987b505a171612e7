#pragma once
// The byte layout of a JSON file, so that load + save writes the same bytes back.
//
// The seeds come in two layouts: the profile is Python's json.dump(indent=2); the cuBLASLt report is one line
// with a space inside every non-empty bracket ("{ "a": [ 1, 2 ] }"). detectJsonLayout() recognises those and the
// usual compact forms; serializeJson() writes a value in a layout with Python's number and string rules
// (ensure_ascii, repr() of floats, Infinity/NaN for non-finite values), so a file Python wrote round-trips exactly.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tunescope/base/json_io.hpp"

namespace tunescope {

// The text a document was read from, with the byte span of every value down to kMaxDepth levels (by JSON
// Pointer). A save writes an unchanged value as its original bytes: a compact member the reader does not know
// stays compact instead of being re-indented (a 198 KB nested one once became 61.8 MB).
struct JsonSource {
    static constexpr int kMaxDepth = 3;
    std::string text;
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> spans;  // pointer -> (offset, length)
};
// Indexes text that parsed as JSON (Infinity/NaN tokens allowed). Returns null for text it cannot follow.
std::shared_ptr<const JsonSource> indexJsonSource(std::string_view text);

struct JsonLayout {
    enum class Style {
        Indented,      // json.dump(indent=N): one member per line, "key": value, no trailing spaces
        SpacedInline,  // one line, "{ "k": v, "k2": [ 1, 2 ] }", empty containers as {} and []
        PythonInline,  // json.dumps() default: {"k": v, "k2": [1, 2]}
        Compact,       // no whitespace at all: {"k":v}
    };
    Style style = Style::Indented;
    int indent = 2;                // spaces per level for Indented
    bool trailingNewline = false;  // whether the file ends with "\n" (Python's json.dump writes none)

    // The text it was read in: unchanged values are written back as they were. Null for a new document, and for
    // indented(), so that asking for a re-indent re-indents everything.
    std::shared_ptr<const JsonSource> source;

    static JsonLayout indented(int spaces = 2) { return JsonLayout{Style::Indented, spaces, false, nullptr}; }
    friend bool operator==(const JsonLayout& a, const JsonLayout& b) {
        return a.style == b.style && a.indent == b.indent && a.trailingNewline == b.trailingNewline;
    }
};

// Guesses the layout a file was written in from its text (the first container that has members decides).
// Text that fits no known layout gets Indented with 2 spaces.
// With the text's source index attached (see JsonSource).
JsonLayout detectJsonLayout(std::string_view text);

// Writes `value` in `layout`. Floats as Python's repr() (1.0, 1e-06, 1000000000000000.0, 1e+16), non-finite
// floats as Infinity / -Infinity / NaN (as Python does), strings with ensure_ascii escapes.
std::string serializeJson(const Json& value, const JsonLayout& layout = {});

// Python's repr() of a double ("1.0", "1e-06", "inf" spelled as JSON's Infinity).
std::string formatPythonFloat(double value);

}  // namespace tunescope
