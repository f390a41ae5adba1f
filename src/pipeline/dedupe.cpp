// Folding duplicates in O(n): a hash map on canonical URLs, and MinHash LSH over
// title token sets so near-duplicate titles meet in a bucket instead of an all-pairs scan.
#include <algorithm>
#include <array>
#include <numeric>
#include <unordered_map>

#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

constexpr int kBands = 8;
constexpr int kRows = 3;  // threshold ~ (1/8)^(1/3) = 0.5; P(found | J=0.8) > 0.99
constexpr int kHashes = kBands * kRows;
constexpr std::size_t kBucketProbe = 8;  // representatives compared per bucket: keeps it linear
constexpr std::size_t kMinTokens = 3;    // shorter titles fold only on exact token sets

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::array<std::uint64_t, kBands> band_keys(const std::vector<TokenId>& tokens) {
  std::array<std::uint64_t, kHashes> mins;
  mins.fill(~0ULL);
  for (TokenId t : tokens) {
    const std::uint64_t h = mix(t);
    for (int k = 0; k < kHashes; ++k) mins[static_cast<std::size_t>(k)] =
        std::min(mins[static_cast<std::size_t>(k)], mix(h ^ (0x5851F42D4C957F2DULL * static_cast<std::uint64_t>(k + 1))));
  }
  std::array<std::uint64_t, kBands> keys{};
  for (int b = 0; b < kBands; ++b) {
    std::uint64_t key = mix(static_cast<std::uint64_t>(b) + 1);
    for (int r = 0; r < kRows; ++r) key = mix(key ^ mins[static_cast<std::size_t>(b * kRows + r)]);
    keys[static_cast<std::size_t>(b)] = key;
  }
  return keys;
}

double jaccard(const std::vector<TokenId>& a, const std::vector<TokenId>& b) {
  std::size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) ++common, ++i, ++j;
    else if (a[i] < b[j]) ++i;
    else ++j;
  }
  const std::size_t uni = a.size() + b.size() - common;
  return uni == 0 ? 0.0 : static_cast<double>(common) / static_cast<double>(uni);
}

std::uint64_t exact_key(const std::vector<TokenId>& tokens) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (TokenId t : tokens) h = mix(h ^ t);
  return h;
}

void fold_into(model::Item& keep, model::Item& dup) {
  keep.also_seen.push_back({dup.source, dup.url, dup.title, dup.discussion_url, dup.engagement});
  for (auto& s : dup.also_seen) keep.also_seen.push_back(std::move(s));
  for (auto& h : dup.hits) keep.hits.push_back(std::move(h));
}

}  // namespace

int dedupe(Corpus& c) {
  const std::size_t n = c.items.size();
  // Best first, so every fold keeps the stronger item as the representative.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return c.features[a].base > c.features[b].base; });
  permute(c, order);

  std::unordered_map<std::string, std::size_t> by_url;
  std::unordered_map<std::uint64_t, std::size_t> by_exact;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> buckets;
  by_url.reserve(n);
  by_exact.reserve(n);
  buckets.reserve(n * kBands);
  std::vector<bool> drop(n, false);
  int folded = 0;

  for (std::size_t i = 0; i < n; ++i) {
    const Features& f = c.features[i];
    std::size_t into = n;
    if (!f.canonical_url.empty()) {
      auto [it, inserted] = by_url.try_emplace(f.canonical_url, i);
      if (!inserted) into = it->second;
    }
    std::array<std::uint64_t, kBands> keys{};
    const bool lsh = f.title.size() >= kMinTokens;
    if (into == n && !f.title.empty()) {
      auto [it, inserted] = by_exact.try_emplace(exact_key(f.title), i);
      if (!inserted) into = it->second;
    }
    if (into == n && lsh) {
      keys = band_keys(f.title);
      for (int b = 0; b < kBands && into == n; ++b) {
        auto found = buckets.find(keys[static_cast<std::size_t>(b)]);
        if (found == buckets.end()) continue;
        const auto& reps = found->second;
        for (std::size_t k = 0; k < reps.size() && k < kBucketProbe; ++k) {
          if (jaccard(f.title, c.features[reps[k]].title) >= kNearDuplicateJaccard) {
            into = reps[k];
            break;
          }
        }
      }
    }
    if (into != n) {
      fold_into(c.items[into], c.items[i]);
      drop[i] = true;
      ++folded;
      continue;
    }
    if (lsh)
      for (auto key : keys) buckets[key].push_back(i);
  }
  erase_items(c, drop);
  return folded;
}

}  // namespace pipeline
