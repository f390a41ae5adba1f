// What a title states that a near-duplicate must state alike. Titles that share most words
// can still report different facts: "Tokio 2.0 released" / "Tokio 2.0 not released",
// "Rust 1.91" / "Rust 1.92", two CVE ids. Dedupe and clustering both ask compatible_facts.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <unordered_map>

#include "core/text.hpp"
#include "pipeline/corpus.hpp"

namespace pipeline {

namespace {

// Words that turn a statement around, by kind; folded and normalized as match_sequence
// writes them (apostrophes dropped, a trailing plural 's' dropped: "denies" -> "denie").
enum Cue : std::uint8_t { kNegation, kFailure, kDenial, kDelay, kFalsehood, kAbsence, kCueKinds };

const std::unordered_map<std::string, Cue>& cues() {
  static const auto kCues = [] {
    std::unordered_map<std::string, Cue> m;
    const auto add = [&m](Cue kind, std::initializer_list<std::string_view> words) {
      for (auto w : words) m.emplace(normalize_token(w), kind);
    };
    add(kNegation,
        {"not",  "no",     "never", "nor",  "neither", "none",     "cannot",  "cant",  "isnt",   "arent", "wasnt", "werent",
         "dont", "doesnt", "didnt", "wont", "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint",  "unlikely"});
    add(kFailure, {"fail", "fails", "failed", "failing", "failure", "unable"});
    add(kDenial, {"deny",    "denies",    "denied",    "refuse",   "refuses",   "refused",   "reject",  "rejects",  "rejected",
                  "dismiss", "dismisses", "dismissed", "retract",  "retracts",  "retracted", "reverse", "reverses", "reversed",
                  "revert",  "reverts",   "reverted",  "withdraw", "withdraws", "withdrawn", "withdrew"});
    add(kDelay, {"delay",    "delays",    "delayed",   "postpone", "postpones", "postponed", "cancel", "cancels",
                 "canceled", "cancelled", "scrap",     "scraps",   "scrapped",  "halt",      "halts",  "halted",
                 "suspend",  "suspends",  "suspended", "pause",    "pauses",    "paused",    "shelved"});
    add(kFalsehood, {"false", "fake", "hoax", "debunk", "debunks", "debunked", "myth", "rumor", "rumour", "unconfirmed"});
    add(kAbsence, {"without", "lacks", "lacking", "missing"});
    return m;
  }();
  return kCues;
}

// Whether `w` may be a cue, by its first byte and length: most title words are answered
// without the map's hash.
bool maybe_cue(std::string_view w) {
  static const core::FirstByteLengths lengths = [] {
    core::FirstByteLengths f;
    for (const auto& [word, kind] : cues()) f.add(word);
    return f;
  }();
  return lengths.may_hold(w);
}

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The part of a word that is a value: digits as they are; a name fused with its number
// ("gpt6", "v2", "h100", "iphone17") gives the number, so "GPT-6", "GPT 6" and "gpt6" agree;
// other mixes ("k8s", "5v3q" of a GHSA id) stay whole. Letters only: a name, not a value.
std::string_view value_part(std::string_view w) {
  if (!has_digit(w)) return {};
  std::size_t k = 0;
  while (k < w.size() && !(w[k] >= '0' && w[k] <= '9')) ++k;
  if (k > 0 && std::all_of(w.begin() + static_cast<std::ptrdiff_t>(k), w.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return w.substr(k);
  return w;
}

}  // namespace

Facts title_facts(const std::vector<MatchWord>& words, TokenDict& dict) {
  Facts f;
  std::array<std::uint8_t, kCueKinds> counts{};
  const auto& cue = cues();
  std::string value;  // the value of the current identifier ("1.92.0", "2025.1234")
  auto flush = [&] {
    // "2.0" is "2", "1.92.0" is "1.92": trailing zero parts say nothing.
    while (value.size() > 2 && value.ends_with(".0")) value.resize(value.size() - 2);
    if (!value.empty()) f.values.push_back(dict.intern(value));
    value.clear();
  };
  for (std::size_t i = 0; i < words.size(); ++i) {
    const MatchWord& w = words[i];
    if (!w.glued) flush();  // an identifier is the words glued by - / _ . ("cve-2025-1234", "1.92.0")
    if (w.flags & kIdeograph) continue;
    const std::string& text = dict.text(w.id);
    if (const auto part = value_part(text); !part.empty()) {
      if (!value.empty()) value += '.';
      value += part;
    } else if (auto it = maybe_cue(text) ? cue.find(text) : cue.end(); it != cue.end() && counts[it->second] < 3) {
      ++counts[it->second];
    }
  }
  flush();
  std::sort(f.values.begin(), f.values.end());
  f.values.erase(std::unique(f.values.begin(), f.values.end()), f.values.end());
  for (std::size_t k = 0; k < counts.size(); ++k) f.polarity |= static_cast<std::uint16_t>(counts[k] << (2 * k));
  return f;
}

bool compatible_facts(const Facts& a, const Facts& b) {
  if (a.polarity != b.polarity) return false;
  const auto& small = a.values.size() <= b.values.size() ? a.values : b.values;
  const auto& large = a.values.size() <= b.values.size() ? b.values : a.values;
  return std::includes(large.begin(), large.end(), small.begin(), small.end());
}

void merge_facts(Facts& into, const Facts& other) {
  // Mostly the member says nothing new: no allocation then.
  if (std::includes(into.values.begin(), into.values.end(), other.values.begin(), other.values.end())) return;
  std::vector<TokenId> merged;
  merged.reserve(into.values.size() + other.values.size());
  std::set_union(into.values.begin(), into.values.end(), other.values.begin(), other.values.end(), std::back_inserter(merged));
  into.values = std::move(merged);
}

}  // namespace pipeline
