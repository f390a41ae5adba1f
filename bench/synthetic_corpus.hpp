#pragma once
// Deterministic synthetic corpora for the pipeline benchmark and its fingerprint check.
// Shaped like real fetches: seven sources with their own engagement fields, Zipf-distributed
// title words, ~5% URL cross-posts, ~5% near-duplicate titles, repeat authors, 1-3 sub-query
// hits per item. Fixed seed and own distributions (std:: distributions differ between
// standard libraries), so a corpus is the same on every machine.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/text.hpp"
#include "core/time.hpp"
#include "model/report.hpp"
#include "pipeline/corpus.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/stages.hpp"

namespace l30bench {

using pipeline::Corpus;

constexpr std::uint64_t kSeed = 0x1A5730DA75ULL;
constexpr const char* kTopic = "rust async runtime";

// ---------------------------------------------------------------------------------
// Deterministic randomness.

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(uniform() * static_cast<double>(n)); }
  bool chance(double p) { return uniform() < p; }
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double lognormal(double median, double sigma) { return std::floor(median * std::exp(sigma * normal())); }

 private:
  std::mt19937_64 gen_;
};

// Rank r (0-based) drawn with weight 1 / (r + 1)^s.
class Zipf {
 public:
  Zipf(std::size_t n, double s) : cdf_(n) {
    double sum = 0;
    for (std::size_t r = 0; r < n; ++r) cdf_[r] = sum += 1.0 / std::pow(static_cast<double>(r + 1), s);
    for (auto& v : cdf_) v /= sum;
  }
  std::size_t operator()(Rng& rng) const {
    const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), rng.uniform());
    return std::min(static_cast<std::size_t>(it - cdf_.begin()), cdf_.size() - 1);
  }

 private:
  std::vector<double> cdf_;
};

// ---------------------------------------------------------------------------------
// Vocabulary: real domain words first (they are the frequent ranks), then pronounceable
// pseudo-words up to a few thousand. Stopwords, generic words and topic words are kept out
// so that the mix of those is controlled explicitly below.

