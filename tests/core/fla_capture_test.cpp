// The FLA capture manifest's C++ reader (issue 24, docs/fla-capture.md): the committed hand-made sample and the
// H100 capture are valid and read into the model; the committed bad manifests and faults planted here are refused
// with the JSON Pointer of the fault. Plain C++ (no Qt), so it runs wherever the core builds.
//
//   tunescope_fla_capture_test                 run the checks
//   tunescope_fla_capture_test --faults FILE   print FILE's faults, one "POINTER<TAB>MESSAGE" line each (exit 0
//                                              valid, 2 refused): tests/fla_capture_checkers_agree.py compares these
//                                              pointers with scripts/fla_manifest_check.py's
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/formats/fla_config_dir.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"

#include "plain_test_support.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

using plain_test::g_failures;

using plain_test::sourceDir;
fs::path captureData() { return sourceDir() / "tests" / "data" / "fla-capture"; }
fs::path sample() { return captureData() / "gdr-fwd-T4096-handmade.json"; }
fs::path h100Fixture() { return captureData() / "h100-gdr-fwd-T4096.json"; }
fs::path h100Capture() { return sourceDir() / "bench" / "results" / "h100-run14" / "issue24a" / "fla-capture.json"; }

bool hasFault(const FlaCaptureCheck& check, const std::string& pointer, const std::string& needle = "") {
    for (const auto& f : check.faults)
        if (f.pointer == pointer && f.message.find(needle) != std::string::npos) return true;
    std::cerr << "  expected a fault at '" << pointer << "' (" << needle << "); got:\n";
    for (const auto& f : check.faults) std::cerr << "    " << f.pointer << ": " << f.message << "\n";
    return false;
}

// The sample with one change, its digest recomputed (so that only the planted fault remains), checked.
FlaCaptureCheck planted(const std::function<void(Json&)>& change, bool redigest = true) {
    Json doc = readJsonFile(sample(), JsonReadOptions{});
    change(doc);
    if (redigest) doc["digest"]["value"] = flaCaptureDigest(doc);
    return checkFlaCaptureText(dumpJson(doc, 1), "planted.json");
}

void testSampleIsValid() {
    const FlaCaptureCheck check = checkFlaCaptureFile(sample());
    for (const auto& f : check.faults) std::cerr << "sample: " << f.pointer << ": " << f.message << "\n";
    CHECK(check.faults.empty());
    CHECK(check.capture.has_value());
    if (!check.capture) return;
    const FlaCapture& c = *check.capture;
    CHECK(flaCaptureSummary(c) == "hand-made capture, 1 cases, 6 kernels, 7 launches, 84 variants, 0 binaries");
    CHECK(c.kernels.size() == 6);
    CHECK(c.kernels[0].kernel_name == "l2norm_fwd_kernel");
    CHECK(c.kernels[0].key_names == (std::vector<std::string>{"D", "NB"}));
    CHECK(c.kernels[0].launches[0].key_hash == "878a9638751a7375a0fb15d3a7767659");
    CHECK(c.kernels[0].launches[0].args[0].kind == FlaArgKind::Tensor);
    CHECK(c.kernels[0].launches[0].args[0].origin.kind == FlaTensorOrigin::Kind::OpInput);
    CHECK(c.kernels[0].launches[0].args[0].origin.input == "q");
    CHECK(c.cases.size() == 1 && c.cases[0].op == "chunk_gated_delta_rule" && c.cases[0].inputs.size() == 5);
    CHECK(c.kernel("chunk_fwd_kernel_o") != nullptr && c.kernel("no_such_kernel") == nullptr);
    CHECK(c.digest == flaCaptureDigest(c.document));
}

