// YouTube. With YOUTUBE_API_KEY: the Data API, search.list (100 quota units of the
// 10,000 a day, so few of them) then one videos.list for the statistics, which arrive as
// strings. Without a key: yt-dlp from PATH as a subprocess (src/proc owns its lifetime),
// its JSON lines parsed as they stream. Dates are filtered locally; a video without one
// is undated context.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "proc/subprocess.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kApi = "https://www.googleapis.com/youtube/v3";
constexpr std::string_view kWatch = "https://www.youtube.com/watch?v=";
constexpr std::string_view kNoSource = "set YOUTUBE_API_KEY or install yt-dlp";

std::optional<std::string> api_key(const core::Config& c) {
  auto k = c.get("YOUTUBE_API_KEY");
  if (!k || core::trim(*k).empty()) return std::nullopt;
  return std::string(core::trim(*k));
}

std::optional<std::string> ytdlp(const core::Config& c) { return proc::find_in_path("yt-dlp", c.get("PATH").value_or("")); }

bool valid_video_id(std::string_view id) {
  return id.size() == 11 && std::all_of(id.begin(), id.end(), [](char ch) {
           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
         });
}

// search.list titles arrive HTML-escaped ("Rust&#39;s"); videos.list titles do not.
std::string unescape_html(std::string_view s) {
  return s.find('&') == std::string_view::npos ? core::collapse_whitespace(s) : core::html_to_text(s);
}

void engage_statistics(model::Item& item, const json& stats) {
  engage(item, "views", num(stats, "viewCount"));
  engage(item, "likes", num(stats, "likeCount"));
  engage(item, "comments", num(stats, "commentCount"));
}

// Google's error document: {"error":{"code","message","errors":[{"reason"}],"details":[{"reason"}]}}.
Failure explain(const Fetched& f) {
  Failure out = *f.failure;
  auto doc = core::json::parse_or_discarded(f.response.body);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("error") || !doc["error"].is_object()) return out;
  const json& err = doc["error"];
  std::vector<std::string> reasons;
  for (const char* list : {"errors", "details"})
    if (auto it = err.find(list); it != err.end() && it->is_array())
      for (const auto& e : *it)
        if (auto r = opt_str(e, "reason")) reasons.push_back(*r);
  auto any = [&](std::initializer_list<std::string_view> names) {
    return std::any_of(reasons.begin(), reasons.end(),
                       [&](const std::string& r) { return std::find(names.begin(), names.end(), r) != names.end(); });
  };
  const std::string message = core::truncate_utf8(core::html_to_text(str(err, "message")), 160);
  if (any({"API_KEY_INVALID", "keyInvalid", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED", "accessNotConfigured",
           "SERVICE_DISABLED", "forbidden", "ipRefererBlocked", "API_KEY_IP_ADDRESS_BLOCKED"}))
    return {SourceState::auth_failed, "YouTube rejected YOUTUBE_API_KEY: " + message};
  if (any({"quotaExceeded", "dailyLimitExceeded", "rateLimitExceeded", "RATE_LIMIT_EXCEEDED", "userRateLimitExceeded"}))
    return {SourceState::rate_limited, "YouTube quota exceeded (it resets at midnight Pacific time)"};
  if (!message.empty()) out.reason = fmt::format("YouTube HTTP {}: {}", f.response.status, message);
  return out;
}

// search.list answer into items (in rank order).
std::optional<Failure> parse_search(const std::string& body, std::vector<model::Item>& items) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  auto list = doc->is_object() ? doc->find("items") : doc->end();
  if (!doc->is_object() || list == doc->end() || !list->is_array())
    return Failure{SourceState::schema_drift, "answer has no 'items' array"};
  for (const auto& r : *list) {
    if (!r.is_object()) continue;
    auto id = r.find("id");
    const std::string vid = id != r.end() && id->is_object() ? str(*id, "videoId") : std::string();
    auto sn = r.find("snippet");
    if (!valid_video_id(vid) || sn == r.end() || !sn->is_object()) continue;
    model::Item item;
    item.id = "youtube:" + vid;
    item.source = "youtube";
    item.url = std::string(kWatch) + vid;
    item.title = unescape_html(str(*sn, "title"));
    if (item.title.empty()) continue;
    if (auto ch = opt_str(*sn, "channelTitle"); ch && !ch->empty()) item.author = item.container = unescape_html(*ch);
    item.published_at = core::parse_iso8601(str(*sn, "publishedAt"));
    item.snippet = core::truncate_utf8(unescape_html(str(*sn, "description")), kSnippetBytes);
    items.push_back(std::move(item));
  }
  return std::nullopt;
}

