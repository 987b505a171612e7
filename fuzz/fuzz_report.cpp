// libFuzzer target: the cuBLASLt report loader, writer and validator on arbitrary bytes.
// Invariants: no crash, no sanitizer report; a loaded report serialises and reloads to the same JSON value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/formats/report.hpp"
#include "tunescope/formats/validation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const CublasLtReport report = parseReportText(text, "fuzz.json");
        const std::string bytes = serializeReport(report);
        const CublasLtReport again = parseReportText(bytes, "again.json");
        if (!(toJson(again) == toJson(report))) std::abort();
        (void)validateReportJson(toJson(report), "fuzz.json");
    } catch (const Error&) {
    }
    return 0;
}
