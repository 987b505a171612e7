#include "tunescope/formats/triton_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <system_error>

#include "interop_internal.hpp"
#include "profile_internal.hpp"
#include "tunescope/base/hashing.hpp"
#include "tunescope/formats/validation.hpp"

namespace tunescope {

namespace fs = std::filesystem;
using detail::ModelReader;
using detail::Need;

const TritonTimedConfig* TritonAutotuneCache::best() const {
    const TritonTimedConfig* best = nullptr;
    for (const auto& candidate : configsTimings) {
        if (candidate.timings.empty()) continue;
        // Python's min() over lists: lexicographic, the first of equal ones stays.
        if (!best || std::lexicographical_compare(candidate.timings.begin(), candidate.timings.end(),
                                                  best->timings.begin(), best->timings.end()))
            best = &candidate;
    }
    if (best && std::all_of(best->timings.begin(), best->timings.end(), [](double t) { return std::isinf(t); }))
        return nullptr;
    return best;
}

TritonAutotuneCache parseTritonAutotuneCache(std::string_view text, const std::string& fileName) {
    JsonReadOptions options;
    options.allowNonFiniteTokens = true;
    options.rejectDuplicateKeys = true;
    const Json doc = parseJson(text, fileName, options);
    ModelReader r(fileName, /*collect=*/false);
    TritonAutotuneCache cache;
    cache.file = fileName;
    cache.sha256 = sha256Hex(text);
    r.isObject(doc, "");
    if (const Json* key = r.array(doc, "", "key")) {
        cache.key = *key;
        for (std::size_t i = 0; i < key->size(); ++i)
            if (!(*key)[i].is_number() && !(*key)[i].is_string())
                r.fail(jsonPointerAppend("/key", i), "a key item must be a number or a string, got " +
                                                         ModelReader::describe((*key)[i]));
        cache.parsedKey = AutotuneKey::fromJson(*key);
    }
    if (const Json* list = r.array(doc, "", "configs_timings")) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string at = jsonPointerAppend("/configs_timings", i);
            const Json& pair = (*list)[i];
            if (!pair.is_array() || pair.size() != 2) {
                r.fail(at, "expected [config, timings], got " + ModelReader::describe(pair));
                continue;
            }
            TritonTimedConfig entry;
            entry.config = detail::readTritonConfig(pair[0], at + "/0", r);
            const Json& timings = pair[1];
            const std::string timingsAt = at + "/1";
            auto timing = [&](const Json& value, const std::string& path) {
                if (!value.is_number()) {
                    r.fail(path, "a timing must be a number (milliseconds) or Infinity, got " + ModelReader::describe(value));
                    return;
                }
                const double ms = value.get<double>();
                // Triton writes Infinity for a config that failed. A NaN (or 0, or negative) timing is no time: with
                // NaN, Triton's own min() over the timings depends on their order, so which config it chose cannot
                // be told (issue 25).
                if (!isValidTimingMs(ms, true)) {
                    r.fail(path, "a timing " + timingRuleText(ms, true));
                    return;
                }
                entry.timings.push_back(ms);
            };
            if (timings.is_array()) {
                if (timings.empty()) r.fail(timingsAt, "no timings");
                for (std::size_t j = 0; j < timings.size(); ++j) timing(timings[j], jsonPointerAppend(timingsAt, j));
            } else {
                timing(timings, timingsAt);  // a single number (no quantiles)
            }
            cache.configsTimings.push_back(std::move(entry));
        }
    }
    return cache;
}

TritonAutotuneCache loadTritonAutotuneCache(const fs::path& file) {
    return parseTritonAutotuneCache(readTextFile(file), file.string());
}

std::vector<fs::path> findTritonAutotuneFiles(const fs::path& folder, std::string_view kernel) {
    const std::string wanted = std::string(kernel) + ".autotune.json";
    std::vector<fs::path> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw Error(folder.string(), "", "cannot list the folder: " + ec.message());
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec) throw Error(folder.string(), "", "cannot list the folder: " + ec.message());
        std::error_code typeError;
        if (it->path().filename() == wanted && it->is_regular_file(typeError)) found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::vector<TritonAutotuneCache> loadTritonAutotuneCaches(const fs::path& fileOrFolder, std::string_view kernel) {
    std::error_code ec;
    const auto status = fs::status(fileOrFolder, ec);
    if (ec || !fs::exists(status)) throw Error(fileOrFolder.string(), "", "file or folder not found");
    std::vector<TritonAutotuneCache> caches;
    if (fs::is_directory(status)) {
        const auto files = findTritonAutotuneFiles(fileOrFolder, kernel);
        if (files.empty())
            throw Error(fileOrFolder.string(), "",
                        "no " + std::string(kernel) + ".autotune.json below this folder (is it TRITON_CACHE_DIR, "
                        "and did the run use cache_results / TRITON_CACHE_AUTOTUNING=1?)");
        for (const auto& file : files) caches.push_back(loadTritonAutotuneCache(file));
    } else {
        caches.push_back(loadTritonAutotuneCache(fileOrFolder));
    }
    return caches;
}

