#pragma once
// Disjoint sets over 0..n-1 with path halving; a group's root is its smallest member,
// so callers that number things best first keep the best as the root.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace core {

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace core
