#pragma once
// Head to head over an FLA capture (`tunescope-cli confirm --manifest`, docs/fla-capture.md section 11): per kernel
// and key of the capture, the config a candidate FLA_CONFIG_DIR makes FLA launch against the config of a baseline
// (by default FLA's own autotune picks recorded in the capture), both replayed from their Triton binaries in the
// same shuffled rounds, each with an A/A replica, and judged on the per-round ratio of their totals over the key's
// launches, as `confirm` judges two l2norm policies (docs/sweep.md, "Head to head").
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/sweep/fla_capture_replay.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"
#include "tunescope/sweep/head_to_head.hpp"

namespace tunescope {

// One side's config per (kernel, key), as capture indices. `spec` is
//   - "captured": FLA's own autotune choices recorded in the capture (capturedFlaChoices);
//   - a folder or manifest that `capture export-fla` wrote (checked as `profile validate` checks it);
//   - a plain FLA_CONFIG_DIR (e.g. FLA's scripts/utils/autotune_export.py output): its `{kernel_name}.json` files for
//     the capture's kernels;
//   - a choices file (tunescope-fla-choices-v1, `sweep --manifest --choices-out`).
// An FLA config file's entry is matched to the capture's config list by the config FLA would launch (kwargs,
// num_warps, num_ctas, num_stages, maxnreg). Keys the side has no entry for are left out: FLA would autotune them.
// Throws Error(file, JSON Pointer, message) for an entry whose config is none of the capture's configs of its kernel,
// a file whose kernel_name is not its name, or a malformed file.
FlaChoices flaConfirmSide(const FlaCapture& capture, const std::string& spec);

struct FlaConfirmRow {
    std::string kernel_name, key_hash;
    std::optional<std::size_t> candidate, baseline;  // capture config indices; unset: that side has no entry
    std::string candidateLabel, baselineLabel;
    std::size_t launches = 0;  // of the key, summed per round
    double candidateMs = 0, baselineMs = 0;  // totals of the round medians' medians
    PairedComparison paired;                 // candidate / baseline per round: below 1, the candidate is faster
    std::vector<PairedComparison> controls;  // A/A: replica 1 of each side's config against its replica 0
    double worstControl = 1;
    HeadToHeadVerdict verdict = HeadToHeadVerdict::NotMeasured;
    int rounds = 0;   // rounds in which both sides were measured at every launch of the key
    std::string why;  // NOT MEASURED: what is missing
};

struct FlaConfirmReport {
    std::string manifest, digest, device, timer;
    std::string candidate, baseline;  // the sides as given
    double threshold = 0.005;
    std::vector<FlaConfirmRow> rows;  // the capture's decisions, in plan order
    std::size_t count(HeadToHeadVerdict verdict) const;
    // No SLOWER, NOISY or NOT MEASURED anywhere (UNDECIDED passes), as HeadToHeadReport::atLeastAsFast.
    bool atLeastAsFast() const;
};

// The sweep options that make a head-to-head: only the two sides' configs of each key, `replicas` items each per
// round (2: with an A/A control; 1: none).
void restrictToSides(FlaSweepOptions& options, const FlaChoices& candidate, const FlaChoices& baseline,
                     int replicas = 2);

// Judges a sweep run with restrictToSides. Rows for keys where a side has no entry are NOT MEASURED with why.
FlaConfirmReport judgeFlaConfirm(const FlaCaptureSweep& sweep, const FlaCapture& capture, const FlaChoices& candidate,
                                 const FlaChoices& baseline, double threshold = 0.005);

// A finished `confirm --manifest` results file read back: the capture sweep (checked as `validate` checks it,
// replicas included) and the sides its head_to_head recorded. The recorded verdicts are judged again at the file's
// own threshold and must come out the same: a verdict, config or key the measurements cannot give is refused.
// Throws Error(file, JSON Pointer, message).
struct FlaConfirmFile {
    FlaCaptureSweepFile sweep;
    FlaChoices candidate, baseline;
    double threshold = 0.005;
};
FlaConfirmFile readFlaConfirmFile(const std::filesystem::path& file, const FlaCapture& capture);

// The report as JSON (tunescope-fla-confirm-v1) and as the lines `confirm --manifest` prints.
Json toJson(const FlaConfirmReport& report);
std::string formatFlaConfirm(const FlaConfirmReport& report);

}  // namespace tunescope
