#include "tunescope/sweep/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "tunescope/base/hashing.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/base/version.hpp"

namespace tunescope {

// --- plan building ----------------------------------------------------------------------------------------------

namespace {

constexpr std::size_t kMaxListLength = 100000;

}  // namespace

std::vector<int> parseIntList(const std::string& text, const std::string& what) {
    std::set<int> values;
    if (trimmed(text).empty()) throw Error("", "", what + " is empty");
    for (const std::string& part : splitFields(text, ',')) {
        const std::size_t dash = part.find('-', 1);
        const auto bad = [&](const std::string& why) {
            return Error("", "", what + ": \"" + part + "\" " + why + " (use numbers and ranges like 1-32,40)");
        };
        if (dash == std::string::npos) {
            const auto v = parseNonNegative(part);
            if (!v) throw bad("is not a non-negative integer");
            values.insert(static_cast<int>(*v));
        } else {
            const auto lo = parseNonNegative(trimmed(part.substr(0, dash)));
            const auto hi = parseNonNegative(trimmed(part.substr(dash + 1)));
            if (!lo || !hi) throw bad("is not a range of non-negative integers");
            if (*lo > *hi) throw bad("is a range that runs backwards");
            if (static_cast<std::size_t>(*hi - *lo) >= kMaxListLength) throw bad("is too long a range");
            for (long long v = *lo; v <= *hi; ++v) values.insert(static_cast<int>(v));
        }
        if (values.size() > kMaxListLength) throw Error("", "", what + " has more than 100000 values");
    }
    return {values.begin(), values.end()};
}

ShardSpec parseShard(const std::string& text) {
    const auto parts = splitFields(text, '/');
    const auto bad = [&](const std::string& why) { return Error("", "", "--shard \"" + text + "\": " + why); };
    if (parts.size() != 2) throw bad("must be i/n, e.g. 0/2 for the first of two shards");
    const auto index = parseNonNegative(parts[0]);
    const auto count = parseNonNegative(parts[1]);
    if (!index || !count) throw bad("i and n must be non-negative integers");
    if (*count < 1) throw bad("n must be at least 1");
    if (*index >= *count) throw bad("i must be less than n (shards are numbered 0 to n-1)");
    return {static_cast<int>(*index), static_cast<int>(*count)};
}

std::vector<SweepShape> shapesFromNbList(const std::vector<int>& nbs, std::int64_t rowsPerNb) {
    std::vector<SweepShape> shapes;
    for (int nb : nbs) shapes.push_back({nb, static_cast<std::int64_t>(nb) * rowsPerNb, 0, 0});
    return shapes;
}

std::vector<SweepShape> shapesFromBatch(const std::vector<int>& batches, const std::vector<int>& paddedTokens,
                                        int keyHeads) {
    std::vector<SweepShape> shapes;
    std::set<std::int64_t> seenRows;
    for (int b : batches) {
        for (int l : paddedTokens) {
            const std::int64_t rows = static_cast<std::int64_t>(b) * l * keyHeads;
            if (!seenRows.insert(rows).second) continue;  // equal T: measured once, under the first B x L
            const int nb = static_cast<int>((rows + kRowsPerNb - 1) / kRowsPerNb);
            shapes.push_back({nb, rows, b, l});
        }
    }
    std::sort(shapes.begin(), shapes.end(), [](const SweepShape& a, const SweepShape& b) { return a.rows < b.rows; });
    return shapes;
}

bool isLegalConfig(const L2NormConfig& config, std::string* why) {
    const auto isPow2In = [](int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; };
    std::string reason;
    if (!isPow2In(config.blockRows, 8, 128)) reason = "BT must be one of 8, 16, 32, 64, 128";
    else if (!isPow2In(config.numWarps, 1, 32)) reason = "num_warps must be one of 1, 2, 4, 8, 16, 32";
    else if (config.numStages < 1 || config.numStages > 4) reason = "num_stages must be 1, 2, 3 or 4";
    else if (config.numCtas != 1) reason = "num_ctas must be 1";
    if (why) *why = reason;
    return reason.empty();
}

namespace {

// --kernel triton: the plan names a scanned cache, and every (grid config, NB) has a binary for every device.
void validateTritonPlan(const SweepPlan& plan, const std::vector<const Device*>& devices) {
    if (plan.kernel == "native") return;
    if (plan.kernel != "triton") throw Error("", "", "--kernel must be native or triton (got '" + plan.kernel + "')");
    if (!plan.triton) throw Error("", "", "--kernel triton needs a Triton cache (--triton-cache)");
    for (const SweepShape& shape : plan.shapes) {
        for (const L2NormConfig& c : plan.grid) {
            const TritonVariant& v = requireTritonVariant(*plan.triton, c, shape.nb);
            for (const Device* d : devices) {
                if (!d) continue;
                if (const std::string why = tritonTargetMismatch(v, d->info()); !why.empty()) throw Error("", "", why);
            }
        }
        for (const auto* policy : {&plan.profileConfigs, &plan.baselineConfigs}) {
            const auto it = policy->find(shape.nb);
            if (it == policy->end()) continue;
            const TritonVariant& v = requireTritonVariant(*plan.triton, it->second, shape.nb);
            for (const Device* d : devices) {
                if (!d) continue;
                if (const std::string why = tritonTargetMismatch(v, d->info()); !why.empty()) throw Error("", "", why);
            }
        }
    }
}

// The kernel and, per binary the plan can launch, its SHA-256: a changed cache is another plan.
void addTritonPlanJson(Json& j, const SweepPlan& plan, bool forHash) {
    j["kernel"] = plan.kernel;
    if (!plan.triton) return;
    if (!forHash) j["triton_cache"] = plan.triton->dir.string();
    Json binaries = Json::array();
    for (const TritonVariant& v : plan.triton->variants) binaries.push_back(v.binarySha256);
    j["triton_binaries_sha256"] = std::move(binaries);
}

}  // namespace

int defaultPipelineDepth(const std::string& kernel) { return kernel == "triton" ? 16 : 1; }

std::unique_ptr<TimedWork> makeSweepL2NormWork(Device& device, const SweepPlan& plan, const L2NormConfig& config,
                                               int nb, Json* kernelSource) {
    if (plan.kernel != "triton") return device.l2normWork(config, plan.eps);
    if (!plan.triton) throw Error("", "", "--kernel triton needs a Triton cache (--triton-cache)");
    const TritonVariant& variant = requireTritonVariant(*plan.triton, config, nb);
    std::unique_ptr<TimedWork> work = device.tritonL2NormWork(loadTritonBinary(variant), plan.eps);
    if (kernelSource) *kernelSource = tritonKernelSourceJson(variant);
    return work;
}

void validatePlan(const SweepPlan& plan, const std::vector<const Device*>& devices) {
    if (plan.shapes.empty()) throw Error("", "", "the sweep has no shapes (NB list is empty)");
    std::set<std::pair<int, std::int64_t>> seenShapes;
    for (const SweepShape& s : plan.shapes) {
        if (s.rows <= 0)
            throw Error("", "", "NB " + std::to_string(s.nb) + ": T = " + std::to_string(s.rows) +
                                    " rows; a sweep needs T >= 1 (check --nb, --batch, --padded-tokens, --rows-per-nb)");
        if (s.nb <= 0) throw Error("", "", "NB " + std::to_string(s.nb) + " is not a bucket (NB starts at 1)");
        if (s.rows > (std::int64_t{1} << 31))
            throw Error("", "", "NB " + std::to_string(s.nb) + ": T = " + std::to_string(s.rows) +
                                    " rows is more than the kernels index (2^31)");
        if (!seenShapes.insert({s.nb, s.rows}).second)
            throw Error("", "", "NB " + std::to_string(s.nb) + " with T = " + std::to_string(s.rows) + " is listed twice");
    }
    // A head-to-head plan measures the two policies' configs alone; every other plan needs a grid.
    if (plan.grid.empty() && plan.baselineConfigs.empty()) throw Error("", "", "the config grid is empty");
    if (!plan.baselineConfigs.empty()) {
        for (const SweepShape& s : plan.shapes) {
            if (!plan.profileConfigs.count(s.nb) || !plan.baselineConfigs.count(s.nb))
                throw Error("", "", "NB " + std::to_string(s.nb) +
                                        ": a head-to-head plan needs a config of both policies at every NB it measures");
        }
    }
    std::set<std::string> seenConfigs;
    const auto checkConfig = [&](const L2NormConfig& c, const std::string& role) {
        std::string why;
        if (!isLegalConfig(c, &why)) throw Error("", "", role + " " + configText(c) + " is illegal: " + why);
        for (const Device* d : devices) {
            if (d && plan.kernel == "native" && !d->supports(c, &why))
                throw Error("", "", role + " " + configText(c) + " cannot run on " + d->info().backend + " device " +
                                        std::to_string(d->info().index) + " (" + d->info().name + "): " + why);
        }
    };
    for (const L2NormConfig& c : plan.grid) {
        checkConfig(c, "grid config");
        if (!seenConfigs.insert(configText(c)).second)
            throw Error("", "", "grid config " + configText(c) + " appears twice in the grid");
    }
    for (const auto& [nb, c] : plan.profileConfigs) checkConfig(c, "the profile's config for NB " + std::to_string(nb) + ",");
    for (const auto& [nb, c] : plan.baselineConfigs) checkConfig(c, "the baseline's config for NB " + std::to_string(nb) + ",");
    validateTritonPlan(plan, devices);
    const StoppingRule& r = plan.rule;
    if (r.minSamples < 1) throw Error("", "", "--min-samples must be at least 1");
    if (!(r.maxRelNoise >= 0) || !std::isfinite(r.maxRelNoise)) throw Error("", "", "--noise must be a number >= 0");
    if (!(r.minTimeMs >= 0) || !std::isfinite(r.minTimeMs)) throw Error("", "", "--min-time must be >= 0");
    if (!(r.timeoutMs > 0) || !std::isfinite(r.timeoutMs)) throw Error("", "", "--timeout must be > 0");
    if (r.warmupSamples < 0 || !(r.warmupMinTimeMs >= 0)) throw Error("", "", "the warm-up must be >= 0");
    if (r.maxSamples < r.minSamples) throw Error("", "", "the sample cap must be at least --min-samples");
    if (r.pipelineDepth < 1 || r.pipelineDepth > 256) throw Error("", "", "--pipeline must be 1 to 256");
    if (plan.shard.count < 1 || plan.shard.index < 0 || plan.shard.index >= plan.shard.count)
        throw Error("", "", "--shard must be i/n with 0 <= i < n");
    if (!(plan.eps > 0) || !std::isfinite(plan.eps)) throw Error("", "", "eps must be a positive number");
    if (plan.rounds < 1 || plan.rounds > 100) throw Error("", "", "--rounds must be between 1 and 100");
    if (plan.replicas < 1 || plan.replicas > 16) throw Error("", "", "--aa-replicas must be between 1 and 16");
    if (plan.placements < 1 || plan.placements > 8) throw Error("", "", "--placements must be between 1 and 8");
    if (!(plan.raceMargin >= 0) || !std::isfinite(plan.raceMargin))
        throw Error("", "", "--race-margin must be a number >= 0");
    const std::vector<L2Regime>& regimes = plan.l2Regimes;
    const bool coldAndWarm = regimes == std::vector<L2Regime>{L2Regime::Cold, L2Regime::Warm};
    if (regimes.size() != 1 && !coldAndWarm)
        throw Error("", "", "a plan measures one L2 regime (cold, warm or hot) or cold and warm (--l2 both), not " +
                                describeL2Regimes(regimes));
    if (plan.timer != "auto" && !isTimerName(plan.timer))
        throw Error("", "", "--timer must be auto, cupti, events or steady_clock (got '" + plan.timer + "')");
}

std::vector<L2Regime> parseL2Regimes(const std::string& text) {
    if (text == "both") return {L2Regime::Cold, L2Regime::Warm};
    L2Regime regime = L2Regime::Cold;
    if (!l2RegimeFromString(text, &regime))
        throw Error("", "", "--l2 must be cold, warm, both or hot (got '" + text + "')");
    return {regime};
}

std::string describeL2Regimes(const std::vector<L2Regime>& regimes) {
    std::string text;
    for (L2Regime r : regimes) text += (text.empty() ? "" : "+") + toString(r);
    return text.empty() ? std::string("none") : text;
}

TimerOption resolvePlanTimer(SweepPlan& plan, const std::vector<Device*>& devices) {
    if (devices.empty()) throw Error("", "", "the sweep has no device to run on");
    TimerOption chosen;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string name = devices[i]->useTimer(plan.timer);
        if (i > 0 && name != chosen.name)
            throw Error("", "", deviceLabel(devices[i]->info()) + " would time with " + name + " and " +
                                    deviceLabel(devices.front()->info()) + " with " + chosen.name +
                                    ": one sweep uses one timer (give --timer)");
        for (const TimerOption& option : devices[i]->timers())
            if (option.name == name) chosen = option;
        chosen.name = name;
    }
    // Why the default is not the kernel-duration timer, when it is not: the note of the first option left out.
    if (plan.timer == "auto")
        for (const TimerOption& option : devices.front()->timers()) {
            if (option.name == chosen.name) break;
            if (!option.available) chosen.note += (chosen.note.empty() ? "" : "; ") + option.name + ": " + option.note;
        }
    plan.timer = chosen.name;
    return chosen;
}

