// devices, selftest, bench-l2norm: what backends and devices this machine has, whether every l2norm kernel
// config computes the right thing on them, and a standalone timing table of the kernel family against a copy.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/base/text_fields.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/device/l2norm_selftest.hpp"
#include "tunescope/device/measurement.hpp"
#include "tunescope/device/triton_binaries.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope::cli {
namespace {

const char* const kKnownBackends[] = {"cpu", "cuda", "hip"};
constexpr int kLoadHints = 6;  // kernels/common/l2norm_launch.hpp LoadHint (the CLI links no kernel header)

bool isKnownBackend(const std::string& name) {
    return std::find(std::begin(kKnownBackends), std::end(kKnownBackends), name) != std::end(kKnownBackends);
}

// deviceInfoToJson without the backend, which the listing gives per backend.
Json deviceJson(const DeviceInfo& info) {
    Json device = deviceInfoToJson(info);
    device.erase("backend");
    return device;
}

void printDevices(bool asJson) {
    std::vector<BackendProbe> probes = probeBackends();
    if (asJson) {
        Json backends = Json::array();
        for (const BackendProbe& probe : probes) {
            Json entry = Json::object();
            entry["name"] = probe.name;
            const bool usable = probe.backend && probe.backend->available();
            entry["available"] = usable;
            entry["reason"] = probe.reason;
            entry["plugin"] = probe.pluginPath;
            Json devices = Json::array();
            if (usable) {
                for (const DeviceInfo& info : probe.backend->devices()) devices.push_back(deviceJson(info));
            }
            entry["devices"] = devices;
            backends.push_back(entry);
        }
        Json root = Json::object();
        root["backends"] = backends;
        std::cout << dumpJson(root) << '\n';
        return;
    }
    for (const BackendProbe& probe : probes) {
        const bool usable = probe.backend && probe.backend->available();
        std::cout << probe.name << ": " << (usable ? "available" : "unavailable: " + probe.reason) << '\n';
        if (!probe.pluginPath.empty()) std::cout << "  plugin: " << probe.pluginPath << '\n';
        if (!usable) continue;
        for (const DeviceInfo& info : probe.backend->devices()) {
            std::cout << "  [" << info.index << "] " << info.name << ", " << info.architecture << ", "
                      << formatMiB(info.memoryBytes) << ", " << info.multiprocessors
                      << (info.backend == "cpu" ? " threads" : " multiprocessors") << ", L2 " << formatMiB(info.l2Bytes)
                      << ", " << (info.clockMHz > 0 ? std::to_string(info.clockMHz) + " MHz" : "clock unknown")
                      << ", warp " << info.warpSize << "\n      driver: " << info.driverVersion
                      << "\n      runtime: " << info.runtimeVersion << '\n';
        }
    }
}

// The named backend, or null with the exit code set: 2 for an unknown name, 77 (skipped) when it has no device.
std::unique_ptr<Backend> backendOrExit(const std::string& name, CliContext& ctx, const char* command) {
    if (!isKnownBackend(name)) {
        std::cerr << "tunescope-cli: unknown backend '" << name << "' (known: cpu, cuda, hip)\n";
        ctx.exitCode = kExitUsageOrIo;
        return nullptr;
    }
    for (BackendProbe& probe : probeBackends()) {
        if (probe.name != name) continue;
        if (probe.backend && probe.backend->available()) return std::move(probe.backend);
        std::cout << command << ": skipped: backend " << name << " is unavailable: " << probe.reason << '\n';
        std::cerr << "tunescope-cli: " << command << " skipped: backend " << name << " is unavailable: "
                  << probe.reason << '\n';
        ctx.exitCode = kExitSkipped;
        return nullptr;
    }
    ctx.exitCode = kExitUsageOrIo;
    return nullptr;
}

std::unique_ptr<Device> deviceOrExit(Backend& backend, int index, CliContext& ctx) {
    try {
        return backend.openDevice(index);
    } catch (const Error& e) {
        std::cerr << "tunescope-cli: " << e.what() << '\n';
        ctx.exitCode = kExitUsageOrIo;
        return nullptr;
    }
}

struct SelftestArgs {
    std::string backend = "cpu";
    int device = 0;
    std::uint64_t seed = 0;
    bool verbose = false;
    std::string kernel = "native";  // native (our l2norm family) or triton (the binaries of a Triton cache)
    std::string tritonCache;        // empty: TRITON_CACHE_DIR or ~/.triton/cache
    std::string tritonNb;           // --kernel triton: only the variants of these NBs (empty: all)
};

std::vector<int> parseNbList(const std::string& text);

void checkKernelChoice(const std::string& kernel) {
    if (kernel != "native" && kernel != "triton") {
        throw Error("", "", "--kernel must be native or triton (got '" + kernel + "')");
    }
}

// The scanned cache of --triton-cache (or Triton's default folder), its notes printed to stderr.
TritonCacheScan scanCacheForCli(const std::string& folder, const char* command) {
    const std::filesystem::path dir = folder.empty() ? defaultTritonCacheDir() : std::filesystem::path(folder);
    TritonCacheScan scan = scanTritonCache(dir);
    std::cerr << command << ": " << scan.variants.size() << " compiled l2norm_fwd_kernel variants in " << dir.string()
              << " (Triton " << scan.variants.front().tritonVersion << ", "
              << (scan.indexFlaVersion ? "FLA " + *scan.indexFlaVersion : std::string("FLA version not recorded"))
              << ")\n";
    for (const std::string& note : scan.notes) std::cerr << "  note: " << note << '\n';
    return scan;
}

void runTritonSelftestCommand(const SelftestArgs& args, Device& device, CliContext& ctx) {
    TritonCacheScan scan = scanCacheForCli(args.tritonCache, "selftest");
    if (!args.tritonNb.empty()) {
        const std::vector<int> nbs = parseNbList(args.tritonNb);
        std::erase_if(scan.variants, [&](const TritonVariant& v) {
            return !v.nb || std::find(nbs.begin(), nbs.end(), *v.nb) == nbs.end();
        });
        if (scan.variants.empty()) throw Error(scan.dir.string(), "", "no variant of the NBs " + args.tritonNb);
    }
    L2NormSelftestOptions options;
    options.seed = args.seed;
    double worstUlps = 0, worstRstd = 0;
    const L2NormSelftestSummary summary =
        runTritonSelftest(device, scan, options, [&](const TritonVariant& variant, const L2NormSelftestCase& result) {
            worstUlps = std::max(worstUlps, result.worstYUlps);
            worstRstd = std::max(worstRstd, result.worstRstdRelative);
            if (!result.passed || args.verbose) {
                std::cout << (result.passed ? "  ok    " : "  FAIL  ") << variant.describe() << "  T=" << result.rows
                          << "  max y error " << result.worstYUlps << " ulp, max rstd error "
                          << result.worstRstdRelative << "  " << variant.binaryPath.string()
                          << (result.detail.empty() ? "" : "  " + result.detail) << '\n';
            }
        });
    for (const std::string& skipped : summary.configsSkipped) std::cout << "  not run (refused): " << skipped << '\n';
    std::cout << "selftest: seed " << summary.seed << ", " << summary.configsRun << " Triton binaries x 4 sizes = "
              << summary.casesRun << " cases, " << summary.casesFailed << " failed; worst y error " << worstUlps
              << " ulp (limit 1), worst rstd error " << worstRstd << " relative (limit 1e-06)\n";
    if (summary.configsRun == 0) std::cout << "selftest: no binary of the cache targets this device\n";
    std::cout << (summary.passed() ? "selftest: PASS\n" : "selftest: FAIL\n");
    ctx.exitCode = summary.passed() ? kExitOk : kExitInvalid;
}

void runSelftest(const SelftestArgs& args, CliContext& ctx) {
    checkKernelChoice(args.kernel);
    std::unique_ptr<Backend> backend = backendOrExit(args.backend, ctx, "selftest");
    if (!backend) return;
    std::unique_ptr<Device> device = deviceOrExit(*backend, args.device, ctx);
    if (!device) return;
    const DeviceInfo& info = device->info();
    std::cout << "selftest: l2norm forward" << (args.kernel == "triton" ? " (Triton binaries)" : "") << " on "
              << info.backend << " device " << info.index << " (" << info.name << ", " << info.architecture << ")\n";
    if (args.kernel == "triton") {
        runTritonSelftestCommand(args, *device, ctx);
        return;
    }
    L2NormSelftestOptions options;
    options.seed = args.seed;
    double worstUlps = 0, worstRstd = 0;
    const L2NormSelftestSummary summary = runL2NormSelftest(*device, options, [&](const L2NormSelftestCase& result) {
        worstUlps = std::max(worstUlps, result.worstYUlps);
        worstRstd = std::max(worstRstd, result.worstRstdRelative);
        if (!result.passed || args.verbose) {
            std::cout << (result.passed ? "  ok    " : "  FAIL  ") << "BT/warps/stages " << configText(result.config, ConfigText::Slashes)
                      << "  T=" << result.rows << "  max y error " << result.worstYUlps << " ulp, max rstd error "
                      << result.worstRstdRelative << (result.detail.empty() ? "" : "  " + result.detail) << '\n';
        }
    });
    for (const std::string& skipped : summary.configsSkipped) std::cout << "  not run (refused): " << skipped << '\n';
    std::cout << "selftest: seed " << summary.seed << ", " << summary.configsRun << " configs x 4 sizes = "
              << summary.casesRun << " cases, " << summary.casesFailed << " failed; worst y error " << worstUlps
              << " ulp (limit 1), worst rstd error " << worstRstd << " relative (limit 1e-06)\n";
    std::cout << (summary.passed() ? "selftest: PASS\n" : "selftest: FAIL\n");
    ctx.exitCode = summary.passed() ? kExitOk : kExitInvalid;
}

// ---- bench-l2norm: a standalone timing table (the sweep's measurement engine is the rigorous one) ----------

struct BenchArgs {
    std::string backend = "cpu";
    int device = 0;
    std::string nbList = "1-32";
    std::string grid = "all";
    int samples = 25;
    int warmup = 3;
    bool hot = false;
    std::string l2;               // --l2 cold|warm|hot (empty: cold, or hot with the deprecated --hot)
    std::string timer = "auto";   // --timer cupti|events|steady_clock|auto
    bool hintSweep = false;
    int hintTop = 5;
    std::string jsonOut;
    std::string kernel = "native";
    std::string tritonCache;
    int pipeline = 0;  // --kernel triton: samples queued per host wait (0: the sweep's default for Triton, 16)
};

std::vector<int> parseNbList(const std::string& text) {
    std::vector<int> list;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        const auto dash = item.find('-');
        try {
            if (dash == std::string::npos) {
                list.push_back(std::stoi(item));
            } else {
                const int first = std::stoi(item.substr(0, dash)), last = std::stoi(item.substr(dash + 1));
                for (int nb = first; nb <= last; ++nb) list.push_back(nb);
            }
        } catch (const std::exception&) {
            throw Error("", "", "--nb: '" + item + "' is not a number or a range like 1-32");
        }
    }
    for (int nb : list) {
        if (nb < 1 || nb > 4096) throw Error("", "", "--nb: NB must be between 1 and 4096 (got " + std::to_string(nb) + ")");
    }
    return list;
}