void testH100CaptureIsValid() {
    const FlaCaptureCheck check = checkFlaCaptureFile(h100Capture());
    for (const auto& f : check.faults) std::cerr << "h100: " << f.pointer << ": " << f.message << "\n";
    CHECK(check.faults.empty());
    if (!check.capture) return;
    const FlaCapture& c = *check.capture;
    CHECK(flaCaptureSummary(c) == "device capture, 3 cases, 6 kernels, 21 launches, 252 variants, 109 binaries");
    CHECK(c.device.backend == "cuda" && c.device.arch == "sm_90");
    CHECK(c.stack.triton_version == "3.6.0");
    CHECK(c.archives.size() == 1 && c.archives[0].name == "triton-cache-1.tar.gz");
    // Every variant with a binary names one of /binaries, of its own kernel, with the config's launch shape.
    for (const auto& k : c.kernels)
        for (const auto& l : k.launches)
            for (const auto& v : l.variants) {
                if (!v.binary) continue;
                const FlaCaptureBinary* b = c.binary(*v.binary);
                CHECK(b && b->kernel_name == k.kernel_name);
                if (b) CHECK(b->num_warps == k.configs[static_cast<std::size_t>(v.config)].num_warps);
            }
}

void testH100FixtureIsValid() {
    const FlaCaptureCheck check = checkFlaCaptureFile(h100Fixture());
    for (const auto& f : check.faults) std::cerr << "fixture: " << f.pointer << ": " << f.message << "\n";
    CHECK(check.faults.empty());
    if (!check.capture) return;
    CHECK(flaCaptureSummary(*check.capture) == "device capture, 1 cases, 6 kernels, 7 launches, 84 variants, 59 binaries");
    CHECK(check.capture->captured_by.find("trimmed to case chunk_gated_delta_rule-B1-T4096") != std::string::npos);
}

struct BadManifest {
    const char* file;
    const char* pointer;
    const char* needle;
};

void testBadManifestsAreRefused() {
    const std::vector<BadManifest> bad{
        {"bad-digest", "/digest/value", "changed after it was written"},
        {"bad-format", "/format", "is not tunescope-fla-capture-v1"},
        {"bad-key-hash", "/kernels/0/launches/0/key_hash", "md5"},
        {"bad-key-dtype", "/kernels/2/launches/0/autotune_key/6", "dtype"},
        {"bad-num-warps", "/kernels/4/configs/3/num_warps", "power of 2"},
        {"bad-unknown-member", "/kernels/5/launches/0/stream", "unknown member"},
        {"bad-variants", "/kernels/4/launches/0/variants", "one per config"},
        {"bad-case-ref", "/kernels/1/launches/0/case", "not the id of a case"},
        {"bad-storage", "/kernels/5/launches/0/args/3/storage_bytes", "cannot hold the view"},
        {"bad-origin", "/kernels/2/launches/0/args/0/origin/sequence", "not an earlier launch"},
        {"bad-grid", "/kernels/0/launches/1/variants/2/grid/0", "below the least legal value 1"},
        {"bad-config-arg", "/kernels/0/launches/0/args/8/kind", "its kind is 'config'"},
        {"bad-syntax", "", "invalid JSON at line 1594"},
        {"bad-duplicate", "/capture_kind", "duplicate key"},
        {"bad-nan", "/cases/0/seed", "NaN is not JSON"},
    };
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(captureData() / "bad")) files += entry.path().extension() == ".json";
    CHECK(files == bad.size());  // a new bad manifest needs its row here
    for (const auto& b : bad) {
        const fs::path file = captureData() / "bad" / (std::string(b.file) + ".json");
        const FlaCaptureCheck check = checkFlaCaptureFile(file);
        CHECK(!check.capture.has_value());
        CHECK(hasFault(check, b.pointer, b.needle));
        bool threw = false;
        try {
            readFlaCapture(file);
        } catch (const Error& e) {
            threw = true;
            CHECK(e.file() == file.string());
            CHECK(std::string(e.what()).find(file.string()) == 0);
        }
        CHECK(threw);
    }
}

