#pragma once
// Private helpers shared by the typed models (profile, report, FLA and Triton files): typed field access with
// messages that name the file and the JSON Pointer, and write-back that leaves unchanged values byte-identical.
//
// A reader either throws the first problem as tunescope::Error (loading) or collects them all (validation).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"

namespace tunescope::detail {

enum class Need { Required, Optional };

struct ReadIssue {
    std::string rule;
    std::string path;
    std::string message;
};

inline constexpr std::int64_t kIntMin = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kIntMax = std::numeric_limits<std::int64_t>::max();

class ModelReader {
public:
    ModelReader(std::string file, bool collect) : file_(std::move(file)), collect_(collect) {}

    const std::string& file() const { return file_; }
    const std::vector<ReadIssue>& issues() const { return issues_; }

    void fail(const std::string& path, const std::string& message, const std::string& rule = "schema") {
        if (!collect_) throw Error(file_, path, message);
        issues_.push_back(ReadIssue{rule, path, message});
    }

    // The member `key` of `object`, or nullptr when it is absent (a problem if required).
    const Json* member(const Json& object, const std::string& path, std::string_view key, Need need) {
        if (object.is_object()) {
            const auto it = object.find(std::string(key));
            if (it != object.end()) return &*it;
        }
        if (need == Need::Required)
            fail(jsonPointerAppend(path, key), "required field \"" + std::string(key) + "\" is missing");
        return nullptr;
    }

    bool isObject(const Json& value, const std::string& path) {
        if (value.is_object()) return true;
        fail(path, "expected an object, got " + describe(value));
        return false;
    }
    bool isArray(const Json& value, const std::string& path) {
        if (value.is_array()) return true;
        fail(path, "expected an array, got " + describe(value));
        return false;
    }

    std::optional<std::string> asString(const Json& value, const std::string& path) {
        if (value.is_string()) return value.get<std::string>();
        fail(path, "expected a string, got " + describe(value));
        return std::nullopt;
    }
    std::optional<bool> asBool(const Json& value, const std::string& path) {
        if (value.is_boolean()) return value.get<bool>();
        fail(path, "expected true or false, got " + describe(value));
        return std::nullopt;
    }
    std::optional<std::int64_t> asInteger(const Json& value, const std::string& path, std::int64_t min = kIntMin,
                                          std::int64_t max = kIntMax) {
        std::int64_t result = 0;
        if (value.is_number_unsigned()) {
            const auto u = value.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(kIntMax)) {
                fail(path, "integer " + std::to_string(u) + " is out of range (" + range(min, max) + ")");
                return std::nullopt;
            }
            result = static_cast<std::int64_t>(u);
        } else if (value.is_number_integer()) {
            result = value.get<std::int64_t>();
        } else {
            fail(path, "expected an integer, got " + describe(value));
            return std::nullopt;
        }
        if (result < min || result > max) {
            fail(path, "integer " + std::to_string(result) + " is out of range (" + range(min, max) + ")");
            return std::nullopt;
        }
        return result;
    }
    std::optional<double> asNumber(const Json& value, const std::string& path) {
        if (!value.is_number()) {
            fail(path, "expected a number, got " + describe(value));
            return std::nullopt;
        }
        const double d = value.get<double>();
        if (!std::isfinite(d)) {
            fail(path, "expected a finite number, got " + describe(value) + " (NaN and Infinity are not allowed here)");
            return std::nullopt;
        }
        return d;
    }