std::vector<double> sampleWork(TimedWork& work, int warmup, int samples, L2Regime regime) {
    for (int i = 0; i < warmup; ++i) {
        work.beforeSample(regime);
        (void)work.timeSampleMs();
    }
    std::vector<double> times;
    times.reserve(std::size_t(samples));
    for (int i = 0; i < samples; ++i) {
        work.beforeSample(regime);
        times.push_back(work.timeSampleMs());
    }
    return times;
}

// --l2 (or the deprecated --hot): one regime per bench run.
L2Regime benchRegime(const BenchArgs& args) {
    if (args.l2.empty()) return args.hot ? L2Regime::Hot : L2Regime::Cold;
    if (args.hot) throw Error("", "", "give --l2 or the older --hot, not both");
    L2Regime regime = L2Regime::Cold;
    if (!l2RegimeFromString(args.l2, &regime)) throw Error("", "", "--l2 must be cold, warm or hot (got '" + args.l2 + "')");
    return regime;
}

std::vector<L2NormConfig> benchGrid(const std::string& grid, const Device& device) {
    std::vector<L2NormConfig> configs;
    for (const L2NormConfig& config : l2normLaunchSpace()) {
        const bool fla = config.numWarps <= 16 && config.numStages >= 2;  // FLA's 25 x num_stages {2,3,4}
        if (grid == "fla" && !fla) continue;
        if (grid == "one" && !(config.blockRows == 32 && config.numWarps == 4 && config.numStages == 3)) continue;
        if (device.supports(config, nullptr)) configs.push_back(config);
    }
    return configs;
}