inline std::vector<std::string> make_vocabulary(std::size_t size) {
  static const char* const kDomain[] = {"tokio",        "executor",
                                        "futures",      "await",
                                        "scheduler",    "threadpool",
                                        "epoll",        "io_uring",
                                        "waker",        "pinning",
                                        "streams",      "channel",
                                        "mutex",        "deadlock",
                                        "latency",      "throughput",
                                        "benchmark",    "tracing",
                                        "hyper",        "axum",
                                        "tower",        "smol",
                                        "glommio",      "monoio",
                                        "embassy",      "wasm",
                                        "kernel",       "syscalls",
                                        "cancellation", "structured",
                                        "concurrency",  "green",
                                        "threads",      "stackful",
                                        "coroutines",   "generators",
                                        "closures",     "lifetimes",
                                        "borrow",       "checker",
                                        "traits",       "dyn",
                                        "send",         "sync",
                                        "static",       "unsafe",
                                        "allocator",    "memory",
                                        "leak",         "panic",
                                        "backpressure", "timers",
                                        "sockets",      "tcp",
                                        "quic",         "http2",
                                        "grpc",         "database",
                                        "postgres",     "sqlx",
                                        "diesel",       "redis",
                                        "kafka",        "actor",
                                        "actix",        "bevy",
                                        "game",         "engine",
                                        "embedded",     "microcontroller",
                                        "firmware",     "linux",
                                        "windows",      "macos",
                                        "compiler",     "rustc",
                                        "llvm",         "cargo",
                                        "crate",        "crates",
                                        "edition",      "stabilized",
                                        "nightly",      "rfc",
                                        "proposal",     "design",
                                        "performance",  "migration",
                                        "production",   "lessons",
                                        "postmortem",   "outage",
                                        "debugging",    "profiling",
                                        "flamegraph",   "perf",
                                        "criterion",    "workstealing",
                                        "local",        "spawn",
                                        "blocking",     "select",
                                        "join",         "timeout",
                                        "retry",        "runtime-agnostic",
                                        "ecosystem",    "fragmentation",
                                        "interop",      "zig",
                                        "golang",       "goroutines",
                                        "erlang",       "beam",
                                        "elixir",       "java",
                                        "loom",         "virtual",
                                        "kotlin",       "swift",
                                        "python",       "asyncio",
                                        "trio",         "node",
                                        "libuv",        "deno",
                                        "bun",          "javascript",
                                        "typescript",   "prediction",
                                        "market",       "odds",
                                        "funding",      "startup",
                                        "acquisition",  "layoffs",
                                        "foundation",   "governance",
                                        "maintainer",   "burnout",
                                        "security",     "vulnerability",
                                        "cve",          "audit",
                                        "fuzzing",      "paper",
                                        "survey",       "formal",
                                        "verification", "model",
                                        "semantics",    "proof",
                                        "analysis",     "static-analysis"};
  std::vector<std::string> words;
  std::unordered_set<std::string> seen;
  const auto take = [&](std::string w) {
    if (core::is_stopword(w) || core::is_generic(w) || w == "rust" || w == "async" || w == "runtime") return;
    if (seen.insert(w).second) words.push_back(std::move(w));
  };
  for (const char* w : kDomain) take(w);
  static const char* const kOnset[] = {"b", "br", "c",  "ch", "d", "dr", "f",  "g",  "gr", "h",  "j", "k", "l", "m",
                                       "n", "p",  "pl", "qu", "r", "s",  "sh", "st", "t",  "tr", "v", "w", "z"};
  static const char* const kVowel[] = {"a", "e", "i", "o", "u", "ai", "ea", "io", "ou"};
  static const char* const kCoda[] = {"", "", "n", "r", "l", "x", "m", "nd", "rk", "st"};
  Rng rng(kSeed ^ 0xB0CAB);
  while (words.size() < size) {
    std::string w;
    const std::size_t syllables = 2 + rng.below(2);
    for (std::size_t s = 0; s < syllables; ++s) {
      w += kOnset[rng.below(std::size(kOnset))];
      w += kVowel[rng.below(std::size(kVowel))];
      if (s + 1 == syllables) w += kCoda[rng.below(std::size(kCoda))];
    }
    take(std::move(w));
  }
  return words;
}

// ---------------------------------------------------------------------------------
// The synthetic fetch.

struct SourceShape {
  const char* id;
  double share;
  double snippet_share;  // items that carry a body/abstract
  double undated_share;
  bool has_author;
};

constexpr std::array<SourceShape, 7> kSources{{
    {"hackernews", 0.20, 0.15, 0.00, true},
    {"reddit", 0.25, 0.60, 0.00, true},
    {"github", 0.15, 0.70, 0.02, true},
    {"stackexchange", 0.12, 0.90, 0.00, true},
    {"lobsters", 0.08, 0.10, 0.00, true},
    {"arxiv", 0.10, 1.00, 0.00, true},
    {"polymarket", 0.10, 0.50, 0.20, false},
}};

inline void add_engagement(model::Item& it, std::string_view src, Rng& rng) {
  auto& e = it.engagement;
  if (src == "hackernews") {
    const double pts = rng.chance(0.08) ? 0 : rng.lognormal(12, 1.6);
    e = {{"points", pts}, {"num_comments", std::floor(pts * 0.4 * rng.uniform())}};
  } else if (src == "reddit") {
    const double score = rng.chance(0.06) ? 0 : rng.lognormal(25, 1.8);
    e = {{"score", score}, {"num_comments", std::floor(score * 0.3 * rng.uniform())}};
  } else if (src == "github") {
    if (rng.chance(0.4)) e = {{"stars", rng.lognormal(80, 2.0)}, {"forks", rng.lognormal(8, 1.8)}};
    else e = {{"comments", rng.lognormal(4, 1.2)}, {"reactions", rng.lognormal(2, 1.5)}};
  } else if (src == "stackexchange") {
    e = {{"score", rng.lognormal(3, 1.2)},
         {"answer_count", std::floor(rng.uniform() * 5)},
         {"view_count", rng.lognormal(400, 1.5)}};
  } else if (src == "lobsters") {
    const double score = rng.lognormal(8, 1.0);
    e = {{"score", score}, {"comment_count", std::floor(score * 0.5 * rng.uniform())}};
  } else if (src == "polymarket") {
    const double vol = rng.lognormal(60000, 2.0);
    e = {{"volume", vol}, {"volume24hr", std::floor(vol * 0.05 * rng.uniform())}, {"liquidity", rng.lognormal(8000, 1.5)}};
  }  // arxiv reports no engagement
}

