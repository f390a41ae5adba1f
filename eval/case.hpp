#pragma once
// One labelled evaluation case: a topic, the items the upstream platforms hold for it
// (compact records, rendered into each platform's real answer format by upstream.cpp),
// and a careful reader's grade for every item. Format: eval/README.md.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/time.hpp"

namespace l30eval {

struct Label {
  int grade = 0;              // 0 off topic .. 3 exactly what the user asked about
  bool wrong_entity = false;  // about another thing that shares the topic's name
  std::string story;          // items of one story (cross-posts) share this; "" = its own
  std::string note;           // why the grade
};

struct CaseItem {
  std::string source;        // source id: hackernews, reddit, github, stackexchange, lobsters, polymarket, arxiv
  std::string report_id;     // the id the report gives it: "<source>:<native id>" (github: "github:repo:<id>")
  core::UnixSeconds at = 0;  // when it was posted or created
  nlohmann::json data;       // the compact record as written in the case file
  Label label;
};

struct Case {
  std::string name;  // file name without .json
  std::string topic;
  std::string cls;  // the case class
  std::string as_of = "2026-11-29";
  int days = 30;
  std::string depth = "default";       // quick | default | deep
  std::optional<nlohmann::json> plan;  // passed as --plan when present
  std::vector<CaseItem> items;

  const CaseItem* find(const std::string& report_id) const;
};

// Reads and checks a case file; throws std::runtime_error naming the file and the problem.
Case load_case(const std::string& path);
// Every *.json under dir, sorted by name.
std::vector<Case> load_cases(const std::string& dir);

}  // namespace l30eval