// bench-l2norm --kernel triton: every compiled variant FLA would launch per NB (the cache's binaries, launched from
// C++), measured by the measurement engine, beside the copy ceiling of the same bytes.
void runTritonBench(const BenchArgs& args, Device& device, const std::vector<int>& nbs, CliContext& ctx) {
    const TritonCacheScan scan = scanCacheForCli(args.tritonCache, "bench-l2norm");
    const DeviceInfo& info = device.info();
    std::vector<L2NormConfig> configs;  // distinct configs of the cache that target this device, in scan order
    std::vector<std::string> refusals;
    for (const TritonVariant& v : scan.variants) {
        const std::string why = tritonTargetMismatch(v, info);
        if (!why.empty()) {
            refusals.push_back(why);
        } else if (std::find(configs.begin(), configs.end(), v.config()) == configs.end()) {
            configs.push_back(v.config());
        }
    }
    if (configs.empty()) throw Error(scan.dir.string(), "", "no binary targets this device: " + refusals.front());
    const L2Regime regime = benchRegime(args);
    StoppingRule rule;
    rule.warmupSamples = std::max(1, args.warmup);
    rule.minSamples = args.samples;
    rule.minTimeMs = 0;
    rule.pipelineDepth = args.pipeline > 0 ? args.pipeline : defaultPipelineDepth("triton");
    std::cerr << "bench-l2norm: Triton binaries on " << info.name << ", " << configs.size() << " configs, at least "
              << args.samples << " samples each (stopping rule: noise of the median <= 0.5% or 1 s), "
              << toString(regime) << " L2, " << rule.pipelineDepth << " samples queued per wait, timer "
              << device.timer() << "\n";
    Json results = Json::array();
    std::ostringstream table;
    table << "  NB        T  copy us | BT/w/s       median us  p20 us   p80 us  samples  %copy  binary\n";
    for (int nb : nbs) {
        const std::int64_t rows = std::int64_t(nb) * 65536;
        device.prepareL2Norm(rows, 0x7a11ull + std::uint64_t(nb));
        std::unique_ptr<TimedWork> copy = device.copyWork();
        const Measurement copyM = measure(*copy, rule, regime);
        Json entry = Json::object();
        entry["nb"] = nb;
        entry["rows"] = rows;
        entry["copy_us"] = copyM.medianMs * 1e3;
        Json rowsJson = Json::array();
        for (const L2NormConfig& config : configs) {
            const TritonVariant* variant = findTritonVariant(scan, config, nb);
            if (!variant) {
                std::cerr << "  NB " << nb << " " << configText(config, ConfigText::Slashes) << ": not in the cache (not compiled for this NB)\n";
                continue;
            }
            std::unique_ptr<TimedWork> work = device.tritonL2NormWork(loadTritonBinary(*variant), kL2NormDefaultEps);
            const Measurement m = measure(*work, rule, regime);
            char line[256];
            std::snprintf(line, sizeof line, "%4d %8lld %8.1f | %-11s %10.2f %8.2f %8.2f %7d %6.1f  %s\n", nb,
                          static_cast<long long>(rows), copyM.medianMs * 1e3, configText(config, ConfigText::Slashes).c_str(),
                          m.medianMs * 1e3, m.p20Ms * 1e3, m.p80Ms * 1e3, m.sampleCount,
                          100.0 * copyM.medianMs / m.medianMs, variant->binarySha256.substr(0, 12).c_str());
            table << line;
            Json row = Json::object();
            row["BT"] = config.blockRows;
            row["num_warps"] = config.numWarps;
            row["num_stages"] = config.numStages;
            row["num_ctas"] = config.numCtas;
            row["median_us"] = m.medianMs * 1e3;
            row["p20_us"] = m.p20Ms * 1e3;
            row["p80_us"] = m.p80Ms * 1e3;
            row["ci_low_us"] = m.ciLowMs * 1e3;
            row["ci_high_us"] = m.ciHighMs * 1e3;
            row["samples"] = m.sampleCount;
            row["stop_reason"] = toString(m.stopReason);
            row["binary_sha256"] = variant->binarySha256;
            row["folder"] = variant->folder.filename().string();
            row["triton_version"] = variant->tritonVersion;
            rowsJson.push_back(row);
        }
        entry["configs"] = rowsJson;
        results.push_back(entry);
    }
    std::cout << "bench-l2norm: Triton binaries (" << scan.dir.string() << ") on " << info.name << ", "
              << toString(regime) << " L2, timer " << device.timer() << "; %copy = copy time / kernel time (same bytes)\n"
              << table.str();
    if (!args.jsonOut.empty()) {
        Json root = Json::object();
        root["device"] = deviceJson(info);
        root["backend"] = info.backend;
        root["kernel"] = "triton";
        root["triton_cache"] = scan.dir.string();
        root["cold_l2"] = regime == L2Regime::Cold;
        root["l2"] = toString(regime);
        root["timer"] = device.timer();
        root["min_samples"] = args.samples;
        root["results"] = results;
        writeFileAtomic(args.jsonOut, dumpJson(root) + "\n");
    }
    ctx.exitCode = kExitOk;
}

