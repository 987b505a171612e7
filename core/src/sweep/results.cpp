#include "tunescope/sweep/results.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <sstream>

#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope {

namespace {

// Plain (map-backed) JSON for reading: faster than ordered_json for the reader's many small objects.
using ReadJson = nlohmann::json;

std::string lineLabel(std::size_t line, const std::string& pointer = "") {
    return "line " + std::to_string(line) + (pointer.empty() ? "" : ", " + pointer);
}

// Raw samples keep 7 significant digits: far below event-timer resolution, and half the bytes of full precision.
double round7(double value) {
    if (!std::isfinite(value) || value == 0) return value;
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", value);
    return std::strtod(text, nullptr);
}

class LineReader {
public:
    LineReader(const ReadJson& object, std::string file, std::size_t line)
        : object_(object), file_(std::move(file)), line_(line) {}

    const ReadJson& field(const char* key) const {
        const auto it = object_.find(key);
        if (it == object_.end()) fail(key, "is missing");
        return *it;
    }
    bool has(const char* key) const { return object_.contains(key) && !object_.at(key).is_null(); }
    std::int64_t integer(const char* key) const {
        const ReadJson& v = field(key);
        if (!v.is_number_integer()) fail(key, "must be an integer, not " + std::string(v.type_name()));
        return v.get<std::int64_t>();
    }
    std::int64_t integerOr(const char* key, std::int64_t fallback) const { return has(key) ? integer(key) : fallback; }
    // An integer that must fit an int (NB, counts, config members): 2^31 is refused, not wrapped around.
    int smallInt(const char* key) const {
        const std::int64_t v = integer(key);
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            fail(key, "is " + std::to_string(v) + ", out of the range of an int");
        return static_cast<int>(v);
    }
    int smallIntOr(const char* key, int fallback) const { return has(key) ? smallInt(key) : fallback; }
    double number(const char* key) const {
        const ReadJson& v = field(key);
        if (v.is_null()) return std::numeric_limits<double>::infinity();
        if (!v.is_number()) fail(key, "must be a number, not " + std::string(v.type_name()));
        return v.get<double>();
    }
    double numberOr(const char* key, double fallback) const { return has(key) ? number(key) : fallback; }
    bool boolean(const char* key) const {
        const ReadJson& v = field(key);
        if (!v.is_boolean()) fail(key, "must be true or false");
        return v.get<bool>();
    }
    std::string string(const char* key) const {
        const ReadJson& v = field(key);
        if (!v.is_string()) fail(key, "must be a string");
        return v.get<std::string>();
    }
    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw Error(file_, lineLabel(line_, "/" + key), key + " " + message);
    }
    const std::string& file() const { return file_; }
    std::size_t line() const { return line_; }

private:
    const ReadJson& object_;
    std::string file_;
    std::size_t line_;
};

L2NormConfig configFromJson(const ReadJson& value, const LineReader& at) {
    if (!value.is_object()) at.fail("config", "must be an object");
    LineReader c(value, at.file(), at.line());
    L2NormConfig config;
    config.blockRows = c.smallInt("BT");
    config.numWarps = c.smallInt("num_warps");
    config.numStages = c.smallInt("num_stages");
    config.numCtas = c.smallIntOr("num_ctas", 1);
    return config;
}

void deviceTagFromJson(const LineReader& r, std::string* backend, int* index, std::string* name) {
    const ReadJson& device = r.field("device");
    if (!device.is_object()) r.fail("device", "must be an object");
    LineReader d(device, r.file(), r.line());
    *backend = d.string("backend");
    *index = d.smallInt("index");
    *name = d.string("name");
}

ResultRecord::Kind kindFromJson(const LineReader& r) {
    const std::string kind = r.string("kind");
    if (kind == "l2norm") return ResultRecord::Kind::L2Norm;
    if (kind == "copy") return ResultRecord::Kind::Copy;
    r.fail("kind", "must be \"l2norm\" or \"copy\", not \"" + kind + "\"");
}

// The regime and timer of a measurement line, the one place both readers decide them (recordToJson writes them):
// "l2" must be one of kL2RegimeNames and agree with "cold_l2" (true exactly for cold); "timer" one of kTimerNames.
// An older line has neither: it is Cold or Hot as cold_l2 says, and its timer is the backend's legacy one. Returns
// the reason and the member it is about on a bad value.
struct RegimeAndTimer {
    bool coldL2 = true;
    std::optional<std::string> l2, timer;
};
std::optional<std::pair<std::string, std::string>> applyRegimeAndTimer(const RegimeAndTimer& in, ResultRecord& rec) {
    rec.l2 = in.coldL2 ? L2Regime::Cold : L2Regime::Hot;
    if (in.l2) {
        if (!l2RegimeFromString(*in.l2, &rec.l2))
            return std::make_pair(std::string("l2"), "must be \"cold\", \"warm\" or \"hot\", not \"" + *in.l2 + "\"");
        if ((rec.l2 == L2Regime::Cold) != in.coldL2)
            return std::make_pair(std::string("l2"), "\"" + *in.l2 + "\" contradicts cold_l2 " + (in.coldL2 ? "true" : "false"));
    }
    rec.timer = in.timer ? *in.timer : legacyTimerFor(rec.deviceBackend);
    if (!isTimerName(rec.timer))
        return std::make_pair(std::string("timer"),
                              "must be \"cupti\", \"events\" or \"steady_clock\", not \"" + rec.timer + "\"");
    return std::nullopt;
}

