// X through API v2 recent search (api.x.com/2/tweets/search/recent) with X_BEARER_TOKEN.
// Recent search reaches 7 days back: a start_time older than that is never sent, and a
// window wholly older sends nothing. Few requests (small plans allow a handful per 15
// minutes): at most kMaxRequests, sent together; once an answer says 0 remain (or is a
// 429), the rest are cancelled or never sent, and a 429 is reported with its reset time,
// never retried.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kSearch = "https://api.x.com/2/tweets/search/recent";
constexpr std::string_view kFields =
    "tweet.fields=created_at,public_metrics,author_id,entities&expansions=author_id&user.fields=username,name";
constexpr core::UnixSeconds kReach = 7 * 86400;
constexpr int kMaxRequests = 3;
constexpr std::size_t kMaxQueryBytes = 480;  // X caps a query at 512 characters on small plans
constexpr std::string_view kSevenDays = "X covers only the last 7 days";

std::optional<std::string> token(const core::Config& c) {
  auto t = c.get("X_BEARER_TOKEN");
  if (!t || core::trim(*t).empty()) return std::nullopt;
  return std::string(core::trim(*t));
}

struct Span {
  core::UnixSeconds start, end;
  bool clipped;  // the window starts before recent search can reach
};

// The part of the window recent search can reach.
std::optional<Span> reachable(const model::Window& w, core::UnixSeconds now) {
  const core::UnixSeconds earliest = now - kReach + 120;  // slack for clock skew and latency
  const core::UnixSeconds latest = now - 30;              // end_time must lie in the past
  const core::UnixSeconds start = std::max(w.from, earliest);
  const core::UnixSeconds end = std::min(w.to + 1, latest);
  if (start >= end) return std::nullopt;
  return Span{start, end, w.from < earliest};
}