// The --hint-sweep's outcome at one NB: the config and cache hints the final run times.
struct HintPick {
    L2NormConfig config;
    double ms = 0;
    std::string hints;           // empty: the defaults; else the "<load>,<store>" pair that beat them
    Json times = Json::array();  // [BT, warps, stages, load hint, store hint, us]
};

// The final run's samples and their spread.
struct FinalRun {
    std::vector<double> l2normMs, copyMs;
    double l2normMedian = 0, l2normP20 = 0, l2normP80 = 0, copyMedian = 0, copyP20 = 0, copyP80 = 0;
    int smClock = 0;
    std::uint64_t l2normBytes = 0;
};

// What bench-l2norm measured at one NB.
struct NbBench {
    int nb = 0;
    std::int64_t rows = 0;
    double copyMs = 0;
    std::uint64_t copyBytes = 0;
    std::vector<std::pair<double, L2NormConfig>> ranked;  // every config's median, fastest first
    Json configTimes = Json::array();                     // [BT, warps, stages, median us]
    HintPick pick;
    FinalRun finalRun;
};

double quantileOf(std::vector<double> values, double q) {
    std::sort(values.begin(), values.end());
    return quantileSorted(values, q);
}

std::vector<std::pair<double, L2NormConfig>> rankConfigs(Device& device, const std::vector<L2NormConfig>& grid,
                                                         const BenchArgs& args, L2Regime regime, Json& configTimes) {
    std::vector<std::pair<double, L2NormConfig>> ranked;
    for (const L2NormConfig& config : grid) {
        std::unique_ptr<TimedWork> work = device.l2normWork(config, kL2NormDefaultEps);
        const double ms = median(sampleWork(*work, args.warmup, args.samples, regime));
        ranked.emplace_back(ms, config);
        configTimes.push_back(Json::array({config.blockRows, config.numWarps, config.numStages, ms * 1e3}));
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return ranked;
}

// CUDA with --hint-sweep: the --hint-top best configs under every cache-hint pair (kernels/common/l2norm_launch.hpp);
// otherwise, and when no pair beats the defaults, the fastest config.
HintPick sweepCacheHints(Device& device, const std::vector<std::pair<double, L2NormConfig>>& ranked,
                         const BenchArgs& args, L2Regime regime) {
    HintPick pick;
    pick.ms = ranked.front().first;
    pick.config = ranked.front().second;
    if (!args.hintSweep || device.info().backend != "cuda") return pick;
    for (std::size_t i = 0; i < std::min<std::size_t>(std::size_t(std::max(0, args.hintTop)), ranked.size()); ++i) {
        for (int load = 0; load < kLoadHints; ++load) {
            for (int store = 0; store <= 1; ++store) {
                const std::string hints = std::to_string(load) + "," + std::to_string(store);
                setenv("TUNESCOPE_L2NORM_HINTS", hints.c_str(), 1);
                std::unique_ptr<TimedWork> work = device.l2normWork(ranked[i].second, kL2NormDefaultEps);
                const double ms = median(sampleWork(*work, args.warmup, args.samples, regime));
                pick.times.push_back(Json::array({ranked[i].second.blockRows, ranked[i].second.numWarps,
                                                  ranked[i].second.numStages, load, store, ms * 1e3}));
                if (ms < pick.ms) {
                    pick.ms = ms;
                    pick.config = ranked[i].second;
                    pick.hints = hints;
                }
            }
        }
    }
    unsetenv("TUNESCOPE_L2NORM_HINTS");
    return pick;
}

// Final: the picked config (under its cache hints, if the sweep found better ones than the defaults) and the copy,
// alternating sample by sample, three times as many samples. The spread of the final samples: median alone hides
// how far apart two close configs really are.
FinalRun runFinal(Device& device, TimedWork& copy, const HintPick& pick, const BenchArgs& args, L2Regime regime) {
    if (!pick.hints.empty()) setenv("TUNESCOPE_L2NORM_HINTS", pick.hints.c_str(), 1);
    std::unique_ptr<TimedWork> bestWork = device.l2normWork(pick.config, kL2NormDefaultEps);
    unsetenv("TUNESCOPE_L2NORM_HINTS");
    (void)sampleWork(*bestWork, args.warmup, 0, regime);
    (void)sampleWork(copy, args.warmup, 0, regime);
    FinalRun run;
    for (int i = 0; i < 3 * args.samples; ++i) {
        bestWork->beforeSample(regime);
        run.l2normMs.push_back(bestWork->timeSampleMs());
        copy.beforeSample(regime);
        run.copyMs.push_back(copy.timeSampleMs());
    }
    run.l2normMedian = median(run.l2normMs);
    run.copyMedian = median(run.copyMs);
    run.l2normP20 = quantileOf(run.l2normMs, 0.2);
    run.l2normP80 = quantileOf(run.l2normMs, 0.8);
    run.copyP20 = quantileOf(run.copyMs, 0.2);
    run.copyP80 = quantileOf(run.copyMs, 0.8);
    run.smClock = bestWork->lastSmClockMHz();
    run.l2normBytes = bestWork->bytesMoved();
    return run;
}

NbBench benchNb(Device& device, int nb, const std::vector<L2NormConfig>& grid, const BenchArgs& args, L2Regime regime) {
    NbBench b;
    b.nb = nb;
    b.rows = std::int64_t(nb) * 65536;
    device.prepareL2Norm(b.rows, 0x7a11ull + std::uint64_t(nb));
    std::unique_ptr<TimedWork> copy = device.copyWork();
    b.copyMs = median(sampleWork(*copy, args.warmup, args.samples, regime));
    b.copyBytes = copy->bytesMoved();
    b.ranked = rankConfigs(device, grid, args, regime, b.configTimes);
    b.pick = sweepCacheHints(device, b.ranked, args, regime);
    b.finalRun = runFinal(device, *copy, b.pick, args, regime);
    return b;
}

std::string benchRow(const NbBench& b) {
    const auto& [bestMs, best] = b.ranked.front();
    const double copyBytes = double(b.copyBytes), l2normBytes = double(b.finalRun.l2normBytes);
    const FinalRun& f = b.finalRun;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%4d %8lld | %7.1f %10.0f | %-11s %8.1f %10.0f %6.1f | %-12s %-5s %10.1f [%6.1f - %6.1f] "
                  "%8.1f [%6.1f - %6.1f] %6.1f | %6d\n",
                  b.nb, static_cast<long long>(b.rows), b.copyMs * 1e3, copyBytes / b.copyMs / 1e6,
                  configText(best, ConfigText::Slashes).c_str(), bestMs * 1e3, l2normBytes / bestMs / 1e6,
                  100.0 * b.copyMs / bestMs, configText(b.pick.config, ConfigText::Slashes).c_str(),
                  b.pick.hints.empty() ? "dflt" : b.pick.hints.c_str(), f.l2normMedian * 1e3, f.l2normP20 * 1e3,
                  f.l2normP80 * 1e3, f.copyMedian * 1e3, f.copyP20 * 1e3, f.copyP80 * 1e3,
                  100.0 * f.copyMedian / f.l2normMedian, f.smClock);
    return line;
}

