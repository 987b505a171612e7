// The capture sweep's results file read back (issue 24, docs/fla-capture.md section 10): the H100's sweep of run 17
// (BENCHMARKS.md) reads, as written and with its decisions' launch_runs; copies with one impossible record each are
// refused with the JSON Pointer of that record; so is a head to head (confirm --manifest, run 19's H100 file) whose
// replicas or recorded verdicts the measurements cannot give; two capture sweeps compare per kernel and key (compare
// A B, docs/fla-capture.md section 12). Plain C++ (no Qt), so it runs wherever the core builds.
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>

#include "tunescope/base/json_io.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/sweep/fla_capture_compare.hpp"
#include "tunescope/sweep/fla_capture_confirm.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

using plain_test::g_failures;

fs::path captureData() { return plain_test::sourceDir() / "tests" / "data" / "fla-capture"; }

Json load(const std::string& name) { return parseJson(readTextFile(captureData() / name), name); }

bool hasFault(const FlaCaptureSweepCheck& check, const std::string& pointer, const std::string& words) {
    for (const auto& f : check.faults)
        if (f.pointer == pointer && f.message.find(words) != std::string::npos) return true;
    std::cerr << "expected a fault at " << pointer << " saying \"" << words << "\"; got:\n";
    for (const auto& f : check.faults) std::cerr << "  " << f.pointer << ": " << f.message << "\n";
    return false;
}

// One change to the file with launch_runs, then the fault it must cause.
void refused(const std::string& what, const std::function<void(Json&)>& change, const std::string& pointer,
             const std::string& words) {
    Json doc = load("sweep-h100-run17-launch-runs.json");
    change(doc);
    const FlaCaptureSweepCheck check = checkFlaCaptureSweepJson(doc, "sweep.json");
    if (check.sweep) std::cerr << what << ": accepted\n";
    CHECK(!check.sweep);
    const bool found = hasFault(check, pointer, words);
    if (!found) std::cerr << "  (case: " << what << ")\n";
    CHECK(found);
}

void readsTheH100Sweep() {
    for (const char* name : {"sweep-h100-run17.json", "sweep-h100-run17-launch-runs.json"}) {
        const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(captureData() / name);
        for (const auto& f : check.faults) std::cerr << name << ": " << f.pointer << ": " << f.message << "\n";
        CHECK(check.faults.empty());
        CHECK(check.sweep.has_value());
        if (!check.sweep) continue;
        const FlaCaptureSweepFile& s = *check.sweep;
        CHECK(s.sweep.launches.size() == 21);
        CHECK(s.sweep.decisions.size() == 8);
        CHECK(s.l2 == "cold" && s.rounds == 2 && s.sweep.timer == "cupti");
        CHECK(s.launchRunsListed == (std::string(name).find("launch-runs") != std::string::npos));
        CHECK(s.sweep.decisions[0].kernel_name == "l2norm_fwd_kernel" && s.sweep.decisions[0].chosen == 11u);
        if (s.launchRunsListed) CHECK(s.sweep.decisions[3].launchRuns.size() == 3);  // cumsum: one key, three lengths
    }
}

