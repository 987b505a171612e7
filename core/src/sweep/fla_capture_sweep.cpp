// The sweep of an FLA capture on a GPU (docs/fla-capture.md, section 10): per case, per launch in sequence order,
// the output check of every measurable config against the reference config, then shuffled rounds of timing; per
// decision (kernel, key) the fastest config that passed everywhere.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "tunescope/base/errors.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/sweep/fla_capture_sweep_file.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"
#include "tunescope/sweep/fla_capture_replay.hpp"

namespace tunescope {

namespace {

constexpr std::uint8_t kPoisonByte = 0xff;  // NaN in every float dtype: an element a config leaves unwritten shows

std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// The order of round `round` of one launch: a Fisher-Yates shuffle from the seed (the same on every machine).
std::vector<std::size_t> shuffled(std::size_t count, std::uint64_t seed) {
    std::vector<std::size_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = i;
    std::uint64_t state = seed;
    for (std::size_t i = count; i > 1; --i) {
        state = mix(state + 0x9e3779b97f4a7c15ull);
        std::swap(order[i - 1], order[state % i]);
    }
    return order;
}

double medianOf(std::vector<double> values) { return values.empty() ? 0 : median(std::move(values)); }

std::string msText(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f ms", ms);
    return text;
}

// One case on the device: its buffers, and per launch the reference config's work that later launches replay.
class CaseRunner {
public:
    CaseRunner(const FlaCapture& capture, const FlaCapturePlan& plan, Device& device, const FlaSweepOptions& options,
               FlaCaptureSweep& sweep)
        : capture_(capture), plan_(plan), device_(device), options_(options), sweep_(sweep) {}

    void run(const FlaCaptureCase& c) {
        replay_ = planFlaReplayCase(capture_, c.id);
        fillFlaReplayInputs(capture_, replay_);
        device_.prepareReplayBuffers(replay_.buffers);
        for (auto& buffer : replay_.buffers) buffer.initial.clear();  // the device keeps them now
        chain_.clear();
        for (const FlaReplayLaunch& launch : replay_.launches) runLaunch(launch);
    }

private:
    // Every earlier launch of the case again from the initial buffers, so this launch sees the op's values.
    void replayChain() {
        device_.resetReplayBuffers();
        for (const auto& work : chain_)
            if (work) work->timeSampleMs();
    }

    // One checked run of `work`: the chain, the launch's outputs poisoned, one launch, the outputs read back.
    std::vector<std::vector<std::uint8_t>> checkedRun(const FlaReplayLaunch& launch, TimedWork& work) {
        replayChain();
        for (const FlaReplayTensor& t : launch.tensors)
            if (t.output) device_.fillReplayBuffer(t.buffer, kPoisonByte);
        work.timeSampleMs();
        std::vector<std::vector<std::uint8_t>> outputs;
        for (const FlaReplayTensor& t : launch.tensors)
            if (t.output) outputs.push_back(device_.readReplayBuffer(t.buffer));
        return outputs;
    }

    void check(const FlaReplayLaunch& launch, FlaLaunchRun& run, std::vector<std::unique_ptr<TimedWork>>& works) {
        std::size_t ref = 0;
        while (ref < works.size() && !works[ref]) ++ref;
        if (ref == works.size()) return;
        run.referenceConfig = run.configs[ref].config;
        std::vector<std::vector<std::uint8_t>> reference;
        try {
            reference = checkedRun(launch, *works[ref]);
            run.configs[ref].checkPassed = true;
            run.configs[ref].check = "reference";
        } catch (const Error& e) {
            run.configs[ref].error = std::string("reference run failed: ") + e.what();
            works[ref].reset();
            return check(launch, run, works);  // the next config that loaded becomes the reference
        }
        for (std::size_t i = 0; i < works.size(); ++i) {
            if (i == ref || !works[i]) continue;
            FlaConfigRun& config = run.configs[i];
            try {
                const auto outputs = checkedRun(launch, *works[i]);
                config.checkPassed = true;
                std::string summary;
                std::size_t o = 0;
                for (const FlaReplayTensor& t : launch.tensors) {
                    if (!t.output) continue;
                    const FlaOutputCheck result = compareFlaOutput(t.dtype, reference[o], outputs[o], options_.rmsTolerance);
                    ++o;
                    config.checkPassed = config.checkPassed && result.passed;
                    summary += (summary.empty() ? "" : "; ") + t.name + ": " + result.message;
                }
                config.check = (config.checkPassed ? "" : "FAILED: ") + (summary.empty() ? "no output tensor" : summary);
            } catch (const Error& e) {
                config.error = std::string("checked run failed: ") + e.what();
                works[i].reset();
            }
        }
    }

