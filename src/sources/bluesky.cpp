// Bluesky. A session from com.atproto.server.createSession on bsky.social (BSKY_HANDLE,
// BSKY_APP_PASSWORD), then app.bsky.feed.searchPosts on the account's PDS (named in the
// session's DID document), which proxies it to the AppView. The session's tokens live in
// memory only and are registered with core::redact the moment they arrive, so no log
// line, saved file or --record cassette can hold them.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "core/json.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kEntryway = "https://bsky.social";
constexpr std::string_view kWhatsHot = "at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.generator/whats-hot";
constexpr std::string_view kPostCollection = "app.bsky.feed.post";
constexpr std::string_view kOwnHosts[] = {"bsky.network", "bsky.social"};

struct Credentials {
  std::string handle, password;
};

std::optional<std::string> setting(const core::Config& c, std::string_view key) {
  auto v = c.get(key);
  if (!v || core::trim(*v).empty()) return std::nullopt;
  return std::string(core::trim(*v));
}

std::optional<Credentials> credentials(const core::Config& c) {
  auto handle = setting(c, "BSKY_HANDLE");
  auto password = setting(c, "BSKY_APP_PASSWORD");
  if (!handle || !password) return std::nullopt;
  if (handle->front() == '@') handle->erase(0, 1);
  return Credentials{*handle, *password};
}

std::string missing_keys(const core::Config& c) {
  const bool h = setting(c, "BSKY_HANDLE").has_value(), p = setting(c, "BSKY_APP_PASSWORD").has_value();
  return !h && !p ? "BSKY_HANDLE and BSKY_APP_PASSWORD" : !h ? "BSKY_HANDLE" : "BSKY_APP_PASSWORD";
}

struct Session {
  std::string access;
  std::string pds;   // https://host[:port], no trailing slash
  std::string note;  // why the search does not go to the PDS the session named
};

bool token_chars(std::string_view t) {
  return !t.empty() && t.size() < 8192 && std::all_of(t.begin(), t.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_';
  });
}

// A DNS name under one of Bluesky's own domains: no IP literal, no user info, no odd bytes.
bool bluesky_host(std::string_view host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' || host.back() == '.' || host.find("..") != std::string_view::npos)
    return false;
  if (!std::all_of(host.begin(), host.end(), [](char ch) {
        return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' ||
               ch == '-';
      }))
    return false;
  return std::any_of(std::begin(kOwnHosts), std::end(kOwnHosts),
                     [&](std::string_view own) { return core::within_domain(host, own); });
}

// The PDS of the DID document's "#atproto_pds" service, when it is a safe place for the
// session token. Logging in on bsky.social means the account lives on one of Bluesky's own
// PDSes (*.host.bsky.network), and bsky.social proxies for all of them; so the token only
// ever goes to an https origin under Bluesky's domains. Anything else — http, an IP, user
// info, a path, another domain — falls back to bsky.social, which still works.
struct Pds {
  std::string origin;  // "" = fall back
  std::string note;
};
Pds pds_of(const json& session) {
  auto doc = session.find("didDoc");
  if (doc == session.end() || !doc->is_object()) return {};
  const std::string did = str(*doc, "id");
  if (!did.empty() && !str(session, "did").empty() && did != str(session, "did"))
    return {"", "the session's DID document is another account's"};
  auto services = doc->find("service");
  if (services == doc->end() || !services->is_array()) return {};
  for (const auto& s : *services) {
    const std::string id = str(s, "id");
    if ((id != "#atproto_pds" && (did.empty() || id != did + "#atproto_pds")) || str(s, "type") != "AtprotoPersonalDataServer")
      continue;
    const std::string endpoint = str(s, "serviceEndpoint");
    auto u = core::Url::parse(endpoint);
    const bool origin_only = u && u->query.empty() && u->fragment.empty() && (u->path.empty() || u->path == "/");
    if (!u || u->scheme != "https" || endpoint.find('@') != std::string::npos || !origin_only || !bluesky_host(u->host) ||
        u->port.size() > 5)
      return {"", "the session's PDS is not an https host of Bluesky's"};
    return {"https://" + u->host + (u->port.empty() ? "" : ":" + u->port), ""};
  }
  return {};
}