void refusesImpossibleRecords() {
    refused("chosen not the lowest", [](Json& d) { d["decisions"][0]["chosen_config"] = 0; }, "/decisions/0/chosen_config",
            "is faster");
    refused("chosen not eligible", [](Json& d) {
        d["decisions"][1]["configs"][3]["eligible"] = false;
        d["decisions"][1]["configs"][3]["why"] = "planted";
        d["decisions"][1]["chosen_config"] = 3;
    }, "/decisions/1/chosen_config", "not eligible");
    refused("nothing chosen though eligible", [](Json& d) { d["decisions"][2]["chosen_config"] = nullptr; },
            "/decisions/2/chosen_config", "is eligible");
    refused("p20 above the median", [](Json& d) {
        Json& c = d["launches"][4]["configs"][1];
        c["p20_ms"] = c["median_ms"].get<double>() * 1.5;
    }, "/launches/4/configs/1/p20_ms", "cannot exceed the median");
    refused("p80 below the median", [](Json& d) {
        Json& c = d["decisions"][5]["configs"][2];
        c["total_p80_ms"] = c["total_ms"].get<double>() * 0.5;
    }, "/decisions/5/configs/2/total_p80_ms", "cannot be below the median");
    refused("eligible without a total", [](Json& d) { d["decisions"][3]["configs"][1].erase("total_ms"); },
            "/decisions/3/configs/1", "missing \"total_ms\"");
    refused("eligible with a reason", [](Json& d) { d["decisions"][3]["configs"][1]["why"] = "planted"; },
            "/decisions/3/configs/1/why", "must be null");
    refused("not eligible without a reason", [](Json& d) { d["decisions"][3]["configs"][2]["eligible"] = false; },
            "/decisions/3/configs/2/why", "says why");
    refused("total not the sum of its launches", [](Json& d) {
        Json& c = d["decisions"][6]["configs"][0];
        for (const char* k : {"total_ms", "total_p20_ms", "total_p80_ms"}) c[k] = c[k].get<double>() * 1.01;
    }, "/decisions/6/configs/0/total_ms", "not the sum");
    refused("passed its check while failing to run", [](Json& d) {
        d["launches"][2]["configs"][1]["error"] = "planted: launch failed";
    }, "/launches/2/configs/1/check_passed", "cannot have passed");
    refused("a launch of another kernel", [](Json& d) { d["decisions"][7]["launch_runs"][0] = 0; },
            "/decisions/7/launch_runs/0", "is of l2norm_fwd_kernel");
    refused("a launch that does not exist", [](Json& d) { d["decisions"][7]["launch_runs"][0] = 21; },
            "/decisions/7/launch_runs/0", "one of the file's 21 launches");
    refused("a second decision for a key", [](Json& d) { d["decisions"].push_back(d["decisions"][4]); },
            "/decisions/8", "a second decision");
    refused("a non-finite time", [](Json& d) { d["launches"][0]["configs"][0]["round_median_ms"][1] = -1.0; },
            "/launches/0/configs/0/round_median_ms/1", "milliseconds");
    refused("more round medians than rounds", [](Json& d) { d["rounds"] = 1; }, "/launches/0/configs/0/round_median_ms",
            "the sweep ran 1 rounds");
    refused("a reference config that did not run", [](Json& d) { d["launches"][3]["reference_config"] = 40; },
            "/launches/3/reference_config", "not among");
    refused("a key that is no md5", [](Json& d) { d["decisions"][0]["key_hash"] = "878A"; }, "/decisions/0/key_hash",
            "32 lowercase hex");
    refused("another format", [](Json& d) { d["format"] = "tunescope-fla-capture-sweep-v2"; }, "/format", "must be");
    refused("an unknown regime", [](Json& d) { d["l2"] = "lukewarm"; }, "/l2", "cold");
}

void badFilesAreFaultsNotCrashes() {
    const fs::path dir = plain_test::tempDir("tunescope-fla-sweep-file", "bad");
    const fs::path truncated = dir / "truncated.json";
    writeFileAtomic(truncated, readTextFile(captureData() / "sweep-h100-run17.json").substr(0, 5000));
    const FlaCaptureSweepCheck a = checkFlaCaptureSweepFile(truncated);
    CHECK(!a.sweep && a.faults.size() == 1);
    const FlaCaptureSweepCheck b = checkFlaCaptureSweepFile(dir / "missing.json");
    CHECK(!b.sweep && b.faults.size() == 1);
    const FlaCaptureSweepCheck c = checkFlaCaptureSweepJson(Json::array(), "array.json");
    CHECK(!c.sweep && c.faults.size() == 1 && c.faults[0].pointer.empty());
    fs::remove_all(dir);
}

