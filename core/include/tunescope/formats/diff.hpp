#pragma once
// Differences between two profiles: per-NB config and basis changes (the part that changes what production runs),
// plus a list of every other member that differs, as JSON Pointers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope {

struct PolicyChange {
    enum class Kind { Changed, Added, Removed };
    Kind kind = Kind::Changed;
    std::int64_t NB = 0;
    std::optional<PolicyEntry> before;  // absent for Added
    std::optional<PolicyEntry> after;   // absent for Removed
    bool configChanged = false;
    bool basisChanged = false;
    bool evidenceChanged = false;
    std::vector<std::string> changedConfigFields;  // "kwargs.BT", "num_warps", "num_stages", ...
};

struct OtherChange {
    std::string op;    // JSON Patch op: "add", "remove", "replace"
    std::string path;  // JSON Pointer in the profile (never under /per_NB_policy)
    friend bool operator==(const OtherChange&, const OtherChange&) = default;
};

struct ProfileDiff {
    std::vector<PolicyChange> policy;  // by NB, ascending
    std::vector<OtherChange> other;
    bool empty() const { return policy.empty() && other.empty(); }
};

ProfileDiff diffProfiles(const Profile& before, const Profile& after);

// "NB 14: config BT=32 num_warps=8 ... -> BT=16 num_warps=4 ...; basis prospective-... -> measured-best"
std::string formatPolicyChange(const PolicyChange& change);
// {"identical": bool, "policy": [{"NB", "change": "changed|added|removed", "before", "after", "config_changed",
//  "basis_changed", "evidence_changed", "changed_fields"}], "other": [{"op", "path"}]}
Json toJson(const ProfileDiff& diff);

}  // namespace tunescope
