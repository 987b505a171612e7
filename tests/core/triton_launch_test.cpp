// The replay of captured Triton kernels without a GPU (docs/fla-capture.md, section 10): the parameter list Triton
// 3.6's launcher passes (argument filtering, order, scalar encodings), checked on the real H100 capture's launches and
// against every captured cubin's own parameter record; the case buffers and their aliasing; the inputs' generators;
// the output comparison; and the whole sweep (checks, rounds, decisions, choices) over a scripted device that
// launches nothing, and the head to head of two sides' configs over it (confirm --manifest). Plain C++ (no Qt).
//
// The cubin checks and the scripted sweep need the capture's Triton cache: the archive beside the manifest is
// unpacked with tar into a temporary folder; without tar those parts say SKIP.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/bf16.hpp"
#include "tunescope/device/triton_launch.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/sweep/fla_capture_confirm.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"
#include "tunescope/sweep/fla_capture_replay.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

using plain_test::sourceDir;
fs::path h100Dir() { return sourceDir() / "bench" / "results" / "h100-run14" / "issue24a"; }
fs::path h100Capture() { return h100Dir() / "fla-capture.json"; }
fs::path t4096Fixture() { return sourceDir() / "tests" / "data" / "fla-capture" / "h100-gdr-fwd-T4096.json"; }

std::vector<std::uint8_t> bytes(std::initializer_list<int> list) {
    std::vector<std::uint8_t> out;
    for (int b : list) out.push_back(std::uint8_t(b));
    return out;
}

bool throws(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error&) {
        return true;
    }
    return false;
}

std::vector<std::string> names(const std::vector<KernelParam>& params) {
    std::vector<std::string> out;
    for (const auto& p : params) out.push_back(p.name);
    return out;
}

const FlaReplayLaunch* replayLaunchOf(const FlaReplayCase& replay, const FlaCapture& capture, const std::string& kernel) {
    for (const auto& l : replay.launches)
        if (capture.kernels[l.kernel].kernel_name == kernel) return &l;
    return nullptr;
}