void testPlantedFaults() {
    CHECK(hasFault(planted([](Json& d) { d["extra"] = 1; }), "/extra", "unknown member"));
    CHECK(hasFault(planted([](Json& d) { d.erase("environment"); }), "/environment", "is missing"));
    CHECK(hasFault(planted([](Json& d) { d["kernels"][1]["configs"][0]["pre_hook"] = "f"; }),
                   "/kernels/1/configs/0/pre_hook", "must be null"));
    CHECK(hasFault(planted([](Json& d) { d["kernels"][1]["configs"][1] = d["kernels"][1]["configs"][0]; }),
                   "/kernels/1/configs/1", "same config as /kernels/1/configs/0"));
    CHECK(hasFault(planted([](Json& d) { d["device"]["arch"] = "sm90"; }), "/device/arch", "does not match"));
    CHECK(hasFault(planted([](Json& d) { d["created_utc"] = "2026-12-05 10:00:00"; }), "/created_utc", "does not match"));
    CHECK(hasFault(planted([](Json& d) { d["cases"][0]["params"]["HV"] = 24; }), "/cases/0/params/HV", "multiple of H"));
    CHECK(hasFault(planted([](Json& d) { d["cases"][0]["inputs"][1]["shape"][1] = 4095; }), "/cases/0/inputs/1/shape"));
    CHECK(hasFault(planted([](Json& d) { d["kernels"][0]["launches"][0]["args"][4]["value"] = 4096.0; }),
                   "/kernels/0/launches/0/args/4/value"));
    // a scalar argument that is also in the key: changing its value breaks the key at the key's element
    CHECK(hasFault(planted([](Json& d) { d["kernels"][0]["launches"][0]["autotune_key"][0] = 128.0; }),
                   "/kernels/0/launches/0/autotune_key/0", "argument value"));
    CHECK(hasFault(planted([](Json& d) { d["kernels"][0]["launches"][0]["autotune"]["source"] = "benchmarked"; }),
                   "/kernels/0/launches/0/autotune/benchmarks", "at least one benchmark"));
    CHECK(hasFault(planted([](Json& d) { d["cases"][0]["launch_count"] = 8; }), "/cases/0/launch_count", "record 7"));
    CHECK(hasFault(planted([](Json& d) { d["stack"]["fla_sources"]["fla/../x.py"] = std::string(64, 'a'); }),
                   "/stack/fla_sources/fla~1..~1x.py", "inside the fla package"));
    // a changed manifest without a new digest
    CHECK(hasFault(planted([](Json& d) { d["captured_by"] = "someone else"; }, false), "/digest/value", "changed"));
}

void testTextFaults() {
    const std::string text = dumpJson(readJsonFile(sample(), JsonReadOptions{}), 1);
    const auto swap = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        const auto at = t.find(from);
        CHECK(at != std::string::npos);
        if (at != std::string::npos) t.replace(at, from.size(), to);
        return checkFlaCaptureText(t, "t.json");
    };
    CHECK(hasFault(swap("\"seed\": 42", "\"seed\": Infinity"), "/cases/0/seed", "Infinity is not JSON"));
    CHECK(hasFault(swap("\"seed\": 42", "\"seed\": 9007199254740993"), "/cases/0/seed", "outside"));
    CHECK(hasFault(swap("\"scale\": 1.0", "\"scale\": 1.00000000000000000001"),
                   "/cases/0/inputs/0/generator/scale", "more precision"));
    CHECK(hasFault(swap("\"seed\": 42", "\"seed\": 42, \"seed\": 43"), "/cases/0/seed", "duplicate key"));
    // every duplicate is reported, not only the first
    const FlaCaptureCheck two = swap("\"format\"", "\"tool\": {}, \"digest\": {}, \"format\"");
    CHECK(two.faults.size() == 2);
    CHECK(hasFault(checkFlaCaptureText("{\"a\": [1, 2,]}", "s.json"), "", "invalid JSON"));
    CHECK(hasFault(checkFlaCaptureText("\xff{}", "u.json"), "", "not UTF-8 (byte 0)"));
    CHECK(hasFault(checkFlaCaptureText("[]", "a.json"), "", "must be an object"));
    CHECK(hasFault(checkFlaCaptureFile("/no/such/manifest.json"), "", "not found"));
}

