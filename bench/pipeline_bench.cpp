// Pipeline benchmark (issue: "100k items through dedupe + scoring + fusion + clustering
// in under 1 s on one core"), on the synthetic corpora of synthetic_corpus.hpp.
//
// Every benchmark copies its input corpus while the timer is paused, so only the stage
// itself is measured.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <utility>

#include "synthetic_corpus.hpp"

namespace {

using l30bench::core_pipeline;
using l30bench::Corpus;
using l30bench::Fetch;
using l30bench::Generator;
using l30bench::kTopic;
using l30bench::score;

// ---------------------------------------------------------------------------------
// Corpora at each pipeline point, built once per size and shared by the benchmarks.

struct Stages {
  Fetch fetch;
  Corpus raw;         // topic analyzed, not normalized
  Corpus normalized;  // after normalize + window_filter: the input of the core
  Corpus scored;      // after scoring + prune: the input of dedupe
  Corpus deduped;     // the input of fuse
  Corpus reranked;    // the input of cluster
};

std::unique_ptr<Stages> build(Fetch fetch) {
  auto s = std::make_unique<Stages>();
  s->fetch = std::move(fetch);
  s->raw.items = s->fetch.items;
  s->raw.topic = pipeline::analyze_topic(kTopic, s->raw.dict);
  s->normalized = s->raw;
  using pipeline::Stage;
  pipeline::rank(s->normalized, rank_spec(s->fetch, Stage::normalize, Stage::window));
  s->scored = s->normalized;
  pipeline::rank(s->scored, rank_spec(s->fetch, Stage::relevance, Stage::prune));
  s->deduped = s->scored;
  pipeline::rank(s->deduped, rank_spec(s->fetch, Stage::dedupe, Stage::dedupe));
  s->reranked = s->deduped;
  pipeline::rank(s->reranked, rank_spec(s->fetch, Stage::fuse, Stage::rerank));
  return s;
}

Generator& generator() {
  static Generator g;
  return g;
}

// kind: 0 realistic, 1 near-identical titles, 2 shared-core titles. Only the latest
// corpus is kept (rebuilding is deterministic): holding every size at once left a
// gigabyte of scattered heap behind, and the stages ran measurably slower in it than
// they do in a fresh process.
const Stages& stages(std::size_t n, int kind = 0) {
  static std::pair<std::size_t, int> key{0, -1};
  static std::unique_ptr<Stages> cached;
  if (!cached || key != std::pair{n, kind}) {
    cached.reset();
    cached = build(kind == 0 ? generator().realistic(n) : generator().similar(n, kind));
    key = {n, kind};
  }
  return *cached;
}

long minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Runs `stage` on a fresh copy of `input` each iteration; the copy and the destruction
// of the previous one happen with the timer paused (the last one after timing stopped).
// Also counts the minor page faults the stage takes: fresh memory is part of its cost,
// and on some virtual machines a fault costs ~10 us instead of ~0.2 us.
template <typename Stage>
void run(benchmark::State& state, const Corpus& input, Stage&& stage) {
  Corpus c;
  std::size_t out = 0;
  long faults = 0;
  for (auto _ : state) {
    state.PauseTiming();
    c = input;
    const long before = minor_faults();
    state.ResumeTiming();
    benchmark::DoNotOptimize(stage(c));
    benchmark::ClobberMemory();
    state.PauseTiming();
    faults += minor_faults() - before;
    out = c.items.size();
    state.ResumeTiming();
  }
  state.counters["faults"] = benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(input.items.size()));
  state.counters["in"] = static_cast<double>(input.items.size());
  state.counters["out"] = static_cast<double>(out);
}

std::size_t size_arg(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

void BM_Normalize(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  run(state, s.raw, [](Corpus& c) {
    pipeline::normalize(c);
    return c.features.size();
  });
}

void BM_Scoring(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  run(state, s.normalized, [&](Corpus& c) {
    score(c, s.fetch);
    return c.items.size();
  });
}

void BM_Dedupe(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  run(state, s.scored, [](Corpus& c) { return pipeline::dedupe(c); });
  state.counters["folded"] = static_cast<double>(s.scored.items.size() - s.deduped.items.size());
}

void BM_Fuse(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  run(state, s.deduped, [&](Corpus& c) {
    pipeline::rank(c, rank_spec(s.fetch, pipeline::Stage::fuse, pipeline::Stage::rerank));
    return c.items.size();
  });
}

void BM_Cluster(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  std::size_t clusters = 0;
  run(state, s.reranked, [&](Corpus& c) {
    auto out = pipeline::cluster(c);
    clusters = out.size();
    return out;
  });
  state.counters["clusters"] = static_cast<double>(clusters);
}

// The target: everything from scoring to clusters, in run_research's order.
void BM_Core(benchmark::State& state) {
  const auto& s = stages(size_arg(state));
  run(state, s.normalized, [&](Corpus& c) { return core_pipeline(c, s.fetch); });
  state.counters["kept"] = static_cast<double>(s.reranked.items.size());
}

// Dedupe (and the whole core) on titles that all share most of their words, see
// Generator::similar: kind 1 near-identical (almost all fold), kind 2 shared core (none
// fold, every bucket crowded). Must stay near-linear: time per item grows only as the
// working set leaves the caches, not with n.
void BM_DedupeSimilar(benchmark::State& state) {
  const auto& s = stages(size_arg(state), static_cast<int>(state.range(1)));
  run(state, s.scored, [](Corpus& c) { return pipeline::dedupe(c); });
  state.counters["folded"] = static_cast<double>(s.scored.items.size() - s.deduped.items.size());
}

void BM_CoreSimilar(benchmark::State& state) {
  const auto& s = stages(size_arg(state), static_cast<int>(state.range(1)));
  run(state, s.normalized, [&](Corpus& c) { return core_pipeline(c, s.fetch); });
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("n")->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
}

void similar_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "kind"})->Unit(benchmark::kMillisecond);
  for (int kind : {1, 2})
    for (int n : {1000, 10000, 100000}) b->Args({n, kind});
}

}  // namespace

BENCHMARK(BM_Normalize)->Apply(sizes);
BENCHMARK(BM_Scoring)->Apply(sizes);
BENCHMARK(BM_Dedupe)->Apply(sizes);
BENCHMARK(BM_Fuse)->Apply(sizes);
BENCHMARK(BM_Cluster)->Apply(sizes);
BENCHMARK(BM_Core)->Apply(sizes);
BENCHMARK(BM_DedupeSimilar)->Apply(similar_sizes);
BENCHMARK(BM_CoreSimilar)->Apply(similar_sizes);