    void time(const FlaReplayLaunch& launch, FlaLaunchRun& run, std::vector<std::unique_ptr<TimedWork>>& works) {
        replayChain();  // realistic inputs; each config then rewrites its own outputs
        MeasureContext context;
        const std::size_t replicas = std::size_t(std::max(1, options_.replicas));
        for (FlaConfigRun& config : run.configs) config.replicaRoundMedianMs.assign(replicas - 1, {});
        for (int round = 0; round < options_.rounds; ++round) {
            const std::uint64_t seed = mix(options_.orderSeed ^ mix(std::uint64_t(launch.sequence) * 131 + std::uint64_t(round)) ^
                                           std::hash<std::string>{}(replay_.caseId));
            // Items: config i, replica k at slot i * replicas + k (with one replica, the order of earlier versions).
            for (std::size_t item : shuffled(works.size() * replicas, seed)) {
                const std::size_t i = item / replicas, replica = item % replicas;
                if (!works[i] || !run.configs[i].checkPassed) continue;
                FlaConfigRun& config = run.configs[i];
                try {
                    const Measurement m = measure(*works[i], options_.rule, options_.regime, context);
                    context.referenceClockMHz = std::max(context.referenceClockMHz, m.referenceClockMHz);
                    config.samples += m.sampleCount;
                    if (replica > 0) {
                        config.replicaRoundMedianMs[replica - 1].push_back(m.medianMs);
                        continue;
                    }
                    config.roundMedianMs.push_back(m.medianMs);
                    config.roundP20Ms.push_back(m.p20Ms);
                    config.roundP80Ms.push_back(m.p80Ms);
                } catch (const Error& e) {
                    config.error = std::string("timing failed: ") + e.what();
                    works[i].reset();
                }
            }
        }
        for (FlaConfigRun& config : run.configs) {
            config.medianMs = medianOf(config.roundMedianMs);
            config.p20Ms = medianOf(config.roundP20Ms);
            config.p80Ms = medianOf(config.roundP80Ms);
        }
    }

    void runLaunch(const FlaReplayLaunch& launch) {
        const FlaCaptureKernel& kernel = capture_.kernels[launch.kernel];
        const FlaCaptureLaunch& captured = kernel.launches[launch.launch];
        const FlaDecision* decision = plan_.decision(kernel.kernel_name, captured.key_hash);
        FlaLaunchRun run;
        run.kernel_name = kernel.kernel_name;
        run.case_id = captured.case_id;
        run.sequence = captured.sequence;
        run.launch = launch.launch;
        std::vector<std::unique_ptr<TimedWork>> works;
        for (const FlaPlanConfig& c : decision->configs) {
            if (!c.measurable(decision->launches.size())) continue;
            if (options_.keepConfig && !options_.keepConfig(kernel.kernel_name, captured.key_hash, c.index)) continue;
            FlaConfigRun config;
            config.config = c.index;
            try {
                works.push_back(device_.capturedKernelWork(makeFlaCapturedLaunch(capture_, launch, c.index, options_.tritonCache)));
            } catch (const Error& e) {
                config.error = e.what();
                works.push_back(nullptr);
            }
            run.configs.push_back(std::move(config));
        }
        if (options_.note)
            options_.note(kernel.kernel_name + " at " + run.case_id + "#" + std::to_string(run.sequence) + ": " +
                          std::to_string(works.size()) + " configs");
        check(launch, run, works);
        time(launch, run, works);
        // Later launches replay this one with its reference config.
        std::unique_ptr<TimedWork> reference;
        for (std::size_t i = 0; i < works.size(); ++i)
            if (run.referenceConfig && run.configs[i].config == *run.referenceConfig) reference = std::move(works[i]);
        chain_.push_back(std::move(reference));
        sweep_.launches.push_back(std::move(run));
    }

