// libFuzzer target: the l2norm profile loader, writer, validator and lookup on arbitrary bytes.
// Invariants: no crash, no sanitizer report; a loaded profile serialises and reloads to the same JSON value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/formats/lookup.hpp"
#include "tunescope/formats/profile.hpp"
#include "tunescope/formats/validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const Json document = parseJson(text, "fuzz.json");
        (void)validateProfileJson(document, "fuzz.json");
    } catch (const Error&) {
    }
    try {
        const Profile profile = parseProfileText(text, "fuzz.json");
        const std::string bytes = serializeProfile(profile);
        const Profile again = parseProfileText(bytes, "again.json");
        if (!(toJson(again) == toJson(profile))) std::abort();  // the round trip lost or changed something
        (void)lookup(profile, 1, 1);
        (void)lookup(profile, profile.supported.batch_size_max, profile.supported.padded_tokens_max);
        (void)validateProfile(profile);
    } catch (const Error&) {
    }
    return 0;
}
