// Research store benchmark: insert N findings (runs of 100, as --store writes them), then
// time library searches over them. Prints insert throughput and search p50/p90/p99.
//   l30_store_bench [--backend sqlite|postgres] [--findings N] [--queries N] [--url URL] [--file PATH]
// SQLite uses a fresh file under /tmp unless --file names one (kept: with --findings 0 the
// searches run on what it holds, to profile them alone); PostgreSQL a throw-away cluster
// (tests/support) unless --url names a database.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "pg_cluster.hpp"
#include "spawn.hpp"
#include "store/store.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Words with a Zipf-like draw: a few common ones match many findings (the expensive
// searches), most are rare.
struct Vocabulary {
  std::vector<std::string> words;
  std::discrete_distribution<std::size_t> pick;
  Vocabulary() {
    const char* base[] = {"rust",      "tokio",    "async",     "runtime", "scheduler", "memory",   "safety",        "compiler",
                          "llvm",      "zig",      "comptime",  "python",  "typing",    "postgres", "sqlite",        "index",
                          "query",     "planner",  "kernel",    "linux",   "wasm",      "browser",  "gpu",           "cuda",
                          "model",     "training", "inference", "latency", "release",   "security", "vulnerability", "patch",
                          "benchmark", "database", "cache",     "network", "protocol",  "http",     "quic",          "tls",
                          "json",      "parser",   "allocator", "garbage", "collector"};
    for (const char* w : base) words.emplace_back(w);
    std::mt19937 rng(7);
    const std::string letters = "abcdefghijklmnopqrstuvwxyz";
    while (words.size() < 5000) {
      std::string w;
      const int len = 4 + static_cast<int>(rng() % 6);
      for (int i = 0; i < len; ++i) w += letters[rng() % letters.size()];
      words.push_back(w);
    }
    std::vector<double> weights;
    for (std::size_t i = 0; i < words.size(); ++i) weights.push_back(1.0 / std::pow(static_cast<double>(i + 1), 1.0));
    pick = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
  }
  std::string phrase(std::mt19937& rng, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += (out.empty() ? "" : " ") + words[pick(rng)];
    return out;
  }
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto idx =
      static_cast<std::size_t>(std::min<double>(static_cast<double>(v.size() - 1), p * static_cast<double>(v.size())));
  return v[idx];
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "sqlite", url, file;
  int findings = 100000, queries = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--backend")) backend = argv[i + 1];
    else if (!std::strcmp(argv[i], "--findings")) findings = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--queries")) queries = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--url")) url = argv[i + 1];
    else if (!std::strcmp(argv[i], "--file")) file = argv[i + 1];
  }
  std::unique_ptr<testing_support::TempDir> tmp;
  std::unique_ptr<testing_support::PgCluster> cluster;
  store::Location where;
  if (backend == "sqlite") {
    if (file.empty()) tmp = std::make_unique<testing_support::TempDir>();
    where = {store::Location::Kind::sqlite, file.empty() ? tmp->path() + "/bench.db" : file, "bench.db"};
  } else {
    if (url.empty()) {
      cluster = std::make_unique<testing_support::PgCluster>();
      url = cluster->url(cluster->fresh_database());
    }
    where = {store::Location::Kind::postgres, url, "postgres"};
  }
  const auto far = core::Deadline::in(std::chrono::hours(2));
  auto db = store::Store::open(where, persist::testing::writer(), far);

  Vocabulary vocab;
  std::mt19937 rng(42);
  constexpr int kPerRun = 100;
  const auto t0 = Clock::now();
  for (int run = 0; run * kPerRun < findings; ++run) {
    store::RunInput in;
    in.topic = "topic " + std::to_string(run % 50);
    in.window = model::Window::ending(1796000000, 30);
    in.started_at = 1796000000 + run * 60;
    in.finished_at = in.started_at + 30;
    in.source_status["hackernews"] = {model::SourceState::ok, kPerRun, "", 100, 1};
    for (int k = 0; k < kPerRun; ++k) {
      const int n = run * kPerRun + k;
      in.findings.push_back({fmt::format("https://bench.example/{}/{}", n % 977, n), vocab.phrase(rng, 8), "hackernews",
                             vocab.phrase(rng, 24), static_cast<double>(rng() % 5000), std::nullopt});
    }
    db->record({in});
  }
  const double insert_s = std::chrono::duration<double>(Clock::now() - t0).count();

  // Two kinds of query: "typical" words (vocabulary ranks 46..5000: each in a few hundred
  // to a few thousand findings) and "common" ones (the 45 named tech words at the head of
  // the Zipf curve: each in 7% to 97% of all findings, the worst case for ranking).
  const auto measure = [&](const char* label, int n, std::size_t lo, std::size_t hi) {
    std::uniform_int_distribution<std::size_t> rank(lo, hi);
    std::vector<double> ms;
    std::size_t hits = 0;
    for (int q = 0; q < n; ++q) {
      std::string query = vocab.words[rank(rng)];
      if (q % 2) query += " " + vocab.words[rank(rng)];
      const auto s0 = Clock::now();
      hits += db->search(query, 10).results.size();
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s0).count());
    }
    fmt::print(
        "library search, {} {} queries (1-2 words), limit 10: p50 {:.2f} ms · p90 {:.2f} ms · p99 {:.2f} ms · "
        "max {:.2f} ms · {:.1f} results per query\n",
        n, label, percentile(ms, 0.50), percentile(ms, 0.90), percentile(ms, 0.99), percentile(ms, 1.0),
        static_cast<double>(hits) / n);
  };
  if (findings > 0)
    fmt::print("backend {} · {} findings in {:.1f} s: {:.0f} findings/s ({} per transaction)\n", backend, findings, insert_s,
               findings / insert_s, kPerRun);
  measure("typical", queries, 45, vocab.words.size() - 1);
  measure("common", std::max(1, queries / 5), 0, 44);
  return 0;
}