Json benchJson(const NbBench& b) {
    const auto& [bestMs, best] = b.ranked.front();
    const FinalRun& f = b.finalRun;
    Json entry = Json::object();
    entry["nb"] = b.nb;
    entry["rows"] = b.rows;
    entry["copy_us"] = b.copyMs * 1e3;
    entry["best"] = Json::array({best.blockRows, best.numWarps, best.numStages});
    entry["best_us"] = bestMs * 1e3;
    entry["final_config"] = Json::array({b.pick.config.blockRows, b.pick.config.numWarps, b.pick.config.numStages});
    entry["final_hints"] = b.pick.hints.empty() ? std::string("default") : b.pick.hints;
    entry["final_l2norm_us"] = f.l2normMedian * 1e3;
    entry["final_copy_us"] = f.copyMedian * 1e3;
    entry["final_l2norm_p20_p80_us"] = Json::array({f.l2normP20 * 1e3, f.l2normP80 * 1e3});
    entry["final_copy_p20_p80_us"] = Json::array({f.copyP20 * 1e3, f.copyP80 * 1e3});
    entry["final_l2norm_samples_us"] = Json::array();
    for (double ms : f.l2normMs) entry["final_l2norm_samples_us"].push_back(ms * 1e3);
    entry["final_copy_samples_us"] = Json::array();
    for (double ms : f.copyMs) entry["final_copy_samples_us"].push_back(ms * 1e3);
    entry["sm_clock_mhz"] = f.smClock;
    entry["l2norm_bytes"] = f.l2normBytes;
    entry["copy_bytes"] = b.copyBytes;
    entry["configs_us"] = b.configTimes;  // [BT, warps, stages, median us]
    if (!b.pick.times.empty()) entry["hints_us"] = b.pick.times;  // [BT, warps, stages, load hint, store hint, us]
    return entry;
}

