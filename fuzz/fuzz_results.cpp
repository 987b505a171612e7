// libFuzzer target: the sweep results reader (JSON Lines: header, measurement and error lines, the fast line
// parser and its DOM fallback), then merge of the file with itself.
// Invariants (issue 25), checked here independently of the reader's own checks: a record the reader accepts has
// finite times > 0 (statistics, round summaries, raw samples) and non-negative counts, was measured on a device of
// its header, and is a shape and config of its header's plan; no accepted line holds a NUL byte; and a paired
// verdict between two accepted records never contradicts its interval. A broken invariant aborts (a finding).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_file_input.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/sweep/results.hpp"

namespace {
using namespace tunescope;

void require(bool ok, const char* what, std::size_t line) {
    if (ok) return;
    std::fprintf(stderr, "fuzz_results: invariant broken at line %zu: %s\n", line, what);
    std::abort();
}

bool isTime(double ms) { return std::isfinite(ms) && ms > 0 && ms <= kMaxRecordTimeMs; }

bool onHeaderDevice(const ResultsHeader& h, const std::string& backend, int index, const std::string& name) {
    for (const DeviceInfo& d : h.devices)
        if (d.backend == backend && d.index == index && d.name == name) return true;
    return false;
}

bool sameConfig(const Json& j, const L2NormConfig& c) {
    const auto member = [&](const char* key, int fallback) {
        return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : fallback;
    };
    return j.is_object() && j.contains("BT") && member("BT", -1) == c.blockRows &&
           member("num_warps", -1) == c.numWarps && member("num_stages", -1) == c.numStages &&
           member("num_ctas", 1) == c.numCtas;
}

// The plan as the header's JSON says it, read here without the reader's code.
bool inPlan(const Json& plan, ResultRecord::Kind kind, int nb, std::int64_t rows, const L2NormConfig* config) {
    if (!plan.is_object() || !plan.contains("shapes") || !plan["shapes"].is_array()) return false;
    bool shape = false;
    for (const Json& s : plan["shapes"])
        shape = shape || (s.is_object() && s.contains("nb") && s.contains("rows") && s["nb"].is_number_integer() &&
                          s["rows"].is_number_integer() && s["nb"].get<std::int64_t>() == nb &&
                          s["rows"].get<std::int64_t>() == rows);
    if (!shape) return false;
    if (kind != ResultRecord::Kind::L2Norm || !config) return true;
    if (plan.contains("grid") && plan["grid"].is_array())
        for (const Json& c : plan["grid"])
            if (sameConfig(c, *config)) return true;
    for (const char* policy : {"profile", "baseline"}) {
        if (!plan.contains(policy) || !plan[policy].is_object() || !plan[policy].contains("configs")) continue;
        const Json& configs = plan[policy]["configs"];
        const std::string key = std::to_string(nb);
        if (configs.is_object() && configs.contains(key) && sameConfig(configs[key], *config)) return true;
    }
    return false;
}

// The plan's L2 regimes as its JSON says them ("l2", else "cold_l2"); a plan that says neither admits any.
bool regimeOfPlan(const Json& plan, L2Regime regime) {
    if (plan.contains("l2") && plan["l2"].is_array()) {
        for (const Json& name : plan["l2"])
            if (name.is_string() && name.get<std::string>() == toString(regime)) return true;
        return false;
    }
    if (plan.contains("cold_l2") && plan["cold_l2"].is_boolean())
        return (regime == L2Regime::Cold) == plan["cold_l2"].get<bool>() && regime != L2Regime::Warm;
    return true;
}

void checkRecord(const ResultsFile& f, const ResultRecord& r) {
    const Measurement& m = r.m;
    for (double t : {m.medianMs, m.p20Ms, m.p80Ms, m.minMs, m.ciLowMs, m.ciHighMs}) require(isTime(t), "a statistic is no time", r.line);
    for (double t : {m.maxMs, m.meanMs}) require(std::isnan(t) || isTime(t), "max/mean is no time", r.line);
    for (double t : m.samplesMs) require(isTime(t), "a raw sample is no time", r.line);
    for (const RoundSummary& s : r.rounds) {
        for (double t : {s.medianMs, s.p20Ms, s.p80Ms, s.ciLowMs, s.ciHighMs}) require(isTime(t), "a round's time is no time", r.line);
        require(s.sampleCount >= 0 && s.throttledCount >= 0 && s.firstSample >= 0, "a round's count is negative", r.line);
    }
    require(m.sampleCount >= 1 && static_cast<std::size_t>(m.sampleCount) == m.samplesMs.size(), "sample count", r.line);
    require(m.warmupCount >= 0 && m.throttledCount >= 0 && m.powerCapCount >= 0, "a count is negative", r.line);
    require(onHeaderDevice(f.header, r.deviceBackend, r.deviceIndex, r.deviceName), "device not in the header", r.line);
    require(inPlan(f.header.plan, r.kind, r.nb, r.rows, &r.config), "not an item of the plan", r.line);
    require(regimeOfPlan(f.header.plan, r.l2), "an L2 regime the plan does not measure", r.line);
    const Json& plan = f.header.plan;
    const std::int64_t replicas = plan.contains("replicas") && plan["replicas"].is_number_integer() ? plan["replicas"].get<std::int64_t>() : 1;
    require(r.replica >= 0 && r.replica < replicas, "a replica the plan does not measure", r.line);
}

// FASTER/SLOWER/SAME only with the interval that says so; no verdict from a non-finite one.
void checkVerdict(const ResultRecord& a, const ResultRecord& b) {
    PairedOptions options;
    const PairedComparison p = comparePaired(roundMedians(a), roundMedians(b), options);
    const bool finite = std::isfinite(p.low) && std::isfinite(p.high) && std::isfinite(p.ratio);
    const double faster = 1 - options.threshold, slower = 1 + options.threshold;
    require(finite || p.verdict == Comparison::Ambiguous, "a verdict from a non-finite interval", a.line);
    if (p.verdict == Comparison::Faster) require(p.high <= faster, "FASTER above the threshold", a.line);
    if (p.verdict == Comparison::Slower) require(p.low >= slower, "SLOWER below the threshold", a.line);
    if (p.verdict == Comparison::Same) require(p.low >= faster && p.high <= slower, "SAME outside the band", a.line);
    if (p.verdict == Comparison::Ambiguous && finite)
        require(!(p.high <= faster) && !(p.low >= slower), "AMBIGUOUS for an interval beyond a threshold", a.line);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const auto file = fuzzInputFile(data, size, ".jsonl");
    try {
        const ResultsFile results = loadResults(file);
        const std::string text = readTextFile(file, kMaxResultsFileBytes);
        require(text.find('\0') >= results.validBytes, "an accepted line holds a NUL byte", 0);
        for (const ResultRecord& r : results.records) {
            checkRecord(results, r);
            (void)recordToJson(r);
        }
        for (const ResultError& e : results.errors) {
            require(onHeaderDevice(results.header, e.deviceBackend, e.deviceIndex, e.deviceName), "error line's device", e.line);
            require(inPlan(results.header.plan, e.kind, e.nb, e.rows, nullptr), "error line outside the plan", e.line);
        }
        for (std::size_t i = 0; i + 1 < results.records.size() && i < 8; ++i)
            checkVerdict(results.records[i], results.records[i + 1]);
        (void)mergeResults({file, file}, std::filesystem::path(file.string() + ".merged"), MergeOptions{true});
    } catch (const Error&) {
    }
    return 0;
}