ResultRecord recordFromJson(const ReadJson& object, const std::string& file, std::size_t line) {
    LineReader r(object, file, line);
    ResultRecord rec;
    rec.line = line;
    rec.kind = kindFromJson(r);
    rec.nb = r.smallInt("nb");
    rec.rows = r.integer("rows");
    rec.batch = r.smallIntOr("batch", 0);
    rec.paddedTokens = r.smallIntOr("padded_tokens", 0);
    if (rec.kind == ResultRecord::Kind::L2Norm) rec.config = configFromJson(r.field("config"), r);
    rec.inGrid = r.has("in_grid") ? r.boolean("in_grid") : true;
    rec.profileConfig = r.has("profile_config") ? r.boolean("profile_config") : false;
    rec.baselineConfig = r.has("baseline_config") ? r.boolean("baseline_config") : false;
    deviceTagFromJson(r, &rec.deviceBackend, &rec.deviceIndex, &rec.deviceName);
    RegimeAndTimer regime;
    regime.coldL2 = r.boolean("cold_l2");
    if (r.has("l2")) regime.l2 = r.string("l2");
    if (r.has("timer")) regime.timer = r.string("timer");
    if (const auto bad = applyRegimeAndTimer(regime, rec)) r.fail(bad->first, bad->second);

    Measurement& m = rec.m;
    const ReadJson& raw = r.field("raw_ms");
    if (!raw.is_array()) r.fail("raw_ms", "must be an array of numbers");
    m.samplesMs.reserve(raw.size());
    for (const auto& v : raw) {
        if (!v.is_number()) r.fail("raw_ms", "must hold only numbers");
        m.samplesMs.push_back(v.get<double>());
    }
    const std::size_t n = m.samplesMs.size();
    m.smClockMHz.assign(n, -1);
    m.throttled.assign(n, 0);
    if (r.has("raw_sm_clock_mhz")) {
        const ReadJson& clocks = r.field("raw_sm_clock_mhz");
        if (!clocks.is_array() || clocks.size() != n) r.fail("raw_sm_clock_mhz", "must have one integer per sample");
        for (std::size_t i = 0; i < n; ++i) {
            if (!clocks[i].is_number_integer()) r.fail("raw_sm_clock_mhz", "must hold only integers");
            m.smClockMHz[i] = clocks[i].get<int>();
        }
    }
    if (r.has("raw_throttled")) {
        const ReadJson& marks = r.field("raw_throttled");
        if (!marks.is_array() || marks.size() != n) r.fail("raw_throttled", "must have one 0/1 per sample");
        for (std::size_t i = 0; i < n; ++i) {
            if (!marks[i].is_number_integer()) r.fail("raw_throttled", "must hold only 0 or 1");
            m.throttled[i] = marks[i].get<int>() != 0 ? 1 : 0;
        }
    }
    // Statistics are stored, not recomputed: they were computed from full-precision samples.
    m.sampleCount = r.smallInt("samples");
    if (static_cast<std::size_t>(m.sampleCount) != n) r.fail("samples", "does not match the length of raw_ms");
    m.warmupCount = r.smallIntOr("warmup_samples", 0);
    m.throttledCount = r.smallIntOr("throttled_samples", 0);
    m.medianMs = r.number("median_ms");
    m.p20Ms = r.number("p20_ms");
    m.p80Ms = r.number("p80_ms");
    m.minMs = r.number("min_ms");
    // Optional since v1: NaN when not recorded (0 would read as a time).
    m.maxMs = r.numberOr("max_ms", std::numeric_limits<double>::quiet_NaN());
    m.meanMs = r.numberOr("mean_ms", std::numeric_limits<double>::quiet_NaN());
    m.relStdev = r.number("rel_stdev");
    m.ciLowMs = r.number("ci_low_ms");
    m.ciHighMs = r.number("ci_high_ms");
    m.relNoise = r.number("rel_noise");
    m.meanClockMHz = r.numberOr("mean_sm_clock_mhz", -1);
    m.referenceClockMHz = r.smallIntOr("reference_clock_mhz", -1);
    m.converged = r.boolean("converged");
    m.timedOut = r.has("timed_out") ? r.boolean("timed_out") : false;
    if (!stopReasonFromString(r.string("stop_reason"), &m.stopReason))
        r.fail("stop_reason", "must be converged, stalled, timeout or sample-cap");
    m.measuredTimeMs = r.numberOr("measured_ms", 0);
    m.wallTimeMs = r.numberOr("wall_ms", 0);

    const auto conditionArray = [&](const char* key, auto& out) {
        if (!r.has(key)) return;
        const ReadJson& values = r.field(key);
        if (!values.is_array() || values.size() != n) r.fail(key, "must have one number per sample");
        out.clear();
        for (const auto& v : values) {
            if (!v.is_number()) r.fail(key, "must hold only numbers");
            out.push_back(v.get<typename std::decay_t<decltype(out)>::value_type>());
        }
    };
    conditionArray("raw_mem_clock_mhz", m.memClockMHz);
    conditionArray("raw_power_w", m.powerW);
    conditionArray("raw_temperature_c", m.temperatureC);
    conditionArray("raw_clock_events", m.clockEventReasons);
    m.powerCapCount = r.smallIntOr("power_cap_samples", 0);
    rec.racedOut = r.has("raced_out") ? r.boolean("raced_out") : false;
    rec.replica = r.smallIntOr("replica", 0);
    if (r.has("rounds")) {
        const ReadJson& rounds = r.field("rounds");
        if (!rounds.is_array()) r.fail("rounds", "must be an array of round objects");
        for (std::size_t i = 0; i < rounds.size(); ++i) {
            if (!rounds[i].is_object()) r.fail("rounds/" + std::to_string(i), "must be an object");
            LineReader round(rounds[i], file, line);
            RoundSummary s;
            s.round = round.smallInt("round");
            s.position = round.smallIntOr("position", 0);
            s.placement = round.smallIntOr("placement", -1);
            s.firstSample = round.smallInt("first_sample");
            s.sampleCount = round.smallInt("samples");
            s.throttledCount = round.smallIntOr("throttled_samples", 0);
            s.medianMs = round.number("median_ms");
            s.p20Ms = round.numberOr("p20_ms", s.medianMs);
            s.p80Ms = round.numberOr("p80_ms", s.medianMs);
            s.ciLowMs = round.numberOr("ci_low_ms", s.medianMs);
            s.ciHighMs = round.numberOr("ci_high_ms", s.medianMs);
            s.wallTimeMs = round.numberOr("wall_ms", 0);
            if (!stopReasonFromString(round.string("stop_reason"), &s.stopReason))
                r.fail("rounds/" + std::to_string(i) + "/stop_reason", "must be converged, stalled, timeout or sample-cap");
            if (s.round < 0 || s.firstSample < 0 || s.sampleCount < 0 ||
                static_cast<std::size_t>(s.firstSample) + static_cast<std::size_t>(s.sampleCount) > n)
                r.fail("rounds/" + std::to_string(i), "names samples outside raw_ms");
            rec.rounds.push_back(s);
        }
    }

    rec.bytes = static_cast<std::uint64_t>(r.integer("bytes"));
    rec.gbps = r.number("gbps");
    rec.copyGbps = r.numberOr("copy_gbps", -1);
    rec.fractionOfCopy = r.numberOr("fraction_of_copy", -1);
    if (const auto source = object.find("kernel_source"); source != object.end() && !source->is_null()) {
        if (!source->is_object()) r.fail("kernel_source", "must be an object or null");
        rec.kernelSource = *source;
    }
    return rec;
}

ResultError errorFromJson(const ReadJson& object, const std::string& file, std::size_t line) {
    LineReader r(object, file, line);
    ResultError e;
    e.line = line;
    e.kind = kindFromJson(r);
    e.nb = r.smallInt("nb");
    e.rows = r.integer("rows");
    if (e.kind == ResultRecord::Kind::L2Norm && r.has("config")) e.config = configFromJson(r.field("config"), r);
    e.replica = r.smallIntOr("replica", 0);
    if (r.has("l2") && !l2RegimeFromString(r.string("l2"), &e.l2))
        r.fail("l2", "must be \"cold\", \"warm\" or \"hot\"");
    deviceTagFromJson(r, &e.deviceBackend, &e.deviceIndex, &e.deviceName);
    e.message = r.string("message");
    return e;
}