// XRPC errors: {"error":"ExpiredToken","message":"Token has expired"}. Only a short
// alphanumeric code and a one-line message are ever quoted.
std::pair<std::string, std::string> xrpc_error(const std::string& body) {
  auto doc = core::json::parse_or_discarded(body);
  if (doc.is_discarded() || !doc.is_object()) return {};
  std::string code = str(doc, "error");
  if (code.size() > 40 ||
      !std::all_of(code.begin(), code.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); }))
    code.clear();
  return {code, core::truncate_utf8(core::printable_line(str(doc, "message")), 120)};
}

std::string reset_text(const http::Response& r) {
  auto reset = epoch_header(r, "ratelimit-reset");
  return reset ? ", resets at " + core::format_iso8601(*reset) : std::string();
}

Failure rate_limited(const Failure& f, const http::Response& r) {
  return {SourceState::rate_limited, "Bluesky rate limit (" + f.reason + ")" + reset_text(r)};
}

struct Login {
  std::optional<Session> session;
  std::optional<Failure> failure;
};

Login create_session(Env& env, const Credentials& c) {
  http::Request req = make_request(env, std::string(kEntryway) + "/xrpc/com.atproto.server.createSession",
                                   {{"Content-Type", "application/json"}, {"Accept", "application/json"}});
  req.method = "POST";
  req.body = json{{"identifier", c.handle}, {"password", c.password}}.dump();
  const http::Response r = env.http.get(req);
  auto fail = [](SourceState s, const std::string& why) { return Login{std::nullopt, Failure{s, "login: " + why}}; };
  if (r.transport_ok() && (r.status == 400 || r.status == 401)) {
    auto [code, message] = xrpc_error(r.body);
    if (message.find(c.password) != std::string::npos) message.clear();  // an echo is not an explanation
    return fail(SourceState::auth_failed,
                fmt::format("Bluesky rejected BSKY_HANDLE / BSKY_APP_PASSWORD ({}{})",
                            code.empty() ? "HTTP " + std::to_string(r.status) : code, message.empty() ? "" : ": " + message));
  }
  if (auto f = classify(r, Expect::json)) return fail(f->state, r.status == 429 ? rate_limited(*f, r).reason : f->reason);
  Failure bad{};
  auto doc = parse_json(r.body, &bad);
  if (!doc || !doc->is_object()) return fail(SourceState::schema_drift, doc ? "the session is not an object" : bad.reason);
  const std::string access = str(*doc, "accessJwt");
  // Registered before anything else can go wrong: from here on no way out can show them.
  core::redact::add_secret(access);
  core::redact::add_secret(str(*doc, "refreshJwt"));
  core::redact::add_secret(str(*doc, "email"));  // a personal datum: kept out of every way out, like a credential
  if (!token_chars(access)) return fail(SourceState::schema_drift, "the session has no usable accessJwt");
  Pds pds = pds_of(*doc);
  Session s;
  s.access = access;
  s.pds = pds.origin.empty() ? std::string(kEntryway) : pds.origin;
  if (!pds.note.empty()) s.note = pds.note + ": searched through bsky.social";
  return Login{std::move(s), std::nullopt};
}

// One session per account and HTTP session (a run's searches, discovery's sub-runs, a
// comparison's entities), in memory only: createSession is limited to 30 an account per
// 5 minutes. The lock is held while logging in so concurrent first users wait for one.
struct SessionCache {
  std::mutex mu;
  std::uint64_t key = 0;
  std::optional<Session> session;
};
SessionCache& cache() {
  static auto* c = new SessionCache();  // leaked: abandoned discovery workers may use it at exit
  return *c;
}
std::uint64_t account_key(Env& env, const Credentials& c) {
  return core::fnv1a64(c.handle + '\n' + c.password, env.http.session());
}

Login session_for(Env& env, const Credentials& c, int& requests) {
  const std::uint64_t key = account_key(env, c);
  auto& k = cache();
  std::lock_guard lock(k.mu);
  if (k.key == key && k.session) return Login{k.session, std::nullopt};
  ++requests;
  Login login = create_session(env, c);
  if (login.session) {
    k.key = key;
    k.session = login.session;
  }
  return login;
}

