// libFuzzer target: the FLA capture manifest (docs/fla-capture.md): checkFlaCaptureText over any bytes; for an
// accepted manifest its plan, FLA's captured choices and the FLA config documents they make, and a round trip.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tunescope/base/json_io.hpp"
#include "tunescope/formats/fla_capture.hpp"
#include "tunescope/formats/fla_capture_export.hpp"
#include "tunescope/sweep/fla_capture_plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tunescope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const FlaCaptureCheck check = checkFlaCaptureText(text, "fuzz.json");
        // Invariant: a manifest is accepted exactly when no fault is reported, and every fault has a message.
        if (check.capture.has_value() != check.faults.empty()) std::abort();
        for (const auto& f : check.faults)
            if (f.message.empty()) std::abort();
        if (!check.capture) return 0;
        const FlaCapture& capture = *check.capture;
        // Invariant: the plan's decisions hold every launch once.
        const FlaCapturePlan plan = planFlaCapture(capture);
        std::size_t launches = 0, planned = 0;
        for (const auto& k : capture.kernels) launches += k.launches.size();
        for (const auto& d : plan.decisions) planned += d.launches.size();
        if (planned != launches || plan.launches != launches) std::abort();
        (void)formatFlaCapturePlan(plan);
        const FlaChoices choices = capturedFlaChoices(capture);
        try {
            checkFlaChoices(capture, choices);
            (void)flaConfigDocuments(capture, choices);
        } catch (const Error&) {
        }
        // Invariant: the accepted manifest written back is accepted again, with the same digest.
        const FlaCaptureCheck again = checkFlaCaptureText(dumpJson(capture.document, 1), "again.json");
        if (!again.capture || again.capture->digest != capture.digest) std::abort();
    } catch (const Error&) {
    }
    return 0;
}
