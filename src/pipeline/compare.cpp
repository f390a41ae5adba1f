#include "pipeline/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/parallel.hpp"
#include "core/text.hpp"
#include "core/union_find.hpp"
#include "core/url.hpp"
#include "pipeline/corpus.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool is_separator(std::string_view word) {
  const std::string w = core::lower_ascii(word);
  return w == "vs" || w == "vs." || w == "versus";
}

}  // namespace

TopicSplit split_comparison(std::string_view typed) {
  struct Word {
    std::string_view text;
    bool separator = false;
  };
  std::vector<Word> words;
  bool any = false;
  for (std::size_t i = 0; i < typed.size();) {
    if (is_space(typed[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < typed.size() && !is_space(typed[end])) ++end;
    const std::string_view w = typed.substr(i, end - i);
    // Whitespace on both sides as typed: "VS Code" and "Kramer vs." are not separated here.
    const bool sep = is_separator(w) && i > 0 && end < typed.size();
    any = any || sep;
    words.push_back({w, sep});
    i = end;
  }
  if (!any) return {};

  TopicSplit out;
  std::string current;
  for (std::size_t k = 0; k <= words.size(); ++k) {
    if (k == words.size() || words[k].separator) {
      out.entities.push_back(current);
      current.clear();
      continue;
    }
    current += (current.empty() ? "" : " ") + std::string(words[k].text);
  }
  const std::string shown = core::collapse_whitespace(typed);
  if (out.entities.size() > kMaxEntities) {
    out.error =
        fmt::format("'{}' compares {} things; a comparison takes 2 to {} (or add --no-compare to research it as one topic)",
                    shown, out.entities.size(), kMaxEntities);
  } else {
    std::set<std::string> seen;
    for (std::size_t k = 0; k < out.entities.size() && out.error.empty(); ++k) {
      const auto& e = out.entities[k];
      if (e.empty())
        out.error = fmt::format("'{}' is a comparison with an empty {} side: write 'A vs B' (or add --no-compare)", shown,
                                k == 0                         ? "first"
                                : k + 1 == out.entities.size() ? "last"
                                                               : "middle");
      else if (!seen.insert(core::casefold(e)).second)
        out.error = fmt::format("'{}' compares '{}' with itself: add --no-compare to research the words as one topic", shown, e);
    }
  }
  if (!out.error.empty()) out.entities.clear();
  return out;
}

model::Comparison run_comparison(const std::string& topic, const std::vector<ResearchSpec>& specs, const ResearchEnv& env) {
  model::Comparison c;
  c.topic = topic;
  if (!specs.empty()) {
    c.depth = specs.front().depth;
    c.window = specs.front().window;
    c.generated_at = specs.front().now;
  }
  c.entities.resize(specs.size());
  // One thread per entity (at most six): wall time is the slowest entity, not the sum.
  core::parallel_for(specs.size(), specs.size(), [&](std::size_t i) {
    c.entities[i].name = specs[i].topic;
    try {
      c.entities[i].report = run_research(specs[i], env);
    } catch (const std::exception& e) {
      model::Report& r = c.entities[i].report;
      r.topic = specs[i].topic;
      r.depth = specs[i].depth;
      r.window = specs[i].window;
      r.generated_at = specs[i].now;
      r.outcome = model::Outcome::nothing_solid;
      r.warnings.push_back(fmt::format("research failed: {}", e.what()));
    }
  });
  find_shared_stories(c);
  bool any_ok = false;
  std::vector<std::pair<std::string, std::vector<std::string>>> warned;  // warning -> entities, first-seen order
  for (const auto& e : c.entities) {
    any_ok = any_ok || e.report.outcome == model::Outcome::ok;
    for (const auto& w : e.report.warnings) {
      auto it = std::find_if(warned.begin(), warned.end(), [&](const auto& p) { return p.first == w; });
      if (it == warned.end()) warned.push_back({w, {e.name}});
      else it->second.push_back(e.name);
    }
  }
  for (const auto& [w, names] : warned) {
    std::string who;
    for (const auto& n : names) who += (who.empty() ? "" : ", ") + n;
    c.warnings.push_back(who + ": " + w);
  }
  c.outcome = any_ok ? model::Outcome::ok : model::Outcome::nothing_solid;
  return c;
}

namespace {

struct Node {
  std::size_t entity;
  const model::Cluster* cluster;
  std::vector<TokenId> title;  // sorted unique
  Facts facts;                 // of the title: near-duplicates must state compatible facts
};

// Pairs of titles with Jaccard >= kNearDuplicateJaccard, found by prefix filtering: with
// tokens ordered rarest first, two such titles must share a token among the first
// |t| - ceil(0.8 |t|) + 1 of each, so only those are indexed. Linear in practice.
void unite_near_duplicate_titles(const std::vector<Node>& nodes, core::UnionFind& uf) {
  constexpr std::size_t kMinTokens = 3;  // short titles fold on URLs only
  std::unordered_map<TokenId, std::size_t> df;
  for (const auto& n : nodes)
    for (TokenId t : n.title) ++df[t];
  auto rarest_first = [&](TokenId a, TokenId b) { return df[a] != df[b] ? df[a] < df[b] : a < b; };
  std::unordered_map<TokenId, std::vector<std::size_t>> index;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].title.size() < kMinTokens) continue;
    std::vector<TokenId> order = nodes[k].title;
    std::sort(order.begin(), order.end(), rarest_first);
    const auto keep = static_cast<std::size_t>(std::ceil(kNearDuplicateJaccard * static_cast<double>(order.size())));
    const std::size_t prefix = order.size() - keep + 1;
    std::set<std::size_t> candidates;
    for (std::size_t p = 0; p < prefix; ++p) {
      auto& bucket = index[order[p]];
      candidates.insert(bucket.begin(), bucket.end());
      bucket.push_back(k);
    }
    for (std::size_t other : candidates) {
      if (nodes[other].entity == nodes[k].entity) continue;
      const auto& a = nodes[k].title;
      const auto& b = nodes[other].title;
      std::vector<TokenId> common;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
      const double j = static_cast<double>(common.size()) / static_cast<double>(a.size() + b.size() - common.size());
      if (j >= kNearDuplicateJaccard && compatible_facts(nodes[k].facts, nodes[other].facts)) uf.unite(k, other);
    }
  }
}

}  // namespace

