#include "tunescope/base/canonical_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace tunescope {

namespace {

// I-JSON (RFC 7493 section 2.2): integers outside this range are not exactly interoperable.
constexpr std::int64_t kMaxExactInteger = (std::int64_t{1} << 53) - 1;
// Deeper nesting than this is not a profile; refusing it keeps the recursive writer off the stack limit.
constexpr std::size_t kMaxDepth = 512;

// A decimal number as significant digits (no leading or trailing zeros; empty means zero) and the exponent n
// such that the value is 0.<digits> x 10^n. Two numbers are equal exactly when both parts are.
struct DecimalDigits {
    std::string digits;
    long long pointPosition = 0;
    bool operator==(const DecimalDigits&) const = default;
};

// Shortest digits that read back as `value` (std::to_chars, like ECMAScript picks them). value must be finite.
DecimalDigits shortestDigits(double value) {
    DecimalDigits result;
    if (value == 0) return result;
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value), std::chars_format::scientific);
    if (ec != std::errc()) throw std::logic_error("to_chars failed");
    const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));  // d[.ddd]e(+|-)XX
    const std::size_t ePos = text.find('e');
    result.digits.push_back(text[0]);
    if (ePos > 1) result.digits.append(text.substr(2, ePos - 2));
    while (result.digits.size() > 1 && result.digits.back() == '0') result.digits.pop_back();
    const bool negativeExponent = text[ePos + 1] == '-';
    int exponent = 0;
    std::from_chars(text.data() + ePos + 2, text.data() + text.size(), exponent);
    result.pointPosition = (negativeExponent ? -exponent : exponent) + 1;
    return result;
}

// The exact decimal value of a JSON number token (grammar already checked by the parser).
DecimalDigits sourceDigits(std::string_view token) {
    std::size_t i = 0;
    if (i < token.size() && token[i] == '-') ++i;
    std::string mantissa;
    long long pointPosition = 0;
    for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i, ++pointPosition) mantissa.push_back(token[i]);
    if (i < token.size() && token[i] == '.')
        for (++i; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i) mantissa.push_back(token[i]);
    long long exponent = 0;
    if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < token.size() && (token[i] == '+' || token[i] == '-')) negative = token[i++] == '-';
        // Saturate: anything past a billion is out of any double's range anyway.
        for (; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i)
            exponent = std::min<long long>(exponent * 10 + (token[i] - '0'), 1'000'000'000);
        if (negative) exponent = -exponent;
    }
    DecimalDigits result;
    std::size_t first = 0;
    while (first < mantissa.size() && mantissa[first] == '0') { ++first; --pointPosition; }
    if (first == mantissa.size()) return result;  // zero
    std::size_t last = mantissa.size();
    while (last > first && mantissa[last - 1] == '0') --last;
    result.digits = mantissa.substr(first, last - first);
    result.pointPosition = pointPosition + exponent;
    return result;
}

bool isIntegerToken(std::string_view token) {
    return token.find_first_of(".eE") == std::string_view::npos;
}

// Decodes strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF) into UTF-16 code units.
bool utf8ToUtf16(std::string_view text, std::u16string& out) {
    out.clear();
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        char32_t codePoint = 0;
        std::size_t length = 0;
        char32_t minimum = 0;
        if (byte < 0x80) { codePoint = byte; length = 1; }
        else if ((byte & 0xe0) == 0xc0) { codePoint = byte & 0x1f; length = 2; minimum = 0x80; }
        else if ((byte & 0xf0) == 0xe0) { codePoint = byte & 0x0f; length = 3; minimum = 0x800; }
        else if ((byte & 0xf8) == 0xf0) { codePoint = byte & 0x07; length = 4; minimum = 0x10000; }
        else return false;
        if (i + length > text.size()) return false;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xc0) != 0x80) return false;
            codePoint = (codePoint << 6) | (next & 0x3f);
        }
        if (codePoint < minimum || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return false;
        if (codePoint >= 0x10000) {
            codePoint -= 0x10000;
            out.push_back(static_cast<char16_t>(0xd800 + (codePoint >> 10)));
            out.push_back(static_cast<char16_t>(0xdc00 + (codePoint & 0x3ff)));
        } else {
            out.push_back(static_cast<char16_t>(codePoint));
        }
        i += length;
    }
    return true;
}

// JCS string form (RFC 8785 section 3.2.2.2): only '"', '\\' and control characters are escaped.
void writeString(const std::string& text, std::string& out) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (byte < 0x20) {
                out += "\\u00";
                out.push_back(kHex[byte >> 4]);
                out.push_back(kHex[byte & 0x0f]);
            } else {
                out.push_back(c);
            }
        }
    }
    out.push_back('"');
}

class CanonicalWriter {
public:
    explicit CanonicalWriter(const std::string& fileName) : file_(fileName) {}

