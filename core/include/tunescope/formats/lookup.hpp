#pragma once
// What production does for one shape: the NB bucket FLA computes, the autotune key it builds, and the config the
// profile gives it; or, for a shape outside `supported`, what the profile's unknown_key policy makes production do.
#include <cstdint>
#include <optional>
#include <string>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope {

enum class LookupOutcome {
    Config,    // the profile has an entry: production launches with its config
    Raise,     // outside `supported`, policy "raise before kernel/autotune": production raises
    Autotune,  // outside `supported`, policy "fall back to triton autotune": Triton tunes at run time
};

struct LookupAnswer {
    LookupOutcome outcome = LookupOutcome::Raise;
    std::int64_t batch = 0;
    std::int64_t paddedTokens = 0;
    std::optional<std::int64_t> rows;  // T = batch * padded tokens * key heads (nullopt on overflow)
    std::optional<std::int64_t> NB;    // ceil(T / 65536) (nullopt on overflow)
    std::optional<AutotuneKey> key;    // FLA's key for that NB
    std::optional<TritonConfig> config;  // when outcome == Config
    std::string basis;                   // the entry's basis, when outcome == Config
    std::string error;                   // why the shape is refused, when outcome != Config
    std::string policy;                  // supported.unknown_key

    bool ok() const { return outcome == LookupOutcome::Config; }
};

// Never throws for shapes: out-of-range, zero/negative or overflowing values are answered by the unknown_key
// policy (a profile without an entry for an in-range NB answers Raise, naming the missing entry).
LookupAnswer lookup(const Profile& profile, std::int64_t batch, std::int64_t paddedTokens);

// {"batch", "padded_tokens", "rows", "NB", "autotune_key", "outcome": "config|raise|autotune", "config", "basis",
//  "error", "unknown_key"}
Json toJson(const LookupAnswer& answer);

}  // namespace tunescope
