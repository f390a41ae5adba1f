#include "discover/protocol.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/text.hpp"

namespace discover {

using nlohmann::json;

std::string new_bundle_id() {
  std::random_device rd;
  const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(core::now_unix());
  return "b-" + core::hex64(r).substr(0, 12);
}

namespace {

json opt(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }
std::optional<std::string> opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

json item_to_json(const model::Item& it) {
  json eng = json::object();
  for (const auto& e : it.engagement) eng[e.field] = e.value;
  return {{"id", it.id},         {"source", it.source},       {"title", it.title},
          {"url", it.url},       {"discussion_url", opt(it.discussion_url)},
          {"author", opt(it.author)}, {"container", opt(it.container)},
          {"published_at", it.published_at ? json(core::format_iso8601(*it.published_at)) : json(nullptr)},
          {"engagement", eng},   {"snippet", it.snippet}};
}

model::Item item_from_json(const json& j) {
  model::Item it;
  it.id = j.value("id", "");
  it.source = j.value("source", "");
  it.title = j.value("title", "");
  it.url = j.value("url", "");
  it.discussion_url = opt_str(j, "discussion_url");
  it.author = opt_str(j, "author");
  it.container = opt_str(j, "container");
  if (auto p = opt_str(j, "published_at")) it.published_at = core::parse_iso8601(*p);
  if (auto e = j.find("engagement"); e != j.end() && e->is_object())
    for (const auto& [k, v] : e->items())
      if (v.is_number()) it.engagement.push_back({k, v.get<double>()});
  it.snippet = j.value("snippet", "");
  return it;
}

json topic_to_json(const model::Topic& t) {
  json seeds = json::array();
  for (const auto& s : t.seeds) seeds.push_back(item_to_json(s));
  json enr = {{"status", std::string(model::to_string(t.enrichment.status))},
              {"error", opt(t.enrichment.error)},
              {"items", t.enrichment.items},
              {"top_urls", t.enrichment.top_urls},
              {"top_titles", t.enrichment.top_titles}};
  return {{"id", t.id},
          {"name", t.name},
          {"junk", t.junk},
          {"velocity_score", t.velocity},
          {"engagement", t.engagement},
          {"momentum", t.momentum},
          {"sources", t.sources},
          {"engagement_by_source", t.engagement_by_source},
          {"evidence_urls", t.evidence_urls},
          {"why", t.why},
          {"worthiness", t.worthiness ? json(*t.worthiness) : json(nullptr)},
          {"angles", t.angles},
          {"enrichment", enr},
          {"seed_items", seeds}};
}

std::optional<model::Topic> topic_from_json(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j.contains("name")) return std::nullopt;
  model::Topic t;
  t.id = j.value("id", "");
  t.name = j.value("name", "");
  t.junk = j.value("junk", false);
  t.velocity = j.value("velocity_score", 0.0);
  t.engagement = j.value("engagement", 0.0);
  t.momentum = j.value("momentum", "building");
  t.sources = j.value("sources", std::vector<std::string>{});
  t.engagement_by_source = j.value("engagement_by_source", std::map<std::string, double>{});
  t.evidence_urls = j.value("evidence_urls", std::vector<std::string>{});
  t.why = j.value("why", "");
  if (auto w = j.find("worthiness"); w != j.end() && w->is_number()) t.worthiness = w->get<double>();
  t.angles = j.value("angles", std::map<std::string, std::string>{});
  if (auto e = j.find("enrichment"); e != j.end() && e->is_object()) {
    const std::string status = e->value("status", "nomination-only");
    t.enrichment.status = status == "enriched" ? model::EnrichStatus::enriched
                          : status == "failed" ? model::EnrichStatus::failed
                                               : model::EnrichStatus::nomination_only;
    t.enrichment.error = opt_str(*e, "error");
    t.enrichment.items = e->value("items", 0);
    t.enrichment.top_urls = e->value("top_urls", std::vector<std::string>{});
    t.enrichment.top_titles = e->value("top_titles", std::vector<std::string>{});
  }
  if (auto s = j.find("seed_items"); s != j.end() && s->is_array())
    for (const auto& it : *s) t.seeds.push_back(item_from_json(it));
  return t;
}

json status_to_json(const std::map<std::string, model::SourceStatus>& status) {
  json out = json::object();
  for (const auto& [id, st] : status)
    out[id] = {{"state", std::string(model::to_string(st.state))}, {"items", st.items},
               {"reason", st.reason.empty() ? json(nullptr) : json(st.reason)}, {"elapsed_ms", st.elapsed_ms}};
  return out;
}

std::map<std::string, model::SourceStatus> status_from_json(const json& j) {
  std::map<std::string, model::SourceStatus> out;
  if (!j.is_object()) return out;
  for (const auto& [id, v] : j.items()) {
    model::SourceStatus st;
    st.state = model::parse_source_state(v.value("state", "error")).value_or(model::SourceState::error);
    st.items = v.value("items", 0);
    st.reason = opt_str(v, "reason").value_or("");
    st.elapsed_ms = v.value("elapsed_ms", 0L);
    out[id] = st;
  }
  return out;
}

json meta_to_json(const Bundle& b) {
  return {{"bundle_id", b.bundle_id},
          {"tier", b.tier},
          {"domain", b.domain},
          {"window", {{"from", core::format_date(b.window.from)}, {"to", core::format_date(b.window.to)}, {"days", b.window.days}}},
          {"scoring_clock", b.now},
          {"created_at", core::format_iso8601(b.created_wall)},
          {"created_unix", b.created_wall},
          {"expires_at", core::format_iso8601(b.created_wall + kBundleTtlSeconds)},
          {"replay", b.replay},
          {"sources", b.sources},
          {"source_status", status_to_json(b.source_status)}};
}

bool meta_from_json(const json& j, Bundle& b, std::string* error) {
  try {
    b.bundle_id = j.at("bundle_id").get<std::string>();
    b.tier = j.at("tier").get<std::string>();
    b.domain = j.value("domain", "");
    const auto& w = j.at("window");
    const auto from = core::parse_date(w.at("from").get<std::string>());
    const auto to = core::parse_date(w.at("to").get<std::string>());
    if (!from || !to) throw std::runtime_error("bad window");
    b.window.from = *from;
    b.window.to = *to + 86399;
    b.window.days = w.at("days").get<int>();
    b.now = j.at("scoring_clock").get<core::UnixSeconds>();
    b.created_wall = j.at("created_unix").get<core::UnixSeconds>();
    b.replay = j.value("replay", false);
    b.sources = j.value("sources", std::vector<std::string>{});
    b.source_status = status_from_json(j.value("source_status", json::object()));
    if (b.tier != "shallow" && b.tier != "deep") throw std::runtime_error("tier must be shallow or deep");
  } catch (const std::exception& e) {
    if (error) *error = std::string("malformed bundle: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace

std::string bundle_to_json(const Bundle& b) {
  json doc = meta_to_json(b);
  doc["schema_version"] = 1;
  doc["kind"] = "discovery-nominations";
  json rows = json::array();
  for (std::size_t i = 0; i < b.nominations.size() && i < 15; ++i) rows.push_back(topic_to_json(b.nominations[i]));
  doc["nominations"] = rows;
  doc["instructions"] =
      "Judge each nomination and write {\"bundle_id\": \"" + b.bundle_id +
      "\", \"judgments\": [{\"id\": \"n1\", \"name\": \"<short topic name>\", \"junk\": false, \"worthiness\": 0-100}, ...]}, "
      "then run: last30days --discover --judgments FILE (within an hour).";
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<Bundle> bundle_from_json(std::string_view text, std::string* error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    if (error) *error = "the nominations bundle is not valid JSON";
    return std::nullopt;
  }
  Bundle b;
  if (!meta_from_json(j, b, error)) return std::nullopt;
  for (const auto& row : j.value("nominations", json::array()))
    if (auto t = topic_from_json(row)) b.nominations.push_back(std::move(*t));
  return b;
}

std::optional<Judgments> parse_judgments(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Judgments> {
    if (error) *error = "--judgments: " + why;
    return std::nullopt;
  };
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  Judgments out;
  if (!j.contains("bundle_id") || !j["bundle_id"].is_string()) return fail("'bundle_id' (string) is required");
  out.bundle_id = j["bundle_id"].get<std::string>();
  if (!j.contains("judgments") || !j["judgments"].is_array()) return fail("'judgments' must be an array");
  for (const auto& row : j["judgments"]) {
    if (!row.is_object() || !row.contains("id") || !row["id"].is_string()) return fail("each judgment needs a string 'id'");
    Judgment jd;
    jd.id = row["id"].get<std::string>();
    if (auto n = row.find("name"); n != row.end() && !n->is_null()) {
      if (!n->is_string()) return fail(fmt::format("{}: 'name' must be a string", jd.id));
      std::string name = core::collapse_whitespace(core::sanitize_utf8(n->get<std::string>()));
      std::replace(name.begin(), name.end(), '"', '\'');
      if (name.size() > kMaxJudgedName) name = core::truncate_utf8(name, kMaxJudgedName - 3);
      if (!name.empty()) jd.name = name;
    }
    if (auto k = row.find("junk"); k != row.end() && !k->is_null()) {
      if (!k->is_boolean()) return fail(fmt::format("{}: 'junk' must be true or false, got {}", jd.id, k->dump()));
      jd.junk = k->get<bool>();
    }
    if (auto w = row.find("worthiness"); w != row.end() && !w->is_null()) {
      if (!w->is_number() || !std::isfinite(w->get<double>()))
        return fail(fmt::format("{}: 'worthiness' must be a number from 0 to 100", jd.id));
      jd.worthiness = std::clamp(w->get<double>(), 0.0, 100.0);
    }
    out.items.push_back(std::move(jd));
  }
  return out;
}

double blended_score(double velocity, std::optional<double> worthiness) {
  return velocity * (0.5 + worthiness.value_or(50.0) / 100.0);
}

std::optional<Angles> parse_angles(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Angles> {
    if (error) *error = "--angles: " + why;
    return std::nullopt;
  };
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  Angles out;
  if (!j.contains("bundle_id") || !j["bundle_id"].is_string()) return fail("'bundle_id' (string) is required");
  out.bundle_id = j["bundle_id"].get<std::string>();
  if (!j.contains("angles") || !j["angles"].is_array()) return fail("'angles' must be an array");
  for (const auto& row : j["angles"]) {
    if (!row.is_object()) return fail("each angle must be an object");
    std::string key = row.contains("id") && row["id"].is_string() ? row["id"].get<std::string>()
                      : row.contains("name") && row["name"].is_string() ? row["name"].get<std::string>()
                                                                         : "";
    if (key.empty()) return fail("each angle needs an 'id' (n1..) or a 'name'");
    for (const char* kind : {"podcast", "x_article"}) {
      auto v = row.find(kind);
      if (v == row.end() || v->is_null()) continue;
      if (!v->is_string()) return fail(fmt::format("{}: '{}' must be a string", key, kind));
      std::string text_value = core::collapse_whitespace(core::sanitize_utf8(v->get<std::string>()));
      if (text_value.size() > kMaxAngle) text_value = core::truncate_utf8(text_value, kMaxAngle - 3);
      out.by_topic[key][kind] = text_value;
    }
  }
  return out;
}

std::string pending_to_json(const Bundle& meta, const model::DiscoveryReport& report) {
  json doc = meta_to_json(meta);
  doc["schema_version"] = 1;
  doc["kind"] = "discovery-pending";
  json results = json::array();
  for (const auto& t : report.results) results.push_back(topic_to_json(t));
  doc["results"] = results;
  doc["warnings"] = report.warnings;
  doc["outcome"] = report.outcome == model::Outcome::ok ? "ok" : "nothing-solid";
  doc["nomination_ms"] = report.nomination_ms;
  doc["enrichment"] = {{"tier", report.enrichment.tier}, {"depth", std::string(model::to_string(report.enrichment.depth))},
                       {"max_workers", report.enrichment.max_workers}, {"budget_seconds", report.enrichment.budget_seconds},
                       {"elapsed_ms", report.enrichment.elapsed_ms}};
  if (report.weak_signal)
    doc["weak_signal"] = {{"name", report.weak_signal->name}, {"velocity_score", report.weak_signal->velocity},
                          {"sources", report.weak_signal->sources}, {"engagement", report.weak_signal->engagement},
                          {"reason", report.weak_signal->reason}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<std::pair<Bundle, model::DiscoveryReport>> pending_from_json(std::string_view text, std::string* error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("kind", "") != "discovery-pending") {
    if (error) *error = "the pending file is not a discovery-pending document";
    return std::nullopt;
  }
  Bundle b;
  if (!meta_from_json(j, b, error)) return std::nullopt;
  model::DiscoveryReport r;
  r.domain = b.domain;
  r.window = b.window;
  r.generated_at = b.now;
  r.source_status = b.source_status;
  r.bundle_id = b.bundle_id;
  r.nomination_ms = j.value("nomination_ms", 0L);
  for (const auto& row : j.value("results", json::array()))
    if (auto t = topic_from_json(row)) r.results.push_back(std::move(*t));
  r.warnings = j.value("warnings", std::vector<std::string>{});
  r.outcome = j.value("outcome", "ok") == "ok" ? model::Outcome::ok : model::Outcome::nothing_solid;
  if (auto e = j.find("enrichment"); e != j.end() && e->is_object()) {
    r.enrichment.tier = e->value("tier", "deep");
    const std::string depth = e->value("depth", "default");
    r.enrichment.depth = depth == "quick" ? model::Depth::quick : depth == "deep" ? model::Depth::deep : model::Depth::standard;
    r.enrichment.max_workers = e->value("max_workers", 4);
    r.enrichment.budget_seconds = e->value("budget_seconds", 450.0);
    r.enrichment.elapsed_ms = e->value("elapsed_ms", 0L);
  }
  if (auto w = j.find("weak_signal"); w != j.end() && w->is_object())
    r.weak_signal = model::WeakSignal{w->value("name", ""), w->value("velocity_score", 0.0),
                                      w->value("sources", std::vector<std::string>{}), w->value("engagement", 0.0),
                                      w->value("reason", "")};
  return std::make_pair(std::move(b), std::move(r));
}

std::optional<std::string> check_bundle(const Bundle& b, std::string_view expected_id, core::UnixSeconds wall_now,
                                        bool replaying, std::string_view file_kind) {
  if (b.bundle_id != expected_id)
    return fmt::format("{} is for bundle '{}', but the saved bundle is '{}': judge the current "
                       "discover-nominations.json, or run --discover --nominate-only again",
                       file_kind, expected_id, b.bundle_id);
  if (wall_now - b.created_wall > kBundleTtlSeconds)
    return fmt::format("bundle '{}' expired ({} s old; bundles live {} s): run --discover --nominate-only again",
                       b.bundle_id, wall_now - b.created_wall, kBundleTtlSeconds);
  if (b.replay != replaying)
    return fmt::format("bundle '{}' was made by a {} run and cannot be resumed by a {} run: {}", b.bundle_id,
                       b.replay ? "--replay" : "live", replaying ? "--replay" : "live",
                       b.replay ? "add the same --replay DIR" : "drop --replay, or nominate again under --replay");
  return std::nullopt;
}

}  // namespace discover