ResultsHeader headerFromJson(const std::string& text, const std::string& file) {
    Json raw;
    // Deep nesting is refused before anything walks or copies the value (copying recurses: 100k levels crashed).
    if (const auto deep = findExcessiveNesting(text))
        throw Error(file, lineLabel(1) + ", column " + std::to_string(*deep + 1),
                    "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    try {
        raw = Json::parse(text);
    } catch (const std::exception&) {
        throw Error(file, lineLabel(1), "the first line is not a results header (not JSON)");
    }
    // A member of the wrong type reads as empty here (nlohmann's value() would throw an error naming no file).
    const auto textMember = [&](const char* key) {
        const auto it = raw.is_object() ? raw.find(key) : raw.end();
        return raw.is_object() && it != raw.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (!raw.is_object() || textMember("type") != "header")
        throw Error(file, lineLabel(1, "/type"), "the first line is not a results header (type must be \"header\")");
    const std::string format = textMember("format");
    if (format != kResultsFormat && format != kResultsFormatV1)
        throw Error(file, lineLabel(1, "/format"),
                    "unknown results format \"" + format + "\" (expected \"" + kResultsFormat + "\" or \"" +
                        kResultsFormatV1 + "\")");
    ResultsHeader h;
    h.format = format;
    const auto text_ = [&](const char* key) {
        const auto it = raw.find(key);
        return it != raw.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    h.tunescopeVersion = text_("tunescope_version");
    h.gitSha = text_("git_sha");
    h.createdUtc = text_("created_utc");
    h.host = text_("host");
    h.planHash = text_("plan_hash");
    if (h.planHash.empty()) throw Error(file, lineLabel(1, "/plan_hash"), "plan_hash is missing");
    if (raw.contains("plan")) h.plan = raw["plan"];
    if (raw.contains("devices")) {
        if (!raw["devices"].is_array()) throw Error(file, lineLabel(1, "/devices"), "devices must be an array");
        for (std::size_t i = 0; i < raw["devices"].size(); ++i)
            h.devices.push_back(deviceInfoFromJson(raw["devices"][i], file, lineLabel(1, jsonPointerAppend("/devices", i))));
    }
    h.raw = std::move(raw);
    return h;
}


// --- what a header lets its records be ----------------------------------------------------------------------------
// One check of every record against physics, its header's devices and its header's plan (docs/sweep.md, "Reading
// it"), on both parse paths: a file whose records are well-formed JSON but cannot be true is refused, naming the line
// and the member, before any command draws a conclusion from it.

using ConfigTuple = std::tuple<int, int, int, int>;
ConfigTuple configTuple(const L2NormConfig& c) { return {c.blockRows, c.numWarps, c.numStages, c.numCtas}; }

struct HeaderScope {
    std::set<std::pair<int, std::int64_t>> shapes;    // (NB, T) of plan.shapes
    std::set<int> nbs;                                // the NBs among them
    std::set<ConfigTuple> grid;                       // plan.grid
    std::map<int, std::vector<ConfigTuple>> policy;   // NB -> plan.profile's and plan.baseline's configs
    std::set<std::tuple<std::string, int, std::string>> devices;  // (backend, index, name) of the header's devices
    int replicas = 1;                                 // plan.replicas (A/A plans), else 1
    int placements = 1;                               // plan.placements, else 1
    std::set<L2Regime> regimes;                       // plan.l2, or cold_l2's one regime; empty: not said (older plans)
};

// Reads the plan's members that say which records belong to it; strict about their types (Error at line 1 with the
// JSON Pointer), lenient about everything else (v1 plans and plans of older versions differ in other members).
class PlanScopeReader {
public:
    explicit PlanScopeReader(const std::string& file) : file_(file) {}

    [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
        throw Error(file_, lineLabel(1, pointer), message);
    }
    const Json& member(const Json& object, const std::string& pointer, const char* key) const {
        const auto it = object.find(key);
        if (it == object.end()) fail(jsonPointerAppend(pointer, key), std::string(key) + " is missing");
        return *it;
    }
    int smallInt(const Json& object, const std::string& pointer, const char* key) const {
        const Json& v = member(object, pointer, key);
        if (!v.is_number_integer() || v.get<std::int64_t>() < std::numeric_limits<int>::min() ||
            v.get<std::int64_t>() > std::numeric_limits<int>::max())
            fail(jsonPointerAppend(pointer, key), std::string(key) + " must be an integer of int range");
        return v.get<int>();
    }
    ConfigTuple config(const Json& value, const std::string& pointer) const {
        if (!value.is_object()) fail(pointer, "a config must be an object");
        const int ctas = value.contains("num_ctas") ? smallInt(value, pointer, "num_ctas") : 1;
        return {smallInt(value, pointer, "BT"), smallInt(value, pointer, "num_warps"),
                smallInt(value, pointer, "num_stages"), ctas};
    }
    void policy(const Json& plan, const char* key, HeaderScope& scope) const {
        const auto it = plan.find(key);
        if (it == plan.end() || it->is_null()) return;
        const std::string pointer = jsonPointerAppend("/plan", key);
        if (!it->is_object()) fail(pointer, std::string(key) + " must be an object or null");
        const Json& configs = member(*it, pointer, "configs");
        const std::string at = jsonPointerAppend(pointer, "configs");
        if (!configs.is_object()) fail(at, "configs must be an object of NB -> config");
        for (auto c = configs.begin(); c != configs.end(); ++c) {
            int nb = 0;
            const auto [end, ec] = std::from_chars(c.key().data(), c.key().data() + c.key().size(), nb);
            if (ec != std::errc() || end != c.key().data() + c.key().size())
                fail(jsonPointerAppend(at, c.key()), "the key must be an NB number");
            scope.policy[nb].push_back(config(c.value(), jsonPointerAppend(at, c.key())));
        }
    }

private:
    std::string file_;
};

HeaderScope scopeFromHeader(const ResultsHeader& header, const std::string& file) {
    const PlanScopeReader r(file);
    HeaderScope scope;
    const Json& plan = header.plan;
    if (!plan.is_object())
        r.fail("/plan", plan.is_null() ? "plan is missing: the records cannot be checked against the sweep plan"
                                       : "plan must be an object");
    const Json& shapes = r.member(plan, "/plan", "shapes");
    if (!shapes.is_array()) r.fail("/plan/shapes", "shapes must be an array");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const std::string at = jsonPointerAppend("/plan/shapes", i);
        if (!shapes[i].is_object()) r.fail(at, "a shape must be an object");
        const Json& rows = r.member(shapes[i], at, "rows");
        if (!rows.is_number_integer()) r.fail(jsonPointerAppend(at, "rows"), "rows must be an integer");
        const int nb = r.smallInt(shapes[i], at, "nb");
        scope.shapes.insert({nb, rows.get<std::int64_t>()});
        scope.nbs.insert(nb);
    }
    const Json& grid = r.member(plan, "/plan", "grid");
    if (!grid.is_array()) r.fail("/plan/grid", "grid must be an array");
    for (std::size_t i = 0; i < grid.size(); ++i) scope.grid.insert(r.config(grid[i], jsonPointerAppend("/plan/grid", i)));
    r.policy(plan, "profile", scope);
    r.policy(plan, "baseline", scope);
    if (plan.contains("replicas")) {
        scope.replicas = r.smallInt(plan, "/plan", "replicas");
        if (scope.replicas < 1) r.fail("/plan/replicas", "replicas must be at least 1");
    }
    if (plan.contains("placements")) {
        scope.placements = r.smallInt(plan, "/plan", "placements");
        if (scope.placements < 1) r.fail("/plan/placements", "placements must be at least 1");
    }
    if (plan.contains("l2")) {
        const Json& regimes = plan["l2"];
        if (!regimes.is_array()) r.fail("/plan/l2", "l2 must be an array of regimes");
        for (std::size_t i = 0; i < regimes.size(); ++i) {
            L2Regime regime = L2Regime::Cold;
            if (!regimes[i].is_string() || !l2RegimeFromString(regimes[i].get<std::string>(), &regime))
                r.fail(jsonPointerAppend("/plan/l2", i), "must be \"cold\", \"warm\" or \"hot\"");
            scope.regimes.insert(regime);
        }
    } else if (plan.contains("cold_l2") && plan["cold_l2"].is_boolean()) {
        scope.regimes.insert(plan["cold_l2"].get<bool>() ? L2Regime::Cold : L2Regime::Hot);
    }
    for (const DeviceInfo& d : header.devices) scope.devices.insert({d.backend, d.index, d.name});
    return scope;
}

// "-1", "1e+308", "null" (the reader reads a null time as infinity): a value as the line holds it.
std::string shownNumber(double value) {
    if (std::isinf(value) && value > 0) return "null";
    char text[40];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

class RecordChecker {
public:
    RecordChecker(const HeaderScope& scope, const std::string& file, std::size_t line)
        : scope_(scope), file_(file), line_(line) {}

    [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
        throw Error(file_, lineLabel(line_, pointer), message);
    }
    // A time: finite, > 0 and at most kMaxRecordTimeMs. `optional` lets NaN (the member was absent or null) pass.
    void time(double value, const std::string& pointer, bool optional = false) const {
        if (optional && std::isnan(value)) return;
        if (isValidTimingMs(value) && value <= kMaxRecordTimeMs) return;
        fail(pointer, "is " + shownNumber(value) + ", but a time must be a finite number of ms, > 0 and at most " +
                          shownNumber(kMaxRecordTimeMs) + " (an hour)");
    }
    // A duration that may be 0 (wall time, measured time): finite and >= 0.
    void duration(double value, const std::string& pointer) const {
        if (std::isfinite(value) && value >= 0 && value <= kMaxRecordTimeMs * 1e3) return;
        fail(pointer, "is " + shownNumber(value) + ", but a duration must be a finite number of ms, >= 0");
    }
    // A relative spread (rel_stdev, rel_noise): >= 0; null (infinite) where too few samples give none.
    void spread(double value, const std::string& pointer) const {
        if (value >= 0) return;
        fail(pointer, "is " + shownNumber(value) + ", but a relative spread must be >= 0 (or null)");
    }
    void count(std::int64_t value, const std::string& pointer, std::int64_t most = -1) const {
        if (value < 0) fail(pointer, "is " + std::to_string(value) + ", but a count must be >= 0");
        if (most >= 0 && value > most)
            fail(pointer, "is " + std::to_string(value) + ", more than the " + std::to_string(most) + " samples");
    }

    // A round's placement: absent (-1) in a plan of one placement, else one of the plan's copies.
    void placement(int value, const std::string& pointer) const {
        if (value == -1 && scope_.placements == 1) return;
        if (value >= 0 && value < scope_.placements && scope_.placements > 1) return;
        if (scope_.placements == 1)
            fail(pointer, "is " + std::to_string(value) + ", but the file's plan has one buffer placement (no "
                                                          "line 1, /plan/placements): a round has none to name");
        if (value == -1) fail(pointer.substr(0, pointer.rfind('/')), "names no placement, but the plan's rounds use "
                              "placements 0 to " + std::to_string(scope_.placements - 1) + " (line 1, /plan/placements)");
        fail(pointer, "is " + std::to_string(value) + ", but the plan's rounds use placements 0 to " +
                          std::to_string(scope_.placements - 1) + " (line 1, /plan/placements)");
    }

    void device(const std::string& backend, int index, const std::string& name) const {
        if (scope_.devices.count({backend, index, name})) return;
        fail("/device", backend + ":" + std::to_string(index) + " \"" + name +
                            "\" is not one of the devices of the file's header (line 1, /devices): the record was not "
                            "measured by the sweep that wrote this header");
    }
    void item(ResultRecord::Kind kind, int nb, std::int64_t rows, const L2NormConfig* config, int replica,
              L2Regime regime) const {
        if (!scope_.regimes.empty() && !scope_.regimes.count(regime))
            fail("/l2", "\"" + toString(regime) + "\" is not an L2 regime of the file's plan (line 1, /plan/l2 or "
                                                   "/plan/cold_l2)");
        if (!scope_.shapes.count({nb, rows})) {
            const bool nbKnown = scope_.nbs.count(nb) > 0;
            fail(nbKnown ? "/rows" : "/nb", "NB " + std::to_string(nb) + " with T = " + std::to_string(rows) +
                                                " rows is not a shape of the file's plan (line 1, /plan/shapes)");
        }
        if (kind == ResultRecord::Kind::L2Norm && config) {
            const ConfigTuple wanted = configTuple(*config);
            const auto policy = scope_.policy.find(nb);
            const bool ofPolicy = policy != scope_.policy.end() &&
                                  std::find(policy->second.begin(), policy->second.end(), wanted) != policy->second.end();
            if (!scope_.grid.count(wanted) && !ofPolicy)
                fail("/config", configText(*config) + " is not a config of the file's plan at NB " + std::to_string(nb) +
                                    " (neither in line 1, /plan/grid nor the plan's profile or baseline config)");
        }
        if (replica < 0 || replica >= scope_.replicas)
            fail("/replica", "is " + std::to_string(replica) + ", but the plan measures " +
                                 std::to_string(scope_.replicas) + " replica(s) per config (0 to " +
                                 std::to_string(scope_.replicas - 1) + ")");
    }

private:
    const HeaderScope& scope_;
    const std::string& file_;
    std::size_t line_;
};

void checkRecordTimes(const ResultRecord& rec, const RecordChecker& c) {
    const Measurement& m = rec.m;
    c.time(m.medianMs, "/median_ms");
    c.time(m.p20Ms, "/p20_ms");
    c.time(m.p80Ms, "/p80_ms");
    c.time(m.minMs, "/min_ms");
    c.time(m.maxMs, "/max_ms", true);   // optional in v1 files
    c.time(m.meanMs, "/mean_ms", true);
    c.time(m.ciLowMs, "/ci_low_ms");
    c.time(m.ciHighMs, "/ci_high_ms");
    c.spread(m.relStdev, "/rel_stdev");
    c.spread(m.relNoise, "/rel_noise");
    c.duration(m.measuredTimeMs, "/measured_ms");
    c.duration(m.wallTimeMs, "/wall_ms");
    for (std::size_t i = 0; i < m.samplesMs.size(); ++i) c.time(m.samplesMs[i], jsonPointerAppend("/raw_ms", i));
    for (std::size_t i = 0; i < rec.rounds.size(); ++i) {
        const RoundSummary& s = rec.rounds[i];
        const std::string at = jsonPointerAppend("/rounds", i);
        c.time(s.medianMs, at + "/median_ms");
        c.time(s.p20Ms, at + "/p20_ms");
        c.time(s.p80Ms, at + "/p80_ms");
        c.time(s.ciLowMs, at + "/ci_low_ms");
        c.time(s.ciHighMs, at + "/ci_high_ms");
        c.duration(s.wallTimeMs, at + "/wall_ms");
        c.count(s.position, at + "/position");
        c.placement(s.placement, at + "/placement");
        c.count(s.throttledCount, at + "/throttled_samples", s.sampleCount);
    }
}

void checkRecord(const ResultRecord& rec, const HeaderScope& scope, const std::string& file) {
    const RecordChecker c(scope, file, rec.line);
    c.device(rec.deviceBackend, rec.deviceIndex, rec.deviceName);
    c.item(rec.kind, rec.nb, rec.rows, &rec.config, rec.replica, rec.l2);
    const Measurement& m = rec.m;
    if (m.sampleCount < 1) c.fail("/samples", "is " + std::to_string(m.sampleCount) + ", but a measurement has at least one sample");
    c.count(m.warmupCount, "/warmup_samples");
    c.count(m.throttledCount, "/throttled_samples", m.sampleCount);
    c.count(m.powerCapCount, "/power_cap_samples", m.sampleCount);
    c.count(rec.batch, "/batch");
    c.count(rec.paddedTokens, "/padded_tokens");
    if (!(std::isfinite(rec.gbps) && rec.gbps >= 0))
        c.fail("/gbps", "is " + shownNumber(rec.gbps) + ", but a throughput must be finite and >= 0");
    checkRecordTimes(rec, c);
}

// An error line names what failed: a device of the header and an item of the plan (its config may be absent).
void checkError(const ResultError& error, bool hasConfig, const HeaderScope& scope, const std::string& file) {
    const RecordChecker c(scope, file, error.line);
    c.device(error.deviceBackend, error.deviceIndex, error.deviceName);
    c.item(error.kind, error.nb, error.rows, hasConfig ? &error.config : nullptr, error.replica, error.l2);
}


// --- fast path for measurement lines ------------------------------------------------------------------------------
// A full sweep is ~2400 lines of a few hundred numbers each; building a DOM per line costs most of the load time.
// This parser reads a measurement line straight into a ResultRecord. It accepts any valid JSON formatting (spaces,
// member order, escapes, unknown members) but gives up (returns false) on anything unexpected; the caller then
// takes the DOM path, which either succeeds the same way or throws the precise error with line and member.

class FastLineParser {
public:
    explicit FastLineParser(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

    bool parseRecord(ResultRecord& rec) {
        RecordFields seen;
        rec.m.maxMs = rec.m.meanMs = std::numeric_limits<double>::quiet_NaN();  // not recorded unless the line has them
        if (!object([&](const std::string& k) { return recordMember(k, rec, seen); })) return false;
        skipWs();
        if (p_ != end_) return false;
        // A bad regime or timer: the DOM path names it.
        return seen.complete(rec.kind) && !applyRegimeAndTimer(seen.regime, rec) && takeRawArrays(rec, seen);
    }

private:
    // What a measurement line has shown so far: the members a record cannot do without, and the optional raw arrays
    // (checked against the sample count once the whole line is read).
    struct RecordFields {
        bool type = false, kind = false, nb = false, rows = false, config = false, device = false, cold = false,
             raw = false, samples = false, median = false, p20 = false, p80 = false, min = false, stdev = false,
             ciLow = false, ciHigh = false, noise = false, converged = false, stop = false, bytes = false,
             gbps = false;
        std::vector<int> clocks, marks, memClocks;
        std::vector<double> power, temperature, events;
        bool haveClocks = false, haveMarks = false;
        RegimeAndTimer regime;

        bool complete(ResultRecord::Kind recordKind) const {
            if (!(type && kind && nb && rows && device && cold && raw && samples && median && p20 && p80 && min &&
                  stdev && ciLow && ciHigh && noise && converged && stop && bytes && gbps))
                return false;
            return recordKind != ResultRecord::Kind::L2Norm || config;  // a copy has no config
        }
    };

    // The record's own members: what was measured, where, and its throughput; the rest is the measurement's.
    bool recordMember(const std::string& k, ResultRecord& rec, RecordFields& seen) {
        std::string text;
        if (k == "type") return string(text) && text == "measurement" && (seen.type = true);
        if (k == "kind") {
            if (!string(text)) return false;
            if (text == "l2norm") rec.kind = ResultRecord::Kind::L2Norm;
            else if (text == "copy") rec.kind = ResultRecord::Kind::Copy;
            else return false;
            return seen.kind = true;
        }
        if (k == "nb") return intValue(rec.nb) && (seen.nb = true);
        if (k == "rows") return int64Value(rec.rows) && (seen.rows = true);
        if (k == "batch") return optionalInt(rec.batch, 0);
        if (k == "padded_tokens") return optionalInt(rec.paddedTokens, 0);
        if (k == "config") {
            if (isNull()) return skipValue();
            return configObject(rec.config, seen);
        }
        if (k == "in_grid") return optionalBool(rec.inGrid, true);
        if (k == "profile_config") return optionalBool(rec.profileConfig, false);
        if (k == "baseline_config") return optionalBool(rec.baselineConfig, false);
        if (k == "device") return deviceObject(rec, seen);
        if (k == "cold_l2") return boolValue(seen.regime.coldL2) && (seen.cold = true);
        if (k == "l2") return optionalText(seen.regime.l2);
        if (k == "timer") return optionalText(seen.regime.timer);
        if (k == "bytes") {
            std::int64_t bytes = 0;
            if (!int64Value(bytes) || bytes < 0) return false;
            rec.bytes = static_cast<std::uint64_t>(bytes);
            return seen.bytes = true;
        }
        if (k == "gbps") return numberOrInf(rec.gbps) && (seen.gbps = true);
        if (k == "copy_gbps") return optionalNumber(rec.copyGbps, -1);
        if (k == "fraction_of_copy") return optionalNumber(rec.fractionOfCopy, -1);
        if (k == "kernel_source") return isNull() && skipValue();  // an object: the DOM path reads it
        if (k == "raced_out") return optionalBool(rec.racedOut, false);
        if (k == "replica") return optionalInt(rec.replica, 0);
        if (k == "rounds") return isNull() ? skipValue() : roundArray(rec.rounds);
        return measurementMember(k, rec.m, seen);
    }

    // The statistics and raw samples of the record's Measurement; unknown members are skipped.
    bool measurementMember(const std::string& k, Measurement& m, RecordFields& seen) {
        std::string text;
        if (k == "median_ms") return numberOrInf(m.medianMs) && (seen.median = true);
        if (k == "p20_ms") return numberOrInf(m.p20Ms) && (seen.p20 = true);
        if (k == "p80_ms") return numberOrInf(m.p80Ms) && (seen.p80 = true);
        if (k == "min_ms") return numberOrInf(m.minMs) && (seen.min = true);
        if (k == "max_ms") return optionalNumber(m.maxMs, std::numeric_limits<double>::quiet_NaN());
        if (k == "mean_ms") return optionalNumber(m.meanMs, std::numeric_limits<double>::quiet_NaN());
        if (k == "rel_stdev") return numberOrInf(m.relStdev) && (seen.stdev = true);
        if (k == "ci_low_ms") return numberOrInf(m.ciLowMs) && (seen.ciLow = true);
        if (k == "ci_high_ms") return numberOrInf(m.ciHighMs) && (seen.ciHigh = true);
        if (k == "rel_noise") return numberOrInf(m.relNoise) && (seen.noise = true);
        if (k == "samples") return intValue(m.sampleCount) && (seen.samples = true);
        if (k == "warmup_samples") return optionalInt(m.warmupCount, 0);
        if (k == "throttled_samples") return optionalInt(m.throttledCount, 0);
        if (k == "mean_sm_clock_mhz") return optionalNumber(m.meanClockMHz, -1);
        if (k == "reference_clock_mhz") return optionalInt(m.referenceClockMHz, -1);
        if (k == "converged") return boolValue(m.converged) && (seen.converged = true);
        if (k == "timed_out") return optionalBool(m.timedOut, false);
        if (k == "stop_reason") return string(text) && stopReasonFromString(text, &m.stopReason) && (seen.stop = true);
        if (k == "measured_ms") return optionalNumber(m.measuredTimeMs, 0);
        if (k == "wall_ms") return optionalNumber(m.wallTimeMs, 0);
        if (k == "raw_ms") return numberArray(m.samplesMs) && (seen.raw = true);
        if (k == "raw_sm_clock_mhz") {
            if (isNull()) return skipValue();
            return intArray(seen.clocks) && (seen.haveClocks = true);
        }
        if (k == "raw_throttled") {
            if (isNull()) return skipValue();
            return intArray(seen.marks) && (seen.haveMarks = true);
        }
        if (k == "raw_mem_clock_mhz") return isNull() ? skipValue() : intArray(seen.memClocks);
        if (k == "raw_power_w") return isNull() ? skipValue() : numberArray(seen.power);
        if (k == "raw_temperature_c") return isNull() ? skipValue() : numberArray(seen.temperature);
        if (k == "raw_clock_events") return isNull() ? skipValue() : numberArray(seen.events);
        if (k == "power_cap_samples") return optionalInt(m.powerCapCount, 0);
        return skipValue();
    }

    bool configObject(L2NormConfig& config, RecordFields& seen) {
        bool bt = false, warps = false, stages = false;
        config.numCtas = 1;
        seen.config = object([&](const std::string& c) -> bool {
            if (c == "BT") return intValue(config.blockRows) && (bt = true);
            if (c == "num_warps") return intValue(config.numWarps) && (warps = true);
            if (c == "num_stages") return intValue(config.numStages) && (stages = true);
            if (c == "num_ctas") return optionalInt(config.numCtas, 1);
            return skipValue();
        });
        return seen.config && bt && warps && stages;
    }

    bool deviceObject(ResultRecord& rec, RecordFields& seen) {
        bool backend = false, index = false, name = false;
        seen.device = object([&](const std::string& d) -> bool {
            if (d == "backend") return string(rec.deviceBackend) && (backend = true);
            if (d == "index") return intValue(rec.deviceIndex) && (index = true);
            if (d == "name") return string(rec.deviceName) && (name = true);
            return skipValue();
        });
        return seen.device && backend && index && name;
    }

    // The raw arrays into the Measurement: each as long as the samples (or, the optional ones, absent), and every
    // round's slice inside them.
    static bool takeRawArrays(ResultRecord& rec, RecordFields& seen) {
        Measurement& m = rec.m;
        const std::size_t n = m.samplesMs.size();
        if (static_cast<std::size_t>(m.sampleCount) != n) return false;
        m.smClockMHz.assign(n, -1);
        m.throttled.assign(n, 0);
        if (seen.haveClocks) {
            if (seen.clocks.size() != n) return false;
            m.smClockMHz = std::move(seen.clocks);
        }
        if (seen.haveMarks) {
            if (seen.marks.size() != n) return false;
            for (std::size_t i = 0; i < n; ++i) m.throttled[i] = seen.marks[i] != 0 ? 1 : 0;
        }
        for (std::size_t size : {seen.memClocks.size(), seen.power.size(), seen.temperature.size(), seen.events.size()})
            if (size != 0 && size != n) return false;
        m.memClockMHz = std::move(seen.memClocks);
        m.powerW = std::move(seen.power);
        m.temperatureC = std::move(seen.temperature);
        m.clockEventReasons.assign(seen.events.begin(), seen.events.end());
        for (const RoundSummary& round : rec.rounds)
            if (round.round < 0 || round.firstSample < 0 || round.sampleCount < 0 ||
                static_cast<std::size_t>(round.firstSample) + static_cast<std::size_t>(round.sampleCount) > n)
                return false;
        return true;
    }

    void skipWs() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    }
    bool consume(char c) {
        skipWs();
        if (p_ < end_ && *p_ == c) {
            ++p_;
            return true;
        }
        return false;
    }
    bool isNull() {
        skipWs();
        return end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0;
    }
    bool literal(const char* word) {
        skipWs();
        const std::size_t n = std::strlen(word);
        if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
        p_ += n;
        return true;
    }
    template <typename OnMember>
    bool object(OnMember&& onMember) {
        if (!consume('{')) return false;
        if (consume('}')) return true;
        std::string key;
        do {
            if (!string(key) || !consume(':') || !onMember(key)) return false;
        } while (consume(','));
        return consume('}');
    }
    bool string(std::string& out) {
        if (!consume('"')) return false;
        out.clear();
        while (p_ < end_) {
            const char c = *p_++;
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return false;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p_ >= end_) return false;
            switch (*p_++) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            default: return false;  // \u escapes: leave them to the DOM path
            }
        }
        return false;
    }
    // A JSON number; `integer` tells whether it had no fraction or exponent (nlohmann's is_number_integer).
    bool number(double& value, bool& integer, std::int64_t& asInt) {
        skipWs();
        const char* start = p_;
        if (p_ < end_ && *p_ == '-') ++p_;
        if (p_ >= end_ || !std::isdigit(static_cast<unsigned char>(*p_))) return false;
        if (*p_ == '0' && p_ + 1 < end_ && std::isdigit(static_cast<unsigned char>(p_[1]))) return false;
        while (p_ < end_ && std::isdigit(static_cast<unsigned char>(*p_))) ++p_;
        integer = true;
        if (p_ < end_ && *p_ == '.') {
            integer = false;
            ++p_;
            if (p_ >= end_ || !std::isdigit(static_cast<unsigned char>(*p_))) return false;
            while (p_ < end_ && std::isdigit(static_cast<unsigned char>(*p_))) ++p_;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            integer = false;
            ++p_;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ >= end_ || !std::isdigit(static_cast<unsigned char>(*p_))) return false;
            while (p_ < end_ && std::isdigit(static_cast<unsigned char>(*p_))) ++p_;
        }
        if (integer) {
            const auto r = std::from_chars(start, p_, asInt);
            if (r.ec != std::errc() || r.ptr != p_) return false;
            value = static_cast<double>(asInt);
            return true;
        }
        const auto r = std::from_chars(start, p_, value);
        return r.ec == std::errc() && r.ptr == p_;
    }
    bool int64Value(std::int64_t& out) {
        double d = 0;
        bool integer = false;
        return number(d, integer, out) && integer;
    }
    bool intValue(int& out) {
        std::int64_t v = 0;
        if (!int64Value(v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
        out = static_cast<int>(v);
        return true;
    }
    bool optionalInt(int& out, int fallback) {
        if (isNull()) {
            out = fallback;
            return literal("null");
        }
        return intValue(out);
    }
    bool numberOrInf(double& out) {
        if (isNull()) {
            out = std::numeric_limits<double>::infinity();
            return literal("null");
        }
        bool integer = false;
        std::int64_t unused = 0;
        return number(out, integer, unused);
    }
    bool optionalNumber(double& out, double fallback) {
        if (isNull()) {
            out = fallback;
            return literal("null");
        }
        bool integer = false;
        std::int64_t unused = 0;
        return number(out, integer, unused);
    }
    bool boolValue(bool& out) {
        if (literal("true")) return out = true, true;
        if (literal("false")) return out = false, true;
        return false;
    }
    bool optionalText(std::optional<std::string>& out) {
        if (isNull()) {
            out.reset();
            return literal("null");
        }
        std::string text;
        if (!string(text)) return false;
        out = std::move(text);
        return true;
    }
    bool optionalBool(bool& out, bool fallback) {
        if (isNull()) {
            out = fallback;
            return literal("null");
        }
        return boolValue(out);
    }
    bool numberArray(std::vector<double>& out) {
        if (!consume('[')) return false;
        if (consume(']')) return true;
        do {
            double v = 0;
            bool integer = false;
            std::int64_t unused = 0;
            if (!number(v, integer, unused)) return false;
            out.push_back(v);
        } while (consume(','));
        return consume(']');
    }
    bool intArray(std::vector<int>& out) {
        if (!consume('[')) return false;
        if (consume(']')) return true;
        do {
            int v = 0;
            if (!intValue(v)) return false;
            out.push_back(v);
        } while (consume(','));
        return consume(']');
    }
    bool roundArray(std::vector<RoundSummary>& out) {
        if (!consume('[')) return false;
        if (consume(']')) return true;
        do {
            RoundSummary round;
            bool haveRound = false, haveFirst = false, haveSamples = false, haveMedian = false, haveStop = false;
            bool haveP20 = false, haveP80 = false, haveLow = false, haveHigh = false;
            std::string text;
            if (!object([&](const std::string& k) -> bool {
                    if (k == "round") return intValue(round.round) && (haveRound = true);
                    if (k == "position") return optionalInt(round.position, 0);
                    if (k == "placement") return optionalInt(round.placement, -1);
                    if (k == "first_sample") return intValue(round.firstSample) && (haveFirst = true);
                    if (k == "samples") return intValue(round.sampleCount) && (haveSamples = true);
                    if (k == "throttled_samples") return optionalInt(round.throttledCount, 0);
                    if (k == "median_ms") return numberOrInf(round.medianMs) && (haveMedian = true);
                    if (k == "p20_ms") return numberOrInf(round.p20Ms) && (haveP20 = true);
                    if (k == "p80_ms") return numberOrInf(round.p80Ms) && (haveP80 = true);
                    if (k == "ci_low_ms") return numberOrInf(round.ciLowMs) && (haveLow = true);
                    if (k == "ci_high_ms") return numberOrInf(round.ciHighMs) && (haveHigh = true);
                    if (k == "wall_ms") return optionalNumber(round.wallTimeMs, 0);
                    if (k == "stop_reason")
                        return string(text) && stopReasonFromString(text, &round.stopReason) && (haveStop = true);
                    return skipValue();
                }))
                return false;
            if (!(haveRound && haveFirst && haveSamples && haveMedian && haveStop)) return false;
            if (!haveP20) round.p20Ms = round.medianMs;
            if (!haveP80) round.p80Ms = round.medianMs;
            if (!haveLow) round.ciLowMs = round.medianMs;
            if (!haveHigh) round.ciHighMs = round.medianMs;
            out.push_back(round);
        } while (consume(','));
        return consume(']');
    }
    bool skipValue(int depth = 0) {
        if (depth > 64) return false;
        skipWs();
        if (p_ >= end_) return false;
        std::string scratch;
        switch (*p_) {
        case '"': return string(scratch);
        case '{': return object([&](const std::string&) { return skipValue(depth + 1); });
        case '[': {
            ++p_;
            if (consume(']')) return true;
            do {
                if (!skipValue(depth + 1)) return false;
            } while (consume(','));
            return consume(']');
        }
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        default: {
            double d = 0;
            bool integer = false;
            std::int64_t i = 0;
            return number(d, integer, i);
        }
        }
    }

    const char* p_;
    const char* end_;
};
}  // namespace

