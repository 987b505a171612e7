// libFuzzer target: Triton's autotune cache parser (Infinity tokens, number or string keys) and the import into a
// profile, plus FLA's config-file parser on the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/triton_cache.hpp"
#include "tunescope/formats/validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const TritonAutotuneCache cache = parseTritonAutotuneCache(text, "fuzz.autotune.json");
        (void)cache.best();
        Profile profile = makeProfile(Supported{}, RuntimeVersions{});
        (void)importTritonCaches(profile, {cache});
        if (cache.parsedKey) {
            const Profile fresh = profileFromTritonCaches({cache}, NewProfileOptions{});
            (void)validateProfile(fresh);
        }
    } catch (const Error&) {
    }
    try {
        JsonReadOptions options;
        options.allowNonFiniteTokens = true;
        const FlaConfigFile file = parseFlaConfig(parseJson(text, "fuzz.json", options), "fuzz.json");
        const std::string bytes = serializeFlaConfig(file);
        const FlaConfigFile again = parseFlaConfig(parseJson(bytes, "again.json", options), "again.json");
        if (again.entries.size() != file.entries.size()) std::abort();
        Profile profile = makeProfile(Supported{}, RuntimeVersions{});
        (void)importFlaConfig(profile, file);
        for (const auto& e : file.entries) (void)flaKeyHash(e.autotune_key);
    } catch (const Error&) {
    }
    return 0;
}