// videos.list answer: statistics and unescaped snippets, by video id.
std::optional<Failure> merge_videos(const std::string& body, std::unordered_map<std::string, model::Item*>& by_id) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  auto list = doc->is_object() ? doc->find("items") : doc->end();
  if (!doc->is_object() || list == doc->end() || !list->is_array())
    return Failure{SourceState::schema_drift, "answer has no 'items' array"};
  for (const auto& v : *list) {
    auto hit = by_id.find(str(v, "id"));
    if (hit == by_id.end()) continue;
    model::Item& item = *hit->second;
    if (auto sn = v.find("snippet"); sn != v.end() && sn->is_object()) {
      if (auto t = core::collapse_whitespace(str(*sn, "title")); !t.empty()) item.title = t;
      if (auto d = str(*sn, "description"); !d.empty())
        item.snippet = core::truncate_utf8(core::collapse_whitespace(d), kSnippetBytes);
      if (auto when = core::parse_iso8601(str(*sn, "publishedAt"))) item.published_at = when;
    }
    if (auto st = v.find("statistics"); st != v.end() && st->is_object()) engage_statistics(item, *st);
  }
  return std::nullopt;
}

int api_searches(model::Depth d) { return d == model::Depth::quick ? 1 : d == model::Depth::deep ? 3 : 2; }

SourceResult api_search(const Query& q, Env& env, const std::string& key) {
  ResultBuilder out(std::clamp(q.limit, 1, 50));
  const std::size_t n = std::min<std::size_t>(q.sub_queries.size(), static_cast<std::size_t>(api_searches(q.depth)));
  std::vector<Call> calls;
  for (std::size_t i = 0; i < n; ++i)
    calls.push_back({fmt::format(
        "{}/search?part=snippet&type=video&order=relevance&maxResults={}&publishedAfter={}&publishedBefore={}&q={}&key={}", kApi,
        std::clamp(q.limit, 1, 50), core::format_iso8601(q.window.from), core::format_iso8601(q.window.to + 1),
        core::url_encode(q.sub_queries[i].text), core::url_encode(key))});
  // A rejected key or a spent quota drops the searches after it.
  const auto fetched =
      fetch_concurrently(env, std::move(calls), 6, [](const Fetched& f) { return f.failure && hopeless(explain(f)); });
  out.requests() += sent_count(fetched);
  for (std::size_t i = 0; i < fetched.size() && !fetched[i].dropped; ++i) {
    const Fetched& f = fetched[i];
    if (f.failure) {
      out.fail(explain(f));
      continue;
    }
    std::vector<model::Item> items;
    if (auto bad = parse_search(f.response.body, items)) {
      out.fail(*bad);
      continue;
    }
    out.succeed();
    int rank = 0;
    for (auto& item : items) {
      if (item.published_at && !q.window.contains(*item.published_at)) continue;
      out.add(std::move(item), static_cast<int>(i), rank++);
    }
  }
  SourceResult r = out.finish();
  if (r.items.empty()) return r;
  std::unordered_map<std::string, model::Item*> by_id;
  std::vector<std::string> ids;
  for (auto& item : r.items) {
    std::string vid = item.id.substr(8);  // after "youtube:"
    if (by_id.emplace(vid, &item).second) ids.push_back(std::move(vid));
  }
  // The details need the searches' video ids; their batches go together.
  std::vector<Call> details;
  for (std::size_t start = 0; start < ids.size(); start += 50) {
    std::string joined;
    for (std::size_t i = start; i < std::min(ids.size(), start + 50); ++i) joined += (joined.empty() ? "" : ",") + ids[i];
    details.push_back({fmt::format("{}/videos?part=statistics,snippet&id={}&key={}", kApi, joined, core::url_encode(key))});
  }
  const auto answers = fetch_concurrently(env, std::move(details));
  r.requests += sent_count(answers);
  std::string missing;
  for (const auto& f : answers) {
    std::optional<Failure> why = f.failure ? std::optional<Failure>(explain(f)) : merge_videos(f.response.body, by_id);
    if (why) missing = why->reason;
  }
  if (!missing.empty()) {
    const std::string note = "statistics unavailable: " + missing;
    if (r.state == SourceState::ok) r.state = SourceState::partial, r.reason = note;
    else r.reason += "; " + note;
  }
  return r;
}

