#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace l30eval {

namespace {
double gain(int grade) { return std::pow(2.0, grade) - 1.0; }
double discount(std::size_t rank0) { return 1.0 / std::log2(static_cast<double>(rank0) + 2.0); }
std::string story_of(const CaseItem& it) { return it.label.story.empty() ? "item:" + it.report_id : "story:" + it.label.story; }
}  // namespace

Metrics score(const Case& c, const std::vector<std::string>& ranked) {
  Metrics m;
  // Ideal: every story once, at its grade.
  std::map<std::string, int> best;
  for (const auto& it : c.items) best[story_of(it)] = std::max(best[story_of(it)], it.label.grade);
  std::vector<int> grades;
  for (const auto& [story, g] : best) grades.push_back(g);
  std::sort(grades.rbegin(), grades.rend());
  double ideal = 0;
  for (std::size_t i = 0; i < std::min(kCutoff, grades.size()); ++i) ideal += gain(grades[i]) * discount(i);

  double dcg = 0;
  int relevant = 0;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < std::min(kCutoff, ranked.size()); ++i) {
    const CaseItem* it = c.find(ranked[i]);
    if (it == nullptr) {
      m.unknown.push_back(ranked[i]);
      continue;
    }
    if (it->label.wrong_entity) ++m.wrong;
    if (!seen.insert(story_of(*it)).second) continue;  // the same story again adds nothing
    dcg += gain(it->label.grade) * discount(i);
    if (it->label.grade >= kRelevantGrade) ++relevant;
  }
  m.ndcg = ideal > 0 ? dcg / ideal : 1.0;
  m.precision = static_cast<double>(relevant) / static_cast<double>(kCutoff);
  return m;
}

Recall recall(const Case& c, const std::set<std::string>& served) {
  std::map<std::string, const CaseItem*> first;  // relevant story -> its first item
  std::set<std::string> reached;
  for (const auto& it : c.items) {
    if (it.label.grade < kRelevantGrade) continue;
    first.emplace(story_of(it), &it);
    if (served.count(it.report_id)) reached.insert(story_of(it));
  }
  Recall r;
  r.relevant = static_cast<int>(first.size());
  r.reached = static_cast<int>(reached.size());
  for (const auto& [story, it] : first)
    if (!reached.count(story)) r.missed.push_back(it->report_id);
  return r;
}

}  // namespace l30eval
