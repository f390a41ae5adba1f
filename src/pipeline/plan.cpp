#include "pipeline/plan.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/text.hpp"
#include "sources/source.hpp"

namespace pipeline {

int max_sub_queries(model::Depth depth) {
  switch (depth) {
    case model::Depth::quick: return 1;
    case model::Depth::standard: return 3;
    case model::Depth::deep: return 5;
  }
  return 3;
}

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Splits "a vs b", "a versus b", "a or b" comparisons.
std::vector<std::string> comparison_sides(const std::vector<std::string>& words) {
  for (std::size_t i = 1; i + 1 < words.size(); ++i) {
    if (words[i] == "vs" || words[i] == "versus" || words[i] == "v") {
      return {join({words.begin(), words.begin() + static_cast<long>(i)}),
              join({words.begin() + static_cast<long>(i) + 1, words.end()})};
    }
  }
  return {};
}

void add_unique(model::Plan& p, std::string text, double weight, int cap) {
  text = core::collapse_whitespace(text);
  if (text.empty() || static_cast<int>(p.sub_queries.size()) >= cap) return;
  for (const auto& q : p.sub_queries)
    if (core::casefold(q.text) == core::casefold(text)) return;
  p.sub_queries.push_back({text, weight});
}

}  // namespace

model::Plan make_plan(std::string_view topic_in, model::Depth depth) {
  const std::string topic = core::collapse_whitespace(topic_in);
  const auto words = core::tokenize(topic);
  const std::string folded = core::casefold(topic);
  model::Plan p;
  const auto sides = comparison_sides(words);
  const auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  if (!sides.empty()) p.intent = "comparison";
  else if (folded.rfind("how ", 0) == 0 || has("tutorial") || has("error") || has("fix")) p.intent = "howto";
  else if (has("will") || has("odds") || has("election") || has("prediction") || has("forecast")) p.intent = "prediction";
  else if (has("paper") || has("papers") || has("research") || has("arxiv") || has("benchmark")) p.intent = "research";
  else if (has("launch") || has("release") || has("pricing") || has("review")) p.intent = "product";
  else p.intent = "news";

  const int cap = max_sub_queries(depth) + (sides.empty() ? 0 : 1);
  add_unique(p, topic, 1.0, cap);
  for (const auto& side : sides) add_unique(p, side, 0.8, cap);
  // The topic without filler words finds titles that phrase it differently.
  std::vector<std::string> core_words;
  for (const auto& w : words)
    if (!core::is_stopword(w) && !(core::is_generic(w) && words.size() > 2)) core_words.push_back(w);
  if (core_words.size() >= 1 && core_words.size() < words.size()) add_unique(p, join(core_words), 0.7, cap);
  if (depth != model::Depth::quick && core_words.size() >= 3) {
    // The two most distinctive words (longest) alone widen recall on long topics.
    auto sorted = core_words;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    add_unique(p, sorted[0] + " " + sorted[1], 0.5, cap);
  }
  if (depth == model::Depth::deep && words.size() >= 2) add_unique(p, "\"" + topic + "\"", 0.6, cap);

  auto& w = p.source_weights;
  if (p.intent == "howto") w = {{"stackexchange", 1.3}, {"github", 1.1}, {"polymarket", 0.5}};
  else if (p.intent == "prediction") w = {{"polymarket", 1.5}, {"arxiv", 0.7}};
  else if (p.intent == "research") w = {{"arxiv", 1.4}, {"github", 1.1}, {"polymarket", 0.6}};
  else if (p.intent == "comparison") w = {{"reddit", 1.15}, {"hackernews", 1.1}, {"stackexchange", 1.1}};
  else if (p.intent == "product") w = {{"reddit", 1.1}, {"hackernews", 1.1}};
  return p;
}

std::optional<model::Plan> parse_host_plan(std::string_view json_text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<model::Plan> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("--plan is not a JSON object");
  model::Plan p;
  p.from_host = true;
  p.intent = "news";
  if (auto it = j.find("intent"); it != j.end()) {
    if (!it->is_string()) return fail("--plan: 'intent' must be a string");
    p.intent = it->get<std::string>();
  }
  auto subs = j.find("sub_queries");
  if (subs == j.end()) subs = j.find("subqueries");
  if (subs == j.end() || !subs->is_array() || subs->empty()) return fail("--plan: 'sub_queries' must be a non-empty array");
  if (subs->size() > 5) return fail("--plan: at most 5 sub_queries");
  for (const auto& s : *subs) {
    model::SubQuery q;
    if (s.is_string()) {
      q.text = s.get<std::string>();
    } else if (s.is_object()) {
      auto t = s.find("query");
      if (t == s.end()) t = s.find("text");
      if (t == s.end() || !t->is_string()) return fail("--plan: each sub-query needs a string 'query'");
      q.text = t->get<std::string>();
      if (auto w = s.find("weight"); w != s.end()) {
        if (!w->is_number() || w->get<double>() <= 0 || w->get<double>() > 5)
          return fail("--plan: sub-query 'weight' must be a number in (0, 5]");
        q.weight = w->get<double>();
      }
    } else {
      return fail("--plan: sub_queries entries must be strings or objects");
    }
    q.text = core::collapse_whitespace(core::sanitize_utf8(q.text));
    if (q.text.empty() || core::utf8_length(q.text) > kMaxTopicChars)
      return fail(fmt::format("--plan: sub-query text must be 1..{} characters", kMaxTopicChars));
    p.sub_queries.push_back(std::move(q));
  }
  if (auto sw = j.find("source_weights"); sw != j.end()) {
    if (!sw->is_object()) return fail("--plan: 'source_weights' must be an object");
    for (const auto& [k, v] : sw->items()) {
      const auto* src = sources::find(k);
      if (src == nullptr) return fail("--plan: unknown source '" + k + "' in source_weights");
      if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 5)
        return fail("--plan: source weight for '" + k + "' must be a number in [0, 5]");
      p.source_weights[std::string(src->id())] = v.get<double>();
    }
  }
  return p;
}

}  // namespace pipeline