namespace detail {

Profile newProfileFor(const AutotuneKey& key, const NewProfileOptions& o) {
    if (o.keyHeads < 1 || o.batchSizeMin < 1 || o.batchSizeMax < o.batchSizeMin || o.paddedTokensMax < 1)
        throw Error("", "", "the new profile's limits must satisfy key heads >= 1, 1 <= batch min <= batch max and "
                            "padded tokens max >= 1 (got key heads " + std::to_string(o.keyHeads) + ", batch " +
                            std::to_string(o.batchSizeMin) + ".." + std::to_string(o.batchSizeMax) +
                            ", padded tokens max " + std::to_string(o.paddedTokensMax) + ")");
    auto plain = [](const std::string& dtype) { return dtype.rfind("torch.", 0) == 0 ? dtype.substr(6) : dtype; };
    Supported s;
    s.head_dimension = key.headDimension;
    s.key_heads = o.keyHeads;
    s.body_dtype = plain(key.bodyDtype);
    s.output_dtype = plain(key.outputDtype);
    s.rstd_dtype = plain(key.rstdDtype);
    s.batch_size_min = o.batchSizeMin;
    s.batch_size_max = o.batchSizeMax;
    s.padded_tokens_max = o.paddedTokensMax;
    const auto nbMax = s.expectedNbMax();
    if (!nbMax) throw Error("", "", "batch max * padded tokens max * key heads overflows 64 bits");
    s.NB_min = s.nbFor(o.batchSizeMin, 1).value_or(1);
    s.NB_max = *nbMax;
    s.NB_formula = s.expectedNbFormula();
    RuntimeVersions v;
    v.torch = o.torch;
    v.hip = o.hip;
    v.cuda = o.cuda;
    v.triton = o.triton;
    v.fla = o.fla;
    v.gpu_arch = o.gpuArch;
    Profile p = makeProfile(s, v);
    p.target = o.target;
    p.compiled_binaries_included = false;
    p.private_paths_included = false;
    return p;
}

bool keyFitsProfile(const Profile& profile, const AutotuneKey& key, std::string& why) {
    const Supported& s = profile.supported;
    const AutotuneKey expected = s.keyFor(key.NB);
    if (key.headDimension != expected.headDimension || key.bodyDtype != expected.bodyDtype ||
        key.outputDtype != expected.outputDtype || key.rstdDtype != expected.rstdDtype) {
        why = "key " + key.toJson().dump() + " is not this profile's shape " + expected.toJson().dump();
        return false;
    }
    if (key.NB < s.NB_min || key.NB > s.NB_max) {
        why = "NB " + std::to_string(key.NB) + " is outside the profile's NB " + std::to_string(s.NB_min) + ".." +
              std::to_string(s.NB_max);
        return false;
    }
    return true;
}

void fillPolicyGaps(Profile& profile, const std::string& origin, ImportSummary* summary) {
    if (profile.per_NB_policy.empty()) return;
    const PolicyEntry largest = *std::max_element(profile.per_NB_policy.begin(), profile.per_NB_policy.end(),
                                                  [](const PolicyEntry& a, const PolicyEntry& b) { return a.NB < b.NB; });
    const std::string basis = "prospective-fixed-" + origin + "-NB" + std::to_string(largest.NB) + "-setting";
    const Supported& s = profile.supported;
    // A real profile has tens of buckets; a range of millions comes from a typo in --batch-max or the like.
    constexpr std::int64_t kMaxBuckets = 100000;
    if (s.NB_max - s.NB_min >= kMaxBuckets)
        throw Error(profile.fileName, "/supported/NB_max",
                    "NB_min..NB_max = " + std::to_string(s.NB_min) + ".." + std::to_string(s.NB_max) + " is more than " +
                        std::to_string(kMaxBuckets) + " buckets; check the batch and token limits");
    std::set<std::int64_t> present;
    for (const auto& e : profile.per_NB_policy) present.insert(e.NB);
    std::vector<PolicyEntry> merged;
    std::size_t filled = 0;
    for (std::int64_t nb = s.NB_min; nb <= s.NB_max; ++nb) {
        if (present.count(nb)) continue;
        PolicyEntry entry;
        entry.NB = nb;
        entry.basis = basis;
        entry.config = largest.config;
        merged.push_back(std::move(entry));
        ++filled;
    }
    merged.insert(merged.end(), profile.per_NB_policy.begin(), profile.per_NB_policy.end());
    std::stable_sort(merged.begin(), merged.end(), [](const PolicyEntry& a, const PolicyEntry& b) { return a.NB < b.NB; });
    profile.per_NB_policy = std::move(merged);
    if (filled > 0) {
        profile.unseen_NB_claim =
            "Deterministic prospective settings (the NB" + std::to_string(largest.NB) +
            " config), not proof of matching an undefined prior autotune choice. No speed claim.";
        if (summary) {
            summary->policySet += filled;
            summary->messages.push_back("filled " + std::to_string(filled) + " NB without a source with the NB" +
                                        std::to_string(largest.NB) + " config (basis " + basis + ")");
        }
    }
}

}  // namespace detail