// Tweet ids are snowflakes: milliseconds since 2010-11-04 in the bits above 22.
std::optional<core::UnixSeconds> snowflake_time(std::string_view id) {
  if (id.empty() || id.size() > 20 || id.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  unsigned long long v = 0;
  for (char c : id) {
    if (v > (~0ULL - 9) / 10) return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  const unsigned long long ms = (v >> 22) + 1288834974657ULL;
  if ((v >> 22) == 0) return std::nullopt;  // pre-2010 sequential ids carry no time
  return unix_time(static_cast<double>(ms / 1000));
}

// The title without the t.co links X appends.
std::string title_of(std::string_view text) {
  std::string kept;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto link = text.find("https://t.co/", pos);
    const auto stop = link == std::string_view::npos ? text.size() : link;
    kept.append(text.substr(pos, stop - pos));
    if (link == std::string_view::npos) break;
    pos = text.find_first_of(" \n\t", link);
    if (pos == std::string_view::npos) break;
  }
  std::string t = headline(kept);
  return t.empty() ? headline(text) : t;
}

bool valid_username(std::string_view u) {
  return !u.empty() && u.size() <= 50 &&
         std::all_of(u.begin(), u.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::optional<model::Item> parse_tweet(const json& t, const std::map<std::string, std::string>& users) {
  if (!t.is_object()) return std::nullopt;
  const std::string id = str(t, "id");
  const std::string text = core::decode_xml_escapes(str(t, "text"));  // v2 escapes &, < and >
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos || id.size() > 20 || text.empty())
    return std::nullopt;
  model::Item item;
  item.id = "x:" + id;
  item.source = "x";
  std::string username;
  if (auto u = users.find(str(t, "author_id")); u != users.end() && valid_username(u->second)) username = u->second;
  const std::string post =
      username.empty() ? "https://x.com/i/web/status/" + id : fmt::format("https://x.com/{}/status/{}", username, id);
  if (!username.empty()) item.author = username;
  item.url = post;
  if (auto ents = t.find("entities"); ents != t.end() && ents->is_object()) {
    if (auto urls = ents->find("urls"); urls != ents->end() && urls->is_array()) {
      for (const auto& u : *urls) {
        std::string link = str(u, "unwound_url");
        if (!outside_link(link, {"x.com", "twitter.com", "t.co"})) link = str(u, "expanded_url");
        if (outside_link(link, {"x.com", "twitter.com", "t.co"})) {
          item.url = link;
          item.discussion_url = post;
          break;
        }
      }
    }
  }
  item.title = title_of(text);
  item.snippet = core::truncate_utf8(core::collapse_whitespace(text), kSnippetBytes);
  item.published_at = core::parse_iso8601(str(t, "created_at"));
  if (!item.published_at) item.published_at = snowflake_time(id);
  if (auto m = t.find("public_metrics"); m != t.end() && m->is_object()) {
    for (const char* field : {"like_count", "retweet_count", "reply_count", "quote_count"}) engage(item, field, num(*m, field));
  }
  return item;
}

// Parses one search answer; nullopt on success.
std::optional<Failure> parse(const std::string& body, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  if (!doc->is_object()) return Failure{SourceState::schema_drift, "answer is not an object"};
  auto data = doc->find("data");
  if (data == doc->end()) {
    if (doc->contains("meta")) return std::nullopt;  // {"meta":{"result_count":0}}
    if (auto errs = doc->find("errors"); errs != doc->end() && errs->is_array() && !errs->empty()) {
      const auto& e = (*errs)[0];
      std::string why = str(e, "detail");
      if (why.empty()) why = str(e, "message");
      return Failure{SourceState::error, "X: " + core::truncate_utf8(core::collapse_whitespace(why), 160)};
    }
    return Failure{SourceState::schema_drift, "answer has neither 'data' nor 'meta'"};
  }
  if (!data->is_array()) return Failure{SourceState::schema_drift, "'data' is not a list"};
  std::map<std::string, std::string> users;
  if (auto inc = doc->find("includes"); inc != doc->end() && inc->is_object()) {
    if (auto us = inc->find("users"); us != inc->end() && us->is_array())
      for (const auto& u : *us) users[str(u, "id")] = str(u, "username");
  }
  for (const auto& t : *data)
    if (auto item = parse_tweet(t, users)) items.push_back(std::move(*item));
  return std::nullopt;
}

std::string reset_text(const http::Response& r) {
  auto reset = epoch_header(r, "x-rate-limit-reset");
  return reset ? ", resets at " + core::format_iso8601(*reset) : std::string();
}

// X's problem documents: {"title","detail","type","reason"} or {"errors":[{"message"}]}.
Failure explain(const Fetched& f) {
  const auto& r = f.response;
  auto doc = core::json::parse_or_discarded(r.body);
  std::string title, detail, reason;
  if (!doc.is_discarded() && doc.is_object()) {
    title = str(doc, "title");
    detail = str(doc, "detail");
    reason = str(doc, "reason");
    // errors[].message names the parameter; the top-level detail is generic.
    if (auto errs = doc.find("errors"); errs != doc.end() && errs->is_array() && !errs->empty())
      if (auto m = opt_str((*errs)[0], "message"); m && !m->empty()) detail = *m;
  }
  detail = core::truncate_utf8(core::collapse_whitespace(detail), 160);
  if (r.status == 429) {
    if (title == "UsageCapExceeded") return {SourceState::rate_limited, "X usage cap reached: " + detail};
    return {SourceState::rate_limited, "X rate limit reached (HTTP 429)" + reset_text(r) + retry_after_text(r)};
  }
  if (r.status == 402) return {SourceState::rate_limited, "X API credits depleted (HTTP 402)"};
  if (r.status == 401) return {SourceState::auth_failed, "X rejected X_BEARER_TOKEN (HTTP 401)"};
  // A 403 that is a block page or a spent limit (the generic classifier says so) is not the app's fault.
  if (r.status == 403 && f.failure && f.failure->state != SourceState::rate_limited)
    return {SourceState::auth_failed,
            fmt::format("X refused the app (HTTP 403{}){}", reason.empty() ? "" : ", " + core::truncate_utf8(reason, 40),
                        detail.empty() ? "" : ": " + detail)};
  Failure out = *f.failure;
  if (r.status == 400 && !detail.empty()) out.reason = "X rejected the query: " + detail;
  return out;
}

struct Outcome {
  explicit Outcome(int page_size) : out(page_size) {}
  ResultBuilder out;
  std::string note;  // why fewer requests were sent than sub-queries
};

std::string search_url(const std::string& query, const Span& span, int max_results, std::string_view sort) {
  return fmt::format("{}?query={}&start_time={}&end_time={}&max_results={}&sort_order={}&{}", kSearch, core::url_encode(query),
                     core::format_iso8601(span.start), core::format_iso8601(span.end), std::clamp(max_results, 10, 100), sort,
                     kFields);
}

bool spent(const http::Response& r) { return r.header("x-rate-limit-remaining") == std::optional<std::string>("0"); }

// No request is worth sending after a rejected token, a 429 or a spent limit.
bool last_allowed(const Fetched& f) { return f.failure ? hopeless(explain(f)) : spent(f.response); }

// One search answer into the builder.
void collect(const Fetched& f, const Span& span, int subquery, Outcome& o) {
  if (f.failure) return o.out.fail(explain(f));
  std::vector<model::Item> items;
  if (auto bad = parse(f.response.body, items)) return o.out.fail(*bad);
  o.out.succeed();
  int rank = 0;
  for (auto& item : items) {
    if (item.published_at && (*item.published_at < span.start || *item.published_at >= span.end)) continue;
    o.out.add(std::move(item), subquery, rank++);
  }
  if (spent(f.response)) o.note = "X rate limit reached" + reset_text(f.response);
}

SourceResult finish(Outcome& o, const Span& span, std::size_t asked, std::size_t wanted) {
  SourceResult r = o.out.finish();
  std::vector<std::string> notes;
  if (!o.note.empty() && asked < wanted) {
    notes.push_back(fmt::format("{}: {} of {} sub-queries left out", o.note, wanted - asked, wanted));
    if (r.state == SourceState::ok) r.state = SourceState::partial;
  }
  if (span.clipped) notes.push_back(fmt::format("{}: searched from {}", kSevenDays, core::format_iso8601(span.start)));
  for (const auto& n : notes) r.reason += (r.reason.empty() ? "" : "; ") + n;
  return r;
}

class X final : public Source {
 public:
  std::string_view id() const override { return "x"; }
  std::vector<std::string_view> hosts() const override { return {"api.x.com"}; }
  std::string_view name() const override { return "X"; }
  std::vector<std::string_view> aliases() const override { return {"twitter"}; }
  std::string_view spoken_names() const override { return "X Twitter"; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"like_count", "likes", 1.0, 300},
                                                      {"retweet_count", "reposts", 0.8, 50},
                                                      {"reply_count", "replies", 0.6, 30},
                                                      {"quote_count", "quotes", 0.6, 10}};
    return kEngagement;
  }
  bool social() const override { return true; }

  std::optional<std::string> unconfigured(const core::Config& c) const override {
    if (token(c)) return std::nullopt;
    return std::string("set X_BEARER_TOKEN");
  }

  SourceResult search(const Query& q, Env& env) const override {
    const auto tok = token(env.config);
    if (!tok) return {SourceState::skipped_unconfigured, "set X_BEARER_TOKEN", {}, 0};
    const core::UnixSeconds now = clock_of(q.now);
    const auto span = reachable(q.window, now);
    if (!span)
      return {SourceState::no_results,
              fmt::format("{}: the window ends before {}, so nothing was asked", kSevenDays, core::format_date(now - kReach)),
              {},
              0};
    Outcome o(std::clamp(q.limit, 10, 100));
    const std::size_t wanted = std::min<std::size_t>(q.sub_queries.size(), kMaxRequests);
    const std::vector<http::Header> auth = {{"Authorization", "Bearer " + *tok}};
    std::vector<Call> calls;
    for (std::size_t i = 0; i < wanted; ++i)
      calls.push_back(
          {search_url(core::truncate_utf8(q.sub_queries[i].text, kMaxQueryBytes) + " -is:retweet", *span, q.limit, "relevancy"),
           Expect::json, auth});
    // At most kMaxRequests, each sent once, together: an answer that ends the budget drops
    // (cancels, or never sends) the ones after it.
    const auto fetched = fetch_concurrently(env, std::move(calls), kMaxRequests, last_allowed);
    o.out.requests() += sent_count(fetched);
    std::size_t asked = 0;
    for (; asked < fetched.size() && !fetched[asked].dropped; ++asked) collect(fetched[asked], *span, static_cast<int>(asked), o);
    return finish(o, *span, asked, wanted);
  }

  bool has_listing() const override { return true; }

  // Discovery: the most relevant recent posts with links, or those carrying the domain's terms.
  SourceResult listing(const ListingQuery& q, Env& env) const override {
    const auto tok = token(env.config);
    if (!tok) return {SourceState::skipped_unconfigured, "set X_BEARER_TOKEN", {}, 0};
    const auto span = reachable(q.window, clock_of(q.now));
    if (!span) return {SourceState::no_results, std::string(kSevenDays), {}, 0};
    std::string query;
    if (q.domain_terms.empty()) {
      query = "has:links -is:retweet -is:reply lang:en";
    } else {
      std::string terms;
      for (std::size_t i = 0; i < q.domain_terms.size() && i < 8; ++i)
        if (!core::trim(q.domain_terms[i]).empty())
          terms += (terms.empty() ? "" : " OR ") + std::string(core::trim(q.domain_terms[i]));
      query = "(" + terms + ") -is:retweet lang:en";
    }
    Outcome o(100);
    ++o.out.requests();
    collect(fetch(env, search_url(query, *span, 100, "relevancy"), Expect::json, {{"Authorization", "Bearer " + *tok}}), *span, 0,
            o);
    return finish(o, *span, 1, 1);
  }

  std::string advice(model::SourceState state, const core::Config&, std::string_view env_file) const override {
    using S = model::SourceState;
    if (state == S::skipped_unconfigured) return fmt::format("set X_BEARER_TOKEN in {}", env_file);
    if (state == S::auth_failed)
      return "X_BEARER_TOKEN was refused: use the bearer token of an app in a Project whose plan includes recent search";
    if (state == S::rate_limited) return "X plans allow few searches per 15 minutes: wait for the reset";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"X_BEARER_TOKEN"}; }
};

}  // namespace

std::unique_ptr<Source> make_x() { return std::make_unique<X>(); }

}  // namespace sources