std::string toString(ResultRecord::Kind kind) { return kind == ResultRecord::Kind::Copy ? "copy" : "l2norm"; }

std::string recordKey(ResultRecord::Kind kind, int nb, std::int64_t rows, const L2NormConfig& config, int replica,
                      L2Regime l2) {
    std::string key = toString(kind) + "/nb=" + std::to_string(nb) + "/rows=" + std::to_string(rows);
    if (kind == ResultRecord::Kind::L2Norm)
        key += "/bt=" + std::to_string(config.blockRows) + "/w=" + std::to_string(config.numWarps) +
               "/s=" + std::to_string(config.numStages) + "/ctas=" + std::to_string(config.numCtas);
    if (replica > 0) key += "/rep=" + std::to_string(replica);
    if (l2 == L2Regime::Warm) key += "/l2=warm";
    return key;
}

std::map<ShapeKey, std::vector<const ResultRecord*>> l2normRecordsByShape(const ResultsFile& results) {
    std::map<ShapeKey, std::vector<const ResultRecord*>> byShape;
    for (const ResultRecord& r : results.records)
        if (r.kind == ResultRecord::Kind::L2Norm && r.m.sampleCount > 0 && std::isfinite(r.m.medianMs))
            byShape[shapeKeyOf(r)].push_back(&r);
    return byShape;
}