// A yt-dlp --flat-playlist entry. Flat search results carry no upload date unless yt-dlp
// estimated one ("approximate_date"); then it is "timestamp".
std::optional<model::Item> parse_entry(const json& e) {
  if (!e.is_object()) return std::nullopt;
  const std::string vid = str(e, "id");
  const std::string title = core::collapse_whitespace(str(e, "title"));
  if (!valid_video_id(vid) || title.empty()) return std::nullopt;
  model::Item item;
  item.id = "youtube:" + vid;
  item.source = "youtube";
  item.url = std::string(kWatch) + vid;
  item.title = title;
  std::string channel = str(e, "channel");
  if (channel.empty()) channel = str(e, "uploader");
  if (!channel.empty()) item.author = item.container = core::collapse_whitespace(channel);
  item.published_at = unix_time(num(e, "timestamp"));
  if (!item.published_at) item.published_at = unix_time(num(e, "release_timestamp"));
  if (!item.published_at) {
    const std::string d = str(e, "upload_date");  // YYYYMMDD
    if (d.size() == 8) item.published_at = core::parse_date(d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2));
  }
  engage(item, "views", num(e, "view_count"));
  engage(item, "likes", num(e, "like_count"));
  engage(item, "comments", num(e, "comment_count"));
  item.snippet = core::truncate_utf8(core::collapse_whitespace(str(e, "description")), kSnippetBytes);
  return item;
}

// The environment yt-dlp needs (locale, proxies, its config and cache), and no credentials.
std::vector<std::string> child_env(const core::Config& c) {
  std::vector<std::string> env;
  for (const char* key :
       {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "http_proxy",
        "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR"})
    if (auto v = c.get(key)) env.push_back(std::string(key) + "=" + *v);
  return env;
}

// The first "ERROR: ..." line yt-dlp wrote, else its last line.
std::string error_line(std::string_view err) {
  std::string last;
  std::size_t pos = 0;
  while (pos < err.size()) {
    auto nl = err.find('\n', pos);
    if (nl == std::string_view::npos) nl = err.size();
    const std::string line = core::collapse_whitespace(err.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.rfind("ERROR:", 0) == 0) return core::truncate_utf8(line, 200);
    if (!line.empty()) last = line;
  }
  return core::truncate_utf8(last, 200);
}

SourceState state_of_error(std::string_view line) {
  if (core::contains_ci(line, "429") || core::contains_ci(line, "too many requests") ||
      core::contains_ci(line, "sign in to confirm"))
    return SourceState::rate_limited;
  for (std::string_view net :
       {"unable to download", "failed to resolve", "getaddrinfo", "timed out", "connection", "network is unreachable"})
    if (core::contains_ci(line, net)) return SourceState::unreachable;
  return SourceState::error;
}

SourceResult ytdlp_search(const Query& q, Env& env, const std::string& program) {
  SourceResult r;
  r.requests = 1;
  const int n = std::clamp(q.limit, 1, 100);
  proc::Options o;
  // The arguments are argv entries, never a shell line: the query cannot inject anything.
  o.argv = {program,
            "--dump-json",
            "--flat-playlist",
            "--extractor-args",
            "youtubetab:approximate_date",
            fmt::format("ytsearch{}:{}", n, core::collapse_whitespace(q.sub_queries.front().text))};
  o.env = child_env(env.config);
  o.deadline = env.deadline;
  o.stop = env.stop;
  int rank = 0, malformed = 0, outside = 0;
  const auto res = proc::run_lines(o, [&](std::string_view line) {
    if (core::trim(line).empty()) return true;
    auto doc = core::json::parse_or_discarded(line);
    auto item = doc.is_discarded() ? std::nullopt : parse_entry(doc);
    if (!item) {
      ++malformed;
      return true;
    }
    if (item->published_at && !q.window.contains(*item->published_at)) {
      ++outside;
      return true;
    }
    item->hits.push_back({0, rank++, "youtube"});
    r.items.push_back(std::move(*item));
    return static_cast<int>(r.items.size()) < n;
  });
  const bool some = !r.items.empty();
  auto set = [&](SourceState s, std::string why) {
    r.state = s;
    r.reason = std::move(why);
  };
  switch (res.end) {
    case proc::End::spawn_failed: set(SourceState::error, "cannot run yt-dlp: " + res.error); break;
    case proc::End::deadline:
      set(some ? SourceState::partial : SourceState::timeout,
          fmt::format("yt-dlp did not finish before the deadline and was stopped ({} results kept)", r.items.size()));
      break;
    case proc::End::cancelled:
      set(some ? SourceState::partial : SourceState::timeout,
          fmt::format("cancelled: run budget exhausted, yt-dlp stopped ({} results kept)", r.items.size()));
      break;
    case proc::End::too_large:
      set(some ? SourceState::partial : SourceState::error, "yt-dlp output over the size cap; stopped");
      break;
    case proc::End::enough: set(SourceState::ok, ""); break;
    case proc::End::exited:
      if (res.exit_code == 0 && res.signal == 0) {
        if (some) set(SourceState::ok, "");
        else if (malformed > 0 && outside == 0) set(SourceState::schema_drift, "yt-dlp printed something other than JSON lines");
        else
          set(SourceState::no_results,
              outside > 0 ? fmt::format("{} videos, none inside the window", outside) : "nothing matched");
      } else {
        const std::string why = error_line(res.stderr_text);
        const std::string what = res.signal != 0 ? fmt::format("yt-dlp killed by signal {}", res.signal)
                                                 : fmt::format("yt-dlp exited with status {}", res.exit_code);
        set(some ? SourceState::partial : state_of_error(why), why.empty() ? what : what + ": " + why);
      }
      break;
  }
  return r;
}

