#include "tunescope/device/triton_binaries.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <random>
#include <map>
#include <regex>
#include <tuple>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/base/json_io.hpp"
#include "tunescope/device/l2norm_contract.hpp"
#include "tunescope/device/l2norm_cpu.hpp"

namespace fs = std::filesystem;

namespace tunescope {
namespace {

// The parameters of FLA v0.5.2's l2norm_fwd_kernel for bf16 in and out, as Triton's TTIR spells them. The launch
// (kernels/*/triton_module_*) passes exactly these, then Triton 3.6's global_scratch and profile_scratch pointers.
const std::vector<std::pair<std::string, std::string>> kL2NormArguments = {
    {"x", "!tt.ptr<bf16>"}, {"y", "!tt.ptr<bf16>"}, {"rstd", "!tt.ptr<f32>"}, {"eps", "f32"}, {"T", "i32"}};

// Binaries are a few hundred KiB; a cache file over this is not a kernel.
constexpr std::uintmax_t kMaxBinaryBytes = 64ull << 20;

std::string versionFamily(const std::string& version) {
    const auto first = version.find('.');
    if (first == std::string::npos) return version;
    const auto second = version.find('.', first + 1);
    return version.substr(0, second);
}

template <typename T>
T required(const Json& object, const char* key, const std::string& file) {
    const auto it = object.find(key);
    if (it == object.end()) throw Error(file, jsonPointerAppend("", key), "missing (Triton's metadata always has it)");
    try {
        return it->get<T>();
    } catch (const std::exception&) {
        throw Error(file, jsonPointerAppend("", key), "has the wrong type (" + jsonTypeName(*it) + ")");
    }
}

std::uint64_t optionalUnsigned(const Json& object, const char* key, std::uint64_t fallback, const std::string& file) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return fallback;
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0)) {
        throw Error(file, jsonPointerAppend("", key), "must be a non-negative integer (got " + jsonTypeName(*it) + ")");
    }
    return it->get<std::uint64_t>();
}

// The signature line of the TTIR: "tt.func public @name(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32} loc(..), ...)".
std::vector<TritonArgument> parseSignature(const std::string& ttir, std::string_view kernel, const std::string& file) {
    const std::string head = "tt.func public @" + std::string(kernel) + "(";
    const auto start = ttir.find(head);
    if (start == std::string::npos) throw Error(file, "", "no 'tt.func public @" + std::string(kernel) + "' in the TTIR");
    const auto end = ttir.find('\n', start);
    const std::string line = ttir.substr(start + head.size(), end == std::string::npos ? std::string::npos : end - start - head.size());
    static const std::regex argument(R"(%([A-Za-z_][A-Za-z0-9_]*): ([^ ,{)]+(?:<[^>]*>)?)( \{tt\.divisibility = (\d+) : i32\})?)");
    std::vector<TritonArgument> arguments;
    // The argument list ends at the ") attributes" or ") {" that closes the signature.
    const auto close = line.find(") attributes");
    const std::string list = line.substr(0, close == std::string::npos ? line.find(") {") : close);
    for (auto it = std::sregex_iterator(list.begin(), list.end(), argument); it != std::sregex_iterator(); ++it) {
        TritonArgument a;
        a.name = (*it)[1];
        a.type = (*it)[2];
        if ((*it)[4].matched) a.divisibility = std::stoi((*it)[4]);
        arguments.push_back(std::move(a));
    }
    if (arguments.empty()) throw Error(file, "", "cannot read the argument list of @" + std::string(kernel));
    return arguments;
}

// BT and BD from the TTIR's aranges: "%o_t... = tt.make_range {end = BT" and "%o_d... = tt.make_range {end = BD".
std::optional<int> makeRangeEnd(const std::string& ttir, const std::string& variable) {
    const std::regex pattern("%" + variable + R"((_[0-9]+)? = tt\.make_range \{end = ([0-9]+) : i32, start = 0 : i32\})");
    std::smatch match;
    if (!std::regex_search(ttir, match, pattern)) return std::nullopt;
    return std::stoi(match[2]);
}

