// Web search: the Brave Search API (BRAVE_API_KEY) or, keyless, the user's own SearXNG
// instance (SEARXNG_URL, JSON output enabled). Pages have no engagement; a result
// without a date is kept as undated context, which the pipeline never ranks above a
// dated item.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kBrave = "https://api.search.brave.com/res/v1/web/search";
constexpr int kMaxBraveRequests = 2;  // free plan: 1 request/s, 2,000 a month

std::optional<std::string> setting(const core::Config& c, std::string_view key) {
  auto v = c.get(key);
  if (!v || core::trim(*v).empty()) return std::nullopt;
  return std::string(core::trim(*v));
}

// SEARXNG_URL as a base ("https://searx.example.org" or ".../searx"), without "/search".
std::optional<std::string> searxng_base(const core::Config& c, std::string* why = nullptr) {
  auto raw = setting(c, "SEARXNG_URL");
  if (!raw) return std::nullopt;
  auto u = core::Url::parse(*raw);
  if (!u || (u->scheme != "http" && u->scheme != "https") || u->host.empty() || !u->query.empty()) {
    if (why) *why = "SEARXNG_URL is not an http(s) URL of a SearXNG instance";
    return std::nullopt;
  }
  std::string base = *raw;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/search")) base.resize(base.size() - 7);
  return base;
}

std::string_view time_range(const model::Window& w) {
  const int days = w.days > 0 ? w.days : static_cast<int>((w.to - w.from) / 86400);
  if (days <= 1) return "day";
  if (days <= 7) return "week";
  if (days <= 31) return "month";
  return "year";
}

// "November 20, 2026" or "Nov 20, 2026".
std::optional<core::UnixSeconds> month_day_year(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kMonths{"jan", "feb", "mar", "apr", "may", "jun",
                                                            "jul", "aug", "sep", "oct", "nov", "dec"};
  const auto sp = s.find(' ');
  if (sp == std::string_view::npos || sp < 3) return std::nullopt;
  const std::string month = core::lower_ascii(s.substr(0, 3));
  const auto m = std::find(kMonths.begin(), kMonths.end(), month);
  if (m == kMonths.end()) return std::nullopt;
  int day = 0, year = 0;
  std::size_t i = sp + 1;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && day < 100; ++i) day = day * 10 + (s[i] - '0');
  if (i >= s.size() || s[i] != ',') return std::nullopt;
  for (++i; i < s.size() && s[i] == ' '; ++i) {}
  const std::size_t year_start = i;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && year < 10000; ++i) year = year * 10 + (s[i] - '0');
  if (i - year_start != 4) return std::nullopt;
  return core::parse_date(fmt::format("{:04}-{:02}-{:02}", year, (m - kMonths.begin()) + 1, day));
}

// "3 days ago", "1 hour ago": relative to the run's clock.
std::optional<core::UnixSeconds> relative_age(std::string_view s, core::UnixSeconds now) {
  long n = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 100000; ++i) n = n * 10 + (s[i] - '0');
  if (i == 0 || !core::contains_ci(s, "ago")) return std::nullopt;
  const std::string unit = core::lower_ascii(core::trim(s.substr(i)));
  long seconds = 0;
  if (unit.starts_with("minute")) seconds = 60;
  else if (unit.starts_with("hour")) seconds = 3600;
  else if (unit.starts_with("day")) seconds = 86400;
  else if (unit.starts_with("week")) seconds = 7 * 86400;
  else if (unit.starts_with("month")) seconds = 30 * 86400;
  else if (unit.starts_with("year")) seconds = 365 * 86400;
  else return std::nullopt;
  return now - n * seconds;
}

std::optional<core::UnixSeconds> page_date(const json& r, core::UnixSeconds now, std::initializer_list<std::string_view> keys) {
  for (auto key : keys) {
    const std::string v(core::trim(str(r, key)));
    if (v.empty()) continue;
    if (auto t = core::parse_iso8601(v)) return t;
    if (auto t = month_day_year(v)) return t;
    if (auto t = relative_age(v, now)) return t;
  }
  return std::nullopt;
}

std::string host_of(std::string_view url) {
  auto u = core::Url::parse(url);
  if (!u) return {};
  std::string h = u->host;
  if (h.rfind("www.", 0) == 0) h.erase(0, 4);
  return h;
}

// Upstream text: entities decoded and highlight tags dropped without leaving a gap
// ("<strong>Rust</strong>, then" reads "Rust, then").
std::string plain(std::string_view s) {
  if (s.find('<') == std::string_view::npos && s.find('&') == std::string_view::npos) return core::collapse_whitespace(s);
  std::string out(s);
  for (std::string_view tag : {"<strong>", "</strong>", "<b>", "</b>", "<em>", "</em>"})
    for (auto pos = out.find(tag); pos != std::string::npos; pos = out.find(tag, pos)) out.erase(pos, tag.size());
  return core::html_to_text(out);
}