// Run 19's confirm --manifest file (BENCHMARKS.md): the sweep with its A/A replicas and the head to head, judged
// again to the same verdicts; one impossible record per copy is refused with its pointer.
void readsTheH100HeadToHead() {
    const FlaCapture capture =
        readFlaCapture(plain_test::sourceDir() / "bench" / "results" / "h100-run14" / "issue24a" / "fla-capture.json");
    const fs::path good = captureData() / "confirm-h100-run19.json";
    const FlaConfirmFile file = readFlaConfirmFile(good, capture);
    CHECK(file.sweep.replicas == 2 && file.threshold == 0.005 && file.candidate.choices.size() == 8);
    const FlaConfirmReport report = judgeFlaConfirm(file.sweep.sweep, capture, file.candidate, file.baseline, 0.005);
    CHECK(report.count(HeadToHeadVerdict::Faster) == 1 && report.count(HeadToHeadVerdict::Tie) == 2 &&
          report.count(HeadToHeadVerdict::SameConfig) == 4 && report.count(HeadToHeadVerdict::Undecided) == 1);
    CHECK(report.atLeastAsFast() && report.rows[0].verdict == HeadToHeadVerdict::Faster);
    // A wider threshold turns the 0.7% UNDECIDED key into a TIE; the 4.6% gain stays FASTER.
    const FlaConfirmReport wide = judgeFlaConfirm(file.sweep.sweep, capture, file.candidate, file.baseline, 0.01);
    CHECK(wide.count(HeadToHeadVerdict::Undecided) == 0 && wide.rows[0].verdict == HeadToHeadVerdict::Faster);

    const fs::path dir = plain_test::tempDir("tunescope-fla-confirm-file", "bad");
    const auto refusedFile = [&](const std::string& what, const std::function<void(Json&)>& change,
                                 const std::string& pointer, const std::string& words) {
        Json doc = parseJson(readTextFile(good), good.string());
        change(doc);
        const fs::path bad = dir / (what + ".json");
        writeFileAtomic(bad, dumpJson(doc, 2));
        try {
            readFlaConfirmFile(bad, capture);
            std::cerr << what << ": accepted\n";
            CHECK(false);
        } catch (const Error& e) {
            if (e.jsonPath() != pointer || e.message().find(words) == std::string::npos)
                std::cerr << what << ": got " << e.what() << "\n";
            CHECK(e.jsonPath() == pointer && e.message().find(words) != std::string::npos);
            CHECK(e.file() == bad.string());
        }
    };
    refusedFile("verdict", [](Json& d) { d["head_to_head"]["rows"][0]["verdict"] = "SLOWER"; },
                "/head_to_head/rows/0/verdict", "is SLOWER, but the recorded measurements give FASTER");
    refusedFile("replica-negative",
                [](Json& d) { d["launches"][0]["configs"][0]["replica_round_median_ms"][0][3] = -1.0; },
                "/launches/0/configs/0/replica_round_median_ms/0/3", "");
    refusedFile("replica-missing", [](Json& d) { d["launches"][1]["configs"][0].erase("replica_round_median_ms"); },
                "/launches/1/configs/0", "missing \"replica_round_median_ms\"");
    refusedFile("replicas-undeclared", [](Json& d) { d.erase("replicas"); },
                "/launches/0/configs/0/replica_round_median_ms", "no \"replicas\" >= 2");
    refusedFile("replica-too-many-rounds",
                [](Json& d) { d["launches"][0]["configs"][0]["replica_round_median_ms"][0].push_back(0.02); },
                "/launches/0/configs/0/replica_round_median_ms/0", "at most 8 round medians");
    refusedFile("config-outside", [](Json& d) { d["head_to_head"]["rows"][2]["candidate_config"] = 99; },
                "/head_to_head/rows/2/candidate_config", "99 is not a config of l2norm_fwd_kernel");
    refusedFile("no-head-to-head", [](Json& d) { d.erase("head_to_head"); }, "/head_to_head", "is missing");
    refusedFile("other-capture", [](Json& d) { d["capture_digest"] = std::string(64, 'a'); }, "/capture_digest",
                "is not the digest of");
    fs::remove_all(dir);
}

}  // namespace

