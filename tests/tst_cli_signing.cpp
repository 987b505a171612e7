// tunescope-cli hash | keygen | sign | verify, run as a user would ($TUNESCOPE_CLI): output and exit codes.
#include <QtTest>

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runCli(const QStringList& arguments) {
    QProcess process;
    process.start(qEnvironmentVariable("TUNESCOPE_CLI"), arguments);
    Run run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) return run;
    run.exitCode = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

QString seedPath() {
    return qEnvironmentVariable("TUNESCOPE_PROFILES") + QStringLiteral("/fla-l2norm-gfx942-profile.json");
}

QString sha256Hex(const QByteArray& bytes) {
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

}  // namespace

class TestCliSigning : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString profile_, keyId_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY2(!qEnvironmentVariable("TUNESCOPE_CLI").isEmpty(), "TUNESCOPE_CLI is not set");
        QVERIFY(dir_.isValid());
        profile_ = path(QStringLiteral("profile.json"));
        QVERIFY(writeAll(profile_, readAll(seedPath())));
    }

    void helpForEachCommand_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("hash") << QStringLiteral("hash") << QStringLiteral("--canonical");
        QTest::newRow("keygen") << QStringLiteral("keygen") << QStringLiteral("--passphrase-file");
        QTest::newRow("sign") << QStringLiteral("sign") << QStringLiteral("--key");
        QTest::newRow("verify") << QStringLiteral("verify") << QStringLiteral("--pubkey");
    }
    void helpForEachCommand() {
        QFETCH(QString, command);
        QFETCH(QString, mentions);
        const Run run = runCli({command, QStringLiteral("--help")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(mentions), qPrintable(run.out));
        QVERIFY(run.out.contains(QStringLiteral("Exit codes")));
    }

    void hashFile() {
        const Run run = runCli({QStringLiteral("hash"), seedPath()});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, sha256Hex(readAll(seedPath())) + QLatin1Char('\n'));
    }

    void hashCanonical() {
        // A file whose canonical form is known by hand.
        const QString small = path(QStringLiteral("small.json"));
        QVERIFY(writeAll(small, "{\n  \"b\": 1,\n  \"a\": [true, null, \"x\", 1e-06]\n}\n"));
        Run run = runCli({QStringLiteral("hash"), small, QStringLiteral("--canonical")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.trimmed(), sha256Hex("{\"a\":[true,null,\"x\",0.000001],\"b\":1}"));

        // Re-indented seed: same canonical hash, different file hash.
        const QString reindented = path(QStringLiteral("reindented.json"));
        const QJsonDocument document = QJsonDocument::fromJson(readAll(seedPath()));
        QVERIFY(document.isObject());
        QVERIFY(writeAll(reindented, document.toJson(QJsonDocument::Compact)));
        const Run seedCanonical = runCli({QStringLiteral("hash"), QStringLiteral("--canonical"), seedPath()});
        const Run otherCanonical = runCli({QStringLiteral("hash"), QStringLiteral("--canonical"), reindented});
        QCOMPARE(seedCanonical.exitCode, 0);
        QCOMPARE(otherCanonical.out, seedCanonical.out);
        QVERIFY(seedCanonical.out != runCli({QStringLiteral("hash"), seedPath()}).out);
        QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{64}\n$")).match(seedCanonical.out).hasMatch());
    }

    void hashErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("words");
        QTest::newRow("inexact number") << QByteArray("{\"x\": {\"y\": 1.00000000000000001}}") << QStringLiteral("at /x/y");
        QTest::newRow("NaN") << QByteArray("{\"x\": NaN}") << QStringLiteral("invalid JSON");
        QTest::newRow("unsafe integer") << QByteArray("[18014398509481984]") << QStringLiteral("at /0");
        QTest::newRow("syntax") << QByteArray("{\n\"x\": }") << QStringLiteral("line 2");
        QTest::newRow("duplicate") << QByteArray("{\"k\": 1, \"k\": 1}") << QStringLiteral("duplicate");
    }
    void hashErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QString, words);
        const QString file = path(QStringLiteral("bad.json"));
        QVERIFY(writeAll(file, content));
        const Run run = runCli({QStringLiteral("hash"), QStringLiteral("--canonical"), file});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(file) && run.err.contains(words), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        QCOMPARE(runCli({QStringLiteral("hash"), file}).exitCode, 0);  // raw bytes always hash
    }

    void hashFileErrors() {
        Run run = runCli({QStringLiteral("hash"), path(QStringLiteral("missing.json"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("not found")));
        run = runCli({QStringLiteral("hash"), dir_.path()});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("folder")));
        QCOMPARE(runCli({QStringLiteral("hash")}).exitCode, 2);
    }

    void keygen() {
        const Run run = runCli({QStringLiteral("keygen"), QStringLiteral("--out"), path(QStringLiteral("alice"))});
        QCOMPARE(run.exitCode, 0);
        const QRegularExpressionMatch match = QRegularExpression(QStringLiteral("key id ([0-9a-f]{16})\n")).match(run.out);
        QVERIFY2(match.hasMatch(), qPrintable(run.out));
        keyId_ = match.captured(1);
        const QFileInfo privateKey(path(QStringLiteral("alice.pem")));
        QVERIFY(privateKey.exists());
        QCOMPARE(privateKey.permissions() & ~(QFile::ReadUser | QFile::WriteUser | QFile::ReadOwner | QFile::WriteOwner),
                 QFile::Permissions());
        QVERIFY(QFileInfo::exists(path(QStringLiteral("alice.pub.pem"))));
        // Existing keys are not replaced.
        const Run again = runCli({QStringLiteral("keygen"), QStringLiteral("--out"), path(QStringLiteral("alice"))});
        QCOMPARE(again.exitCode, 2);
        QVERIFY(again.err.contains(QStringLiteral("already exists")));
        QCOMPARE(runCli({QStringLiteral("keygen")}).exitCode, 2);  // --out is required
    }

    void signAndVerify() {
        Run run = runCli({QStringLiteral("sign"), profile_, QStringLiteral("--key"), path(QStringLiteral("alice.pem"))});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(keyId_));
        QVERIFY(QFileInfo::exists(profile_ + QStringLiteral(".sig.json")));
        const QJsonObject envelope = QJsonDocument::fromJson(readAll(profile_ + QStringLiteral(".sig.json"))).object();
        QCOMPARE(envelope.value(QStringLiteral("payloadType")).toString(),
                 QStringLiteral("application/vnd.tunescope.profile+json"));

        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("alice.pub.pem"))});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QStringLiteral("good signature, key id ") + keyId_ + QLatin1Char('\n'));

        // Re-indented: still good.
        const QJsonDocument document = QJsonDocument::fromJson(readAll(seedPath()));
        QVERIFY(writeAll(profile_, document.toJson(QJsonDocument::Indented)));
        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("alice.pub.pem"))});
        QCOMPARE(run.exitCode, 0);

        // One value changed: bad, exit 1, and the reason names it.
        QByteArray changed = readAll(seedPath());
        changed.replace("\"cache_mode\": \"strict\"", "\"cache_mode\": \"lenient\"");
        QVERIFY(writeAll(profile_, changed));
        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("alice.pub.pem"))});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(QStringLiteral("/cache_mode")), qPrintable(run.out));
        QVERIFY(writeAll(profile_, readAll(seedPath())));
    }

    void wrongKeyAndTamperedSignature() {
        QCOMPARE(runCli({QStringLiteral("keygen"), QStringLiteral("--out"), path(QStringLiteral("bob"))}).exitCode, 0);
        Run run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("bob.pub.pem"))});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.contains(QStringLiteral("does not verify")));

        QByteArray envelope = readAll(profile_ + QStringLiteral(".sig.json"));
        const int sigAt = envelope.indexOf("\"sig\": \"") + 8;
        envelope[sigAt] = envelope[sigAt] == 'A' ? 'B' : 'A';
        const QString tampered = path(QStringLiteral("tampered.sig.json"));
        QVERIFY(writeAll(tampered, envelope));
        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("alice.pub.pem")),
                      QStringLiteral("--sig"), tampered});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(writeAll(tampered, "not json"));
        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("alice.pub.pem")),
                      QStringLiteral("--sig"), tampered});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.contains(QStringLiteral("not valid JSON")));
    }

    void verifyUsageAndIoErrors() {
        // Missing signature file, missing key, missing profile, missing --pubkey: exit 2, never 0 or 1.
        const QString pub = path(QStringLiteral("alice.pub.pem"));
        Run run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), pub, QStringLiteral("--sig"),
                          path(QStringLiteral("none.sig.json"))});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("none.sig.json")));
        QCOMPARE(runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("x.pub.pem"))}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("verify"), path(QStringLiteral("gone.json")), QStringLiteral("--pubkey"), pub}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("verify"), profile_}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("sign"), profile_}).exitCode, 2);
    }

    void encryptedKeyPassphrases() {
        const QString pass = path(QStringLiteral("pass.txt"));
        QVERIFY(writeAll(pass, "s3cret passphrase\n"));
        Run run = runCli({QStringLiteral("keygen"), QStringLiteral("--out"), path(QStringLiteral("locked")),
                          QStringLiteral("--passphrase-file"), pass});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QStringLiteral("encrypted")));
        QVERIFY(readAll(path(QStringLiteral("locked.pem"))).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
        const QString signature = path(QStringLiteral("locked.sig.json"));

        const QString wrong = path(QStringLiteral("wrong.txt"));
        QVERIFY(writeAll(wrong, "not it\n"));
        run = runCli({QStringLiteral("sign"), profile_, QStringLiteral("--key"), path(QStringLiteral("locked.pem")),
                      QStringLiteral("--passphrase-file"), wrong, QStringLiteral("--out"), signature});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("wrong passphrase")), qPrintable(run.err));
        QVERIFY(!QFileInfo::exists(signature));

        run = runCli({QStringLiteral("sign"), profile_, QStringLiteral("--key"), path(QStringLiteral("locked.pem")),
                      QStringLiteral("--out"), signature});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("--passphrase-file")));

        run = runCli({QStringLiteral("sign"), profile_, QStringLiteral("--key"), path(QStringLiteral("locked.pem")),
                      QStringLiteral("--passphrase-file"), pass, QStringLiteral("--out"), signature});
        QCOMPARE(run.exitCode, 0);
        run = runCli({QStringLiteral("verify"), profile_, QStringLiteral("--pubkey"), path(QStringLiteral("locked.pub.pem")),
                      QStringLiteral("--sig"), signature});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith(QStringLiteral("good signature, key id ")));
    }
};

QTEST_GUILESS_MAIN(TestCliSigning)
#include "tst_cli_signing.moc"