void checkArguments(const std::vector<TritonArgument>& arguments, const std::string& file) {
    std::string expected, got;
    for (const auto& [name, type] : kL2NormArguments) expected += (expected.empty() ? "" : ", ") + name + ": " + type;
    for (const TritonArgument& a : arguments) got += (got.empty() ? "" : ", ") + a.name + ": " + a.type;
    if (got != expected) {
        throw Error(file, "", "argument list (" + got + ") is not l2norm_fwd_kernel's for bf16 in and out (" + expected +
                                  "): this launcher passes only that one");
    }
    for (const TritonArgument& a : arguments) {
        // Device buffers are 256-byte aligned, so any divisibility Triton assumed up to that holds.
        if (a.type.rfind("!tt.ptr", 0) == 0 && a.divisibility > 256) {
            throw Error(file, "", "argument " + a.name + " assumes " + std::to_string(a.divisibility) +
                                      "-byte alignment, over the 256 bytes device allocations give");
        }
    }
}

struct IndexEntry {
    std::string folder;
    std::optional<int> blockRows, headDim, blockD, nb;
    std::string binarySha256;
};

struct Index {
    std::map<std::string, IndexEntry> byHash;
    std::optional<std::string> tritonVersion, flaVersion, flaSourceSha256;
};

std::optional<int> optionalInt(const Json& object, const char* key, const std::string& file, const std::string& at) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer()) throw Error(file, jsonPointerAppend(at, key), "must be an integer");
    return it->get<int>();
}

std::optional<Index> readIndex(const fs::path& dir, std::string_view kernel) {
    const fs::path file = dir / kTritonIndexFileName;
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    const std::string name = file.string();
    const Json root = readJsonFile(file);
    if (!root.is_object()) throw Error(name, "", "must be a JSON object");
    if (root.value("format", std::string()) != kTritonIndexFormat) {
        throw Error(name, "/format", "must be \"" + std::string(kTritonIndexFormat) + "\"");
    }
    Index index;
    if (root.value("kernel", std::string()) != kernel) return index;  // another kernel's index: nothing for us
    if (root.contains("triton_version") && root["triton_version"].is_string()) index.tritonVersion = root["triton_version"];
    if (root.contains("fla_version") && root["fla_version"].is_string()) index.flaVersion = root["fla_version"];
    if (root.contains("fla_l2norm_source_sha256") && root["fla_l2norm_source_sha256"].is_string()) {
        index.flaSourceSha256 = root["fla_l2norm_source_sha256"];
    }
    const auto variants = root.find("variants");
    if (variants == root.end() || !variants->is_array()) throw Error(name, "/variants", "must be an array");
    for (std::size_t i = 0; i < variants->size(); ++i) {
        const Json& v = (*variants)[i];
        const std::string at = jsonPointerAppend("/variants", i);
        if (!v.is_object() || !v.contains("hash") || !v["hash"].is_string()) {
            throw Error(name, at, "must be an object with a string \"hash\"");
        }
        IndexEntry entry;
        entry.folder = v.value("folder", std::string());
        if (v.contains("constexprs")) {
            const Json& c = v["constexprs"];
            if (!c.is_object()) throw Error(name, at + "/constexprs", "must be an object");
            entry.blockRows = optionalInt(c, "BT", name, at + "/constexprs");
            entry.headDim = optionalInt(c, "D", name, at + "/constexprs");
            entry.blockD = optionalInt(c, "BD", name, at + "/constexprs");
            entry.nb = optionalInt(c, "NB", name, at + "/constexprs");
        }
        entry.binarySha256 = v.value("binary_sha256", std::string());
        index.byHash[v["hash"].get<std::string>()] = std::move(entry);
    }
    return index;
}

