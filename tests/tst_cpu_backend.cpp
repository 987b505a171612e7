// The CPU backend and the backend registry: discovery, refusals with reasons, the reference l2norm's math
// against a double-precision reference, and the timed works.
#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tunescope/base/errors.hpp"
#include "tunescope/device/bf16.hpp"
#include "tunescope/device/device.hpp"
#include "tunescope/device/l2norm_contract.hpp"
#include "tunescope/device/l2norm_cpu.hpp"
#include "tunescope/device/l2norm_selftest.hpp"

using namespace tunescope;

namespace {

std::vector<std::uint16_t> randomInput(std::int64_t rows, std::uint64_t seed) {
    std::vector<std::uint16_t> x(std::size_t(rows) * 128);
    cpu::fillRandomInput(x.data(), x.size(), seed);
    return x;
}

L2NormConfig makeConfig(int blockRows, int warps, int stages) {
    L2NormConfig config;
    config.blockRows = blockRows;
    config.numWarps = warps;
    config.numStages = stages;
    return config;
}

}  // namespace

class TestCpuBackend : public QObject {
    Q_OBJECT

private slots:
    void probeListsCpuFirstAndExplainsTheOthers() {
        const std::vector<BackendProbe> probes = probeBackends();
        QCOMPARE(probes.size(), std::size_t(3));
        QCOMPARE(probes[0].name, std::string("cpu"));
        QVERIFY(probes[0].backend && probes[0].backend->available());
        QVERIFY(probes[0].reason.empty());
        QCOMPARE(probes[1].name, std::string("cuda"));
        QCOMPARE(probes[2].name, std::string("hip"));
        for (std::size_t i = 1; i < probes.size(); ++i) {
            const bool usable = probes[i].backend && probes[i].backend->available();
            // Every missing backend says why; a usable one says nothing.
            QCOMPARE(probes[i].reason.empty(), usable);
        }
    }

    void pluginDirectoryWithoutPluginsSaysNotBuilt() {
        const QTemporaryDir empty;
        qputenv("TUNESCOPE_PLUGIN_DIR", empty.path().toLocal8Bit());
        const std::vector<BackendProbe> probes = probeBackends();
        qunsetenv("TUNESCOPE_PLUGIN_DIR");
        // The empty folder is searched first; if nothing is found anywhere the reason names it.
        for (std::size_t i = 1; i < probes.size(); ++i) {
            if (probes[i].backend) continue;
            QVERIFY2(probes[i].reason.find("plugin not built") != std::string::npos ||
                         probes[i].reason.find("runtime library missing") != std::string::npos ||
                         probes[i].reason.find("cannot load plugin") != std::string::npos,
                     probes[i].reason.c_str());
        }
    }

    void brokenPluginIsReportedNotLoaded() {
        QTemporaryDir folder;
        QFile fake(folder.filePath(QStringLiteral("libtunescope_backend_cuda.so")));
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.write("not an ELF file");
        fake.close();
        qputenv("TUNESCOPE_PLUGIN_DIR", folder.path().toLocal8Bit());
        const std::vector<BackendProbe> probes = probeBackends();
        qunsetenv("TUNESCOPE_PLUGIN_DIR");
        QVERIFY(!probes[1].backend);
        QVERIFY2(probes[1].reason.find("cannot load plugin") != std::string::npos, probes[1].reason.c_str());
        QVERIFY2(probes[1].reason.find("libtunescope_backend_cuda.so") != std::string::npos, probes[1].reason.c_str());
    }

