// bf16 <-> float conversions (core/include/tunescope/device/bf16.hpp), the ones every backend and the reference share.
#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "tunescope/device/bf16.hpp"

using namespace tunescope;

namespace {

// Round to nearest even by arithmetic in double (independent of the bit trick under test).
std::uint16_t referenceRound(float value) {
    const std::uint32_t bits = bf16::floatBits(value);
    const std::uint16_t truncated = std::uint16_t(bits >> 16);
    const double below = bf16::toFloat(truncated);
    // The next bf16 away from zero; from the largest finite magnitude that is infinity.
    const std::uint16_t nextBits = std::uint16_t(truncated + 1);
    double above = bf16::toFloat(nextBits);
    if (std::isinf(above)) above = std::copysign(std::ldexp(1.0, 128), double(value));  // rounding past the max
    const double exact = value;
    const double distanceBelow = std::fabs(exact - below), distanceAbove = std::fabs(above - exact);
    if (distanceBelow < distanceAbove) return truncated;
    if (distanceAbove < distanceBelow) return nextBits;
    return (truncated & 1) ? nextBits : truncated;
}

}  // namespace

class TestBf16 : public QObject {
    Q_OBJECT

private slots:
    void everyBf16RoundTripsExactly() {
        for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
            const float value = bf16::toFloat(std::uint16_t(bits));
            const std::uint16_t back = bf16::fromFloat(value);
            if (std::isnan(value)) {
                QVERIFY2(std::isnan(bf16::toFloat(back)), qPrintable(QString::number(bits, 16)));
                QCOMPARE(back & 0x8000u, bits & 0x8000u);  // the sign survives
            } else {
                QCOMPARE(back, std::uint16_t(bits));
            }
        }
    }

    void tiesRoundToEven() {
        // 1 + 2^-8 lies halfway between 1 (even mantissa) and 1 + 2^-7: it rounds down.
        QCOMPARE(bf16::fromFloat(1.0f + 0x1p-8f), std::uint16_t(0x3f80));
        // 1 + 3*2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): it rounds up.
        QCOMPARE(bf16::fromFloat(1.0f + 3 * 0x1p-8f), std::uint16_t(0x3f82));
        // Just above the halfway point rounds up.
        QCOMPARE(bf16::fromFloat(std::nextafter(1.0f + 0x1p-8f, 2.0f)), std::uint16_t(0x3f81));
        QCOMPARE(bf16::fromFloat(-1.0f - 0x1p-8f), std::uint16_t(0xbf80));
    }

    void randomFloatsMatchDoubleReference() {
        std::mt19937_64 random(12345);
        for (int i = 0; i < 2'000'000; ++i) {
            const std::uint32_t bits = std::uint32_t(random());
            const float value = bf16::floatFromBits(bits);
            if (!std::isfinite(value)) continue;
            const std::uint16_t got = bf16::fromFloat(value), want = referenceRound(value);
            if (got != want) {
                QFAIL(qPrintable(QStringLiteral("float bits 0x%1: got 0x%2, want 0x%3")
                                     .arg(bits, 8, 16, QLatin1Char('0'))
                                     .arg(got, 4, 16, QLatin1Char('0'))
                                     .arg(want, 4, 16, QLatin1Char('0'))));
            }
        }
    }

    void overflowAndSpecials() {
        QCOMPARE(bf16::fromFloat(std::numeric_limits<float>::max()), std::uint16_t(0x7f80));  // rounds to inf
        QCOMPARE(bf16::fromFloat(std::numeric_limits<float>::infinity()), std::uint16_t(0x7f80));
        QCOMPARE(bf16::fromFloat(-std::numeric_limits<float>::infinity()), std::uint16_t(0xff80));
        QCOMPARE(bf16::fromFloat(0.0f), std::uint16_t(0x0000));
        QCOMPARE(bf16::fromFloat(-0.0f), std::uint16_t(0x8000));
        QVERIFY(std::isnan(bf16::toFloat(bf16::fromFloat(std::numeric_limits<float>::quiet_NaN()))));
        // A NaN whose payload sits only in the low 16 bits must not turn into infinity.
        QVERIFY(std::isnan(bf16::toFloat(bf16::fromFloat(bf16::floatFromBits(0x7f800001u)))));
        QCOMPARE(bf16::toFloat(0x3f80), 1.0f);
        QCOMPARE(bf16::toFloat(0xc000), -2.0f);
    }

    void ulpIsTheBf16Spacing() {
        QCOMPARE(bf16::ulpAt(1.0), 0x1p-7);
        QCOMPARE(bf16::ulpAt(1.999), 0x1p-7);
        QCOMPARE(bf16::ulpAt(2.0), 0x1p-6);
        QCOMPARE(bf16::ulpAt(-0.75), 0x1p-8);
        QCOMPARE(bf16::ulpAt(0.0), 0x1p-133);
        // Neighbouring bf16 values are exactly one ulp apart.
        for (std::uint16_t bits : {std::uint16_t(0x3f80), std::uint16_t(0x4123), std::uint16_t(0x0580)}) {
            const double a = bf16::toFloat(bits), b = bf16::toFloat(std::uint16_t(bits + 1));
            QCOMPARE(b - a, bf16::ulpAt(a));
        }
    }
};

QTEST_GUILESS_MAIN(TestBf16)
#include "tst_bf16.moc"
