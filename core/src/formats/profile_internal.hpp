#pragma once
// Private: the collecting readers behind parseProfile(), used by validation to report every schema problem at once.
#include "model_reader.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope::detail {

Profile readProfile(const Json& document, ModelReader& reader);
TritonConfig readTritonConfig(const Json& value, const std::string& path, ModelReader& reader);
// Reads an autotune key, reporting a malformed one under rule "autotune-key".
std::optional<AutotuneKey> readAutotuneKey(const Json& value, const std::string& path, ModelReader& reader);
Json policyEntryToJson(const PolicyEntry& entry);

}  // namespace tunescope::detail