std::set<L2Regime> regimesOf(const ResultsFile& results) {
    std::set<L2Regime> regimes;
    for (const ResultRecord& r : results.records) regimes.insert(r.l2);
    return regimes;
}

std::set<std::string> timersOf(const ResultsFile& results) {
    std::set<std::string> timers;
    for (const ResultRecord& r : results.records) timers.insert(r.timer);
    return timers;
}

std::vector<double> roundMedians(const ResultRecord& record, int roundCount) {
    int count = roundCount;
    for (const RoundSummary& r : record.rounds) count = std::max(count, r.round + 1);
    if (record.rounds.empty()) count = std::max(count, 1);
    std::vector<double> medians(static_cast<std::size_t>(count), std::numeric_limits<double>::quiet_NaN());
    if (record.rounds.empty()) medians[0] = record.m.medianMs;
    for (const RoundSummary& r : record.rounds) medians[static_cast<std::size_t>(r.round)] = r.medianMs;
    return medians;
}

std::string deviceIdentity(const DeviceInfo& info) {
    return info.name + "|" + info.architecture + "|" + info.driverVersion;
}

bool sameDeviceIdentities(const std::vector<DeviceInfo>& a, const std::vector<DeviceInfo>& b, std::string* why) {
    std::set<std::string> left, right;
    for (const DeviceInfo& d : a) left.insert(deviceIdentity(d));
    for (const DeviceInfo& d : b) right.insert(deviceIdentity(d));
    if (left == right) return true;
    if (why) {
        const auto describe = [](const std::set<std::string>& ids) {
            std::string text;
            for (const std::string& id : ids) {
                std::string shown = id;
                std::replace(shown.begin(), shown.end(), '|', ' ');
                text += (text.empty() ? "" : "; ") + shown;
            }
            return text.empty() ? std::string("none") : text;
        };
        *why = describe(left) + " vs " + describe(right);
    }
    return false;
}

