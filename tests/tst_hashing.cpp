// SHA-256 and MD5 hex digests against published test vectors and Qt's independent implementation.
#include <QtTest>

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>

#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "tunescope/base/errors.hpp"
#include "tunescope/base/hashing.hpp"

using namespace tunescope;

namespace {

template <typename Action>
Error expectError(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e;
    }
    throw std::runtime_error("expected a tunescope::Error, nothing was thrown");
}

std::string qtSha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString();
}

}  // namespace

class TestHashing : public QObject {
    Q_OBJECT

private slots:
    void knownVectors() {
        // FIPS 180-2 / RFC 1321 examples.
        QCOMPARE(sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(md5Hex(""), std::string("d41d8cd98f00b204e9800998ecf8427e"));
        QCOMPARE(md5Hex("abc"), std::string("900150983cd24fb0d6963f7d28e17f72"));
        // FLA's config cache keys its entries by the md5 of the compact autotune key (issue 2's check value).
        QCOMPARE(md5Hex(R"([128,1,"torch.bfloat16","torch.bfloat16","torch.float32"])"),
                 std::string("878a9638751a7375a0fb15d3a7767659"));
        QCOMPARE(toHex(std::string("\x00\xff\x10", 3)), std::string("00ff10"));
    }

    void fileDigestMatchesQt() {
        const QString seed = qEnvironmentVariable("TUNESCOPE_PROFILES") + QStringLiteral("/fla-l2norm-gfx942-profile.json");
        QFile file(seed);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QCOMPARE(sha256FileHex(seed.toStdString()), qtSha256(bytes));
        QCOMPARE(sha256Hex(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))), qtSha256(bytes));
    }

    // Files bigger than the read chunk and of awkward sizes stream through correctly; an empty file hashes as "".
    void fileSizes_data() {
        QTest::addColumn<int>("size");
        for (const int size : {0, 1, 65535, 65536, 65537, 1000003}) QTest::newRow(qPrintable(QString::number(size))) << size;
    }
    void fileSizes() {
        QFETCH(int, size);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray bytes(size, '\0');
        for (int i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + 7) & 0xff);
        const QString path = dir.filePath(QStringLiteral("data.bin"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), qint64(size));
        file.close();
        QCOMPARE(sha256FileHex(path.toStdString()), qtSha256(bytes));
    }

    void fileErrors() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string folder = dir.path().toStdString();
        Error error = expectError([&] { sha256FileHex(folder); });
        QCOMPARE(error.file(), folder);
        QVERIFY(error.message().find("folder") != std::string::npos);
        error = expectError([&] { sha256FileHex(folder + "/missing.json"); });
        QVERIFY(error.message().find("not found") != std::string::npos);
        if (::geteuid() != 0) {  // root reads anything: the unreadable case cannot be made there
            const std::string locked = folder + "/locked.json";
            QFile file(QString::fromStdString(locked));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.close();
            QCOMPARE(::chmod(locked.c_str(), 0), 0);
            error = expectError([&] { sha256FileHex(locked); });
            QVERIFY(error.message().find("cannot open") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestHashing)
#include "tst_hashing.moc"
