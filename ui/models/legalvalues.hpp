#pragma once
// The launch-config values the policy editor offers for a profile's target. The rules are the validator's
// (issue 2: AMD gfx9xx: num_ctas 1, maxnreg null, num_warps a power of two up to 16; NVIDIA up to 32; BT a power
// of two in 8..128) and the kernel family's num_stages 1..4; the core's validator remains the judge of a file.
#include <vector>

#include "tunescope/formats/profile.hpp"

namespace tunescope::ui {

struct TargetLimits {
    std::vector<int> blockRows;
    std::vector<int> numWarps;
    std::vector<int> numStages;
    std::vector<int> numCtas;
    std::vector<int> maxnreg;  // besides null
};

TargetLimits targetLimits(const Profile& profile);

}  // namespace tunescope::ui
