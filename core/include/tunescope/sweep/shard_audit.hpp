#pragma once
// Before the shards of an array job are merged: is every shard 0..N-1 there exactly once, is each one complete,
// and were they all measured on one GPU model? Reports per shard where and on what it ran, how long it measured
// and what failed. Qt-free; used by `tunescope-cli merge --expect-shards N` (docs/cluster.md).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope {

// Rebuilds the sweep plan recorded in a results header (plan, shard included). Throws Error naming the file and
// the JSON Pointer when a member is missing or malformed, and when the rebuilt plan's hash is not the recorded
// plan_hash (a file written by a TuneScope whose plan had other members).
SweepPlan planFromHeader(const ResultsHeader& header, const std::string& file);

struct ShardStatus {
    std::filesystem::path file;
    ShardSpec shard;
    std::string host;
    std::string createdUtc;
    std::vector<std::string> devices;  // "cuda:0 NVIDIA H200", as the records say, in order of first use
    std::size_t planned = 0;           // items of the plan for this shard
    std::size_t measured = 0;          // planned items the file holds
    std::size_t failed = 0;            // planned items not measured whose last attempt left an error line
    std::size_t missing = 0;           // planned items not measured (failed ones included)
    double measuringSeconds = 0;       // sum of the records' wall_ms: time spent measuring, over every run
    std::string firstError;            // the message of the first failure, for the report
    bool complete() const { return measured == planned; }
};

struct ShardAudit {
    int expectedCount = 0;
    std::vector<ShardStatus> shards;       // one per input, in input order
    std::vector<std::string> deviceModels; // distinct "backend NAME" over every shard's records
    std::vector<std::string> problems;     // each names the shard and its file; empty = mergeable
};

// Reads every input (Error when one cannot be read) and lists every problem it finds:
// an input that is not a shard of `expectedCount`, a shard index given twice, a shard index with no file, a shard
// with items not measured (failed or never run), measurements that belong to no planned item, inputs of different
// plans, and records of more than one GPU model (results of different GPUs are never compared; the problem lists
// each shard's devices).
ShardAudit auditShards(const std::vector<std::filesystem::path>& inputs, int expectedCount);

}  // namespace tunescope
