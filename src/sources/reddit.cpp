// Reddit. Keyless: the Atom search feed (no scores), with scores looked up in one batch
// from the arctic-shift archive. With REDDIT_CLIENT_ID/SECRET: an app-only OAuth token
// and the JSON API on oauth.reddit.com.
#include <fmt/format.h>

#include <pugixml.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/fold.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kWww = "https://www.reddit.com";
constexpr std::string_view kOauth = "https://oauth.reddit.com";
constexpr std::string_view kTokenUrl = "https://www.reddit.com/api/v1/access_token";
constexpr std::string_view kArctic = "https://arctic-shift.photon-reddit.com/api/posts/ids";
constexpr std::size_t kArcticBatch = 500;  // the archive's documented per-request cap

// Reddit's subreddit names: 2-21 letters, digits or underscores (anything else would
// change the path).
bool valid_subreddit(std::string_view s) {
  return s.size() >= 2 && s.size() <= 21 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

// Reddit's own relative window; the window is then enforced locally on dates.
std::string_view time_filter(const model::Window& w) {
  int days = w.days;
  if (days <= 0 && w.to > w.from) days = static_cast<int>((w.to - w.from) / 86400);
  if (days <= 1) return "day";
  if (days <= 7) return "week";
  if (days <= 31) return "month";
  if (days <= 365) return "year";
  return "all";
}

int clamp_limit(int n) { return std::clamp(n, 1, 100); }  // reddit caps listings at 100

// Base36 post ids only: anything else never reaches a URL we build.
bool valid_id(std::string_view id) {
  return !id.empty() && id.size() <= 16 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

std::string strip_t3(std::string_view id) {
  if (id.substr(0, 3) == "t3_") id.remove_prefix(3);
  return std::string(id);
}

// Reddit-hosted targets (images, galleries, videos, the thread itself) are not an outside link.
bool reddit_hosted(std::string_view url) {
  auto u = core::Url::parse(url);
  if (!u || u->host.empty()) return true;
  for (std::string_view h : {"reddit.com", "redd.it", "redditmedia.com"})
    if (core::within_domain(u->host, h)) return true;
  return false;
}

// Sets url/discussion_url from the thread and the post's own link.
void set_urls(model::Item& item, const std::string& permalink, const std::string& link) {
  if (!link.empty() && !reddit_hosted(link) && link != permalink) {
    item.url = link;
    item.discussion_url = permalink;
  } else {
    item.url = permalink;
  }
}

std::optional<std::string> author_name(std::string_view name) {
  name = core::trim(name);
  if (name.substr(0, 3) == "/u/") name.remove_prefix(3);
  else if (name.substr(0, 2) == "u/") name.remove_prefix(2);
  if (name.empty() || name == "[deleted]") return std::nullopt;
  return std::string(name);
}

void engage_reddit(model::Item& item, const json& obj) {
  engage(item, "score", num(obj, "score"), Sign::net_score);
  engage(item, "num_comments", num(obj, "num_comments"));
  auto ratio = num(obj, "upvote_ratio");
  if (ratio && *ratio <= 1.0) engage(item, "upvote_ratio", ratio);
}

std::string snippet_of(std::string_view text) { return core::truncate_utf8(text, kSnippetBytes); }

// ---- Atom (keyless) ----

// The post's own outside link: the href of the "[link]" anchor in the entry HTML.
std::string link_target(std::string_view html) {
  const auto marker = html.find(">[link]</a>");
  if (marker == std::string_view::npos) return {};
  const auto open = html.rfind("<a ", marker);
  if (open == std::string_view::npos) return {};
  const auto href = html.find("href=\"", open);
  if (href == std::string_view::npos || href > marker) return {};
  const auto start = href + 6;
  const auto end = html.find('"', start);
  if (end == std::string_view::npos || end > marker) return {};
  return core::decode_xml_escapes(html.substr(start, end - start));  // reddit's attribute escapes
}

// The self-text between reddit's SC_OFF/SC_ON markers; link posts have none, and the rest
// of the entry is "submitted by /u/x [link] [comments]" boilerplate.
std::string entry_snippet(std::string_view html) {
  const auto off = html.find("<!-- SC_OFF -->");
  const auto on = html.find("<!-- SC_ON -->");
  if (off != std::string_view::npos && on != std::string_view::npos && on > off)
    return snippet_of(core::html_to_text(html.substr(off + 15, on - off - 15)));
  std::string text = core::html_to_text(html);
  const auto cut = text.find("submitted by");
  if (cut != std::string::npos) text = std::string(core::trim(std::string_view(text).substr(0, cut)));
  return snippet_of(text);
}

std::optional<model::Item> parse_entry(const pugi::xml_node& entry) {
  const std::string_view full_id = core::trim(entry.child_value("id"));
  const std::string native = strip_t3(full_id);
  if (full_id.substr(0, 3) != "t3_" || !valid_id(native)) return std::nullopt;  // comments (t1_) and foreign entries
  const std::string title = core::collapse_whitespace(entry.child_value("title"));
  if (title.empty()) return std::nullopt;
  model::Item item;
  item.id = "reddit:" + native;
  item.source = "reddit";
  item.title = title;
  std::string permalink;
  for (const auto& link : entry.children("link")) {
    const std::string_view rel = link.attribute("rel").as_string();
    if (rel.empty() || rel == "alternate") {
      permalink = link.attribute("href").as_string();
      break;
    }
  }
  if (permalink.empty() || !reddit_hosted(permalink)) permalink = fmt::format("{}/comments/{}/", kWww, native);
  const std::string_view html = entry.child_value("content");
  set_urls(item, permalink, link_target(html));
  item.author = author_name(entry.child("author").child_value("name"));
  const std::string_view sub = core::trim(entry.child("category").attribute("term").as_string());
  if (!sub.empty()) item.container = "r/" + std::string(sub);
  auto when = core::parse_iso8601(core::trim(entry.child_value("published")));
  if (!when) when = core::parse_iso8601(core::trim(entry.child_value("updated")));
  item.published_at = when;
  item.snippet = entry_snippet(html);
  return item;
}

// Parses a reddit Atom listing into items; nullopt on success.
std::optional<Failure> parse_atom(const std::string& body, std::vector<model::Item>& items) {
  pugi::xml_document doc;
  const auto parsed = doc.load_buffer(body.data(), body.size());
  if (!parsed) return Failure{SourceState::schema_drift, fmt::format("malformed or truncated XML: {}", parsed.description())};
  const auto feed = doc.child("feed");
  if (!feed) return Failure{SourceState::schema_drift, "answer is not an Atom feed"};
  std::size_t seen = 0;
  for (const auto& entry : feed.children("entry")) {
    if (++seen > kMaxArrayElements) break;
    if (auto item = parse_entry(entry)) items.push_back(std::move(*item));
  }
  return std::nullopt;
}

// ---- JSON Listing (OAuth) ----

std::optional<model::Item> parse_child(const json& child) {
  if (!child.is_object() || str(child, "kind") != "t3") return std::nullopt;
  auto it = child.find("data");
  if (it == child.end() || !it->is_object()) return std::nullopt;
  const json& d = *it;
  std::string native = str(d, "id");
  if (native.empty()) native = strip_t3(str(d, "name"));
  const std::string title = core::collapse_whitespace(str(d, "title"));
  if (!valid_id(native) || title.empty()) return std::nullopt;
  model::Item item;
  item.id = "reddit:" + native;
  item.source = "reddit";
  item.title = title;
  std::string permalink = str(d, "permalink");
  if (!permalink.empty() && permalink.front() == '/') permalink = std::string(kWww) + permalink;
  if (permalink.empty() || !reddit_hosted(permalink)) permalink = fmt::format("{}/comments/{}/", kWww, native);
  const auto self = d.find("is_self");
  const bool is_self = self != d.end() && self->is_boolean() && self->get<bool>();
  set_urls(item, permalink, is_self ? std::string() : str(d, "url"));
  item.author = author_name(str(d, "author"));
  const std::string sub = str(d, "subreddit");
  if (!sub.empty()) item.container = "r/" + sub;
  item.published_at = unix_time(num(d, "created_utc"));
  engage_reddit(item, d);
  const std::string html = str(d, "selftext_html");
  item.snippet = snippet_of(html.empty() ? core::collapse_whitespace(str(d, "selftext")) : core::html_to_text(html));
  return item;
}

std::optional<Failure> parse_listing(const std::string& body, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  const json* children = nullptr;
  if (doc->is_object()) {
    auto data = doc->find("data");
    if (data != doc->end() && data->is_object()) {
      auto c = data->find("children");
      if (c != data->end() && c->is_array()) children = &*c;
    }
  }
  if (!children) {
    // Error objects look like {"message":"Too Many Requests","error":429}.
    if (doc->is_object() && doc->contains("error")) {
      const auto code = num(*doc, "error").value_or(0);
      const SourceState state = code == 429                  ? SourceState::rate_limited
                                : code == 401 || code == 403 ? SourceState::auth_failed
                                                             : SourceState::error;
      return Failure{state,
                     fmt::format("reddit error {}: {}", str(*doc, "error"), core::truncate_utf8(str(*doc, "message"), 80))};
    }
    return Failure{SourceState::schema_drift, "answer has no data.children array"};
  }
  for (const auto& child : *children)
    if (auto item = parse_child(child)) items.push_back(std::move(*item));
  return std::nullopt;
}

// ---- requests ----

struct Credentials {
  std::string id, secret;
};

std::optional<Credentials> credentials(const core::Config& config) {
  auto id = config.get("REDDIT_CLIENT_ID");
  auto secret = config.get("REDDIT_CLIENT_SECRET");
  if (!id || !secret || core::trim(*id).empty() || core::trim(*secret).empty()) return std::nullopt;
  return Credentials{std::string(core::trim(*id)), std::string(core::trim(*secret))};
}

struct Token {
  std::string value;
  std::optional<Failure> failure;
  long lifetime_s = 3600;  // expires_in
};

// App-only OAuth (client_credentials). Reasons never echo the credentials or the token.
Token fetch_token(Env& env, const Credentials& c) {
  http::Request req = make_request(env, std::string(kTokenUrl),
                                   {{"Authorization", "Basic " + core::base64_encode(c.id + ":" + c.secret)},
                                    {"Content-Type", "application/x-www-form-urlencoded"},
                                    {"Accept", "application/json"}});
  req.method = "POST";
  req.body = "grant_type=client_credentials";
  const http::Response r = env.http.get(req);
  auto prefixed = [](Failure f) {
    f.reason = "token request: " + f.reason;
    return Token{{}, std::move(f)};
  };
  if (auto f = classify(r, Expect::json)) return prefixed(*f);
  Failure bad{};
  auto doc = parse_json(r.body, &bad);
  if (!doc) return prefixed(bad);
  if (!doc->is_object()) return prefixed({SourceState::schema_drift, "answer is not an object"});
  if (doc->contains("error")) {
    // e.g. {"error":"invalid_grant"} or {"error":401,"message":"Unauthorized"}: short codes only.
    std::string code = str(*doc, "error");
    if (!std::all_of(code.begin(), code.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
      code = "rejected";
    return prefixed({SourceState::auth_failed, "refused: " + core::truncate_utf8(code, 40)});
  }
  std::string token = str(*doc, "access_token");
  if (token.empty()) return prefixed({SourceState::schema_drift, "answer has no access_token"});
  core::redact::add_secret(token);  // a run-time credential: never printed, saved or recorded
  const double lifetime = num(*doc, "expires_in").value_or(3600);
  return Token{std::move(token), std::nullopt,
               std::isfinite(lifetime) ? static_cast<long>(std::clamp(lifetime, 0.0, 86400.0)) : 3600};
}

// One listing answer (Atom or JSON) into items; the failure otherwise.
std::optional<Failure> parse_page(const Fetched& f, bool oauth, std::vector<model::Item>& items) {
  if (f.failure) return f.failure;
  return oauth ? parse_listing(f.response.body, items) : parse_atom(f.response.body, items);
}

// One listing answer into the builder. Items outside `window` are dropped.
void collect(const Fetched& f, bool oauth, int subquery, const model::Window* window, ResultBuilder& out) {
  std::vector<model::Item> items;
  if (auto bad = parse_page(f, oauth, items)) return out.fail(*bad);
  out.succeed();
  int rank = 0;
  for (auto& item : items) {
    if (window && item.published_at && !window->contains(*item.published_at)) continue;
    out.add(std::move(item), subquery, rank++);
  }
}

// ---- several sub-queries in one search ----
//
// Reddit's search ANDs the words of a query and reads an upper-case OR between
// parenthesised groups ("tokio OR (tokio runtime) OR (async rust)"), so one paced request
// asks what one request per sub-query asked. Each post is then attributed back to every
// sub-query whose words it carries, ranked in the order reddit returned it, as if each
// sub-query had been searched alone.

constexpr int kPackedPage = 100;             // reddit's listing cap: the packed search asks for all of it
constexpr std::size_t kMaxQueryBytes = 512;  // reddit's limit on q

// A sub-query as one group of the packed query: its own parentheses and operator words
// would change the grouping, an unbalanced quote would swallow the groups after it.
std::string packed_group(std::string_view text) {
  std::string clean(text);
  for (char& c : clean)
    if (c == '(' || c == ')') c = ' ';
  if (std::count(clean.begin(), clean.end(), '"') % 2 != 0) std::erase(clean, '"');
  std::string out;
  int words = 0;
  std::istringstream in(clean);
  for (std::string w; in >> w; ++words) {
    if (w == "OR" || w == "AND" || w == "NOT") w = core::lower_ascii(w);
    out += (out.empty() ? "" : " ") + w;
  }
  return words > 1 ? "(" + out + ")" : out;
}

// The packed q, or nothing when it would not fit reddit's limit (then: one search each).
std::optional<std::string> packed_query(const std::vector<model::SubQuery>& subs) {
  std::vector<std::string> groups;
  for (const auto& sub : subs) {
    std::string g = packed_group(sub.text);
    if (!g.empty() && std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(std::move(g));
  }
  std::string q;
  for (const auto& g : groups) q += (q.empty() ? "" : " OR ") + g;
  if (q.empty() || q.size() > kMaxQueryBytes) return std::nullopt;
  return q;
}

// The words a post must carry to count as found by a sub-query: every word it sent, as a
// search of that sub-query alone ANDs them.
std::vector<std::string> required_words(std::string_view text) {
  std::vector<std::string> out;
  for (auto& w : core::match_words(text)) out.push_back(std::move(w.text));
  return out;
}

// The sub-queries a post answers (answered_subqueries), by the words of its title, snippet
// and subreddit (reddit also searches the self-text past the snippet, and stems).
std::vector<int> attribute(const model::Item& item, const std::vector<std::vector<std::string>>& wanted) {
  std::unordered_set<std::string> have;
  for (auto& w : core::match_words(item.title + " " + item.snippet + " " + item.container.value_or("")))
    have.insert(std::move(w.text));
  return answered_subqueries(wanted, [&](const std::string& w) { return have.count(w) > 0; });
}

// Merges archive scores into keyless items. Returns why scores are missing, if they are.
std::optional<std::string> add_scores(Env& env, SourceResult& result) {
  std::unordered_map<std::string, model::Item*> by_id;
  std::vector<std::string> ids;
  for (auto& item : result.items) {
    std::string native = item.id.substr(7);  // after "reddit:"
    if (by_id.emplace(native, &item).second) ids.push_back(std::move(native));
  }
  std::vector<Call> calls;
  for (std::size_t start = 0; start < ids.size(); start += kArcticBatch) {
    std::string joined;
    for (std::size_t i = start; i < std::min(ids.size(), start + kArcticBatch); ++i)
      joined += (joined.empty() ? "" : ",") + ids[i];
    calls.push_back({fmt::format("{}?ids={}&fields=id,score,num_comments,upvote_ratio,created_utc", kArctic, joined)});
  }
  const auto fetched = fetch_concurrently(env, std::move(calls));
  result.requests += sent_count(fetched);
  std::optional<std::string> why;
  for (const Fetched& f : fetched) {
    if (f.failure) {
      why = f.failure->reason;
      continue;
    }
    Failure bad{};
    auto doc = parse_json(f.response.body, &bad);
    if (!doc) {
      why = bad.reason;
      continue;
    }
    const json* data = nullptr;
    if (doc->is_object()) {
      auto it = doc->find("data");
      if (it != doc->end() && it->is_array()) data = &*it;
    }
    if (!data) {
      // The archive answers {"error":"Timeout. Maybe slow down a bit"} when busy.
      const std::string err = doc->is_object() ? str(*doc, "error") : std::string();
      why = err.empty() ? std::string("archive answer has no 'data' array") : "archive said: " + core::truncate_utf8(err, 80);
      continue;
    }
    for (const auto& post : *data) {
      auto hit = by_id.find(strip_t3(str(post, "id")));
      if (hit == by_id.end()) continue;
      model::Item& item = *hit->second;
      item.engagement.clear();
      engage_reddit(item, post);
      if (!item.published_at) item.published_at = unix_time(num(post, "created_utc"));
    }
  }
  return why;
}

// Keyless results are still useful without scores: say so instead of failing.
void finish_keyless(Env& env, SourceResult& result) {
  if (result.items.empty()) return;
  auto why = add_scores(env, result);
  if (!why) return;
  const std::string note = "scores unavailable: " + *why;
  if (result.state == SourceState::ok) {
    result.state = SourceState::partial;
    result.reason = note;
  } else {
    result.reason = result.reason.empty() ? note : result.reason + "; " + note;
  }
}

// One app-only token per HTTP session and credentials: a run's searches and comments, and
// the entities of a comparison, share it instead of each spending a paced reddit.com
// request. The lock is held while fetching so concurrent first users wait for one token.
Token cached_token(Env& env, const Credentials& c, int& requests) {
  struct Cache {
    std::mutex mu;
    std::uint64_t key = 0;
    std::string token;
    core::Clock::time_point expires;
  };
  static auto* cache = new Cache();  // leaked: abandoned discovery workers may use it at exit
  const std::uint64_t key = core::fnv1a64(c.id + '\n' + c.secret, env.http.session());
  std::lock_guard lock(cache->mu);
  if (cache->key == key && core::Clock::now() < cache->expires) return Token{cache->token, std::nullopt};
  ++requests;
  Token t = fetch_token(env, c);
  if (!t.failure) {
    cache->key = key;
    cache->token = t.value;
    cache->expires = core::Clock::now() + std::chrono::seconds(t.lifetime_s > 120 ? t.lifetime_s - 60 : 60);
  }
  return t;
}

// ---- comments ----

constexpr std::string_view kArcticComments = "https://arctic-shift.photon-reddit.com/api/comments/search";

// A top-level comment worth quoting, from the archive's copy or the JSON API's t1 data.
// Bodies are Markdown with HTML entities (no raw_json), so "Vec<T>" arrives as "Vec&lt;T&gt;".
std::optional<model::Comment> parse_comment(const json& d, std::string_view post) {
  if (!d.is_object()) return std::nullopt;
  const std::string parent = str(d, "parent_id");
  if (!parent.empty() && parent != "t3_" + std::string(post)) return std::nullopt;  // a reply
  const auto author = author_name(str(d, "author"));
  const std::string raw = str(d, "body");
  if (!author || bot_author(*author) || raw == "[deleted]" || raw == "[removed]") return std::nullopt;
  const auto stickied = d.find("stickied");
  if (str(d, "distinguished") == "moderator" && stickied != d.end() && stickied->is_boolean() && stickied->get<bool>())
    return std::nullopt;  // the moderators' pinned notice
  std::string text = markdown_to_text(core::truncate_utf8(raw, 4 * kCommentBytes));
  if (text.empty()) return std::nullopt;
  model::Comment c;
  c.author = author;
  c.text = core::truncate_utf8(text, kCommentBytes);
  if (auto score = num(d, "score"); score && std::isfinite(*score)) c.score = *score;
  const std::string permalink = str(d, "permalink");
  const std::string id = str(d, "id");
  if (permalink.starts_with("/r/")) c.url = std::string(kWww) + permalink;
  else if (valid_id(id)) c.url = fmt::format("{}/comments/{}/_/{}/", kWww, post, id);
  return c;
}

Thread best_of(std::vector<model::Comment> comments, int per_item) {
  std::stable_sort(comments.begin(), comments.end(),
                   [](const model::Comment& a, const model::Comment& b) { return a.score.value_or(0) > b.score.value_or(0); });
  if (comments.size() > static_cast<std::size_t>(per_item)) comments.resize(static_cast<std::size_t>(per_item));
  return Thread{std::move(comments), std::nullopt};
}

// arctic-shift: {"data":[comment, ...]} in time order (the archive cannot sort by score).
Thread parse_archive_thread(const Fetched& f, std::string_view post, int per_item) {
  if (f.failure) return {{}, thread_failure(*f.failure)};
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return {{}, thread_failure(bad)};
  auto data = doc->is_object() ? doc->find("data") : doc->end();
  if (!doc->is_object() || data == doc->end() || !data->is_array()) {
    const std::string err = doc->is_object() ? str(*doc, "error") : std::string();
    return {{},
            err.empty() ? thread_failure({SourceState::schema_drift, "archive answer has no 'data' array"})
                        : "archive said: " + core::truncate_utf8(err, 80)};
  }
  std::vector<model::Comment> out;
  for (const auto& d : *data)
    if (auto c = parse_comment(d, post)) out.push_back(std::move(*c));
  return best_of(std::move(out), per_item);
}

// The JSON API: [post listing, comment listing]; children are t1 comments and "more" stubs.
Thread parse_api_thread(const Fetched& f, std::string_view post, int per_item) {
  if (f.failure) return {{}, thread_failure(*f.failure)};
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return {{}, thread_failure(bad)};
  const json* children = nullptr;
  if (doc->is_array() && doc->size() == 2 && (*doc)[1].is_object()) {
    auto data = (*doc)[1].find("data");
    if (data != (*doc)[1].end() && data->is_object()) {
      auto c = data->find("children");
      if (c != data->end() && c->is_array()) children = &*c;
    }
  }
  if (!children) return {{}, thread_failure({SourceState::schema_drift, "answer is not [post, comments] listings"})};
  std::vector<model::Comment> out;
  for (const auto& child : *children) {
    if (!child.is_object() || str(child, "kind") != "t1") continue;
    if (auto d = child.find("data"); d != child.end())
      if (auto c = parse_comment(*d, post)) out.push_back(std::move(*c));
  }
  return best_of(std::move(out), per_item);
}

class Reddit final : public Source {
 public:
  std::string_view id() const override { return "reddit"; }
  std::vector<std::string_view> hosts() const override {
    return {"www.reddit.com", "oauth.reddit.com", "arctic-shift.photon-reddit.com"};
  }
  std::string_view name() const override { return "Reddit"; }
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"comparison", 1.15}, {"product", 1.1}};
    return kWeights;
  }
  // A subreddit says which "Rust" a post means.
  std::optional<Container> context_container() const override { return Container{"r/", ""}; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {
        {"tech", false, {"technology", "tech", "gadgets", "hardware"}},
        {"software", false, {"programming", "software", "webdev", "devops", "opensource", "ExperiencedDevs"}},
        {"ai", false, {"artificial", "MachineLearning", "OpenAI", "LocalLLaMA", "singularity", "ChatGPT"}},
        {"security", false, {"netsec", "cybersecurity", "security"}},
        {"science", false, {"science", "physics", "space", "biology", "chemistry", "Astronomy"}},
        {"news", false, {"news", "worldnews"}},
        {"business", false, {"business", "startups", "Entrepreneur"}},
        {"finance", false, {"finance", "stocks", "investing", "economics", "wallstreetbets"}},
        {"crypto", false, {"CryptoCurrency", "Bitcoin", "ethereum"}},
        {"gaming", false, {"gaming", "Games", "pcgaming", "NintendoSwitch"}},
        {"sports", false, {"sports", "nba", "nfl", "soccer", "formula1", "baseball", "hockey"}},
        {"politics", false, {"politics", "worldpolitics", "geopolitics", "PoliticalDiscussion"}},
    };
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"score", "score", 1.0, 300},
                                                      {"num_comments", "comments", 0.7, 80},
                                                      {"upvote_ratio", "upvoted", 0, 0, Shown::percent, false}};
    return kEngagement;
  }
  bool social() const override { return true; }

  SourceResult search(const Query& q, Env& env) const override {
    const auto creds = credentials(env.config);
    const std::string t(time_filter(q.window));
    const int n = clamp_limit(q.limit);
    auto url_of = [&](std::string_view text, int limit) {
      const std::string e = core::url_encode(text);
      return creds ? fmt::format("{}/search?q={}&t={}&sort=relevance&limit={}&raw_json=1&type=link", kOauth, e, t, limit)
                   : fmt::format("{}/search.rss?q={}&sort=relevance&t={}&limit={}", kWww, e, t, limit);
    };
    if (q.sub_queries.size() > 1)
      if (auto packed = packed_query(q.sub_queries)) return run_packed(env, creds, q, url_of(*packed, kPackedPage), url_of, n);
    std::vector<std::string> urls;
    for (const auto& sub : q.sub_queries) urls.push_back(url_of(sub.text, n));
    return run(env, creds, urls, &q.window, n);
  }

  bool has_comments() const override { return true; }

  // Keyless: the archive's copy of the thread (no pacing: another host). With OAuth: the
  // JSON API's top-sorted thread, paced with every other reddit.com request of the process.
  std::vector<Thread> comments(const CommentQuery& q, Env& env) const override {
    std::vector<Thread> out(q.items.size());
    const auto creds = credentials(env.config);
    std::vector<http::Header> headers;
    if (creds) {
      int requests = 0;
      Token tok = cached_token(env, *creds, requests);
      if (tok.failure) {
        for (auto& t : out) t.failure = thread_failure(*tok.failure);
        return out;
      }
      headers.push_back({"Authorization", "bearer " + tok.value});
    }
    std::vector<Call> calls;
    std::vector<std::size_t> asked;
    for (std::size_t i = 0; i < q.items.size(); ++i) {
      const std::string_view post = platform_id(q.items[i], "reddit");
      if (!valid_id(post)) {
        out[i].failure = "not a reddit post id";
        continue;
      }
      calls.push_back(
          {creds ? fmt::format("{}/comments/{}?sort=top&depth=1&limit=25", kOauth, post)
                 : fmt::format("{}?link_id={}&limit=100&fields=id,author,body,score,parent_id,permalink,distinguished,stickied",
                               kArcticComments, post),
           Expect::json, headers});
      asked.push_back(i);
    }
    auto fetched = fetch_concurrently(env, std::move(calls), 4);
    for (std::size_t k = 0; k < fetched.size(); ++k) {
      const std::string_view post = platform_id(q.items[asked[k]], "reddit");
      out[asked[k]] = creds ? parse_api_thread(fetched[k], post, q.per_item) : parse_archive_thread(fetched[k], post, q.per_item);
    }
    return out;
  }

  std::string advice(SourceState state, const core::Config& c, std::string_view env_file) const override {
    const bool keyed = credentials(c).has_value();
    if (state == SourceState::auth_failed && keyed)
      return "REDDIT_CLIENT_ID / REDDIT_CLIENT_SECRET were rejected: check the script app at reddit.com/prefs/apps";
    if (!keyed)
      return fmt::format(
          "keyless: RSS search, scores from arctic-shift — set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET "
          "(a script app at reddit.com/prefs/apps) in {} for the JSON API",
          env_file);
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"}; }

  bool has_listing() const override { return true; }

  SourceResult listing(const ListingQuery& q, Env& env) const override {
    const auto creds = credentials(env.config);
    const int n = clamp_limit(q.limit);
    std::vector<std::string> urls;
    if (q.domain.empty() || !q.communities.empty()) {
      // r/all, or the domain's subreddits as one multireddit ("r/news+worldnews").
      std::string subs;
      for (const auto& s : q.communities)
        if (valid_subreddit(s)) subs += (subs.empty() ? "" : "+") + s;
      if (subs.empty()) subs = "all";
      if (creds) {
        urls.push_back(fmt::format("{}/r/{}/top?t=day&limit={}&raw_json=1", kOauth, subs, n));
        urls.push_back(fmt::format("{}/r/{}/rising?limit={}&raw_json=1", kOauth, subs, n));
      } else {
        urls.push_back(fmt::format("{}/r/{}/top.rss?t=day&limit={}", kWww, subs, n));
        urls.push_back(fmt::format("{}/r/{}/rising.rss?limit={}", kWww, subs, n));
      }
    } else {
      std::string terms;
      for (const auto& term : q.domain_terms)
        if (!core::trim(term).empty()) terms += (terms.empty() ? "" : " OR ") + std::string(core::trim(term));
      if (terms.empty()) terms = q.domain;
      const std::string text = core::url_encode(terms);
      urls.push_back(creds ? fmt::format("{}/search?q={}&sort=top&t=week&limit={}&raw_json=1&type=link", kOauth, text, n)
                           : fmt::format("{}/search.rss?q={}&sort=top&t=week&limit={}", kWww, text, n));
    }
    return run(env, creds, urls, nullptr, n);
  }

 private:
  // The packed search: one request for every sub-query, each post attributed back to the
  // sub-queries it answers (at most `n` ranks each, as when each was searched alone). A
  // sub-query the full packed page left without a single post was crowded out by the
  // others: it alone gets its own search, so no sub-query is worse off than before and the
  // run never sends more requests than one per sub-query.
  template <typename UrlOf>
  static SourceResult run_packed(Env& env, const std::optional<Credentials>& creds, const Query& q, const std::string& url,
                                 const UrlOf& url_of, int n) {
    ResultBuilder out(n);
    std::vector<http::Header> headers;
    if (creds) {
      Token tok = cached_token(env, *creds, out.requests());
      if (tok.failure) {
        out.fail(*tok.failure);
        return out.finish();
      }
      headers.push_back({"Authorization", "bearer " + tok.value});
    }
    const Expect expect = creds ? Expect::json : Expect::xml;
    const Fetched page = fetch(env, url, expect, headers);
    out.requests() += page.sent ? 1 : 0;
    std::vector<model::Item> items;
    if (auto bad = parse_page(page, creds.has_value(), items)) {
      out.fail(*bad);
    } else {
      out.succeed();
      std::vector<std::vector<std::string>> wanted;
      for (const auto& sub : q.sub_queries) wanted.push_back(required_words(sub.text));
      std::vector<int> ranks(wanted.size(), 0);
      const bool full = items.size() >= static_cast<std::size_t>(kPackedPage);
      for (auto& item : items) {
        if (item.published_at && !q.window.contains(*item.published_at)) continue;
        const auto subs = attribute(item, wanted);  // before the item moves
        out.add_credited(std::move(item), subs, ranks);
      }
      std::vector<Call> alone;
      std::vector<int> which;
      for (std::size_t s = 0; full && s < ranks.size(); ++s) {
        if (ranks[s] > 0) continue;
        alone.push_back({url_of(q.sub_queries[s].text, n), expect, headers});
        which.push_back(static_cast<int>(s));
      }
      const auto fetched = fetch_concurrently(env, std::move(alone));  // paced by the client, as ever
      out.requests() += sent_count(fetched);
      for (std::size_t i = 0; i < fetched.size(); ++i) collect(fetched[i], creds.has_value(), which[i], &q.window, out);
    }
    SourceResult result = out.finish();
    if (!creds) finish_keyless(env, result);
    return result;
  }

  // Runs the listing URLs (one stream each), keyless or through one OAuth token.
  static SourceResult run(Env& env, const std::optional<Credentials>& creds, const std::vector<std::string>& urls,
                          const model::Window* window, int page_size) {
    ResultBuilder out(page_size);
    std::string token;
    if (creds) {
      Token tok = cached_token(env, *creds, out.requests());
      if (tok.failure) {
        out.fail(*tok.failure);
        return out.finish();
      }
      token = std::move(tok.value);
    }
    // Together: the HTTP client spaces them a second apart, as reddit.com asks.
    std::vector<Call> calls;
    for (const auto& url : urls) {
      std::vector<http::Header> headers;
      if (creds) headers.push_back({"Authorization", "bearer " + token});
      calls.push_back({url, creds ? Expect::json : Expect::xml, std::move(headers)});
    }
    const auto fetched = fetch_concurrently(env, std::move(calls));
    out.requests() += sent_count(fetched);
    for (std::size_t i = 0; i < fetched.size(); ++i) collect(fetched[i], creds.has_value(), static_cast<int>(i), window, out);
    SourceResult result = out.finish();
    if (!creds) finish_keyless(env, result);
    return result;
  }
};

}  // namespace

std::unique_ptr<Source> make_reddit() { return std::make_unique<Reddit>(); }

}  // namespace sources