void runBench(const BenchArgs& args, CliContext& ctx) {
    checkKernelChoice(args.kernel);
    if (args.grid != "all" && args.grid != "fla" && args.grid != "one") {
        throw Error("", "", "--grid must be all, fla or one (got '" + args.grid + "')");
    }
    if (args.samples < 1 || args.warmup < 0) throw Error("", "", "--samples must be >= 1 and --warmup >= 0");
    const std::vector<int> nbs = parseNbList(args.nbList);
    std::unique_ptr<Backend> backend = backendOrExit(args.backend, ctx, "bench-l2norm");
    if (!backend) return;
    std::unique_ptr<Device> device = deviceOrExit(*backend, args.device, ctx);
    if (!device) return;
    const std::string timer = device->useTimer(args.timer);
    for (const TimerOption& option : device->timers())
        if (option.name == timer || (!option.available && args.timer == "auto"))
            std::cerr << "bench-l2norm: timer " << option.name << (option.name == timer ? " (in use)" : " (not available)")
                      << (option.note.empty() ? "" : ": " + option.note) << '\n';
    if (args.kernel == "triton") {
        runTritonBench(args, *device, nbs, ctx);
        return;
    }
    const std::vector<L2NormConfig> grid = benchGrid(args.grid, *device);
    const L2Regime regime = benchRegime(args);
    const DeviceInfo& info = device->info();
    std::cerr << "bench-l2norm: " << info.name << " (" << info.backend << "), " << grid.size() << " configs, "
              << args.samples << " samples after " << args.warmup << " warm-up, " << toString(regime)
              << " L2, median, timer " << timer << "\n";

    Json results = Json::array();
    std::ostringstream table;
    table << "  NB        T | copy us  copy GB/s | best BT/w/s   best us  best GB/s  %copy | final: BT/w/s  hints"
             "  l2norm us [p20 - p80]      copy us [p20 - p80]      %copy | SM MHz\n";
    for (int nb : nbs) {
        const NbBench measured = benchNb(*device, nb, grid, args, regime);
        const std::string line = benchRow(measured);
        table << line;
        std::cerr << line;
        results.push_back(benchJson(measured));
    }
    std::cout << "bench-l2norm: " << info.name << " (" << info.backend << "), " << toString(regime)
              << " L2, timer " << timer << ", median of " << args.samples << " samples (final: median [p20 - p80] of " << 3 * args.samples
              << "); %copy = copy time / l2norm time (same bytes)\n"
              << table.str();
    if (!args.jsonOut.empty()) {
        Json root = Json::object();
        root["device"] = deviceJson(info);
        root["backend"] = info.backend;
        root["cold_l2"] = regime == L2Regime::Cold;
        root["l2"] = toString(regime);
        root["timer"] = timer;
        root["samples"] = args.samples;
        root["warmup"] = args.warmup;
        root["results"] = results;
        writeFileAtomic(args.jsonOut, dumpJson(root) + "\n");
    }
    ctx.exitCode = kExitOk;
}

}  // namespace