TritonVariant readVariant(const fs::path& folder, std::string_view kernel, const Index* index) {
    TritonVariant variant;
    variant.folder = folder;
    const fs::path metadataFile = folder / (std::string(kernel) + ".json");
    const std::string file = metadataFile.string();
    variant.metadataText = readTextFile(metadataFile);
    variant.metadataSha256 = sha256Hex(variant.metadataText);
    const Json metadata = parseJson(variant.metadataText, file);
    if (!metadata.is_object()) throw Error(file, "", "must be a JSON object (Triton's kernel metadata)");
    variant.kernelName = required<std::string>(metadata, "name", file);
    if (variant.kernelName != kernel) {
        throw Error(file, "/name", "names kernel '" + variant.kernelName + "', not '" + std::string(kernel) + "'");
    }
    variant.hash = required<std::string>(metadata, "hash", file);
    variant.tritonVersion = required<std::string>(metadata, "triton_version", file);
    const std::vector<std::string> known = knownTritonVersions();
    if (std::find(known.begin(), known.end(), versionFamily(variant.tritonVersion)) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k + ".x";
        throw Error(file, "/triton_version",
                    "Triton " + variant.tritonVersion + " is not a version whose launch parameters this build knows (" +
                        list + "): its kernels may take other scratch arguments, so they are not launched");
    }
    const Json target = required<Json>(metadata, "target", file);
    if (!target.is_object()) throw Error(file, "/target", "must be an object");
    variant.targetBackend = required<std::string>(target, "backend", file + " (target)");
    variant.warpSize = required<int>(target, "warp_size", file + " (target)");
    const Json& arch = target["arch"];
    if (variant.targetBackend == "cuda" && arch.is_number_integer()) {
        variant.targetArch = "sm_" + std::to_string(arch.get<int>());
    } else if (variant.targetBackend == "hip" && arch.is_string()) {
        variant.targetArch = arch.get<std::string>();
    } else {
        throw Error(file, "/target", "backend '" + variant.targetBackend + "' with arch " + arch.dump() +
                                         " is not a CUDA (integer arch) or HIP (gfx name) target");
    }
    variant.numWarps = required<int>(metadata, "num_warps", file);
    variant.numStages = required<int>(metadata, "num_stages", file);
    variant.numCtas = required<int>(metadata, "num_ctas", file);
    const std::uint64_t shared = optionalUnsigned(metadata, "shared", 0, file);
    if (shared > 0xffffffffull) throw Error(file, "/shared", "is over 4 GiB");
    variant.sharedBytes = std::uint32_t(shared);
    variant.globalScratchBytes = optionalUnsigned(metadata, "global_scratch_size", 0, file);
    variant.globalScratchAlign = optionalUnsigned(metadata, "global_scratch_align", 1, file);
    variant.profileScratchBytes = optionalUnsigned(metadata, "profile_scratch_size", 0, file);
    variant.profileScratchAlign = optionalUnsigned(metadata, "profile_scratch_align", 1, file);
    if (metadata.value("launch_cooperative_grid", false) || metadata.value("launch_pdl", false)) {
        throw Error(file, "", "asks for a cooperative or programmatic-dependent launch, which this launcher does not do");
    }

    // The argument list and, without an index, BT/BD: from the .source (the TTIR the JIT generated), else .ttir.
    fs::path ttirFile = folder / (std::string(kernel) + ".source");
    std::error_code ec;
    if (!fs::exists(ttirFile, ec)) ttirFile = folder / (std::string(kernel) + ".ttir");
    const std::string ttir = readTextFile(ttirFile);
    variant.arguments = parseSignature(ttir, kernel, ttirFile.string());
    checkArguments(variant.arguments, ttirFile.string());

    const std::string extension = variant.targetBackend == "cuda" ? ".cubin" : ".hsaco";
    variant.binaryPath = folder / (std::string(kernel) + extension);
    if (!fs::is_regular_file(variant.binaryPath, ec)) {
        throw Error(variant.binaryPath.string(), "", "missing: the metadata " + file + " is for a " +
                                                         variant.targetBackend + " binary, which is not in the folder");
    }
    variant.binarySha256 = sha256Hex(readTextFile(variant.binaryPath, kMaxBinaryBytes));

    const IndexEntry* entry = nullptr;
    if (index) {
        const auto it = index->byHash.find(variant.hash);
        if (it != index->byHash.end()) entry = &it->second;
    }
    if (entry) {
        variant.blockRows = entry->blockRows;
        variant.headDim = entry->headDim;
        variant.blockD = entry->blockD;
        variant.nb = entry->nb;
        variant.constexprSource = "index";
        if (!entry->binarySha256.empty() && entry->binarySha256 != variant.binarySha256) {
            throw Error(variant.binaryPath.string(), "",
                        "SHA-256 " + variant.binarySha256 + " differs from the " + std::string(kTritonIndexFileName) +
                            " record " + entry->binarySha256 + ": the binary changed after the cache was filled");
        }
    } else {
        variant.constexprSource = ttirFile.filename().string();
    }
    // The TTIR says BT and BD itself; it must agree with the index.
    const std::optional<int> ttirBlockRows = makeRangeEnd(ttir, "o_t"), ttirBlockD = makeRangeEnd(ttir, "o_d");
    if (!variant.blockRows) variant.blockRows = ttirBlockRows;
    if (!variant.blockD) variant.blockD = ttirBlockD;
    if (ttirBlockRows && variant.blockRows != ttirBlockRows) {
        throw Error(ttirFile.string(), "", "BT is " + std::to_string(*ttirBlockRows) + " in the TTIR but " +
                                               std::to_string(*variant.blockRows) + " in the index");
    }
    if (!variant.blockRows) {
        throw Error(ttirFile.string(), "", "BT cannot be read (no 'tt.make_range' of o_t) and no index records it");
    }
    if (variant.blockD && *variant.blockD != kL2NormHeadDim) {
        throw Error(ttirFile.string(), "", "BD is " + std::to_string(*variant.blockD) + ", not " +
                                               std::to_string(kL2NormHeadDim) + " (only D = 128 is launched)");
    }
    return variant;
}

}  // namespace