namespace {

Json ruleToJson(const StoppingRule& r) {
    Json j = Json::object();
    j["warmup_samples"] = r.warmupSamples;
    j["warmup_min_time_ms"] = r.warmupMinTimeMs;
    j["min_samples"] = r.minSamples;
    j["min_time_ms"] = r.minTimeMs;
    j["max_rel_noise"] = r.maxRelNoise;
    j["timeout_ms"] = r.timeoutMs;
    j["max_samples"] = r.maxSamples;
    j["stop_when_stalled"] = r.stopWhenStalled;
    j["median_confidence"] = kMedianConfidence;
    j["throttle_fraction"] = kThrottleFraction;
    // Only when pipelined, so that plans of the one-at-a-time protocol hash as they always did (resume, merge).
    if (r.pipelineDepth != 1) j["pipeline_depth"] = r.pipelineDepth;
    return j;
}

Json planJson(const SweepPlan& plan, bool forHash) {
    Json j = Json::object();
    j["backend"] = plan.backend;
    Json shapes = Json::array();
    for (const SweepShape& s : plan.shapes) {
        Json shape = Json::object();
        shape["nb"] = s.nb;
        shape["rows"] = s.rows;
        shape["batch"] = positiveOrNull(s.batch);
        shape["padded_tokens"] = positiveOrNull(s.paddedTokens);
        shapes.push_back(std::move(shape));
    }
    j["shapes"] = std::move(shapes);
    Json grid = Json::array();
    for (const L2NormConfig& c : plan.grid) grid.push_back(configToJson(c));
    j["grid"] = std::move(grid);
    if (plan.profileConfigs.empty()) {
        j["profile"] = nullptr;
    } else {
        Json profile = Json::object();
        if (!forHash) {
            profile["file"] = plan.profileFile;
            profile["sha256"] = plan.profileSha256;
        }
        Json configs = Json::object();
        for (const auto& [nb, c] : plan.profileConfigs) configs[std::to_string(nb)] = configToJson(c);
        profile["configs"] = std::move(configs);
        j["profile"] = std::move(profile);
    }
    if (!plan.baselineConfigs.empty()) {  // absent for ordinary plans, so that their hashes stay as they were
        Json baseline = Json::object();
        if (!forHash) {
            baseline["file"] = plan.baselineFile;
            baseline["sha256"] = plan.baselineSha256;
        }
        Json configs = Json::object();
        for (const auto& [nb, c] : plan.baselineConfigs) configs[std::to_string(nb)] = configToJson(c);
        baseline["configs"] = std::move(configs);
        j["baseline"] = std::move(baseline);
    }
    // cold_l2 as before (true when the first regime is cold); "l2" only where it says more than cold_l2 (warm, or
    // cold and warm), and "timer" only where it is not the backend's legacy one: plans that older versions could
    // write keep their hashes (resume, merge).
    j["cold_l2"] = !plan.l2Regimes.empty() && plan.l2Regimes.front() == L2Regime::Cold;
    if (plan.l2Regimes != std::vector<L2Regime>{L2Regime::Cold} && plan.l2Regimes != std::vector<L2Regime>{L2Regime::Hot}) {
        Json regimes = Json::array();
        for (L2Regime r : plan.l2Regimes) regimes.push_back(toString(r));
        j["l2"] = std::move(regimes);
    }
    if (plan.timer != "auto" && plan.timer != legacyTimerFor(plan.backend)) j["timer"] = plan.timer;
    j["stopping_rule"] = ruleToJson(plan.rule);
    if (plan.kernel != "native") addTritonPlanJson(j, plan, forHash);
    j["eps"] = static_cast<double>(plan.eps);
    j["seed"] = plan.seed;
    j["measure_copy"] = plan.measureCopy;
    j["rounds"] = plan.rounds;
    j["race_margin"] = plan.raceMargin;
    j["order_seed"] = plan.orderSeed;
    if (plan.replicas != 1) j["replicas"] = plan.replicas;  // absent for ordinary plans
    if (plan.placements != 1) j["placements"] = plan.placements;  // absent: one placement
    if (!forHash) {
        Json shard = Json::object();
        shard["index"] = plan.shard.index;
        shard["count"] = plan.shard.count;
        j["shard"] = std::move(shard);
    }
    return j;
}

}  // namespace

