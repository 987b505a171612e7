// RFC 8785 canonical JSON: the RFC's own examples (number table, section 3.2.2 sample, key sorting), TuneScope's
// "not a guess" rules for numbers and duplicate keys, and the seed profile.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "tunescope/base/canonical_json.hpp"
#include "tunescope/base/errors.hpp"
#include "tunescope/base/json_io.hpp"

using namespace tunescope;

namespace {

double fromBits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

std::string seedPath() {
    return qEnvironmentVariable("TUNESCOPE_PROFILES").toStdString() + "/fla-l2norm-gfx942-profile.json";
}

// Runs `action`, which must throw tunescope::Error; returns it for checking the path and message.
template <typename Action>
Error expectError(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e;
    }
    throw std::runtime_error("expected a tunescope::Error, nothing was thrown");
}

}  // namespace

class TestCanonical : public QObject {
    Q_OBJECT

private slots:
    void ecmaScriptNumbers_data() {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<QString>("expected");
        // RFC 8785 Appendix B (IEEE 754 bit patterns and their JCS text), the finite ones.
        QTest::newRow("zero") << quint64(0x0000000000000000) << QStringLiteral("0");
        QTest::newRow("minus zero") << quint64(0x8000000000000000) << QStringLiteral("0");
        QTest::newRow("min pos") << quint64(0x0000000000000001) << QStringLiteral("5e-324");
        QTest::newRow("min neg") << quint64(0x8000000000000001) << QStringLiteral("-5e-324");
        QTest::newRow("max pos") << quint64(0x7fefffffffffffff) << QStringLiteral("1.7976931348623157e+308");
        QTest::newRow("max neg") << quint64(0xffefffffffffffff) << QStringLiteral("-1.7976931348623157e+308");
        QTest::newRow("2^53") << quint64(0x4340000000000000) << QStringLiteral("9007199254740992");
        QTest::newRow("-2^53") << quint64(0xc340000000000000) << QStringLiteral("-9007199254740992");
        QTest::newRow("2^68") << quint64(0x4430000000000000) << QStringLiteral("295147905179352830000");
        QTest::newRow("below 1e23") << quint64(0x44b52d02c7e14af5) << QStringLiteral("9.999999999999997e+22");
        QTest::newRow("1e23") << quint64(0x44b52d02c7e14af6) << QStringLiteral("1e+23");
        QTest::newRow("above 1e23") << quint64(0x44b52d02c7e14af7) << QStringLiteral("1.0000000000000001e+23");
        QTest::newRow("below 1e21 a") << quint64(0x444b1ae4d6e2ef4e) << QStringLiteral("999999999999999700000");
        QTest::newRow("below 1e21 b") << quint64(0x444b1ae4d6e2ef4f) << QStringLiteral("999999999999999900000");
        QTest::newRow("1e21") << quint64(0x444b1ae4d6e2ef50) << QStringLiteral("1e+21");
        QTest::newRow("below 1e-6") << quint64(0x3eb0c6f7a0b5ed8c) << QStringLiteral("9.999999999999997e-7");
        QTest::newRow("1e-6") << quint64(0x3eb0c6f7a0b5ed8d) << QStringLiteral("0.000001");
        QTest::newRow("third a") << quint64(0x41b3de4355555553) << QStringLiteral("333333333.3333332");
        QTest::newRow("third b") << quint64(0x41b3de4355555554) << QStringLiteral("333333333.33333325");
        QTest::newRow("third c") << quint64(0x41b3de4355555555) << QStringLiteral("333333333.3333333");
        QTest::newRow("third d") << quint64(0x41b3de4355555556) << QStringLiteral("333333333.3333334");
        QTest::newRow("third e") << quint64(0x41b3de4355555557) << QStringLiteral("333333333.33333343");
        QTest::newRow("small neg") << quint64(0xbecbf647612f3696) << QStringLiteral("-0.0000033333333333333333");
        QTest::newRow("round even") << quint64(0x43143ff3c1cb0959) << QStringLiteral("1424953923781206.2");
        // ECMAScript layout boundaries.
        QTest::newRow("1e-7") << std::bit_cast<quint64>(1e-7) << QStringLiteral("1e-7");
        QTest::newRow("1.5e-7") << std::bit_cast<quint64>(1.5e-7) << QStringLiteral("1.5e-7");
        QTest::newRow("1e20") << std::bit_cast<quint64>(1e20) << QStringLiteral("100000000000000000000");
        QTest::newRow("1.23e22") << std::bit_cast<quint64>(123e20) << QStringLiteral("1.23e+22");
        QTest::newRow("0.5") << std::bit_cast<quint64>(0.5) << QStringLiteral("0.5");
        QTest::newRow("-1.25") << std::bit_cast<quint64>(-1.25) << QStringLiteral("-1.25");
        QTest::newRow("4.5") << std::bit_cast<quint64>(4.50) << QStringLiteral("4.5");
        QTest::newRow("0.1") << std::bit_cast<quint64>(0.1) << QStringLiteral("0.1");
        QTest::newRow("1e30") << std::bit_cast<quint64>(1e30) << QStringLiteral("1e+30");
    }
    void ecmaScriptNumbers() {
        QFETCH(quint64, bits);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatEcmaScriptNumber(fromBits(bits))), expected);
    }

    void nonFiniteNumbersAreErrors() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, formatEcmaScriptNumber(std::numeric_limits<double>::quiet_NaN()));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, formatEcmaScriptNumber(std::numeric_limits<double>::infinity()));
        Json value = {{"timings", Json::array({1.0, std::numeric_limits<double>::infinity()})}};
        const Error error = expectError([&] { canonicalize(value, "report.json"); });
        QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("report.json"));
        QCOMPARE(QString::fromStdString(error.jsonPath()), QStringLiteral("/timings/1"));
        QVERIFY(error.message().find("Infinity") != std::string::npos);
        value["timings"][1] = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(expectError([&] { canonicalize(value); }).message().find("NaN") != std::string::npos);
    }

    // RFC 8785 section 3.2.2: the sample object. Through canonicalize(Json) it comes out exactly as the RFC says;
    // through the text entry point, 333333333.33333329 (17 digits a double does not keep) is refused.
    void rfcSampleObject() {
        const std::string input = R"({
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
})";
        const std::string expected =
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        QCOMPARE(canonicalize(Json::parse(input)), expected);

        const Error error = expectError([&] { canonicalizeJsonText(input, "sample.json"); });
        QCOMPARE(QString::fromStdString(error.jsonPath()), QStringLiteral("/numbers/0"));
        QVERIFY(error.message().find("333333333.33333329") != std::string::npos);

        std::string exact = input;
        exact.replace(exact.find("333333333.33333329"), 18, "333333333.3333333");
        QCOMPARE(canonicalizeJsonText(exact, "sample.json"), expected);
    }

    // RFC 8785 section 3.2.3: keys sort by UTF-16 code units, so U+1F600 (surrogates D83D DE00) comes before
    // U+FB33 although its code point is larger.
    void rfcKeySorting() {
        const std::string input = R"({
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis",
  "</script>": "Browser Challenge"
})";
        const std::string expected =
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"</script>\":\"Browser Challenge\",\"\xc2\x80\":\"Control\","
            "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
            "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}";
        QCOMPARE(canonicalizeJsonText(input, "keys.json"), expected);
    }

    void stringEscapes() {
        // Only the required escapes: DEL and '/' stay raw, control characters use lowercase \u00xx.
        QCOMPARE(canonicalize(Json("a\x7f/\x01\x1f\t")), std::string("\"a\x7f/\\u0001\\u001f\\t\""));
        QCOMPARE(canonicalize(Json::array({"\b\f\n\r", "\"\\"})), std::string("[\"\\b\\f\\n\\r\",\"\\\"\\\\\"]"));  // moc mis-lexes this as a raw string
    }

    void structuresAndIntegers() {
        QCOMPARE(canonicalizeJsonText(R"( { "b" : [ 1 , -2 , {} , [] ] , "a" : { "z" : 0 , "y" : -0 } } )", "s.json"),
                 std::string(R"({"a":{"y":0,"z":0},"b":[1,-2,{},[]]})"));
        QCOMPARE(canonicalizeJsonText("[1.0, 100e-2, 2E+3, -0.0, 1e-06]", "n.json"),
                 std::string("[1,1,2000,0,0.000001]"));
        QCOMPARE(canonicalizeJsonText("[9007199254740991, -9007199254740991]", "i.json"),
                 std::string("[9007199254740991,-9007199254740991]"));
        QCOMPARE(canonicalize(Json("")), std::string("\"\""));
        QCOMPARE(canonicalize(Json::object()), std::string("{}"));
    }

    void refusesWhatItWouldHaveToGuess_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("words");
        QTest::newRow("too precise") << QStringLiteral(R"({"a":{"t":1.00000000000000001}})") << QStringLiteral("/a/t")
                                     << QStringLiteral("more precision");
        QTest::newRow("17 digits not shortest") << QStringLiteral(R"({"t":0.10000000000000001})") << QStringLiteral("/t")
                                                << QStringLiteral("0.1");
        QTest::newRow("overflow") << QStringLiteral(R"({"x":[0,1e400]})") << QStringLiteral("/x/1")
                                  << QStringLiteral("too large");
        QTest::newRow("underflow") << QStringLiteral(R"({"x":1e-400})") << QStringLiteral("/x") << QStringLiteral("too small");
        QTest::newRow("2^53") << QStringLiteral(R"({"n":9007199254740992})") << QStringLiteral("/n")
                              << QStringLiteral("2^53");
        QTest::newRow("-2^53") << QStringLiteral(R"({"n":-9007199254740992})") << QStringLiteral("/n")
                               << QStringLiteral("2^53");
        QTest::newRow("huge integer") << QStringLiteral(R"({"n":123456789012345678901234})") << QStringLiteral("/n")
                                      << QStringLiteral("2^53");
        QTest::newRow("duplicate key") << QStringLiteral(R"({"a":{"k":1,"k":2}})") << QStringLiteral("/a/k")
                                       << QStringLiteral("duplicate");
        QTest::newRow("pointer escaping") << QStringLiteral(R"({"a/b~c":1e999})") << QStringLiteral("/a~1b~0c")
                                          << QStringLiteral("too large");
        QTest::newRow("syntax") << QStringLiteral("{\n  \"a\": tru\n}") << QStringLiteral("*") << QStringLiteral("line 2");
        QTest::newRow("empty") << QString() << QStringLiteral("*") << QStringLiteral("invalid JSON");
        QTest::newRow("trailing") << QStringLiteral("{} []") << QStringLiteral("*") << QStringLiteral("invalid JSON");
        QTest::newRow("bare Infinity") << QStringLiteral("[Infinity]") << QStringLiteral("*") << QStringLiteral("invalid JSON");
        QTest::newRow("NaN") << QStringLiteral("[NaN]") << QStringLiteral("*") << QStringLiteral("invalid JSON");
        QTest::newRow("deep") << QString(QStringLiteral("[").repeated(600) + QStringLiteral("]").repeated(600))
                              << QStringLiteral("/0").repeated(512) << QStringLiteral("nested deeper");
    }
    void refusesWhatItWouldHaveToGuess() {
        QFETCH(QString, text);
        QFETCH(QString, path);
        QFETCH(QString, words);
        const Error error = expectError([&] { canonicalizeJsonText(text.toStdString(), "in.json"); });
        QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("in.json"));
        if (path != QStringLiteral("*")) QCOMPARE(QString::fromStdString(error.jsonPath()), path);  // * = json_io's choice
        QVERIFY2(error.message().find(words.toStdString()) != std::string::npos, error.what());
    }

    void parsedValuesOutOfRange() {
        Json value = {{"big", std::uint64_t{1} << 60}};
        QCOMPARE(QString::fromStdString(expectError([&] { canonicalize(value); }).jsonPath()), QStringLiteral("/big"));
        value = {{"list", Json::array({std::int64_t{-(std::int64_t{1} << 62)}})}};
        QCOMPARE(QString::fromStdString(expectError([&] { canonicalize(value); }).jsonPath()), QStringLiteral("/list/0"));
        value = {{"s", std::string("\xff\xfe")}};
        QVERIFY(expectError([&] { canonicalize(value); }).message().find("UTF-8") != std::string::npos);
        value = Json::object();
        value[std::string("\xc0\x80")] = 1;  // overlong encoding of NUL
        QVERIFY(expectError([&] { canonicalize(value); }).message().find("UTF-8") != std::string::npos);
    }

    // The seed profile (with its one non-integer, 1e-06) canonicalises; indentation and key order do not matter;
    // canonicalising canonical bytes gives them back unchanged.
    void seedProfile() {
        const std::string canonical = canonicalizeJsonFile(seedPath());
        QVERIFY(canonical.find("\"numerical_tolerance_unchanged\":0.000001") != std::string::npos);
        QCOMPARE(canonical.find('\n'), std::string::npos);
        QCOMPARE(canonicalizeJsonText(canonical, "canonical.json"), canonical);
        const Json seed = readJsonFile(seedPath());
        QCOMPARE(canonicalizeJsonText(dumpJson(seed, 4), "indent4.json"), canonical);
        QCOMPARE(canonicalizeJsonText(seed.dump(), "compact.json"), canonical);
        Json reversed = Json::object();
        for (auto it = seed.rbegin(); it != seed.rend(); ++it) reversed[it.key()] = it.value();
        QCOMPARE(canonicalize(reversed), canonical);
        QVERIFY(canonical.rfind("{\"builder_sha256\":", 0) == 0);  // members sorted
    }

    void fileErrors() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string folder = dir.path().toStdString();
        QVERIFY(expectError([&] { canonicalizeJsonFile(folder); }).message().find("folder") != std::string::npos);
        QVERIFY(expectError([&] { canonicalizeJsonFile(folder + "/missing.json"); }).message().find("not found") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCanonical)
#include "tst_canonical.moc"