inline std::string capitalized(std::string w) {
  if (!w.empty() && w[0] >= 'a' && w[0] <= 'z') w[0] = static_cast<char>(w[0] - 'a' + 'A');
  return w;
}

inline std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

inline std::string slug(const std::string& title) {
  std::string s;
  for (char ch : title) s += (ch == ' ') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s.substr(0, 60);
}

struct Fetch {
  std::vector<model::Item> items;
  model::Plan plan;
  model::Window window;
};

class Generator {
 public:
  Generator() : vocab_(make_vocabulary(4000)), word_(vocab_.size(), 1.05) {
    // Three sub-queries, pinned (what the planner asked for this topic when the corpus was
    // designed) so that planner changes do not change the corpus.
    plan_.intent = "news";
    plan_.sub_queries = {{kTopic, 1.0}, {"runtime async", 0.5}, {std::string("\"") + kTopic + "\"", 0.6}};
    plan_.source_weights = {{"stackexchange", 1.3}, {"github", 1.1}, {"polymarket", 0.5}};
    // As-of 2026-03-15, 30-day window.
    window_ = model::Window::ending(core::days_from_civil(2026, 3, 15) * 86400, 30);
  }

  // Realistic mix. `similar` instead builds the dedupe stress corpus (see BM_DedupeSimilar).
  Fetch realistic(std::size_t n) {
    Rng rng(kSeed + n);
    const Zipf author(std::max<std::size_t>(50, n / 6), 1.1);
    std::map<std::pair<std::string, int>, int> next_rank;
    std::vector<std::size_t> linkable;  // items whose url is an article others can cross-post
    Fetch out{{}, plan_, window_};
    out.items.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const SourceShape& src = pick_source(rng);
      model::Item it;
      it.source = src.id;
      it.id = it.source + ":" + std::to_string(1000000 + i);
      const double kind = rng.uniform();
      if (kind < 0.05 && !out.items.empty()) {  // near-duplicate title of an earlier item
        it.title = perturb(out.items[rng.below(out.items.size())].title, rng);
      } else {
        it.title = title(rng);
      }
      it.url = own_url(it, i, rng);
      if (kind >= 0.05 && kind < 0.15 && !linkable.empty() && is_link_source(it.source)) {
        // Cross-post: the same article under another source, with the usual URL noise.
        const auto& orig = out.items[linkable[rng.below(linkable.size())]];
        it.discussion_url = it.url;
        it.url = url_variant(orig.url, rng);
        if (rng.chance(0.5)) it.title = orig.title;
      } else if (is_link_source(it.source) && rng.chance(0.7)) {
        it.discussion_url = it.url;
        it.url = fmt_article(i, it.title, rng);
        linkable.push_back(i);
      }
      if (rng.uniform() < src.snippet_share) it.snippet = snippet(rng);
      if (src.has_author) {
        it.author = it.source == "reddit" && rng.chance(0.03) ? "[deleted]" : "user" + std::to_string(author(rng));
      }
      it.container = container(it.source, rng);
      if (!rng.chance(src.undated_share)) it.published_at = published(rng);
      add_engagement(it, it.source, rng);
      add_hits(it, rng, next_rank);
      out.items.push_back(std::move(it));
    }
    return out;
  }

  // Dedupe stress: every title is the same 14 on-topic words with some swapped out.
  // kind 1 (near-identical): one word changed; J = 13/15 or 12/16, so almost all fold.
  // kind 2 (shared core): two words changed, for words no other title has; J <= 12/16 < 0.8,
  // so nothing folds, yet nearly every item meets earlier ones in the LSH buckets: the
  // worst case for the per-bucket probe cap.
  Fetch similar(std::size_t n, int kind) {
    Rng rng(kSeed ^ (n * 31 + static_cast<std::size_t>(kind)));
    std::map<std::pair<std::string, int>, int> next_rank;
    const std::vector<std::string> base = {"Rust",      "async",   "runtime", "tokio",       "executor",
                                           "scheduler", "waker",   "latency", "threadpool",  "benchmark",
                                           "epoll",     "reactor", "timers",  "cancellation"};
    const std::size_t changes = kind == 1 ? 1 : 2;
    Fetch out{{}, plan_, window_};
    out.items.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const SourceShape& src = pick_source(rng);
      model::Item it;
      it.source = src.id;
      it.id = it.source + ":" + std::to_string(1000000 + i);
      auto words = base;
      std::vector<std::size_t> pos(base.size() - 3);  // the topic words stay
      for (std::size_t k = 0; k < pos.size(); ++k) pos[k] = 3 + k;
      for (std::size_t k = 0; k < changes; ++k) {  // distinct positions (partial Fisher-Yates)
        std::swap(pos[k], pos[k + rng.below(pos.size() - k)]);
        words[pos[k]] = kind == 1 ? vocab_[200 + rng.below(3000)] : unique_word(i * changes + k);
      }
      it.title = join_words(words);
      it.url = own_url(it, i, rng);
      it.author = "user" + std::to_string(rng.below(n / 4 + 1));
      it.published_at = published(rng);
      add_engagement(it, it.source, rng);
      add_hits(it, rng, next_rank);
      out.items.push_back(std::move(it));
    }
    return out;
  }

 private:
  const SourceShape& pick_source(Rng& rng) const {
    double u = rng.uniform();
    for (const auto& s : kSources)
      if ((u -= s.share) < 0) return s;
    return kSources.back();
  }

  // "zqax", "zqbx", ...: letters only (one token), never ending in 's' (plural folding).
  static std::string unique_word(std::size_t k) {
    std::string w = "zq";
    do {
      w += static_cast<char>('a' + k % 26);
      k /= 26;
    } while (k > 0);
    return w + "x";
  }

  static bool is_link_source(std::string_view s) { return s == "hackernews" || s == "reddit" || s == "lobsters"; }

  std::string word(Rng& rng) const { return vocab_[word_(rng)]; }

  std::string title(Rng& rng) const {
    std::vector<std::string> words;
    const std::size_t extra = 3 + rng.below(7);
    for (std::size_t k = 0; k < extra; ++k) words.push_back(word(rng));
    if (rng.chance(0.2))
      words.insert(words.begin() + static_cast<long>(rng.below(words.size() + 1)), rng.chance(0.5) ? "new" : "2026");
    const double u = rng.uniform();
    const auto at = [&] { return words.begin() + static_cast<long>(rng.below(words.size() + 1)); };
    if (u < 0.45) {  // the phrase itself
      words.insert(at(), rng.chance(0.5) ? "Rust async runtime" : "rust async runtimes");
    } else if (u < 0.70) {  // all three words, scattered
      for (const char* t : {"runtime", "async", "Rust"}) words.insert(at(), t);
    } else if (u < 0.85) {  // partial match
      words.insert(at(), rng.chance(0.6) ? "Rust" : "async");
    }  // else off-topic: pruned later, as in real fetches
    if (rng.chance(0.03)) words.insert(at(), "—");
    words[0] = capitalized(words[0]);
    return join_words(words);
  }

  std::string perturb(const std::string& t, Rng& rng) const {
    std::vector<std::string> words = core::tokenize(t);
    if (words.size() < 2) return t + " " + word(rng);
    if (rng.chance(0.5)) std::swap(words[rng.below(words.size())], words[rng.below(words.size())]);
    else words[rng.below(words.size())] = word(rng);
    words[0] = capitalized(words[0]);
    return join_words(words);
  }

  std::string snippet(Rng& rng) const {
    std::vector<std::string> words;
    const std::size_t len = 15 + rng.below(30);
    for (std::size_t k = 0; k < len; ++k) words.push_back(word(rng));
    if (rng.chance(0.5)) words.insert(words.begin() + static_cast<long>(rng.below(words.size())), "async runtime");
    return join_words(words);
  }

  static std::string own_url(const model::Item& it, std::size_t i, Rng& rng) {
    const std::string n = std::to_string(30000000 + i);
    if (it.source == "hackernews") return "https://news.ycombinator.com/item?id=" + n;
    if (it.source == "reddit") return "https://www.reddit.com/r/rust/comments/" + n + "/" + slug(it.title) + "/";
    if (it.source == "github") return "https://github.com/org" + std::to_string(rng.below(500)) + "/repo/issues/" + n;
    if (it.source == "stackexchange") return "https://stackoverflow.com/questions/" + n + "/" + slug(it.title);
    if (it.source == "lobsters") return "https://lobste.rs/s/" + n;
    if (it.source == "arxiv") return "https://arxiv.org/abs/2603." + n;
    return "https://polymarket.com/event/" + slug(it.title) + "-" + n;
  }

  static std::string fmt_article(std::size_t i, const std::string& title, Rng& rng) {
    return "https://blog" + std::to_string(rng.below(2000)) + ".example.com/posts/" + slug(title) + "-" + std::to_string(i);
  }

  static std::string url_variant(const std::string& url, Rng& rng) {
    switch (rng.below(4)) {
      case 0: return url + "?utm_source=hackernews&utm_medium=social";
      case 1: return url + "/";
      case 2: return "http://www." + url.substr(url.find("://") + 3);
      default: return url;
    }
  }

  static std::optional<std::string> container(std::string_view src, Rng& rng) {
    if (src == "reddit") return rng.chance(0.7) ? "rust" : "programming";
    if (src == "github") return "org" + std::to_string(rng.below(500)) + "/repo";
    if (src == "stackexchange") return "stackoverflow";
    if (src == "arxiv") return "cs.PL";
    return std::nullopt;
  }

  core::UnixSeconds published(Rng& rng) const {
    // Skewed toward recent days; 1% fall just outside the window (window_filter drops them).
    if (rng.chance(0.01)) return window_.from - 86400 - static_cast<core::UnixSeconds>(rng.below(86400 * 5));
    const double age = std::pow(rng.uniform(), 1.4) * static_cast<double>(window_.to - window_.from);
    return window_.to - static_cast<core::UnixSeconds>(age);
  }

  void add_hits(model::Item& it, Rng& rng, std::map<std::pair<std::string, int>, int>& next_rank) const {
    const std::size_t q = plan_.sub_queries.size();
    const std::size_t k = 1 + (rng.chance(0.25) ? 1 : 0) + (rng.chance(0.08) ? 1 : 0);
    const std::size_t first = rng.below(q);
    for (std::size_t h = 0; h < k && h < q; ++h) {
      const int sq = static_cast<int>((first + h) % q);
      it.hits.push_back({sq, next_rank[{it.source, sq}]++, it.source});
    }
  }

  std::vector<std::string> vocab_;
  Zipf word_;
  model::Plan plan_;
  model::Window window_;
};

// ---------------------------------------------------------------------------------
// The stages under test: slices of pipeline::rank, which holds their order.

inline pipeline::RankSpec rank_spec(const Fetch& f, pipeline::Stage first, pipeline::Stage last) {
  return {f.window, f.plan.sub_queries, f.plan.source_weights, first, last};
}

inline void score(Corpus& c, const Fetch& f) {
  pipeline::rank(c, rank_spec(f, pipeline::Stage::relevance, pipeline::Stage::stream_ranks));
}

inline std::vector<model::Cluster> core_pipeline(Corpus& c, const Fetch& f) {
  return pipeline::rank(c, rank_spec(f, pipeline::Stage::relevance, pipeline::Stage::cluster)).clusters;
}

}  // namespace l30bench