Json deviceInfoToJson(const DeviceInfo& info) {
    Json j = Json::object();
    j["backend"] = info.backend;
    j["index"] = info.index;
    j["name"] = info.name;
    j["architecture"] = info.architecture;
    j["memory_bytes"] = info.memoryBytes;
    j["multiprocessors"] = info.multiprocessors;
    j["l2_bytes"] = info.l2Bytes;
    j["clock_mhz"] = info.clockMHz;
    j["warp_size"] = info.warpSize;
    j["driver_version"] = info.driverVersion;
    j["runtime_version"] = info.runtimeVersion;
    return j;
}

DeviceInfo deviceInfoFromJson(const Json& value, const std::string& file, const std::string& path) {
    if (!value.is_object()) throw Error(file, path, "a device must be an object");
    DeviceInfo info;
    const auto str = [&](const char* key) {
        const auto it = value.find(key);
        return it != value.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto num = [&](const char* key) -> std::uint64_t {
        const auto it = value.find(key);
        return it != value.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
    };
    info.backend = str("backend");
    info.index = static_cast<int>(num("index"));
    info.name = str("name");
    info.architecture = str("architecture");
    info.memoryBytes = num("memory_bytes");
    info.multiprocessors = static_cast<int>(num("multiprocessors"));
    info.l2Bytes = num("l2_bytes");
    info.clockMHz = static_cast<int>(num("clock_mhz"));
    info.warpSize = static_cast<int>(num("warp_size"));
    info.driverVersion = str("driver_version");
    info.runtimeVersion = str("runtime_version");
    return info;
}

Json configToJson(const L2NormConfig& config) {
    Json j = Json::object();
    j["BT"] = config.blockRows;
    j["num_warps"] = config.numWarps;
    j["num_stages"] = config.numStages;
    j["num_ctas"] = config.numCtas;
    return j;
}

namespace {
Json deviceTag(const std::string& backend, int index, const std::string& name) {
    Json j = Json::object();
    j["backend"] = backend;
    j["index"] = index;
    j["name"] = name;
    return j;
}
}  // namespace

Json recordToJson(const ResultRecord& rec) {
    const Measurement& m = rec.m;
    Json j = Json::object();
    j["type"] = "measurement";
    j["kind"] = toString(rec.kind);
    j["nb"] = rec.nb;
    j["rows"] = rec.rows;
    j["batch"] = positiveOrNull(rec.batch);
    j["padded_tokens"] = positiveOrNull(rec.paddedTokens);
    j["config"] = rec.kind == ResultRecord::Kind::L2Norm ? configToJson(rec.config) : Json(nullptr);
    j["in_grid"] = rec.inGrid;
    j["profile_config"] = rec.profileConfig;
    if (rec.baselineConfig) j["baseline_config"] = true;  // head-to-head plans only: other files keep their bytes
    j["device"] = deviceTag(rec.deviceBackend, rec.deviceIndex, rec.deviceName);
    // The regime and the timer (read back by applyRegimeAndTimer); cold_l2 stays for readers of older versions.
    j["cold_l2"] = rec.l2 == L2Regime::Cold;
    j["l2"] = toString(rec.l2);
    j["timer"] = rec.timer;
    // Non-finite numbers are not JSON: null, read back as +inf (only relNoise can be infinite).
    j["median_ms"] = finiteOrNull(m.medianMs);
    j["p20_ms"] = finiteOrNull(m.p20Ms);
    j["p80_ms"] = finiteOrNull(m.p80Ms);
    j["min_ms"] = finiteOrNull(m.minMs);
    j["max_ms"] = finiteOrNull(m.maxMs);
    j["mean_ms"] = finiteOrNull(m.meanMs);
    j["rel_stdev"] = finiteOrNull(m.relStdev);
    j["ci_low_ms"] = finiteOrNull(m.ciLowMs);
    j["ci_high_ms"] = finiteOrNull(m.ciHighMs);
    j["rel_noise"] = finiteOrNull(m.relNoise);
    j["samples"] = m.sampleCount;
    j["warmup_samples"] = m.warmupCount;
    j["throttled_samples"] = m.throttledCount;
    j["mean_sm_clock_mhz"] = m.meanClockMHz > 0 ? Json(m.meanClockMHz) : Json(nullptr);
    j["reference_clock_mhz"] = m.referenceClockMHz > 0 ? Json(m.referenceClockMHz) : Json(nullptr);
    j["converged"] = m.converged;
    j["timed_out"] = m.timedOut;
    j["stop_reason"] = toString(m.stopReason);
    j["measured_ms"] = m.measuredTimeMs;
    j["wall_ms"] = m.wallTimeMs;
    j["bytes"] = rec.bytes;
    j["gbps"] = finiteOrNull(rec.gbps);
    j["copy_gbps"] = rec.copyGbps > 0 ? Json(rec.copyGbps) : Json(nullptr);
    j["fraction_of_copy"] = rec.fractionOfCopy > 0 ? Json(rec.fractionOfCopy) : Json(nullptr);
    if (!rec.kernelSource.is_null()) j["kernel_source"] = rec.kernelSource;
    Json raw = Json::array();
    for (double x : m.samplesMs) raw.push_back(round7(x));
    j["raw_ms"] = std::move(raw);
    bool anyClock = false;
    for (int c : m.smClockMHz) anyClock = anyClock || c > 0;
    if (anyClock) {
        j["raw_sm_clock_mhz"] = m.smClockMHz;
        Json marks = Json::array();
        for (std::uint8_t t : m.throttled) marks.push_back(int(t));
        j["raw_throttled"] = std::move(marks);
    } else {
        j["raw_sm_clock_mhz"] = nullptr;
        j["raw_throttled"] = nullptr;
    }
    const bool anyThrottled = m.throttledCount > 0;
    if (anyThrottled && !anyClock) {  // a throttle event without a clock reading still marks samples
        Json marks = Json::array();
        for (std::uint8_t t : m.throttled) marks.push_back(int(t));
        j["raw_throttled"] = std::move(marks);
    }
    if (!m.memClockMHz.empty()) j["raw_mem_clock_mhz"] = m.memClockMHz;
    if (!m.powerW.empty()) {
        Json power = Json::array();
        for (double w : m.powerW) power.push_back(round7(w));
        j["raw_power_w"] = std::move(power);
    }
    if (!m.temperatureC.empty()) j["raw_temperature_c"] = m.temperatureC;
    if (!m.clockEventReasons.empty()) j["raw_clock_events"] = m.clockEventReasons;
    j["power_cap_samples"] = m.powerCapCount;
    j["raced_out"] = rec.racedOut;
    if (rec.replica > 0) j["replica"] = rec.replica;
    Json rounds = Json::array();
    for (const RoundSummary& r : rec.rounds) {
        Json round = Json::object();
        round["round"] = r.round;
        round["position"] = r.position;
        if (r.placement >= 0) round["placement"] = r.placement;
        round["first_sample"] = r.firstSample;
        round["samples"] = r.sampleCount;
        round["throttled_samples"] = r.throttledCount;
        round["median_ms"] = finiteOrNull(r.medianMs);
        round["p20_ms"] = finiteOrNull(r.p20Ms);
        round["p80_ms"] = finiteOrNull(r.p80Ms);
        round["ci_low_ms"] = finiteOrNull(r.ciLowMs);
        round["ci_high_ms"] = finiteOrNull(r.ciHighMs);
        round["wall_ms"] = r.wallTimeMs;
        round["stop_reason"] = toString(r.stopReason);
        rounds.push_back(std::move(round));
    }
    j["rounds"] = std::move(rounds);
    return j;
}

Json errorToJson(const ResultError& error) {
    Json j = Json::object();
    j["type"] = "error";
    j["kind"] = toString(error.kind);
    j["nb"] = error.nb;
    j["rows"] = error.rows;
    j["config"] = error.kind == ResultRecord::Kind::L2Norm ? configToJson(error.config) : Json(nullptr);
    j["device"] = deviceTag(error.deviceBackend, error.deviceIndex, error.deviceName);
    if (error.replica > 0) j["replica"] = error.replica;
    if (error.l2 != L2Regime::Cold) j["l2"] = toString(error.l2);
    j["message"] = error.message;
    return j;
}

Json headerToJson(const ResultsHeader& header) {
    Json j = Json::object();
    j["type"] = "header";
    j["format"] = kResultsFormat;
    j["tunescope_version"] = header.tunescopeVersion;
    j["git_sha"] = header.gitSha;
    j["created_utc"] = header.createdUtc;
    j["host"] = header.host;
    Json devices = Json::array();
    for (const DeviceInfo& d : header.devices) devices.push_back(deviceInfoToJson(d));
    j["devices"] = std::move(devices);
    j["plan"] = header.plan;
    j["plan_hash"] = header.planHash;
    return j;
}

namespace {
// A NUL byte is never part of JSON text, but nlohmann's parser takes one for the end of its input and ignores
// whatever follows: refused like any other byte after a line's JSON, with its line and column.
void refuseNulByte(std::string_view content, const std::string& file, std::size_t line) {
    const std::size_t nul = content.find('\0');
    if (nul != std::string_view::npos)
        throw Error(file, lineLabel(line) + ", column " + std::to_string(nul + 1),
                    "not valid JSON: a NUL byte (JSON text never holds one, and nothing may follow a line's JSON)");
}
}  // namespace

ResultsFile loadResults(const std::filesystem::path& file) {
    const std::string name = file.string();
    // Results of a full sweep with raw samples are a few MB; allow far more than that before calling it a mistake.
    const std::string text = readTextFile(file, kMaxResultsFileBytes);
    ResultsFile out;
    out.path = file;
    if (text.empty()) throw Error(name, "", "the results file is empty (no header line)");
    const std::size_t headerEnd = text.find('\n');
    if (headerEnd == std::string::npos)
        throw Error(name, lineLabel(1), "the header line is incomplete (the sweep was killed while starting)");
    const std::string_view headerLine(text.data(), headerEnd);
    refuseNulByte(headerLine, name, 1);
    out.header = headerFromJson(std::string(headerLine), name);
    const HeaderScope scope = scopeFromHeader(out.header, name);

    std::size_t pos = headerEnd + 1, line = 1;
    out.validBytes = pos;
    while (pos < text.size()) {
        const std::size_t newline = text.find('\n', pos);
        const bool complete = newline != std::string::npos;
        const std::size_t end = complete ? newline : text.size();
        const std::string_view content(text.data() + pos, end - pos);
        ++line;
        if (content.find_first_not_of(" \t\r") == std::string_view::npos) {  // blank line
            pos = end + (complete ? 1 : 0);
            if (complete) out.validBytes = pos;
            continue;
        }
        if (complete) {
            ResultRecord fast;
            if (FastLineParser(content).parseRecord(fast)) {
                fast.line = line;
                checkRecord(fast, scope, name);
                out.records.push_back(std::move(fast));
                pos = end + 1;
                out.validBytes = pos;
                continue;
            }
            refuseNulByte(content, name, line);
        }
        ReadJson object;
        if (const auto deep = findExcessiveNesting(content))
            throw Error(name, lineLabel(line) + ", column " + std::to_string(*deep + 1),
                        "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        try {
            object = ReadJson::parse(content);
        } catch (const ReadJson::exception& e) {  // parse errors, and out_of_range for numbers like 1e2994
            if (complete) throw Error(name, lineLabel(line), std::string("not valid JSON: ") + e.what());
        }
        if (!complete) {  // a kill mid-write (parsed or not, the newline never made it): ignored, and re-measured
            out.truncatedTail = true;
            out.truncatedLine = line;
            out.warnings.push_back(name + " line " + std::to_string(line) +
                                   ": ignored an incomplete last line (a sweep killed while writing it; resuming the "
                                   "sweep measures it again)");
            break;
        }
        if (!object.is_object()) throw Error(name, lineLabel(line), "each line must be a JSON object");
        const auto type = object.find("type");
        const std::string typeName = type != object.end() && type->is_string() ? type->get<std::string>() : "";
        if (typeName == "measurement") {
            out.records.push_back(recordFromJson(object, name, line));
            checkRecord(out.records.back(), scope, name);
        } else if (typeName == "error") {
            out.errors.push_back(errorFromJson(object, name, line));
            const auto config = object.find("config");
            checkError(out.errors.back(), config != object.end() && !config->is_null(), scope, name);
        } else {
            throw Error(name, lineLabel(line, "/type"), "unknown line type \"" + typeName +
                                                              "\" (expected \"measurement\" or \"error\")");
        }
        pos = end + 1;
        out.validBytes = pos;
    }
    return out;
}

// --- writer -----------------------------------------------------------------------------------------------------

namespace {
[[noreturn]] void ioError(const std::filesystem::path& file, const std::string& what) {
    throw Error(file.string(), "", what + ": " + std::strerror(errno));
}
}  // namespace

namespace {
// One writer per results file: two sweeps appending to one --out would interleave and duplicate measurements.
// The lock lives with the open descriptor, so it is released however the sweep ends (even kill -9).
void lockForWriting(int fd, const std::filesystem::path& file) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
        throw Error(file.string(), "",
                    "another sweep is writing this results file; wait for it to end or use another --out");
    errno = err;
    ioError(file, "cannot lock the results file");
}

std::string readFrom(int fd, std::uint64_t offset, std::size_t maxBytes) {
    std::string bytes(maxBytes, '\0');
    std::size_t got = 0;
    while (got < maxBytes) {
        const ssize_t n = ::pread(fd, bytes.data() + got, maxBytes - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
    return bytes;
}
}  // namespace

ResultsWriter::ResultsWriter(const std::filesystem::path& file, std::uint64_t validBytes) : file_(file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) ioError(file, "cannot open for appending");
    const int fd = fd_;
    fd_ = -1;  // owned by lockForWriting until the lock is held
    lockForWriting(fd, file);
    fd_ = fd;
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > validBytes) {
        // Past the lines the caller read there may be only a partial line from a kill. A complete line means
        // someone wrote to the file after it was read (a sweep that ended meanwhile): cutting it would lose data.
        const std::string tail = readFrom(fd_, validBytes, static_cast<std::size_t>(st.st_size - validBytes));
        const bool changed = tail.find('\n') != std::string::npos;
        if (changed || ::ftruncate(fd_, static_cast<off_t>(validBytes)) != 0) {
            const int err = errno;
            ::close(fd_);  // a throwing constructor runs no destructor
            fd_ = -1;
            if (changed)
                throw Error(file.string(), "",
                            "changed after it was read (another sweep wrote to it); run again to resume");
            errno = err;
            ioError(file, "cannot cut off the partial last line");
        }
    }
}