Json planToJson(const SweepPlan& plan) { return planJson(plan, false); }

std::string planHash(const SweepPlan& plan) { return sha256Hex(planJson(plan, true).dump()); }

namespace {

// One shape's items in one regime, in plan order (planItems).
void addShapeItems(const SweepPlan& plan, std::size_t s, L2Regime regime, std::vector<SweepItem>& items) {
    const SweepShape& shape = plan.shapes[s];
    const auto profile = plan.profileConfigs.find(shape.nb);
    if (plan.measureCopy) {
        SweepItem copy;
        copy.kind = ResultRecord::Kind::Copy;
        copy.shapeIndex = s;
        copy.l2 = regime;
        copy.key = recordKey(copy.kind, shape.nb, shape.rows, {}, 0, regime);
        items.push_back(std::move(copy));
    }
    const auto baseline = plan.baselineConfigs.find(shape.nb);
    const auto add = [&](const L2NormConfig& config, bool inGrid, bool profileConfig, bool baselineConfig) {
        for (int replica = 0; replica < plan.replicas; ++replica) {
            SweepItem item;
            item.kind = ResultRecord::Kind::L2Norm;
            item.shapeIndex = s;
            item.config = config;
            item.inGrid = inGrid;
            item.profileConfig = profileConfig && replica == 0;
            item.baselineConfig = baselineConfig && replica == 0;
            item.replica = replica;
            item.l2 = regime;
            item.key = recordKey(item.kind, shape.nb, shape.rows, config, replica, regime);
            items.push_back(std::move(item));
        }
    };
    const auto isProfile = [&](const L2NormConfig& c) {
        return profile != plan.profileConfigs.end() && profile->second == c;
    };
    const auto isBaseline = [&](const L2NormConfig& c) {
        return baseline != plan.baselineConfigs.end() && baseline->second == c;
    };
    bool profileInGrid = false, baselineListed = false;
    for (const L2NormConfig& c : plan.grid) {
        profileInGrid = profileInGrid || isProfile(c);
        baselineListed = baselineListed || isBaseline(c);
        add(c, true, isProfile(c), isBaseline(c));
    }
    if (profile != plan.profileConfigs.end() && !profileInGrid) {
        baselineListed = baselineListed || isBaseline(profile->second);
        add(profile->second, false, true, isBaseline(profile->second));
    }
    if (baseline != plan.baselineConfigs.end() && !baselineListed) add(baseline->second, false, false, true);
}

}  // namespace

std::vector<SweepItem> planItems(const SweepPlan& plan) {
    std::vector<SweepItem> items;
    for (std::size_t s = 0; s < plan.shapes.size(); ++s) {
        if (static_cast<int>(s % static_cast<std::size_t>(plan.shard.count)) != plan.shard.index) continue;
        for (L2Regime regime : plan.l2Regimes) addShapeItems(plan, s, regime, items);
    }
    return items;
}


std::vector<std::size_t> roundOrder(const SweepPlan& plan, std::size_t shapeIndex, int round, std::size_t count) {
    std::vector<std::size_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = i;
    // Seeded per shape (by its NB and T, not its index, so a shard sees the same order) and round. Fisher-Yates
    // with the raw engine output: std::shuffle's distribution differs between standard libraries.
    const SweepShape& shape = plan.shapes.at(shapeIndex);
    std::seed_seq seq{static_cast<std::uint32_t>(plan.orderSeed), static_cast<std::uint32_t>(plan.orderSeed >> 32),
                      static_cast<std::uint32_t>(shape.nb), static_cast<std::uint32_t>(shape.rows),
                      static_cast<std::uint32_t>(shape.rows >> 32), static_cast<std::uint32_t>(round)};
    std::mt19937_64 engine(seq);
    for (std::size_t i = count; i > 1; --i) std::swap(order[i - 1], order[engine() % i]);
    return order;
}

std::unique_ptr<TimedWork> makeWork(Device& device, const SweepPlan& plan, const SweepItem& item) {
    if (item.kind == ResultRecord::Kind::Copy) return device.copyWork();
    return makeSweepL2NormWork(device, plan, item.config, plan.shapes[item.shapeIndex].nb, nullptr);
}

// --- running ----------------------------------------------------------------------------------------------------

namespace {

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string hostName() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "";
    return name;
}

bool hasCompleteFirstLine(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string first;
    return static_cast<bool>(std::getline(in, first)) && !in.eof();
}

struct ShapeTask {
    std::size_t shapeIndex = 0;
    std::vector<SweepItem> items;
};

// One item of a shape in flight: its round measurements until the shape's block is written.
struct Slot {
    const SweepItem* item = nullptr;
    std::vector<Measurement> rounds;
    std::vector<RoundSummary> summaries;
    std::uint64_t bytes = 0;
    bool active = true;
    bool racedOut = false;
    std::string error;  // non-empty: failed
};

