#include "discover/protocol.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <type_traits>

#include "core/json.hpp"
#include "core/text.hpp"
#include "model/source_status_json.hpp"

namespace discover {

using nlohmann::json;

std::string new_bundle_id() {
  std::random_device rd;
  const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(core::now_unix());
  return "b-" + core::hex64(r).substr(0, 12);
}

namespace {

json opt(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

// The protocol files live on the host between legs, and a host (or a person) may edit
// them. They are read field by field: a missing required field, a wrong type or an
// impossible value is a contract error naming the field ("nominations[3].velocity_score
// must be a number"), never a library exception escaping as an internal error.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) throw FieldError("'" + (path_.empty() ? std::string("the document") : path_) + "' must be an object");
  }
  std::string at(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }

  std::optional<std::string> opt_str(const char* key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) bad(key, "a string");
    return v->get<std::string>();
  }
  std::string str(const char* key, std::optional<std::string> fallback = std::nullopt) const {
    if (auto v = opt_str(key)) return *v;
    if (!fallback) bad(key, "a string (it is required)");
    return *fallback;
  }
  std::string one_of(const char* key, std::initializer_list<std::string_view> allowed,
                     std::optional<std::string> fallback) const {
    const std::string v = str(key, std::move(fallback));
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
      bad(key, ("one of " + list).c_str());
    }
    return v;
  }
  std::optional<double> opt_num(const char* key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>())) bad(key, "a number");
    return v->get<double>();
  }
  double num(const char* key, double fallback) const { return opt_num(key).value_or(fallback); }
  long long integer(const char* key, std::optional<long long> fallback, long long lo, long long hi) const {
    const json* v = find(key);
    if (!v) {
      if (!fallback) bad(key, "an integer (it is required)");
      return *fallback;
    }
    if (!v->is_number_integer() || v->get<long long>() < lo || v->get<long long>() > hi)
      bad(key, fmt::format("an integer from {} to {}", lo, hi).c_str());
    return v->get<long long>();
  }
  bool boolean(const char* key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) bad(key, "true or false");
    return v->get<bool>();
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    if (const json* a = array(key))
      for (const auto& v : *a) {
        if (!v.is_string()) bad(key, "an array of strings");
        out.push_back(v.get<std::string>());
      }
    return out;
  }
  template <typename V>
  std::map<std::string, V> map_of(const char* key, const char* what) const {
    std::map<std::string, V> out;
    const json* o = find(key);
    if (!o) return out;
    if (!o->is_object()) bad(key, what);
    for (auto it = o->begin(); it != o->end(); ++it) {
      const json& v = it.value();
      const std::string& k = it.key();
      if constexpr (std::is_same_v<V, double>) {
        if (!v.is_number() || !std::isfinite(v.get<double>())) bad(key, what);
      } else {
        if (!v.is_string()) bad(key, what);
      }
      out[k] = v.get<V>();
    }
    return out;
  }
  const json* array(const char* key) const {
    const json* v = find(key);
    if (v && !v->is_array()) bad(key, "an array");
    return v;
  }
  const json* object(const char* key) const {
    const json* v = find(key);
    if (v && !v->is_object()) bad(key, "an object");
    return v;
  }
  [[noreturn]] void bad(std::string_view key, const char* what) const { throw FieldError("'" + at(key) + "' must be " + what); }

 private:
  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  const json& j_;
  std::string path_;
};

