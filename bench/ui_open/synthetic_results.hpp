#pragma once
// A synthetic sweep results file, written through the core's own writer (ResultsWriter, recordToJson) so it is
// exactly what loadResults reads: NB x the default 75-config grid, plus a copy ceiling per NB. The latencies are
// made up (a bandwidth model with per-config penalties and noise), the device is named "synthetic", and the host
// says so: it exists to benchmark and test the GUI, never to decide anything.
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "tunescope/sweep/results.hpp"
#include "tunescope/sweep/sweep.hpp"

namespace tunescope::synthetic {

inline std::size_t writeSyntheticResults(const std::filesystem::path& file, int nbMax = 32, int samplesPerRecord = 20,
                                         unsigned seed = 42) {
    ResultsHeader header;
    header.format = kResultsFormat;
    header.tunescopeVersion = "synthetic";
    header.gitSha = "synthetic";
    header.createdUtc = "2026-01-01T00:00:00Z";
    header.host = "synthetic (benchmark data, not a measurement)";
    DeviceInfo device;
    device.backend = "synthetic";
    device.name = "synthetic device";
    device.architecture = "sm_90";
    device.warpSize = 32;
    header.devices = {device};
    SweepPlan plan;
    plan.backend = "synthetic";
    std::vector<int> nbs;
    for (int nb = 1; nb <= nbMax; ++nb) nbs.push_back(nb);
    plan.shapes = shapesFromNbList(nbs);
    plan.grid = defaultGrid();
    header.plan = planToJson(plan);
    header.planHash = planHash(plan);

    std::filesystem::remove(file);
    ResultsWriter writer = ResultsWriter::create(file, header);
    std::mt19937_64 random(seed);
    std::normal_distribution<double> noise(0.0, 0.004);
    std::size_t lines = 0;
    auto measurement = [&](double medianMs) {
        Measurement m;
        for (int i = 0; i < samplesPerRecord; ++i) {
            m.samplesMs.push_back(medianMs * (1.0 + std::abs(noise(random))));
            m.smClockMHz.push_back(1980);
        }
        computeStatistics(m, 1980);
        m.converged = true;
        m.stopReason = StopReason::Converged;
        return m;
    };
    for (const SweepShape& shape : plan.shapes) {
        const double bytes = static_cast<double>(shape.rows) * (256 + 256 + 4);
        ResultRecord copy;
        copy.kind = ResultRecord::Kind::Copy;
        copy.nb = shape.nb;
        copy.rows = shape.rows;
        copy.deviceBackend = "synthetic";
        copy.deviceName = device.name;
        copy.m = measurement(bytes / 4.27e12 * 1e3 + 0.004);
        copy.bytes = static_cast<std::uint64_t>(bytes);
        copy.gbps = bytes / (copy.m.medianMs * 1e6);
        writer.append(recordToJson(copy));
        ++lines;
        for (const L2NormConfig& config : plan.grid) {
            // Small BT with 4 warps streams best; very large blocks or one warp on large NBs lose bandwidth.
            const double penalty = 1.0 + 0.015 * std::abs(std::log2(config.blockRows / 8.0)) +
                                   0.02 * std::abs(std::log2(config.numWarps / 4.0)) + 0.004 * std::abs(config.numStages - 3) +
                                   (config.blockRows * 2 > 64 * config.numWarps ? 0.05 : 0.0);
            ResultRecord record;
            record.nb = shape.nb;
            record.rows = shape.rows;
            record.config = config;
            record.deviceBackend = "synthetic";
            record.deviceName = device.name;
            record.m = measurement((bytes / 4.15e12 * 1e3 + 0.006) * penalty);
            record.bytes = static_cast<std::uint64_t>(bytes);
            record.gbps = bytes / (record.m.medianMs * 1e6);
            record.copyGbps = copy.gbps;
            record.fractionOfCopy = record.gbps / copy.gbps;
            writer.append(recordToJson(record));
            ++lines;
        }
    }
    return lines;
}

}  // namespace tunescope::synthetic
