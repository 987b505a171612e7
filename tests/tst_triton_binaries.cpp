// The Triton cache reader on a committed cache of real Triton 3.6.0 output (FLA v0.5.2's l2norm_fwd_kernel, made on
// an H200 by scripts/fill_triton_cache.py): constexprs and launch settings, the SHA-256s its index recorded, and the
// refusals (another target, a missing binary, an unknown Triton version, a changed binary, another argument list).
#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/triton_binaries.hpp"
#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/sweep.hpp"

using namespace tunescope;
namespace fs = std::filesystem;

namespace {

fs::path fixture() { return fs::path(qEnvironmentVariable("TUNESCOPE_TESTDATA").toStdString()) / "triton-cache-l2norm"; }

L2NormConfig makeConfig(int blockRows, int warps, int stages) {
    L2NormConfig config;
    config.blockRows = blockRows;
    config.numWarps = warps;
    config.numStages = stages;
    return config;
}

// A writable copy of the fixture in `dir`.
fs::path copyFixture(const QTemporaryDir& dir) {
    const fs::path copy = fs::path(dir.path().toStdString()) / "cache";
    fs::copy(fixture(), copy, fs::copy_options::recursive);
    return copy;
}

void replaceInFile(const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = readTextFile(file);
    const auto at = text.find(from);
    QVERIFY2(at != std::string::npos, (file.string() + " lacks " + from).c_str());
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// The error a scan of `dir` throws (empty file and message when it does not throw).
Error scanError(const fs::path& dir) {
    try {
        (void)scanTritonCache(dir);
    } catch (const Error& e) {
        return e;
    }
    return Error("", "", "");
}

const char* const kFolderBt8Warps1Nb1 = "JIVMU5NNFJS5LJCCFSHQXURHJ33DAOO25WHSZESHTPFCUP2Y5IHQ";

}  // namespace

class TestTritonBinaries : public QObject {
    Q_OBJECT

private slots:
    void readsEveryVariantWithTheIndexSettings() {
        const TritonCacheScan scan = scanTritonCache(fixture());
        QCOMPARE(scan.variants.size(), std::size_t(8));  // Triton's cuda_utils folder is not a variant
        QVERIFY(scan.notes.empty());
        QCOMPARE(scan.indexFlaVersion.value_or(""), std::string("0.5.2"));
        const Json index = readJsonFile(fixture() / "tunescope-triton-index.json");
        std::set<std::string> folders;
        for (const TritonVariant& v : scan.variants) {
            folders.insert(v.folder.filename().string());
            QCOMPARE(v.kernelName, std::string("l2norm_fwd_kernel"));
            QCOMPARE(v.tritonVersion, std::string("3.6.0"));
            QCOMPARE(v.targetBackend, std::string("cuda"));
            QCOMPARE(v.targetArch, std::string("sm_90"));
            QCOMPARE(v.warpSize, 32);
            QCOMPARE(v.numStages, 3);
            QCOMPARE(v.numCtas, 1);
            QCOMPARE(v.globalScratchBytes, std::uint64_t(0));
            QCOMPARE(v.profileScratchBytes, std::uint64_t(0));
            QCOMPARE(v.constexprSource, std::string("index"));
            QCOMPARE(v.headDim.value_or(0), 128);
            QCOMPARE(v.blockD.value_or(0), 128);
            QCOMPARE(v.binaryPath.filename().string(), std::string("l2norm_fwd_kernel.cubin"));
            // The SHA-256 is the file's, and the index recorded the same one when the cache was filled.
            QCOMPARE(v.binarySha256, sha256FileHex(v.binaryPath));
            bool recorded = false;
            for (const Json& entry : index["variants"]) {
                if (entry["hash"] != v.hash) continue;
                recorded = true;
                QCOMPARE(entry["binary_sha256"].get<std::string>(), v.binarySha256);
                QCOMPARE(entry["folder"].get<std::string>(), v.folder.filename().string());
                QCOMPARE(entry["constexprs"]["BT"].get<int>(), v.blockRows.value_or(0));
                QCOMPARE(entry["constexprs"]["NB"].get<int>(), v.nb.value_or(0));
                QCOMPARE(entry["num_warps"].get<int>(), v.numWarps);
            }
            QVERIFY(recorded);
            // The argument list is read from the TTIR, with the alignment Triton assumed for the pointers.
            QCOMPARE(v.arguments.size(), std::size_t(5));
            QCOMPARE(v.arguments[0], (TritonArgument{"x", "!tt.ptr<bf16>", 16}));
            QCOMPARE(v.arguments[2], (TritonArgument{"rstd", "!tt.ptr<f32>", 16}));
            QCOMPARE(v.arguments[3], (TritonArgument{"eps", "f32", 0}));
            QCOMPARE(v.arguments[4], (TritonArgument{"T", "i32", 0}));
        }
        QCOMPARE(folders.size(), std::size_t(8));
        QVERIFY(!folders.count("XU5DT2AO5BD5AEHEYGLPP5LRDFHHCUEJT4LGDVLB4STXUGVGHFPA"));
    }

