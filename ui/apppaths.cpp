#include "apppaths.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace tunescope::ui {

QString bundledProfilesDir() {
    QStringList candidates;
    const QString fromEnv = qEnvironmentVariable("TUNESCOPE_PROFILES");
    if (!fromEnv.isEmpty()) candidates << fromEnv;
    if (QCoreApplication::instance())
        candidates << QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/tunescope/profiles"));
    candidates << QStringLiteral(TUNESCOPE_SOURCE_PROFILES_DIR);
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isDir() && !QDir(candidate).entryList({QStringLiteral("*.json")}, QDir::Files).isEmpty())
            return info.canonicalFilePath();
    }
    return {};
}

QStringList bundledSamples() {
    const QString dir = bundledProfilesDir();
    if (dir.isEmpty()) return {};
    QStringList files;
    for (const QString& name : QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        files << QDir(dir).filePath(name);
    return files;
}

}  // namespace tunescope::ui