    void write(const Json& value, const std::string& pointer, std::size_t depth, std::string& out) {
        if (depth > kMaxDepth)
            throw Error(file_, pointer, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        switch (value.type()) {
        case Json::value_t::null: out += "null"; return;
        case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
        case Json::value_t::number_integer: {
            const auto number = value.get<std::int64_t>();
            if (number > kMaxExactInteger || number < -kMaxExactInteger) throw integerOutOfRange(pointer, std::to_string(number));
            out += std::to_string(number);
            return;
        }
        case Json::value_t::number_unsigned: {
            const auto number = value.get<std::uint64_t>();
            if (number > static_cast<std::uint64_t>(kMaxExactInteger)) throw integerOutOfRange(pointer, std::to_string(number));
            out += std::to_string(number);
            return;
        }
        case Json::value_t::number_float: {
            const double number = value.get<double>();
            if (!std::isfinite(number))
                throw Error(file_, pointer, std::string(std::isnan(number) ? "NaN" : "Infinity") +
                                                " has no canonical JSON form (RFC 8785 allows finite numbers only)");
            out += formatEcmaScriptNumber(number);
            return;
        }
        case Json::value_t::string: {
            const auto& text = value.get_ref<const std::string&>();
            if (!utf8ToUtf16(text, scratch_)) throw Error(file_, pointer, "string is not valid UTF-8");
            writeString(text, out);
            return;
        }
        case Json::value_t::array: {
            out.push_back('[');
            std::size_t index = 0;
            for (const auto& element : value) {
                if (index > 0) out.push_back(',');
                write(element, jsonPointerAppend(pointer, index), depth + 1, out);
                ++index;
            }
            out.push_back(']');
            return;
        }
        case Json::value_t::object: {
            struct Member {
                std::u16string sortKey;
                const std::string* key;
                const Json* value;
            };
            std::vector<Member> members;
            members.reserve(value.size());
            for (auto it = value.begin(); it != value.end(); ++it) {
                std::u16string sortKey;
                if (!utf8ToUtf16(it.key(), sortKey))
                    throw Error(file_, jsonPointerAppend(pointer, it.key()), "key is not valid UTF-8");
                members.push_back({std::move(sortKey), &it.key(), &it.value()});
            }
            // RFC 8785 section 3.2.3: sort by UTF-16 code units (not code points, not UTF-8 bytes).
            std::sort(members.begin(), members.end(),
                      [](const Member& a, const Member& b) { return a.sortKey < b.sortKey; });
            out.push_back('{');
            for (std::size_t i = 0; i < members.size(); ++i) {
                if (i > 0) out.push_back(',');
                writeString(*members[i].key, out);
                out.push_back(':');
                write(*members[i].value, jsonPointerAppend(pointer, *members[i].key), depth + 1, out);
            }
            out.push_back('}');
            return;
        }
        case Json::value_t::binary:
        case Json::value_t::discarded:
            break;
        }
        throw Error(file_, pointer, "value of type " + jsonTypeName(value) + " has no JSON text form");
    }

private:
    Error integerOutOfRange(const std::string& pointer, const std::string& number) const {
        return Error(file_, pointer,
                     "integer " + number +
                         " is outside the exactly representable range -(2^53-1)..2^53-1 (I-JSON); store it as a string");
    }

    const std::string& file_;
    std::u16string scratch_;
};

// Walks the text once through nlohmann's SAX interface, which is the only place the source text of each number
// is still visible, and refuses what canonicalisation would silently change: inexact numbers, duplicate keys.
class SourceChecker : public nlohmann::json_sax<Json> {
public:
    SourceChecker(std::string_view text, const std::string& file, std::vector<Error>* collected = nullptr)
        : text_(text), file_(file), collected_(collected) {}

    bool null() override { nextValuePointer(); return true; }
    bool boolean(bool) override { nextValuePointer(); return true; }
    bool number_integer(number_integer_t value) override {
        const std::string pointer = nextValuePointer();
        if (value > kMaxExactInteger || value < -kMaxExactInteger) report(integerOutOfRange(pointer, std::to_string(value)));
        return true;
    }
    bool number_unsigned(number_unsigned_t value) override {
        const std::string pointer = nextValuePointer();
        if (value > static_cast<std::uint64_t>(kMaxExactInteger)) report(integerOutOfRange(pointer, std::to_string(value)));
        return true;
    }
    bool number_float(number_float_t value, const string_t& token) override {
        const std::string pointer = nextValuePointer();
        // Integers too long for 64 bits arrive here as doubles.
        if (isIntegerToken(token)) return report(integerOutOfRange(pointer, token));
        const DecimalDigits source = sourceDigits(token);
        if (!source.digits.empty() && value == 0)
            return report(Error(file_, pointer, "number " + token + " is too small for a 64-bit double (it would become 0)"));
        if (!(shortestDigits(value) == source))
            report(Error(file_, pointer,
                        "number " + token + " has more precision than a 64-bit double keeps (it would be read as " +
                            formatEcmaScriptNumber(value) +
                            "); write it with the digits a double keeps, or store it as a string"));
        return true;
    }
    bool string(string_t&) override { nextValuePointer(); return true; }
    bool binary(binary_t&) override { nextValuePointer(); return true; }
    bool start_object(std::size_t) override {
        open(nextValuePointer(), /*isArray=*/false);
        return true;
    }
    bool key(string_t& key) override {
        Frame& frame = frames_.back();
        if (!frame.keys.insert(key).second)
            report(Error(file_, jsonPointerAppend(frame.pointer, key),
                         "duplicate key \"" + key + "\" (I-JSON forbids it; which value counts would be a guess)"));
        frame.key = key;
        return true;
    }
    bool end_object() override { frames_.pop_back(); return true; }
    bool start_array(std::size_t) override {
        open(nextValuePointer(), /*isArray=*/true);
        return true;
    }
    bool end_array() override { frames_.pop_back(); return true; }
    bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& error) override {
        if (error.id == 406) {  // number overflow: the parser refuses it before number_float sees it
            std::size_t line = 0, column = 0;
            lineAndColumn(text_, position > 0 ? position - 1 : 0, line, column);
            overflowed_ = true;
            report(Error(file_, nextValuePointer(),
                         "number " + lastToken + " is too large for a 64-bit double (line " + std::to_string(line) +
                             ", column " + std::to_string(column) + ")"));
        }
        return false;  // syntax errors: the caller re-parses to report them with line and column
    }

