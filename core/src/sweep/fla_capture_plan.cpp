#include "tunescope/sweep/fla_capture_plan.hpp"

#include <sstream>

namespace tunescope {

std::size_t FlaDecision::measurableConfigs() const {
    std::size_t n = 0;
    for (const auto& c : configs) n += c.measurable(launches.size()) ? 1 : 0;
    return n;
}

const FlaDecision* FlaCapturePlan::decision(const std::string& kernelName, const std::string& keyHash) const {
    for (const auto& d : decisions)
        if (d.kernel_name == kernelName && d.key_hash == keyHash) return &d;
    return nullptr;
}

std::string flaConfigLabel(const FlaCaptureConfig& config) {
    std::string out;
    for (auto it = config.kwargs.begin(); it != config.kwargs.end(); ++it)
        out += it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : dumpJson(it.value(), -1)) + " ";
    out += "num_warps=" + std::to_string(config.num_warps) + " num_stages=" + std::to_string(config.num_stages);
    if (config.num_ctas != 1) out += " num_ctas=" + std::to_string(config.num_ctas);
    if (config.maxnreg) out += " maxnreg=" + std::to_string(*config.maxnreg);
    if (config.ir_override) out += " ir_override=" + *config.ir_override;
    return out;
}

FlaCapturePlan planFlaCapture(const FlaCapture& capture) {
    FlaCapturePlan plan;
    plan.manifest = capture.fileName;
    plan.capture_kind = capture.capture_kind;
    plan.device = capture.device.name;
    plan.arch = capture.device.arch;
    plan.triton_version = capture.stack.triton_version;
    plan.fla_version = capture.stack.fla_version;
    plan.kernels = capture.kernels.size();
    for (const auto& kernel : capture.kernels) {
        const std::size_t first = plan.decisions.size();
        for (std::size_t li = 0; li < kernel.launches.size(); ++li) {
            const FlaCaptureLaunch& launch = kernel.launches[li];
            FlaDecision* decision = nullptr;
            for (std::size_t d = first; d < plan.decisions.size(); ++d)
                if (plan.decisions[d].key_hash == launch.key_hash) decision = &plan.decisions[d];
            if (!decision) {
                plan.decisions.push_back(FlaDecision{kernel.kernel_name, launch.key_hash, launch.autotune_key, {}, {}, {}});
                decision = &plan.decisions.back();
                for (std::size_t c = 0; c < kernel.configs.size(); ++c)
                    decision->configs.push_back(FlaPlanConfig{c, flaConfigLabel(kernel.configs[c]), 0, 0});
            }
            decision->launches.push_back(
                FlaPlanLaunch{launch.case_id, launch.sequence, li, launch.autotune_source, launch.chosen_config});
            if (!decision->capturedChoice && launch.chosen_config)
                decision->capturedChoice = static_cast<std::size_t>(*launch.chosen_config);
            ++plan.launches;
            for (const auto& variant : launch.variants) {
                FlaPlanConfig& config = decision->configs.at(static_cast<std::size_t>(variant.config));
                ++plan.variants;
                if (variant.binary) {
                    ++config.binaries;
                    ++plan.variantsWithBinary;
                }
                if (variant.compile_error) ++config.compileErrors;
            }
        }
    }
    return plan;
}

std::string formatFlaCapturePlan(const FlaCapturePlan& plan) {
    std::ostringstream out;
    out << plan.manifest << ": " << plan.capture_kind << " capture on " << plan.device << " (" << plan.arch
        << "), FLA " << plan.fla_version << ", Triton " << plan.triton_version << "\n";
    std::size_t measurable = 0;
    for (const auto& d : plan.decisions) {
        out << "\n" << d.kernel_name << " key " << d.key_hash << " " << dumpJson(d.autotune_key, -1) << "\n";
        out << "  launches (" << d.launches.size() << "):";
        for (const auto& l : d.launches) out << " " << l.case_id << "#" << l.sequence;
        out << "\n";
        out << "  configs (" << d.configs.size() << ", " << d.measurableConfigs() << " with a binary for every launch):\n";
        for (const auto& c : d.configs) {
            out << "    " << c.index << ": " << c.label;
            if (d.capturedChoice && *d.capturedChoice == c.index) out << "  [FLA's choice]";
            if (!c.measurable(d.launches.size())) {
                out << "  (binaries " << c.binaries << "/" << d.launches.size();
                if (c.compileErrors) out << ", " << c.compileErrors << " compile error" << (c.compileErrors > 1 ? "s" : "");
                out << ")";
            }
            out << "\n";
        }
        measurable += d.measurableConfigs() > 0 ? 1 : 0;
    }
    out << "\n" << plan.decisions.size() << " decisions (kernel, key) over " << plan.kernels << " kernels and "
        << plan.launches << " launches; " << plan.variantsWithBinary << " of " << plan.variants
        << " variants have a binary; " << measurable << " decisions have a config to measure\n";
    return out.str();
}