// Pools a slot's rounds into one record's Measurement: raw arrays concatenated (conditions a round did not report
// are -1), statistics over the pooled unthrottled samples, and the estimate = median of the round medians. With
// several rounds the record's p20/p80 are the medians of the round p20s/p80s (the typical round's spread), not the
// pooled samples' quantiles: rounds of different lengths and levels (a loaded machine) could otherwise put the
// estimate outside its own p20-p80, and promote's evidence would be refused (p20 <= median <= p80).
Measurement pooledMeasurement(Slot& slot, int referenceClock) {
    Measurement m;
    const auto anyHas = [&](auto member) {
        return std::any_of(slot.rounds.begin(), slot.rounds.end(), [&](const Measurement& r) { return !(r.*member).empty(); });
    };
    const bool mem = anyHas(&Measurement::memClockMHz), power = anyHas(&Measurement::powerW),
               temperature = anyHas(&Measurement::temperatureC), events = anyHas(&Measurement::clockEventReasons);
    std::vector<double> medians, p20s, p80s;
    bool allConverged = true;
    for (std::size_t r = 0; r < slot.rounds.size(); ++r) {
        const Measurement& round = slot.rounds[r];
        RoundSummary& summary = slot.summaries[r];
        summary.firstSample = static_cast<int>(m.samplesMs.size());
        summary.sampleCount = round.sampleCount;
        summary.throttledCount = round.throttledCount;
        summary.medianMs = round.medianMs;
        summary.p20Ms = round.p20Ms;
        summary.p80Ms = round.p80Ms;
        summary.ciLowMs = round.ciLowMs;
        summary.ciHighMs = round.ciHighMs;
        summary.wallTimeMs = round.wallTimeMs;
        summary.stopReason = round.stopReason;
        const std::size_t n = round.samplesMs.size();
        m.samplesMs.insert(m.samplesMs.end(), round.samplesMs.begin(), round.samplesMs.end());
        m.smClockMHz.insert(m.smClockMHz.end(), round.smClockMHz.begin(), round.smClockMHz.end());
        const auto append = [n](auto& to, const auto& from, auto missing) {
            if (from.empty()) to.insert(to.end(), n, missing);
            else to.insert(to.end(), from.begin(), from.end());
        };
        if (mem) append(m.memClockMHz, round.memClockMHz, -1);
        if (power) append(m.powerW, round.powerW, -1.0);
        if (temperature) append(m.temperatureC, round.temperatureC, -1.0);
        if (events) append(m.clockEventReasons, round.clockEventReasons, -1LL);
        m.warmupCount += round.warmupCount;
        m.wallTimeMs += round.wallTimeMs;
        m.timedOut = m.timedOut || round.timedOut;
        m.stopReason = round.stopReason;
        allConverged = allConverged && round.converged;
        if (std::isfinite(round.medianMs)) {
            medians.push_back(round.medianMs);
            // Each round's p20 <= median <= p80, so the medians of the three lists keep that order.
            p20s.push_back(std::isfinite(round.p20Ms) ? std::min(round.p20Ms, round.medianMs) : round.medianMs);
            p80s.push_back(std::isfinite(round.p80Ms) ? std::max(round.p80Ms, round.medianMs) : round.medianMs);
        }
        referenceClock = std::max(referenceClock, round.referenceClockMHz);
    }
    computeStatistics(m, referenceClock);
    m.converged = allConverged;
    if (medians.size() >= 2) {
        std::sort(medians.begin(), medians.end());
        m.medianMs = quantileSorted(medians, 0.5);
        std::sort(p20s.begin(), p20s.end());
        std::sort(p80s.begin(), p80s.end());
        m.p20Ms = quantileSorted(p20s, 0.5);
        m.p80Ms = quantileSorted(p80s, 0.5);
        m.ciLowMs = medians.front();
        m.ciHighMs = medians.back();
        m.relNoise = m.medianMs > 0 ? (m.ciHighMs - m.ciLowMs) / 2.0 / m.medianMs : std::numeric_limits<double>::infinity();
    } else if (slot.rounds.size() == 1) {
        const Measurement& only = slot.rounds.front();
        m.medianMs = only.medianMs;
        m.ciLowMs = only.ciLowMs;
        m.ciHighMs = only.ciHighMs;
        m.relNoise = only.relNoise;
    }
    return m;
}

// Rewrites `file` keeping its header (or putting `newHeader` in its place) and the lines not in `dropLines`
// (1-based); returns the new size.
std::uint64_t rewriteWithout(const std::filesystem::path& file, std::uint64_t validBytes,
                             const std::set<std::size_t>& dropLines, const std::string& newHeader = "") {
    std::string text = readTextFile(file, kMaxResultsFileBytes);
    text.resize(std::min<std::size_t>(text.size(), validBytes));
    std::string kept;
    std::size_t pos = 0, line = 0;
    while (pos < text.size()) {
        const std::size_t newline = text.find('\n', pos);
        const std::size_t end = newline == std::string::npos ? text.size() : newline + 1;
        ++line;
        if (line == 1 && !newHeader.empty()) kept += newHeader + "\n";
        else if (!dropLines.count(line)) kept.append(text, pos, end - pos);
        pos = end;
    }
    writeFileAtomic(file, kept);
    return kept.size();
}

// --- one runSweep call: open the results file, queue the pending shapes, run a worker per device ----------------

// The file's header as this run would write it: who measured what, and the plan (its hash decides resuming).
ResultsHeader resultsHeader(const SweepPlan& plan, const std::vector<Device*>& devices) {
    ResultsHeader header;
    header.format = kResultsFormat;
    header.tunescopeVersion = versionString();
    header.gitSha = gitSha();
    header.createdUtc = utcNow();
    header.host = hostName();
    for (const Device* d : devices) header.devices.push_back(d->info());
    header.plan = planToJson(plan);
    header.planHash = planHash(plan);
    return header;
}

// What the workers of one runSweep call share.
struct SweepRun {
    SweepRun(const SweepPlan& plan, const SweepOptions& options)
        : plan(plan), options(options), outName(options.out.string()) {}

    void note(const std::string& text) const {
        if (options.note) options.note(text);
    }
    bool stopNow() const { return abort.load() || (options.stopRequested && options.stopRequested->load()); }
    ShapeTask* takeTask() {
        std::lock_guard lock(mutex);
        return nextTask < tasks.size() ? &tasks[nextTask++] : nullptr;
    }

    const SweepPlan& plan;
    const SweepOptions& options;
    const std::string outName;
    std::optional<ResultsWriter> writer;
    std::vector<ShapeTask> tasks;  // pending work, a shape each: prepared once, its rounds back to back on one device
    std::mutex mutex;              // guards outcome, progress calls, the progress totals, the queue, fatal
    SweepOutcome outcome;
    std::size_t nextTask = 0;
    std::size_t finished = 0;
    std::size_t plannedMeasurements = 0;
    std::atomic<bool> abort{false};
    std::string fatal;
    std::chrono::steady_clock::time_point start;
};

// --- resume -----------------------------------------------------------------------------------------------------

// An existing file is resumed only when it holds this plan (and shard) measured on devices of the same identity.
void checkResumable(const ResultsHeader& existing, const ResultsHeader& header, const SweepRun& run) {
    if (existing.planHash != header.planHash)
        throw Error(run.outName, "line 1, /plan_hash",
                    "holds results of a different sweep plan (other shapes, grid, stopping rule, rounds, mode, "
                    "seed or profile configs); use another --out, or the same options to resume it");
    if (existing.plan.is_object() && existing.plan.contains("shard") && existing.plan["shard"] != header.plan["shard"])
        throw Error(run.outName, "line 1, /plan/shard", "holds a different shard of this plan; use another --out");
    std::string why;
    if (!sameDeviceIdentities(existing.devices, header.devices, &why)) {
        if (!run.options.allowMixedDevices)
            throw Error(run.outName, "line 1, /devices",
                        "was measured on other devices (" + why + "); a decision must compare measurements of "
                        "one device: use another --out, or --allow-mixed-devices to resume anyway");
        run.note("resuming a file of other devices (" + why + ") because of --allow-mixed-devices");
    }
}