// compare A B: the run against itself agrees everywhere; against a copy where another config of one key became
// the fastest on B, that key's regret is exactly A's choice's total on B over B's choice's, the rest still agree,
// and a key B lacks is counted, not compared.
void comparesTwoCaptureSweeps() {
    const FlaCaptureSweepCheck check = checkFlaCaptureSweepFile(captureData() / "sweep-h100-run17.json");
    CHECK(check.sweep.has_value());
    if (!check.sweep) return;
    const FlaCaptureSweepFile& a = *check.sweep;
    const FlaCaptureComparison self = compareFlaCaptureSweeps(a, "a.json", a, "a.json");
    CHECK(self.decisions.size() == 8 && self.sameChoices == 8 && self.onlyInA == 0 && self.onlyInB == 0);
    CHECK(self.worstRegret && *self.worstRegret == 0.0 && std::abs(self.geomeanRatio - 1.0) < 1e-12);
    CHECK(self.sameCapture());
    for (const FlaCaptureCompareDecision& d : self.decisions)
        CHECK(!d.rankCorrelation || std::abs(*d.rankCorrelation - 1.0) < 1e-12);

    FlaCaptureSweepFile b = a;
    FlaDecisionRun& changed = b.sweep.decisions[0];  // l2norm, chosen #11
    FlaDecisionConfig* other = nullptr;
    double chosenTotal = 0;
    for (FlaDecisionConfig& c : changed.configs) {
        if (c.config == *changed.chosen) chosenTotal = c.totalMs;
        if (c.eligible && c.config != *changed.chosen && !other) other = &c;
    }
    CHECK(other != nullptr && chosenTotal > 0);
    if (!other) return;
    other->totalMs = chosenTotal * 0.98;  // now 2% faster than A's choice on B
    other->totalP20Ms = other->totalMs * 0.999;
    other->totalP80Ms = other->totalMs * 1.001;
    changed.chosen = other->config;
    b.sweep.decisions.pop_back();  // a key only A has
    const FlaCaptureComparison c = compareFlaCaptureSweeps(a, "a.json", b, "b.json");
    CHECK(c.decisions.size() == 7 && c.onlyInA == 1 && c.onlyInB == 0 && c.sameChoices == 6);
    const FlaCaptureCompareDecision& d = c.decisions[0];
    CHECK(!d.sameChoice() && d.chosenB == other->config);
    CHECK(d.regretOfAChoiceOnB && std::abs(*d.regretOfAChoiceOnB - (1.0 / 0.98 - 1.0)) < 1e-12);
    CHECK(!d.aChoiceWithinBSpread);
    CHECK(c.worstRegret && *c.worstRegret == *d.regretOfAChoiceOnB);
    CHECK(c.worstRegretDecision == "l2norm_fwd_kernel key " + a.sweep.decisions[0].key_hash.substr(0, 8));
    const std::string text = formatFlaCaptureComparison(c, true);
    CHECK(text.find("A's choice on B +2.04% (outside B's p20-p80)") != std::string::npos);
    CHECK(text.find("7 decisions compared: 6 with the same choice") != std::string::npos);
    CHECK(text.find("1 decisions only in A, 0 only in B") != std::string::npos);
    if (text.find("+2.04%") == std::string::npos) std::cerr << text;
}

int main() {
    readsTheH100Sweep();
    comparesTwoCaptureSweeps();
    refusesImpossibleRecords();
    badFilesAreFaultsNotCrashes();
    readsTheH100HeadToHead();
    if (g_failures) std::cerr << g_failures << " check(s) failed\n";
    else std::cout << "fla_capture_sweep_file: all checks passed\n";
    return g_failures ? 1 : 0;
}