    void findsTheVariantFlaLaunchesAndItsLaunchSettings() {
        const TritonCacheScan scan = scanTritonCache(fixture());
        const TritonVariant* v = findTritonVariant(scan, makeConfig(8, 1, 3), 1);
        QVERIFY(v);
        QCOMPARE(v->folder.filename().string(), std::string(kFolderBt8Warps1Nb1));
        QCOMPARE(v->describe(), std::string("BT=8 num_warps=1 num_stages=3 NB=1"));
        QVERIFY(findTritonVariant(scan, makeConfig(128, 4, 3), 2));
        QVERIFY(!findTritonVariant(scan, makeConfig(8, 1, 3), 3));   // NB 3 was not compiled
        QVERIFY(!findTritonVariant(scan, makeConfig(8, 1, 2), 1));   // nor num_stages 2
        QVERIFY(!findTritonVariant(scan, makeConfig(16, 1, 3), 1));  // nor BT 16

        const TritonKernelBinary binary = loadTritonBinary(*v);
        QCOMPARE(binary.kernelName, std::string("l2norm_fwd_kernel"));
        QCOMPARE(binary.blockRows, 8);
        QCOMPARE(binary.numWarps, 1);
        QCOMPARE(binary.warpSize, 32);
        QCOMPARE(binary.targetArch, std::string("sm_90"));
        QCOMPARE(binary.image.size(), std::size_t(fs::file_size(v->binaryPath)));
        QCOMPARE(sha256Hex(std::string_view(reinterpret_cast<const char*>(binary.image.data()), binary.image.size())),
                 v->binarySha256);
        // The metadata's shared memory is what the launch asks for.
        const Json metadata = parseJson(v->metadataText, "metadata");
        QCOMPARE(binary.sharedBytes, metadata["shared"].get<std::uint32_t>());
    }

    void withoutTheIndexReadsBtFromTheTtirAndSaysNbIsNotRecorded() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        fs::remove(cache / "tunescope-triton-index.json");
        const TritonCacheScan scan = scanTritonCache(cache);
        const TritonCacheScan withIndex = scanTritonCache(fixture());
        QCOMPARE(scan.variants.size(), std::size_t(8));
        for (const TritonVariant& v : scan.variants) {
            QVERIFY(!v.nb);
            QCOMPARE(v.constexprSource, std::string("l2norm_fwd_kernel.source"));
            for (const TritonVariant& w : withIndex.variants) {
                if (w.hash == v.hash) {
                    QCOMPARE(v.blockRows, w.blockRows);
                    QCOMPARE(v.blockD, w.blockD);
                }
            }
        }
        QCOMPARE(scan.notes.size(), std::size_t(8));
        QVERIFY(scan.notes[0].find("NB not recorded") != std::string::npos);
        // Two binaries of one config (NB 1 and 2) and neither says its NB: no guess.
        QVERIFY(!findTritonVariant(scan, makeConfig(8, 1, 3), 1));
    }

