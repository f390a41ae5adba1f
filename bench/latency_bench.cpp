// Wall time against the critical path. The real binary researches against the fake upstream
// (tests/support Scenario: every source's real paths and formats, offline), which answers
// every request after a fixed latency. Per depth it prints the wall time, the critical path
// and the difference: what the run spent beyond what the network and the politeness rules
// force.
//
//   l30_latency_bench [--latency-ms 300] [--binary path/to/last30days] [--repeat 3]
//
// The critical path is computed from the requests the run made (the fake's log) and what
// must be sequential among them:
//   search stage, per source: one round trip for its independent searches (at most 6 at
//   once, all of GitHub's), Reddit's searches one second apart (the client's pacing: one
//   search carries every sub-query, more only for a crowded-out sub-query) then the score
//   lookup, arXiv three seconds apart, Lobsters' newest pages one after another
//   (each decides whether to read the next), Wikipedia's summary then its daily views,
//   YouTube's search then its video details, Brave one second apart;
//   then the comment stage (it needs the ranked stories), per source: its threads 4 at once.
// Critical path = the slowest source's search chain + the slowest source's comment chain.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono;

namespace {

struct Counts {
  std::map<std::string, int> n;  // request kind -> count
  int operator[](const std::string& k) const {
    auto it = n.find(k);
    return it == n.end() ? 0 : it->second;
  }
};

std::string kind_of(const std::string& p) {
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  if (starts("/hn/api/v1/items/")) return "hn.comments";
  if (starts("/hn/")) return "hn";
  if (starts("/reddit/") || starts("/reddit-oauth/")) return "reddit";
  if (starts("/arctic/api/comments")) return "reddit.comments";
  if (starts("/arctic/")) return "reddit.scores";
  if (starts("/pm/")) return "polymarket";
  if (starts("/gh/")) return "github";
  if (starts("/arxiv/")) return "arxiv";
  if (starts("/lobsters/s/")) return "lobsters.comments";
  if (starts("/lobsters/newest/page/")) return "lobsters.pages";
  if (starts("/lobsters/")) return "lobsters";
  if (starts("/se/2.3/questions/")) return "stackexchange.comments";
  if (starts("/se/")) return "stackexchange";
  if (starts("/wp/")) return "wikipedia";
  if (starts("/wm/")) return "wikipedia.views";
  if (starts("/x/")) return "x";
  if (starts("/yt/youtube/v3/videos")) return "youtube.videos";
  if (starts("/yt/")) return "youtube";
  if (starts("/brave/")) return "brave";
  if (starts("/searx/")) return "searxng";
  return "other";
}

long waves(int n, int at_once) { return n <= 0 ? 0 : (n + at_once - 1) / at_once; }

struct Path {
  long ms = 0;
  std::string why;
};

Path critical_path(const Counts& c, long L) {
  std::vector<std::pair<std::string, long>> search = {
      {"hackernews", waves(c["hn"], 6) * L},
      {"reddit", (c["reddit"] > 0 ? (c["reddit"] - 1) * std::max(1000L, L) + L : 0) + (c["reddit.scores"] > 0 ? L : 0)},
      {"polymarket", waves(c["polymarket"], 6) * L},
      {"github", waves(c["github"], 15) * L},
      {"arxiv", c["arxiv"] > 0 ? (c["arxiv"] - 1) * std::max(3000L, L) + L : 0},
      {"lobsters", (c["lobsters"] > 0 ? L : 0) + c["lobsters.pages"] * L},
      {"stackexchange", waves(c["stackexchange"], 6) * L},
      {"wikipedia", (c["wikipedia"] > 0 ? L : 0) + (c["wikipedia.views"] > 0 ? L : 0)},
      {"x", waves(c["x"], 3) * L},
      {"youtube", waves(c["youtube"], 6) * L + (c["youtube.videos"] > 0 ? L : 0)},
      {"web", c["brave"] > 0 ? (c["brave"] - 1) * std::max(1000L, L) + L : waves(c["searxng"], 6) * L},
  };
  std::vector<std::pair<std::string, long>> comments = {
      {"hackernews", waves(c["hn.comments"], 4) * L},
      {"reddit", waves(c["reddit.comments"], 4) * L},
      {"lobsters", waves(c["lobsters.comments"], 4) * L},
      {"stackexchange", waves(c["stackexchange.comments"], 4) * L},
  };
  auto slowest = [](const auto& v) {
    return *std::max_element(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  };
  const auto s = slowest(search);
  const auto k = slowest(comments);
  Path p;
  p.ms = s.second + k.second;
  p.why = fmt::format("{} {} ms", s.first, s.second);
  if (k.second > 0) p.why += fmt::format(" + {} comments {} ms", k.first, k.second);
  return p;
}

struct Config {
  std::string name;
  std::vector<std::string> extra;
};

}  // namespace

int main(int argc, char** argv) {
  long latency = 300;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--latency-ms" && i + 1 < argc) latency = std::atol(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--binary" && i + 1 < argc) setenv("L30_BINARY_UNDER_TEST", argv[++i], 1);
    else {
      std::cerr << "usage: l30_latency_bench [--latency-ms N] [--repeat N] [--binary PATH]\n";
      return 2;
    }
  }
  // The depth's full plan: 2, 3 and 5 sub-queries (pipeline::max_sub_queries).
  const std::vector<std::string> subs = {"tokio", "tokio runtime", "async rust", "tokio io_uring", "rust futures"};
  auto plan = [&](int n) {
    std::string j = R"({"sub_queries":[)";
    for (int i = 0; i < n; ++i) j += fmt::format(R"({}"{}")", i ? "," : "", subs[static_cast<std::size_t>(i)]);
    return j + "]}";
  };
  struct Depth {
    std::string name;
    std::vector<std::string> flag;
    int subqueries;
  };
  const std::vector<Depth> depths = {{"quick", {"--quick"}, 2}, {"default", {}, 3}, {"deep", {"--deep"}, 5}};
  const std::vector<Config> configs = {
      {"all keyless sources", {}},
      {"hn,github,stackexchange,lobsters,polymarket (unpaced)", {"--search", "hn,github,stackexchange,lobsters,polymarket"}},
  };
  const char* binary = std::getenv("L30_BINARY_UNDER_TEST");
  fmt::print("binary: {}\nlatency: {} ms per request (fake upstream, 127.0.0.1); wall = median of {}\n\n",
             binary ? binary : L30_BINARY, latency, repeat);
  fmt::print(
      "| sources | depth | requests | wall ms | critical path ms | wall - critical ms | slowest chain | requests by kind |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (const auto& cfg : configs) {
    for (const auto& d : depths) {
      std::vector<long> walls;
      Path path;
      std::size_t requests = 0;
      std::string by_kind;
      for (int r = 0; r < repeat; ++r) {
        Scenario s;
        s.set_shaper([latency](const FakeRequest&, FakeReply& reply) { reply.delay = milliseconds(latency); });
        std::vector<std::string> args = {"tokio", "--as-of", "2026-11-29", "--emit", "json", "--plan", plan(d.subqueries)};
        args.insert(args.end(), d.flag.begin(), d.flag.end());
        args.insert(args.end(), cfg.extra.begin(), cfg.extra.end());
        const auto res = s.run(args, milliseconds(120000));
        if (res.exit_code != 0) {
          std::cerr << "run failed (" << res.exit_code << "): " << res.err << "\n";
          return 1;
        }
        Counts c;
        const auto log = s.fake().log();
        for (const auto& e : log) ++c.n[kind_of(e.request.path)];
        path = critical_path(c, latency);
        requests = log.size();
        by_kind.clear();
        for (const auto& [kind, n] : c.n) by_kind += fmt::format("{}{} {}", by_kind.empty() ? "" : " · ", kind, n);
        walls.push_back(static_cast<long>(res.elapsed.count()));
      }
      std::sort(walls.begin(), walls.end());
      const long wall = walls[walls.size() / 2];
      fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cfg.name, d.name, requests, wall, path.ms, wall - path.ms,
                 path.why, by_kind);
    }
  }
  return 0;
}
