#pragma once
// Ranking quality of one report against a case's labels, at a cutoff of 5.
//   nDCG@5   gain 2^grade - 1, discount log2(rank + 1); the ideal ranking is the case's own
//            labels, best first, each story once. A story seen higher up gains nothing again.
//   P@5      share of the first five that a reader would call relevant (grade >= 2),
//            over five places: a brief with two good items and nothing else scores 0.4.
//   wrong@5  items about another entity (labelled wrong_entity) among the first five.
//   recall   relevant stories (grade >= 2, each story once) the upstream served for the
//            searches the binary sent, over the relevant stories of the case: what the
//            planner's queries let the ranker see at all.
#include <set>
#include <string>
#include <vector>

#include "case.hpp"

namespace l30eval {

constexpr std::size_t kCutoff = 5;
constexpr int kRelevantGrade = 2;

struct Metrics {
  double ndcg = 0;
  double precision = 0;
  int wrong = 0;
  std::vector<std::string> unknown;  // report ids the case has no label for (a case bug)
};

// ranked: the report's item ids, best first.
Metrics score(const Case& c, const std::vector<std::string>& ranked);

struct Recall {
  int reached = 0;                  // relevant stories with at least one item served
  int relevant = 0;                 // relevant stories in the case
  std::vector<std::string> missed;  // one report id per relevant story never served
  double ratio() const { return relevant > 0 ? static_cast<double>(reached) / relevant : 1.0; }
};

// served: the report ids of the items the fake upstream answered with.
Recall recall(const Case& c, const std::set<std::string>& served);

}  // namespace l30eval
