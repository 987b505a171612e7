#pragma once
// The byte layout of a JSON file, so that load + save writes the same bytes back.
//
// The seeds come in two layouts: the profile is Python's json.dump(indent=2); the cuBLASLt report is one line
// with a space inside every non-empty bracket ("{ "a": [ 1, 2 ] }"). detectJsonLayout() recognises those and the
// usual compact forms; serializeJson() writes a value in a layout with Python's number and string rules
// (ensure_ascii, repr() of floats, Infinity/NaN for non-finite values), so a file Python wrote round-trips exactly.
#include <string>
#include <string_view>

#include "tunescope/json_io.hpp"

namespace tunescope {

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

    static JsonLayout indented(int spaces = 2) { return JsonLayout{Style::Indented, spaces, false}; }
    friend bool operator==(const JsonLayout&, const JsonLayout&) = default;
};

// Guesses the layout a file was written in from its text (the first container that has members decides).
// Text that fits no known layout gets Indented with 2 spaces.
JsonLayout detectJsonLayout(std::string_view text);

// Writes `value` in `layout`. Floats as Python's repr() (1.0, 1e-06, 1000000000000000.0, 1e+16), non-finite
// floats as Infinity / -Infinity / NaN (as Python does), strings with ensure_ascii escapes.
std::string serializeJson(const Json& value, const JsonLayout& layout = {});

// Python's repr() of a double ("1.0", "1e-06", "inf" spelled as JSON's Infinity).
std::string formatPythonFloat(double value);

}  // namespace tunescope
