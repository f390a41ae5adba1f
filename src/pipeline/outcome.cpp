#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "pipeline/stages.hpp"

namespace pipeline {

namespace {
constexpr std::size_t kThinItems = 5;
constexpr double kConcentrated = 0.7;
}  // namespace

model::Outcome decide_outcome(const std::vector<model::Item>& items, const std::map<std::string, model::SourceStatus>& status,
                              std::vector<std::string>& warnings) {
  std::vector<std::string> degraded;
  std::size_t asked = 0;
  for (const auto& [id, st] : status) {
    if (st.state != model::SourceState::skipped_unconfigured) ++asked;
    if (model::is_degraded(st.state)) degraded.push_back(fmt::format("{} ({})", id, model::to_string(st.state)));
  }
  if (!degraded.empty()) {
    std::string list;
    for (const auto& d : degraded) list += (list.empty() ? "" : ", ") + d;
    warnings.push_back(fmt::format("{} of {} sources degraded: {}", degraded.size(), asked, list));
  }
  const bool nothing_asked = !status.empty() && !model::any_answered(status);
  if (nothing_asked)
    warnings.push_back("no source answered: the brief is empty because no source could be reached, not because nothing happened");

  if (!items.empty() && items.size() < kThinItems)
    warnings.push_back(
        fmt::format("thin evidence: only {} item{} survived filtering", items.size(), items.size() == 1 ? "" : "s"));
  if (items.size() >= kThinItems) {
    std::map<std::string, std::size_t> per_source;
    for (const auto& it : items) ++per_source[it.source];
    for (const auto& [src, count] : per_source) {
      const double share = static_cast<double>(count) / static_cast<double>(items.size());
      if (share > kConcentrated)
        warnings.push_back(fmt::format("concentrated evidence: {:.0f}% of items come from {}", share * 100, src));
    }
  }
  const auto undated = std::count_if(items.begin(), items.end(), [](const model::Item& it) { return !it.dated(); });
  if (undated > 0)
    warnings.push_back(
        fmt::format("{} item{} without a reliable date (ranked below dated ones)", undated, undated == 1 ? "" : "s"));

  const bool solid = std::any_of(items.begin(), items.end(), [](const model::Item& it) {
    return it.scores.final >= kSolidFinal && it.scores.relevance >= kSolidRelevance;
  });
  // With nothing asked, "no source answered" already says why the brief is empty.
  if (!solid && !nothing_asked)
    warnings.push_back(items.empty() ? "nothing solid: nothing in the window matched the topic"
                                     : "nothing solid: no item cleared the relevance and score floor");
  return solid ? model::Outcome::ok : model::Outcome::nothing_solid;
}

}  // namespace pipeline