void testPlan() {
    const FlaCapture c = readFlaCapture(h100Capture());
    const FlaCapturePlan plan = planFlaCapture(c);
    CHECK(plan.decisions.size() == 8);
    CHECK(plan.launches == 21 && plan.variants == 252 && plan.variantsWithBinary == 252);
    // l2norm_fwd_kernel runs twice per case (q and k) and its key holds NB, not T: T=4096 (NB=1) is one decision
    const FlaDecision* l2 = plan.decision("l2norm_fwd_kernel", "878a9638751a7375a0fb15d3a7767659");
    CHECK(l2 && l2->launches.size() == 2 && l2->configs.size() == 25 && l2->measurableConfigs() == 25);
    if (l2) CHECK(l2->capturedChoice == std::optional<std::size_t>(8));
    std::size_t launches = 0;
    for (const auto& d : plan.decisions) {
        launches += d.launches.size();
        for (const auto& l : d.launches)  // every launch of a decision has the decision's key
            CHECK(c.kernel(d.kernel_name)->launches[l.launchIndex].key_hash == d.key_hash);
    }
    CHECK(launches == plan.launches);
    CHECK(flaConfigLabel(c.kernels[0].configs[8]) == "BT=64 num_warps=2 num_stages=3");
    const Json j = toJson(plan);
    CHECK(j["decisions"].size() == 8 && j["decisions"][0]["configs"][8]["measurable"] == true);
    CHECK(formatFlaCapturePlan(plan).find("8 decisions (kernel, key) over 6 kernels and 21 launches") != std::string::npos);
    // the hand-made sample: the same decisions, but nothing to measure
    const FlaCapturePlan handmade = planFlaCapture(readFlaCapture(sample()));
    CHECK(handmade.decisions.size() == 6 && handmade.variantsWithBinary == 0);
    for (const auto& d : handmade.decisions) CHECK(d.measurableConfigs() == 0);
}

void testSweepRefusal() {
    const FlaCapture c = readFlaCapture(h100Capture());
    DeviceInfo cpu{"cpu", 0, "AMD EPYC", "x86_64", 0, 2, 0, 0, 1, "", ""};
    DeviceInfo a100{"cuda", 0, "NVIDIA A100", "sm_80", 0, 108, 0, 0, 32, "", ""};
    DeviceInfo h100{"cuda", 1, "NVIDIA H100", "sm_90", 0, 132, 0, 0, 32, "", ""};
    DeviceInfo mi300{"hip", 0, "AMD MI300X", "gfx942:sramecc+:xnack-", 0, 304, 0, 0, 64, "", ""};
    const auto cpuOnly = flaCaptureSweepRefusal(c, {cpu}, {"cuda: plugin not built"});
    CHECK(cpuOnly && cpuOnly->find("need a CUDA device of sm_90") != std::string::npos &&
          cpuOnly->find("only cpu:0") != std::string::npos && cpuOnly->find("plugin not built") != std::string::npos);
    const auto otherArch = flaCaptureSweepRefusal(c, {cpu, a100, mi300});
    CHECK(otherArch && otherArch->find("cuda:0 NVIDIA A100 (sm_80) is another architecture") != std::string::npos);
    // A CUDA device of the capture's architecture runs the replay (docs/fla-capture.md, section 10).
    CHECK(!flaCaptureSweepRefusal(c, {cpu, a100, h100}));
    FlaCapture hipCapture = c;  // the same kernels as if captured on an MI300X: the HIP plugin cannot replay them yet
    hipCapture.device.backend = "hip";
    hipCapture.device.arch = "gfx942";
    const auto hipMatching = flaCaptureSweepRefusal(hipCapture, {cpu, mi300});
    CHECK(hipMatching && hipMatching->find("could run them") != std::string::npos &&
          hipMatching->find("CUDA-only for now") != std::string::npos);
    const auto handmade = flaCaptureSweepRefusal(readFlaCapture(sample()), {h100});
    CHECK(handmade && handmade->find("no compiled binaries") != std::string::npos);
}

// The error a call throws, or nullopt.
std::optional<Error> errorOf(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& e) {
        return e;
    }
    return std::nullopt;
}

