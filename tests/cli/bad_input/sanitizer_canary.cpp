// A stand-in for tunescope-cli in the sanitized corpus run's self-test (tests/cli/sanitized_bad_input.cmake). Built
// with the same sanitizer flags as the sanitized CLI, it plants the bug that TUNESCOPE_CANARY names, so the test can
// show that the corpus runner fails on a sanitizer report and passes without one:
//   (unset)  exit 2 with every argument in the message, as the CLI does for a file it refuses: a clean run
//   heap     read past the end of a heap buffer (AddressSanitizer), then exit 2 as above
//   signed   overflow a signed int (UndefinedBehaviorSanitizer), then exit 2 as above
// After either bug the program goes on to exit 2, so only the sanitizer's own verdict can make the run fail.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

int main(int argc, char** argv) {
    const char* canary = std::getenv("TUNESCOPE_CANARY");
    const char* mode = canary ? canary : "";
    if (std::strcmp(mode, "heap") == 0) {
        const auto bytes = std::make_unique<char[]>(static_cast<std::size_t>(argc));
        volatile int past = argc;  // one past the end, opaque to the optimiser
        std::fprintf(stderr, "canary byte %d\n", bytes[past]);
    } else if (std::strcmp(mode, "signed") == 0) {
        volatile int big = INT_MAX;  // opaque to the optimiser, so the addition happens at run time
        const int sum = big + argc;
        std::fprintf(stderr, "canary sum %d\n", sum);
    }
    std::fputs("sanitizer canary refuses", stderr);
    for (int i = 1; i < argc; ++i) std::fprintf(stderr, " %s", argv[i]);
    std::fputc('\n', stderr);
    return 2;
}
