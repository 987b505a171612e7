#pragma once
// Sweep results: an append-only JSON Lines file (format "tunescope-sweep-results-v2"; v1 files still read;
// docs/sweep.md).
// Line 1 is the header; every later line is one measurement or one recorded error. This header is the reader the
// GUI uses (loadResults), the writer the sweep uses, and the merge of shard files.
#include <cstdint>
#include <compare>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/measurement.hpp"

namespace tunescope {

inline constexpr const char* kResultsFormat = "tunescope-sweep-results-v2";
// v1: one measurement per config and shape, no rounds. Read as one round per record; never written.
inline constexpr const char* kResultsFormatV1 = "tunescope-sweep-results-v1";

// One round of a record: a slice of the record's raw arrays and its statistics (docs/sweep.md, "Rounds").
struct RoundSummary {
    int round = 0;         // 0-based round number
    int position = 0;      // place in that round's shuffled order (0-based)
    int placement = -1;    // which copy of the buffers the round used (plan placements > 1); -1: not recorded
    int firstSample = 0;   // the round's samples are raw[firstSample, firstSample + sampleCount)
    int sampleCount = 0;
    int throttledCount = 0;
    double medianMs = 0, p20Ms = 0, p80Ms = 0, ciLowMs = 0, ciHighMs = 0;
    double wallTimeMs = 0;
    StopReason stopReason = StopReason::Timeout;
};

struct ResultsHeader {
    std::string format;            // kResultsFormat
    std::string tunescopeVersion;  // "0.1.0"
    std::string gitSha;
    std::string createdUtc;        // "2026-09-20T12:34:56Z"
    std::string host;
    std::vector<DeviceInfo> devices;  // the devices this file's records were measured on
    Json plan;                     // the sweep plan (shapes, grid, stopping rule, cold/hot, shard ...)
    std::string planHash;          // SHA-256 of the plan without its shard: equal hashes = mergeable shards
    Json raw;                      // the whole header line as read (unknown fields included)
};

// One timed thing: an l2norm config on one shape, or the device-to-device copy ceiling of that shape.
struct ResultRecord {
    enum class Kind { L2Norm, Copy };
    Kind kind = Kind::L2Norm;
    int nb = 0;
    std::int64_t rows = 0;         // T
    int batch = 0;                 // B and L when the shape came from --batch/--padded-tokens, else 0
    int paddedTokens = 0;
    L2NormConfig config;           // meaningless for Copy
    bool inGrid = true;            // part of the sweep's grid (false: measured only because the profile uses it)
    bool profileConfig = false;    // the --profile's own config for this NB
    bool baselineConfig = false;   // the --baseline policy's config for this NB (confirm: head-to-head plans)
    std::string deviceBackend;
    int deviceIndex = 0;
    std::string deviceName;
    // What the L2 held before each sample ("l2" in the file; "cold_l2" says whether it is Cold, for older readers)
    // and which clock timed the samples ("timer": cupti, events or steady_clock). Lines of files written before
    // these were recorded read as their cold_l2 says (Cold or Hot) and as the backend's legacy timer
    // (legacyTimerFor: steady_clock on the CPU, events elsewhere).
    L2Regime l2 = L2Regime::Cold;
    std::string timer = kTimerEvents;
    // Every statistic plus the raw samples, clocks and throttle marks of all rounds. With rounds, m.medianMs is the
    // median of the round medians, m.ciLowMs/ciHighMs the lowest and highest round median, m.p20Ms/p80Ms the
    // medians of the round p20s/p80s, and the rest are over the pooled unthrottled samples.
    Measurement m;
    std::vector<RoundSummary> rounds;  // empty in v1 files
    bool racedOut = false;         // left out of later rounds: clearly slower than the best after round 1
    int replica = 0;               // > 0: an identical repeat of the config in the same rounds (A/A plans)
    std::uint64_t bytes = 0;       // bytes read + written by one sample
    double gbps = 0;               // bytes / median
    double copyGbps = -1;          // the copy ceiling of the same shape, -1 when not known
    double fractionOfCopy = -1;    // gbps / copyGbps, -1 when not known
    // What was measured when it is not our l2norm: {"kernel": "triton", "name", "binary_sha256", "triton_version",
    // "folder", "metadata_sha256", "metadata"} (triton_binaries.hpp). Null for our own kernel.
    Json kernelSource;
    std::size_t line = 0;          // 1-based line in the file it came from
};

struct ResultError {
    ResultRecord::Kind kind = ResultRecord::Kind::L2Norm;
    int nb = 0;
    std::int64_t rows = 0;
    L2NormConfig config;
    int replica = 0;
    L2Regime l2 = L2Regime::Cold;  // the item's regime ("l2"; lines without it were never warm)
    std::string deviceBackend, deviceName;
    int deviceIndex = 0;
    std::string message;
    std::size_t line = 0;
};

struct ResultsFile {
    std::filesystem::path path;
    ResultsHeader header;
    std::vector<ResultRecord> records;
    std::vector<ResultError> errors;
    // Byte length of the complete, parsed lines. A kill mid-write leaves a partial last line after this.
    std::uint64_t validBytes = 0;
    bool truncatedTail = false;    // the last line was incomplete and was ignored
    std::size_t truncatedLine = 0; // its 1-based line number (0 when none)
    // What the reader ignored and flagged (docs/sweep.md, "Reading it"), one sentence each naming the file and the
    // line: every command that reads results prints these the same way.
    std::vector<std::string> warnings;
};

// The round medians of a record indexed by round (NaN for rounds it was not measured in), `roundCount` long at
// least. A v1 record is one round.
std::vector<double> roundMedians(const ResultRecord& record, int roundCount = 0);

// "NVIDIA H200|sm_90|580.95.05": what makes two devices the same for a decision (name, architecture, driver).
std::string deviceIdentity(const DeviceInfo& info);
// Whether two device lists hold the same identities; `why` names the first difference.
bool sameDeviceIdentities(const std::vector<DeviceInfo>& a, const std::vector<DeviceInfo>& b, std::string* why);

// The largest results file read (plain, or inflated from .gz within base/gz_io's limit): a full sweep with raw
// samples is a few MB (13 MB inflated for the largest in bench/results), so this is a mistake, not a sweep.
inline constexpr std::uintmax_t kMaxResultsFileBytes = 1ull << 30;

// The longest time a record may hold for one sample or statistic: no kernel launch takes an hour, and a bound keeps
// every ratio of two times finite.
inline constexpr double kMaxRecordTimeMs = 3.6e6;

// Reads a results file. A last line that is incomplete (no newline, or not valid JSON) is ignored and flagged (in
// `warnings`); any other bad line throws Error naming the file, "line N" and the JSON Pointer of the bad member.
// Every measurement and error line is checked against its header (docs/sweep.md, "Reading it"): its times
// (statistics, round summaries, raw samples) finite and in (0, kMaxRecordTimeMs], its counts non-negative, its
// device one of the header's devices, its shape one of the plan's shapes and its config one of the plan's grid or
// the plan's profile or baseline config for its NB, its replica one the plan has; no bytes after a line's JSON.
// Throws Error when the file is missing, a folder, empty, or its header is not a results header (or has no plan
// to check the records against).
ResultsFile loadResults(const std::filesystem::path& file);

// Stable identity of what a record measured, used for resume and duplicate detection:
// "l2norm/nb=1/rows=65536/bt=8/w=1/s=3/ctas=1" or "copy/nb=1/rows=65536".
// A/A replicas append "/rep=k" (k > 0); warm-L2 items append "/l2=warm" (a plan measures cold, or warm, or both, or
// hot alone, so cold and hot items never share a file and need no suffix: keys of older files stay as they were).
std::string recordKey(ResultRecord::Kind kind, int nb, std::int64_t rows, const L2NormConfig& config, int replica = 0,
                      L2Regime l2 = L2Regime::Cold);
inline std::string recordKey(const ResultRecord& r) { return recordKey(r.kind, r.nb, r.rows, r.config, r.replica, r.l2); }
inline std::string recordKey(const ResultError& e) { return recordKey(e.kind, e.nb, e.rows, e.config, e.replica, e.l2); }
std::string toString(ResultRecord::Kind kind);  // "l2norm", "copy"

// What one decision is about: a shape (NB, T) in one L2 regime. Records of different regimes never pair: a config's
// warm and cold times answer different questions (docs/sweep.md, "L2 regimes").
struct ShapeKey {
    int nb = 0;
    std::int64_t rows = 0;
    L2Regime l2 = L2Regime::Cold;
    friend auto operator<=>(const ShapeKey&, const ShapeKey&) = default;
};
inline ShapeKey shapeKeyOf(const ResultRecord& r) { return {r.nb, r.rows, r.l2}; }
// The usable l2norm records (some samples, a finite median) of each shape and regime, in file order.
std::map<ShapeKey, std::vector<const ResultRecord*>> l2normRecordsByShape(const ResultsFile& results);
// The regimes and timers the records of a file hold ("cold", "warm"; "cupti"), for messages and the refusals of
// decisions that would mix them.
std::set<L2Regime> regimesOf(const ResultsFile& results);
std::set<std::string> timersOf(const ResultsFile& results);

// JSON forms shared by the writer, the reader and other tools.
Json deviceInfoToJson(const DeviceInfo& info);
DeviceInfo deviceInfoFromJson(const Json& value, const std::string& file, const std::string& path);
Json configToJson(const L2NormConfig& config);  // {"BT": 8, "num_warps": 1, "num_stages": 3, "num_ctas": 1}
Json recordToJson(const ResultRecord& record);
Json errorToJson(const ResultError& error);
Json headerToJson(const ResultsHeader& header);

// Appends whole lines to a results file; thread-safe. Each line goes out in one write(2) on an O_APPEND
// descriptor, so a killed process leaves at most one partial last line, which loadResults() tolerates.
class ResultsWriter {
public:
    // Opens for appending, first cutting the file back to `validBytes` (a partial last line from a kill).
    ResultsWriter(const std::filesystem::path& file, std::uint64_t validBytes);
    // Creates a new file (replacing an empty or header-less one) and writes the header line.
    static ResultsWriter create(const std::filesystem::path& file, const ResultsHeader& header);
    ResultsWriter(ResultsWriter&& other) noexcept;
    ResultsWriter& operator=(ResultsWriter&&) = delete;
    ~ResultsWriter();

