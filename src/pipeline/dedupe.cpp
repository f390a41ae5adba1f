// Folding duplicates in O(n): a hash map on canonical URLs, and MinHash LSH over
// title token sets so near-duplicate titles meet in a bucket instead of an all-pairs scan.
// Titles fold only when they state compatible facts (compatible_facts); one URL is one page
// and folds whatever its titles say.
#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

#include "core/parallel.hpp"
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
    for (int k = 0; k < kHashes; ++k)
      mins[static_cast<std::size_t>(k)] =
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

// An upper bound on jaccard() that needs no merge and reads 16 bytes of the other title:
// a token of `a` whose bit is missing from b's mask is not in b. It uses jaccard()'s own
// formula and grows with the shared count, so bound < threshold implies jaccard < threshold,
// in floating point too: skipping on the bound never misses a fold.
struct Sketch {
  std::uint64_t mask = 0;
  std::size_t size = 0;
};

std::uint64_t token_bit(TokenId t) { return 1ULL << (mix(t) & 63); }

Sketch sketch(const std::vector<TokenId>& tokens) {
  Sketch s;
  for (TokenId t : tokens) s.mask |= token_bit(t);
  s.size = tokens.size();
  return s;
}

// shared: how many of a's a_size tokens have their bit in b's mask.
double jaccard_bound(std::size_t shared, std::size_t a_size, const Sketch& b) {
  shared = std::min(shared, b.size);
  const std::size_t uni = a_size + b.size - shared;
  return uni == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(uni);
}

double jaccard_bound(const std::vector<std::uint64_t>& a_bits, const Sketch& b) {
  std::size_t shared = 0;
  for (std::uint64_t bit : a_bits) shared += (b.mask & bit) != 0 ? 1 : 0;
  return jaccard_bound(shared, a_bits.size(), b);
}

// Bits set, without the libgcc call std::popcount is on x86-64 without -mpopcnt.
std::size_t bit_count(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<std::size_t>((x * 0x0101010101010101ULL) >> 56);
}

std::uint64_t exact_key(const std::vector<TokenId>& tokens) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (TokenId t : tokens) h = mix(h ^ t);
  return h;
}

// 64-bit hash -> item or bucket index (stored in 32 bits), by open addressing with linear
// probing. The three maps below take one to sixteen lookups per item; std::unordered_map
// spent a division, an allocation and several cache misses on each.
class FlatIndex {
 public:
  explicit FlatIndex(std::size_t expected) : slots_(std::bit_ceil(std::max<std::size_t>(16, 2 * expected))) {}

  // The value of the first entry with this hash that `same` accepts; otherwise stores
  // `value` and returns it. `same` tells apart different keys whose hashes collide.
  template <typename Same>
  std::size_t find_or_insert(std::uint64_t hash, std::size_t value, Same same) {
    std::size_t at = hash & (slots_.size() - 1);
    for (; slots_[at].used; at = (at + 1) & (slots_.size() - 1))
      if (slots_[at].hash == hash && same(slots_[at].value)) return slots_[at].value;
    slots_[at] = {hash, static_cast<std::uint32_t>(value), true};
    if (2 * ++size_ > slots_.size()) grow();  // keep the load at most 1/2
    return value;
  }

  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

  // Lookup for keys told apart by their hash alone.
  std::optional<std::size_t> find(std::uint64_t hash) const {
    for (std::size_t at = hash & (slots_.size() - 1); slots_[at].used; at = (at + 1) & (slots_.size() - 1))
      if (slots_[at].hash == hash) return slots_[at].value;
    return std::nullopt;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t value = 0;
    bool used = false;
  };

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.used) continue;
      std::size_t at = s.hash & (slots_.size() - 1);
      while (slots_[at].used) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

// Only the first kBucketProbe representatives of a bucket are ever compared, so a bucket
// keeps just those, inline.
struct Bucket {
  std::size_t size = 0;
  std::array<std::uint32_t, kBucketProbe> reps{};
};

// Moves from dup: a folded item is dropped, and nothing reads its fields again.
void fold_into(model::Item& keep, model::Item& dup) {
  keep.also_seen.push_back({std::move(dup.source), std::move(dup.url), std::move(dup.title), std::move(dup.discussion_url),
                            std::move(dup.engagement), std::move(dup.id)});
  for (auto& s : dup.also_seen) keep.also_seen.push_back(std::move(s));
  for (auto& h : dup.hits) keep.hits.push_back(std::move(h));
}