    bool overflowed() const { return overflowed_; }

private:
    // Throws the fault, or keeps it and goes on when the caller collects every fault.
    bool report(Error error) {
        if (!collected_) throw error;
        collected_->push_back(std::move(error));
        return true;
    }

    struct Frame {
        std::string pointer;
        bool isArray = false;
        std::size_t nextIndex = 0;
        std::string key;
        std::unordered_set<std::string> keys;
    };

    std::string nextValuePointer() {
        if (frames_.empty()) return "";
        Frame& frame = frames_.back();
        if (frame.isArray) return jsonPointerAppend(frame.pointer, frame.nextIndex++);
        return jsonPointerAppend(frame.pointer, frame.key);
    }

    void open(std::string pointer, bool isArray) {
        if (frames_.size() >= kMaxDepth)
            throw Error(file_, pointer, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        frames_.push_back(Frame{std::move(pointer), isArray, 0, {}, {}});
    }

    Error integerOutOfRange(const std::string& pointer, const std::string& number) const {
        return Error(file_, pointer,
                     "integer " + number +
                         " is outside the exactly representable range -(2^53-1)..2^53-1 (I-JSON); store it as a string");
    }

    std::string_view text_;
    const std::string& file_;
    std::vector<Error>* collected_;
    std::vector<Frame> frames_;
    bool overflowed_ = false;
};

}  // namespace

std::string formatEcmaScriptNumber(double value) {
    if (!std::isfinite(value)) throw std::invalid_argument("NaN and Infinity have no JSON number form");
    if (value == 0) return "0";  // also -0 (ECMAScript prints it as "0")
    const DecimalDigits shortest = shortestDigits(value);
    const std::string& digits = shortest.digits;
    const long long k = static_cast<long long>(digits.size());
    const long long n = shortest.pointPosition;
    std::string out = value < 0 ? "-" : "";
    // ECMAScript Number::toString(x), steps for k digits and point position n.
    if (k <= n && n <= 21) {
        out += digits;
        out.append(static_cast<std::size_t>(n - k), '0');
    } else if (0 < n && n <= 21) {
        out += digits.substr(0, static_cast<std::size_t>(n));
        out += '.';
        out += digits.substr(static_cast<std::size_t>(n));
    } else if (-6 < n && n <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-n), '0');
        out += digits;
    } else {
        out += digits[0];
        if (k > 1) {
            out += '.';
            out += digits.substr(1);
        }
        const long long exponent = n - 1;
        out += exponent < 0 ? "e-" : "e+";
        out += std::to_string(exponent < 0 ? -exponent : exponent);
    }
    return out;
}

std::string canonicalize(const Json& value, const std::string& fileName) {
    std::string out;
    CanonicalWriter(fileName).write(value, "", 0, out);
    return out;
}

std::string canonicalizeJsonText(std::string_view text, const std::string& fileName) {
    SourceChecker checker(text, fileName);
    if (!Json::sax_parse(text, &checker)) {
        parseJson(text, fileName);  // throws the syntax error with line and column
        throw Error(fileName, "", "invalid JSON");
    }
    return canonicalize(parseJson(text, fileName), fileName);
}

std::vector<Error> jsonSourceFaults(std::string_view text, const std::string& fileName) {
    std::vector<Error> faults;
    SourceChecker checker(text, fileName, &faults);
    bool parsed = false;
    try {
        parsed = Json::sax_parse(text, &checker);
    } catch (const Error& e) {  // nesting too deep: the walk cannot go on
        faults.push_back(e);
        return faults;
    }
    if (!parsed && !checker.overflowed()) {
        try {
            parseJson(text, fileName);  // the syntax error with line and column
            faults.emplace_back(fileName, "", "invalid JSON");
        } catch (const Error& e) {
            faults.push_back(e);
        }
    }
    return faults;
}

std::string canonicalizeJsonFile(const std::filesystem::path& file) {
    return canonicalizeJsonText(readTextFile(file), file.string());
}

}  // namespace tunescope
