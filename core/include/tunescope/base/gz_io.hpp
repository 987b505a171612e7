#pragma once
// Gzip-compressed inputs (sweeps and reports are archived as .jsonl.gz / .json.gz): readTextFile() hands every
// file that starts with the gzip magic bytes to gunzip(), so each reader opens both forms the same way.
#include <cstdint>
#include <string>
#include <string_view>

namespace tunescope {

// True when `bytes` begin with the gzip magic 1f 8b (JSON text never starts with 0x1f).
bool isGzip(std::string_view bytes);

// The most bytes one gzip input may inflate to, whatever kind of file it holds: 128 MiB by default, ten times the
// largest measured sweep (13 MB inflated, bench/results), so that a small "bomb" (300 KB inflating to 300 MB) is
// refused after inflating 128 MiB (under a second) instead of filling memory. A reader's own limit (64 MiB for JSON
// documents, 1 GiB for results files) applies when it is lower. tunescope-cli --max-inflated-mib N sets it.
inline constexpr std::uintmax_t kDefaultMaxInflatedBytes = 128ull << 20;
std::uintmax_t maxInflatedBytes();
void setMaxInflatedBytes(std::uintmax_t bytes);  // for the whole process (thread-safe)

// Inflates a whole gzip stream (several concatenated members too, as `cat a.gz b.gz` makes). Throws Error naming
// `fileName` when the data is corrupt or truncated, or when the output would exceed `maxBytes` (the limit applies
// to the decompressed text, so a small "bomb" cannot exhaust memory); `limitName` says in that message which limit
// it is and how to raise it.
std::string gunzip(std::string_view compressed, std::uintmax_t maxBytes, const std::string& fileName,
                   const std::string& limitName = "the limit for this kind of file");

}  // namespace tunescope
