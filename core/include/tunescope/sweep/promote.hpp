#pragma once
// promote: turn a sweep's measurements into policy. Each prospective per-NB entry whose NB was measured becomes
// basis "measured-best" with evidence. The incumbent stays when it is in the tie set of the fastest config (paired
// over rounds, docs/sweep.md "Decisions") and the measurements are of the GPU architecture the profile targets;
// otherwise the tie rule picks one config of the tie set (the fastest estimate first).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/device/measurement.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/sweep/results.hpp"

namespace tunescope {

struct PromoteOptions {
    double threshold = 0.005;       // paired threshold: the incumbent must be SLOWER than the fastest by this
    bool includeAllBases = false;   // also promote original-production-chosen and imported entries
    std::string resultsSha256;      // SHA-256 of the results file (filled by promoteFile when empty)
    std::string resultsFileName;    // its file name, recorded in the evidence (no folders: no private paths)
    // The L2 regime to decide on when the results hold several (`sweep --l2 both`); unset: the results must hold
    // one, else promote refuses (one decision never mixes regimes).
    std::optional<L2Regime> l2;
    // Promote although the result's entries (or the measurements) come from more than one GPU architecture.
    bool allowMixedArchitectures = false;
    // The FLA version the measured Triton binaries were compiled from, for the runtime block ("unknown" when empty:
    // a Triton cache does not say).
    std::string flaVersion;
};

// promote will not decide: the results mix L2 regimes or timers, or the promoted profile would mix architectures
// (without allowMixedArchitectures). A problem with the data (CLI exit 1), not with I/O.
class PromoteRefused : public Error {
public:
    using Error::Error;
};

struct PromoteEntry {
    int nb = 0;
    std::string oldBasis, newBasis;
    TritonConfig oldConfig, newConfig;
    bool promoted = false;        // the entry now carries measured-best evidence
    bool keptIncumbent = false;   // the incumbent is in the tie set of the fastest config (and stays)
    bool incumbentForeign = false;  // a tie, but measured on a GPU architecture the profile does not target: replaced
    Comparison bestVsIncumbent = Comparison::Ambiguous;  // fastest vs incumbent, paired; when the incumbent was measured
    std::vector<L2NormConfig> ties;  // the tie set, in the tie rule's order
    std::vector<double> roundRatios;  // fastest / incumbent per round
    double ratioLow = 0, ratioHigh = 0;  // the paired interval of fastest / incumbent
    bool incumbentMeasured = false;
    double bestMedianMs = 0;
    double chosenMedianMs = 0;
    std::string note;             // why it was skipped or what was decided, one line
};

struct PromoteReport {
    Profile profile;                    // the promoted profile
    std::vector<PromoteEntry> entries;  // one per per_NB_policy entry, in file order
    std::size_t promotedCount = 0;
    std::vector<std::string> warnings;  // e.g. measured on another architecture than the profile targets
};

// Pure: the results must already be loaded. Entries whose NB has no usable l2norm measurement stay as they are.
// When several shapes share an NB (--batch sweeps), the one with the most rows (the bucket's upper edge) decides.
// When an entry was promoted, the profile's runtime block and target say where the measurements were made (GPU,
// architecture, driver, CUDA/HIP runtime, the measured Triton binaries' version, FLA, timer, L2 regime) and the
// block they replace moves to "runtime_history" (docs/formats.md, "Provenance"). Throws PromoteRefused (above).
PromoteReport promote(const Profile& profile, const ResultsFile& results, const PromoteOptions& options = {});

// Loads both files, fills the results digest and name, and promotes.
PromoteReport promoteFiles(const std::filesystem::path& profileFile, const std::filesystem::path& resultsFile,
                           PromoteOptions options = {});

}  // namespace tunescope