void find_shared_stories(model::Comparison& c) {
  c.shared.clear();
  TokenDict dict;
  std::vector<Node> nodes;
  std::vector<std::vector<const model::Item*>> members;  // per node
  for (std::size_t e = 0; e < c.entities.size(); ++e) {
    const auto& r = c.entities[e].report;
    std::unordered_map<std::string, const model::Item*> by_id;
    for (const auto& it : r.items) by_id[it.id] = &it;
    for (const auto& cl : r.clusters) {
      const auto words = match_sequence(cl.title, dict);
      nodes.push_back({e, &cl, token_set(words, dict), title_facts(words, dict)});
      auto& m = members.emplace_back();
      for (const auto& id : cl.items)
        if (auto f = by_id.find(id); f != by_id.end()) m.push_back(f->second);
    }
  }
  core::UnionFind uf(nodes.size());
  std::unordered_map<std::string, std::size_t> first_with_key;
  auto key = [&](std::size_t node, std::string k) {
    if (k.size() <= 2) return;
    auto [it, inserted] = first_with_key.try_emplace(std::move(k), node);
    if (!inserted) uf.unite(node, it->second);
  };
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    for (const auto* it : members[k]) {
      key(k, "i:" + it->id);
      key(k, "u:" + core::canonical_url(it->url));
      if (it->discussion_url) key(k, "u:" + core::canonical_url(*it->discussion_url));
      for (const auto& s : it->also_seen) {
        key(k, "u:" + core::canonical_url(s.url));
        if (s.discussion_url) key(k, "u:" + core::canonical_url(*s.discussion_url));
      }
    }
  }
  unite_near_duplicate_titles(nodes, uf);

  std::map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < nodes.size(); ++k) groups[uf.find(k)].push_back(k);
  std::vector<std::pair<double, model::SharedStory>> found;
  for (const auto& [root, group] : groups) {
    std::set<std::size_t> entities;
    for (std::size_t k : group) entities.insert(nodes[k].entity);
    if (entities.size() < 2) continue;
    std::size_t best = group.front();
    for (std::size_t k : group)
      if (nodes[k].cluster->score > nodes[best].cluster->score) best = k;
    model::SharedStory s;
    s.title = nodes[best].cluster->title;
    s.url = members[best].empty() ? std::string() : members[best].front()->url;
    for (std::size_t e : entities) s.entities.push_back(c.entities[e].name);
    for (std::size_t k : group) s.members.push_back({nodes[k].entity, nodes[k].cluster->id});
    found.emplace_back(nodes[best].cluster->score, std::move(s));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& f : found) c.shared.push_back(std::move(f.second));
}

}  // namespace pipeline
