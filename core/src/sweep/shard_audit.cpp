#include "tunescope/sweep/shard_audit.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tunescope/base/errors.hpp"

namespace tunescope {

namespace {

// Typed access to the header's plan object; errors name the file and "line 1, /plan/...".
class PlanReader {
public:
    PlanReader(const Json& object, std::string file, std::string pointer)
        : object_(object), file_(std::move(file)), pointer_(std::move(pointer)) {}

    const Json& field(const char* key) const {
        if (!object_.is_object()) fail("", "must be an object, not " + jsonTypeName(object_));
        const auto it = object_.find(key);
        if (it == object_.end()) fail(key, "is missing");
        return *it;
    }
    PlanReader child(const char* key) const { return {field(key), file_, at(key)}; }
    std::int64_t integer(const char* key) const {
        const Json& v = field(key);
        if (!v.is_number_integer()) fail(key, "must be an integer, not " + jsonTypeName(v));
        return v.get<std::int64_t>();
    }
    int smallInt(const char* key) const { return static_cast<int>(integer(key)); }
    int intOrZero(const char* key) const { return field(key).is_null() ? 0 : smallInt(key); }
    double number(const char* key) const {
        const Json& v = field(key);
        if (!v.is_number()) fail(key, "must be a number, not " + jsonTypeName(v));
        return v.get<double>();
    }
    bool boolean(const char* key) const {
        const Json& v = field(key);
        if (!v.is_boolean()) fail(key, "must be true or false");
        return v.get<bool>();
    }
    std::string text(const char* key) const {
        const Json& v = field(key);
        if (!v.is_string()) fail(key, "must be a string");
        return v.get<std::string>();
    }
    std::string at(const std::string& key) const { return key.empty() ? pointer_ : jsonPointerAppend(pointer_, key); }
    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw Error(file_, "line 1, " + at(key), message);
    }
    const Json& json() const { return object_; }
    const std::string& file() const { return file_; }

private:
    const Json& object_;
    std::string file_;
    std::string pointer_;
};

L2NormConfig configFrom(const PlanReader& r) {
    return {r.smallInt("BT"), r.smallInt("num_warps"), r.smallInt("num_stages"), r.smallInt("num_ctas")};
}

std::string shardName(const ShardSpec& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

}  // namespace

SweepPlan planFromHeader(const ResultsHeader& header, const std::string& file) {
    const PlanReader r(header.plan, file, "/plan");
    SweepPlan plan;
    plan.backend = r.text("backend");
    const Json& shapes = r.field("shapes");
    if (!shapes.is_array()) r.fail("shapes", "must be an array");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const PlanReader s(shapes[i], file, jsonPointerAppend(r.at("shapes"), i));
        plan.shapes.push_back({s.smallInt("nb"), s.integer("rows"), s.intOrZero("batch"), s.intOrZero("padded_tokens")});
    }
    const Json& grid = r.field("grid");
    if (!grid.is_array()) r.fail("grid", "must be an array");
    for (std::size_t i = 0; i < grid.size(); ++i)
        plan.grid.push_back(configFrom(PlanReader(grid[i], file, jsonPointerAppend(r.at("grid"), i))));
    // The --profile's configs and, in a head-to-head plan, the --baseline's: {"file", "sha256", "configs"}.
    const auto readPolicy = [&](const char* key, std::map<int, L2NormConfig>& configsOut, std::string& fileOut,
                                std::string& shaOut) {
        if (!r.json().contains(key) || r.field(key).is_null()) return;
        const PlanReader policy = r.child(key);
        const PlanReader configs = policy.child("configs");
        if (!configs.json().is_object()) policy.fail("configs", "must be an object");
        for (auto it = configs.json().begin(); it != configs.json().end(); ++it) {
            const std::string at = configs.at(it.key());
            int nb = 0;
            try {
                nb = std::stoi(it.key());
            } catch (const std::exception&) {
                throw Error(file, "line 1, " + at, "the key must be an NB number");
            }
            configsOut[nb] = configFrom(PlanReader(it.value(), file, at));
        }
        if (policy.json().contains("file") && policy.json()["file"].is_string()) fileOut = policy.text("file");
        if (policy.json().contains("sha256") && policy.json()["sha256"].is_string()) shaOut = policy.text("sha256");
    };
    (void)r.field("profile");  // required (null when the sweep had no --profile)
    readPolicy("profile", plan.profileConfigs, plan.profileFile, plan.profileSha256);
    readPolicy("baseline", plan.baselineConfigs, plan.baselineFile, plan.baselineSha256);
    // The regimes ("l2", else cold or hot as cold_l2 says) and the timer ("timer", else the backend's legacy one).
    plan.l2Regimes = {r.boolean("cold_l2") ? L2Regime::Cold : L2Regime::Hot};
    if (r.json().contains("l2")) {
        const Json& regimes = r.field("l2");
        if (!regimes.is_array() || regimes.empty()) r.fail("l2", "must be a list of L2 regimes");
        plan.l2Regimes.clear();
        for (const Json& name : regimes) {
            L2Regime regime = L2Regime::Cold;
            if (!name.is_string() || !l2RegimeFromString(name.get<std::string>(), &regime))
                r.fail("l2", "must hold only \"cold\", \"warm\" or \"hot\"");
            plan.l2Regimes.push_back(regime);
        }
    }
    plan.timer = r.json().contains("timer") ? r.text("timer") : legacyTimerFor(plan.backend);
    if (!isTimerName(plan.timer)) r.fail("timer", "must be \"cupti\", \"events\" or \"steady_clock\"");
    const PlanReader rule = r.child("stopping_rule");
    plan.rule.warmupSamples = rule.smallInt("warmup_samples");
    plan.rule.warmupMinTimeMs = rule.number("warmup_min_time_ms");
    plan.rule.minSamples = rule.smallInt("min_samples");
    plan.rule.minTimeMs = rule.number("min_time_ms");
    plan.rule.maxRelNoise = rule.number("max_rel_noise");
    plan.rule.timeoutMs = rule.number("timeout_ms");
    plan.rule.maxSamples = rule.smallInt("max_samples");
    plan.rule.stopWhenStalled = rule.boolean("stop_when_stalled");
    if (rule.json().contains("pipeline_depth")) plan.rule.pipelineDepth = rule.smallInt("pipeline_depth");
    plan.eps = static_cast<float>(r.number("eps"));
    const Json& seed = r.field("seed");
    if (!seed.is_number_integer() || (!seed.is_number_unsigned() && seed.get<std::int64_t>() < 0))
        r.fail("seed", "must be a non-negative integer");
    plan.seed = seed.get<std::uint64_t>();
    plan.measureCopy = r.boolean("measure_copy");
    if (r.json().contains("shard")) {
        const PlanReader shard = r.child("shard");
        plan.shard = {shard.smallInt("index"), shard.smallInt("count")};
    }
    // Rounds (results v2); a v1 plan has none of these and does not hash like a v2 one (refused below).
    if (r.json().contains("rounds")) plan.rounds = r.smallInt("rounds");
    if (r.json().contains("race_margin")) plan.raceMargin = r.number("race_margin");
    if (r.json().contains("order_seed")) {
        const Json& orderSeed = r.field("order_seed");
        if (!orderSeed.is_number_unsigned()) r.fail("order_seed", "must be a non-negative integer");
        plan.orderSeed = orderSeed.get<std::uint64_t>();
    }
    if (r.json().contains("replicas")) plan.replicas = r.smallInt("replicas");
    if (r.json().contains("placements")) plan.placements = r.smallInt("placements");
    if (r.json().contains("kernel")) plan.kernel = r.text("kernel");
    // A Triton plan's hash covers the cache's binaries, which the header names only by digest; its items (shapes x
    // configs) do not depend on them, so the audit goes on without the hash check.
    if (plan.kernel != "native") return plan;
    if (planHash(plan) != header.planHash)
        throw Error(file, "line 1, /plan_hash",
                    "the plan recorded in the header does not hash to its plan_hash; this file was written by a "
                    "TuneScope whose plans have other members, so its completeness cannot be checked");
    return plan;
}

