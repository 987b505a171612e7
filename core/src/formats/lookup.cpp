#include "tunescope/formats/lookup.hpp"

#include "profile_internal.hpp"

namespace tunescope {

namespace {

std::string range(std::int64_t from, std::int64_t to) { return std::to_string(from) + ".." + std::to_string(to); }

}  // namespace

LookupAnswer lookup(const Profile& profile, std::int64_t batch, std::int64_t paddedTokens) {
    const Supported& s = profile.supported;
    LookupAnswer a;
    a.batch = batch;
    a.paddedTokens = paddedTokens;
    a.policy = s.unknown_key;
    if (batch >= 0 && paddedTokens >= 0) {
        std::int64_t rows = 0;
        if (!__builtin_mul_overflow(batch, paddedTokens, &rows) && !__builtin_mul_overflow(rows, s.key_heads, &rows)) {
            a.rows = rows;
            a.NB = s.nbFor(batch, paddedTokens);
            if (a.NB) a.key = s.keyFor(*a.NB);
        }
    }

    std::string outside;
    if (batch < s.batch_size_min || batch > s.batch_size_max)
        outside = "batch " + std::to_string(batch) + " is outside the supported " + range(s.batch_size_min, s.batch_size_max);
    else if (paddedTokens < 1 || paddedTokens > s.padded_tokens_max)
        outside = "padded tokens " + std::to_string(paddedTokens) + " is outside the supported 1.." +
                  std::to_string(s.padded_tokens_max);
    else if (!a.NB)
        outside = "batch * padded tokens * key heads overflows";
    else if (*a.NB < s.NB_min || *a.NB > s.NB_max)
        outside = "NB " + std::to_string(*a.NB) + " is outside the supported " + range(s.NB_min, s.NB_max);

    if (outside.empty()) {
        if (const PolicyEntry* entry = profile.policyFor(*a.NB)) {
            a.outcome = LookupOutcome::Config;
            a.config = entry->config;
            a.basis = entry->basis;
            return a;
        }
        outside = "the profile has no per_NB_policy entry for NB " + std::to_string(*a.NB) + " (it is invalid)";
        a.outcome = LookupOutcome::Raise;
        a.error = "unknown key: " + outside;
        return a;
    }
    if (s.unknown_key == "fall back to triton autotune") {
        a.outcome = LookupOutcome::Autotune;
        a.error = "unknown key: " + outside + "; FLA finds no entry and Triton autotunes this shape at run time";
    } else {
        a.outcome = LookupOutcome::Raise;
        a.error = "unknown key: " + outside + "; production raises before the kernel and autotune run (\"" +
                  s.unknown_key + "\")";
    }
    return a;
}

Json toJson(const LookupAnswer& a) {
    Json out = Json::object();
    out["batch"] = a.batch;
    out["padded_tokens"] = a.paddedTokens;
    out["rows"] = a.rows ? Json(*a.rows) : Json(nullptr);
    out["NB"] = a.NB ? Json(*a.NB) : Json(nullptr);
    out["autotune_key"] = a.key ? a.key->toJson() : Json(nullptr);
    out["outcome"] = a.outcome == LookupOutcome::Config ? "config" : a.outcome == LookupOutcome::Raise ? "raise" : "autotune";
    out["config"] = a.config ? toJson(*a.config) : Json(nullptr);
    out["basis"] = a.ok() ? Json(a.basis) : Json(nullptr);
    out["error"] = a.ok() ? Json(nullptr) : Json(a.error);
    out["unknown_key"] = a.policy;
    return out;
}

}  // namespace tunescope
