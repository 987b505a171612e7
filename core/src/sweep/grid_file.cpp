#include "tunescope/sweep/grid_file.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"

namespace tunescope {

std::vector<L2NormConfig> gridFromLists(const std::vector<int>& bt, const std::vector<int>& warps,
                                        const std::vector<int>& stages) {
    std::vector<L2NormConfig> grid;
    for (int b : bt)
        for (int w : warps)
            for (int s : stages) grid.push_back({b, w, s, 1});
    return grid;
}

std::vector<L2NormConfig> defaultGrid() { return gridFromLists({8, 16, 32, 64, 128}, {1, 2, 4, 8, 16}, {2, 3, 4}); }

namespace {

int gridInt(const Json& value, const std::string& file, const std::string& path) {
    if (!value.is_number_integer())
        throw Error(file, path, "must be an integer, not " + jsonTypeName(value));
    const auto v = value.get<std::int64_t>();
    if (v < 0 || v > 1024) throw Error(file, path, "is out of range (" + std::to_string(v) + ")");
    return static_cast<int>(v);
}

L2NormConfig gridConfigFromJson(const Json& item, const std::string& file, const std::string& path) {
    if (!item.is_object()) throw Error(file, path, "a config must be an object, not " + jsonTypeName(item));
    L2NormConfig config{0, 0, 3, 1};
    bool haveBt = false, haveWarps = false;
    for (auto it = item.begin(); it != item.end(); ++it) {
        const std::string at = jsonPointerAppend(path, it.key());
        const std::string& key = it.key();
        if (key == "BT") {
            config.blockRows = gridInt(it.value(), file, at);
            haveBt = true;
        } else if (key == "kwargs") {
            if (!it.value().is_object()) throw Error(file, at, "kwargs must be an object");
            for (auto kw = it.value().begin(); kw != it.value().end(); ++kw) {
                if (kw.key() != "BT")
                    throw Error(file, jsonPointerAppend(at, kw.key()), "unknown kwarg (the l2norm kernel takes only BT)");
                config.blockRows = gridInt(kw.value(), file, jsonPointerAppend(at, "BT"));
                haveBt = true;
            }
        } else if (key == "num_warps") {
            config.numWarps = gridInt(it.value(), file, at);
            haveWarps = true;
        } else if (key == "num_stages") {
            config.numStages = gridInt(it.value(), file, at);
        } else if (key == "num_ctas") {
            config.numCtas = gridInt(it.value(), file, at);
        } else if (key == "maxnreg" || key == "pre_hook" || key == "ir_override") {
            if (!it.value().is_null()) throw Error(file, at, key + " must be null (the sweep cannot apply it)");
        } else {
            throw Error(file, at, "unknown member \"" + key + "\" (expected BT or kwargs.BT, num_warps, num_stages)");
        }
    }
    if (!haveBt) throw Error(file, path, "BT is missing");
    if (!haveWarps) throw Error(file, path, "num_warps is missing");
    return config;
}

std::vector<int> gridList(const Json& doc, const char* key, const std::string& file) {
    const std::string at = jsonPointerAppend("", key);
    if (!doc.contains(key)) throw Error(file, at, std::string(key) + " is missing");
    const Json& list = doc[key];
    if (!list.is_array() || list.empty()) throw Error(file, at, std::string(key) + " must be a non-empty array");
    std::vector<int> values;
    for (std::size_t i = 0; i < list.size(); ++i) values.push_back(gridInt(list[i], file, jsonPointerAppend(at, i)));
    return values;
}

std::vector<L2NormConfig> gridFromCsv(std::string_view text, const std::string& file) {
    std::vector<L2NormConfig> grid;
    std::vector<std::string> columns;
    std::istringstream in{std::string(text)};
    std::string rawLine;
    int lineNumber = 0;
    while (std::getline(in, rawLine)) {
        ++lineNumber;
        const std::string line = trimmed(rawLine);
        if (line.empty() || line[0] == '#') continue;
        const std::string where = "line " + std::to_string(lineNumber);
        const auto fields = splitFields(line, ',');
        if (columns.empty()) {
            columns = fields;
            for (const std::string& c : columns)
                if (c != "BT" && c != "num_warps" && c != "num_stages" && c != "num_ctas")
                    throw Error(file, where, "unknown column \"" + c + "\" (expected BT, num_warps, num_stages, num_ctas)");
            for (const char* needed : {"BT", "num_warps", "num_stages"})
                if (std::find(columns.begin(), columns.end(), needed) == columns.end())
                    throw Error(file, where, std::string("the header line must name a ") + needed + " column");
            continue;
        }
        if (fields.size() != columns.size())
            throw Error(file, where, "has " + std::to_string(fields.size()) + " fields, the header has " +
                                         std::to_string(columns.size()));
        L2NormConfig config{0, 0, 0, 1};
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const auto v = parseNonNegative(fields[i], 1024);
            if (!v) throw Error(file, where, columns[i] + " \"" + fields[i] + "\" is not a small non-negative integer");
            const int value = static_cast<int>(*v);
            if (columns[i] == "BT") config.blockRows = value;
            else if (columns[i] == "num_warps") config.numWarps = value;
            else if (columns[i] == "num_stages") config.numStages = value;
            else config.numCtas = value;
        }
        grid.push_back(config);
    }
    if (columns.empty()) throw Error(file, "", "the grid file is empty (expected a header line BT,num_warps,num_stages)");
    return grid;
}

}  // namespace

std::vector<L2NormConfig> loadGridFile(const std::filesystem::path& file) {
    return parseGridText(readTextFile(file, 16ull << 20), file.string());
}

std::vector<L2NormConfig> parseGridText(std::string_view text, const std::string& name) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw Error(name, "", "the grid file is empty");
    if (text[first] != '[' && text[first] != '{') return gridFromCsv(text, name);

    const Json doc = parseJson(text, name);
    std::vector<L2NormConfig> grid;
    if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i)
            grid.push_back(gridConfigFromJson(doc[i], name, jsonPointerAppend("", i)));
    } else {
        for (auto it = doc.begin(); it != doc.end(); ++it)
            if (it.key() != "BT" && it.key() != "num_warps" && it.key() != "num_stages")
                throw Error(name, jsonPointerAppend("", it.key()),
                            "unknown member (a grid object has the lists BT, num_warps and num_stages)");
        grid = gridFromLists(gridList(doc, "BT", name), gridList(doc, "num_warps", name), gridList(doc, "num_stages", name));
    }
    if (grid.empty()) throw Error(name, "", "the grid has no configs");
    return grid;
}

}  // namespace tunescope
