#include "tunescope/formats/diff.hpp"

#include <map>

#include "profile_internal.hpp"

namespace tunescope {

namespace {

std::vector<std::string> changedFields(const TritonConfig& a, const TritonConfig& b) {
    std::vector<std::string> out;
    if (a.BT != b.BT) out.push_back("kwargs.BT");
    if (a.extraKwargs != b.extraKwargs) out.push_back("kwargs");
    if (a.num_warps != b.num_warps) out.push_back("num_warps");
    if (a.num_ctas != b.num_ctas) out.push_back("num_ctas");
    if (a.num_stages != b.num_stages) out.push_back("num_stages");
    if (a.maxnreg != b.maxnreg) out.push_back("maxnreg");
    if (a.pre_hook != b.pre_hook) out.push_back("pre_hook");
    if (a.ir_override != b.ir_override) out.push_back("ir_override");
    if (a.extraFields != b.extraFields) out.push_back("other fields");
    return out;
}

Json evidenceJson(const PolicyEntry& e) { return detail::policyEntryToJson(e).value("evidence", Json()); }

Json withoutPolicy(const Profile& p) {
    Json doc = toJson(p);
    doc.erase("per_NB_policy");
    return doc;
}

}  // namespace

ProfileDiff diffProfiles(const Profile& before, const Profile& after) {
    ProfileDiff diff;
    // The first entry per NB decides (a duplicate NB is a validation error, not a diff question).
    std::map<std::int64_t, const PolicyEntry*> a, b;
    for (const auto& e : before.per_NB_policy) a.emplace(e.NB, &e);
    for (const auto& e : after.per_NB_policy) b.emplace(e.NB, &e);
    std::map<std::int64_t, PolicyChange> changes;
    for (const auto& [nb, e] : a) {
        const auto it = b.find(nb);
        if (it == b.end()) {
            PolicyChange c;
            c.kind = PolicyChange::Kind::Removed;
            c.NB = nb;
            c.before = *e;
            changes.emplace(nb, std::move(c));
            continue;
        }
        const PolicyEntry& n = *it->second;
        PolicyChange c;
        c.NB = nb;
        c.configChanged = !(e->config == n.config);
        c.basisChanged = e->basis != n.basis;
        c.evidenceChanged = evidenceJson(*e) != evidenceJson(n);
        if (c.configChanged || c.basisChanged || c.evidenceChanged) {
            c.changedConfigFields = changedFields(e->config, n.config);
            c.before = *e;
            c.after = n;
            changes.emplace(nb, std::move(c));
        }
    }
    for (const auto& [nb, e] : b) {
        if (a.count(nb)) continue;
        PolicyChange c;
        c.kind = PolicyChange::Kind::Added;
        c.NB = nb;
        c.after = *e;
        changes.emplace(nb, std::move(c));
    }
    for (auto& [nb, c] : changes) diff.policy.push_back(std::move(c));

    const Json patch = Json::diff(withoutPolicy(before), withoutPolicy(after));
    for (const auto& op : patch) diff.other.push_back(OtherChange{op.value("op", ""), op.value("path", "")});
    return diff;
}

std::string formatPolicyChange(const PolicyChange& c) {
    const std::string nb = "NB " + std::to_string(c.NB) + ": ";
    switch (c.kind) {
    case PolicyChange::Kind::Added:
        return nb + "added (" + describe(c.after->config) + ", basis " + c.after->basis + ")";
    case PolicyChange::Kind::Removed:
        return nb + "removed (was " + describe(c.before->config) + ", basis " + c.before->basis + ")";
    case PolicyChange::Kind::Changed: break;
    }
    std::string text = nb;
    std::string sep;
    if (c.configChanged) {
        text += "config " + describe(c.before->config) + " -> " + describe(c.after->config);
        sep = "; ";
    }
    if (c.basisChanged) {
        text += sep + "basis " + c.before->basis + " -> " + c.after->basis;
        sep = "; ";
    }
    if (c.evidenceChanged) text += sep + "evidence changed";
    return text;
}

Json toJson(const ProfileDiff& diff) {
    Json out = Json::object();
    out["identical"] = diff.empty();
    Json policy = Json::array();
    for (const auto& c : diff.policy) {
        Json item = Json::object();
        item["NB"] = c.NB;
        item["change"] = c.kind == PolicyChange::Kind::Changed ? "changed"
                         : c.kind == PolicyChange::Kind::Added ? "added"
                                                               : "removed";
        item["before"] = c.before ? detail::policyEntryToJson(*c.before) : Json(nullptr);
        item["after"] = c.after ? detail::policyEntryToJson(*c.after) : Json(nullptr);
        item["config_changed"] = c.configChanged;
        item["basis_changed"] = c.basisChanged;
        item["evidence_changed"] = c.evidenceChanged;
        item["changed_fields"] = c.changedConfigFields;
        policy.push_back(std::move(item));
    }
    out["policy"] = std::move(policy);
    Json other = Json::array();
    for (const auto& o : diff.other) other.push_back(Json{{"op", o.op}, {"path", o.path}});
    out["other"] = std::move(other);
    return out;
}

}  // namespace tunescope
