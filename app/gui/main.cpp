// The TuneScope desktop app: a thin shell over the ui library. `tunescope [FILE...]` opens the files given
// (profiles, sweep results, cuBLASLt reports); `tunescope --screenshots DIR [--results FILE] [--report FILE]` renders every main
// view to PNG files in DIR and exits (docs/gui.md).
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include "mainwindow.hpp"
#include "screenshots.hpp"
#include "tunescope/version.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TuneScope"));
    QApplication::setApplicationName(QStringLiteral("TuneScope"));
    QApplication::setApplicationVersion(QString::fromStdString(tunescope::versionString()));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/tunescope/tunescope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("TuneScope: GPU kernel launch settings per problem size"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Profiles, sweep results or cuBLASLt reports to open"),
                                 QStringLiteral("[FILE...]"));
    QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                   QStringLiteral("Render each main view to PNG files in DIR, then exit."), QStringLiteral("DIR"));
    QCommandLineOption results(QStringLiteral("results"),
                               QStringLiteral("Sweep results file the screenshots' plots use."), QStringLiteral("FILE"));
    QCommandLineOption report(QStringLiteral("report"),
                              QStringLiteral("cuBLASLt explorer report the screenshots also show."), QStringLiteral("FILE"));
    parser.addOption(screenshots);
    parser.addOption(results);
    parser.addOption(report);
    parser.process(app);

    if (parser.isSet(screenshots))
        return tunescope::ui::takeScreenshots(parser.value(screenshots), parser.value(results), parser.value(report));

    tunescope::ui::MainWindow window;
    window.show();
    for (const QString& file : parser.positionalArguments()) window.openFile(file);
    return app.exec();
}
