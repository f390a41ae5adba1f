#include <nlohmann/json.hpp>

#include <cmath>

#include "model/source_status_json.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"

namespace render {

namespace {

double round_to(double v, int digits) {
  const double m = std::pow(10.0, digits);
  return std::round(v * m) / m;
}

ojson opt(const std::optional<std::string>& s) { return s ? ojson(*s) : ojson(nullptr); }

ojson number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return ojson(static_cast<long long>(v));
  return ojson(round_to(v, 4));
}

ojson window_object(const model::Window& w) {
  return {{"from", core::format_date(w.from)}, {"to", core::format_date(w.to)}, {"days", w.days}};
}

ojson comments_json(const std::vector<model::Comment>& comments) {
  ojson out = ojson::array();
  for (const auto& c : comments) {
    ojson one{
        {"author", opt(c.author)}, {"text", c.text}, {"score", c.score ? number(*c.score) : ojson(nullptr)}, {"url", opt(c.url)}};
    if (c.replies) one["replies"] = *c.replies;
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace

ojson item_json(const model::Item& it) {
  ojson eng = ojson::object();
  for (const auto& e : it.engagement) eng[e.field] = number(e.value);
  ojson also = ojson::array();
  for (const auto& s : it.also_seen) {
    ojson se = ojson::object();
    for (const auto& e : s.engagement) se[e.field] = number(e.value);
    also.push_back({{"source", s.source},
                    {"url", s.url},
                    {"title", s.title},
                    {"discussion_url", opt(s.discussion_url)},
                    {"engagement", se}});
    if (!s.comments.empty()) also.back()["comments"] = comments_json(s.comments);
  }
  ojson j{{"id", it.id},
          {"source", it.source},
          {"title", it.title},
          {"url", it.url},
          {"author", opt(it.author)},
          {"container", opt(it.container)},
          {"tags", it.tags},
          {"published_at", it.published_at ? ojson(core::format_iso8601(*it.published_at)) : ojson(nullptr)},
          {"engagement", eng},
          {"snippet", it.snippet},
          {"scores",
           {{"relevance", round_to(it.scores.relevance, 3)},
            {"freshness", round_to(it.scores.freshness, 1)},
            {"engagement", round_to(it.scores.engagement, 1)},
            {"final", round_to(it.scores.final, 1)}}},
          {"why", it.why},
          {"cluster", it.cluster},
          {"discussion_url", opt(it.discussion_url)},
          {"date_reliable", it.dated()},
          {"also_seen", also}};
  if (it.seen_before) {
    j["seen_before"] = *it.seen_before > 0;
    j["seen_runs_ago"] = *it.seen_before;  // runs of this topic since it was first seen
  }
  if (!it.comments.empty()) j["comments"] = comments_json(it.comments);
  return j;
}

ojson status_json(const std::map<std::string, model::SourceStatus>& source_status) {
  return model::source_status_json(source_status);
}

namespace {

// The research object (spec §5): a whole --emit json document, or one entity of a comparison.
ojson report_object(const model::Report& r) {
  const ojson status = status_json(r.source_status);
  ojson items = ojson::array();
  for (const auto& it : r.items) items.push_back(item_json(it));
  ojson clusters = ojson::array();
  for (const auto& c : r.clusters)
    clusters.push_back({{"id", c.id},
                        {"title", c.title},
                        {"score", round_to(c.score, 1)},
                        {"sources", c.sources},
                        {"items", c.items},
                        {"uncertainty", opt(c.uncertainty)}});
  ojson subs = ojson::array();
  for (const auto& q : r.plan.sub_queries) subs.push_back({{"query", q.text}, {"weight", q.weight}});
  ojson synonyms = ojson::object();
  for (const auto& syn : r.plan.synonyms) synonyms[syn.term] = syn.alternatives;
  ojson doc{{"schema_version", 1},
            {"kind", "research"},
            {"topic", r.topic},
            {"depth", std::string(model::to_string(r.depth))},
            {"window", window_object(r.window)},
            {"generated_at", core::format_iso8601(r.generated_at)},
            {"source_status", status},
            {"items", items},
            {"clusters", clusters},
            {"warnings", r.warnings},
            {"outcome", r.outcome == model::Outcome::ok ? "ok" : "nothing-solid"},
            {"plan",
             {{"intent", r.plan.intent},
              {"sub_queries", subs},
              {"source_weights", r.plan.source_weights},
              {"synonyms", synonyms},
              {"from_host", r.plan.from_host}}}};
  if (r.synthesis) doc["synthesis"] = synthesis_json(*r.synthesis);
  if (r.history)
    doc["history"] = {
        {"runs_before", r.history->runs_before},
        {"last_run_at", r.history->last_run_at ? ojson(core::format_iso8601(*r.history->last_run_at)) : ojson(nullptr)}};
  return doc;
}

}  // namespace

std::string dump(const ojson& doc) { return doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n"; }

std::string research_json(const model::Report& r) { return dump(report_object(r)); }

std::string comparison_json(const model::Comparison& c) {
  ojson entities = ojson::array();
  for (const auto& e : c.entities) {
    const auto s = summarize(e.report);
    ojson by_source = ojson::object();
    for (const auto& [src, v] : s.engagement_by_source) by_source[src] = number(round_to(v, 1));
    entities.push_back({{"name", e.name},
                        {"summary",
                         {{"items", s.items},
                          {"stories", s.stories},
                          {"engagement", number(round_to(s.engagement, 1))},
                          {"engagement_by_source", by_source}}},
                        {"report", report_object(e.report)}});
  }
  ojson shared = ojson::array();
  for (const auto& st : c.shared) {
    ojson clusters = ojson::array();
    for (const auto& m : st.members) clusters.push_back({{"entity", c.entities[m.entity].name}, {"cluster", m.cluster}});
    shared.push_back({{"title", st.title}, {"url", st.url}, {"entities", st.entities}, {"clusters", clusters}});
  }
  ojson doc{{"schema_version", 1},
            {"kind", "comparison"},
            {"topic", c.topic},
            {"depth", std::string(model::to_string(c.depth))},
            {"window", window_object(c.window)},
            {"generated_at", core::format_iso8601(c.generated_at)},
            {"entities", entities},
            {"shared_stories", shared},
            {"warnings", c.warnings},
            {"outcome", c.outcome == model::Outcome::ok ? "ok" : "nothing-solid"}};
  if (c.synthesis) doc["synthesis"] = synthesis_json(*c.synthesis);
  return dump(doc);
}

}  // namespace render
