#include "scenario.hpp"

#include <filesystem>

namespace testing_support {

std::map<std::string, std::string> Scenario::host_prefixes() {
  return {{"hn.algolia.com", "/hn"},         {"www.reddit.com", "/reddit"},
          {"oauth.reddit.com", "/reddit-oauth"}, {"arctic-shift.photon-reddit.com", "/arctic"},
          {"gamma-api.polymarket.com", "/pm"}, {"api.github.com", "/gh"},
          {"export.arxiv.org", "/arxiv"},    {"lobste.rs", "/lobsters"},
          {"api.stackexchange.com", "/se"}};
}

Scenario::Scenario(Override override) : override_(std::move(override)) {
  fake_ = std::make_unique<FakeUpstream>([this](const FakeRequest& r) { return answer(r); });
}

FakeReply Scenario::answer(const FakeRequest& r) const {
  if (override_)
    if (auto o = override_(r)) return *o;
  const auto& p = r.path;
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  if (starts("/hn/api/v1/search")) return FakeReply::json(fixture("e2e/hn_search.json"));
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
  return FakeReply::json("{\"error\":\"not found\"}", 404);
}

std::map<std::string, std::string> Scenario::env() const {
  const auto hosts = host_prefixes();
  std::vector<std::pair<std::string, std::string>> pairs(hosts.begin(), hosts.end());
  std::filesystem::create_directories(home_.path() + "/config");
  return {{"LAST30DAYS_HOST_MAP", fake_->host_map(pairs)},
          {"HOME", home_.path()},
          {"XDG_CONFIG_HOME", home_.path() + "/config"},
          {"XDG_DATA_HOME", home_.path() + "/data"},
          {"LAST30DAYS_MEMORY_DIR", ""},
          {"GITHUB_TOKEN", ""},
          {"REDDIT_CLIENT_ID", ""},
          {"REDDIT_CLIENT_SECRET", ""},
          {"STACKEXCHANGE_KEY", ""},
          {"LAST30DAYS_ENRICH_BUDGET_SECONDS", ""}};
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
  { FakeUpstream gone([](const FakeRequest&) { return FakeReply::json("{}"); }); port = gone.port(); }
  std::string map;
  for (const auto& [host, prefix] : Scenario::host_prefixes())
    map += (map.empty() ? "" : ",") + host + "=http://127.0.0.1:" + std::to_string(port) + prefix;
  std::filesystem::create_directories(home.path() + "/config");
  return {{"LAST30DAYS_HOST_MAP", map}, {"HOME", home.path()}, {"XDG_CONFIG_HOME", home.path() + "/config"},
          {"GITHUB_TOKEN", ""}, {"REDDIT_CLIENT_ID", ""}, {"REDDIT_CLIENT_SECRET", ""}};
}

}  // namespace testing_support
