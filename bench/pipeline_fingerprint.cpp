// Output fingerprint of the benchmarked stages: a performance change to src/pipeline must
// leave every line identical (order, scores to the last bit, folds, ranks, clusters).
// Usage: l30_fingerprint [--dump DIR]   prints one hash per corpus; DIR gets the full text.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/text.hpp"
#include "synthetic_corpus.hpp"

namespace {

std::string serialize(const l30bench::Corpus& c, const std::vector<model::Cluster>& clusters, int pruned, int folded) {
  std::string out = fmt::format("pruned {} folded {} kept {}\n", pruned, folded, c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& it = c.items[i];
    const auto& s = it.scores;
    out += fmt::format("item {} {} rel={:a} fresh={:a} eng={:a} final={:a} base={:a} cluster={}\n", it.id, it.url, s.relevance,
                       s.freshness, s.engagement, s.final, c.features[i].base, it.cluster);
    for (const auto& a : it.also_seen) {
      out += fmt::format("  seen {} {} {} {}", a.source, a.url, a.title, a.discussion_url.value_or("-"));
      for (const auto& e : a.engagement) out += fmt::format(" {}={:a}", e.field, e.value);
      out += '\n';
    }
    for (const auto& h : it.hits) out += fmt::format("  hit {} {} {}\n", h.source, h.subquery, h.rank);
  }
  for (const auto& cl : clusters) {
    out += fmt::format("cluster {} {:a} {} | {} | {}\n", cl.id, cl.score, cl.title, cl.uncertainty.value_or("-"),
                       fmt::join(cl.sources, ","));
    out += fmt::format("  {}\n", fmt::join(cl.items, ","));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dump_dir = argc == 3 && std::string(argv[1]) == "--dump" ? argv[2] : "";
  l30bench::Generator gen;
  struct Case {
    std::string name;
    l30bench::Fetch fetch;
  };
  std::vector<Case> cases;
  for (std::size_t n : {1000, 10000, 100000}) cases.push_back({fmt::format("realistic-{}", n), gen.realistic(n)});
  for (int kind : {1, 2}) cases.push_back({fmt::format("similar{}-10000", kind), gen.similar(10000, kind)});
  for (auto& [name, fetch] : cases) {
    l30bench::Corpus c;
    c.items = fetch.items;
    c.topic = pipeline::analyze_topic(l30bench::kTopic, c.dict);
    auto ranked = pipeline::rank(c, l30bench::rank_spec(fetch, pipeline::Stage::normalize, pipeline::Stage::cluster));
    const int pruned = ranked.pruned;
    const int folded = ranked.folded;
    const auto clusters = std::move(ranked.clusters);
    const std::string text = serialize(c, clusters, pruned, folded);
    std::printf("%-18s %s  items=%zu clusters=%zu\n", name.c_str(), core::hex64(core::fnv1a64(text)).c_str(), c.items.size(),
                clusters.size());
    if (!dump_dir.empty()) std::ofstream(dump_dir + "/" + name + ".txt") << text;
  }
}