void testExport() {
    const FlaCapture c = readFlaCapture(h100Fixture());
    const FlaChoices captured = capturedFlaChoices(c);
    CHECK(captured.choices.size() == 6);
    const fs::path dir = plain_test::tempDir("tunescope-fla-capture", "export");
    const FlaConfigDirExport result = exportFlaConfigDir(c, captured, dir / "cfg");
    CHECK(result.files.size() == 6 && result.withoutChoice.empty());
    for (const auto& f : result.files) {
        CHECK(sha256FileHex(f.path) == f.sha256);
        const Json doc = readJsonFile(f.path);
        CHECK(doc["kernel_name"] == f.kernel_name && doc["triton_version"] == "3.6.0");
        for (auto it = doc["autotune_entries"].begin(); it != doc["autotune_entries"].end(); ++it)
            CHECK(it.key() == flaKeyHash(it.value()["autotune_key"]));  // FLA looks an entry up by this
    }
    const Json l2 = readJsonFile(dir / "cfg" / "l2norm_fwd_kernel.json");
    CHECK(l2["autotune_entries"].size() == 1);
    const Json& entry = l2["autotune_entries"]["878a9638751a7375a0fb15d3a7767659"];
    CHECK(entry["config"] == c.kernels[0].configs[8].original);  // FLA chose config 8 at T=4096
    CHECK(entry["best_timing"] == c.kernels[0].launches[0].timings_ms[8]);
    CHECK(l2["default_config"]["kwargs"]["BT"] == 64 && !l2["default_config"].contains("maxnreg"));
    const Json manifest = readJsonFile(result.manifestFile);
    CHECK(manifest["format"] == kFlaConfigDirFormat && manifest["files"].size() == 6);
    CHECK(manifest["capture"]["digest"] == c.digest && manifest["device"] == c.document["device"]);
    // a partial choice: the other keys are listed as FLA's to autotune
    FlaChoices one = captured;
    one.choices.resize(1);
    const FlaConfigDirExport partial = exportFlaConfigDir(c, one, dir / "one");
    CHECK(partial.files.size() == 1 && partial.withoutChoice.size() == 5);
}

// The H100 fixture with config 1 of chunk_fwd_kernel_o (kernel 5) planted as not compiled for the first launch: its
// variant loses its binary, the digest is recomputed. Written into `dir` as m.json.
FlaCapture captureWithoutBinary(const fs::path& dir) {
    Json doc = readJsonFile(h100Fixture());
    Json& variant = doc["kernels"][5]["launches"][0]["variants"][1];
    const std::string hash = variant["binary"].get<std::string>();
    variant["binary"] = nullptr;
    variant["compile_error"] = "out of resources: shared memory";
    doc["binaries"].erase(hash);
    doc["digest"]["value"] = flaCaptureDigest(doc);
    writeFileAtomic(dir / "m.json", dumpJson(doc, 1));
    return readFlaCapture(dir / "m.json");
}

void testExportRefusals() {
    // A config that did not compile (planted: its variant loses its binary) cannot be chosen.
    const fs::path dir = plain_test::tempDir("tunescope-fla-capture", "refusals");
    const FlaCapture c = captureWithoutBinary(dir);
    const Json choices = {{"format", kFlaChoicesFormat},
                          {"choices", Json::array({{{"kernel_name", "chunk_fwd_kernel_o"},
                                                    {"key_hash", c.kernels[5].launches[0].key_hash},
                                                    {"config", 1}}})}};
    const auto e = errorOf([&] { exportFlaConfigDir(c, parseFlaChoices(choices, "c.json"), dir / "out"); });
    CHECK(e && e->file() == "c.json" && e->jsonPath() == "/choices/0/config" &&
          e->message().find("did not compile: out of resources") != std::string::npos);
    CHECK(!fs::exists(dir / "out"));  // nothing written
    const auto wrongType = errorOf([&] {
        parseFlaChoices({{"format", kFlaChoicesFormat}, {"choices", {{{"kernel_name", 1}, {"key_hash", "x"}, {"config", 0}}}}},
                        "t.json");
    });
    CHECK(wrongType && wrongType->jsonPath() == "/choices/0/kernel_name");
    const auto badTiming = errorOf([&] {
        parseFlaChoices({{"format", kFlaChoicesFormat},
                         {"choices", {{{"kernel_name", "k"}, {"key_hash", "x"}, {"config", 0}, {"best_timing", {1, 2}}}}}},
                        "t.json");
    });
    CHECK(badTiming && badTiming->jsonPath() == "/choices/0/best_timing");
}

