#include "model/item.hpp"

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
  double total = 0;
  for (const auto& e : engagement) {
    if (e.field == "upvote_ratio" || e.field == "odds" || e.field == "view_count") continue;  // ratios and passive views
    total += e.value;
  }
  return total;
}

}  // namespace model