std::string TritonVariant::describe() const {
    return "BT=" + (blockRows ? std::to_string(*blockRows) : std::string("?")) + " num_warps=" +
           std::to_string(numWarps) + " num_stages=" + std::to_string(numStages) +
           (numCtas != 1 ? " num_ctas=" + std::to_string(numCtas) : std::string()) + " NB=" +
           (nb ? std::to_string(*nb) : std::string("?"));
}

L2NormConfig TritonVariant::config() const {
    L2NormConfig c;
    c.blockRows = blockRows.value_or(0);
    c.numWarps = numWarps;
    c.numStages = numStages;
    c.numCtas = numCtas;
    return c;
}

fs::path defaultTritonCacheDir() {
    if (const char* dir = std::getenv("TRITON_CACHE_DIR"); dir && *dir) return dir;
    if (const char* home = std::getenv("TRITON_HOME"); home && *home) return fs::path(home) / ".triton" / "cache";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".triton" / "cache";
    return fs::path(".triton") / "cache";
}

std::vector<std::string> knownTritonVersions() { return {"3.6"}; }

TritonVariant readTritonVariant(const fs::path& folder, std::string_view kernel) {
    const std::optional<Index> index = readIndex(folder.parent_path(), kernel);
    return readVariant(folder, kernel, index ? &*index : nullptr);
}

TritonCacheScan scanTritonCache(const fs::path& dir, std::string_view kernel) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir.string(), "", "is not a folder (a Triton cache: TRITON_CACHE_DIR)");
    TritonCacheScan scan;
    scan.dir = dir;
    const std::optional<Index> index = readIndex(dir, kernel);
    if (index) {
        scan.indexFlaVersion = index->flaVersion;
        scan.indexFlaSourceSha256 = index->flaSourceSha256;
    }
    std::vector<fs::path> folders;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_directory(ec)) folders.push_back(entry.path());
    }
    if (ec) throw Error(dir.string(), "", "cannot list the folder: " + ec.message());
    std::sort(folders.begin(), folders.end());
    for (const fs::path& folder : folders) {
        if (!fs::exists(folder / (std::string(kernel) + ".json"), ec)) continue;  // another kernel, or Triton's utils
        scan.variants.push_back(readVariant(folder, kernel, index ? &*index : nullptr));
    }
    if (index) {
        for (const auto& [hash, entry] : index->byHash) {
            const bool found = std::any_of(scan.variants.begin(), scan.variants.end(),
                                           [&hash = hash](const TritonVariant& v) { return v.hash == hash; });
            if (!found) {
                throw Error((dir / kTritonIndexFileName).string(), "",
                            "lists variant " + hash + " (folder " + entry.folder + "), which has no " +
                                std::string(kernel) + ".json in the cache: the cache is incomplete");
            }
        }
    }
    if (scan.variants.empty()) {
        throw Error(dir.string(), "", "holds no compiled " + std::string(kernel) +
                                          " (no <hash>/" + std::string(kernel) +
                                          ".json): fill it with scripts/fill_triton_cache.py");
    }
    std::sort(scan.variants.begin(), scan.variants.end(), [](const TritonVariant& a, const TritonVariant& b) {
        return std::tuple(a.blockRows, a.numWarps, a.numStages, a.nb, a.folder) <
               std::tuple(b.blockRows, b.numWarps, b.numStages, b.nb, b.folder);
    });
    for (const TritonVariant& v : scan.variants) {
        if (!v.nb) {
            scan.notes.push_back(v.folder.filename().string() + ": " + v.describe() +
                                 ": NB not recorded (no index entry; NB is not visible in the binary)");
        }
    }
    return scan;
}

