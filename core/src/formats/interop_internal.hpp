#pragma once
// Private: pieces shared by the Triton-cache and FLA-config imports.
#include <string>

#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/triton_cache.hpp"

namespace tunescope::detail {

// A new profile whose `supported` matches `key` (head dimension, dtypes) and the options.
Profile newProfileFor(const AutotuneKey& key, const NewProfileOptions& options);
// Whether `key` names a shape of this profile; `why` says what does not match.
bool keyFitsProfile(const Profile& profile, const AutotuneKey& key, std::string& why);
// Gives every NB in NB_min..NB_max without an entry the config of the largest NB that has one, with basis
// "prospective-fixed-<origin>-NB<k>-setting".
void fillPolicyGaps(Profile& profile, const std::string& origin, ImportSummary* summary);

}  // namespace tunescope::detail
