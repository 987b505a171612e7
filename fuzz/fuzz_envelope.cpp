// libFuzzer target: the DSSE signature envelope reader and verifier, against the committed seed profile and key
// (tests/data/bad-input-seeds). Every input must be refused or verified, never crash.
#include <cstdlib>

#include "fuzz_file_input.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/formats/signing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::filesystem::path seeds = std::filesystem::path(TUNESCOPE_SOURCE_DIR) / "tests/data/bad-input-seeds";
    const auto envelope = fuzzInputFile(data, size, ".sig.json");
    try {
        (void)verifyProfile(seeds / "profile.json", seeds / "signer.pub.pem", envelope);
    } catch (const Error&) {
    }
    return 0;
}
