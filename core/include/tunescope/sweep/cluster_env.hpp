#pragma once
// What a SLURM array task is told by its environment: which shard of a sweep it runs and which GPUs it may use.
// Qt-free; the environment is passed in as a lookup so that tests can give a fake one. See docs/cluster.md.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tunescope/sweep/sweep.hpp"

namespace tunescope {

// Returns the value of an environment variable, or nullopt when it is not set (an empty value is "set").
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup processEnvironment();  // getenv

// Whether a --shard value asks for the shard from the scheduler: "slurm" or "slurm/N".
bool isClusterShard(const std::string& shardOption);

// The shard of a --shard value: "i/n" as parseShard() reads it; "slurm" takes i from SLURM_ARRAY_TASK_ID and n
// from SLURM_ARRAY_TASK_COUNT, which needs an array numbered 0..n-1 with step 1 (sbatch --array=0-(n-1));
// "slurm/N" takes i from SLURM_ARRAY_TASK_ID and n = N, which also works for a task re-submitted alone
// (sbatch --array=K, where SLURM says the array has 1 task). Throws Error naming the variable that is missing or
// does not fit.
ShardSpec resolveShard(const std::string& shardOption, const EnvLookup& env);

// The devices of `backend` this task may use, as the process numbers them, and why.
struct TaskDevices {
    std::vector<int> indices;  // what --devices gets
    std::string source;        // e.g. "CUDA_VISIBLE_DEVICES=2,3 (2 GPUs, numbered 0-1 inside the task)"
};
// CUDA (and HIP) number the devices a process may see from 0: with CUDA_VISIBLE_DEVICES=2,3 the process has
// devices 0 and 1, not 2 and 3. So the count of entries in the visibility variable gives the indices 0..k-1:
//   cuda: CUDA_VISIBLE_DEVICES; when that is unset, SLURM_JOB_GPUS (the physical indices, used as they are,
//         because then nothing renumbers them);
//   hip:  ROCR_VISIBLE_DEVICES, else HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES (HIP honours it too), else
//         SLURM_JOB_GPUS;
//   cpu:  device 0 (the one CPU device).
// Throws Error when the variables say the task has no GPU, or when none is set (no --gres=gpu:N).
TaskDevices taskDevices(const std::string& backend, const EnvLookup& env);

// "SLURM job 1234_5 on node17" for logs; empty outside a job.
std::string describeSlurmTask(const EnvLookup& env);

}  // namespace tunescope