std::string tritonTargetMismatch(const TritonVariant& variant, const DeviceInfo& device) {
    const std::string binaryKind = variant.targetBackend == "cuda" ? "a CUDA cubin" : "a HIP hsaco";
    if (variant.targetBackend != device.backend) {
        return variant.binaryPath.string() + " is " + binaryKind + ", and device " + std::to_string(device.index) +
               " is a " + device.backend + " device";
    }
    if (variant.targetArch != device.architecture) {
        return variant.binaryPath.string() + " was built for " + variant.targetArch + ", and " + device.name +
               " is " + device.architecture;
    }
    if (device.warpSize != 0 && variant.warpSize != device.warpSize) {
        return variant.binaryPath.string() + " was built for " + std::to_string(variant.warpSize) +
               "-lane warps, and " + device.name + " has " + std::to_string(device.warpSize);
    }
    return {};
}

const TritonVariant* findTritonVariant(const TritonCacheScan& scan, const L2NormConfig& config, int nb) {
    const TritonVariant* unrecorded = nullptr;
    int unrecordedCount = 0;
    for (const TritonVariant& v : scan.variants) {
        if (v.config() != config) continue;
        if (v.nb && *v.nb == nb) return &v;
        if (!v.nb) {
            unrecorded = &v;
            ++unrecordedCount;
        }
    }
    return unrecordedCount == 1 ? unrecorded : nullptr;
}

const TritonVariant& requireTritonVariant(const TritonCacheScan& scan, const L2NormConfig& config, int nb) {
    if (const TritonVariant* v = findTritonVariant(scan, config, nb)) return *v;
    throw Error(scan.dir.string(), "",
                "the Triton cache has no unambiguous l2norm_fwd_kernel binary for BT=" + std::to_string(config.blockRows) +
                    " num_warps=" + std::to_string(config.numWarps) + " num_stages=" +
                    std::to_string(config.numStages) + " NB=" + std::to_string(nb) +
                    ": fill it with scripts/fill_triton_cache.py for that NB and config");
}

Json tritonKernelSourceJson(const TritonVariant& variant) {
    Json j = Json::object();
    j["kernel"] = "triton";
    j["name"] = variant.kernelName;
    j["binary_sha256"] = variant.binarySha256;
    j["triton_version"] = variant.tritonVersion;
    j["target"] = variant.targetArch;
    j["folder"] = variant.folder.filename().string();
    j["metadata_sha256"] = variant.metadataSha256;
    j["metadata"] = parseJson(variant.metadataText, (variant.folder / (variant.kernelName + ".json")).string());
    return j;
}

TritonKernelBinary loadTritonBinary(const TritonVariant& variant) {
    const std::string bytes = readTextFile(variant.binaryPath, kMaxBinaryBytes);
    if (sha256Hex(bytes) != variant.binarySha256) {
        throw Error(variant.binaryPath.string(), "", "changed since the cache was scanned (SHA-256 differs)");
    }
    TritonKernelBinary binary;
    binary.label = variant.binaryPath.string();
    binary.kernelName = variant.kernelName;
    binary.tritonVersion = variant.tritonVersion;
    binary.targetBackend = variant.targetBackend;
    binary.targetArch = variant.targetArch;
    binary.warpSize = variant.warpSize;
    binary.image.assign(bytes.begin(), bytes.end());
    binary.blockRows = variant.blockRows.value_or(0);
    binary.numWarps = variant.numWarps;
    binary.numCtas = variant.numCtas;
    binary.sharedBytes = variant.sharedBytes;
    binary.globalScratchBytes = variant.globalScratchBytes;
    binary.globalScratchAlign = variant.globalScratchAlign;
    binary.profileScratchBytes = variant.profileScratchBytes;
    binary.profileScratchAlign = variant.profileScratchAlign;
    return binary;
}

L2NormSelftestSummary runTritonSelftest(
    Device& device, const TritonCacheScan& scan, const L2NormSelftestOptions& options,
    const std::function<void(const TritonVariant&, const L2NormSelftestCase&)>& onCase) {
    L2NormSelftestSummary summary = startL2NormSelftest(options);
    for (const TritonVariant& variant : scan.variants) {
        const std::string mismatch = tritonTargetMismatch(variant, device.info());
        if (!mismatch.empty()) {
            summary.configsSkipped.push_back(variant.describe() + ": " + mismatch);
            continue;
        }
        ++summary.configsRun;
        const TritonKernelBinary binary = loadTritonBinary(variant);
        const auto run = [&](std::span<const std::uint16_t> x, std::span<std::uint16_t> y, std::span<float> rstd) {
            device.runTritonL2Norm(binary, x, y, rstd, options.eps);
        };
        runL2NormSelftestCases(variant.config(), *variant.blockRows, run, options, summary,
                               [&](const L2NormSelftestCase& result) {
                                   if (onCase) onCase(variant, result);
                               });
    }
    return summary;
}

}  // namespace tunescope
