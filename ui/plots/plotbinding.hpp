#pragma once
// A plot over the open documents: the profile's configs as markers, the results as data, kept in step as either
// changes (results that stream in from a running sweep redraw the plot at most a few times a second). The plots page
// and the sweep page's live plot both use it.
#include "plots/plotwidget.hpp"
#include "tunescope/formats/profile.hpp"

namespace tunescope::ui {

class ProfileDocument;
class ResultsDocument;

// The profile's config at each NB, as plot markers (prospective entries marked as such).
PolicyMarkers policyMarkers(const Profile& profile);

// Keeps `plot` in step with the documents: markers follow the profile, data follows the results (throttled).
void bindPlot(PlotWidget* plot, ProfileDocument* profile, ResultsDocument* results);

}  // namespace tunescope::ui
