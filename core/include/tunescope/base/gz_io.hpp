#pragma once
// Gzip-compressed inputs (sweeps and reports are archived as .jsonl.gz / .json.gz): readTextFile() hands every
// file that starts with the gzip magic bytes to gunzip(), so each reader opens both forms the same way.
#include <cstdint>
#include <string>
#include <string_view>

namespace tunescope {

// True when `bytes` begin with the gzip magic 1f 8b (JSON text never starts with 0x1f).
bool isGzip(std::string_view bytes);

// Inflates a whole gzip stream (several concatenated members too, as `cat a.gz b.gz` makes). Throws Error naming
// `fileName` when the data is corrupt or truncated, or when the output would exceed `maxBytes` (the limit applies
// to the decompressed text, so a small "bomb" cannot exhaust memory).
std::string gunzip(std::string_view compressed, std::uintmax_t maxBytes, const std::string& fileName);

}  // namespace tunescope