std::string indexed(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

json item_to_json(const model::Item& it) {
  json eng = json::object();
  for (const auto& e : it.engagement) eng[e.field] = e.value;
  return {{"id", it.id},
          {"source", it.source},
          {"title", it.title},
          {"url", it.url},
          {"discussion_url", opt(it.discussion_url)},
          {"author", opt(it.author)},
          {"container", opt(it.container)},
          {"tags", it.tags},
          {"published_at", it.published_at ? json(core::format_iso8601(*it.published_at)) : json(nullptr)},
          {"engagement", eng},
          {"snippet", it.snippet}};
}

model::Item item_from_json(const json& j, const std::string& path) {
  const Fields f(j, path);
  model::Item it;
  it.id = f.str("id");
  it.source = f.str("source");
  it.title = f.str("title", "");
  it.url = f.str("url", "");
  it.discussion_url = f.opt_str("discussion_url");
  it.author = f.opt_str("author");
  it.container = f.opt_str("container");
  it.tags = f.strings("tags");  // a bundle written before tags travelled has none
  if (auto p = f.opt_str("published_at")) {
    it.published_at = core::parse_iso8601(*p);
    if (!it.published_at) f.bad("published_at", "an ISO-8601 time or null");
  }
  for (const auto& [k, v] : f.map_of<double>("engagement", "an object of numbers")) it.engagement.push_back({k, v});
  it.snippet = f.str("snippet", "");
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

model::Topic topic_from_json(const json& j, const std::string& path) {
  const Fields f(j, path);
  model::Topic t;
  t.id = f.str("id");
  t.name = f.str("name");
  t.junk = f.boolean("junk", false);
  t.velocity = f.num("velocity_score", 0.0);
  t.engagement = f.num("engagement", 0.0);
  t.momentum = f.str("momentum", "building");
  t.sources = f.strings("sources");
  t.engagement_by_source = f.map_of<double>("engagement_by_source", "an object of numbers");
  t.evidence_urls = f.strings("evidence_urls");
  t.why = f.str("why", "");
  t.worthiness = f.opt_num("worthiness");
  if (t.worthiness && (*t.worthiness < 0 || *t.worthiness > 100)) f.bad("worthiness", "a number from 0 to 100");
  t.angles = f.map_of<std::string>("angles", "an object of strings");
  if (const json* e = f.object("enrichment")) {
    const Fields ef(*e, f.at("enrichment"));
    const std::string status = ef.one_of("status", {"enriched", "nomination-only", "failed"}, "nomination-only");
    t.enrichment.status = status == "enriched" ? model::EnrichStatus::enriched
                          : status == "failed" ? model::EnrichStatus::failed
                                               : model::EnrichStatus::nomination_only;
    t.enrichment.error = ef.opt_str("error");
    t.enrichment.items = static_cast<int>(ef.integer("items", 0, 0, 1000000));
    t.enrichment.top_urls = ef.strings("top_urls");
    t.enrichment.top_titles = ef.strings("top_titles");
  }
  if (const json* seeds = f.array("seed_items"))
    for (std::size_t i = 0; i < seeds->size(); ++i)
      t.seeds.push_back(item_from_json((*seeds)[i], indexed(f.at("seed_items"), i)));
  return t;
}

std::map<std::string, model::SourceStatus> status_from_json(const Fields& doc) {
  std::map<std::string, model::SourceStatus> out;
  const json* all = doc.object("source_status");
  if (!all) return out;
  for (const auto& [id, v] : all->items()) {
    const Fields f(v, doc.at("source_status") + "." + id);
    model::SourceStatus st;
    const auto state = model::parse_source_state(f.str("state"));
    if (!state) f.bad("state", "a source state such as \"ok\" or \"timeout\"");
    st.state = *state;
    st.items = static_cast<int>(f.integer("items", 0, 0, 1000000));
    st.reason = f.opt_str("reason").value_or("");
    st.elapsed_ms = f.integer("elapsed_ms", 0, 0, 86400000);
    out[id] = st;
  }
  return out;
}

json meta_to_json(const Bundle& b) {
  return {
      {"bundle_id", b.bundle_id},
      {"tier", b.tier},
      {"domain", b.domain},
      {"window", {{"from", core::format_date(b.window.from)}, {"to", core::format_date(b.window.to)}, {"days", b.window.days}}},
      {"scoring_clock", b.now},
      {"created_at", core::format_iso8601(b.created_wall)},
      {"created_unix", b.created_wall},
      {"expires_at", core::format_iso8601(b.created_wall + kBundleTtlSeconds)},
      {"replay", b.replay},
      {"sources", b.sources},
      {"source_status", model::source_status_json<json>(b.source_status)}};
}

// Sane clocks: after 2000, before 3000 (what format_iso8601 and the windows can hold).
constexpr long long kMinClock = 946684800, kMaxClock = 32503680000;

Bundle meta_from_json(const Fields& f) {
  Bundle b;
  b.bundle_id = f.str("bundle_id");
  if (b.bundle_id.empty()) f.bad("bundle_id", "a non-empty string");
  b.tier = f.one_of("tier", {"shallow", "deep"}, std::nullopt);
  b.domain = f.str("domain", "");
  const json* w = f.object("window");
  if (!w) f.bad("window", "an object (it is required)");
  const Fields wf(*w, f.at("window"));
  const auto from = core::parse_date(wf.str("from"));
  if (!from) wf.bad("from", "a date (YYYY-MM-DD)");
  const auto to = core::parse_date(wf.str("to"));
  if (!to || *to < *from) wf.bad("to", "a date (YYYY-MM-DD) not before 'from'");
  b.window.from = *from;
  b.window.to = *to + 86399;
  b.window.days = static_cast<int>(wf.integer("days", std::nullopt, 1, 365));
  b.now = f.integer("scoring_clock", std::nullopt, kMinClock, kMaxClock);
  b.created_wall = f.integer("created_unix", std::nullopt, kMinClock, kMaxClock);
  b.replay = f.boolean("replay", false);
  b.sources = f.strings("sources");
  b.source_status = status_from_json(f);
  return b;
}

// Runs a reader over a document; a FieldError becomes the error text.
template <typename Read>
auto read_document(std::string_view text, std::string_view kind, std::string* error, Read read)
    -> std::optional<decltype(read(Fields(json::object(), "")))> {
  const auto parsed = core::json::parse(text);
  try {
    if (!parsed) throw FieldError(parsed.too_deep ? "it is " + parsed.error : std::string("it is not valid JSON"));
    const json& j = *parsed.value;
    const Fields f(j, "");
    if (f.str("kind", "") != kind) f.bad("kind", fmt::format("\"{}\"", kind).c_str());
    return read(f);
  } catch (const FieldError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
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
  return read_document(text, "discovery-nominations", error, [](const Fields& f) {
    Bundle b = meta_from_json(f);
    if (const json* rows = f.array("nominations"))
      for (std::size_t i = 0; i < rows->size(); ++i)
        b.nominations.push_back(topic_from_json((*rows)[i], indexed("nominations", i)));
    return b;
  });
}

std::optional<Judgments> parse_judgments(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Judgments> {
    if (error) *error = "--judgments: " + why;
    return std::nullopt;
  };
  const auto parsed = core::json::parse(text);
  if (parsed.too_deep) return fail(parsed.error);
  if (!parsed || !parsed.value->is_object()) return fail("not a JSON object");
  const json& j = *parsed.value;
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
      std::string name = core::printable_line(n->get<std::string>());
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
  const auto parsed = core::json::parse(text);
  if (parsed.too_deep) return fail(parsed.error);
  if (!parsed || !parsed.value->is_object()) return fail("not a JSON object");
  const json& j = *parsed.value;
  Angles out;
  if (!j.contains("bundle_id") || !j["bundle_id"].is_string()) return fail("'bundle_id' (string) is required");
  out.bundle_id = j["bundle_id"].get<std::string>();
  if (!j.contains("angles") || !j["angles"].is_array()) return fail("'angles' must be an array");
  for (const auto& row : j["angles"]) {
    if (!row.is_object()) return fail("each angle must be an object");
    std::string key = row.contains("id") && row["id"].is_string()       ? row["id"].get<std::string>()
                      : row.contains("name") && row["name"].is_string() ? row["name"].get<std::string>()
                                                                        : "";
    if (key.empty()) return fail("each angle needs an 'id' (n1..) or a 'name'");
    for (const char* kind : {"podcast", "x_article"}) {
      auto v = row.find(kind);
      if (v == row.end() || v->is_null()) continue;
      if (!v->is_string()) return fail(fmt::format("{}: '{}' must be a string", key, kind));
      std::string text_value = core::printable_line(v->get<std::string>());
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
  doc["enrichment"] = {{"tier", report.enrichment.tier},
                       {"depth", std::string(model::to_string(report.enrichment.depth))},
                       {"max_workers", report.enrichment.max_workers},
                       {"budget_seconds", report.enrichment.budget_seconds},
                       {"elapsed_ms", report.enrichment.elapsed_ms}};
  if (report.weak_signal)
    doc["weak_signal"] = {{"name", report.weak_signal->name},
                          {"velocity_score", report.weak_signal->velocity},
                          {"sources", report.weak_signal->sources},
                          {"engagement", report.weak_signal->engagement},
                          {"reason", report.weak_signal->reason}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<std::pair<Bundle, model::DiscoveryReport>> pending_from_json(std::string_view text, std::string* error) {
  return read_document(text, "discovery-pending", error, [](const Fields& f) {
    Bundle b = meta_from_json(f);
    model::DiscoveryReport r;
    r.domain = b.domain;
    r.window = b.window;
    r.generated_at = b.now;
    r.source_status = b.source_status;
    r.bundle_id = b.bundle_id;
    r.nomination_ms = f.integer("nomination_ms", 0, 0, 86400000);
    if (const json* rows = f.array("results"))
      for (std::size_t i = 0; i < rows->size(); ++i) r.results.push_back(topic_from_json((*rows)[i], indexed("results", i)));
    r.warnings = f.strings("warnings");
    r.outcome = f.one_of("outcome", {"ok", "nothing-solid"}, "ok") == "ok" ? model::Outcome::ok : model::Outcome::nothing_solid;
    if (const json* e = f.object("enrichment")) {
      const Fields ef(*e, "enrichment");
      r.enrichment.tier = ef.one_of("tier", {"one-shot", "shallow", "deep"}, "deep");
      const std::string depth = ef.one_of("depth", {"quick", "default", "deep"}, "default");
      r.enrichment.depth = depth == "quick" ? model::Depth::quick : depth == "deep" ? model::Depth::deep : model::Depth::standard;
      r.enrichment.max_workers = static_cast<int>(ef.integer("max_workers", 4, 1, 64));
      r.enrichment.budget_seconds = ef.num("budget_seconds", 450.0);
      r.enrichment.elapsed_ms = ef.integer("elapsed_ms", 0, 0, 86400000);
    }
    if (const json* w = f.object("weak_signal")) {
      const Fields wf(*w, "weak_signal");
      r.weak_signal = model::WeakSignal{wf.str("name", ""), wf.num("velocity_score", 0.0), wf.strings("sources"),
                                        wf.num("engagement", 0.0), wf.str("reason", "")};
    }
    return std::make_pair(std::move(b), std::move(r));
  });
}

std::optional<std::string> check_bundle(const Bundle& b, std::string_view expected_id, core::UnixSeconds wall_now, bool replaying,
                                        std::string_view file_kind) {
  if (b.bundle_id != expected_id)
    return fmt::format(
        "{} is for bundle '{}', but the saved bundle is '{}': judge the current "
        "discover-nominations.json, or run --discover --nominate-only again",
        file_kind, expected_id, b.bundle_id);
  // A bundle from the future has a clock that cannot be trusted, and would never expire.
  if (b.created_wall > wall_now + kClockSkewSeconds || b.now > wall_now + kClockSkewSeconds)
    return fmt::format("bundle '{}' is dated in the future ({}): run --discover --nominate-only again", b.bundle_id,
                       core::format_iso8601(std::max(b.created_wall, b.now)));
  if (wall_now - b.created_wall > kBundleTtlSeconds)
    return fmt::format("bundle '{}' expired ({} s old; bundles live {} s): run --discover --nominate-only again", b.bundle_id,
                       wall_now - b.created_wall, kBundleTtlSeconds);
  if (b.replay != replaying)
    return fmt::format("bundle '{}' was made by a {} run and cannot be resumed by a {} run: {}", b.bundle_id,
                       b.replay ? "--replay" : "live", replaying ? "--replay" : "live",
                       b.replay ? "add the same --replay DIR" : "drop --replay, or nominate again under --replay");
  return std::nullopt;
}

}  // namespace discover