// Folds the items `kept` lists (ascending), best first; `kept` becomes those not folded, in
// that order. No item moves: position i of the loop is item order[i], read through the index.
int fold_duplicates(Corpus& c, std::vector<std::size_t>& kept) {
  // Best first, so every fold keeps the stronger item as the representative.
  // The scores sit beside the indices: read through the features, nearly every comparison
  // missed the cache.
  struct Key {
    double base;
    std::size_t item;
  };
  std::vector<Key> by_base(kept.size());
  for (std::size_t k = 0; k < kept.size(); ++k) by_base[k] = {c.features[kept[k]].base, kept[k]};
  std::stable_sort(by_base.begin(), by_base.end(), [](const Key& a, const Key& b) { return a.base > b.base; });
  const std::size_t n = kept.size();
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = by_base[k].item;
  const auto feat = [&](std::size_t p) -> const Features& { return c.features[order[p]]; };

  FlatIndex by_url(n);       // hash of the canonical URL -> first item with that URL
  FlatIndex by_exact(n);     // exact_key -> first item with that title token set
  FlatIndex by_band(2 * n);  // band key -> index into buckets; grows past ~2 keys per item
  std::vector<Bucket> buckets;
  buckets.reserve(kBands * n);  // address space only: pages are touched as buckets are made, none copied
  // Per-item hashes up front, so the loop can prefetch the slots of items ahead of it; each
  // item's are its own, so chunks of items hash on two threads. The band keys of items that
  // fold before they are needed are computed for nothing, on the other core.
  std::vector<Sketch> sketches(n);
  std::vector<std::uint64_t> url_hash(n), title_key(n);
  std::vector<std::array<std::uint64_t, kBands>> band(n);
  core::parallel_chunks(n, 2048, core::cpu_threads(), [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const auto& title = feat(i).title;
      sketches[i] = sketch(title);
      url_hash[i] = std::hash<std::string_view>{}(feat(i).canonical_url);
      title_key[i] = exact_key(title);
      if (title.size() >= kMinTokens) band[i] = band_keys(title);
    }
  });
  constexpr std::size_t kAhead = 8;
  std::vector<std::uint64_t> bits;
  std::vector<bool> drop(n, false);
  // Where each item went: itself, or the representative it folded into. The URL and
  // title maps remember an item before it may fold, so a later match resolves through
  // this, or it would fold into a dropped item and vanish with it.
  std::vector<std::uint32_t> folded_into(n);
  std::iota(folded_into.begin(), folded_into.end(), 0u);
  int folded = 0;

  for (std::size_t i = 0; i < n; ++i) {
    const Features& f = feat(i);
    if (i + kAhead < n) by_url.prefetch(url_hash[i + kAhead]), by_exact.prefetch(title_key[i + kAhead]);
    // The features are read in base order, not where they lie: fetch them ahead.
    if (i + 2 * kAhead < n) {
      const char* next = reinterpret_cast<const char*>(&feat(i + 2 * kAhead));
      __builtin_prefetch(next), __builtin_prefetch(next + 64);
    }
    if (i + kAhead < n) {
      const Features& next = feat(i + kAhead);
      __builtin_prefetch(next.title.data()), __builtin_prefetch(next.canonical_url.data());
    }
    std::size_t into = n;
    if (!f.canonical_url.empty()) {
      const std::size_t first =
          by_url.find_or_insert(url_hash[i], i, [&](std::size_t j) { return feat(j).canonical_url == f.canonical_url; });
      if (first != i) into = folded_into[first];
    }
    const auto& keys = band[i];
    const bool lsh = f.title.size() >= kMinTokens;
    if (into == n && !f.title.empty()) {
      // The same words can state different facts ("Tokio 2.0 released" / "... not released"):
      // such a title keeps its own entry under the same key.
      const std::size_t first =
          by_exact.find_or_insert(title_key[i], i, [&](std::size_t j) { return compatible_facts(feat(j).facts, f.facts); });
      if (first != i) into = folded_into[first];
    }
    if (into == n && lsh) {
      // All eight lookups first, each prefetched: their cache misses overlap instead of
      // queueing. Lookups change nothing, so doing them before a fold is found is safe.
      for (auto key : keys) by_band.prefetch(key);
      // A title whose tokens all have bits of their own (the usual case) counts the shared
      // ones in one step: then the loop's count is the bits its mask shares with the other's.
      const std::uint64_t own = sketches[i].mask;
      const bool distinct = bit_count(own) == f.title.size();
      bits.clear();
      if (!distinct)
        for (TokenId t : f.title) bits.push_back(token_bit(t));
      std::array<const Bucket*, kBands> found{};
      for (std::size_t b = 0; b < keys.size(); ++b)
        if (const auto at = by_band.find(keys[b])) __builtin_prefetch(found[b] = &buckets[*at]);
      for (std::size_t b = 0; b < keys.size() && into == n; ++b) {
        if (found[b] == nullptr) continue;
        for (std::size_t k = 0; k < found[b]->size; ++k) {
          const std::size_t rep = found[b]->reps[k];
          const Sketch& other = sketches[rep];
          const double bound =
              distinct ? jaccard_bound(bit_count(own & other.mask), f.title.size(), other) : jaccard_bound(bits, other);
          if (bound < kNearDuplicateJaccard) continue;
          if (jaccard(f.title, feat(rep).title) >= kNearDuplicateJaccard && compatible_facts(f.facts, feat(rep).facts)) {
            into = rep;
            break;
          }
        }
      }
    }
    if (into != n) {
      folded_into[i] = static_cast<std::uint32_t>(into);
      fold_into(c.items[order[into]], c.items[order[i]]);
      drop[i] = true;
      ++folded;
      continue;
    }
    if (lsh)
      for (auto key : keys) {
        const std::size_t b = by_band.find_or_insert(key, buckets.size(), [](std::size_t) { return true; });
        if (b == buckets.size()) buckets.emplace_back();
        Bucket& bucket = buckets[b];
        if (bucket.size < kBucketProbe) bucket.reps[bucket.size++] = static_cast<std::uint32_t>(i);
      }
  }
  kept.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (!drop[i]) kept.push_back(order[i]);
  return folded;
}

}  // namespace

int dedupe(Corpus& c) {
  std::vector<std::size_t> kept(c.items.size());
  std::iota(kept.begin(), kept.end(), 0);
  const int folded = fold_duplicates(c, kept);
  keep_in_order(c, std::move(kept));
  return folded;
}

int dedupe_unmoved(Corpus& c, std::vector<std::size_t>& kept) { return fold_duplicates(c, kept); }

}  // namespace pipeline