    // Field access: absent optional fields give nullopt without a problem.
    std::optional<std::string> string(const Json& object, const std::string& path, std::string_view key,
                                      Need need = Need::Required) {
        const Json* v = member(object, path, key, need);
        return v ? asString(*v, jsonPointerAppend(path, key)) : std::nullopt;
    }
    std::optional<bool> boolean(const Json& object, const std::string& path, std::string_view key,
                                Need need = Need::Required) {
        const Json* v = member(object, path, key, need);
        return v ? asBool(*v, jsonPointerAppend(path, key)) : std::nullopt;
    }
    std::optional<std::int64_t> integer(const Json& object, const std::string& path, std::string_view key,
                                        Need need = Need::Required, std::int64_t min = kIntMin,
                                        std::int64_t max = kIntMax) {
        const Json* v = member(object, path, key, need);
        return v ? asInteger(*v, jsonPointerAppend(path, key), min, max) : std::nullopt;
    }
    std::optional<double> number(const Json& object, const std::string& path, std::string_view key,
                                 Need need = Need::Required) {
        const Json* v = member(object, path, key, need);
        return v ? asNumber(*v, jsonPointerAppend(path, key)) : std::nullopt;
    }
    // A value that may be null (or absent): nullopt for both.
    std::optional<std::string> nullableString(const Json& object, const std::string& path, std::string_view key) {
        const Json* v = member(object, path, key, Need::Optional);
        if (!v || v->is_null()) return std::nullopt;
        return asString(*v, jsonPointerAppend(path, key));
    }
    std::optional<std::int64_t> nullableInteger(const Json& object, const std::string& path, std::string_view key,
                                                std::int64_t min = kIntMin, std::int64_t max = kIntMax) {
        const Json* v = member(object, path, key, Need::Optional);
        if (!v || v->is_null()) return std::nullopt;
        return asInteger(*v, jsonPointerAppend(path, key), min, max);
    }
    // An array of integers (e.g. [12, 1]).
    std::optional<std::vector<std::int64_t>> integerList(const Json& object, const std::string& path,
                                                         std::string_view key, Need need = Need::Optional) {
        const Json* v = member(object, path, key, need);
        if (!v) return std::nullopt;
        const std::string at = jsonPointerAppend(path, key);
        if (!isArray(*v, at)) return std::nullopt;
        std::vector<std::int64_t> out;
        for (std::size_t i = 0; i < v->size(); ++i) {
            const auto item = asInteger((*v)[i], jsonPointerAppend(at, i));
            if (!item) return std::nullopt;
            out.push_back(*item);
        }
        return out;
    }
    // The member as an object (nullptr if absent or not an object; the latter is a problem).
    const Json* object(const Json& parent, const std::string& path, std::string_view key, Need need = Need::Required) {
        const Json* v = member(parent, path, key, need);
        if (v && !isObject(*v, jsonPointerAppend(path, key))) return nullptr;
        return v;
    }
    const Json* array(const Json& parent, const std::string& path, std::string_view key, Need need = Need::Required) {
        const Json* v = member(parent, path, key, need);
        if (v && !isArray(*v, jsonPointerAppend(path, key))) return nullptr;
        return v;
    }

    static std::string describe(const Json& value) {
        if (value.is_null()) return "null";
        std::string text = value.is_string() ? "string " : value.is_object() ? "an object"
                           : value.is_array()                     ? "an array"
                                                                  : jsonTypeName(value) + " ";
        if (!value.is_object() && !value.is_array()) {
            std::string shown = value.dump(-1, ' ', true, Json::error_handler_t::replace);
            if (value.is_number_float() && !std::isfinite(value.get<double>()))
                shown = std::isnan(value.get<double>()) ? "NaN" : value.get<double>() > 0 ? "Infinity" : "-Infinity";
            if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
            text += shown;
        }
        return text;
    }

private:
    static std::string range(std::int64_t min, std::int64_t max) {
        if (min == kIntMin && max == kIntMax) return "must fit in 64 bits";
        if (max == kIntMax) return "must be at least " + std::to_string(min);
        if (min == kIntMin) return "must be at most " + std::to_string(max);
        return "must be " + std::to_string(min) + ".." + std::to_string(max);
    }

    std::string file_;
    bool collect_;
    std::vector<ReadIssue> issues_;
};

// Write-back: keeps the original bytes of values that did not change (e.g. 1 vs 1.0, or member order).
inline void put(Json& object, const std::string& key, const Json& value) {
    if (!object.is_object()) object = Json::object();
    const auto it = object.find(key);
    if (it != object.end()) {
        if (*it == value && it->type() == value.type()) return;
        // An integer-valued float written where the original had the same number as an integer stays as is.
        if (*it == value && it->is_number() && value.is_number()) return;
        *it = value;
        return;
    }
    object[key] = value;
}

template <typename T>
void putOptional(Json& object, const std::string& key, const std::optional<T>& value) {
    if (value) put(object, key, Json(*value));
    else if (object.is_object() && object.contains(key)) object.erase(key);
}

// For fields whose JSON may be null: nullopt writes null when the key was there, and leaves an absent key absent.
template <typename T>
void putNullable(Json& object, const std::string& key, const std::optional<T>& value) {
    if (value) put(object, key, Json(*value));
    else if (object.is_object() && object.contains(key) && !object[key].is_null()) object[key] = nullptr;
}

inline Json objectOrEmpty(const Json& value) { return value.is_object() ? value : Json::object(); }

}  // namespace tunescope::detail