ImportSummary importTritonCaches(Profile& profile, const std::vector<TritonAutotuneCache>& caches) {
    ImportSummary summary;
    // NB order, then path order: deterministic whatever order the folder listed them in.
    std::vector<const TritonAutotuneCache*> ordered;
    for (const auto& c : caches) ordered.push_back(&c);
    std::stable_sort(ordered.begin(), ordered.end(), [](const TritonAutotuneCache* a, const TritonAutotuneCache* b) {
        const std::int64_t na = a->parsedKey ? a->parsedKey->NB : INT64_MAX;
        const std::int64_t nb = b->parsedKey ? b->parsedKey->NB : INT64_MAX;
        return na != nb ? na < nb : a->file < b->file;
    });
    std::vector<std::int64_t> importedNbs;
    for (const TritonAutotuneCache* cache : ordered) {
        auto skip = [&](const std::string& why) {
            ++summary.skipped;
            summary.messages.push_back("skipped " + cache->file + ": " + why);
        };
        if (!cache->parsedKey) {
            skip("at /key: " + cache->key.dump() + " is not l2norm's [D, NB, x dtype, y dtype, rstd dtype]");
            continue;
        }
        const AutotuneKey& key = *cache->parsedKey;
        std::string why;
        if (!detail::keyFitsProfile(profile, key, why)) {
            skip(why);
            continue;
        }
        const TritonTimedConfig* best = cache->best();
        if (cache->configsTimings.empty()) {
            skip("at /configs_timings: the list is empty (no config was tuned)");
            continue;
        }
        if (!best) {
            skip("no config has a finite timing (every config failed)");
            continue;
        }
        if (std::find(importedNbs.begin(), importedNbs.end(), key.NB) != importedNbs.end()) {
            skip("a second cache for NB " + std::to_string(key.NB) + "; the first one (by path) was imported");
            continue;
        }
        importedNbs.push_back(key.NB);

        SourceEvidence evidence;
        evidence.key = key;  // numbers, as FLA's runtime key has them
        evidence.source_autotune_sha256 = cache->sha256;
        evidence.chosen_config = best->config;
        // export-fla writes them as FLA's best_timing; a profile holds finite numbers only.
        if (std::all_of(best->timings.begin(), best->timings.end(), [](double t) { return std::isfinite(t); }))
            evidence.chosen_timing_ms = best->timings;
        const std::string nb = std::to_string(key.NB);
        auto existing = std::find_if(profile.source_evidence.begin(), profile.source_evidence.end(),
                                     [&](const SourceEvidence& e) { return e.key.NB == key.NB; });
        if (existing == profile.source_evidence.end()) {
            profile.source_evidence.push_back(std::move(evidence));
            ++summary.evidenceAdded;
            summary.messages.push_back("NB " + nb + ": evidence added from " + cache->file);
        } else if (existing->source_autotune_sha256 != evidence.source_autotune_sha256 ||
                   !(existing->chosen_config == evidence.chosen_config)) {
            evidence.original = existing->original;
            *existing = std::move(evidence);
            ++summary.evidenceReplaced;
            summary.messages.push_back("NB " + nb + ": evidence replaced from " + cache->file);
        }

        const PolicyEntry* entry = profile.policyFor(key.NB);
        if (entry && entry->basis == kBasisMeasured) {
            summary.messages.push_back("NB " + nb + ": kept the measured-best config; production chose " +
                                       describe(best->config));
            continue;
        }
        if (!entry || entry->basis != kBasisOriginal || !(entry->config == best->config)) {
            profile.setPolicy(key.NB, best->config, std::string(kBasisOriginal));
            ++summary.policySet;
            summary.messages.push_back("NB " + nb + ": policy " + describe(best->config) + " (" +
                                       std::string(kBasisOriginal) + ")");
        }
    }
    return summary;
}

Profile profileFromTritonCaches(const std::vector<TritonAutotuneCache>& caches, const NewProfileOptions& options,
                                ImportSummary* summary) {
    const TritonAutotuneCache* first = nullptr;
    for (const auto& c : caches)
        if (c.parsedKey && (!first || c.parsedKey->NB < first->parsedKey->NB)) first = &c;
    if (!first)
        throw Error(caches.empty() ? "" : caches.front().file, "/key",
                    "no cache has an l2norm key [D, NB, x dtype, y dtype, rstd dtype] to build a profile from");
    Profile profile = detail::newProfileFor(*first->parsedKey, options);
    ImportSummary result = importTritonCaches(profile, caches);
    detail::fillPolicyGaps(profile, "original", &result);
    if (summary) *summary = std::move(result);
    return profile;
}

}  // namespace tunescope
