#pragma once
// RFC 8785 (JSON Canonicalization Scheme, JCS): the one byte form of a JSON value that `hash --canonical`
// digests and that profile signatures cover. Object members are sorted by the UTF-16 code units of their keys,
// there is no whitespace, strings carry only the escapes JCS requires, numbers are written as ECMAScript's
// Number.prototype.toString writes them.
//
// Numbers (TuneScope's decision, see docs/signing.md): integers must lie within I-JSON's exact range
// -(2^53-1)..2^53-1; finite non-integers are accepted and written in ECMAScript form; NaN/Infinity are errors.
// canonicalizeJsonText() additionally refuses any number whose source text a double cannot reproduce (more
// significant digits than a double keeps, overflow, underflow) and duplicate object keys: signing such a
// file would sign something other than what the file says.
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"

namespace tunescope {

// Canonical bytes of an already parsed value. Throws Error(fileName, JSON Pointer, ...) for NaN/Infinity,
// integers outside -(2^53-1)..2^53-1 and strings (keys or values) that are not valid UTF-8.
std::string canonicalize(const Json& value, const std::string& fileName = "");

// Parses JSON text and returns its canonical bytes. On top of canonicalize()'s rules, throws Error naming the
// file, the JSON Pointer and line/column for: syntax errors, duplicate keys, and numbers whose source text a
// double cannot hold exactly (e.g. 0.10000000000000000001, 1e400, 1e-400, 123456789012345678901).
std::string canonicalizeJsonText(std::string_view text, const std::string& fileName);

// Every fault canonicalizeJsonText would refuse the text for, not only the first, in text order: duplicate keys,
// numbers a double cannot hold exactly, integers outside -(2^53-1)..2^53-1; a syntax error or nesting deeper than
// 512 levels ends the list. Empty when every value of the text canonicalises as written.
std::vector<Error> jsonSourceFaults(std::string_view text, const std::string& fileName);

// Reads a file (readTextFile rules: missing, folder, unreadable, too big are Errors) and canonicalises it.
std::string canonicalizeJsonFile(const std::filesystem::path& file);

// ECMAScript Number.prototype.toString of a finite double (RFC 8785 section 3.2.2.3): shortest round-trip
// digits, plain decimal for 1e-7 < |x| < 1e21, exponent form "de+N"/"d.ddde-N" otherwise, -0 as "0".
// Throws std::invalid_argument for NaN/Infinity.
std::string formatEcmaScriptNumber(double value);

}  // namespace tunescope
