// Cluster tasks without a cluster: the shard and the devices an array task reads from a fake SLURM environment
// (cluster_env.hpp), and the shard audit of merge --expect-shards on shard files written by real sweeps of a
// scripted device (shard_audit.hpp). The real scheduler runs in tests/cli/slurm.cmake.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "sweep_test_fixtures.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/sweep/cluster_env.hpp"
#include "tunescope/sweep/shard_audit.hpp"

using namespace tunescope;

namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

template <typename Action>
std::string errorOf(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    throw std::runtime_error("expected a tunescope::Error, nothing was thrown");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::map<std::string, std::string> kTask1Of3 = {{"SLURM_ARRAY_TASK_ID", "1"},  {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                      {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "2"},
                                                      {"SLURM_ARRAY_TASK_STEP", "1"}};

SweepPlan tinyPlan() {
    SweepPlan plan;
    plan.backend = "scripted";
    plan.shapes = shapesFromNbList({1, 2, 3}, 256);  // 3 shapes: every shard has work however shards split
    plan.grid = gridFromLists({8, 16, 32}, {1, 2}, {3});
    plan.rule.minSamples = 6;
    plan.rule.minTimeMs = 0;
    plan.rule.warmupSamples = 1;
    return plan;
}

// Runs shard `index` of 3 of tinyPlan() on `device` into `file`.
SweepOutcome runShard(const std::filesystem::path& file, int index, Device& device) {
    SweepPlan plan = tinyPlan();
    plan.shard = {index, 3};
    SweepOptions options;
    options.out = file;
    options.deviceWarmupMs = 0;
    return runSweep(plan, {&device}, options);
}

}  // namespace

class TestClusterEnv : public QObject {
    Q_OBJECT

private slots:
    void plainShardIsParsedAsBefore() {
        const ShardSpec s = resolveShard("2/5", fakeEnv({}));
        QCOMPARE(s.index, 2);
        QCOMPARE(s.count, 5);
        QVERIFY(!isClusterShard("2/5"));
        QVERIFY(isClusterShard("slurm"));
        QVERIFY(isClusterShard("slurm/4"));
    }

    void shardFromArrayTask() {
        const ShardSpec s = resolveShard("slurm", fakeEnv(kTask1Of3));
        QCOMPARE(s.index, 1);
        QCOMPARE(s.count, 3);
        const ShardSpec fixed = resolveShard("slurm/3", fakeEnv({{"SLURM_ARRAY_TASK_ID", "2"}}));
        QCOMPARE(fixed.index, 2);
        QCOMPARE(fixed.count, 3);
    }

    void missingVariablesAreNamed() {
        QVERIFY(contains(errorOf([] { resolveShard("slurm", fakeEnv({})); }), "SLURM_ARRAY_TASK_ID is not set"));
        QVERIFY(contains(errorOf([] { resolveShard("slurm", fakeEnv({{"SLURM_ARRAY_TASK_ID", "0"}})); }),
                         "SLURM_ARRAY_TASK_COUNT is not set"));
        QVERIFY(contains(errorOf([] { resolveShard("slurm/3", fakeEnv({})); }), "SLURM_ARRAY_TASK_ID is not set"));
        QVERIFY(contains(errorOf([] { resolveShard("slurm", fakeEnv({{"SLURM_ARRAY_TASK_ID", "x1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}})); }),
                         "SLURM_ARRAY_TASK_ID=\"x1\" is not a non-negative integer"));
    }

    void arraysThatAreNotZeroToNMinusOneAreRefused() {
        // A task re-submitted alone (sbatch --array=1): SLURM says 1 task, min = max = 1. Plain "slurm" cannot know n.
        const std::string alone = errorOf([] {
            resolveShard("slurm", fakeEnv({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "1"},
                                           {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "1"}}));
        });
        QVERIFY2(contains(alone, "--shard slurm/N"), alone.c_str());
        // --array=1-3: three tasks, but numbered from 1.
        QVERIFY(contains(errorOf([] {
                             resolveShard("slurm", fakeEnv({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                            {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "3"}}));
                         }),
                         "needs an array numbered 0 to N-1"));
        // --array=0-4:2: three tasks 0, 2, 4.
        QVERIFY(contains(errorOf([] {
                             resolveShard("slurm", fakeEnv({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                            {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "4"},
                                                            {"SLURM_ARRAY_TASK_STEP", "2"}}));
                         }),
                         "needs an array numbered 0 to N-1"));
        QVERIFY(contains(errorOf([] { resolveShard("slurm/3", fakeEnv({{"SLURM_ARRAY_TASK_ID", "3"}})); }),
                         "SLURM_ARRAY_TASK_ID=3 is not a shard of --shard slurm/3"));
        QVERIFY(contains(errorOf([] { resolveShard("slurm/0", fakeEnv({{"SLURM_ARRAY_TASK_ID", "0"}})); }),
                         "must be a positive integer"));
    }

    void cudaDevicesAreRenumberedFromZero() {
        // SLURM gave GPUs 2 and 3; inside the task CUDA calls them 0 and 1.
        const TaskDevices d = taskDevices("cuda", fakeEnv({{"CUDA_VISIBLE_DEVICES", "2,3"}, {"SLURM_JOB_GPUS", "2,3"}}));
        QCOMPARE(d.indices, (std::vector<int>{0, 1}));
        QVERIFY2(contains(d.source, "CUDA_VISIBLE_DEVICES=2,3") && contains(d.source, "numbered 0-1"), d.source.c_str());
        QCOMPARE(taskDevices("cuda", fakeEnv({{"CUDA_VISIBLE_DEVICES", "GPU-8a1b,GPU-77c0,MIG-5d2e"}})).indices,
                 (std::vector<int>{0, 1, 2}));
        // CUDA stops at the first invalid entry.
        QCOMPARE(taskDevices("cuda", fakeEnv({{"CUDA_VISIBLE_DEVICES", "5,-1,6"}})).indices, (std::vector<int>{0}));
    }

    void jobGpusAreIndicesWhenNothingHidesDevices() {
        const TaskDevices d = taskDevices("cuda", fakeEnv({{"SLURM_JOB_GPUS", "1,4"}}));
        QCOMPARE(d.indices, (std::vector<int>{1, 4}));
        QVERIFY(contains(d.source, "SLURM_JOB_GPUS=1,4"));
    }

    void hipPrefersRocrVisibleDevices() {
        const TaskDevices d =
            taskDevices("hip", fakeEnv({{"ROCR_VISIBLE_DEVICES", "4,5,6"}, {"CUDA_VISIBLE_DEVICES", "0"}}));
        QCOMPARE(d.indices, (std::vector<int>{0, 1, 2}));
        QVERIFY(contains(d.source, "ROCR_VISIBLE_DEVICES"));
        QCOMPARE(taskDevices("hip", fakeEnv({{"HIP_VISIBLE_DEVICES", "1"}})).indices, (std::vector<int>{0}));
    }

    void noGpuIsAClearError() {
        QVERIFY(contains(errorOf([] { taskDevices("cuda", fakeEnv({})); }), "this task was given no GPU"));
        QVERIFY(contains(errorOf([] { taskDevices("cuda", fakeEnv({{"CUDA_VISIBLE_DEVICES", ""}})); }),
                         "leaves this task no GPU"));
        QVERIFY(contains(errorOf([] { taskDevices("cuda", fakeEnv({{"CUDA_VISIBLE_DEVICES", "NoDevFiles"}})); }),
                         "--gres=gpu:N"));
        QCOMPARE(taskDevices("cpu", fakeEnv({})).indices, (std::vector<int>{0}));
        QVERIFY(contains(errorOf([] { taskDevices("opencl", fakeEnv({})); }), "unknown backend"));
    }

    void describesTheTask() {
        QCOMPARE(describeSlurmTask(fakeEnv({})), std::string());
        QCOMPARE(describeSlurmTask(fakeEnv({{"SLURM_JOB_ID", "41"}, {"SLURM_ARRAY_JOB_ID", "40"},
                                            {"SLURM_ARRAY_TASK_ID", "1"}, {"SLURMD_NODENAME", "gpu07"}})),
                 std::string("SLURM job 40_1 (job id 41) on gpu07"));
    }

    void planFromHeaderRebuildsTheHashedPlan() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath(QStringLiteral("s1.jsonl")).toStdString();
        testing::ScriptedDevice device;
        runShard(file, 1, device);
        const ResultsFile results = loadResults(file);
        const SweepPlan plan = planFromHeader(results.header, file.string());
        QCOMPARE(planHash(plan), results.header.planHash);
        QCOMPARE(plan.shard.index, 1);
        QCOMPARE(plan.shard.count, 3);
        QCOMPARE(planItems(plan).size(), planItems([] { SweepPlan p = tinyPlan(); p.shard = {1, 3}; return p; }()).size());

        ResultsHeader edited = results.header;
        edited.plan["seed"] = 7;  // no longer the hashed plan
        QVERIFY(contains(errorOf([&] { planFromHeader(edited, "x.jsonl"); }), "does not hash to its plan_hash"));
        edited = results.header;
        edited.plan.erase("grid");
        QVERIFY(contains(errorOf([&] { planFromHeader(edited, "x.jsonl"); }), "x.jsonl: at line 1, /plan/grid: is missing"));
    }

    void completeArrayPasses() {
        QTemporaryDir dir;
        testing::ScriptedDevice device;
        std::vector<std::filesystem::path> files;
        for (int i = 0; i < 3; ++i) {
            files.push_back(dir.filePath(QStringLiteral("shard-%1-of-3.jsonl").arg(i)).toStdString());
            runShard(files.back(), i, device);
        }
        const ShardAudit audit = auditShards(files, 3);
        QVERIFY2(audit.problems.empty(), audit.problems.empty() ? "" : audit.problems.front().c_str());
        QCOMPARE(audit.shards.size(), std::size_t{3});
        std::set<std::string> l2normKeys;
        for (int i = 0; i < 3; ++i) {
            const ShardStatus& s = audit.shards[std::size_t(i)];
            QVERIFY(s.complete());
            QVERIFY(s.planned > 0);
            QCOMPARE(s.shard.index, i);
            QCOMPARE(s.devices, (std::vector<std::string>{"scripted:0 Scripted test device 0"}));
            SweepPlan plan = tinyPlan();
            plan.shard = {i, 3};
            QCOMPARE(s.planned, planItems(plan).size());
            for (const ResultRecord& r : loadResults(files[std::size_t(i)]).records)
                if (r.kind == ResultRecord::Kind::L2Norm) QVERIFY(l2normKeys.insert(recordKey(r)).second);
        }
        QCOMPARE(l2normKeys.size(), std::size_t{3 * 6});  // every l2norm item of the plan, in exactly one shard
        QCOMPARE(audit.deviceModels, (std::vector<std::string>{"scripted Scripted test device 0"}));
    }

    void missingDuplicateAndForeignShardsAreNamed() {
        QTemporaryDir dir;
        testing::ScriptedDevice device;
        const std::filesystem::path s0 = dir.filePath(QStringLiteral("a.jsonl")).toStdString();
        const std::filesystem::path s2 = dir.filePath(QStringLiteral("b.jsonl")).toStdString();
        runShard(s0, 0, device);
        runShard(s2, 2, device);
        const ShardAudit audit = auditShards({s0, s2, s2}, 3);
        std::string all;
        for (const std::string& p : audit.problems) all += p + "\n";
        QVERIFY2(contains(all, "shard 1/3 is missing"), all.c_str());
        QVERIFY2(contains(all, "shard 2/3 is given 2 times"), all.c_str());
        const ShardAudit wrongCount = auditShards({s0}, 2);
        QVERIFY(contains(wrongCount.problems.front(), "is shard 0/3, not one of 2 shards"));
        QVERIFY(contains(errorOf([&] { auditShards({s0}, 0); }), "--expect-shards must be at least 1"));
    }

    void incompleteAndFailedShardsAreNamed() {
        QTemporaryDir dir;
        testing::ScriptedDevice device;
        std::vector<std::filesystem::path> files;
        for (int i = 0; i < 3; ++i) files.push_back(dir.filePath(QStringLiteral("shard-%1.jsonl").arg(i)).toStdString());
        runShard(files[0], 0, device);
        testing::ScriptedDeviceScript failing;
        failing.failLaunch = [](const L2NormConfig& c) { return c.blockRows == 32; };
        testing::ScriptedDevice failingDevice(0, failing);
        const SweepOutcome outcome = runShard(files[1], 1, failingDevice);
        QVERIFY(outcome.failed > 0);
        runShard(files[2], 2, device);
        {  // a task killed after its header and one line: cut the file there
            std::ifstream in(files[2]);
            std::string header, first;
            std::getline(in, header);
            std::getline(in, first);
            in.close();
            std::ofstream(files[2], std::ios::trunc) << header << '\n' << first << '\n' << "{\"type\":\"measurement\",\"ki";  // the partial last line of a kill
        }
        const ShardAudit audit = auditShards(files, 3);
        QCOMPARE(audit.shards[1].failed, outcome.failed);
        QVERIFY(!audit.shards[1].firstError.empty());
        QCOMPARE(audit.shards[2].measured, std::size_t{1});
        std::string all;
        for (const std::string& p : audit.problems) all += p + "\n";
        QVERIFY2(contains(all, "shard 1/3 (" + files[1].string() + ") is incomplete") && contains(all, "failed (first: "),
                 all.c_str());
        QVERIFY2(contains(all, "shard 2/3 (" + files[2].string() + ") is incomplete: 1 of ") &&
                     contains(all, "never run"),
                 all.c_str());
        QVERIFY(!contains(all, "shard 0/3"));
    }

    void mixedDeviceModelsAreRefusedWithTheList() {
        QTemporaryDir dir;
        testing::ScriptedDevice gpuA(0), gpuB(1);  // "Scripted test device 0" and "... 1": two models
        std::vector<std::filesystem::path> files;
        for (int i = 0; i < 3; ++i) {
            files.push_back(dir.filePath(QStringLiteral("shard-%1.jsonl").arg(i)).toStdString());
            runShard(files.back(), i, i == 1 ? gpuB : gpuA);
        }
        const ShardAudit audit = auditShards(files, 3);
        QCOMPARE(audit.problems.size(), std::size_t{1});
        const std::string& p = audit.problems.front();
        QVERIFY2(contains(p, "2 different device models"), p.c_str());
        QVERIFY2(contains(p, "scripted Scripted test device 0: shard 0/3 (" + files[0].string() + "), shard 2/3 (" +
                                 files[2].string() + ")"),
                 p.c_str());
        QVERIFY2(contains(p, "scripted Scripted test device 1: shard 1/3 (" + files[1].string() + ")"), p.c_str());
    }
};

QTEST_GUILESS_MAIN(TestClusterEnv)
#include "tst_cluster_env.moc"
