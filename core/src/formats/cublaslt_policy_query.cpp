// Lookup and diff of cuBLASLt policies (tunescope/formats/cublaslt_policy.hpp).
#include <map>
#include <set>

#include "cublaslt_policy_internal.hpp"
#include "tunescope/formats/cublaslt_policy.hpp"

namespace tunescope {

namespace lt_policy_query {  // named, not anonymous: a unity build of the core compiles its files as one

std::string versionText(const std::optional<std::int64_t>& version) {
    return version ? std::to_string(*version) : std::string("unknown");
}

// Why the entry cannot be used in the query's environment ("" when it can), in the loaders' words.
std::pair<std::string, std::string> environmentMismatch(const LtPolicyEntry& e, const LtPolicyQuery& q) {
    const LtPolicyEnvironment& env = e.environment;
    if (!e.isCublasLt())
        return {"other-library", "the entry is for " + e.library + ", not cuBLASLt"};
    if ((q.gpu && *q.gpu != env.gpu) || (q.architecture && *q.architecture != env.architecture))
        return {"other-gpu", "the entry holds for " + env.gpu + " (" + env.architecture + "), this is " +
                                 q.gpu.value_or(env.gpu) + " (" + q.architecture.value_or(env.architecture) + ")"};
    if (q.cublasLtVersion && (!env.cublaslt_version || *q.cublasLtVersion != *env.cublaslt_version))
        return {"other-cublaslt-version", "the entry was measured with cuBLASLt " + versionText(env.cublaslt_version) +
                                              ", this is cuBLASLt " + std::to_string(*q.cublasLtVersion)};
    const auto& need = e.algo.required_workspace_bytes;
    if (need && *need > q.matmul.workspace_limit_bytes)
        return {"workspace-too-small", "the algorithm needs " + std::to_string(*need) + " bytes of workspace, " +
                                           std::to_string(q.matmul.workspace_limit_bytes) + " are offered"};
    return {};
}

// Lower is a better explanation: a matching GPU with another library version says more than another GPU.
int reasonRank(const std::string& reason) {
    if (reason == "workspace-too-small") return 0;
    if (reason == "other-cublaslt-version") return 1;
    if (reason == "other-gpu") return 2;
    return 3;
}

}  // namespace lt_policy_query

LtPolicyAnswer lookupCublasLtPolicy(const CublasLtPolicy& policy, const LtPolicyQuery& query) {
    LtPolicyAnswer answer;
    for (std::size_t i = 0; i < policy.entries.size(); ++i)
        if (sameMatmulKey(policy.entries[i].matmul, query.matmul)) answer.sameMatmul.push_back(int(i));
    if (answer.sameMatmul.empty()) {
        answer.fallback = "no-entry";
        answer.detail = "no entry for " + describe(query.matmul) + "; the loaders use the heuristic's first choice";
        return answer;
    }
    std::pair<std::string, std::string> best;
    for (int i : answer.sameMatmul) {
        const auto mismatch = lt_policy_query::environmentMismatch(policy.entries[std::size_t(i)], query);
        if (mismatch.first.empty()) {
            answer.entry = i;
            const auto& attributes = policy.entries[std::size_t(i)].algo.attributes;
            answer.detail = "entry " + std::to_string(i) + ": " + (attributes ? describe(*attributes) : std::string("(no attributes)")) +
                            " (the loaders use it once cublasLtMatmulAlgoCheck passes on this device and the buffers "
                            "meet the algorithm's CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_*)";
            return answer;
        }
        if (best.first.empty() || lt_policy_query::reasonRank(mismatch.first) < lt_policy_query::reasonRank(best.first)) best = mismatch;
    }
    answer.fallback = best.first;
    answer.detail = best.second + "; the loaders use the heuristic's first choice";
    return answer;
}

Json toJson(const LtPolicyAnswer& answer, const CublasLtPolicy& policy) {
    Json out = Json::object();
    out["outcome"] = answer.used() ? "policy" : "fallback";
    out["entry"] = answer.used() ? Json(answer.entry) : Json(nullptr);
    out["fallback"] = answer.used() ? Json(nullptr) : Json(answer.fallback);
    out["detail"] = answer.detail;
    out["same_matmul_entries"] = answer.sameMatmul;
    out["algo"] = answer.used() ? toJson(policy.entries[std::size_t(answer.entry)])["algo"] : Json(nullptr);
    return out;
}

// ---------------------------------------------------------------------------------------------------------------

namespace lt_policy_query {

// Equal as JSON values, whatever the member order (ordered_json compares order too).
bool sameValue(const Json& a, const Json& b) { return nlohmann::json(a) == nlohmann::json(b); }

std::vector<std::string> changedPaths(const Json& a, const Json& b, const std::set<std::string>& skipTopLevel) {
    std::vector<std::string> paths;
    for (const auto& op : Json::diff(a, b)) {
        const std::string path = op.value("path", "");
        const std::size_t slash = path.find('/', 1);
        const std::string top = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
        if (!skipTopLevel.count(top)) paths.push_back(path);
    }
    return paths;
}

}  // namespace lt_policy_query

CublasLtPolicyDiff diffCublasLtPolicies(const CublasLtPolicy& before, const CublasLtPolicy& after) {
    CublasLtPolicyDiff diff;
    std::map<std::string, const LtPolicyEntry*> old, now;
    std::vector<std::string> order;
    for (const auto& e : before.entries) {
        const std::string key = detail::policyEntryKey(e);
        if (old.emplace(key, &e).second) order.push_back(key);
    }
    for (const auto& e : after.entries) {
        const std::string key = detail::policyEntryKey(e);
        if (now.emplace(key, &e).second && !old.count(key)) order.push_back(key);
    }
    for (const std::string& key : order) {
        const auto o = old.find(key), n = now.find(key);
        LtPolicyEntryChange change;
        change.key = key;
        if (o == old.end()) {
            change.kind = LtPolicyEntryChange::Kind::Added;
            change.after = *n->second;
        } else if (n == now.end()) {
            change.kind = LtPolicyEntryChange::Kind::Removed;
            change.before = *o->second;
        } else {
            const Json a = toJson(*o->second), b = toJson(*n->second);
            if (lt_policy_query::sameValue(a, b)) continue;
            change.before = *o->second;
            change.after = *n->second;
            change.algoChanged = !lt_policy_query::sameValue(a.value("algo", Json()), b.value("algo", Json()));
            change.gainChanged = !lt_policy_query::sameValue(a.value("gain", Json()), b.value("gain", Json()));
            change.tiesChanged = !lt_policy_query::sameValue(a.value("ties", Json()), b.value("ties", Json()));
            change.otherPaths = lt_policy_query::changedPaths(a, b, {"algo", "gain", "ties"});
        }
        diff.entries.push_back(std::move(change));
    }
    Json a = toJson(before), b = toJson(after);
    for (const auto& op : Json::diff(a, b)) {
        const std::string path = op.value("path", "");
        if (path.rfind("/entries/", 0) == 0 || path == "/entries") continue;
        diff.other.push_back(LtPolicyOtherChange{op.value("op", ""), path});
    }
    return diff;
}

std::string formatEntryChange(const LtPolicyEntryChange& c) {
    switch (c.kind) {
    case LtPolicyEntryChange::Kind::Added: return "added: " + c.key;
    case LtPolicyEntryChange::Kind::Removed: return "removed: " + c.key;
    case LtPolicyEntryChange::Kind::Changed: break;
    }
    std::string text = "changed: " + c.key + ":";
    if (c.algoChanged) {
        const auto& a = c.before->algo.attributes;
        const auto& b = c.after->algo.attributes;
        text += " " + (a ? describe(*a) : std::string("-")) + " -> " + (b ? describe(*b) : std::string("-")) + ";";
    }
    if (c.gainChanged)
        text += " gain " + formatPythonFloat(c.before->gain.percent) + "% -> " + formatPythonFloat(c.after->gain.percent) + "%;";
    if (c.tiesChanged) text += " tie set changed;";
    for (const std::string& p : c.otherPaths) text += " " + p;
    if (text.back() == ';') text.pop_back();
    return text;
}

Json toJson(const CublasLtPolicyDiff& diff) {
    Json out = Json::object();
    out["identical"] = diff.empty();
    Json entries = Json::array();
    for (const auto& c : diff.entries) {
        Json item = Json::object();
        item["key"] = c.key;
        item["change"] = c.kind == LtPolicyEntryChange::Kind::Added     ? "added"
                         : c.kind == LtPolicyEntryChange::Kind::Removed ? "removed"
                                                                         : "changed";
        item["before"] = c.before ? toJson(*c.before) : Json(nullptr);
        item["after"] = c.after ? toJson(*c.after) : Json(nullptr);
        item["algo_changed"] = c.algoChanged;
        item["gain_changed"] = c.gainChanged;
        item["ties_changed"] = c.tiesChanged;
        item["other_paths"] = c.otherPaths;
        entries.push_back(std::move(item));
    }
    out["entries"] = std::move(entries);
    Json other = Json::array();
    for (const auto& o : diff.other) other.push_back({{"op", o.op}, {"path", o.path}});
    out["other"] = std::move(other);
    return out;
}

}  // namespace tunescope
