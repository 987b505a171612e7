#pragma once
// One FLA_CONFIG_DIR from a capture and a choice of config per (kernel, key) (docs/fla-capture.md, "The C++
// side"): `{kernel_name}.json` per kernel, in the format FLA's fla/ops/utils/cache.py loads (the same documents as
// scripts/fla_capture.py's fla_config_documents), and beside them a manifest (tunescope-fla-config-dir-v1) with the
// SHA-256 of every file, the capture it came from and the capture's measuring device and stack.
//
// The choices are a small JSON file (tunescope-fla-choices-v1):
//   {"format": "tunescope-fla-choices-v1", "capture_digest": "<the capture's /digest/value>" (optional),
//    "choices": [{"kernel_name": "chunk_fwd_kernel_o", "key_hash": "c88a...", "config": 2,
//                 "best_timing": [p50, p20, p80] (optional, ms)}]}
// or FLA's own autotune choices recorded in the capture (capturedFlaChoices).
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"

namespace tunescope {

inline constexpr std::string_view kFlaChoicesFormat = "tunescope-fla-choices-v1";
inline constexpr std::string_view kFlaConfigDirFormat = "tunescope-fla-config-dir-v1";
inline constexpr std::string_view kFlaConfigDirManifestName = "tunescope-fla-config-dir.json";
// FlaChoices::source, and the manifest's /choices/source: a choices file, FLA's own autotune in the capture, or a
// folder whose entries were changed by hand in the GUI's FLA_CONFIG_DIR editor.
inline constexpr std::string_view kFlaChoicesScripted = "scripted";
inline constexpr std::string_view kFlaChoicesCaptured = "captured";
inline constexpr std::string_view kFlaChoicesEdited = "edited";

struct FlaChoice {
    std::string kernel_name, key_hash;
    std::size_t config = 0;
    Json best_timing;     // [p50, p20, p80] ms, or null
    std::string pointer;  // where the choice is in its file ("/choices/3"); empty for captured choices
};

struct FlaChoices {
    std::string fileName;  // empty for captured choices
    std::string source;    // "scripted" (a choices file), "captured" (FLA's own autotune in the capture) or
                           // "edited" (a folder's entries changed by hand in the GUI)
    std::string sha256;    // of the choices file's bytes; empty for captured choices
    std::string capture_digest;  // optional in a file
    std::vector<FlaChoice> choices;
};

// A choices file; throws Error(file, pointer, message) for a malformed one (unknown members, wrong types).
FlaChoices readFlaChoices(const std::filesystem::path& file);
FlaChoices parseFlaChoices(const Json& document, const std::string& fileName);

// FLA's own choice per (kernel, key): the first launch of the key whose chosen config is known, with Triton's
// timing of it when the launch benchmarked (the rule of scripts/fla_capture.py's fla_config_documents).
FlaChoices capturedFlaChoices(const FlaCapture& capture);

// The config indices of the kernel that may be chosen for the key: those with a compiled binary for every launch of
// the key (the rule checkFlaChoices enforces, through the same helper). Empty for a kernel or key the capture lacks.
std::vector<std::size_t> exportableFlaConfigs(const FlaCapture& capture, const std::string& kernelName,
                                              const std::string& keyHash);

// Throws Error(choices file, pointer into it, message) for a choice that names a kernel or key the capture does not
// have, a config index outside the kernel's list, a config without a compiled binary for every launch of its key,
// the same (kernel, key) twice, or a capture_digest that is not this capture's.
void checkFlaChoices(const FlaCapture& capture, const FlaChoices& choices);

// {kernel_name: FLA config file} for the choices (kernels without a choice get no file), each document as FLA's
// cache.py reads it: kernel_name, triton_version, default_config (the first entry's in hash order), and
// autotune_entries keyed by key_hash in hash order, each {autotune_key, config, best_timing}.
std::map<std::string, Json> flaConfigDocuments(const FlaCapture& capture, const FlaChoices& choices);

struct FlaConfigDirFile {
    std::string kernel_name;
    std::filesystem::path path;
    std::string sha256;
    std::size_t bytes = 0, entries = 0;
};

struct FlaConfigDirExport {
    std::vector<FlaConfigDirFile> files;  // in the capture's kernel order
    std::filesystem::path manifestFile;
    Json manifest;
    std::vector<std::pair<std::string, std::string>> withoutChoice;  // (kernel, key_hash) FLA would autotune
};

// Checks the choices (checkFlaChoices; a source other than scripted, captured or edited is refused), then writes
// every kernel's file (json.dump(indent=2) bytes and a newline, as scripts/fla_capture.py writes them) and the
// manifest into `dir` (created), each atomically. The manifest names the choices file (and its SHA-256) only for
// scripted choices; captured and edited ones have null there.
FlaConfigDirExport exportFlaConfigDir(const FlaCapture& capture, const FlaChoices& choices,
                                      const std::filesystem::path& dir);

}  // namespace tunescope