    void append(const Json& line);
    // Several lines in one write(2): a shape's records land together (a kill can still cut the block, and resume
    // then measures the shape again).
    void appendBlock(const std::vector<Json>& lines);

private:
    ResultsWriter() = default;
    std::filesystem::path file_;
    int fd_ = -1;
    std::mutex mutex_;
};

// Merging shard files (sweep --shard i/n) into one. Headers must carry the same format and plan hash.
struct MergeOptions {
    bool keepFirst = false;  // on a duplicate measurement keep the first and warn instead of refusing
    bool allowMixedDevices = false;  // join files measured on devices of another name, architecture or driver
};
struct MergeReport {
    std::size_t measurements = 0;
    std::size_t duplicatesDropped = 0;   // l2norm duplicates dropped under keepFirst
    std::size_t copyDuplicatesDropped = 0;  // copy ceilings measured by several shards: the first is kept
    std::size_t errorsKept = 0;          // error lines for things no input measured
    std::vector<std::string> warnings;
};
// The inputs do not belong together (different plans) or hold duplicates: a problem with the data, not with I/O.
class MergeConflict : public Error {
public:
    using Error::Error;
};
// Throws Error when an input cannot be read, MergeConflict when headers are incompatible (plan, or devices without
// allowMixedDevices) or (without keepFirst) a
// measurement appears twice. Writes `out` atomically; an existing `out` that is also an input is fine.
MergeReport mergeResults(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                         const MergeOptions& options = {});

}  // namespace tunescope
