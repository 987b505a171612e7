// The TuneScope desktop app: a thin shell over the ui library. `tunescope [FILE...]` opens the files given
// (profiles, sweep results, cuBLASLt reports); `tunescope --screenshots DIR [--results FILE] [--report FILE]
// [--compare-a FILE --compare-b FILE] [--capture-sweep FILE] [--fla-config-dir DIR [--fla-config-dir-compare DIR]]`
// renders every main view to PNG files in DIR and exits (docs/gui.md).
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>

#include "mainwindow.hpp"
#include "screenshots.hpp"
#include "tunescope/base/version.hpp"

namespace {

// The options, shared by the display-free pass and the real one.
struct Options {
    QCommandLineOption screenshots{QStringLiteral("screenshots"),
                                   QStringLiteral("Render each main view to PNG files in DIR, then exit."), QStringLiteral("DIR")};
    QCommandLineOption results{QStringLiteral("results"), QStringLiteral("Sweep results file the screenshots' plots use."),
                               QStringLiteral("FILE")};
    QCommandLineOption report{QStringLiteral("report"), QStringLiteral("cuBLASLt explorer report the screenshots also show."),
                              QStringLiteral("FILE")};
    QCommandLineOption compareA{QStringLiteral("compare-a"),
                                QStringLiteral("Baseline results file for the screenshots' compare view."), QStringLiteral("FILE")};
    QCommandLineOption compareB{QStringLiteral("compare-b"),
                                QStringLiteral("Results file the screenshots' compare view compares with the baseline."),
                                QStringLiteral("FILE")};
    QCommandLineOption captureSweep{QStringLiteral("capture-sweep"),
                                    QStringLiteral("sweep --manifest results file the screenshots' capture-sweep page shows."),
                                    QStringLiteral("FILE")};
    QCommandLineOption flaConfigDir{QStringLiteral("fla-config-dir"),
                                    QStringLiteral("FLA_CONFIG_DIR (capture export-fla's folder) the screenshots' page shows."),
                                    QStringLiteral("DIR")};
    QCommandLineOption flaConfigDirCompare{QStringLiteral("fla-config-dir-compare"),
                                           QStringLiteral("Second FLA_CONFIG_DIR that page compares with --fla-config-dir."),
                                           QStringLiteral("DIR")};
};

void describe(QCommandLineParser& parser, const Options& options) {
    parser.setApplicationDescription(QStringLiteral("TuneScope: GPU kernel launch settings per problem size"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"),
                                 QStringLiteral("Profiles, sweep results (.jsonl, .jsonl.gz) or cuBLASLt reports to open"),
                                 QStringLiteral("[FILE...]"));
    parser.addOptions(
        {options.screenshots, options.results, options.report, options.compareA, options.compareB, options.captureSweep,
         options.flaConfigDir, options.flaConfigDirCompare});
}

void setIdentity() {
    QCoreApplication::setOrganizationName(QStringLiteral("TuneScope"));
    QCoreApplication::setApplicationName(QStringLiteral("TuneScope"));
    QCoreApplication::setApplicationVersion(QString::fromStdString(tunescope::versionString()));
}

}  // namespace

int main(int argc, char** argv) {
    const Options options;
    {
        // Parse first without a GUI: --help, --version and usage errors must work where there is no display (a
        // QApplication aborts there), e.g. over ssh or in CI. process() prints and exits for those.
        QCoreApplication core(argc, argv);
        setIdentity();
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(core);
    }

    QApplication app(argc, argv);
    setIdentity();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/tunescope/tunescope.svg")));
    QCommandLineParser parser;
    describe(parser, options);
    parser.process(app);

    if (parser.isSet(options.screenshots))
        return tunescope::ui::takeScreenshots(parser.value(options.screenshots), parser.value(options.results),
                                              parser.value(options.report), parser.value(options.compareA),
                                              parser.value(options.compareB), parser.value(options.captureSweep),
                                              parser.value(options.flaConfigDir), parser.value(options.flaConfigDirCompare));

    tunescope::ui::MainWindow window;
    window.show();
    for (const QString& file : parser.positionalArguments()) window.openFile(file);
    return app.exec();
}
