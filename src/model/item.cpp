#include "model/item.hpp"

#include <algorithm>

namespace model {

double comparable_engagement(std::string_view source, const std::vector<Engagement>& engagement) {
  auto value = [&](std::string_view field) {
    for (const auto& e : engagement)
      if (e.field == field) return e.value;
    return 0.0;
  };
  if (source == "polymarket") {
    const double v24 = value("volume24hr");
    return v24 > 0 ? v24 / 1000.0 : value("volume") / 10000.0;
  }
  if (source == "wikipedia") {
    // Readers, not reactions: thousands of views above the span before, so a perennial
    // article (measured flat) counts nothing; an unmeasured one counts a quarter of its views.
    const bool measured = std::any_of(engagement.begin(), engagement.end(), [](const Engagement& e) { return e.field == "views_before"; });
    return (measured ? std::max(0.0, value("views") - value("views_before")) : value("views") / 4.0) / 1000.0;
  }
  double total = 0;
  for (const auto& e : engagement) {
    // Ratios and passive views (Stack Exchange, YouTube) are not reactions.
    if (e.field == "upvote_ratio" || e.field == "odds" || e.field == "view_count" || e.field == "views") continue;
    total += e.value;
  }
  return total;
}

}  // namespace model
