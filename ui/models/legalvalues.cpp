#include "models/legalvalues.hpp"

#include <QString>

namespace tunescope::ui {

namespace {

// Whether the profile targets AMD (gfx...) rather than NVIDIA (sm_...), from runtime.gpu_arch.
bool isAmdTarget(const Profile& profile) {
    return QString::fromStdString(profile.runtime.gpu_arch).startsWith(QLatin1String("gfx"));
}

}  // namespace

TargetLimits targetLimits(const Profile& profile) {
    TargetLimits limits;
    limits.blockRows = {8, 16, 32, 64, 128};
    limits.numStages = {1, 2, 3, 4};
    if (isAmdTarget(profile)) {
        // Wave64: 16 wavefronts = 1024 threads, the workgroup limit; no clusters, no register cap option.
        limits.numWarps = {1, 2, 4, 8, 16};
        limits.numCtas = {1};
    } else {
        limits.numWarps = {1, 2, 4, 8, 16, 32};
        limits.numCtas = {1, 2, 4};
        limits.maxnreg = {64, 96, 128, 168, 192, 232, 255};
    }
    return limits;
}

}  // namespace tunescope::ui