std::optional<model::Item> make_item(const json& r, core::UnixSeconds now, std::string_view snippet_key,
                                     std::initializer_list<std::string_view> date_keys) {
  if (!r.is_object()) return std::nullopt;
  const std::string url = str(r, "url");
  const std::string title = plain(str(r, "title"));
  auto u = core::Url::parse(url);
  if (!u || (u->scheme != "http" && u->scheme != "https") || u->host.empty() || title.empty()) return std::nullopt;
  model::Item item;
  item.id = "web:" + core::hex64(core::fnv1a64(core::canonical_url(url)));
  item.source = "web";
  item.title = core::truncate_utf8(title, 300);
  item.url = url;
  const std::string host = host_of(url);
  if (!host.empty()) item.container = host;
  item.published_at = page_date(r, now, date_keys);
  item.snippet = core::truncate_utf8(plain(str(r, snippet_key)), kSnippetBytes);
  return item;
}

// Brave: {"type":"search","web":{"results":[...]}}; "web" is absent when nothing matched.
std::optional<Failure> parse_brave(const std::string& body, core::UnixSeconds now, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  if (!doc->is_object()) return Failure{SourceState::schema_drift, "answer is not an object"};
  auto web = doc->find("web");
  if (web == doc->end()) {
    if (str(*doc, "type") == "search") return std::nullopt;
    return Failure{SourceState::schema_drift, "answer has no 'web' results"};
  }
  auto results = web->is_object() ? web->find("results") : web->end();
  if (!web->is_object() || results == web->end() || !results->is_array())
    return Failure{SourceState::schema_drift, "answer has no web.results array"};
  for (const auto& r : *results)
    if (auto item = make_item(r, now, "description", {"page_age", "age"})) items.push_back(std::move(*item));
  return std::nullopt;
}

// SearXNG: {"results":[{"url","title","content","publishedDate"}], "unresponsive_engines":[[name, why]]}.
std::optional<Failure> parse_searxng(const std::string& body, core::UnixSeconds now, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  auto results = doc->is_object() ? doc->find("results") : doc->end();
  if (!doc->is_object() || results == doc->end() || !results->is_array())
    return Failure{SourceState::schema_drift, "answer has no 'results' array"};
  for (const auto& r : *results)
    if (auto item = make_item(r, now, "content", {"publishedDate", "pubdate"})) items.push_back(std::move(*item));
  if (items.empty()) {
    std::string dead;
    if (auto un = doc->find("unresponsive_engines"); un != doc->end() && un->is_array())
      for (const auto& e : *un)
        if (e.is_array() && !e.empty() && e[0].is_string())
          dead += (dead.empty() ? "" : ", ") + core::truncate_utf8(e[0].get<std::string>(), 40) +
                  (e.size() > 1 && e[1].is_string() ? " (" + core::truncate_utf8(e[1].get<std::string>(), 60) + ")" : "");
    if (!dead.empty()) return Failure{SourceState::unreachable, "SearXNG's engines did not answer: " + dead};
  }
  return std::nullopt;
}

// Brave's own error codes: {"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":...}}.
Failure explain_brave(const Fetched& f) {
  Failure out = *f.failure;
  auto doc = core::json::parse_or_discarded(f.response.body);
  const json* err = nullptr;
  if (!doc.is_discarded() && doc.is_object()) {
    if (auto e = doc.find("error"); e != doc.end() && e->is_object()) err = &*e;
    else if (auto es = doc.find("errors"); es != doc.end() && es->is_array() && !es->empty() && (*es)[0].is_object())
      err = &(*es)[0];
  }
  const std::string code = err ? str(*err, "code") : std::string();
  const std::string detail = err ? core::truncate_utf8(core::collapse_whitespace(str(*err, "detail")), 160) : std::string();
  if (code == "SUBSCRIPTION_TOKEN_INVALID" || code == "SUBSCRIPTION_TOKEN_MISSING" || code == "SUBSCRIPTION_NOT_FOUND")
    return {SourceState::auth_failed, "Brave rejected BRAVE_API_KEY (" + code + ")"};
  if (code == "RATE_LIMITED" || code == "QUOTA_LIMITED" || f.response.status == 429) {
    std::string why = code.empty() ? std::string("HTTP 429") : code;
    if (auto reset = f.response.header("x-ratelimit-reset")) why += ", resets in " + core::truncate_utf8(*reset, 40) + " s";
    why += retry_after_text(f.response);
    return {SourceState::rate_limited, "Brave: " + why};
  }
  if (!code.empty()) out.reason = fmt::format("Brave {}: {}{}", f.response.status, code, detail.empty() ? "" : " — " + detail);
  return out;
}