    void refusesAnotherTarget() {
        const TritonCacheScan scan = scanTritonCache(fixture());
        const TritonVariant& v = scan.variants.front();
        DeviceInfo h200{"cuda", 0, "NVIDIA H200", "sm_90", 0, 132, 0, 0, 32, "", ""};
        QVERIFY(tritonTargetMismatch(v, h200).empty());
        DeviceInfo a100 = h200;
        a100.name = "NVIDIA A100";
        a100.architecture = "sm_80";
        const std::string why = tritonTargetMismatch(v, a100);
        QVERIFY2(why.find("built for sm_90") != std::string::npos && why.find("sm_80") != std::string::npos &&
                     why.find(v.binaryPath.string()) != std::string::npos,
                 why.c_str());
        DeviceInfo mi300{"hip", 0, "AMD Instinct MI300X", "gfx942", 0, 304, 0, 0, 64, "", ""};
        const std::string hipWhy = tritonTargetMismatch(v, mi300);
        QVERIFY2(hipWhy.find("CUDA cubin") != std::string::npos && hipWhy.find("hip device") != std::string::npos,
                 hipWhy.c_str());
        // The CPU backend refuses Triton binaries with a reason.
        std::unique_ptr<Device> cpu = openBackend("cpu")->openDevice(0);
        cpu->prepareL2Norm(64, 1);
        try {
            (void)cpu->tritonL2NormWork(loadTritonBinary(v), 1e-6f);
            QFAIL("the CPU device accepted a Triton binary");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("cannot run Triton binaries") != std::string::npos, e.what());
        }
    }

    void refusesAMissingBinaryNamingIt() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        const fs::path cubin = cache / kFolderBt8Warps1Nb1 / "l2norm_fwd_kernel.cubin";
        fs::remove(cubin);
        const Error e = scanError(cache);
        QCOMPARE(e.file(), cubin.string());
        QVERIFY2(e.message().find("missing") != std::string::npos, e.what());
    }

    void refusesAnUnknownTritonVersion() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        const fs::path metadata = cache / kFolderBt8Warps1Nb1 / "l2norm_fwd_kernel.json";
        replaceInFile(metadata, "\"triton_version\": \"3.6.0\"", "\"triton_version\": \"3.4.0\"");
        const Error e = scanError(cache);
        QCOMPARE(e.file(), metadata.string());
        QCOMPARE(e.jsonPath(), std::string("/triton_version"));
        QVERIFY2(e.message().find("3.4.0") != std::string::npos && e.message().find("3.6.x") != std::string::npos,
                 e.what());
    }

    void refusesABinaryThatDiffersFromTheIndex() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        const fs::path cubin = cache / kFolderBt8Warps1Nb1 / "l2norm_fwd_kernel.cubin";
        std::ofstream(cubin, std::ios::binary | std::ios::app) << '\0';
        const Error e = scanError(cache);
        QCOMPARE(e.file(), cubin.string());
        QVERIFY2(e.message().find("SHA-256") != std::string::npos, e.what());
    }

    void refusesAnotherArgumentList() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        const fs::path source = cache / kFolderBt8Warps1Nb1 / "l2norm_fwd_kernel.source";
        replaceInFile(source, "%T: i32 loc(", "%T: i64 loc(");
        const Error e = scanError(cache);
        QCOMPARE(e.file(), source.string());
        QVERIFY2(e.message().find("T: i64") != std::string::npos, e.what());
    }

    void refusesAnIndexThatListsAMissingVariant() {
        const QTemporaryDir dir;
        const fs::path cache = copyFixture(dir);
        fs::remove_all(cache / kFolderBt8Warps1Nb1);
        const Error e = scanError(cache);
        QVERIFY2(e.message().find(kFolderBt8Warps1Nb1) != std::string::npos &&
                     e.message().find("incomplete") != std::string::npos,
                 e.what());
    }

    void refusesAFolderWithNoVariant() {
        const QTemporaryDir dir;
        const Error e = scanError(dir.path().toStdString());
        QVERIFY2(e.message().find("fill_triton_cache.py") != std::string::npos, e.what());
        QVERIFY_THROWS_EXCEPTION(Error, scanTritonCache(fs::path(dir.path().toStdString()) / "absent"));
    }

    void sweepPlanOfTheRealKernel() {
        SweepPlan plan;
        plan.shapes = shapesFromNbList({1, 2});
        plan.grid = gridFromLists({8, 128}, {1, 4}, {3});
        const std::string nativeHash = planHash(plan);
        plan.kernel = "triton";
        QVERIFY_THROWS_EXCEPTION(Error, validatePlan(plan));  // no cache given
        plan.triton = std::make_shared<const TritonCacheScan>(scanTritonCache(fixture()));
        validatePlan(plan);
        // The plan names the kernel and every binary: another cache is another plan.
        QVERIFY(planHash(plan) != nativeHash);
        const Json planJson = planToJson(plan);
        QCOMPARE(planJson["kernel"].get<std::string>(), std::string("triton"));
        QCOMPARE(planJson["triton_binaries_sha256"].size(), std::size_t(8));
        // A config the cache lacks, and a device the binaries do not target, are refused before anything runs.
        SweepPlan missing = plan;
        missing.grid = gridFromLists({16}, {1}, {3});
        try {
            validatePlan(missing);
            QFAIL("a config without a binary was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("BT=16 num_warps=1 num_stages=3 NB=1") != std::string::npos, e.what());
        }
        std::unique_ptr<Device> cpu = openBackend("cpu")->openDevice(0);
        QVERIFY_THROWS_EXCEPTION(Error, validatePlan(plan, {cpu.get()}));
        cpu->prepareL2Norm(64, 1);
        Json source;
        QVERIFY_THROWS_EXCEPTION(Error, makeSweepL2NormWork(*cpu, plan, makeConfig(8, 1, 3), 1, &source));
        // The stand-in path is unchanged and records no kernel source.
        SweepPlan native = plan;
        native.kernel = "native";
        QVERIFY(makeSweepL2NormWork(*cpu, native, makeConfig(8, 1, 3), 1, &source));
        QVERIFY(source.is_null());
    }

    void kernelSourceOfAVariantIsRecorded() {
        const TritonCacheScan scan = scanTritonCache(fixture());
        const TritonVariant& v = requireTritonVariant(scan, makeConfig(128, 4, 3), 2);
        const Json source = tritonKernelSourceJson(v);
        QCOMPARE(source["kernel"].get<std::string>(), std::string("triton"));
        QCOMPARE(source["name"].get<std::string>(), std::string("l2norm_fwd_kernel"));
        QCOMPARE(source["binary_sha256"].get<std::string>(), v.binarySha256);
        QCOMPARE(source["triton_version"].get<std::string>(), std::string("3.6.0"));
        QCOMPARE(source["metadata"]["hash"].get<std::string>(), v.hash);
        QCOMPARE(source["metadata_sha256"].get<std::string>(), sha256FileHex(v.folder / "l2norm_fwd_kernel.json"));
        ResultRecord rec;
        rec.kernelSource = source;
        QCOMPARE(recordToJson(rec)["kernel_source"], source);
        QVERIFY(!recordToJson(ResultRecord{}).contains("kernel_source"));

        // A results file keeps it: a CPU sweep's measurement line given this kernel_source reads back with it
        // (the fast line parser hands such lines to the DOM reader).
        const QTemporaryDir dir;
        const fs::path out = fs::path(dir.path().toStdString()) / "sweep.jsonl";
        SweepPlan plan;
        plan.shapes = shapesFromNbList({1}, 256);
        plan.grid = gridFromLists({8}, {1}, {3});
        plan.rule.minSamples = 3;
        plan.rule.minTimeMs = 0;
        plan.rule.timeoutMs = 200;
        plan.measureCopy = false;
        std::unique_ptr<Device> cpu = openBackend("cpu")->openDevice(0);
        SweepOptions options;
        options.out = out;
        options.deviceWarmupMs = 0;
        QCOMPARE(runSweep(plan, {cpu.get()}, options).measured, std::size_t(1));
        std::string text = readTextFile(out);
        const auto at = text.find("{\"type\":\"measurement\"");
        QVERIFY(at != std::string::npos);
        text.insert(at + 1, "\"kernel_source\":" + source.dump() + ",");
        std::ofstream(out, std::ios::binary | std::ios::trunc) << text;
        const ResultsFile results = loadResults(out);
        QCOMPARE(results.records.size(), std::size_t(1));
        // (Member order is not kept: the reader's DOM sorts members.)
        const Json& read = results.records[0].kernelSource;
        QVERIFY(read.is_object());
        QCOMPARE(read.size(), source.size());
        for (const char* key : {"kernel", "name", "binary_sha256", "triton_version", "target", "folder", "metadata_sha256"})
            QCOMPARE(read[key], source[key]);
        QCOMPARE(read["metadata"]["hash"], source["metadata"]["hash"]);
    }

    void defaultCacheFolderFollowsTriton() {
        qputenv("TRITON_CACHE_DIR", "/tmp/some-cache");
        QCOMPARE(defaultTritonCacheDir(), fs::path("/tmp/some-cache"));
        qunsetenv("TRITON_CACHE_DIR");
        qputenv("TRITON_HOME", "/tmp/th");
        QCOMPARE(defaultTritonCacheDir(), fs::path("/tmp/th/.triton/cache"));
        qunsetenv("TRITON_HOME");
    }
};

QTEST_GUILESS_MAIN(TestTritonBinaries)
#include "tst_triton_binaries.moc"