    const FlaCapture& capture_;
    const FlaCapturePlan& plan_;
    Device& device_;
    const FlaSweepOptions& options_;
    FlaCaptureSweep& sweep_;
    FlaReplayCase replay_;
    std::vector<std::unique_ptr<TimedWork>> chain_;  // per earlier launch of the case, its reference config's work
};

FlaDecisionRun decide(const FlaDecision& decision, const FlaCaptureSweep& sweep) {
    FlaDecisionRun out;
    out.kernel_name = decision.kernel_name;
    out.key_hash = decision.key_hash;
    out.capturedChoice = decision.capturedChoice;
    for (const FlaPlanLaunch& l : decision.launches)
        for (std::size_t i = 0; i < sweep.launches.size(); ++i)
            if (sweep.launches[i].kernel_name == decision.kernel_name && sweep.launches[i].launch == l.launchIndex)
                out.launchRuns.push_back(i);
    for (const FlaPlanConfig& c : decision.configs) {
        FlaDecisionConfig config{c.index, c.label, c.measurable(decision.launches.size()), "", 0, 0, 0};
        if (!config.eligible) config.why = "no binary for every launch of the key";
        for (std::size_t i : out.launchRuns) {
            const FlaLaunchRun& run = sweep.launches[i];
            const FlaConfigRun* r = run.config(c.index);
            const std::string at = run.case_id + "#" + std::to_string(run.sequence);
            if (!config.eligible) break;
            if (!r || !r->error.empty()) config.why = at + ": " + (r ? r->error : "not run");
            else if (!r->checkPassed) config.why = at + ": " + r->check;
            else if (!r->measured()) config.why = at + ": not measured";
            config.eligible = config.why.empty();
            if (!config.eligible) break;
            config.totalMs += r->medianMs;
            config.totalP20Ms += r->p20Ms;
            config.totalP80Ms += r->p80Ms;
        }
        if (out.launchRuns.size() != decision.launches.size() && config.eligible) {
            config.eligible = false;
            config.why = "not every launch of the key was replayed";
        }
        if (config.eligible && (!out.chosen || config.totalMs < out.configs[*out.chosen].totalMs))
            out.chosen = out.configs.size();
        out.configs.push_back(std::move(config));
    }
    if (out.chosen) out.chosen = out.configs[*out.chosen].config;
    return out;
}

const FlaDecisionConfig* decisionConfig(const FlaDecisionRun& d, std::size_t index) {
    for (const auto& c : d.configs)
        if (c.config == index) return &c;
    return nullptr;
}

}  // namespace

const FlaConfigRun* FlaLaunchRun::config(std::size_t index) const {
    for (const auto& c : configs)
        if (c.config == index) return &c;
    return nullptr;
}

FlaCaptureSweep runFlaCaptureSweep(const FlaCapture& capture, Device& device, const FlaSweepOptions& options) {
    const FlaCapturePlan plan = planFlaCapture(capture);
    FlaCaptureSweep sweep;
    sweep.manifest = capture.fileName;
    sweep.digest = capture.digest;
    sweep.device = deviceLabel(device.info());
    sweep.timer = device.timer();
    CaseRunner runner(capture, plan, device, options, sweep);
    for (const FlaCaptureCase& c : capture.cases) {
        if (options.note) options.note("case " + c.id);
        runner.run(c);
    }
    for (const FlaDecision& d : plan.decisions) sweep.decisions.push_back(decide(d, sweep));
    return sweep;
}

Json toJson(const FlaCaptureSweep& sweep, const FlaSweepOptions& options) {
    Json out = Json::object();
    out["format"] = std::string(kFlaCaptureSweepFormat);
    out["manifest"] = sweep.manifest;
    out["capture_digest"] = sweep.digest;
    out["device"] = sweep.device;
    out["timer"] = sweep.timer;
    out["l2"] = toString(options.regime);
    out["rounds"] = options.rounds;
    out["rms_tolerance"] = options.rmsTolerance;
    if (options.replicas > 1) out["replicas"] = options.replicas;
    Json launches = Json::array();
    for (const FlaLaunchRun& run : sweep.launches) {
        Json configs = Json::array();
        for (const FlaConfigRun& c : run.configs) {
            configs.push_back({{"config", c.config}, {"error", c.error.empty() ? Json() : Json(c.error)},
                               {"check_passed", c.checkPassed}, {"check", c.check}, {"samples", c.samples},
                               {"median_ms", c.medianMs}, {"p20_ms", c.p20Ms}, {"p80_ms", c.p80Ms},
                               {"round_median_ms", c.roundMedianMs}});
            if (!c.replicaRoundMedianMs.empty()) configs.back()["replica_round_median_ms"] = c.replicaRoundMedianMs;
        }
        launches.push_back({{"kernel_name", run.kernel_name}, {"case", run.case_id}, {"sequence", run.sequence},
                            {"reference_config", run.referenceConfig ? Json(*run.referenceConfig) : Json()},
                            {"configs", configs}});
    }
    Json decisions = Json::array();
    for (const FlaDecisionRun& d : sweep.decisions) {
        Json configs = Json::array();
        for (const FlaDecisionConfig& c : d.configs)
            configs.push_back({{"config", c.config}, {"label", c.label}, {"eligible", c.eligible},
                               {"why", c.why.empty() ? Json() : Json(c.why)}, {"total_ms", c.totalMs},
                               {"total_p20_ms", c.totalP20Ms}, {"total_p80_ms", c.totalP80Ms}});
        decisions.push_back({{"kernel_name", d.kernel_name}, {"key_hash", d.key_hash}, {"launch_runs", d.launchRuns},
                             {"chosen_config", d.chosen ? Json(*d.chosen) : Json()},
                             {"captured_choice", d.capturedChoice ? Json(*d.capturedChoice) : Json()},
                             {"configs", configs}});
    }
    out["launches"] = launches;
    out["decisions"] = decisions;
    return out;
}

Json flaSweepChoices(const FlaCaptureSweep& sweep) {
    Json choices = Json::array();
    for (const FlaDecisionRun& d : sweep.decisions) {
        if (!d.chosen) continue;
        const FlaDecisionConfig* c = decisionConfig(d, *d.chosen);
        choices.push_back({{"kernel_name", d.kernel_name}, {"key_hash", d.key_hash}, {"config", *d.chosen},
                           {"best_timing", Json::array({c->totalMs, c->totalP20Ms, c->totalP80Ms})}});
    }
    Json out = Json::object();
    out["format"] = std::string(kFlaChoicesFormat);
    if (!sweep.digest.empty()) out["capture_digest"] = sweep.digest;
    out["choices"] = choices;
    return out;
}

std::string formatFlaCaptureSweep(const FlaCaptureSweep& sweep) {
    std::ostringstream out;
    out << sweep.manifest << " on " << sweep.device << " (timer " << sweep.timer << ")\n";
    for (const FlaDecisionRun& d : sweep.decisions) {
        out << "\n" << d.kernel_name << " key " << d.key_hash << ": ";
        std::size_t eligible = 0;
        for (const auto& c : d.configs) eligible += c.eligible ? 1 : 0;
        if (d.chosen) {
            const FlaDecisionConfig* c = decisionConfig(d, *d.chosen);
            out << "chosen config " << *d.chosen << " (" << c->label << "), " << msText(c->totalMs) << " over "
                << d.launchRuns.size() << " launch" << (d.launchRuns.size() == 1 ? "" : "es");
            if (d.capturedChoice) {
                const FlaDecisionConfig* fla = decisionConfig(d, *d.capturedChoice);
                out << "; FLA's choice " << *d.capturedChoice;
                if (fla && fla->eligible) {
                    char ratio[32];
                    std::snprintf(ratio, sizeof ratio, "%.3f", fla->totalMs / c->totalMs);
                    out << " " << msText(fla->totalMs) << " (x" << ratio << ")";
                } else if (fla) {
                    out << " not eligible (" << fla->why << ")";
                }
            }
        } else {
            out << "no eligible config";
        }
        out << "; " << eligible << " of " << d.configs.size() << " configs eligible\n";
        for (std::size_t i : d.launchRuns) {
            const FlaLaunchRun& run = sweep.launches[i];
            std::size_t passed = 0, failed = 0, errors = 0;
            for (const auto& c : run.configs) {
                if (!c.error.empty()) ++errors;
                else if (c.checkPassed) ++passed;
                else ++failed;
            }
            out << "  " << run.case_id << "#" << run.sequence << ": output check vs config "
                << (run.referenceConfig ? std::to_string(*run.referenceConfig) : std::string("-")) << ": " << passed
                << " passed, " << failed << " failed, " << errors << " errors\n";
            for (const auto& c : run.configs)
                if (!c.error.empty() || !c.checkPassed)
                    out << "    config " << c.config << ": " << (c.error.empty() ? c.check : c.error) << "\n";
        }
    }
    return out.str();
}

}  // namespace tunescope