Failure explain_searxng(const Fetched& f) {
  Failure out = *f.failure;
  if (f.response.status == 403 && out.state != SourceState::rate_limited)  // not a block page or a spent limit
    return {SourceState::error, "SearXNG refused format=json (HTTP 403): enable 'json' under search.formats in its settings.yml"};
  if (f.response.status == 429)
    return {SourceState::rate_limited, "SearXNG's limiter refused the request (HTTP 429" + retry_after_text(f.response) + ")"};
  return out;
}

class Web final : public Source {
 public:
  std::string_view id() const override { return "web"; }
  std::vector<std::string_view> hosts() const override { return {"api.search.brave.com"}; }
  std::string_view name() const override { return "Web search"; }
  std::string_view spoken_names() const override { return "web"; }
  std::span<const EngagementField> engagement() const override { return {}; }  // no signal

  std::optional<std::string> unconfigured(const core::Config& c) const override {
    if (setting(c, "BRAVE_API_KEY")) return std::nullopt;
    std::string why;
    if (searxng_base(c, &why)) return std::nullopt;
    return why.empty() ? std::string("set BRAVE_API_KEY or SEARXNG_URL") : why;
  }

  SourceResult search(const Query& q, Env& env) const override {
    if (auto why = unconfigured(env.config)) return {SourceState::skipped_unconfigured, *why, {}, 0};
    ResultBuilder out(std::clamp(q.limit, 1, 20));  // Brave's count; SearXNG's page is cut to it too
    const core::UnixSeconds now = clock_of(q.now);
    const auto key = setting(env.config, "BRAVE_API_KEY");
    const std::size_t asked = key ? std::min<std::size_t>(q.sub_queries.size(), kMaxBraveRequests) : q.sub_queries.size();
    std::vector<Call> calls;
    for (std::size_t i = 0; i < asked; ++i) {
      const std::string text = core::url_encode(q.sub_queries[i].text);
      if (key)
        calls.push_back(
            {fmt::format("{}?q={}&count={}&freshness={}to{}&text_decorations=false", kBrave, text, std::clamp(q.limit, 1, 20),
                         core::format_date(q.window.from), core::format_date(q.window.to)),
             Expect::json,
             {{"X-Subscription-Token", *key}, {"Accept", "application/json"}}});
      else
        calls.push_back(
            {fmt::format("{}/search?q={}&format=json&time_range={}", *searxng_base(env.config), text, time_range(q.window))});
    }
    const bool brave = key.has_value();
    auto why_failed = [brave](const Fetched& f) { return brave ? explain_brave(f) : explain_searxng(f); };
    // Together (the HTTP client spaces Brave's requests a second apart); a rejected key or a
    // spent limit drops the rest.
    const auto fetched =
        fetch_concurrently(env, std::move(calls), 6, [&](const Fetched& f) { return f.failure && hopeless(why_failed(f)); });
    out.requests() += sent_count(fetched);
    for (std::size_t i = 0; i < fetched.size() && !fetched[i].dropped; ++i) {
      const Fetched& f = fetched[i];
      if (f.failure) {
        out.fail(why_failed(f));
        continue;
      }
      std::vector<model::Item> items;
      if (auto bad = key ? parse_brave(f.response.body, now, items) : parse_searxng(f.response.body, now, items)) {
        out.fail(*bad);
        continue;
      }
      out.succeed();
      int rank = 0;
      for (auto& item : items) {
        if (item.published_at && !q.window.contains(*item.published_at)) continue;  // undated stays, as context
        out.add(std::move(item), static_cast<int>(i), rank++);
      }
    }
    return out.finish();
  }

  std::string advice(model::SourceState state, const core::Config& c, std::string_view env_file) const override {
    using S = model::SourceState;
    const bool brave = setting(c, "BRAVE_API_KEY").has_value();
    if (state == S::skipped_unconfigured)
      return fmt::format("set BRAVE_API_KEY (Brave Search API) or SEARXNG_URL (your own SearXNG) in {}", env_file);
    if (state == S::auth_failed && brave)
      return "BRAVE_API_KEY was rejected: copy the key of a Search plan from api-dashboard.search.brave.com";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"BRAVE_API_KEY", "SEARXNG_URL"}; }
};

}  // namespace

std::unique_ptr<Source> make_web() { return std::make_unique<Web>(); }

}  // namespace sources
