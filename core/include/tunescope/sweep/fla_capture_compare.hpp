#pragma once
// Two capture sweeps side by side (`tunescope-cli compare A B` on two `sweep --manifest` results files,
// docs/fla-capture.md section 12): per kernel and key both measured, every config's total over the key's launches in
// each run and the ratio B/A, each run's choice, what keeping A's choice costs on B, and how alike the two runs rank
// the configs. The question it answers: does a tuning made on one GPU, stack or day hold on another?
//
// The two runs are separate processes (often separate machines), so their rounds are not paired: the ratios are of
// the totals (sums of the round medians' medians), and "within B's spread" means A's choice lies inside the chosen
// config's p20-p80 band on B, not a paired interval. Decisions are matched by (kernel, key hash); a capture sweep of
// another capture still compares where its kernels and keys coincide (the digests are reported).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/sweep/fla_capture_sweep_file.hpp"

namespace tunescope {

struct FlaCaptureCompareConfig {
    std::size_t config = 0;
    std::string label;
    std::optional<double> totalA, totalB;  // ms, when the config was eligible in that run
    std::optional<double> ratio;           // totalB / totalA, when both
};

struct FlaCaptureCompareDecision {
    std::string kernel_name, key_hash;
    std::optional<std::size_t> chosenA, chosenB;
    std::optional<std::size_t> capturedChoiceA, capturedChoiceB;  // FLA's own autotune in each run's capture
    std::vector<FlaCaptureCompareConfig> configs;                 // every config either run lists, by index
    // totalB(chosenA) / totalB(chosenB) - 1: what keeping A's choice costs on B (0 when the choices agree).
    std::optional<double> regretOfAChoiceOnB;
    // A's choice on B lies inside B's chosen config's p20-p80 band (a tie as far as B's spread can tell).
    bool aChoiceWithinBSpread = false;
    std::optional<double> rankCorrelation;  // Spearman over the configs eligible in both (at least 3)
    bool sameChoice() const { return chosenA && chosenB && *chosenA == *chosenB; }
};

struct FlaCaptureComparison {
    std::string fileA, fileB, deviceA, deviceB, timerA, timerB, l2A, l2B, digestA, digestB;
    std::vector<FlaCaptureCompareDecision> decisions;  // A's order
    std::size_t onlyInA = 0, onlyInB = 0;              // decisions the other run does not have
    std::size_t sameChoices = 0;
    std::optional<double> worstRegret;                 // over the decisions
    std::string worstRegretDecision;                   // "kernel key" of it
    double geomeanRatio = 1.0;                         // of the configs' ratios B/A
    std::size_t ratios = 0;
    bool sameCapture() const { return digestA == digestB; }
};

FlaCaptureComparison compareFlaCaptureSweeps(const FlaCaptureSweepFile& a, const std::string& fileA,
                                             const FlaCaptureSweepFile& b, const std::string& fileB);

// The printed report: the header lines, one line per decision, the totals.
std::string formatFlaCaptureComparison(const FlaCaptureComparison& comparison, bool allConfigs);

}  // namespace tunescope
