#pragma once
// Index orders shared by fusion and the rerank (fuse.cpp, rerank.cpp).
#include <algorithm>
#include <numeric>
#include <vector>

#include "pipeline/corpus.hpp"

namespace pipeline {

inline std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// Sorts the index sequence, not the items: the stages below sort more than once and
// then move the items once (moving 100k items costs more than the sorts themselves).
// Stable-sorting a sequence of indices orders exactly as stable-sorting the items in
// that sequence would.
// The scores are copied beside the indices first: comparing through the items missed the
// cache on almost every comparison.
inline void sort_by_final(const Corpus& c, std::vector<std::size_t>& order) {
  struct Key {
    double final;
    std::size_t item;
  };
  std::vector<Key> keys(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) keys[k] = {c.items[order[k]].scores.final, order[k]};
  std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.final != b.final) return a.final > b.final;
    return c.items[a.item].id < c.items[b.item].id;  // deterministic ties
  });
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = keys[k].item;
}

}  // namespace pipeline