// A shape is complete when each of its items has a measurement or an error line; the lines of an incomplete shape
// (a kill while its block was written) go to `dropLines`, to be cut out: the shape is measured again.
std::set<std::size_t> completeShapes(const ResultsFile& existing, const std::vector<SweepItem>& items,
                                     std::set<std::size_t>& dropLines, std::size_t& keptLines) {
    std::map<std::string, std::vector<std::size_t>> linesByKey;
    for (const ResultRecord& r : existing.records) linesByKey[recordKey(r)].push_back(r.line);
    for (const ResultError& e : existing.errors)
        linesByKey[recordKey(e)].push_back(e.line);
    std::map<std::size_t, std::vector<const SweepItem*>> byShape;
    for (const SweepItem& item : items) byShape[item.shapeIndex].push_back(&item);
    std::set<std::size_t> done;
    for (const auto& [shapeIndex, shapeItems] : byShape) {
        const bool complete = std::all_of(shapeItems.begin(), shapeItems.end(),
                                          [&](const SweepItem* item) { return linesByKey.count(item->key) > 0; });
        for (const SweepItem* item : shapeItems) {
            const auto found = linesByKey.find(item->key);
            if (found == linesByKey.end()) continue;
            if (complete) keptLines += found->second.size();
            else dropLines.insert(found->second.begin(), found->second.end());
        }
        if (complete) done.insert(shapeIndex);
    }
    return done;
}

// Resumes run.options.out when it has a complete header line, else creates it with `header`. Returns the shapes
// the file already holds completely.
std::set<std::size_t> openResults(SweepRun& run, const ResultsHeader& header, const std::vector<SweepItem>& items) {
    const std::filesystem::path& out = run.options.out;
    std::error_code ec;
    const bool resume = std::filesystem::exists(out, ec) && std::filesystem::file_size(out, ec) > 0 &&
                        hasCompleteFirstLine(out);
    if (!resume) {
        run.writer.emplace(ResultsWriter::create(out, header));
        return {};
    }
    const ResultsFile existing = loadResults(out);
    checkResumable(existing.header, header, run);
    std::set<std::size_t> dropLines;
    std::size_t keptLines = 0;
    std::set<std::size_t> doneShapes = completeShapes(existing, items, dropLines, keptLines);
    // The reader takes a record only from a device of its header: devices this run adds (another index of the same
    // model, or any device under --allow-mixed-devices) join the header before they write a line.
    Json headerLine = existing.header.raw;
    std::size_t added = 0;
    for (const DeviceInfo& d : header.devices) {
        const bool listed = std::any_of(existing.header.devices.begin(), existing.header.devices.end(), [&](const DeviceInfo& e) {
            return e.backend == d.backend && e.index == d.index && e.name == d.name;
        });
        if (!listed && headerLine.is_object() && headerLine["devices"].is_array()) {
            headerLine["devices"].push_back(deviceInfoToJson(d));
            ++added;
        }
    }
    std::uint64_t validBytes = existing.validBytes;
    if (!dropLines.empty() || added > 0)
        validBytes = rewriteWithout(out, existing.validBytes, dropLines,
                                    added > 0 ? headerLine.dump(-1, ' ', false, Json::error_handler_t::replace) : "");
    run.writer.emplace(out, validBytes);
    run.note("resuming " + run.outName + ": " + std::to_string(doneShapes.size()) + " complete shapes (" +
             std::to_string(keptLines) + " lines) already there" +
             (dropLines.empty() ? ""
                                : "; " + std::to_string(dropLines.size()) + " lines of incomplete shapes cut out") +
             (existing.truncatedTail ? "; cut off an incomplete last line" : ""));
    return doneShapes;
}

// --- the queue --------------------------------------------------------------------------------------------------

// The items still to measure, grouped by shape in plan order; items of complete shapes count as resumed.
std::vector<ShapeTask> pendingTasks(const std::vector<SweepItem>& items, const std::set<std::size_t>& doneShapes,
                                    const SweepOptions& options, std::size_t& resumed) {
    std::vector<ShapeTask> tasks;
    for (const SweepItem& item : items) {
        if (doneShapes.count(item.shapeIndex)) {
            ++resumed;
            continue;
        }
        if (options.onlyShapes && !options.onlyShapes->count(item.shapeIndex)) continue;  // left for a later call
        if (tasks.empty() || tasks.back().shapeIndex != item.shapeIndex) tasks.push_back({item.shapeIndex, {}});
        tasks.back().items.push_back(item);
    }
    return tasks;
}

// --- the worker: one device's measuring loop --------------------------------------------------------------------

double gbpsOf(std::uint64_t bytes, double medianMs) {
    return medianMs > 0 ? static_cast<double>(bytes) / medianMs / 1e6 : 0;
}

class SweepWorker {
public:
    SweepWorker(SweepRun& run, Device& device)
        : run_(run), plan_(run.plan), options_(run.options), device_(device), info_(device.info()),
          label_(info_.backend + ":" + std::to_string(info_.index) + " (" + info_.name + ")"),
          warmedUp_(options_.deviceWarmupMs <= 0) {}

    // Takes shapes from the queue until it is empty, the run stops or this device gives up.
    void run() {
        try {
            while (!run_.stopNow()) {
                ShapeTask* task = run_.takeTask();
                if (!task || !measureShape(*task)) break;
            }
        } catch (const std::exception& e) {
            // Only writing the results file gets here: nothing more can be saved, so every worker stops.
            std::lock_guard lock(run_.mutex);
            if (run_.fatal.empty()) run_.fatal = e.what();
            run_.abort = true;
        }
    }

private:
    enum class RoundsEnd { Done, Stopped, GaveUp };

    // False when this worker stops: interrupted (the shape is measured again on resume) or given up.
    bool measureShape(ShapeTask& task) {
        if (const std::optional<std::string> failure = prepareShape(task)) {
            if (++consecutiveErrors_ < options_.maxConsecutiveErrors) return true;
            giveUp("; last: " + *failure);
            return false;
        }
        if (!warmedUp_) warmUpDevice();
        std::vector<Slot> slots(task.items.size());
        for (std::size_t i = 0; i < slots.size(); ++i) slots[i].item = &task.items[i];
        const RoundsEnd end = measureRounds(task, slots);
        if (end == RoundsEnd::Stopped) return false;  // the shape in progress is measured again on resume
        if (end == RoundsEnd::GaveUp) {
            writeFailures(slots);
            giveUp(" (the device may be lost)");
            return false;
        }
        writeBlock(slots);
        return true;
    }

    // The shape's input on the device; when that fails, an error line per item and the failure's message.
    std::optional<std::string> prepareShape(const ShapeTask& task) {
        const SweepShape& shape = plan_.shapes[task.shapeIndex];
        try {
            if (plan_.placements > 1) {
                placementsKept_ = device_.setL2NormPlacements(plan_.placements);
                if (placementsKept_ < plan_.placements && !placementNoteShown_) {
                    run_.note(label_ + ": keeps " + std::to_string(placementsKept_) + " buffer placement(s) of the " +
                              std::to_string(plan_.placements) + " asked for; each round's record says which it used");
                    placementNoteShown_ = true;
                }
            }
            device_.prepareL2Norm(shape.rows, plan_.seed);
            return std::nullopt;
        } catch (const std::exception& e) {
            const std::string message = "preparing T = " + std::to_string(shape.rows) + " rows failed: " + e.what();
            for (const SweepItem& item : task.items) {
                run_.writer->append(errorLine(item, message));
                {
                    std::lock_guard lock(run_.mutex);
                    ++run_.outcome.failed;
                    run_.plannedMeasurements -= static_cast<std::size_t>(plan_.rounds) - 1;
                }
                report(item, 0, nullptr, message);
            }
            return message;
        }
    }

