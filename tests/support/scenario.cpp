#include "scenario.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"

namespace testing_support {

std::map<std::string, std::string> Scenario::host_prefixes() {
  return {{"hn.algolia.com", "/hn"},
          {"www.reddit.com", "/reddit"},
          {"oauth.reddit.com", "/reddit-oauth"},
          {"arctic-shift.photon-reddit.com", "/arctic"},
          {"gamma-api.polymarket.com", "/pm"},
          {"api.github.com", "/gh"},
          {"export.arxiv.org", "/arxiv"},
          {"lobste.rs", "/lobsters"},
          {"api.stackexchange.com", "/se"},
          {"bsky.social", "/bsky"},
          {"morel.us-east.host.bsky.network", "/pds"},
          {"api.bsky.app", "/appview"},
          {"api.x.com", "/x"},
          {"www.googleapis.com", "/yt"},
          {"api.search.brave.com", "/brave"},
          {"searx.test", "/searx"},
          {"wikimedia.org", "/wm"},
          {"en.wikipedia.org", "/wp"}};
}

Scenario::Scenario(Override override, World world) : override_(std::move(override)), world_(world) {
  fake_ = std::make_unique<FakeUpstream>([this](const FakeRequest& r) { return answer(r); });
}

FakeReply Scenario::answer(const FakeRequest& r) const {
  if (override_)
    if (auto o = override_(r)) return *o;
  FakeReply reply = world_ == World::research ? research_answer(r) : discovery_answer(r);
  std::lock_guard lock(mu_);
  if (shaper_) shaper_(r, reply);
  return reply;
}

std::string fill_time_templates(std::string text) {
  const auto now = core::now_unix();
  for (const std::string kind : {"unix", "iso"}) {
    for (auto pos = text.find("{{" + kind + ":"); pos != std::string::npos; pos = text.find("{{" + kind + ":", pos)) {
      const auto end = text.find("}}", pos);
      const std::string spec = text.substr(pos + kind.size() + 3, end - pos - kind.size() - 3);  // "-2d"
      const long amount = std::stol(spec.substr(0, spec.size() - 1));
      const long unit = spec.back() == 'd' ? 86400 : spec.back() == 'h' ? 3600 : 60;
      const core::UnixSeconds t = now + amount * unit;
      std::size_t from = pos, to = end + 2;
      std::string value = kind == "unix" ? std::to_string(t) : core::format_iso8601(t);
      if (kind == "unix" && from > 0 && text[from - 1] == '"' && to < text.size() && text[to] == '"') --from, ++to;
      text.replace(from, to - from, value);
      pos = from + value.size();
    }
  }
  return text;
}

FakeReply Scenario::discovery_answer(const FakeRequest& r) const {
  const auto& p = r.path;
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  auto json_file = [](const char* name) {
    return FakeReply::json(fill_time_templates(fixture(std::string("discover/") + name)));
  };
  if (starts("/hn/api/v1/search")) {
    if (r.param("tags").find("front_page") != std::string::npos) return json_file("hn_front_page.json");
    if (r.param("numericFilters").find("points") != std::string::npos) return json_file("hn_best.json");
    // A topic search: the front-page stories that share a word with the query.
    auto page = nlohmann::json::parse(fill_time_templates(fixture("discover/hn_front_page.json")));
    const auto words = core::tokenize(r.param("query"));
    nlohmann::json hits = nlohmann::json::array();
    for (const auto& h : page["hits"]) {
      const auto title = core::tokenize(h["title"].get<std::string>());
      for (const auto& w : words)
        if (!core::is_stopword(w) && std::find(title.begin(), title.end(), w) != title.end()) {
          hits.push_back(h);
          break;
        }
    }
    page["hits"] = hits;
    page["query"] = r.param("query");
    return FakeReply::json(page.dump());
  }
  if (p == "/reddit/r/all/top.rss") return FakeReply::xml(fill_time_templates(fixture("discover/reddit_all_top.rss.xml")));
  if (p == "/reddit/r/all/rising.rss") return FakeReply::xml(fill_time_templates(fixture("discover/reddit_all_rising.rss.xml")));
  // A multireddit ("r/news+worldnews"): the r/all entries filed under one of its subreddits.
  if (starts("/reddit/r/") && (p.ends_with("/top.rss") || p.ends_with("/rising.rss"))) {
    const std::string subs = core::casefold(p.substr(10, p.rfind('/') - 10));
    std::string feed = fill_time_templates(
        fixture(p.ends_with("/top.rss") ? "discover/reddit_all_top.rss.xml" : "discover/reddit_all_rising.rss.xml"));
    for (auto at = feed.find("<entry>"); at != std::string::npos; at = feed.find("<entry>", at)) {
      const auto end = feed.find("</entry>", at) + 8;
      const auto term = feed.find("<category term=\"", at) + 16;
      const std::string sub = core::casefold(feed.substr(term, feed.find('"', term) - term));
      if (("+" + subs + "+").find("+" + sub + "+") != std::string::npos) at = end;
      else feed.erase(at, end - at);
    }
    return FakeReply::xml(feed);
  }
  if (starts("/reddit/search.rss"))
    return FakeReply::xml(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>search</title></feed>");
  if (starts("/arctic/api/posts/ids")) return json_file("arctic_ids.json");
  if (starts("/lobsters/hottest.json") || starts("/lobsters/newest")) return json_file("lobsters_hottest.json");
  if (starts("/gh/search/repositories")) return json_file("github_rising.json");
  if (starts("/gh/search/issues")) return FakeReply::json(R"({"total_count":0,"incomplete_results":false,"items":[]})");
  if (starts("/pm/events")) return json_file("polymarket_events.json");
  if (starts("/pm/public-search")) return FakeReply::json(R"({"events":[],"pagination":{"hasMore":false,"totalResults":0}})");
  if (starts("/arxiv/api/query"))
    return FakeReply::xml(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>arXiv "
        "Query</title></feed>");
  if (starts("/se/2.3/search/advanced")) {
    FakeReply reply = FakeReply::json(R"({"items":[],"has_more":false,"quota_max":300,"quota_remaining":299})");
    reply.gzip = true;
    return reply;
  }
  if (auto common = common_answer(r)) return *common;
  return FakeReply::json(kNoAnswer, 404);
}

// Daily views for any article and range asked: GPT-6 surges over its last three days,
// everything else is flat (a perennial article).
FakeReply Scenario::wikipedia_daily(const FakeRequest& r) {
  // .../per-article/en.wikipedia/all-access/user/{article}/daily/{YYYYMMDD}/{YYYYMMDD}
  const auto& p = r.path;
  const auto daily = p.rfind("/daily/");
  const auto user = p.find("/user/");
  if (daily == std::string::npos || user == std::string::npos) return FakeReply::json("{}", 404);
  const std::string article = core::url_decode(p.substr(user + 6, daily - user - 6));
  auto day = core::parse_date(p.substr(daily + 7, 4) + "-" + p.substr(daily + 11, 2) + "-" + p.substr(daily + 13, 2));
  auto last = core::parse_date(p.substr(daily + 16, 4) + "-" + p.substr(daily + 20, 2) + "-" + p.substr(daily + 22, 2));
  if (!day || !last) return FakeReply::json("{}", 400);
  nlohmann::json items = nlohmann::json::array();
  for (core::UnixSeconds d = *day; d <= *last; d += 86400) {
    const bool surge = article == "GPT-6" && *last - d < 3 * 86400;
    const std::string stamp = core::format_date(d);
    items.push_back({{"project", "en.wikipedia"},
                     {"article", article},
                     {"granularity", "daily"},
                     {"timestamp", stamp.substr(0, 4) + stamp.substr(5, 2) + stamp.substr(8, 2) + "00"},
                     {"access", "all-access"},
                     {"agent", "user"},
                     {"views", surge ? 600000 : 40000}});
  }
  return FakeReply::json(nlohmann::json{{"items", items}}.dump());
}

// Hosts both worlds answer alike: the credentialed sources, which check the credential the
// way the real APIs do, and Wikipedia's summary (no article unless a test says otherwise).
std::optional<FakeReply> Scenario::common_answer(const FakeRequest& r) {
  const auto& p = r.path;
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  auto header = [&](const std::string& name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  if (p == "/bsky/xrpc/com.atproto.server.createSession") {
    auto body = nlohmann::json::parse(r.body, nullptr, false);
    if (body.is_discarded() || body.value("identifier", "") != kGoodBskyHandle || body.value("password", "") != kGoodBskyPassword)
      return FakeReply::json(fixture("bluesky/error_authentication_required.json"), 401);
    return FakeReply::json(fixture("e2e/bluesky_session.json"));
  }
  // The account's PDS, or bsky.social itself (which proxies for it), with the session's token.
  if (starts("/pds/xrpc/app.bsky.") || starts("/bsky/xrpc/app.bsky.")) {
    if (header("authorization") !=
        "Bearer " + nlohmann::json::parse(fixture("e2e/bluesky_session.json"))["accessJwt"].get<std::string>())
      return FakeReply::json(fixture("bluesky/error_expired_token.json"), 400);
    if (p.ends_with("/app.bsky.feed.getFeed") || core::contains_ci(r.param("q"), "jepsen"))
      return FakeReply::json(fill_time_templates(fixture("e2e/crosspost_bluesky.json")));
    return FakeReply::json(fixture("e2e/bluesky_search.json"));
  }
  if (starts("/x/2/tweets/search/recent")) {
    if (header("authorization") != std::string("Bearer ") + kGoodXToken)
      return FakeReply::json(fixture("x/error_401_unauthorized.json"), 401);
    return FakeReply::json(fill_time_templates(fixture("e2e/crosspost_x.json")));
  }
  if (starts("/yt/youtube/v3/")) {
    if (r.param("key") != kGoodYouTubeKey) return FakeReply::json(fixture("youtube/error_400_api_key_invalid.json"), 400);
    return FakeReply::json(fixture(starts("/yt/youtube/v3/search") ? "e2e/youtube_search.json" : "e2e/youtube_videos.json"));
  }
  if (starts("/brave/res/v1/web/search")) {
    if (header("x-subscription-token") != kGoodBraveKey)
      return FakeReply::json(fixture("web/brave_error_422_subscription_token_invalid.json"), 422);
    return FakeReply::json(fixture("e2e/brave_search.json"));
  }
  if (starts("/searx/search")) {
    if (r.param("format") != "json") return FakeReply::html("<html><body>403 Forbidden</body></html>", 403);
    return FakeReply::json(fixture("e2e/searxng_search.json"));
  }
  if (starts("/wp/api/rest_v1/page/summary/")) return FakeReply::json(fixture("wikipedia/summary_404.json"), 404);
  if (starts("/wm/api/rest_v1/metrics/pageviews/top/"))
    return FakeReply::json(fill_time_templates(fixture("discover/wikipedia_top.json")));
  if (starts("/wm/api/rest_v1/metrics/pageviews/per-article/")) return wikipedia_daily(r);
  return std::nullopt;
}

FakeReply Scenario::research_answer(const FakeRequest& r) const {
  const auto& p = r.path;
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  if (starts("/hn/api/v1/search"))
    return FakeReply::json(core::contains_ci(r.param("query"), "jepsen") ? fill_time_templates(fixture("e2e/crosspost_hn.json"))
                                                                         : fixture("e2e/hn_search.json"));
  if (starts("/reddit/search.rss")) return FakeReply::xml(fixture("e2e/reddit_search.rss.xml"));
  if (starts("/arctic/api/posts/ids")) return FakeReply::json(fixture("e2e/arctic_ids.json"));
  if (starts("/pm/public-search")) return FakeReply::json(fixture("e2e/polymarket_search.json"));
  if (starts("/gh/search/repositories")) return FakeReply::json(fixture("e2e/github_repos.json"));
  if (starts("/gh/search/issues")) return FakeReply::json(fixture("e2e/github_issues.json"));
  if (starts("/arxiv/api/query")) return FakeReply::xml(fixture("e2e/arxiv.xml"));
  if (p == "/lobsters/hottest.json") return FakeReply::json(fixture("e2e/lobsters_hottest.json"));
  if (starts("/lobsters/newest")) return FakeReply::json(fixture("e2e/lobsters_newest.json"));
  if (starts("/se/2.3/search/advanced")) {
    FakeReply reply = FakeReply::json(fixture("e2e/se_search.json"));
    reply.gzip = true;  // the real API always compresses
    return reply;
  }
  // The discussions of the top stories (comments).
  if (p == "/hn/api/v1/items/46020998" || p == "/hn/api/v1/items/46077777")
    return FakeReply::json(fixture("e2e/hn_item_" + p.substr(p.rfind('/') + 1) + ".json"));
  if (p == "/lobsters/s/ab12cd.json") return FakeReply::json(fixture("e2e/lobsters_s_ab12cd.json"));
  if (starts("/arctic/api/comments/search"))
    return FakeReply::json(r.param("link_id") == "1q2tok1" ? fixture("e2e/arctic_comments_1q2tok1.json") : R"({"data":[]})");
  if (starts("/se/2.3/questions/")) {
    FakeReply reply = FakeReply::json(fixture("e2e/se_answers.json"));
    reply.gzip = true;
    return reply;
  }
  if (auto common = common_answer(r)) return *common;
  return FakeReply::json(kNoAnswer, 404);
}

std::map<std::string, std::string> isolated_env(const TempDir& home, const std::string& host_map) {
  std::filesystem::create_directories(home.path() + "/config");
  auto env = without_credentials(home);
  env["LAST30DAYS_HOST_MAP"] = host_map;
  env["XDG_DATA_HOME"] = home.path() + "/data";
  env["LAST30DAYS_MEMORY_DIR"] = "";
  env["LAST30DAYS_ENRICH_BUDGET_SECONDS"] = "";
  return env;
}

std::map<std::string, std::string> without_credentials(const TempDir& home) {
  std::filesystem::create_directories(home.path() + "/bin");
  std::map<std::string, std::string> env{{"HOME", home.path()},
                                         {"XDG_CONFIG_HOME", home.path() + "/config"},
                                         {"PATH", home.path() + "/bin"}};  // tests put a fake yt-dlp here
  for (const char* key : {"GITHUB_TOKEN", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET", "STACKEXCHANGE_KEY", "BSKY_HANDLE",
                          "BSKY_APP_PASSWORD", "X_BEARER_TOKEN", "YOUTUBE_API_KEY", "BRAVE_API_KEY", "SEARXNG_URL"})
    env[key] = "";
  return env;
}

std::map<std::string, std::string> Scenario::env() const {
  const auto hosts = host_prefixes();
  return isolated_env(home_, fake_->host_map({hosts.begin(), hosts.end()}));
}

int Scenario::requests_starting(const std::string& path_prefix) const {
  int n = 0;
  for (const auto& e : fake_->log()) n += e.request.path.rfind(path_prefix, 0) == 0 ? 1 : 0;
  return n;
}

ProcessResult Scenario::run(std::vector<std::string> args, std::chrono::milliseconds watchdog) {
  return run_last30days(args, env(), watchdog);
}

int Scenario::requests_under(const std::string& prefix) const {
  int n = 0;
  for (const auto& e : fake_->log()) n += e.request.path.rfind(prefix + "/", 0) == 0 ? 1 : 0;
  return n;
}

std::map<std::string, std::string> offline_env(const TempDir& home) {
  int port = 0;
  {
    FakeUpstream gone([](const FakeRequest&) { return FakeReply::json("{}"); });
    port = gone.port();
  }
  std::string map;
  for (const auto& [host, prefix] : Scenario::host_prefixes())
    map += (map.empty() ? "" : ",") + host + "=http://127.0.0.1:" + std::to_string(port) + prefix;
  std::filesystem::create_directories(home.path() + "/config");
  auto env = without_credentials(home);
  env["LAST30DAYS_HOST_MAP"] = map;
  return env;
}

}  // namespace testing_support