Json toJson(const FlaCapturePlan& plan) {
    Json out = Json::object();
    out["manifest"] = plan.manifest;
    out["capture_kind"] = plan.capture_kind;
    out["device"] = plan.device;
    out["arch"] = plan.arch;
    out["fla_version"] = plan.fla_version;
    out["triton_version"] = plan.triton_version;
    Json decisions = Json::array();
    for (const auto& d : plan.decisions) {
        Json launches = Json::array(), configs = Json::array();
        for (const auto& l : d.launches)
            launches.push_back({{"case", l.case_id}, {"sequence", l.sequence}, {"autotune_source", l.autotune_source}});
        for (const auto& c : d.configs)
            configs.push_back({{"config", c.index}, {"label", c.label}, {"binaries", c.binaries},
                               {"compile_errors", c.compileErrors}, {"measurable", c.measurable(d.launches.size())}});
        decisions.push_back({{"kernel_name", d.kernel_name}, {"key_hash", d.key_hash}, {"autotune_key", d.autotune_key},
                             {"captured_choice", d.capturedChoice ? Json(*d.capturedChoice) : Json()},
                             {"launches", launches}, {"configs", configs}});
    }
    out["decisions"] = decisions;
    out["launches"] = plan.launches;
    out["variants"] = plan.variants;
    out["variants_with_binary"] = plan.variantsWithBinary;
    return out;
}

std::optional<std::string> flaCaptureSweepRefusal(const FlaCapture& capture, const std::vector<DeviceInfo>& devices,
                                                  const std::vector<std::string>& unavailable) {
    const std::string& backend = capture.device.backend;
    const std::string& arch = capture.device.arch;
    const std::string what = "the captured Triton kernels are " + backend + " binaries for " + arch + " (" +
                             capture.device.name + ")";
    if (capture.binaries.empty())
        return "the capture holds no compiled binaries (a " + capture.capture_kind +
               " capture): there is nothing to launch; capture on the GPU with scripts/fla_capture.py";
    std::string seen, otherArch;
    for (const auto& d : devices) {
        seen += (seen.empty() ? "" : ", ") + deviceLabel(d);
        if (d.backend != backend) continue;
        // a device's architecture may carry features after a colon (gfx90a:sramecc+:xnack-)
        if (d.architecture.substr(0, d.architecture.find(':')) != arch) {
            otherArch += (otherArch.empty() ? "" : ", ") + deviceLabel(d);
            continue;
        }
        // The generic launcher (docs/fla-capture.md, section 10) is in the CUDA plugin only.
        if (backend == "hip")
            return what + " and " + deviceLabel(d) + " could run them, but the replay of captured kernels is "
                   "CUDA-only for now (the HIP plugin has no generic launcher); use --dry-run for the plan";
        return std::nullopt;
    }
    std::string reason = what + ": they need a " + std::string(backend == "hip" ? "HIP" : "CUDA") + " device of " +
                         arch + ", and ";
    if (!otherArch.empty()) return reason + "this machine's " + otherArch + " is another architecture";
    reason += "this machine has only " + (seen.empty() ? std::string("no device") : seen);
    for (const auto& line : unavailable)
        if (line.rfind(backend + ":", 0) == 0) reason += " (" + line + ")";
    return reason;
}

}  // namespace tunescope
