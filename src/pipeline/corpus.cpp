#include "pipeline/corpus.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_set>

#include "core/fold.hpp"
#include "core/text.hpp"

namespace pipeline {

namespace {
// What a memcpy of the last n (1 to 7) bytes into a zeroed word gives, on a little-endian
// machine, by fixed-size loads that may overlap (a memcpy of a variable size is a call).
std::uint64_t tail_bytes(const char* p, std::size_t n) {
  const auto load = [p](std::size_t at, auto word) {
    std::memcpy(&word, p + at, sizeof word);
    return static_cast<std::uint64_t>(word);
  };
  if (n >= 4) return load(0, std::uint32_t{}) | load(n - 4, std::uint32_t{}) << (8 * (n - 4));
  if (n >= 2) return load(0, std::uint16_t{}) | load(n - 2, std::uint16_t{}) << (8 * (n - 2));
  return static_cast<unsigned char>(p[0]);
}

std::uint64_t hash_word(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  if (i < s.size()) {
    const std::uint64_t w = tail_bytes(s.data() + i, s.size() - i);
    h = (h ^ w) * 0x94D049BB133111EBULL;
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}
}  // namespace

template <typename KeyOf>
std::size_t TokenDict::find(const std::vector<Slot>& slots, std::uint32_t hash, std::string_view key, KeyOf key_of) {
  const std::size_t mask = slots.size() - 1;
  std::size_t at = hash & mask;
  for (; slots[at].index != kEmpty; at = (at + 1) & mask)
    if (slots[at].hash == hash && key_of(slots[at].index) == key) break;
  return at;
}

TokenId TokenDict::intern(std::string_view token) {
  if (2 * (words_.size() + 1) > slots_.size()) grow(slots_);  // load at most 1/2
  const auto hash = static_cast<std::uint32_t>(hash_word(token));
  const std::size_t at = find(slots_, hash, token, [&](std::uint32_t i) -> std::string_view { return words_[i]; });
  if (slots_[at].index != kEmpty) return slots_[at].index;
  const auto id = static_cast<TokenId>(words_.size());
  words_.emplace_back(token);
  slots_[at] = {hash, id};
  return id;
}

const TokenDict::Known* TokenDict::known(std::string_view folded) const {
  if (known_slots_.empty()) return nullptr;
  const std::size_t at = find(known_slots_, static_cast<std::uint32_t>(hash_word(folded)), folded,
                              [&](std::uint32_t i) -> std::string_view { return known_[i].first; });
  return known_slots_[at].index == kEmpty ? nullptr : &known_[known_slots_[at].index].second;
}

void TokenDict::remember(std::string_view folded, Known k) {
  if (2 * (known_.size() + 1) > known_slots_.size()) grow(known_slots_);
  const auto hash = static_cast<std::uint32_t>(hash_word(folded));
  const std::size_t at = find(known_slots_, hash, folded, [&](std::uint32_t i) -> std::string_view { return known_[i].first; });
  if (known_slots_[at].index != kEmpty) return;
  known_slots_[at] = {hash, static_cast<std::uint32_t>(known_.size())};
  known_.emplace_back(std::string(folded), k);
}

void TokenDict::grow(std::vector<Slot>& slots) {
  std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots.size()));
  old.swap(slots);
  const std::size_t mask = slots.size() - 1;
  for (const Slot& s : old) {
    if (s.index == kEmpty) continue;
    std::size_t at = s.hash & mask;
    while (slots[at].index != kEmpty) at = (at + 1) & mask;
    slots[at] = s;
  }
}

namespace {
// normalize_token without a copy: the rule only ever drops the last letter.
std::string_view normalized(std::string_view t) {
  if (t.size() > 3 && t.back() == 's' && t[t.size() - 2] != 's' && t[t.size() - 2] != 'u' && t[t.size() - 2] != 'i')
    t.remove_suffix(1);
  return t;
}
}  // namespace

std::string normalize_token(std::string_view token) { return std::string(normalized(token)); }

namespace {
// "GPT-6", "iPhone 17": the name-number pair is the entity; alone the number is noise.
bool pairs_with_previous(const std::vector<MatchWord>& words, std::size_t i, const TokenDict& dict) {
  return i > 0 && (words[i].flags & kNumber) && dict.text(words[i].id).size() <= 3 && !(words[i - 1].flags & (kNumber | kStop));
}
TokenId pair_token(const std::vector<MatchWord>& words, std::size_t i, TokenDict& dict) {
  return dict.intern(dict.text(words[i - 1].id) + dict.text(words[i].id));
}
}  // namespace