ResultsWriter ResultsWriter::create(const std::filesystem::path& file, const ResultsHeader& header) {
    ResultsWriter writer;
    writer.file_ = file;
    // No O_TRUNC: what is there is checked first, under the lock.
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) ioError(file, "cannot create the results file");
    lockForWriting(fd, file);
    writer.fd_ = fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0) ioError(file, "cannot read its size");
    if (st.st_size > 0) {
        // Only what a sweep killed while writing its header may be replaced: a prefix of a header line (no newline).
        // Anything else (notes, another tool's JSON, a finished header) is someone's data.
        const std::string start = std::string("{\"type\":\"header\",\"format\":\"") + kResultsFormat + "\"";
        const std::string existing = readFrom(fd, 0, std::min<std::size_t>(static_cast<std::size_t>(st.st_size), 1 << 20));
        const bool headerPrefix = existing.size() <= start.size() ? start.compare(0, existing.size(), existing) == 0
                                                                  : existing.compare(0, start.size(), start) == 0;
        if (!headerPrefix || existing.find('\n') != std::string::npos ||
            static_cast<std::uint64_t>(st.st_size) > existing.size())
            throw Error(file.string(), "",
                        "exists and is not a results file this sweep can resume; refusing to overwrite it (use another "
                        "--out, or delete the file)");
        if (::ftruncate(fd, 0) != 0) ioError(file, "cannot replace the incomplete header");
    }
    writer.append(headerToJson(header));
    return writer;
}

