#include "plots/plotbinding.hpp"

#include <QTimer>

#include "documents/profiledocument.hpp"
#include "documents/resultsdocument.hpp"

namespace tunescope::ui {

PolicyMarkers policyMarkers(const Profile& profile) {
    PolicyMarkers markers;
    for (const PolicyEntry& entry : profile.per_NB_policy)
        markers[static_cast<int>(entry.NB)] = PolicyMarker{toL2NormConfig(entry.config), entry.isProspective()};
    return markers;
}

void bindPlot(PlotWidget* plot, ProfileDocument* profile, ResultsDocument* results) {
    auto markers = [profile] { return profile && profile->hasProfile() ? policyMarkers(profile->profile()) : PolicyMarkers{}; };
    plot->setResults(&results->index(), markers());
    // Streaming results arrive one measurement at a time; redraw at most every 250 ms.
    auto* throttle = new QTimer(plot);
    throttle->setSingleShot(true);
    throttle->setInterval(250);
    QObject::connect(throttle, &QTimer::timeout, plot, &PlotWidget::refresh);
    QObject::connect(results, &ResultsDocument::appended, throttle, [throttle] {
        if (!throttle->isActive()) throttle->start();
    });
    QObject::connect(results, &ResultsDocument::reset, plot, &PlotWidget::refresh);
    auto updateMarkers = [plot, markers] { plot->setMarkers(markers()); };
    QObject::connect(profile, &ProfileDocument::reset, plot, updateMarkers);
    QObject::connect(profile, &ProfileDocument::entriesChanged, plot, updateMarkers);
}

}  // namespace tunescope::ui
