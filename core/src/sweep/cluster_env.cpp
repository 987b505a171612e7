#include "tunescope/sweep/cluster_env.hpp"

#include <cstdlib>

#include "tunescope/base/errors.hpp"

namespace tunescope {

namespace {

std::string trim(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// A non-negative decimal integer that fits in int, or nullopt.
std::optional<int> nonNegativeInt(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return {};
    return std::stoi(t);
}

// A variable that must be a non-negative integer; `why` says what it is needed for.
int requireInt(const EnvLookup& env, const std::string& name, const std::string& why) {
    const auto value = env(name);
    if (!value)
        throw Error("", "", name + " is not set: " + why +
                                " (run this inside a SLURM array task: sbatch --array=0-(N-1), see docs/cluster.md)");
    const auto number = nonNegativeInt(*value);
    if (!number) throw Error("", "", name + "=\"" + *value + "\" is not a non-negative integer");
    return *number;
}

// Entries of a visibility variable as the CUDA runtime reads it: comma-separated indices or GPU-/MIG- UUIDs; the
// first invalid entry ends the list (CUDA C Programming Guide, "CUDA Environment Variables").
std::vector<std::string> visibleEntries(const std::string& value) {
    std::vector<std::string> entries;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t comma = value.find(',', start);
        const std::string entry = trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        const bool valid = nonNegativeInt(entry).has_value() || entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0;
        if (!valid) break;
        entries.push_back(entry);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return entries;
}

TaskDevices renumbered(const std::string& variable, const std::string& value) {
    const std::vector<std::string> entries = visibleEntries(value);
    if (entries.empty())
        throw Error("", "", variable + "=\"" + value +
                                "\" leaves this task no GPU (request GPUs with sbatch --gres=gpu:N, see docs/cluster.md)");
    TaskDevices devices;
    for (std::size_t i = 0; i < entries.size(); ++i) devices.indices.push_back(static_cast<int>(i));
    const std::string count = std::to_string(entries.size());
    devices.source = variable + "=" + value + " (" + count + " GPU" + (entries.size() == 1 ? "" : "s") +
                     ", numbered " + (entries.size() == 1 ? "0" : "0-" + std::to_string(entries.size() - 1)) +
                     " inside the task)";
    return devices;
}

}  // namespace

EnvLookup processEnvironment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (!value) return std::nullopt;
        return std::string(value);
    };
}

bool isClusterShard(const std::string& shardOption) {
    return shardOption == "slurm" || shardOption.rfind("slurm/", 0) == 0;
}

ShardSpec resolveShard(const std::string& shardOption, const EnvLookup& env) {
    if (!isClusterShard(shardOption)) return parseShard(shardOption);
    const std::string why = "--shard " + shardOption + " takes the shard index from it";
    const int taskId = requireInt(env, "SLURM_ARRAY_TASK_ID", why);
    if (shardOption == "slurm") {
        const int count = requireInt(env, "SLURM_ARRAY_TASK_COUNT", "--shard slurm takes the shard count from it");
        const auto min = env("SLURM_ARRAY_TASK_MIN");
        const auto max = env("SLURM_ARRAY_TASK_MAX");
        const auto step = env("SLURM_ARRAY_TASK_STEP");
        const bool zeroBased = !min || nonNegativeInt(*min) == 0;
        const bool contiguous = (!max || nonNegativeInt(*max) == count - 1) && (!step || nonNegativeInt(*step) == 1);
        if (!zeroBased || !contiguous || taskId >= count)
            throw Error("", "", "--shard slurm needs an array numbered 0 to N-1 (sbatch --array=0-" +
                                    std::to_string(count > 0 ? count - 1 : 0) + "), but this task is " +
                                    std::to_string(taskId) + " of an array of " + std::to_string(count) + " (min " +
                                    min.value_or("?") + ", max " + max.value_or("?") +
                                    "); a task re-submitted alone (sbatch --array=K) must say the count: "
                                    "--shard slurm/N");
        return {taskId, count};
    }
    const auto count = nonNegativeInt(shardOption.substr(6));
    if (!count || *count < 1)
        throw Error("", "", "--shard \"" + shardOption + "\": N in slurm/N must be a positive integer");
    if (taskId >= *count)
        throw Error("", "", "SLURM_ARRAY_TASK_ID=" + std::to_string(taskId) + " is not a shard of --shard " +
                                shardOption + " (shards are numbered 0 to " + std::to_string(*count - 1) +
                                "; submit with sbatch --array=0-" + std::to_string(*count - 1) + ")");
    return {taskId, *count};
}

TaskDevices taskDevices(const std::string& backend, const EnvLookup& env) {
    if (backend == "cpu") return {{0}, "the cpu backend (one device)"};
    if (backend != "cuda" && backend != "hip")
        throw Error("", "", "unknown backend '" + backend + "' (expected cpu, cuda or hip)");
    const std::vector<std::string> visibility =
        backend == "cuda" ? std::vector<std::string>{"CUDA_VISIBLE_DEVICES"}
                          : std::vector<std::string>{"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};
    for (const std::string& variable : visibility)
        if (const auto value = env(variable)) return renumbered(variable, *value);
    // Nothing hides devices from this process, so SLURM's physical indices are the process's indices.
    if (const auto gpus = env("SLURM_JOB_GPUS")) {
        TaskDevices devices;
        devices.indices = parseIntList(*gpus, "SLURM_JOB_GPUS");
        devices.source = "SLURM_JOB_GPUS=" + *gpus + " (no visibility variable is set, so these are the indices)";
        return devices;
    }
    std::string names;
    for (const std::string& v : visibility) names += v + ", ";
    throw Error("", "", "this task was given no GPU: " + names +
                            "SLURM_JOB_GPUS are all unset (request GPUs with sbatch --gres=gpu:N, or give --devices)");
}

std::string describeSlurmTask(const EnvLookup& env) {
    const auto jobId = env("SLURM_JOB_ID");
    if (!jobId) return {};
    std::string text = "SLURM job ";
    const auto arrayJob = env("SLURM_ARRAY_JOB_ID");
    const auto task = env("SLURM_ARRAY_TASK_ID");
    text += arrayJob && task ? *arrayJob + "_" + *task + " (job id " + *jobId + ")" : *jobId;
    if (const auto node = env("SLURMD_NODENAME")) text += " on " + *node;
    return text;
}

}  // namespace tunescope