class YouTube final : public Source {
 public:
  std::string_view id() const override { return "youtube"; }
  std::vector<std::string_view> hosts() const override { return {"www.googleapis.com"}; }
  std::string_view name() const override { return "YouTube"; }
  std::vector<std::string_view> aliases() const override { return {"yt"}; }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {
        {"views", "views", 0.5, 50000, Shown::count, false}, {"likes", "likes", 1.0, 2000}, {"comments", "comments", 0.7, 200}};
    return kEngagement;
  }

  std::optional<std::string> unconfigured(const core::Config& c) const override {
    if (api_key(c) || ytdlp(c)) return std::nullopt;
    return std::string(kNoSource);
  }

  SourceResult search(const Query& q, Env& env) const override {
    if (auto key = api_key(env.config)) return api_search(q, env, *key);
    const auto program = ytdlp(env.config);
    if (!program) return {SourceState::skipped_unconfigured, std::string(kNoSource), {}, 0};
    if (env.http.replaying())
      return {SourceState::skipped_unconfigured, "--replay answers HTTP only: yt-dlp would reach the network", {}, 0};
    return ytdlp_search(q, env, *program);
  }

  // A key is checked with videos.list (1 quota unit) rather than a 100-unit search.
  SourceResult probe(Env& env, core::UnixSeconds now) const override {
    const auto key = api_key(env.config);
    if (!key) return Source::probe(env, now);
    ResultBuilder out(1);
    ++out.requests();
    const Fetched f = fetch(
        env, fmt::format("{}/videos?part=id&chart=mostPopular&maxResults=1&key={}", kApi, core::url_encode(*key)), Expect::json);
    std::unordered_map<std::string, model::Item*> none;
    if (f.failure) out.fail(explain(f));
    else if (auto bad = merge_videos(f.response.body, none)) out.fail(*bad);
    else out.succeed();
    SourceResult r = out.finish();
    if (r.state == SourceState::no_results) r.state = SourceState::ok, r.reason.clear();
    return r;
  }

  std::string advice(model::SourceState state, const core::Config& c, std::string_view env_file) const override {
    using S = model::SourceState;
    if (state == S::skipped_unconfigured) return fmt::format("set YOUTUBE_API_KEY in {}, or install yt-dlp", env_file);
    if (state == S::auth_failed)
      return "YOUTUBE_API_KEY was rejected: enable the YouTube Data API v3 for the key's Google Cloud project";
    if (state == S::rate_limited && api_key(c))
      return "YouTube's 10,000 daily units are spent (a search costs 100): wait for midnight Pacific time";
    if ((state == S::ok || state == S::no_results) && !api_key(c))
      return fmt::format("using yt-dlp (views only, dates estimated); set YOUTUBE_API_KEY in {} for likes and comments",
                         env_file);
    return {};
  }
  // The costs api_search pays: api_searches() search.list calls, then a videos.list per 50 ids.
  std::string request_cost(const core::Config& c) const override {
    if (api_key(c))
      return "one request is one YouTube Data API call: a search.list costs 100 of the key's 10,000 daily quota units, a "
             "videos.list 1; a run sends 1 search (--quick), 2 (default) or 3 (--deep), then one videos.list per 50 videos "
             "(a default research: about 3 requests, 201 units), so N requests never cost more than 100 x N units";
    if (ytdlp(c)) return "one request is one yt-dlp search (no API quota)";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"YOUTUBE_API_KEY"}; }
};

}  // namespace

std::unique_ptr<Source> make_youtube() { return std::make_unique<YouTube>(); }

}  // namespace sources