// exportableFlaConfigs is the rule checkFlaChoices enforces: a config is offered exactly when a choice of it exports.
void testExportableConfigs() {
    const FlaCapture full = readFlaCapture(h100Fixture());
    const fs::path dir = plain_test::tempDir("tunescope-fla-capture", "exportable");
    const FlaCapture c = captureWithoutBinary(dir);
    const FlaCaptureKernel& kernel = c.kernels[5];
    const std::string key = kernel.launches[0].key_hash;
    const std::vector<std::size_t> all = exportableFlaConfigs(full, kernel.kernel_name, key);
    const std::vector<std::size_t> planted = exportableFlaConfigs(c, kernel.kernel_name, key);
    CHECK(all.size() == kernel.configs.size() && std::find(all.begin(), all.end(), 1) != all.end());
    CHECK(planted.size() == kernel.configs.size() - 1 && std::find(planted.begin(), planted.end(), 1) == planted.end());
    CHECK(exportableFlaConfigs(c, "no_such_kernel", key).empty());
    CHECK(exportableFlaConfigs(c, kernel.kernel_name, std::string(32, '0')).empty());
    for (const FlaCaptureKernel& k : c.kernels)
        for (const FlaCaptureLaunch& launch : k.launches) {
            const std::vector<std::size_t> legal = exportableFlaConfigs(c, k.kernel_name, launch.key_hash);
            for (std::size_t i = 0; i < k.configs.size(); ++i) {
                FlaChoices one;
                one.source = std::string(kFlaChoicesEdited);
                one.choices.push_back({k.kernel_name, launch.key_hash, i, Json(), ""});
                const bool exports = !errorOf([&] { checkFlaChoices(c, one); });
                CHECK(exports == (std::find(legal.begin(), legal.end(), i) != legal.end()));
            }
        }
}

std::vector<std::tuple<std::string, std::string, std::size_t, std::string>> sortedChoices(const FlaChoices& choices) {
    std::vector<std::tuple<std::string, std::string, std::size_t, std::string>> out;
    for (const FlaChoice& c : choices.choices) out.emplace_back(c.kernel_name, c.key_hash, c.config, c.best_timing.dump());
    std::sort(out.begin(), out.end());
    return out;
}