    // Clocks and the memory system ramp up under load: run the copy for a while, keep nothing.
    void warmUpDevice() {
        try {
            auto warm = device_.copyWork();
            const auto warmStart = std::chrono::steady_clock::now();
            while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmStart).count() <
                   options_.deviceWarmupMs) {
                warm->beforeSample(L2Regime::Hot);
                (void)warm->timeSampleMs();
            }
        } catch (const std::exception& e) {
            run_.note(label_ + ": device warm-up failed (" + e.what() + "); measuring anyway");
        }
        warmedUp_ = true;
    }

    RoundsEnd measureRounds(const ShapeTask& task, std::vector<Slot>& slots) {
        for (int round = 0; round < plan_.rounds; ++round) {
            const RoundsEnd end = measureRound(task, slots, round);
            if (end == RoundsEnd::Done && round == 0 && plan_.rounds > 1) raceOut(slots);
            std::lock_guard lock(run_.mutex);
            for (const Slot& slot : slots)
                if (!slot.active && static_cast<int>(slot.rounds.size()) == round + 1 && round + 1 < plan_.rounds)
                    run_.plannedMeasurements -= static_cast<std::size_t>(plan_.rounds - round - 1);
            if (end != RoundsEnd::Done) return end;
        }
        return RoundsEnd::Done;
    }

    // Every active slot once, in the round's shuffled order.
    RoundsEnd measureRound(const ShapeTask& task, std::vector<Slot>& slots, int round) {
        std::vector<std::size_t> active;
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (slots[i].active) active.push_back(i);
        const std::vector<std::size_t> order = roundOrder(plan_, task.shapeIndex, round, active.size());
        int placement = -1;  // not recorded: a plan of one placement
        if (plan_.placements > 1) {
            placement = round % placementsKept_;
            device_.useL2NormPlacement(placement);
        }
        for (std::size_t position = 0; position < order.size(); ++position) {
            if (run_.stopNow()) return RoundsEnd::Stopped;
            measureSlot(slots[active[order[position]]], round, position, placement);
            if (consecutiveErrors_ >= options_.maxConsecutiveErrors) return RoundsEnd::GaveUp;
        }
        return RoundsEnd::Done;
    }

    void measureSlot(Slot& slot, int round, std::size_t position, int placement) {
        const SweepItem& item = *slot.item;
        try {
            std::unique_ptr<TimedWork> work = makeWork(device_, plan_, item);
            MeasureContext context;
            context.referenceClockMHz = referenceClock_;
            Measurement m = measure(*work, plan_.rule, item.l2, context);
            referenceClock_ = std::max(referenceClock_, m.referenceClockMHz);
            slot.bytes = work->bytesMoved();
            RoundSummary summary;
            summary.round = round;
            summary.position = static_cast<int>(position);
            summary.placement = placement;
            slot.summaries.push_back(summary);
            slot.rounds.push_back(std::move(m));
            consecutiveErrors_ = 0;
            ResultRecord shown = baseRecord(item);
            shown.m = slot.rounds.back();
            shown.bytes = slot.bytes;
            shown.gbps = gbpsOf(shown.bytes, shown.m.medianMs);
            report(item, round, &shown, "");
        } catch (const Error& e) {
            if (!e.file().empty() && e.file() == run_.outName) throw;  // the results file itself failed
            failSlot(slot, round, e.what());
        } catch (const std::exception& e) {
            failSlot(slot, round, e.what());
        }
    }

    void failSlot(Slot& slot, int round, const std::string& message) {
        slot.error = message;
        slot.active = false;
        ++consecutiveErrors_;
        report(*slot.item, round, nullptr, slot.error);
    }

    // Racing: after round 1, configs clearly slower than the round's best in their regime need no more rounds: their
    // median's interval lies above the best's interval by more than the race margin (on a noisy machine the intervals
    // are wide and few configs leave).
    void raceOut(std::vector<Slot>& slots) const {
        std::map<L2Regime, const Measurement*> bestOf;
        for (const Slot& slot : slots) {
            const Measurement*& best = bestOf[slot.item->l2];
            if (slot.active && slot.item->kind == ResultRecord::Kind::L2Norm && !slot.rounds.empty() &&
                (!best || slot.rounds.back().medianMs < best->medianMs))
                best = &slot.rounds.back();
        }
        for (Slot& slot : slots) {
            const Measurement* best = bestOf[slot.item->l2];
            const double bar = best ? best->ciHighMs * (1 + plan_.raceMargin) : std::numeric_limits<double>::infinity();
            // The policies' own configs (and their replicas) are what a decision is about.
            if (!slot.active || slot.item->kind != ResultRecord::Kind::L2Norm || slot.item->profileConfig ||
                slot.item->baselineConfig || !slot.item->inGrid || slot.rounds.empty() ||
                !(slot.rounds.back().ciLowMs > bar))
                continue;
            slot.active = false;
            slot.racedOut = true;
        }
    }

    // Keep the failures visible; the shape is incomplete and is measured again on resume.
    void writeFailures(const std::vector<Slot>& slots) {
        std::size_t failedItems = 0;
        for (const Slot& slot : slots)
            if (!slot.error.empty()) {
                run_.writer->append(errorLine(*slot.item, slot.error));
                ++failedItems;
            }
        std::lock_guard lock(run_.mutex);
        run_.outcome.failed += failedItems;
    }

    // The shape's block: the copy first (its estimate is every record's ceiling), then the configs.
    void writeBlock(std::vector<Slot>& slots) {
        std::vector<Json> lines;
        std::vector<ResultRecord> written;
        std::map<L2Regime, double> copyGbps;  // each regime's own ceiling
        std::size_t measuredItems = 0, failedItems = 0, racedItems = 0;
        std::vector<std::size_t> writeOrder;
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (slots[i].item->kind == ResultRecord::Kind::Copy) writeOrder.insert(writeOrder.begin(), i);
            else writeOrder.push_back(i);
        for (std::size_t i : writeOrder) {
            Slot& slot = slots[i];
            if (!slot.error.empty()) {
                lines.push_back(errorLine(*slot.item, slot.error));
                ++failedItems;
                continue;
            }
            ResultRecord rec = baseRecord(*slot.item);
            rec.m = pooledMeasurement(slot, referenceClock_);
            rec.rounds = slot.summaries;
            rec.racedOut = slot.racedOut;
            rec.bytes = slot.bytes;
            rec.gbps = gbpsOf(rec.bytes, rec.m.medianMs);
            if (rec.kind == ResultRecord::Kind::Copy) {
                copyGbps[rec.l2] = rec.gbps;
            } else if (const auto copy = copyGbps.find(rec.l2); copy != copyGbps.end() && copy->second > 0) {
                rec.copyGbps = copy->second;
                rec.fractionOfCopy = rec.gbps / copy->second;
            }
            lines.push_back(recordToJson(rec));
            written.push_back(std::move(rec));
            ++measuredItems;
            racedItems += slot.racedOut ? 1 : 0;
        }
        run_.writer->appendBlock(lines);
        std::lock_guard lock(run_.mutex);
        run_.outcome.measured += measuredItems;
        run_.outcome.failed += failedItems;
        run_.outcome.racedOut += racedItems;
        if (options_.recordWritten)
            for (const ResultRecord& rec : written) options_.recordWritten(rec);
    }

    ResultRecord baseRecord(const SweepItem& item) const {
        const SweepShape& shape = plan_.shapes[item.shapeIndex];
        ResultRecord rec;
        rec.kind = item.kind;
        rec.nb = shape.nb;
        rec.rows = shape.rows;
        rec.batch = shape.batch;
        rec.paddedTokens = shape.paddedTokens;
        rec.config = item.config;
        rec.inGrid = item.inGrid;
        rec.profileConfig = item.profileConfig;
        rec.baselineConfig = item.baselineConfig;
        rec.replica = item.replica;
        rec.deviceBackend = info_.backend;
        rec.deviceIndex = info_.index;
        rec.deviceName = info_.name;
        rec.l2 = item.l2;
        rec.timer = device_.timer();
        if (item.kind == ResultRecord::Kind::L2Norm && plan_.kernel == "triton" && plan_.triton)
            rec.kernelSource = tritonKernelSourceJson(requireTritonVariant(*plan_.triton, item.config, shape.nb));
        return rec;
    }

    Json errorLine(const SweepItem& item, const std::string& message) const {
        const SweepShape& shape = plan_.shapes[item.shapeIndex];
        ResultError e;
        e.kind = item.kind;
        e.nb = shape.nb;
        e.rows = shape.rows;
        e.config = item.config;
        e.replica = item.replica;
        e.l2 = item.l2;
        e.deviceBackend = info_.backend;
        e.deviceIndex = info_.index;
        e.deviceName = info_.name;
        e.message = message;
        return errorToJson(e);
    }

    // One measurement (item x round) done: counted, its failure listed, and the progress callback told.
    void report(const SweepItem& item, int round, const ResultRecord* record, const std::string& error) {
        std::lock_guard lock(run_.mutex);
        ++run_.finished;
        ++run_.outcome.measurements;
        if (!record)
            run_.outcome.errors.push_back(label_ + ": NB " + std::to_string(plan_.shapes[item.shapeIndex].nb) + " " +
                                          (item.kind == ResultRecord::Kind::Copy ? std::string("copy")
                                                                                 : configText(item.config)) +
                                          " round " + std::to_string(round + 1) + ": " + error);
        if (!options_.progress) return;
        SweepProgress p;
        p.done = run_.finished;
        p.total = std::max(run_.plannedMeasurements, run_.finished);
        p.resumed = run_.outcome.resumed;
        p.failed = run_.outcome.failed + (record ? 0 : 1);
        p.elapsedS = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_.start).count();
        p.etaS = p.elapsedS / static_cast<double>(run_.finished) * static_cast<double>(p.total - run_.finished);
        p.item = &item;
        p.shape = &plan_.shapes[item.shapeIndex];
        p.record = record;
        p.error = error;
        p.device = &info_;
        p.round = round;
        p.rounds = plan_.rounds;
        options_.progress(p);
    }

    void giveUp(const std::string& why) const {
        run_.note(label_ + ": giving up after " + std::to_string(consecutiveErrors_) + " failures in a row" + why);
    }

    SweepRun& run_;
    const SweepPlan& plan_;
    const SweepOptions& options_;
    Device& device_;
    const DeviceInfo info_;
    const std::string label_;  // "cuda:0 (NVIDIA H200)" in notes and failure lines
    int referenceClock_ = -1;
    int placementsKept_ = 1;  // what the device keeps of plan_.placements (setL2NormPlacements)
    bool placementNoteShown_ = false;
    int consecutiveErrors_ = 0;
    bool warmedUp_;
};

