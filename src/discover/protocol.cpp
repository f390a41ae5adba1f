#include "discover/protocol.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/json.hpp"
#include "core/json_fields.hpp"
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
// them: they are read field by field (core/json_fields.hpp), as --plan is.
using core::json::FieldError;
using core::json::Fields;

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

namespace {

// The host's row `id` of a judgments or angles file: its field errors open with the id
// ("n1: 'junk' must be true or false, got \"no\"").
template <typename Read>
void read_row(const std::string& id, const json& row, Read read) {
  try {
    read(Fields(row, ""));
  } catch (const FieldError& e) {
    throw FieldError(id + ": " + e.what());
  }
}

std::string bundle_id_of(const Fields& f) {
  const json* id = f.find("bundle_id");
  if (!id || !id->is_string()) throw FieldError("'bundle_id' (string) is required");
  return id->get<std::string>();
}

const json& rows_of(const Fields& f, const char* key) {
  const json* rows = f.array(key);
  if (!rows) f.bad(key, "an array");
  return *rows;
}

}  // namespace

std::optional<Judgments> parse_judgments(std::string_view text, std::string* error) {
  return core::json::read_host_object(text, "--judgments: ", error, [](const Fields& f) {
    Judgments out;
    out.bundle_id = bundle_id_of(f);
    for (const auto& row : rows_of(f, "judgments")) {
      if (!row.is_object() || !row.contains("id") || !row["id"].is_string())
        throw FieldError("each judgment needs a string 'id'");
      Judgment jd;
      jd.id = row["id"].get<std::string>();
      read_row(jd.id, row, [&](const Fields& r) {
        if (auto n = r.opt_str("name")) {
          std::string name = core::printable_line(*n);
          if (name.size() > kMaxJudgedName) name = core::truncate_utf8(name, kMaxJudgedName - 3);
          if (!name.empty()) jd.name = name;
        }
        if (const json* k = r.find("junk")) {
          if (!k->is_boolean()) r.bad("junk", fmt::format("true or false, got {}", k->dump()).c_str());
          jd.junk = k->get<bool>();
        }
        if (const json* w = r.find("worthiness")) {
          if (!w->is_number() || !std::isfinite(w->get<double>())) r.bad("worthiness", "a number from 0 to 100");
          jd.worthiness = std::clamp(w->get<double>(), 0.0, 100.0);
        }
      });
      out.items.push_back(std::move(jd));
    }
    return out;
  });
}

double blended_score(double velocity, std::optional<double> worthiness) {
  return velocity * (0.5 + worthiness.value_or(50.0) / 100.0);
}

std::optional<Angles> parse_angles(std::string_view text, std::string* error) {
  return core::json::read_host_object(text, "--angles: ", error, [](const Fields& f) {
    Angles out;
    out.bundle_id = bundle_id_of(f);
    for (const auto& row : rows_of(f, "angles")) {
      if (!row.is_object()) throw FieldError("each angle must be an object");
      std::string key = row.contains("id") && row["id"].is_string()       ? row["id"].get<std::string>()
                        : row.contains("name") && row["name"].is_string() ? row["name"].get<std::string>()
                                                                          : "";
      if (key.empty()) throw FieldError("each angle needs an 'id' (n1..) or a 'name'");
      read_row(key, row, [&](const Fields& r) {
        for (const char* kind : {"podcast", "x_article"})
          if (auto v = r.opt_str(kind)) {
            std::string text_value = core::printable_line(*v);
            if (text_value.size() > kMaxAngle) text_value = core::truncate_utf8(text_value, kMaxAngle - 3);
            out.by_topic[key][kind] = text_value;
          }
      });
    }
    return out;
  });
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
