// libFuzzer target: FLA's config-cache file (l2norm_fwd_kernel.json) on its own: parse, write back, parse again
// (the entry count must survive), import into a profile and into a fresh one.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/formats/fla_cache.hpp"
#include "tunescope/formats/validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        JsonReadOptions options;
        options.allowNonFiniteTokens = true;
        const FlaConfigFile file = parseFlaConfig(parseJson(text, "fuzz.json", options), "fuzz.json");
        const FlaConfigFile again =
            parseFlaConfig(parseJson(serializeFlaConfig(file), "again.json", options), "again.json");
        if (again.entries.size() != file.entries.size()) std::abort();
        Profile profile = makeProfile(Supported{}, RuntimeVersions{});
        (void)importFlaConfig(profile, file);
        bool usable = false;
        for (const auto& e : file.entries) usable = usable || e.parsedKey.has_value();
        if (usable) (void)validateProfile(profileFromFlaConfig(file, NewProfileOptions{}));
    } catch (const Error&) {
    }
    return 0;
}
