#include "case.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace l30eval {

using nlohmann::json;

const CaseItem* Case::find(const std::string& report_id) const {
  for (const auto& it : items)
    if (it.report_id == report_id) return &it;
  return nullptr;
}

namespace {

const std::set<std::string> kSources{"hackernews", "reddit", "github", "stackexchange", "lobsters", "polymarket", "arxiv"};

std::string native_id(const json& item) {
  const auto& id = item.at("id");
  return id.is_string() ? id.get<std::string>() : std::to_string(id.get<long long>());
}

std::string report_id(const std::string& source, const json& item) {
  if (source == "github") return "github:" + item.value("kind", std::string("repo")) + ":" + native_id(item);
  return source + ":" + native_id(item);
}

}  // namespace

Case load_case(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  const json doc = json::parse(ss.str(), nullptr, false);
  auto fail = [&](const std::string& why) { return std::runtime_error(path + ": " + why); };
  if (doc.is_discarded() || !doc.is_object()) throw fail("not a JSON object");
  Case c;
  c.name = std::filesystem::path(path).stem().string();
  c.topic = doc.value("topic", "");
  c.cls = doc.value("class", "");
  c.as_of = doc.value("as_of", c.as_of);
  c.days = doc.value("days", c.days);
  c.depth = doc.value("depth", c.depth);
  if (doc.contains("plan")) c.plan = doc["plan"];
  if (c.topic.empty() || c.cls.empty()) throw fail("needs 'topic' and 'class'");
  if (!core::parse_date(c.as_of)) throw fail("bad as_of");
  std::set<std::string> ids;
  for (const auto& raw : doc.value("items", json::array())) {
    CaseItem it;
    it.source = raw.value("source", "");
    if (!kSources.count(it.source)) throw fail("unknown source '" + it.source + "'");
    if (!raw.contains("id")) throw fail("an item has no id");
    it.report_id = report_id(it.source, raw);
    if (!ids.insert(it.report_id).second) throw fail("duplicate item " + it.report_id);
    const auto at = core::parse_iso8601(raw.value("at", ""));
    if (!at) throw fail(it.report_id + ": 'at' must be ISO-8601 UTC");
    it.at = *at;
    if (!raw.contains("grade") || !raw["grade"].is_number_integer()) throw fail(it.report_id + ": no grade");
    it.label.grade = raw["grade"].get<int>();
    if (it.label.grade < 0 || it.label.grade > 3) throw fail(it.report_id + ": grade must be 0..3");
    it.label.wrong_entity = raw.value("wrong_entity", false);
    if (it.label.wrong_entity && it.label.grade > 1) throw fail(it.report_id + ": a wrong entity cannot grade above 1");
    it.label.story = raw.value("story", "");
    it.label.note = raw.value("note", "");
    if (it.label.note.empty()) throw fail(it.report_id + ": every label says why ('note')");
    it.data = raw;
    c.items.push_back(std::move(it));
  }
  if (c.items.empty()) throw fail("no items");
  // One story, one grade: a cross-post is exactly as relevant as the post it repeats.
  for (const auto& a : c.items)
    for (const auto& b : c.items)
      if (!a.label.story.empty() && a.label.story == b.label.story && a.label.grade != b.label.grade)
        throw fail("story '" + a.label.story + "' has items with different grades");
  return c;
}

std::vector<Case> load_cases(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<Case> out;
  for (const auto& f : files) out.push_back(load_case(f));
  return out;
}

}  // namespace l30eval
