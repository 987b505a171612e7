// libFuzzer target: the sweep results reader (JSON Lines: header, measurement and error lines, the fast line
// parser and its DOM fallback), then merge of the file with itself.
#include "fuzz_file_input.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/sweep/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const auto file = fuzzInputFile(data, size, ".jsonl");
    try {
        const ResultsFile results = loadResults(file);
        for (const ResultRecord& r : results.records) (void)recordToJson(r);
        (void)mergeResults({file, file}, std::filesystem::path(file.string() + ".merged"), MergeOptions{true});
    } catch (const Error&) {
    }
    return 0;
}
