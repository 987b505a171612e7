#pragma once
// Names of cuBLASLt enum values (tile "128x256", stages "64xAUTO", cluster "2x1x1", inner "MMA16816"), taken from
// CUDA 13.0's cublasLt.h so the core needs no CUDA headers. Unknown values give an empty string.
#include <string>

namespace tunescope::gemm_enums {

struct EnumName {
    long long value;
    const char* name;
};

std::string tileName(long long id);
std::string stagesName(long long id);
std::string clusterShapeName(long long id);
std::string innerShapeName(long long id);

// The reverse: the value of a name ("128x352", "64xAUTO", "2x1x1"), or -1 when there is none.
long long tileIdFromName(const std::string& name);
long long stagesIdFromName(const std::string& name);
long long clusterShapeIdFromName(const std::string& name);

// A name from above, or the value as a number when the name is empty (an id cuBLASLt added after CUDA 13.0).
inline std::string nameOr(const std::string& name, long long value) {
    return name.empty() ? std::to_string(value) : name;
}

}  // namespace tunescope::gemm_enums