void drop_session(Env& env, const Credentials& c, const std::string& access) {
  auto& k = cache();
  std::lock_guard lock(k.mu);
  if (k.key == account_key(env, c) && k.session && k.session->access == access) k.session.reset();
}

bool expired(const http::Response& r) {
  if (!r.transport_ok()) return false;
  if (r.status == 401) return true;
  if (r.status != 400) return false;
  const auto code = xrpc_error(r.body).first;
  return code == "ExpiredToken" || code == "InvalidToken";
}

Fetched explain(Fetched f) {
  if (!f.failure) return f;
  const auto& r = f.response;
  if (r.status == 429) {
    f.failure = rate_limited(*f.failure, r);
  } else if (r.status == 400) {
    auto [code, message] = xrpc_error(r.body);
    if (!code.empty() || !message.empty())
      f.failure->reason = fmt::format("Bluesky {}{}", code.empty() ? "HTTP 400" : code, message.empty() ? "" : ": " + message);
  }
  return f;
}

struct Answers {
  std::vector<Fetched> fetched;  // one per path, in order
  std::string note;              // Session::note
};

// GETs pds + each path with the account's session, concurrently: logs in when there is no
// session, and once more when the PDS says the token expired (those requests are resent).
Answers authorized(Env& env, const Credentials& c, const std::vector<std::string>& paths, int& requests) {
  Answers out;
  out.fetched.resize(paths.size());
  std::vector<std::size_t> todo(paths.size());
  for (std::size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  for (int attempt = 0; attempt < 2 && !todo.empty(); ++attempt) {
    Login login = session_for(env, c, requests);
    if (login.failure) {
      for (std::size_t i : todo) out.fetched[i].failure = login.failure;
      return out;
    }
    out.note = login.session->note;
    std::vector<Call> calls;
    for (std::size_t i : todo)
      calls.push_back({login.session->pds + paths[i], Expect::json, {{"Authorization", "Bearer " + login.session->access}}});
    // A rate limit or a refusal other than expiry ends the batch (a sequential loop's break).
    auto got = fetch_concurrently(env, std::move(calls), 6,
                                  [](const Fetched& f) { return f.failure && !expired(f.response) && hopeless(*f.failure); });
    requests += sent_count(got);
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < got.size(); ++k) {
      if (!got[k].dropped && expired(got[k].response)) again.push_back(todo[k]);
      out.fetched[todo[k]] = explain(std::move(got[k]));
    }
    if (!again.empty()) drop_session(env, c, login.session->access);
    todo = std::move(again);
  }
  for (std::size_t i : todo) {
    const auto code = xrpc_error(out.fetched[i].response.body).first;
    out.fetched[i].failure = Failure{SourceState::auth_failed,
                                     fmt::format("Bluesky refused a fresh session ({})",
                                                 code.empty() ? "HTTP " + std::to_string(out.fetched[i].response.status) : code)};
  }
  return out;
}

bool valid_rkey(std::string_view k) {
  return !k.empty() && k.size() <= 512 && k != "." && k != ".." && std::all_of(k.begin(), k.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("._:~-").find(ch) != std::string_view::npos;
  });
}