ResultsWriter::ResultsWriter(ResultsWriter&& other) noexcept : file_(std::move(other.file_)), fd_(other.fd_) {
    other.fd_ = -1;
}

ResultsWriter::~ResultsWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void ResultsWriter::append(const Json& line) { appendBlock({line}); }

void ResultsWriter::appendBlock(const std::vector<Json>& lines) {
    std::string text;
    for (const Json& line : lines) {
        text += line.dump(-1, ' ', false, Json::error_handler_t::replace);
        text += '\n';
    }
    std::lock_guard lock(mutex_);
    const char* data = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t written = ::write(fd_, data, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            ioError(file_, "cannot append a result line");
        }
        data += written;
        left -= static_cast<std::size_t>(written);
    }
}

// --- merge ------------------------------------------------------------------------------------------------------

MergeReport mergeResults(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                         const MergeOptions& options) {
    if (inputs.empty()) throw Error("", "", "merge needs at least one results file");
    MergeReport report;
    std::vector<ResultsFile> files;
    std::vector<std::string> texts;
    for (const auto& input : inputs) {
        files.push_back(loadResults(input));
        texts.push_back(readTextFile(input, kMaxResultsFileBytes));
        report.warnings.insert(report.warnings.end(), files.back().warnings.begin(), files.back().warnings.end());
    }
    const ResultsHeader& first = files.front().header;
    for (std::size_t i = 1; i < files.size(); ++i) {
        const ResultsHeader& h = files[i].header;
        if (h.planHash != first.planHash)
            throw MergeConflict(inputs[i].string(), "line 1, /plan_hash",
                        "was written by a different sweep plan than " + inputs[0].string() +
                            " (plan_hash " + h.planHash.substr(0, 12) + " vs " + first.planHash.substr(0, 12) +
                            "): only shards of one plan can be merged");
        std::string why;
        if (!sameDeviceIdentities(first.devices, h.devices, &why)) {
            if (!options.allowMixedDevices)
                throw MergeConflict(inputs[i].string(), "line 1, /devices",
                                    "was measured on other devices than " + inputs[0].string() + " (" + why +
                                        "): a decision must compare measurements of one device; use "
                                        "--allow-mixed-devices to merge anyway");
            report.warnings.push_back(inputs[i].string() + ": measured on other devices (" + why + ")");
        }
        if (h.tunescopeVersion != first.tunescopeVersion || h.gitSha != first.gitSha)
            report.warnings.push_back(inputs[i].string() + ": written by TuneScope " + h.tunescopeVersion + " (" +
                                      h.gitSha + "), " + inputs[0].string() + " by " + first.tunescopeVersion +
                                      " (" + first.gitSha + ")");
    }

    // Header: the first one, with the union of devices, no shard, and where each part came from.
    ResultsHeader merged = first;
    Json plan = first.plan;
    if (plan.is_object()) plan.erase("shard");
    merged.plan = plan;
    merged.devices.clear();
    std::set<std::string> seenDevices;
    Json sources = Json::array();
    for (std::size_t i = 0; i < files.size(); ++i) {
        for (const DeviceInfo& d : files[i].header.devices) {
            const std::string id = d.backend + "/" + std::to_string(d.index) + "/" + d.name + "/" + files[i].header.host;
            if (seenDevices.insert(id).second) merged.devices.push_back(d);
        }
        Json source = Json::object();
        source["file"] = inputs[i].filename().string();
        source["sha256"] = sha256Hex(texts[i]);
        source["host"] = files[i].header.host;
        source["shard"] = files[i].header.plan.is_object() && files[i].header.plan.contains("shard")
                              ? files[i].header.plan["shard"]
                              : Json(nullptr);
        sources.push_back(std::move(source));
    }
    Json headerJson = headerToJson(merged);
    headerJson["merged_from"] = std::move(sources);

    std::string body = headerJson.dump() + "\n";
    std::set<std::string> measured;
    std::map<std::string, std::string> firstSeenIn;
    // Lines are copied byte for byte: merging never re-rounds or reorders fields.
    for (std::size_t i = 0; i < files.size(); ++i) {
        // Index line starts once per file instead of scanning from the top for every record.
        std::vector<std::size_t> starts{0, 0};
        for (std::size_t p = 0; p < texts[i].size(); ++p)
            if (texts[i][p] == '\n') starts.push_back(p + 1);
        const auto line = [&](std::size_t n) {
            const std::size_t s = starts[n];
            return texts[i].substr(s, texts[i].find('\n', s) - s);
        };
        for (const ResultRecord& r : files[i].records) {
            const std::string key = recordKey(r);
            const std::string where = inputs[i].string() + " line " + std::to_string(r.line);
            if (measured.count(key)) {
                if (r.kind == ResultRecord::Kind::Copy) {
                    ++report.copyDuplicatesDropped;
                    continue;
                }
                if (!options.keepFirst)
                    throw MergeConflict(inputs[i].string(), lineLabel(r.line),
                                "measures " + key + " again (first in " + firstSeenIn[key] +
                                    "); use --keep-first to keep the first and drop the others");
                ++report.duplicatesDropped;
                report.warnings.push_back("dropped duplicate " + key + " at " + where + " (kept " + firstSeenIn[key] + ")");
                continue;
            }
            measured.insert(key);
            firstSeenIn[key] = where;
            body += line(r.line) + "\n";
            ++report.measurements;
        }
    }
    // Errors only matter for what nobody measured.
    std::set<std::string> erroredKeys;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::vector<std::size_t> starts{0, 0};
        for (std::size_t p = 0; p < texts[i].size(); ++p)
            if (texts[i][p] == '\n') starts.push_back(p + 1);
        for (const ResultError& e : files[i].errors) {
            const std::string key = recordKey(e);
            if (measured.count(key) || !erroredKeys.insert(key + "/" + e.message).second) continue;
            const std::size_t s = starts[e.line];
            body += texts[i].substr(s, texts[i].find('\n', s) - s) + "\n";
            ++report.errorsKept;
        }
    }
    writeFileAtomic(out, body);
    return report;
}

}  // namespace tunescope