ShardAudit auditShards(const std::vector<std::filesystem::path>& inputs, int expectedCount) {
    if (expectedCount < 1) throw Error("", "", "--expect-shards must be at least 1");
    ShardAudit audit;
    audit.expectedCount = expectedCount;
    std::map<int, std::vector<std::size_t>> byIndex;  // shard index -> inputs holding it
    std::string firstHash;
    std::map<std::string, std::vector<std::string>> modelUsers;  // "backend NAME" -> shards that used it

    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string name = inputs[i].string();
        const ResultsFile results = loadResults(inputs[i]);
        ShardStatus status;
        status.file = inputs[i];
        status.host = results.header.host;
        status.createdUtc = results.header.createdUtc;
        if (!results.header.plan.is_object() || !results.header.plan.contains("shard")) {
            audit.problems.push_back(name + ": is not a shard (its plan has no shard; a merged file?)");
            audit.shards.push_back(status);
            continue;
        }
        const SweepPlan plan = planFromHeader(results.header, name);
        status.shard = plan.shard;
        if (firstHash.empty()) firstHash = results.header.planHash;
        else if (results.header.planHash != firstHash)
            audit.problems.push_back(name + ": shard " + shardName(plan.shard) + " is of a different sweep plan than " +
                                     inputs[0].string() + " (plan_hash " + results.header.planHash.substr(0, 12) +
                                     " vs " + firstHash.substr(0, 12) + ")");
        if (plan.shard.count != expectedCount) {
            audit.problems.push_back(name + ": is shard " + shardName(plan.shard) + ", not one of " +
                                     std::to_string(expectedCount) + " shards");
        } else {
            byIndex[plan.shard.index].push_back(i);
        }

        std::set<std::string> planned;
        for (const SweepItem& item : planItems(plan)) planned.insert(item.key);
        status.planned = planned.size();
        std::set<std::string> measured;
        std::size_t foreign = 0;
        for (const ResultRecord& r : results.records) {
            const std::string key = recordKey(r);
            if (!planned.count(key)) ++foreign;
            else measured.insert(key);
            status.measuringSeconds += r.m.wallTimeMs / 1000.0;
            DeviceInfo info;
            info.backend = r.deviceBackend;
            info.index = r.deviceIndex;
            info.name = r.deviceName;
            const std::string device = deviceLabel(info);  // the record's own identity, without the header's architecture
            if (std::find(status.devices.begin(), status.devices.end(), device) == status.devices.end())
                status.devices.push_back(device);
            auto& users = modelUsers[r.deviceBackend + " " + r.deviceName];
            const std::string user = "shard " + shardName(plan.shard) + " (" + name + ")";
            if (std::find(users.begin(), users.end(), user) == users.end()) users.push_back(user);
        }
        status.measured = measured.size();
        status.missing = status.planned - status.measured;
        std::set<std::string> failedKeys;
        for (const ResultError& e : results.errors) {
            const std::string key = recordKey(e);
            if (planned.count(key) && !measured.count(key) && failedKeys.insert(key).second && status.firstError.empty())
                status.firstError = key + ": " + e.message;
        }
        status.failed = failedKeys.size();
        const std::string label = "shard " + shardName(plan.shard) + " (" + name + ")";
        if (!status.complete()) {
            std::string text = label + " is incomplete: " + std::to_string(status.measured) + " of " +
                               std::to_string(status.planned) + " items measured";
            if (status.failed) text += ", " + std::to_string(status.failed) + " failed (first: " + status.firstError + ")";
            if (status.missing > status.failed)
                text += ", " + std::to_string(status.missing - status.failed) + " never run (killed or stopped?)";
            text += "; re-run its task to resume the file";
            audit.problems.push_back(text);
        }
        if (foreign)
            audit.problems.push_back(label + " holds " + std::to_string(foreign) +
                                     " measurements that are not items of this shard");
        audit.shards.push_back(std::move(status));
    }

    for (const auto& [index, holders] : byIndex) {
        if (holders.size() < 2) continue;
        std::string names;
        for (std::size_t h : holders) names += (names.empty() ? "" : ", ") + inputs[h].string();
        audit.problems.push_back("shard " + std::to_string(index) + "/" + std::to_string(expectedCount) + " is given " +
                                 std::to_string(holders.size()) + " times: " + names);
    }
    for (int index = 0; index < expectedCount; ++index)
        if (!byIndex.count(index))
            audit.problems.push_back("shard " + std::to_string(index) + "/" + std::to_string(expectedCount) +
                                     " is missing: no input file holds it (did its task run? re-run it with "
                                     "sbatch --array=" + std::to_string(index) + ")");

    for (const auto& [model, users] : modelUsers) audit.deviceModels.push_back(model);
    if (modelUsers.size() > 1) {
        std::string list;
        for (const auto& [model, users] : modelUsers) {
            std::string who;
            for (const std::string& u : users) who += (who.empty() ? "" : ", ") + u;
            list += "\n  " + model + ": " + who;
        }
        audit.problems.push_back("the shards were measured on " + std::to_string(modelUsers.size()) +
                                 " different device models; results of different GPUs are never compared "
                                 "(submit the array with a constraint for one GPU type, see docs/cluster.md):" + list);
    }
    return audit;
}

}  // namespace tunescope