bool valid_handle(std::string_view h) {
  return h.size() >= 3 && h.size() <= 253 && h != "handle.invalid" && h.find('.') != std::string_view::npos &&
         std::all_of(h.begin(), h.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-'; });
}

bool valid_did(std::string_view d) {
  return d.rfind("did:", 0) == 0 && d.size() <= 2048 && std::all_of(d.begin(), d.end(), [](char ch) {
           return std::isalnum(static_cast<unsigned char>(ch)) || std::string_view(":._%-").find(ch) != std::string_view::npos;
         });
}

const json* object_at(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? &*it : nullptr;
}

// The page a post shares: its link card, or the first link in its text.
std::pair<std::string, std::string> shared_link(const json& post, const json* record) {
  const json* embed = object_at(post, "embed");
  if (embed && str(*embed, "$type") == "app.bsky.embed.recordWithMedia#view") embed = object_at(*embed, "media");
  if (embed)
    if (const json* ext = object_at(*embed, "external"))
      if (outside_link(str(*ext, "uri"), {"bsky.app", "bsky.social"})) return {str(*ext, "uri"), str(*ext, "title")};
  if (record)
    if (auto facets = record->find("facets"); facets != record->end() && facets->is_array())
      for (const auto& f : *facets)
        if (auto feats = f.find("features"); f.is_object() && feats != f.end() && feats->is_array())
          for (const auto& feat : *feats)
            if (str(feat, "$type") == "app.bsky.richtext.facet#link" &&
                outside_link(str(feat, "uri"), {"bsky.app", "bsky.social"}))
              return {str(feat, "uri"), ""};
  return {};
}

std::optional<model::Item> parse_post(const json& p) {
  if (!p.is_object()) return std::nullopt;
  // at://did:plc:abc/app.bsky.feed.post/3kxyz
  const std::string uri_s = str(p, "uri");
  std::string_view uri = uri_s;
  if (uri.rfind("at://", 0) != 0) return std::nullopt;
  uri.remove_prefix(5);
  const auto s1 = uri.find('/');
  const auto s2 = s1 == std::string_view::npos ? s1 : uri.find('/', s1 + 1);
  if (s2 == std::string_view::npos) return std::nullopt;
  const std::string_view authority = uri.substr(0, s1), collection = uri.substr(s1 + 1, s2 - s1 - 1), rkey = uri.substr(s2 + 1);
  if (collection != kPostCollection || !valid_rkey(rkey) || !valid_did(authority)) return std::nullopt;
  const json* author = object_at(p, "author");
  std::string handle = author ? str(*author, "handle") : std::string();
  if (!valid_handle(handle)) handle.clear();
  const std::string profile = handle.empty() ? std::string(authority) : handle;
  const json* record = object_at(p, "record");
  const std::string text = record ? str(*record, "text") : std::string();
  model::Item item;
  item.id = "bluesky:" + std::string(authority) + "/" + std::string(rkey);
  item.source = "bluesky";
  const std::string post_url = fmt::format("https://bsky.app/profile/{}/post/{}", profile, rkey);
  auto [link, link_title] = shared_link(p, record);
  if (!link.empty()) {
    item.url = link;
    item.discussion_url = post_url;
  } else {
    item.url = post_url;
  }
  item.title = headline(text);
  if (item.title.empty()) item.title = headline(link_title);
  if (item.title.empty()) return std::nullopt;  // an image with no words says nothing we can rank
  if (!handle.empty()) item.author = handle;
  // createdAt is the client's claim; the time the AppView indexed it bounds it from above.
  auto created = record ? core::parse_iso8601(str(*record, "createdAt")) : std::nullopt;
  auto indexed = core::parse_iso8601(str(p, "indexedAt"));
  item.published_at = created && indexed ? std::min(*created, *indexed) : created ? created : indexed;
  for (const char* field : {"likeCount", "repostCount", "replyCount", "quoteCount"}) engage(item, field, num(p, field));
  item.snippet = core::truncate_utf8(core::collapse_whitespace(text), kSnippetBytes);
  return item;
}

// searchPosts {"posts":[postView]} or getFeed {"feed":[{"post":postView}]}.
std::optional<Failure> parse_posts(const std::string& body, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  if (!doc->is_object()) return Failure{SourceState::schema_drift, "answer is not an object"};
  if (auto posts = doc->find("posts"); posts != doc->end() && posts->is_array()) {
    for (const auto& p : *posts)
      if (auto item = parse_post(p)) items.push_back(std::move(*item));
    return std::nullopt;
  }
  if (auto feed = doc->find("feed"); feed != doc->end() && feed->is_array()) {
    for (const auto& entry : *feed)
      if (const json* post = object_at(entry, "post"))
        if (auto item = parse_post(*post)) items.push_back(std::move(*item));
    return std::nullopt;
  }
  return Failure{SourceState::schema_drift, "answer has neither 'posts' nor 'feed'"};
}

// Runs the paths (one sub-query each) and keeps the posts inside the window.
SourceResult run(Env& env, const Credentials& c, const std::vector<std::string>& paths, const model::Window& window, int page) {
  ResultBuilder out(page);
  Answers a = authorized(env, c, paths, out.requests());
  for (std::size_t i = 0; i < a.fetched.size(); ++i) {
    const Fetched& f = a.fetched[i];
    if (f.dropped) continue;  // after a hopeless answer: never sent, or its answer unused
    if (f.failure) {
      out.fail(*f.failure);
      continue;
    }
    std::vector<model::Item> items;
    if (auto bad = parse_posts(f.response.body, items)) {
      out.fail(*bad);
      continue;
    }
    out.succeed();
    int rank = 0;
    for (auto& item : items) {
      if (item.published_at && !window.contains(*item.published_at)) continue;
      out.add(std::move(item), static_cast<int>(i), rank++);
    }
  }
  SourceResult r = out.finish();
  if (!a.note.empty()) r.reason += (r.reason.empty() ? "" : "; ") + a.note;
  return r;
}

// searchPosts' since/until are an inclusive start and an exclusive end.
std::string search_path(std::string_view q, const model::Window& w, int limit) {
  return fmt::format("/xrpc/app.bsky.feed.searchPosts?q={}&sort=top&since={}&until={}&limit={}", core::url_encode(q),
                     core::url_encode(core::format_iso8601(w.from)), core::url_encode(core::format_iso8601(w.to + 1)), limit);
}

class Bluesky final : public Source {
 public:
  std::string_view id() const override { return "bluesky"; }
  std::vector<std::string_view> hosts() const override { return {"bsky.social", "api.bsky.app"}; }
  std::string_view name() const override { return "Bluesky"; }
  std::vector<std::string_view> aliases() const override { return {"bsky"}; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"likeCount", "likes", 1.0, 100},
                                                      {"repostCount", "reposts", 0.8, 20},
                                                      {"replyCount", "replies", 0.6, 15},
                                                      {"quoteCount", "quotes", 0.6, 5}};
    return kEngagement;
  }
  bool social() const override { return true; }

  std::optional<std::string> unconfigured(const core::Config& c) const override {
    if (credentials(c)) return std::nullopt;
    return "set " + missing_keys(c);
  }

  SourceResult search(const Query& q, Env& env) const override {
    auto creds = credentials(env.config);
    if (!creds) return {SourceState::skipped_unconfigured, "set " + missing_keys(env.config), {}, 0};
    const int limit = std::clamp(q.limit, 1, 100);
    std::vector<std::string> paths;
    for (const auto& sq : q.sub_queries) paths.push_back(search_path(sq.text, q.window, limit));
    return run(env, *creds, paths, q.window, limit);
  }

  bool has_listing() const override { return true; }

  // Discovery: Bluesky's own Discover feed ("What's Hot"), or the top posts carrying the
  // domain's first term.
  SourceResult listing(const ListingQuery& q, Env& env) const override {
    auto creds = credentials(env.config);
    if (!creds) return {SourceState::skipped_unconfigured, "set " + missing_keys(env.config), {}, 0};
    const int limit = std::clamp(q.limit, 1, 100);
    const std::string_view term = q.domain_terms.empty() ? std::string_view() : core::trim(q.domain_terms.front());
    const std::string path = term.empty()
                                 ? fmt::format("/xrpc/app.bsky.feed.getFeed?feed={}&limit={}", core::url_encode(kWhatsHot), limit)
                                 : search_path(term, q.window, limit);
    return run(env, *creds, {path}, q.window, limit);
  }

  std::string advice(model::SourceState state, const core::Config& c, std::string_view env_file) const override {
    using S = model::SourceState;
    if (state == S::skipped_unconfigured)
      return fmt::format("set {} in {} (an app password: bsky.app → Settings → Privacy and security → App passwords)",
                         missing_keys(c), env_file);
    if (state == S::auth_failed)
      return "BSKY_HANDLE / BSKY_APP_PASSWORD was rejected: check the handle and create a new app password at bsky.app → "
             "Settings → Privacy and security → App passwords";
    if (state == S::rate_limited) return "Bluesky limits logins to 30 per 5 minutes an account: wait for the reset";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"BSKY_HANDLE", "BSKY_APP_PASSWORD"}; }
};

}  // namespace

std::unique_ptr<Source> make_bluesky() { return std::make_unique<Bluesky>(); }

}  // namespace sources