// One worker per device, all pulling shapes from the run's queue (one device: on this thread).
void runWorkers(SweepRun& run, const std::vector<Device*>& devices) {
    if (devices.size() == 1) {
        SweepWorker(run, *devices.front()).run();
        return;
    }
    std::vector<std::thread> threads;
    for (Device* d : devices) threads.emplace_back([&run, d] { SweepWorker(run, *d).run(); });
    for (std::thread& t : threads) t.join();
}

}  // namespace

SweepOutcome runSweep(const SweepPlan& requested, const std::vector<Device*>& devices, const SweepOptions& options) {
    if (devices.empty()) throw Error("", "", "the sweep has no device to run on");
    validatePlan(requested, std::vector<const Device*>(devices.begin(), devices.end()));
    SweepPlan plan = requested;  // with the timer the devices use: the header, its hash and every record say it
    resolvePlanTimer(plan, devices);
    const std::string outName = options.out.string();
    if (outName.empty()) throw Error("", "", "the sweep needs a results file (--out)");
    if (std::filesystem::is_directory(options.out)) throw Error(outName, "", "is a folder, not a results file");

    const std::vector<SweepItem> items = planItems(plan);
    SweepRun run(plan, options);
    run.outcome.total = items.size();
    const std::set<std::size_t> doneShapes = openResults(run, resultsHeader(plan, devices), items);
    run.tasks = pendingTasks(items, doneShapes, options, run.outcome.resumed);
    const std::size_t pendingItems = run.outcome.total - run.outcome.resumed;
    std::size_t itemsThisCall = 0;
    for (const ShapeTask& task : run.tasks) itemsThisCall += task.items.size();
    run.plannedMeasurements = itemsThisCall * static_cast<std::size_t>(plan.rounds);
    run.start = std::chrono::steady_clock::now();

    runWorkers(run, devices);

    if (!run.fatal.empty()) throw Error("", "", run.fatal);
    SweepOutcome& outcome = run.outcome;
    outcome.notRun = pendingItems - outcome.measured - outcome.failed;
    outcome.interrupted = options.stopRequested && options.stopRequested->load() && outcome.notRun > 0;
    return outcome;
}

std::vector<SweepOutcome> runInterleavedSweeps(const std::vector<InterleavedSweep>& sweeps,
                                               const std::vector<Device*>& devices) {
    if (sweeps.empty()) return {};
    for (const InterleavedSweep& sweep : sweeps) {
        if (!sweep.plan) throw Error("", "", "an interleaved sweep has no plan");
        if (sweep.plan->shapes != sweeps.front().plan->shapes || sweep.plan->shard.index != sweeps.front().plan->shard.index ||
            sweep.plan->shard.count != sweeps.front().plan->shard.count)
            throw Error("", "", "interleaved sweeps must measure the same shapes (and shard)");
    }
    // The steps, in order: per shape of this shard, every sweep once, the first one rotating with the shape.
    struct Step {
        std::size_t sweep = 0, shape = 0;
        std::size_t measurements = 0;  // upper bound: items x rounds (racing lowers it)
    };
    std::vector<std::vector<std::size_t>> itemsPerShape(sweeps.size());
    for (std::size_t k = 0; k < sweeps.size(); ++k) {
        itemsPerShape[k].assign(sweeps[k].plan->shapes.size(), 0);
        for (const SweepItem& item : planItems(*sweeps[k].plan)) ++itemsPerShape[k][item.shapeIndex];
    }
    std::vector<Step> steps;
    std::size_t turn = 0;
    for (std::size_t shape = 0; shape < sweeps.front().plan->shapes.size(); ++shape) {
        if (itemsPerShape.front()[shape] == 0) continue;  // another shard's shape
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            const std::size_t k = (turn + i) % sweeps.size();
            steps.push_back({k, shape, itemsPerShape[k][shape] * static_cast<std::size_t>(sweeps[k].plan->rounds)});
        }
        ++turn;
    }

    std::vector<SweepOutcome> outcomes(sweeps.size());
    std::vector<bool> started(sweeps.size(), false);
    std::size_t doneBefore = 0;  // measurements of the finished steps
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const Step& step = steps[s];
        const InterleavedSweep& sweep = sweeps[step.sweep];
        std::size_t later = 0;
        for (std::size_t t = s + 1; t < steps.size(); ++t) later += steps[t].measurements;
        SweepOptions options = sweep.options;
        options.onlyShapes = std::set<std::size_t>{step.shape};
        if (s > 0) options.deviceWarmupMs = 0;  // the device is warm from the step before
        const bool first = !started[step.sweep];
        if (sweep.options.note)
            options.note = [&sweep, first](const std::string& text) {
                // Each step reopens the file; only the first says how much of it was there already.
                if (first || text.rfind("resuming ", 0) != 0) sweep.options.note(text);
            };
        if (sweep.options.progress)
            options.progress = [&sweep, doneBefore, later, start](const SweepProgress& p) {
                SweepProgress overall = p;
                overall.done = doneBefore + p.done;
                overall.total = overall.done + (p.total - p.done) + later;
                overall.elapsedS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                overall.etaS = overall.elapsedS / static_cast<double>(overall.done) *
                               static_cast<double>(overall.total - overall.done);
                sweep.options.progress(overall);
            };
        const SweepOutcome o = runSweep(*sweep.plan, devices, options);
        SweepOutcome& total = outcomes[step.sweep];
        if (first) {
            total.total = o.total;
            total.resumed = o.resumed;
            started[step.sweep] = true;
        }
        total.measurements += o.measurements;
        total.racedOut += o.racedOut;
        total.measured += o.measured;
        total.failed += o.failed;
        total.errors.insert(total.errors.end(), o.errors.begin(), o.errors.end());
        doneBefore += o.measurements;
        if (sweep.options.stopRequested && sweep.options.stopRequested->load()) break;
    }
    for (std::size_t k = 0; k < sweeps.size(); ++k) {
        SweepOutcome& o = outcomes[k];
        if (!started[k]) o.total = planItems(*sweeps[k].plan).size();
        o.notRun = o.total - o.resumed - o.measured - o.failed;
        o.interrupted = sweeps[k].options.stopRequested && sweeps[k].options.stopRequested->load() && o.notRun > 0;
    }
    return outcomes;
}