void testScalarEncodings() {
    CHECK(encodeTritonScalar("T", "i32", 4096) == bytes({0x00, 0x10, 0x00, 0x00}));
    CHECK(encodeTritonScalar("n", "i64", -2) == bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
    CHECK(encodeTritonScalar("n", "i16", -1) == bytes({0xff, 0xff}));
    CHECK(encodeTritonScalar("n", "i8", 5) == bytes({5}));
    CHECK(encodeTritonScalar("n", "u8", 255) == bytes({0xff}));
    CHECK(encodeTritonScalar("n", "u16", 258) == bytes({2, 1}));
    CHECK(encodeTritonScalar("n", "u32", 1) == bytes({1, 0, 0, 0}));
    CHECK(encodeTritonScalar("n", "u64", Json(std::uint64_t(1) << 63)) == bytes({0, 0, 0, 0, 0, 0, 0, 0x80}));
    CHECK(encodeTritonScalar("flag", "i1", true) == bytes({1}));  // Triton 3.6: i1 and u1 are one byte
    CHECK(encodeTritonScalar("flag", "u1", false) == bytes({0}));
    const std::uint32_t eps = std::bit_cast<std::uint32_t>(1e-6f);
    CHECK(encodeTritonScalar("eps", "fp32", 1e-6) ==
          bytes({int(eps & 0xff), int(eps >> 8 & 0xff), int(eps >> 16 & 0xff), int(eps >> 24)}));
    CHECK(encodeTritonScalar("x", "fp64", 1.0) == bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
    // bf16: pack_bf16 takes the float's high half (truncation): 0x3f81c000 gives 0x3f81, where rounding would give 0x3f82.
    CHECK(encodeTritonScalar("x", "bf16", double(std::bit_cast<float>(0x3f81c000u))) == bytes({0x81, 0x3f}));
    CHECK(encodeTritonScalar("x", "bf16", 1.0) == bytes({0x80, 0x3f}));
    // fp16: IEEE half, rounded to nearest even (PyFloat_Pack2); overflow to infinity; subnormals.
    CHECK(encodeTritonScalar("x", "fp16", 1.0) == bytes({0x00, 0x3c}));
    CHECK(encodeTritonScalar("x", "fp16", 0.1) == bytes({0x66, 0x2e}));
    CHECK(encodeTritonScalar("x", "fp16", 65504.0) == bytes({0xff, 0x7b}));
    CHECK(encodeTritonScalar("x", "fp16", 70000.0) == bytes({0x00, 0x7c}));
    CHECK(encodeTritonScalar("x", "fp16", -2.0) == bytes({0x00, 0xc0}));
    CHECK(encodeTritonScalar("x", "fp16", std::ldexp(1.0, -24)) == bytes({0x01, 0x00}));
    CHECK(encodeTritonScalar("x", "fp16", 1e-9) == bytes({0x00, 0x00}));
    CHECK(encodeTritonScalar("x", "fp16", 1.0 + std::ldexp(1.0, -11)) == bytes({0x00, 0x3c}));  // tie: to even
    CHECK(throws([] { encodeTritonScalar("n", "i8", 300); }));
    CHECK(throws([] { encodeTritonScalar("n", "u32", -1); }));
    CHECK(throws([] { encodeTritonScalar("n", "i32", 1.5); }));
    CHECK(throws([] { encodeTritonScalar("n", "fp32", "x"); }));
    CHECK(throws([] { encodeTritonScalar("n", "nvTmaDesc", 0); }));
}

void testFiltering() {
    using K = TritonLaunchArg::Kind;
    const std::vector<TritonLaunchArg> args = {
        {"x", K::Tensor, "*bf16", Json(), false, 0, 0},      {"none_arg", K::None, "", Json(), false, -1, 0},
        {"n", K::Scalar, "i32", 1, false, -1, 0},            {"m", K::Scalar, "i32", 1, true, -1, 0},
        {"s", K::Scalar, "fp32", 1.0, false, -1, 0},         {"BT", K::Constexpr, "", 64, false, -1, 0},
        {"y", K::Tensor, "*fp32", Json(), false, 1, 64},     {"flag", K::Scalar, "u1", true, false, -1, 0}};
    const std::vector<KernelParam> params = buildTritonParams(args);
    // n == 1 without do_not_specialize is a constexpr in Triton 3.6 (specialize.cc); m is do_not_specialize.
    CHECK((names(params) == std::vector<std::string>{"x", "m", "s", "y", "flag", "global_scratch", "profile_scratch"}));
    CHECK(params[0].kind == KernelParam::Kind::Buffer && params[0].buffer == 0);
    CHECK(params[3].buffer == 1 && params[3].byteOffset == 64);
    CHECK(params[5].kind == KernelParam::Kind::GlobalScratch && params[6].kind == KernelParam::Kind::ProfileScratch);
    CHECK(kernelParamSize(params[1]) == 4 && kernelParamSize(params[4]) == 1 && kernelParamSize(params[0]) == 8);
}

// Every kernel's first launch in the real capture: the list is arg_names less constexprs and None arguments, then the
// two scratch pointers; l2norm_fwd_kernel's is exactly what docs/triton-kernels.md and the H200's PTX show.
void testCapturedParamLists(const FlaCapture& capture) {
    for (const FlaCaptureCase& c : capture.cases) {
        const FlaReplayCase replay = planFlaReplayCase(capture, c.id);
        CHECK(replay.launches.size() == std::size_t(c.launch_count));
        for (const FlaReplayLaunch& launch : replay.launches) {
            const FlaCaptureKernel& kernel = capture.kernels[launch.kernel];
            const FlaCaptureLaunch& captured = kernel.launches[launch.launch];
            std::vector<std::string> expected;
            for (const FlaCaptureArgument& a : captured.args) {
                const bool constexprName = std::find(kernel.constexpr_names.begin(), kernel.constexpr_names.end(), a.name) !=
                                           kernel.constexpr_names.end();
                if (!constexprName && a.kind != FlaArgKind::None) expected.push_back(a.name);
            }
            expected.push_back("global_scratch");
            expected.push_back("profile_scratch");
            CHECK(names(buildTritonParams(launch.args)) == expected);
        }
    }
    const FlaReplayCase replay = planFlaReplayCase(capture, capture.cases[0].id);
    const FlaReplayLaunch* l2norm = replayLaunchOf(replay, capture, "l2norm_fwd_kernel");
    CHECK(l2norm && (names(buildTritonParams(l2norm->args)) ==
                     std::vector<std::string>{"x", "y", "rstd", "eps", "T", "global_scratch", "profile_scratch"}));
    const FlaReplayLaunch* o = replayLaunchOf(replay, capture, "chunk_fwd_kernel_o");
    CHECK(o && (names(buildTritonParams(o->args)) == std::vector<std::string>{"q", "k", "v", "h", "g", "o", "scale", "T",
                                                                                "global_scratch", "profile_scratch"}));
}

// One buffer per distinct tensor of a case; launch_arg origins alias the earlier launch's buffer; outputs are the
// tensors first seen at their launch.
void testCaseBuffers(const FlaCapture& capture) {
    FlaReplayCase replay = planFlaReplayCase(capture, capture.cases[0].id);
    auto tensor = [&](const std::string& kernel, const std::string& name) -> const FlaReplayTensor* {
        const FlaReplayLaunch* l = replayLaunchOf(replay, capture, kernel);
        for (const auto& t : l->tensors)
            if (t.name == name) return &t;
        return nullptr;
    };
    // Launch 0 and 1 are l2norm of q and of k; chunk_fwd_kernel_o reads both results as q and k.
    const FlaReplayLaunch& first = replay.launches[0];
    CHECK(first.sequence == 0 && replay.launches[1].sequence == 1);
    const FlaReplayTensor* q = tensor("chunk_fwd_kernel_o", "q");
    const FlaReplayTensor* o = tensor("chunk_fwd_kernel_o", "o");
    const FlaReplayTensor* h = tensor("chunk_fwd_kernel_o", "h");
    const FlaReplayTensor* kernelH = tensor("chunk_gated_delta_rule_fwd_kernel_h_blockdim64", "h");
    CHECK(q && o && h && kernelH);
    CHECK(q->buffer == first.tensors[1].buffer && first.tensors[1].name == "y" && first.tensors[1].output);
    CHECK(!q->output && o->output && !h->output && kernelH->output && h->buffer == kernelH->buffer);
    CHECK(replay.buffers[std::size_t(first.tensors[0].buffer)].bytes == 16777216);
    CHECK(replay.bufferInputs[std::size_t(first.tensors[0].buffer)] == "q");
    std::size_t inputs = 0;
    for (const auto& name : replay.bufferInputs) inputs += name.empty() ? 0 : 1;
    CHECK(inputs == 5);  // q, k, v, g, beta
    fillFlaReplayInputs(capture, replay);
    for (std::size_t b = 0; b < replay.buffers.size(); ++b)
        CHECK(replay.bufferInputs[b].empty() == replay.buffers[b].initial.empty());
}

void testGenerators() {
    FlaCaptureTensor input;
    input.name = "q";
    input.shape = {4, 64};
    input.dtype = "torch.bfloat16";
    input.generator = {"uniform", 0, 1, 0, 0, "none", 1, "none"};
    const auto uniform = generateFlaInput(input, 7);
    CHECK(uniform.size() == 4 * 64 * 2);
    double sum = 0;
    bool inRange = true;
    for (std::size_t i = 0; i < uniform.size(); i += 2) {
        const float v = bf16::toFloat(std::uint16_t(uniform[i] | uniform[i + 1] << 8));
        inRange = inRange && v >= 0 && v <= 1;
        sum += v;
    }
    CHECK(inRange && std::fabs(sum / 256 - 0.5) < 0.1);
    CHECK(generateFlaInput(input, 7) == uniform && generateFlaInput(input, 8) != uniform);
    input.dtype = "torch.float32";
    input.generator = {"uniform", 0, 1, 0, 0, "logsigmoid", 1, "none"};
    const auto g = generateFlaInput(input, 1);
    bool logsigmoid = true;
    for (std::size_t i = 0; i < g.size(); i += 4) {
        float v;
        std::memcpy(&v, g.data() + i, 4);
        logsigmoid = logsigmoid && v <= -0.313f && v >= -0.694f;
    }
    CHECK(logsigmoid);
    input.generator = {"normal", 0, 0, 0, 1, "none", 2, "l2_last_dim"};
    const auto n = generateFlaInput(input, 1);
    bool unitRows = true;
    for (std::size_t row = 0; row < 4; ++row) {
        double s = 0;
        for (std::size_t i = 0; i < 64; ++i) {
            float v;
            std::memcpy(&v, n.data() + (row * 64 + i) * 4, 4);
            s += double(v) * v;
        }
        unitRows = unitRows && std::fabs(std::sqrt(s) - 1) < 1e-5;
    }
    CHECK(unitRows);
    input.generator = {"zeros", 0, 0, 0, 0, "none", 1, "none"};
    const auto z = generateFlaInput(input, 1);
    CHECK(std::all_of(z.begin(), z.end(), [](std::uint8_t b) { return b == 0; }));
}

std::vector<std::uint8_t> floats(const std::vector<float>& values) {
    std::vector<std::uint8_t> out(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

void testCompare() {
    const auto ref = floats({1, 2, 3, 4});
    CHECK(compareFlaOutput("torch.float32", ref, ref).passed && compareFlaOutput("torch.float32", ref, ref).bitwise);
    const FlaOutputCheck close = compareFlaOutput("torch.float32", ref, floats({1, 2, 3, 4.001f}));
    CHECK(close.passed && !close.bitwise && close.differing == 1 && close.rmsRatio < 0.005);
    const FlaOutputCheck far = compareFlaOutput("torch.float32", ref, floats({1, 2, 3, 5}));
    CHECK(!far.passed && far.message.find("over the tolerance") != std::string::npos);
    const FlaOutputCheck nan = compareFlaOutput("torch.float32", ref, floats({1, 2, 3, NAN}));
    CHECK(!nan.passed && nan.message.find("element 3") != std::string::npos);
    const std::vector<std::uint8_t> ints = {1, 0, 0, 0}, other = {2, 0, 0, 0};
    CHECK(!compareFlaOutput("torch.int32", ints, other).passed);
    CHECK(!compareFlaOutput("torch.float32", ref, floats({1, 2})).passed);
    // bf16: one ulp on one element of many is within 0.005.
    std::vector<std::uint8_t> a(2000), b;
    for (std::size_t i = 0; i < a.size(); i += 2) a[i + 1] = 0x3f, a[i] = 0x80;  // 1.0
    b = a;
    b[0] = 0x81;
    CHECK(compareFlaOutput("torch.bfloat16", a, b).passed);
}

// --- a scripted device: buffers in host memory, launches that write nothing (or zeros, for one planted config) -------

class ScriptedDevice;

class ScriptedWork final : public TimedWork {
public:
    ScriptedWork(ScriptedDevice& device, CapturedKernelLaunch launch) : device_(device), launch_(std::move(launch)) {}
    void beforeSample(L2Regime) override {}
    double timeSampleMs() override;
    std::uint64_t bytesMoved() const override { return 0; }

private:
    ScriptedDevice& device_;
    CapturedKernelLaunch launch_;
};

class ScriptedDevice final : public Device {
public:
    ScriptedDevice() {
        info_.backend = "cuda";
        info_.name = "scripted H100";
        info_.architecture = "sm_90";
        info_.warpSize = 32;
    }
    const DeviceInfo& info() const override { return info_; }
    bool supports(const L2NormConfig&, std::string*) const override { return false; }
    void prepareL2Norm(std::int64_t, std::uint64_t) override {}
    std::unique_ptr<TimedWork> l2normWork(const L2NormConfig&, float) override { return nullptr; }
    std::unique_ptr<TimedWork> copyWork() override { return nullptr; }
    void runL2Norm(const L2NormConfig&, std::span<const std::uint16_t>, std::span<std::uint16_t>, std::span<float>,
                   float) override {}
    void prepareReplayBuffers(const std::vector<ReplayBuffer>& buffers) override {
        initial_.clear();
        for (const auto& b : buffers) {
            std::vector<std::uint8_t> contents(b.bytes, 0);
            std::copy(b.initial.begin(), b.initial.end(), contents.begin());
            initial_.push_back(std::move(contents));
        }
        resetReplayBuffers();
        ++prepares;
    }
    void resetReplayBuffers() override { buffers_ = initial_; }
    void fillReplayBuffer(int index, std::uint8_t byte) override {
        std::fill(buffers_.at(std::size_t(index)).begin(), buffers_.at(std::size_t(index)).end(), byte);
    }
    std::vector<std::uint8_t> readReplayBuffer(int index) override { return buffers_.at(std::size_t(index)); }
    std::unique_ptr<TimedWork> capturedKernelWork(const CapturedKernelLaunch& launch) override {
        ++works;
        return std::make_unique<ScriptedWork>(*this, launch);
    }
    std::vector<std::vector<std::uint8_t>> buffers_, initial_;
    int prepares = 0, works = 0;
    std::map<std::string, int> launches;  // per label

private:
    DeviceInfo info_;
};

// Times 1 + |config - 1| ms, so that config 1 is the fastest wherever it is measurable; chunk_fwd_kernel_o's config 1
// writes zeros into o (its last tensor), where the reference leaves the poison: its check fails and config 0 wins.
double ScriptedWork::timeSampleMs() {
    ++device_.launches[launch_.label];
    const std::size_t at = launch_.label.find(" config ");
    const int config = std::stoi(launch_.label.substr(at + 8));
    if (launch_.label.rfind("chunk_fwd_kernel_o config 1 ", 0) == 0) {
        int last = -1;
        for (const auto& p : launch_.params)
            if (p.kind == KernelParam::Kind::Buffer) last = p.buffer;
        device_.fillReplayBuffer(last, 0);
    }
    return 1.0 + std::abs(config - 1);
}

// A short stopping rule: the scripted times do not vary, so three samples decide.
FlaSweepOptions scriptedOptions(const fs::path& cache) {
    FlaSweepOptions options;
    options.tritonCache = cache;
    options.rule.warmupSamples = 1;
    options.rule.minSamples = 3;
    options.rule.minTimeMs = 0;
    options.rule.timeoutMs = 100;
    return options;
}

void testScriptedSweep(const fs::path& cache) {
    const FlaCapture capture = readFlaCapture(t4096Fixture());
    ScriptedDevice device;
    FlaSweepOptions options = scriptedOptions(cache);
    options.rounds = 2;
    const FlaCaptureSweep sweep = runFlaCaptureSweep(capture, device, options);
    CHECK(device.prepares == 1 && sweep.launches.size() == 7 && sweep.decisions.size() == 6);
    for (const FlaLaunchRun& run : sweep.launches) {
        CHECK(run.referenceConfig && *run.referenceConfig == 0);
        for (const FlaConfigRun& c : run.configs) {
            CHECK(c.error.empty());
            if (run.kernel_name == "chunk_fwd_kernel_o" && c.config == 1) {
                CHECK(!c.checkPassed && c.check.find("FAILED: o:") == 0 && c.roundMedianMs.empty());
            } else {
                CHECK(c.checkPassed && c.roundMedianMs.size() == 2 && c.medianMs == 1.0 + std::abs(int(c.config) - 1));
            }
        }
    }
    for (const FlaDecisionRun& d : sweep.decisions) {
        CHECK(d.chosen.has_value());
        const std::size_t expected = d.kernel_name == "chunk_fwd_kernel_o" || d.configs.size() < 2 ? 0 : 1;
        CHECK(d.chosen && *d.chosen == expected);
    }
    // The chain: chunk_fwd_kernel_o (launch 6) is checked after launches 0..5 ran with their reference configs, once
    // per checked run of each of its configs, and once more before its timing rounds.
    const Json choices = flaSweepChoices(sweep);
    CHECK(choices["format"] == "tunescope-fla-choices-v1" && choices["choices"].size() == 6);
    CHECK(choices["capture_digest"] == capture.digest);
    checkFlaChoices(capture, parseFlaChoices(choices, "choices.json"));  // export-fla accepts them
    const Json results = toJson(sweep, options);
    CHECK(results["format"] == "tunescope-fla-capture-sweep-v1" && results["launches"].size() == 7);
    const std::string text = formatFlaCaptureSweep(sweep);
    CHECK(text.find("chunk_fwd_kernel_o key") != std::string::npos && text.find("FAILED: o:") != std::string::npos);
}

// confirm --manifest over the scripted device: the candidate takes config 1 (the scripted fastest) wherever a key
// has two configs, the baseline is FLA's own picks recorded in the capture. Only the two sides' configs run, each
// twice per round (A/A); identical scripted times make every A/A exactly 1, and each verdict follows from the
// scripted times (1 + |config - 1| ms per launch).
void testScriptedConfirm(const fs::path& cache) {
    const FlaCapture capture = readFlaCapture(t4096Fixture());
    const FlaCapturePlan plan = planFlaCapture(capture);
    FlaChoices candidate;
    candidate.source = "scripted";
    candidate.fileName = "scripted-choices.json";
    candidate.sha256 = std::string(64, '0');
    for (const FlaDecision& d : plan.decisions)
        candidate.choices.push_back({d.kernel_name, d.key_hash, d.configs.size() >= 2 ? 1u : 0u, Json(), ""});
    const FlaChoices baseline = flaConfirmSide(capture, "captured");
    CHECK(baseline.source == "captured" && baseline.choices.size() == plan.decisions.size());

    // The candidate as export-fla writes it, read back through its manifest and as a plain FLA_CONFIG_DIR.
    const fs::path dir = plain_test::tempDir("tunescope-confirm", "export");
    exportFlaConfigDir(capture, candidate, dir);
    const FlaChoices exported = flaConfirmSide(capture, dir.string());
    CHECK(exported.source == "tunescope-fla-config-dir" && exported.choices.size() == candidate.choices.size());
    fs::remove(dir / std::string(kFlaConfigDirManifestName));
    const FlaChoices plain = flaConfirmSide(capture, dir.string());
    CHECK(plain.source == "fla-config-dir" && plain.choices.size() == candidate.choices.size());
    for (const FlaChoice& c : plain.choices) {
        const auto same = std::find_if(candidate.choices.begin(), candidate.choices.end(), [&](const FlaChoice& x) {
            return x.kernel_name == c.kernel_name && x.key_hash == c.key_hash;
        });
        CHECK(same != candidate.choices.end() && same->config == c.config);
    }
    // An entry whose config the capture cannot replay is named by its JSON Pointer.
    const fs::path file = dir / "chunk_fwd_kernel_o.json";
    Json doc = readJsonFile(file);
    const std::string key = doc["autotune_entries"].begin().key();
    doc["autotune_entries"][key]["config"]["num_warps"] = 3;
    writeFileAtomic(file, doc.dump(2));
    try {
        flaConfirmSide(capture, dir.string());
        CHECK(false);
    } catch (const Error& e) {
        CHECK(e.jsonPath() == "/autotune_entries/" + key + "/config" && e.file() == file.string());
        CHECK(std::string(e.what()).find("is none of the capture's") != std::string::npos);
    }
    fs::remove_all(dir);
    CHECK(throws([&] { flaConfirmSide(capture, "/no/such/folder"); }));

    ScriptedDevice device;
    FlaSweepOptions options = scriptedOptions(cache);
    options.rounds = 3;
    restrictToSides(options, candidate, baseline);
    const FlaCaptureSweep sweep = runFlaCaptureSweep(capture, device, options);
    for (const FlaLaunchRun& run : sweep.launches) {
        CHECK(run.configs.size() <= 2);
        for (const FlaConfigRun& c : run.configs)
            if (c.checkPassed) CHECK(c.roundMedianMs.size() == 3 && c.replicaRoundMedianMs.size() == 1 &&
                                     c.replicaRoundMedianMs[0].size() == 3);
    }
    // FLA's picks in the fixture: config 1 for chunk_fwd_kernel_o, others elsewhere.
    const FlaConfirmReport report = judgeFlaConfirm(sweep, capture, candidate, baseline);
    CHECK(report.rows.size() == plan.decisions.size());
    for (const FlaConfirmRow& r : report.rows) {
        CHECK(r.candidate && r.baseline);
        if (!r.candidate || !r.baseline) continue;
        const std::size_t c = *r.candidate, b = *r.baseline;
        const double launches = double(r.launches);
        if (c == b) {
            CHECK(r.verdict == HeadToHeadVerdict::SameConfig && r.worstControl == 1);
            continue;
        }
        CHECK(std::abs(r.candidateMs - launches * (1.0 + std::abs(int(c) - 1))) < 1e-9);
        CHECK(std::abs(r.baselineMs - launches * (1.0 + std::abs(int(b) - 1))) < 1e-9);
        CHECK(r.verdict == HeadToHeadVerdict::Faster && r.rounds == 3 && r.controls.size() == 2 && r.worstControl == 1);
    }
    CHECK(report.count(HeadToHeadVerdict::Faster) == 5 && report.count(HeadToHeadVerdict::SameConfig) == 1);
    CHECK(report.atLeastAsFast());
    const std::string text = formatFlaConfirm(report);
    CHECK(text.find("5 FASTER") != std::string::npos && text.find("at least as fast at every key") != std::string::npos);
    const Json json = toJson(report);
    CHECK(json["format"] == "tunescope-fla-confirm-v1" && json["rows"].size() == report.rows.size());
    CHECK(json["at_least_as_fast"] == true && json["rows"][0]["verdict"] == "FASTER");

    // The sides swapped, FLA's pick for chunk_fwd_kernel_o set to config 0: five keys SLOWER, and chunk_fwd_kernel_o
    // NOT MEASURED, because the baseline's config 1 fails its output check against config 0 (the reference).
    FlaChoices flaPicks = baseline;
    for (FlaChoice& c : flaPicks.choices)
        if (c.kernel_name == "chunk_fwd_kernel_o") c.config = 0;
    FlaSweepOptions swapped = options;
    restrictToSides(swapped, flaPicks, candidate);
    const FlaCaptureSweep second = runFlaCaptureSweep(capture, device, swapped);
    const FlaConfirmReport reverse = judgeFlaConfirm(second, capture, flaPicks, candidate);
    CHECK(reverse.count(HeadToHeadVerdict::Slower) == 5 && reverse.count(HeadToHeadVerdict::NotMeasured) == 1);
    CHECK(!reverse.atLeastAsFast());
    for (const FlaConfirmRow& r : reverse.rows)
        if (r.kernel_name == "chunk_fwd_kernel_o")
            CHECK(r.why.find("the baseline's config 1") != std::string::npos && r.why.find("FAILED") != std::string::npos);
    // No A/A replicas: the verdicts stand, with no control.
    FlaSweepOptions single = options;
    restrictToSides(single, candidate, baseline, 1);
    const FlaConfirmReport noAa = judgeFlaConfirm(runFlaCaptureSweep(capture, device, single), capture, candidate, baseline);
    CHECK(noAa.count(HeadToHeadVerdict::Faster) == 5 && noAa.rows[0].controls.empty());
    // A side with no entry for a key: that key is NOT MEASURED (FLA would autotune it), never passed.
    FlaChoices partial = candidate;
    partial.choices.pop_back();
    const FlaConfirmReport gap = judgeFlaConfirm(sweep, capture, partial, baseline);
    CHECK(gap.rows.back().verdict == HeadToHeadVerdict::NotMeasured &&
          gap.rows.back().why.find("has no entry") != std::string::npos);
}

// Every variant of the full capture: its binary read from the unpacked cache (SHA-256 checked), its parameters built
// and checked against the cubin's EIATTR_KPARAM_INFO record.
void testEveryCubin(const FlaCapture& capture, const fs::path& cache) {
    std::size_t checked = 0;
    for (const FlaCaptureCase& c : capture.cases) {
        const FlaReplayCase replay = planFlaReplayCase(capture, c.id);
        for (const FlaReplayLaunch& launch : replay.launches) {
            const FlaCaptureLaunch& captured = capture.kernels[launch.kernel].launches[launch.launch];
            for (std::size_t v = 0; v < captured.variants.size(); ++v) {
                try {
                    const CapturedKernelLaunch l = makeFlaCapturedLaunch(capture, launch, v, cache);
                    CHECK(l.grid[0] >= 1 && l.binary.numWarps == capture.kernels[launch.kernel].configs[v].num_warps);
                    ++checked;
                } catch (const Error& e) {
                    std::cerr << "variant " << v << " of " << captured.case_id << "#" << captured.sequence << ": " << e.what()
                              << "\n";
                    CHECK(false);
                }
            }
        }
    }
    CHECK(checked == 252);
    // A planted mismatch is named: one parameter too many, and an i32 where the cubin takes 8 bytes.
    const FlaReplayCase replay = planFlaReplayCase(capture, capture.cases[0].id);
    CapturedKernelLaunch l = makeFlaCapturedLaunch(capture, replay.launches[0], 0, cache);
    const std::vector<CubinParam> cubin = cubinKernelParams(l.binary.image, l.binary.kernelName);
    CHECK(cubin.size() == 7 && cubin[3].size == 4 && cubin[5].offset == 32);
    CHECK(paramsMismatch(l.params, cubin).empty());
    l.params.push_back(l.params.back());
    CHECK(paramsMismatch(l.params, cubin).find("passes 8 parameters, the cubin takes 7") != std::string::npos);
    l.params.pop_back();
    l.params[4].bytes.resize(8);
    CHECK(paramsMismatch(l.params, cubin).find("parameter 4 (T) is 8 bytes, the cubin takes 4") != std::string::npos);
    CHECK(throws([&] { cubinKernelParams(l.binary.image, "no_such_kernel"); }));
    CHECK(throws([] { cubinKernelParams(std::vector<std::uint8_t>(100, 0), "k"); }));
}

}  // namespace

int main() {
    try {
        testScalarEncodings();
        testFiltering();
        const FlaCapture capture = readFlaCapture(h100Capture());
        testCapturedParamLists(capture);
        testCaseBuffers(capture);
        testGenerators();
        testCompare();
        const fs::path cache = plain_test::tempDir("tunescope-triton-launch", "cache");
        const std::string command = "tar -xzf '" + (h100Dir() / "triton-cache-1.tar.gz").string() + "' -C '" +
                                    cache.string() + "' 2>/dev/null";
        if (std::system(command.c_str()) == 0) {
            testEveryCubin(capture, cache);
            testScriptedSweep(cache);
            testScriptedConfirm(cache);
        } else {
            std::cout << "SKIP: tar could not unpack the capture's Triton cache: no cubin checks, no scripted sweep\n";
        }
        fs::remove_all(cache);
    } catch (const std::exception& e) {
        std::cerr << "uncaught: " << e.what() << "\n";
        return 1;
    }
    if (plain_test::g_failures) {
        std::cerr << plain_test::g_failures << " check(s) failed\n";
        return 1;
    }
    std::cout << "triton launch: all checks passed\n";
    return 0;
}
