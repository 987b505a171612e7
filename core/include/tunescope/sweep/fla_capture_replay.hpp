#pragma once
// The replay and sweep of an FLA capture (docs/fla-capture.md, section 10): every captured launch relaunched from
// its real Triton binaries over buffers laid out as the capture recorded them, each config's outputs checked against
// the reference config's on identical inputs, and every config timed with the measurement engine in shuffled rounds.
// One choice per (kernel, key) comes out, in the choices format `capture export-fla --choices` reads.
//
// Buffers: one device allocation per distinct tensor of a case (the capture's tensor origins say which arguments
// share memory). op_input tensors are drawn on the host from the case's generators (the same distributions as the
// capture, not the same bits), "new" ones start as zeros, and launch_arg ones are the earlier launch's memory. A
// launch runs after the case's earlier launches have run (with their reference configs), so it sees the op's
// realistic values.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/device/triton_launch.hpp"
#include "tunescope/formats/fla_capture.hpp"

namespace tunescope {

// A tensor argument of a replayed launch.
struct FlaReplayTensor {
    std::string name, dtype;  // "o", "torch.bfloat16"
    int buffer = -1;
    std::uint64_t byteOffset = 0;
    bool output = false;  // its memory is first seen at this launch (origin "new"): what the output check compares
};

struct FlaReplayLaunch {
    std::size_t kernel = 0, launch = 0;  // indices into capture.kernels and that kernel's launches
    std::int64_t sequence = 0;
    std::vector<TritonLaunchArg> args;   // the kernel's signature, tensors bound to buffers
    std::vector<FlaReplayTensor> tensors;
};

struct FlaReplayCase {
    std::string caseId;
    std::vector<ReplayBuffer> buffers;      // initial contents empty until fillFlaReplayInputs
    std::vector<std::string> bufferInputs;  // per buffer: the op input it holds, or ""
    std::vector<FlaReplayLaunch> launches;  // in sequence order
};

// The buffers and launches of one case. Throws Error naming a tensor whose origin names no earlier tensor.
FlaReplayCase planFlaReplayCase(const FlaCapture& capture, const std::string& caseId);
// Draws every op input of the case into its buffer's initial contents (seeded from the case's seed).
void fillFlaReplayInputs(const FlaCapture& capture, FlaReplayCase& replay);
// One input's bytes (row-major, its dtype): the generator's distribution, transform, scale and normalize, then the
// cast (bf16 and fp16 round to nearest even). `seed` picks the stream.
std::vector<std::uint8_t> generateFlaInput(const FlaCaptureTensor& input, std::uint64_t seed);

// The launch of one config: its binary read from the Triton cache (SHA-256 checked against the manifest), the grid,
// and the parameters (buildTritonParams), checked against the cubin's own parameter record. Throws Error naming why.
CapturedKernelLaunch makeFlaCapturedLaunch(const FlaCapture& capture, const FlaReplayLaunch& launch, std::size_t config,
                                           const std::filesystem::path& tritonCache);

// How one output of a config compares with the reference config's: bitwise equal, else (floating dtypes) the
// ratio rms(got - ref) / rms(ref) over every element, which must be at most `tolerance`; a NaN or infinity where the
// other side differs, or any difference of an integer dtype, fails.
struct FlaOutputCheck {
    bool passed = true;
    bool bitwise = true;
    double rmsRatio = 0;
    std::size_t differing = 0;  // elements whose bits differ
    std::string message;        // "bitwise equal", "rms ratio 3.1e-04 (1234 elements differ)", or why it failed
};
FlaOutputCheck compareFlaOutput(const std::string& dtype, std::span<const std::uint8_t> reference,
                                std::span<const std::uint8_t> got, double tolerance = 0.005);

// --- the sweep ------------------------------------------------------------------------------------------------------

struct FlaSweepOptions {
    std::filesystem::path tritonCache;  // where the capture's binaries are (their folders)
    StoppingRule rule;
    int rounds = 3;
    L2Regime regime = L2Regime::Cold;
    std::uint64_t orderSeed = 20261203;
    double rmsTolerance = 0.005;
    // Which configs of a (kernel, key_hash) run; unset: every measurable one. A head-to-head (fla_capture_confirm)
    // runs two. The output check's reference is then the first kept config.
    std::function<bool(const std::string& kernel, const std::string& keyHash, std::size_t config)> keepConfig;
    // A/A: every config measured this many times per round as identical items, each in its own shuffled slot.
    int replicas = 1;
    std::function<void(const std::string&)> note;  // progress lines
};

struct FlaConfigRun {
    std::size_t config = 0;
    std::string error;                 // why it could not be launched or timed; empty when it ran
    bool checkPassed = false;          // outputs agree with the reference config's (the reference: true)
    std::string check;                 // "reference", "bitwise equal", "rms ratio ...", or the failure
    std::vector<double> roundMedianMs, roundP20Ms, roundP80Ms;  // replica 0
    std::vector<std::vector<double>> replicaRoundMedianMs;      // replicas 1.. (A/A), per round as roundMedianMs
    int samples = 0;
    double medianMs = 0, p20Ms = 0, p80Ms = 0;  // medians over the rounds
    bool measured() const { return error.empty() && !roundMedianMs.empty(); }
};

struct FlaLaunchRun {
    std::string kernel_name, case_id;
    std::int64_t sequence = 0;
    std::size_t launch = 0;            // index in the kernel's launches
    std::optional<std::size_t> referenceConfig;
    std::vector<FlaConfigRun> configs;  // the decision's measurable configs
    const FlaConfigRun* config(std::size_t index) const;
};

struct FlaDecisionConfig {
    std::size_t config = 0;
    std::string label;
    bool eligible = false;  // measured and checked on every launch of the decision
    std::string why;        // when not eligible
    double totalMs = 0, totalP20Ms = 0, totalP80Ms = 0;  // sums over the decision's launches
};

struct FlaDecisionRun {
    std::string kernel_name, key_hash;
    std::vector<std::size_t> launchRuns;  // indices into FlaCaptureSweep::launches
    std::vector<FlaDecisionConfig> configs;
    std::optional<std::size_t> chosen;        // the fastest eligible config (lowest total)
    std::optional<std::size_t> capturedChoice;  // FLA's own choice in the capture
};

struct FlaCaptureSweep {
    std::string manifest, digest, device, timer;
    std::vector<FlaLaunchRun> launches;
    std::vector<FlaDecisionRun> decisions;
};

// Runs every case: buffers, then per launch in sequence order the output check of every measurable config against
// the reference (config 0 when it is measurable, else the first that is), then `rounds` rounds of every config that
// ran, each round in a new shuffled order. A config that fails to load, launch or check is recorded and left out of
// the decision; the sweep goes on.
FlaCaptureSweep runFlaCaptureSweep(const FlaCapture& capture, Device& device, const FlaSweepOptions& options);

// The results file (tunescope-fla-capture-sweep-v1) and the choices file (tunescope-fla-choices-v1, the fastest
// eligible config per decision; best_timing is the sums over its launches of the round medians' p50, p20, p80).
Json toJson(const FlaCaptureSweep& sweep, const FlaSweepOptions& options);
Json flaSweepChoices(const FlaCaptureSweep& sweep);
// Per decision: the chosen config, its total and FLA's choice; per launch the check of every config.
std::string formatFlaCaptureSweep(const FlaCaptureSweep& sweep);

}  // namespace tunescope