// --- decisions --------------------------------------------------------------------------------------------------

bool tieRuleBefore(const L2NormConfig& a, const L2NormConfig& b) {
    return std::tie(a.blockRows, a.numWarps, a.numStages, a.numCtas) <
           std::tie(b.blockRows, b.numWarps, b.numStages, b.numCtas);
}

ShapeDecision decideShape(const std::vector<const ResultRecord*>& records, double threshold) {
    ShapeDecision d;
    d.threshold = threshold;
    // One regime and one timer per decision: a warm time against a cold one, or an event time against a kernel
    // duration, says nothing about the configs.
    for (const ResultRecord* r : records) {
        if (r->l2 != records.front()->l2)
            throw Error("", "", "NB " + std::to_string(r->nb) + ": a decision over records of two L2 regimes (" +
                                    toString(records.front()->l2) + " and " + toString(r->l2) + ")");
        if (r->timer != records.front()->timer)
            throw Error("", "", "NB " + std::to_string(r->nb) + ": a decision over records of two timers (" +
                                    records.front()->timer + " and " + r->timer + ")");
    }
    std::vector<std::vector<double>> series;
    for (const ResultRecord* r : records) {
        if (r->kind != ResultRecord::Kind::L2Norm || r->m.sampleCount <= 0 || !std::isfinite(r->m.medianMs) ||
            r->m.medianMs <= 0)
            continue;
        d.configs.push_back(r);
        d.rounds = std::max(d.rounds, std::max<int>(1, static_cast<int>(r->rounds.size())));
    }
    if (d.configs.empty()) return d;
    for (const ResultRecord* r : d.configs) series.push_back(roundMedians(*r, d.rounds));
    poolRoundNoise(series, &d.pooledLogSd, &d.pooledDf);
    const auto fullRounds = [&](const ResultRecord* r) {
        return !r->racedOut && std::max<int>(1, static_cast<int>(r->rounds.size())) == d.rounds;
    };
    for (const ResultRecord* r : d.configs)
        if (fullRounds(r) && (!d.fastest || r->m.medianMs < d.fastest->m.medianMs)) d.fastest = r;
    if (!d.fastest)
        for (const ResultRecord* r : d.configs)
            if (!d.fastest || r->m.medianMs < d.fastest->m.medianMs) d.fastest = r;
    for (const ResultRecord* r : d.configs) {
        if (r == d.fastest) {
            d.ties.push_back(r);
            continue;
        }
        if (r->racedOut) continue;
        if (comparePairedRecords(*r, *d.fastest, d).verdict != Comparison::Slower) d.ties.push_back(r);
    }
    // The tie rule's order: the fastest estimate first (a run's pick lands in another run's tie set far more
    // often than a fixed corner of the grid does, BENCHMARKS.md run 10), equal estimates by config.
    std::sort(d.ties.begin(), d.ties.end(), [](const ResultRecord* a, const ResultRecord* b) {
        if (a->m.medianMs != b->m.medianMs) return a->m.medianMs < b->m.medianMs;
        return tieRuleBefore(a->config, b->config);
    });
    return d;
}

PairedComparison comparePairedRecords(const ResultRecord& a, const ResultRecord& b, const ShapeDecision& shape) {
    PairedOptions options;
    options.threshold = shape.threshold;
    options.pooledLogSd = shape.pooledLogSd;
    options.pooledDf = shape.pooledDf;
    options.familySize = std::max<int>(1, static_cast<int>(shape.configs.size()));
    return comparePaired(roundMedians(a, shape.rounds), roundMedians(b, shape.rounds), options);
}

// --- queue-position effect --------------------------------------------------------------------------------------

QueuePositionEffect queuePositionEffect(const std::vector<const ResultRecord*>& records, int depth) {
    QueuePositionEffect effect;
    effect.depth = std::max(1, depth);
    effect.ratio.assign(static_cast<std::size_t>(effect.depth), 1.0);
    if (effect.depth <= 1) return effect;
    std::vector<std::vector<double>> byPosition(static_cast<std::size_t>(effect.depth));
    for (const ResultRecord* r : records) {
        const std::vector<double>& raw = r->m.samplesMs;
        if (raw.empty() || !(r->m.medianMs > 0)) continue;
        // One slice per round (v1 records: the whole record); positions restart with each measurement.
        std::vector<std::pair<std::size_t, std::size_t>> slices;
        for (const RoundSummary& round : r->rounds)
            slices.emplace_back(static_cast<std::size_t>(std::max(0, round.firstSample)),
                                static_cast<std::size_t>(std::max(0, round.sampleCount)));
        if (slices.empty()) slices.emplace_back(0, raw.size());
        for (const auto& [first, count] : slices) {
            for (std::size_t i = 0; i < count && first + i < raw.size(); ++i) {
                const double sample = raw[first + i];
                if (!(sample > 0) || !std::isfinite(sample)) continue;
                byPosition[i % static_cast<std::size_t>(effect.depth)].push_back(sample / r->m.medianMs);
                ++effect.samples;
            }
        }
    }
    for (std::size_t p = 0; p < byPosition.size(); ++p) {
        std::vector<double>& v = byPosition[p];
        if (v.empty()) continue;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        effect.ratio[p] = v[v.size() / 2];
        if (std::abs(effect.ratio[p] - 1) > effect.worst) {
            effect.worst = std::abs(effect.ratio[p] - 1);
            effect.worstPosition = static_cast<int>(p);
        }
    }
    return effect;
}

// --- regret -----------------------------------------------------------------------------------------------------

std::vector<RegretRow> computeRegret(const ResultsFile& results, const std::map<int, L2NormConfig>& policy,
                                     double threshold) {
    std::vector<RegretRow> rows;
    for (const auto& [shape, records] : l2normRecordsByShape(results)) {
        const auto it = policy.find(shape.nb);
        if (it == policy.end()) continue;
        RegretRow row;
        row.nb = shape.nb;
        row.rows = shape.rows;
        row.l2 = shape.l2;
        row.policyConfig = it->second;
        const ShapeDecision decision = decideShape(records, threshold);
        row.best = decision.fastest;
        for (const ResultRecord* r : decision.ties) row.ties.push_back(r->config);
        for (const ResultRecord* r : records)
            if (r->config == it->second && (!row.policy || r->profileConfig)) row.policy = r;
        if (row.policy && row.best) {
            row.regret = row.policy->m.medianMs / row.best->m.medianMs;
            if (row.policy == row.best) {
                row.verdict = Comparison::Same;
                row.regretLow = row.regretHigh = 1;
            } else {
                const PairedComparison paired = comparePairedRecords(*row.policy, *row.best, decision);
                row.verdict = paired.verdict;
                row.regretLow = paired.low;
                row.regretHigh = paired.high;
            }
            row.withinNoise = std::find(decision.ties.begin(), decision.ties.end(), row.policy) != decision.ties.end();
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace tunescope
