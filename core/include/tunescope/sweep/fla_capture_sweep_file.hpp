#pragma once
// The results file of `sweep --manifest` (tunescope-fla-capture-sweep-v1, docs/fla-capture.md section 10) read back:
// every launch's per-config check and timing, and per kernel and key the decision. A record that cannot have come
// from a sweep is refused with its JSON Pointer: a chosen config that is not the lowest eligible total, a quantile
// order p20 <= median <= p80 broken, an eligible config without a total or with a reason not to be, a config that
// passed its check while it failed to run, a decision's total that is not the sum over its launches.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/sweep/fla_capture_replay.hpp"

namespace tunescope {

inline constexpr std::string_view kFlaCaptureSweepFormat = "tunescope-fla-capture-sweep-v1";

struct FlaCaptureSweepFile {
    FlaCaptureSweep sweep;
    std::string l2;  // "cold" or "warm"
    int rounds = 0;
    double rmsTolerance = 0.0;
    int replicas = 1;               // A/A items per config and round (confirm --manifest writes 2)
    bool launchRunsListed = false;  // decisions name their launches (files written before 2026-12-07 do not)
};

struct FlaCaptureSweepCheck {
    std::string file;
    std::optional<FlaCaptureSweepFile> sweep;  // set only when `faults` is empty
    std::vector<FlaCaptureFault> faults;      // every fault found, in document order
};

bool isFlaCaptureSweepDocument(const Json& document);  // its "format" is tunescope-fla-capture-sweep-v1
FlaCaptureSweepCheck checkFlaCaptureSweepJson(const Json& document, const std::string& file);
// Reads and checks a file; an unreadable file or a JSON syntax error is one fault with an empty pointer.
FlaCaptureSweepCheck checkFlaCaptureSweepFile(const std::filesystem::path& file);

}  // namespace tunescope
