#include "tunescope/json_layout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tunescope {

namespace {

std::string quoted(const std::string& text) {
    // nlohmann's ensure_ascii escaping is Python's: \" \\ \b \f \n \r \t, other controls and non-ASCII as \uXXXX.
    return Json(text).dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

class Writer {
public:
    explicit Writer(const JsonLayout& layout) : layout_(layout) {}

    void write(const Json& value, int depth) {
        switch (value.type()) {
        case Json::value_t::object: writeObject(value, depth); break;
        case Json::value_t::array: writeArray(value, depth); break;
        case Json::value_t::string: out_ += quoted(value.get_ref<const std::string&>()); break;
        case Json::value_t::number_float: out_ += formatPythonFloat(value.get<double>()); break;
        case Json::value_t::number_integer: out_ += std::to_string(value.get<std::int64_t>()); break;
        case Json::value_t::number_unsigned: out_ += std::to_string(value.get<std::uint64_t>()); break;
        case Json::value_t::boolean: out_ += value.get<bool>() ? "true" : "false"; break;
        case Json::value_t::null:
        case Json::value_t::binary:
        case Json::value_t::discarded: out_ += "null"; break;
        }
    }

    std::string take() { return std::move(out_); }

private:
    void newline(int depth) {
        out_ += '\n';
        out_.append(static_cast<std::size_t>(depth) * static_cast<std::size_t>(layout_.indent), ' ');
    }

    const char* itemSeparator() const {
        switch (layout_.style) {
        case JsonLayout::Style::Indented: return ",";
        case JsonLayout::Style::Compact: return ",";
        case JsonLayout::Style::SpacedInline:
        case JsonLayout::Style::PythonInline: return ", ";
        }
        return ",";
    }
    const char* keySeparator() const { return layout_.style == JsonLayout::Style::Compact ? ":" : ": "; }

    template <typename WriteItem>
    void writeContainer(char open, char close, std::size_t count, int depth, WriteItem writeItem) {
        out_ += open;
        if (count == 0) {
            out_ += close;
            return;
        }
        const bool indented = layout_.style == JsonLayout::Style::Indented;
        const bool spaced = layout_.style == JsonLayout::Style::SpacedInline;
        if (spaced) out_ += ' ';
        for (std::size_t i = 0; i < count; ++i) {
            if (i > 0) out_ += itemSeparator();
            if (indented) newline(depth + 1);
            writeItem(i);
        }
        if (indented) newline(depth);
        if (spaced) out_ += ' ';
        out_ += close;
    }

    void writeObject(const Json& value, int depth) {
        std::vector<const std::pair<const std::string, Json>*> members;
        members.reserve(value.size());
        for (const auto& member : value.get_ref<const Json::object_t&>()) members.push_back(&member);
        writeContainer('{', '}', members.size(), depth, [&](std::size_t i) {
            out_ += quoted(members[i]->first);
            out_ += keySeparator();
            write(members[i]->second, depth + 1);
        });
    }

    void writeArray(const Json& value, int depth) {
        const auto& items = value.get_ref<const Json::array_t&>();
        writeContainer('[', ']', items.size(), depth, [&](std::size_t i) { write(items[i], depth + 1); });
    }

    const JsonLayout& layout_;
    std::string out_;
};

}  // namespace

std::string formatPythonFloat(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    // Shortest round-trip digits in scientific form, e.g. "-1.2345e+17" or "5e-324".
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    std::string_view sci(buffer, static_cast<std::size_t>(result.ptr - buffer));
    std::string sign;
    if (!sci.empty() && sci.front() == '-') {
        sign = "-";
        sci.remove_prefix(1);
    }
    const auto ePos = sci.find('e');
    const std::string_view mantissa = sci.substr(0, ePos);
    const int exponent = std::atoi(std::string(sci.substr(ePos + 1)).c_str());
    std::string digits;
    for (const char c : mantissa)
        if (c != '.') digits += c;
    // Python's repr: decimal point position decpt (value = 0.DIGITS * 10^decpt); plain form when -4 < decpt <= 16.
    const int decpt = exponent + 1;
    const int count = static_cast<int>(digits.size());
    std::string text;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            text = "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
        } else if (decpt >= count) {
            text = digits + std::string(static_cast<std::size_t>(decpt - count), '0') + ".0";
        } else {
            text = digits.substr(0, static_cast<std::size_t>(decpt)) + "." + digits.substr(static_cast<std::size_t>(decpt));
        }
    } else {
        text = digits.substr(0, 1);
        if (count > 1) text += "." + digits.substr(1);
        const int shown = decpt - 1;
        text += shown < 0 ? "e-" : "e+";
        const std::string magnitude = std::to_string(shown < 0 ? -shown : shown);
        if (magnitude.size() < 2) text += '0';
        text += magnitude;
    }
    return sign + text;
}

std::string serializeJson(const Json& value, const JsonLayout& layout) {
    Writer writer(layout);
    writer.write(value, 0);
    std::string out = writer.take();
    if (layout.trailingNewline) out += '\n';
    return out;
}

JsonLayout detectJsonLayout(std::string_view text) {
    JsonLayout layout;
    layout.trailingNewline = !text.empty() && text.back() == '\n';
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            continue;
        }
        if (c != '{' && c != '[') continue;
        const std::size_t next = i + 1;
        if (next >= text.size()) break;
        // Skip empty containers: they look the same in every layout.
        std::size_t j = next;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\n' || text[j] == '\r' || text[j] == '\t')) ++j;
        if (j < text.size() && (text[j] == '}' || text[j] == ']')) continue;
        if (text[next] == '\n' || text[next] == '\r') {
            std::size_t k = next + (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n' ? 2 : 1);
            int spaces = 0;
            while (k < text.size() && text[k] == ' ') {
                ++spaces;
                ++k;
            }
            layout.style = JsonLayout::Style::Indented;
            // Deeper indents are not a layout anyone writes; capping keeps a hostile file from blowing up on save.
            layout.indent = std::min(spaces, 64);
            return layout;
        }
        if (text[next] == ' ') {
            layout.style = JsonLayout::Style::SpacedInline;
            return layout;
        }
        // Inline without inner padding: the separators decide between json.dumps() and compact.
        bool quoted = false;
        for (std::size_t k = next; k < text.size(); ++k) {
            const char d = text[k];
            if (quoted) {
                if (d == '\\') ++k;
                else if (d == '"') quoted = false;
                continue;
            }
            if (d == '"') {
                quoted = true;
                continue;
            }
            if (d == ':' || d == ',') {
                const bool spaceAfter = k + 1 < text.size() && text[k + 1] == ' ';
                layout.style = spaceAfter ? JsonLayout::Style::PythonInline : JsonLayout::Style::Compact;
                return layout;
            }
        }
        layout.style = JsonLayout::Style::Compact;
        return layout;
    }
    return layout;
}

}  // namespace tunescope