std::vector<TokenId> token_set(const std::vector<MatchWord>& words, TokenDict& dict) {
  std::vector<TokenId> out;
  out.reserve(words.size() + 2);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].flags & kStop) continue;
    out.push_back(words[i].id);
    if (pairs_with_previous(words, i, dict)) out.push_back(pair_token(words, i, dict));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void intern_pairs(const std::vector<MatchWord>& words, TokenDict& dict) {
  for (std::size_t i = 0; i < words.size(); ++i)
    if (!(words[i].flags & kStop) && pairs_with_previous(words, i, dict)) pair_token(words, i, dict);
}

std::vector<TokenId> token_set(std::string_view text, TokenDict& dict) { return token_set(match_sequence(text, dict), dict); }

namespace {
bool digits_only(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

bool is_year(std::string_view word) {
  return word.size() == 4 && digits_only(word) && (word.starts_with("19") || word.starts_with("20"));
}

std::vector<MatchWord> match_sequence(std::string_view text, TokenDict& dict, bool* case_free) {
  thread_local core::WordList list;
  core::match_words(text, list);
  const auto& words = list.words;
  if (case_free) *case_free = core::case_uninformative(list);
  std::vector<MatchWord> out;
  out.reserve(words.size());
  // A chain of joined words is an identifier ("tokio-rs/tokio", "llama.cpp", "cve-2025-1234"),
  // written in whatever case it has, when a '/', '_' or '.' joins it or it holds a digit; joined
  // by hyphens only it is a compound of the prose around it ("helix-to-sheet"), whose case says
  // what it says elsewhere. Only identifiers are kJoined.
  static const bool every_chain = core::ablated("compound");  // ablated: every chain is one, as before
  thread_local std::vector<bool> identifier;
  identifier.assign(words.size(), false);
  for (std::size_t a = 0; a < words.size();) {
    std::size_t b = a + 1;
    while (b < words.size() && words[b].glued) ++b;
    bool id = every_chain;
    for (std::size_t k = a; k < b && !id; ++k) {
      const auto t = list.text_of(words[k]);
      id = (k > a && words[k].joiner != '-') || std::any_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    }
    if (id)
      for (std::size_t k = a; k < b; ++k) identifier[k] = true;
    a = b;
  }
  for (std::size_t k = 0; k < words.size(); ++k) {
    const auto& w = words[k];
    const auto t = list.text_of(w);
    std::uint16_t flags = 0;
    if (w.upper) flags |= kUpper;
    if (w.lower) flags |= kLower;
    if (w.possessive) flags |= kPossessive;
    if (w.clause_break) flags |= kBreak;
    if (w.headline_break) flags |= kHeadline;
    if (w.bracketed) flags |= kBracketed;
    if (w.all_caps) flags |= kAllCaps;
    if (w.joined && identifier[k]) flags |= kJoined;
    if (w.kana) flags |= kStop;
    if (w.ideograph) flags |= kIdeograph;
    // The token and what the text alone decides, cached by the dictionary (ideographs, rare and
    // not normalized, are not).
    const TokenDict::Known* cached = w.ideograph ? nullptr : dict.known(t);
    TokenDict::Known known = cached ? *cached : TokenDict::Known{};
    if (!cached) {
      known = {dict.intern(w.ideograph ? t : normalized(t)),
               static_cast<std::uint16_t>((core::is_stopword(t) ? kStop : 0) | (digits_only(t) ? kNumber : 0))};
      if (!w.ideograph) dict.remember(t, known);
    }
    out.push_back({known.id, static_cast<std::uint16_t>(flags | known.flags), w.glued});
  }
  return out;
}

bool is_weak_word(std::string_view folded) {
  static const std::unordered_set<std::string_view> kWords{
      "model",    "models",  "server",  "servers",  "performance", "update",   "updates",  "version", "versions",  "feature",
      "features", "support", "issue",   "issues",   "problem",     "problems", "api",      "apis",    "library",   "libraries",
      "system",   "systems", "service", "services", "platform",    "project",  "projects", "code",    "developer", "developers",
      "company",  "user",    "users",   "setup",    "tutorial",    "example",  "examples", "report",  "story",     "stories",
      "change",   "changes", "plan",    "plans",    "price",       "pricing"};
  return core::is_generic(folded) || kWords.count(folded) > 0;
}

namespace {

// "llama.cpp", "k8s", "GPT-5", "c++": written like a product's name whatever the case.
bool name_shaped(std::string_view raw, const std::vector<core::Word>& words) {
  if (words.empty() || words[0].ideograph) return false;
  bool letter = false, digit = false;
  for (char c : raw) {
    letter |= std::isalpha(static_cast<unsigned char>(c)) != 0;
    digit |= c >= '0' && c <= '9';
  }
  return letter && (digit || words.size() > 1 || raw.find_first_of("+#") != std::string_view::npos);
}

std::vector<TokenId> ids_of(const std::vector<core::Word>& words, TokenDict& dict) {
  std::vector<TokenId> out;
  for (const auto& w : words) out.push_back(dict.intern(w.ideograph ? w.text : normalize_token(w.text)));
  return out;
}

// Short letters-only alternatives ("PG", "JS") name many things; they count only beside the rest of the topic.
bool abbreviation(std::string_view alternative) {
  const auto t = core::trim(alternative);
  return !t.empty() && t.size() <= 3 &&
         std::all_of(t.begin(), t.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// The host wrote this synonym in lower case: a lower-case occurrence is it, not a common word.
void mark_lower(TopicTerm& term, bool lower) {
  if (!lower) return;
  term.lower.resize(term.forms.size(), false);
  term.lower.back() = true;
}

}  // namespace

namespace {
// "19", "1.38": a version number (digits first and last).
bool digits_and_dots(std::string_view s) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  return !s.empty() && digit(s.front()) && digit(s.back()) &&
         std::all_of(s.begin(), s.end(), [&](char c) { return digit(c) || c == '.'; });
}
}  // namespace

TypedCase typed_case(const std::vector<std::string>& written) {
  static const bool off = core::ablated("typed-case");
  if (off) return TypedCase::informative;
  int words = 0, capitalised = 0, capitals = 0;
  for (const auto& raw : written) {
    const auto parts = core::match_words(raw);
    if (parts.empty() || (parts.size() == 1 && core::is_stopword(parts[0].text))) continue;
    if (!parts[0].upper && !parts[0].lower) continue;  // digits, ideographs: no case to read
    ++words;
    capitalised += parts[0].upper ? 1 : 0;
    capitals += parts[0].all_caps ? 1 : 0;
  }
  if (words < 2 || capitalised < words) return TypedCase::informative;
  return capitals == words ? TypedCase::capitals : TypedCase::title;
}

// A name hyphenated to its version ("PostgreSQL-19", "GPT-5") is searched as the two words
// the platforms' tokenisers make of it anyway, so the spellings of the name apply ("PG19").
std::vector<std::string> spaced_versions(const std::vector<std::string>& words) {
  static const bool off = core::ablated("version-forms");
  if (off) return words;
  std::vector<std::string> out;
  for (const auto& w : words) {
    const auto dash = w.find('-');
    const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
    if (dash != std::string::npos && dash >= 2 && std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(dash), letter) &&
        digits_and_dots(std::string_view(w).substr(dash + 1))) {
      out.push_back(w.substr(0, dash));
      out.push_back(w.substr(dash + 1));
    } else {
      out.push_back(w);
    }
  }
  return out;
}

std::vector<std::string> unprefixed_versions(std::vector<std::string> words) {
  static const bool off = core::ablated("version-forms");
  if (off) return words;
  // After a word only (a topic opening "v12" names that), a lower-case "v" and a dotted or
  // two-digit number: "V8" and "v8" are an engine's name.
  for (std::size_t i = 1; i < words.size(); ++i)
    if (const auto& w = words[i]; w.size() >= 3 && w[0] == 'v' && digits_and_dots(std::string_view(w).substr(1)))
      words[i] = w.substr(1);
  return words;
}

std::vector<std::string> written_words(std::string_view topic) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < topic.size();) {
    while (pos < topic.size() && std::isspace(static_cast<unsigned char>(topic[pos]))) ++pos;
    std::size_t end = pos;
    while (end < topic.size() && !std::isspace(static_cast<unsigned char>(topic[end]))) ++end;
    if (end > pos) out.emplace_back(topic.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

Topic analyze_topic(std::string_view topic, TokenDict& dict, const std::vector<model::Synonym>& synonyms) {
  Topic t;
  t.phrase = core::collapse_whitespace(core::casefold(topic));
  t.tokens = token_set(topic, dict);
  for (TokenId id : t.tokens) t.generic.push_back(core::is_generic(dict.text(id)));

  // One term per written word; the words a term folds into must appear together.
  const auto spaced = spaced_versions(written_words(topic));
  const TypedCase typed = typed_case(spaced);
  // "Kubernetes v1.38" names the version 1.38: its term is the number, "v1.38" one of its forms.
  const auto raw_words = unprefixed_versions(spaced);
  std::vector<std::string> folded_words;  // per term, its words joined by spaces (for synonyms)
  for (const auto& raw : raw_words) {
    const auto words = core::match_words(raw);
    if (words.empty()) continue;
    TopicTerm term;
    term.forms.push_back(ids_of(words, dict));
    term.weak.push_back(false);
    term.names.push_back(-1);
    std::string joined;
    bool all_digits = true;
    for (const auto& w : words) {
      joined += (joined.empty() ? "" : " ") + w.text;
      all_digits &= digits_only(w.text);
    }
    term.number = all_digits;
    term.connector = words.size() == 1 && core::is_stopword(words[0].text);
    term.proper = !term.number && !term.connector && words[0].upper;
    term.case_unsure = term.proper && typed != TypedCase::informative && !(typed == TypedCase::title && words[0].all_caps);
    term.shaped = !term.number && !term.connector && name_shaped(raw, words);
    term.generic = (!term.proper || term.case_unsure) && !term.shaped && !term.number &&
                   std::all_of(words.begin(), words.end(), [](const core::Word& w) { return is_weak_word(w.text); });
    if (auto alt = core::umlaut_spelling(raw)) {
      const auto alt_words = core::match_words(*alt);
      if (!alt_words.empty()) {
        term.forms.push_back(ids_of(alt_words, dict));
        term.weak.push_back(false);
        term.names.push_back(-1);
      }
    }
    t.terms.push_back(std::move(term));
    folded_words.push_back(std::move(joined));
  }
  // A number right after a word is that word's version ("PostgreSQL 19", "Zig 1.0"); elsewhere
  // a number is a date or a count.
  for (std::size_t i = 0; i < t.terms.size(); ++i) {
    auto& term = t.terms[i];
    if (!term.number) continue;
    if (i > 0 && !t.terms[i - 1].connector && !t.terms[i - 1].number) term.version_of = static_cast<int>(i - 1);
    else term.generic = true;
  }
  // A version is also written with its prefix: "v1.38", "v19" (release tags, changelogs).
  static const bool prefixed = !core::ablated("version-forms");
  for (auto& term : t.terms) {
    if (!prefixed || term.version_of < 0 || term.forms[0].empty()) continue;
    if (term.forms[0].size() == 1 && dict.text(term.forms[0][0]).size() < 2) continue;  // "Node 8": not "V8"
    auto form = term.forms[0];
    form[0] = dict.intern("v" + dict.text(form[0]));
    term.forms.push_back(std::move(form));
    term.weak.push_back(false);
    term.names.push_back(-1);
  }
  // Synonyms: a single word gains forms; a phrase gains a span.
  for (const auto& syn : synonyms) {
    std::string key;
    for (const auto& w : core::match_words(syn.term)) key += (key.empty() ? "" : " ") + w.text;
    if (key.empty()) continue;
    for (std::size_t a = 0; a < t.terms.size(); ++a) {
      std::string run;
      std::size_t b = a;
      for (; b < t.terms.size(); ++b) {
        run += (run.empty() ? "" : " ") + folded_words[b];
        if (run.size() >= key.size()) break;
      }
      if (b >= t.terms.size() || run != key) continue;
      for (const auto& alt : syn.alternatives) {
        const auto words = core::match_words(alt);
        if (words.empty()) continue;
        const auto name = static_cast<std::int16_t>(t.form_names.size());
        t.form_names.push_back(std::string(core::trim(alt)));
        const bool weak = abbreviation(alt);
        if (a == b) {
          t.terms[a].forms.push_back(ids_of(words, dict));
          t.terms[a].weak.push_back(weak);
          t.terms[a].names.push_back(name);
          mark_lower(t.terms[a], !words[0].upper);
        } else {
          auto seq = ids_of(words, dict);
          // A phrase that says the same words but one ("GDL strike" for "GDL Streik") gives that
          // word a form too, so the words still count apart ("GDL calls a 35-hour strike").
          if (seq.size() == b - a + 1 && !core::ablated("swap")) {
            std::size_t differ = 0, at = a;
            for (std::size_t k = a; k <= b; ++k)
              if (t.terms[k].forms[0].size() != 1 || t.terms[k].forms[0][0] != seq[k - a]) ++differ, at = k;
            if (differ == 1 && !t.terms[at].connector && t.terms[at].forms[0].size() == 1 &&
                !core::is_stopword(dict.text(seq[at - a]))) {
              t.terms[at].forms.push_back({seq[at - a]});
              t.terms[at].weak.push_back(weak);
              t.terms[at].names.push_back(name);
              mark_lower(t.terms[at], !words[at - a].upper);
            }
          }
          t.spans.push_back({a, b, std::move(seq), weak, name});
        }
      }
    }
  }
  // Joined name and version, as in "PG19" or "postgresql19": one span for each one-word form.
  for (std::size_t i = 0; i < t.terms.size(); ++i) {
    const auto& num = t.terms[i];
    if (num.version_of < 0 || num.forms[0].size() != 1) continue;
    const auto& name = t.terms[static_cast<std::size_t>(num.version_of)];
    for (std::size_t f = 0; f < name.forms.size(); ++f) {
      if (name.forms[f].size() != 1) continue;
      const TokenId joined = dict.intern(dict.text(name.forms[f][0]) + dict.text(num.forms[0][0]));
      t.spans.push_back({i - 1, i, {joined}, false, name.names[f]});
    }
  }
  for (auto& term : t.terms) {
    term.weight = term.connector ? 0.0 : term.generic ? kGenericTermWeight : 1.0;
    if (term.connector) continue;
    t.total_weight += term.weight;
    ++t.content_terms;
    t.specific_terms += term.generic ? 0 : 1;
    t.has_entity |= term.proper || term.shaped || term.version_of >= 0;
  }
  return t;
}

void erase_items(Corpus& c, const std::vector<bool>& drop) {
  std::size_t w = 0;
  for (std::size_t r = 0; r < c.items.size(); ++r) {
    if (drop[r]) continue;
    if (w != r) {
      c.items[w] = std::move(c.items[r]);
      c.features[w] = std::move(c.features[r]);
    }
    ++w;
  }
  c.items.resize(w);
  c.features.resize(w);
}

namespace {
template <typename T>
void prefetch_object(const T& x) {
  const char* p = reinterpret_cast<const char*>(&x);
  for (std::size_t at = 0; at < sizeof(T); at += 64) __builtin_prefetch(p + at);
}
}  // namespace

// In place, one cycle at a time: building new vectors meant ~50 MB of fresh memory per
// call at 100k items, and dedupe, fuse and rerank call this up to five times per run.
// The cycle's next items are prefetched a few steps ahead: the order is random, and moving
// an item that is not in the cache mostly waits for it.
void permute(Corpus& c, const std::vector<std::size_t>& order) {
  constexpr int kAhead = 4;
  std::vector<bool> placed(order.size(), false);
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (placed[start] || order[start] == start) continue;
    std::size_t ahead = order[start];
    for (int k = 0; k < kAhead && ahead != start; ++k, ahead = order[ahead]) {
      prefetch_object(c.items[ahead]);
      prefetch_object(c.features[ahead]);
    }
    model::Item item = std::move(c.items[start]);
    Features features = std::move(c.features[start]);
    std::size_t to = start;
    for (std::size_t from = order[to]; from != start; to = from, from = order[to]) {
      if (ahead != start) {
        prefetch_object(c.items[ahead]);
        prefetch_object(c.features[ahead]);
        ahead = order[ahead];
      }
      c.items[to] = std::move(c.items[from]);
      c.features[to] = std::move(c.features[from]);
      placed[to] = true;
    }
    c.items[to] = std::move(item);
    c.features[to] = std::move(features);
    placed[to] = true;
  }
}

void keep_in_order(Corpus& c, std::vector<std::size_t> order) {
  const std::size_t n = c.items.size(), kept = order.size();
  if (kept < n) {  // the dropped items go to the tail, to be cut off
    std::vector<bool> listed(n, false);
    for (std::size_t i : order) listed[i] = true;
    for (std::size_t i = 0; i < n; ++i)
      if (!listed[i]) order.push_back(i);
  }
  permute(c, order);
  c.items.resize(kept);
  c.features.resize(kept);
}

}  // namespace pipeline
