#include "tunescope/base/json_layout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

namespace tunescope {

namespace {

std::string quoted(const std::string& text) {
    // nlohmann's ensure_ascii escaping is Python's: \" \\ \b \f \n \r \t, other controls and non-ASCII as \uXXXX.
    return Json(text).dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

// Follows the text of a document that already parsed: records where each value starts and ends.
class SpanScanner {
public:
    SpanScanner(std::string_view text, JsonSource& out) : text_(text), out_(out) {}
    bool run() {
        skipSpace();
        if (!value("", 0)) return false;
        skipSpace();
        return pos_ == text_.size();
    }

private:
    void skipSpace() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
            ++pos_;
    }
    bool string(std::string* decoded) {
        const std::size_t start = pos_;
        if (pos_ >= text_.size() || text_[pos_] != '"') return false;
        bool escaped = false;
        for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_)
            if (text_[pos_] == '\\') {
                escaped = true;
                ++pos_;
            }
        if (pos_ >= text_.size()) return false;
        ++pos_;
        if (decoded) {
            const std::string_view quoted = text_.substr(start, pos_ - start);
            if (!escaped) *decoded = std::string(quoted.substr(1, quoted.size() - 2));
            else {
                const Json name = Json::parse(quoted, nullptr, /*allow_exceptions=*/false);
                if (!name.is_string()) return false;
                *decoded = name.get<std::string>();
            }
        }
        return true;
    }
    bool value(const std::string& pointer, int depth) {
        const std::size_t start = pos_;
        if (pos_ >= text_.size()) return false;
        const bool record = depth >= 1 && depth <= JsonSource::kMaxDepth;  // not the root: a save of a changed
                                                                             // document parses each level once
        const char c = text_[pos_];
        if (c == '{' || c == '[') {
            if (!record && depth > 0) return skipContainer();
            ++pos_;
            skipSpace();
            const char close = c == '{' ? '}' : ']';
            std::size_t index = 0;
            if (pos_ < text_.size() && text_[pos_] == close) {
                ++pos_;
            } else {
                while (true) {
                    std::string child;
                    if (c == '{') {
                        std::string name;
                        if (!string(&name)) return false;
                        skipSpace();
                        if (pos_ >= text_.size() || text_[pos_] != ':') return false;
                        ++pos_;
                        skipSpace();
                        child = jsonPointerAppend(pointer, name);
                    } else {
                        child = jsonPointerAppend(pointer, index++);
                    }
                    if (!value(child, depth + 1)) return false;
                    skipSpace();
                    if (pos_ >= text_.size()) return false;
                    if (text_[pos_] == ',') {
                        ++pos_;
                        skipSpace();
                        continue;
                    }
                    if (text_[pos_] != close) return false;
                    ++pos_;
                    break;
                }
            }
        } else if (c == '"') {
            if (!string(nullptr)) return false;
        } else {  // number, true, false, null, Infinity, NaN: up to the next delimiter
            while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
                   text_[pos_] != ' ' && text_[pos_] != '\n' && text_[pos_] != '\r' && text_[pos_] != '\t')
                ++pos_;
        }
        if (record) out_.spans.emplace(pointer, std::make_pair(start, pos_ - start));
        return true;
    }
    bool skipContainer() {  // iterative: depth beyond the recorded levels costs no stack
        std::size_t depth = 0;
        for (; pos_ < text_.size(); ++pos_) {
            const char c = text_[pos_];
            if (c == '"') {
                if (!string(nullptr)) return false;
                --pos_;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    ++pos_;
                    return true;
                }
            }
        }
        return false;
    }

    std::string_view text_;
    JsonSource& out_;
    std::size_t pos_ = 0;
};

class Writer {
public:
    explicit Writer(const JsonLayout& layout) : layout_(layout) {}

    void write(const Json& value, int depth, const std::string* pointer = nullptr) {
        if (pointer && writeOriginal(value, *pointer)) return;
        switch (value.type()) {
        case Json::value_t::object: writeObject(value, depth, pointer); break;
        case Json::value_t::array: writeArray(value, depth, pointer); break;
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
    // Writes the value's original bytes when the source has them and they still say the same value.
    bool writeOriginal(const Json& value, const std::string& pointer) {
        const JsonSource* source = layout_.source.get();
        if (!source) return false;
        const auto it = source->spans.find(pointer);
        if (it == source->spans.end()) return false;
        const std::string_view original(source->text.data() + it->second.first, it->second.second);
        // Cheap refusals first: a scalar's type must match before its text is parsed.
        JsonReadOptions options;
        options.allowNonFiniteTokens = true;
        Json parsed;
        try {
            parsed = parseJson(original, "", options);
        } catch (const std::exception&) {
            return false;
        }
        if (parsed != value || parsed.type() != value.type()) return false;
        out_ += original;
        return true;
    }
    // Pointers are tracked only as deep as the source records spans.
    std::optional<std::string> childPointer(const std::string* parent, int depth, const std::string& name) const {
        if (!parent || !layout_.source || depth + 1 > JsonSource::kMaxDepth) return std::nullopt;
        return jsonPointerAppend(*parent, name);
    }
    std::optional<std::string> childPointer(const std::string* parent, int depth, std::size_t index) const {
        if (!parent || !layout_.source || depth + 1 > JsonSource::kMaxDepth) return std::nullopt;
        return jsonPointerAppend(*parent, index);
    }

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

    void writeObject(const Json& value, int depth, const std::string* pointer) {
        std::vector<const std::pair<const std::string, Json>*> members;
        members.reserve(value.size());
        for (const auto& member : value.get_ref<const Json::object_t&>()) members.push_back(&member);
        writeContainer('{', '}', members.size(), depth, [&](std::size_t i) {
            out_ += quoted(members[i]->first);
            out_ += keySeparator();
            const auto child = childPointer(pointer, depth, members[i]->first);
            write(members[i]->second, depth + 1, child ? &*child : nullptr);
        });
    }

    void writeArray(const Json& value, int depth, const std::string* pointer) {
        const auto& items = value.get_ref<const Json::array_t&>();
        writeContainer('[', ']', items.size(), depth, [&](std::size_t i) {
            const auto child = childPointer(pointer, depth, i);
            write(items[i], depth + 1, child ? &*child : nullptr);
        });
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
    const std::string root;
    // The root itself is never copied whole: a changed document must show its changes.
    writer.write(value, 0, layout.source ? &root : nullptr);
    std::string out = writer.take();
    if (layout.trailingNewline) out += '\n';
    return out;
}

namespace {
JsonLayout detectJsonStyle(std::string_view text) {
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

}  // namespace

JsonLayout detectJsonLayout(std::string_view text) {
    JsonLayout layout = detectJsonStyle(text);
    layout.source = indexJsonSource(text);
    return layout;
}

std::shared_ptr<const JsonSource> indexJsonSource(std::string_view text) {
    auto source = std::make_shared<JsonSource>();
    source->text = std::string(text);
    if (!SpanScanner(source->text, *source).run()) return nullptr;
    return source;
}

}  // namespace tunescope