    void openBackendRefusesUnknownNames() {
        QVERIFY(openBackend("cpu") != nullptr);
        try {
            (void)openBackend("opencl");
            QFAIL("an unknown backend was opened");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("unknown backend 'opencl'") != std::string::npos, e.what());
        }
    }

    void cpuDeviceIsLabelledCpu() {
        std::unique_ptr<Backend> backend = openBackend("cpu");
        const std::vector<DeviceInfo> devices = backend->devices();
        QCOMPARE(devices.size(), std::size_t(1));
        QCOMPARE(devices[0].backend, std::string("cpu"));
        QVERIFY(devices[0].name.find("(CPU") != std::string::npos);
        QVERIFY(devices[0].multiprocessors >= 1);
        QVERIFY_THROWS_EXCEPTION(Error, backend->openDevice(1));
    }

    void illegalConfigsAreRefusedWithAReason() {
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        std::string why;
        QVERIFY(device->supports(makeConfig(32, 4, 3), &why));
        QVERIFY(!device->supports(makeConfig(12, 4, 3), &why));
        QVERIFY(why.find("BT") != std::string::npos);
        QVERIFY(!device->supports(makeConfig(32, 3, 3), &why));
        QVERIFY(why.find("num_warps") != std::string::npos);
        QVERIFY(!device->supports(makeConfig(32, 4, 5), &why));
        QVERIFY(why.find("num_stages") != std::string::npos);
        L2NormConfig clustered = makeConfig(32, 4, 3);
        clustered.numCtas = 2;
        QVERIFY(!device->supports(clustered, &why));
        QVERIFY_THROWS_EXCEPTION(Error, device->prepareL2Norm(0, 1));
        QVERIFY_THROWS_EXCEPTION(Error, device->l2normWork(makeConfig(32, 4, 3), 1e-6f));  // nothing prepared
        device->prepareL2Norm(64, 1);
        QVERIFY_THROWS_EXCEPTION(Error, device->l2normWork(makeConfig(12, 4, 3), 1e-6f));
    }

    void runL2NormRejectsBadShapes() {
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        std::vector<std::uint16_t> x(130, 0x3f80), y(130);
        std::vector<float> rstd(1);
        QVERIFY_THROWS_EXCEPTION(Error, device->runL2Norm(makeConfig(8, 1, 1), x, y, rstd, 1e-6f));
        x.resize(128);
        y.resize(64);
        QVERIFY_THROWS_EXCEPTION(Error, device->runL2Norm(makeConfig(8, 1, 1), x, y, rstd, 1e-6f));
        std::vector<std::uint16_t> none;
        std::vector<float> noRstd;
        QVERIFY_THROWS_EXCEPTION(Error, device->runL2Norm(makeConfig(8, 1, 1), none, none, noRstd, 1e-6f));
    }

    void randomInputIsNeverZeroAndReproducible() {
        const std::vector<std::uint16_t> a = randomInput(300, 42), b = randomInput(300, 42), c = randomInput(300, 43);
        QCOMPARE(a, b);
        QVERIFY(a != c);
        for (std::uint16_t bits : a) {
            const float value = bf16::toFloat(bits);
            QVERIFY(value != 0.0f && std::isfinite(value));
        }
        // The host fill and the per-element generator the GPUs use agree.
        for (std::size_t i = 0; i < a.size(); i += 97) QCOMPARE(a[i], l2norm::randomInputElement(42, i));
    }

    void constantRowHasTheClosedFormAnswer() {
        // x = 1.5 everywhere: sum = 128 * 2.25 = 288, rstd = 1/sqrt(288 + eps).
        std::vector<std::uint16_t> x(128, bf16::fromFloat(1.5f)), y(128, 0xffff);
        std::vector<float> rstd(1, std::numeric_limits<float>::quiet_NaN());
        openBackend("cpu")->openDevice(0)->runL2Norm(makeConfig(8, 1, 1), x, y, rstd, 1e-6f);
        const float expected = 1.0f / std::sqrt(288.0f + 1e-6f);
        QCOMPARE(rstd[0], expected);
        for (std::uint16_t value : y) QCOMPARE(value, bf16::fromFloat(1.5f * expected));
    }

    void epsIsInsideTheSquareRoot() {
        // Tiny inputs: sum(x^2) = 128 * 2^-40 ~ 1.2e-10 is far below eps, so rstd ~ 1/sqrt(eps) = 1000.
        std::vector<std::uint16_t> x(128, bf16::fromFloat(0x1p-20f)), y(128);
        std::vector<float> rstd(1);
        openBackend("cpu")->openDevice(0)->runL2Norm(makeConfig(8, 1, 1), x, y, rstd, 1e-6f);
        const double exact = 1.0 / std::sqrt(128.0 * 0x1p-40 + 1e-6);
        QVERIFY(std::fabs(rstd[0] - exact) / exact < 1e-6);
        QVERIFY(std::fabs(rstd[0] - 1000.0) < 1.0);
    }

    void matchesDoubleReferenceAtEveryTailSize() {
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        for (std::int64_t rows : {1, 7, 129, 65537}) {
            const std::vector<std::uint16_t> x = randomInput(rows, 1000 + std::uint64_t(rows));
            std::vector<std::uint16_t> y(x.size(), 0xffff);
            std::vector<float> rstd(std::size_t(rows), std::numeric_limits<float>::quiet_NaN());
            device->runL2Norm(makeConfig(16, 4, 2), x, y, rstd, 1e-6f);
            std::vector<double> yExact(x.size());
            std::vector<double> rstdExact(static_cast<std::size_t>(rows));
            cpu::l2normReference(x.data(), yExact.data(), rstdExact.data(), rows, 1e-6);
            for (std::size_t r = 0; r < std::size_t(rows); ++r) {
                QVERIFY(std::fabs(rstd[r] - rstdExact[r]) <= 1e-6 * rstdExact[r]);
            }
            for (std::size_t i = 0; i < x.size(); ++i) {
                const double error = std::fabs(bf16::toFloat(y[i]) - yExact[i]);
                if (!(error <= bf16::ulpAt(yExact[i]))) {
                    QFAIL(qPrintable(QStringLiteral("T=%1 element %2: error %3 over one ulp").arg(rows).arg(i).arg(error)));
                }
            }
        }
    }

    void nonFiniteInputsFollowTheScalarSemantics() {
        // The vector paths hand rows with NaN or infinity to the scalar path: the results are those of the
        // formula in float with bf16::fromFloat (NaN stays NaN, 1/sqrt(inf) = 0, inf * 0 = NaN).
        const std::int64_t rows = 70000;  // large enough for the streaming-store path
        std::vector<std::uint16_t> x = randomInput(rows, 11);
        x[5 * 128 + 3] = 0x7fc0;    // NaN in row 5
        x[9 * 128 + 100] = 0x7f80;  // +inf in row 9
        std::vector<std::uint16_t> y(x.size(), 0);
        std::vector<float> rstd(std::size_t(rows), 0.0f);
        cpu::l2normForward(x.data(), y.data(), rstd.data(), rows, 1e-6f, 2);
        QVERIFY(std::isnan(rstd[5]));
        for (int i = 0; i < 128; ++i) QVERIFY(std::isnan(bf16::toFloat(y[5 * 128 + i])));
        QCOMPARE(rstd[9], 0.0f);
        for (int i = 0; i < 128; ++i) {
            const float expected = bf16::toFloat(bf16::fromFloat(bf16::toFloat(x[9 * 128 + i]) * 0.0f));
            const float got = bf16::toFloat(y[9 * 128 + i]);
            QVERIFY(std::isnan(expected) ? std::isnan(got) : got == expected);
        }
        // The rows around them are untouched by their neighbours' trouble.
        QVERIFY(std::isfinite(rstd[4]) && std::isfinite(rstd[6]) && std::isfinite(rstd[10]));
    }

    void threadCountDoesNotChangeResults() {
        const std::int64_t rows = 10000;
        const std::vector<std::uint16_t> x = randomInput(rows, 7);
        std::vector<std::uint16_t> y1(x.size()), y2(x.size());
        std::vector<float> r1(rows), r2(rows);
        cpu::l2normForward(x.data(), y1.data(), r1.data(), rows, 1e-6f, 1);
        cpu::l2normForward(x.data(), y2.data(), r2.data(), rows, 1e-6f, 3);
        QCOMPARE(y1, y2);
        QCOMPARE(r1, r2);
    }

    void timedWorksReportBytesAndTime() {
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        const std::int64_t rows = 4096;
        device->prepareL2Norm(rows, 3);
        std::unique_ptr<TimedWork> work = device->l2normWork(makeConfig(32, 4, 3), 1e-6f);
        QCOMPARE(work->bytesMoved(), std::uint64_t(rows) * 516);
        work->beforeSample(L2Regime::Cold);
        const double ms = work->timeSampleMs();
        QVERIFY(ms > 0 && ms < 10'000);
        QCOMPARE(work->lastSmClockMHz(), -1);
        std::unique_ptr<TimedWork> copy = device->copyWork();
        QCOMPARE(copy->bytesMoved(), std::uint64_t(rows) * 516);  // 258 B per row read + 258 written
        copy->beforeSample(L2Regime::Hot);
        QVERIFY(copy->timeSampleMs() > 0);
    }

    void launchSpaceIsTritonsGrid() {
        const std::vector<L2NormConfig> space = l2normLaunchSpace();
        QCOMPARE(space.size(), std::size_t(5 * 6 * 4));
        QCOMPARE(l2normSelftestSizes(8), (std::vector<std::int64_t>{1, 7, 65537, 107}));
    }

    void selftestPassesOnCpu() {
        // The whole space runs in the CLI test (tests/cli/gpu.cmake); here a few configs and the summary counts.
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        L2NormSelftestOptions options;
        options.seed = 99;
        options.configs = {makeConfig(8, 1, 1), makeConfig(128, 32, 4), makeConfig(12, 4, 3)};
        int cases = 0;
        const L2NormSelftestSummary summary = runL2NormSelftest(*device, options, [&](const L2NormSelftestCase& c) {
            ++cases;
            QVERIFY2(c.passed, c.detail.c_str());
            QVERIFY(c.worstYUlps <= 1.0);
        });
        QCOMPARE(summary.configsRun, 2);
        QCOMPARE(summary.configsSkipped.size(), std::size_t(1));  // BT=12 is refused, with its reason
        QVERIFY(summary.configsSkipped[0].find("BT") != std::string::npos);
        QCOMPARE(summary.casesRun, 8);
        QCOMPARE(cases, summary.casesRun);
        QVERIFY(summary.passed());
    }

    void selftestCatchesAWrongResult() {
        // A tolerance of zero ulps must fail: the check really compares against the reference.
        std::unique_ptr<Device> device = openBackend("cpu")->openDevice(0);
        L2NormSelftestOptions options;
        options.seed = 5;
        options.configs = {makeConfig(16, 2, 2)};
        options.yToleranceUlps = 0.0;
        const L2NormSelftestSummary summary = runL2NormSelftest(*device, options);
        QVERIFY(!summary.passed());
        QVERIFY(summary.casesFailed > 0);
    }
};

QTEST_GUILESS_MAIN(TestCpuBackend)
#include "tst_cpu_backend.moc"