// export -> read the folder -> flaChoicesOfConfigDir gives the choices back; saved again as "edited" the folder
// checks with null file and sha256; an entry or digest the capture does not have names its file and pointer.
void testChoicesOfConfigDir() {
    const FlaCapture c = readFlaCapture(h100Fixture());
    const FlaChoices scripted = readFlaChoices(captureData() / "choices" / "h100-gdr-fwd-T4096-scripted.json");
    const fs::path dir = plain_test::tempDir("tunescope-fla-capture", "choices-of-dir");
    exportFlaConfigDir(c, scripted, dir / "scripted");
    const FlaConfigDir folder = readFlaConfigDir(dir / "scripted");
    const FlaChoices back = flaChoicesOfConfigDir(c, folder);
    CHECK(sortedChoices(back) == sortedChoices(scripted));
    CHECK(back.source == "scripted" && back.fileName == "h100-gdr-fwd-T4096-scripted.json" &&
          back.sha256 == scripted.sha256 && back.capture_digest == c.digest);
    const FlaChoices captured = capturedFlaChoices(c);
    exportFlaConfigDir(c, captured, dir / "captured");
    CHECK(sortedChoices(flaChoicesOfConfigDir(c, readFlaConfigDir(dir / "captured"))) == sortedChoices(captured));

    FlaChoices edited = back;
    edited.source = std::string(kFlaChoicesEdited);
    edited.choices.front().config = edited.choices.front().config == 0 ? 1 : 0;
    exportFlaConfigDir(c, edited, dir / "edited");
    const FlaConfigDirCheck check = checkFlaConfigDir(dir / "edited");
    for (const Error& e : check.faults) std::cerr << "edited: " << e.what() << "\n";
    CHECK(check.faults.empty() && check.dir);
    const Json& choices = check.dir->manifest["choices"];
    CHECK(choices["source"] == "edited" && choices["file"].is_null() && choices["sha256"].is_null());
    CHECK(sortedChoices(flaChoicesOfConfigDir(c, *check.dir)) == sortedChoices(edited));

    // A manifest whose choices name a source of none of the three is refused there, with all three named.
    Json manifest = check.dir->manifest;
    manifest["choices"]["source"] = "handmade";
    manifest.erase("digest");
    manifest["digest"] = {{"algorithm", kFlaCaptureDigestAlgorithm}, {"value", sha256Hex(canonicalize(manifest))}};
    writeFileAtomic(dir / "edited" / std::string(kFlaConfigDirManifestName), dumpJson(manifest, 2) + "\n");
    const FlaConfigDirCheck bad = checkFlaConfigDir(dir / "edited");
    CHECK(bad.faults.size() == 1 && bad.faults.front().jsonPath() == "/choices/source" &&
          bad.faults.front().message().find("\"edited\"") != std::string::npos &&
          bad.faults.front().message().find("\"captured\"") != std::string::npos);
    FlaChoices other = edited;
    other.source = "fla-config-dir";
    CHECK(errorOf([&] { exportFlaConfigDir(c, other, dir / "other"); }) && !fs::exists(dir / "other"));

    // An entry whose config is none of the capture's: the kernel file and the entry's config pointer.
    FlaConfigDir tampered = folder;
    FlaConfigDirKernel& kernel = tampered.kernels.back();
    FlaConfigDirEntry& entry = kernel.entries.front();
    entry.config["num_warps"] = 3;
    const auto e = errorOf([&] { flaChoicesOfConfigDir(c, tampered); });
    CHECK(e && e->file() == kernel.file.string() &&
          e->jsonPath() == "/autotune_entries/" + entry.key_hash + "/config" &&
          e->message().find("is none of the") != std::string::npos);
    // An entry of a config that did not compile for the key (the planted capture, its digest in the folder).
    const FlaCapture planted = captureWithoutBinary(dir);
    FlaConfigDir uncompiled = folder;
    uncompiled.manifest["capture"]["digest"] = planted.digest;
    for (FlaConfigDirKernel& k : uncompiled.kernels)
        if (k.kernel_name == planted.kernels[5].kernel_name)
            for (FlaConfigDirEntry& en : k.entries)
                if (en.key_hash == planted.kernels[5].launches[0].key_hash) en.config = planted.kernels[5].configs[1].original;
    const auto notCompiled = errorOf([&] { flaChoicesOfConfigDir(planted, uncompiled); });
    CHECK(notCompiled && notCompiled->jsonPath() == "/autotune_entries/" + planted.kernels[5].launches[0].key_hash + "/config" &&
          notCompiled->message().find("no compiled binary") != std::string::npos);
    // Another capture's folder: the manifest's /capture/digest.
    FlaConfigDir otherCapture = folder;
    otherCapture.manifest["capture"]["digest"] = std::string(64, '0');
    const auto d = errorOf([&] { flaChoicesOfConfigDir(c, otherCapture); });
    CHECK(d && d->file() == folder.manifestFile.string() && d->jsonPath() == "/capture/digest");
}

int printFaults(const char* file) {
    const FlaCaptureCheck check = checkFlaCaptureFile(file);
    for (const auto& f : check.faults) std::cout << f.pointer << '\t' << f.message << '\n';
    if (check.capture) std::cout << "valid (" << flaCaptureSummary(*check.capture) << ")\n";
    return check.faults.empty() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--faults") return printFaults(argv[2]);
    testSampleIsValid();
    testH100CaptureIsValid();
    testH100FixtureIsValid();
    testBadManifestsAreRefused();
    testPlantedFaults();
    testTextFaults();
    testPlan();
    testSweepRefusal();
    testExport();
    testExportRefusals();
    testExportableConfigs();
    testChoicesOfConfigDir();
    if (g_failures) std::cerr << g_failures << " check(s) failed\n";
    else std::cout << "fla_capture: all checks passed\n";
    return g_failures ? 1 : 0;
}