void registerDeviceCommands(CLI::App& app, CliContext& ctx) {
    auto* devices = app.add_subcommand("devices", "List the backends found (and why others are missing) and their devices");
    static bool asJson = false;  // options outlive this function: CLI11 writes them during parse
    devices->add_flag("--json", asJson, "Print JSON instead of text");
    devices->callback([&ctx] {
        printDevices(asJson);
        ctx.exitCode = kExitOk;
    });

    static SelftestArgs selftest;
    auto* selftestCommand = app.add_subcommand(
        "selftest", "Run every l2norm kernel config on random inputs against a double-precision reference "
                    "(exit 0 all pass, 1 a failure, 2 bad usage, 77 no device for the backend)");
    selftestCommand->add_option("--backend", selftest.backend, "cpu, cuda or hip")->required();
    selftestCommand->add_option("--device", selftest.device, "Device index within the backend (default 0)");
    selftestCommand->add_option("--seed", selftest.seed, "Input seed (default: a fresh random seed, printed)");
    selftestCommand->add_flag("--verbose", selftest.verbose, "Print every case, not only failures");
    selftestCommand->add_option("--kernel", selftest.kernel,
                                "native (our l2norm configs, default) or triton (every binary of a Triton cache)");
    selftestCommand->add_option("--triton-cache", selftest.tritonCache,
                                "Triton cache folder for --kernel triton (default: TRITON_CACHE_DIR or ~/.triton/cache)");
    selftestCommand->add_option("--nb", selftest.tritonNb,
                                "--kernel triton: only the binaries compiled for these NBs, e.g. 1,2,32 (default all)");
    selftestCommand->callback([&ctx] { runSelftest(selftest, ctx); });

    static BenchArgs bench;
    auto* benchCommand = app.add_subcommand(
        "bench-l2norm", "Time every l2norm config and a device-to-device copy of the same bytes per NB (median of "
                        "samples, cold L2 by default) and print a table");
    benchCommand->add_option("--backend", bench.backend, "cpu, cuda or hip")->required();
    benchCommand->add_option("--device", bench.device, "Device index within the backend (default 0)");
    benchCommand->add_option("--nb", bench.nbList, "NB values: a list and/or ranges, e.g. 1-32 or 1,8,32 (T = NB x 65536)");
    benchCommand->add_option("--grid", bench.grid, "all (every instantiated config), fla (FLA's 25 x stages 2-4), one");
    benchCommand->add_option("--samples", bench.samples, "Timed samples per config (median)");
    benchCommand->add_option("--pipeline", bench.pipeline,
                             "--kernel triton: samples queued back to back per host wait (default 16, as Triton's "
                             "do_bench; 1: wait after every sample)")
        ->check(CLI::Range(0, 256));
    benchCommand->add_option("--warmup", bench.warmup, "Untimed runs before the samples");
    benchCommand->add_option("--l2", bench.l2,
                             "cold (flush before every sample, the default), warm (a producer kernel writes the input "
                             "right before each sample) or hot (nothing in between)");
    benchCommand->add_option("--timer", bench.timer,
                             "cupti (CUDA: each kernel's own GPU duration), events, steady_clock (CPU) or auto (cupti "
                             "where CUPTI loads, else events)");
    benchCommand->add_flag("--hot", bench.hot, "Deprecated: the same as --l2 hot");
    benchCommand->add_flag("--hint-sweep", bench.hintSweep, "CUDA: also time the best configs under every cache hint");
    benchCommand->add_option("--hint-top", bench.hintTop, "How many of the best configs the hint sweep times (default 5)");
    benchCommand->add_option("--json", bench.jsonOut, "Also write every median to this JSON file");
    benchCommand->add_option("--kernel", bench.kernel,
                             "native (our l2norm configs, default) or triton (the binaries of a Triton cache per NB)");
    benchCommand->add_option("--triton-cache", bench.tritonCache,
                             "Triton cache folder for --kernel triton (default: TRITON_CACHE_DIR or ~/.triton/cache)");
    benchCommand->callback([&ctx] { runBench(bench, ctx); });
}

}  // namespace tunescope::cli
