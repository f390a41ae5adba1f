#pragma once
// Stage state: the items of one run plus the features stages compute once and share.
// A Corpus belongs to one run on one thread; stages are plain functions over it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/item.hpp"
#include "model/report.hpp"

namespace pipeline {

using TokenId = std::uint32_t;

// Interns word tokens so that stages compare integers, not strings. Ids are dense and given
// in first-seen order (dedupe's hashes and clustering's seed words depend on them).
class TokenDict {
 public:
  TokenId intern(std::string_view token);
  const std::string& text(TokenId id) const { return words_[id]; }
  std::size_t size() const { return words_.size(); }

  // match_sequence's cache, by a word as folded (before the plural rule): its token and the
  // flags its text alone decides. One lookup for a word instead of a stopword probe, the rule
  // and intern's own; ids never change, so what is cached stays right.
  struct Known {
    TokenId id;
    std::uint16_t flags;
  };
  const Known* known(std::string_view folded) const;
  void remember(std::string_view folded, Known k);

 private:
  // Open addressing with linear probing over a power-of-two table: every word of every title
  // and snippet is looked up here, and std::unordered_map spent two divisions and a scattered
  // node on each lookup. A slot holds an index into words_ (or known_).
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t index = kEmpty;
  };
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  // The slot of the key whose text key_of(index) is `key`, or the empty one where it goes.
  template <typename KeyOf>
  static std::size_t find(const std::vector<Slot>& slots, std::uint32_t hash, std::string_view key, KeyOf key_of);
  static void grow(std::vector<Slot>& slots);
  std::vector<Slot> slots_;
  std::vector<std::string> words_;
  std::vector<Slot> known_slots_;
  std::vector<std::pair<std::string, Known>> known_;
};

// Light normalization shared by topic and items: case-folded, trailing plural 's' dropped.
std::string normalize_token(std::string_view token);
// Sorted, unique, stopwords removed, a name-number pair ("gpt6") added: what dedupe and
// clustering compare. From the words of match_sequence, or from text.
std::vector<TokenId> token_set(std::string_view text, TokenDict& dict);

// One word of an item's text as relevance sees it (core::match_words, interned).
struct MatchWord {
  TokenId id;
  std::uint16_t flags;
  bool glued = false;  // joined to the word before: one identifier ("cve-2025-1234", "1.92.0")
};
// kJoined: part of an identifier (see match_sequence), whose case says nothing.
// kStop: a function word (stopword, kana particle); kIdeograph: one character of a script
// without spaces (it takes about two to make a word); kNumber: digits only.
// kHeadline: the break before is a headline's separator ("Name: details"); kAllCaps: written
// in capitals ("ACL"), which in text whose case means something is an acronym. kBracketed:
// inside ( ) or [ ].
enum MatchFlag : std::uint16_t {
  kUpper = 1,
  kLower = 2,
  kPossessive = 4,
  kBreak = 8,
  kJoined = 16,
  kStop = 32,
  kIdeograph = 64,
  kNumber = 128,
  kHeadline = 256,
  kAllCaps = 512,
  kBracketed = 1024
};
// How the user typed the topic's case: word by word (informative: "Arc browser" names Arc), or
// every word of two or more capitalised (a title: "Rust Force Wipe" says nothing of which words
// are names, though an all-capitals "VPN" among them is still an acronym), or in capitals
// throughout. Where the case says little, a capital is a name only until the corpus writes the
// word in lower case.
enum class TypedCase { informative, title, capitals };
TypedCase typed_case(const std::vector<std::string>& written);

// case_free, when given, says whether the text's case is uninformative (core::case_uninformative).
std::vector<MatchWord> match_sequence(std::string_view text, TokenDict& dict, bool* case_free = nullptr);
std::vector<TokenId> token_set(const std::vector<MatchWord>& words, TokenDict& dict);
// Interns the name-number pairs token_set would add, keeping nothing: token ids are given in
// first-seen order and dedupe's hashes and clustering's seed words depend on them, so a text
// whose token set is no longer kept must still intern what it used to.
void intern_pairs(const std::vector<MatchWord>& words, TokenDict& dict);

// What a title states that a near-duplicate must state alike (facts.cpp): its values (versions,
// numbers, identifiers: "1.92", "2025.1234" of CVE-2025-1234, "6" of GPT-6 / GPT 6 / gpt6, "1234"
// of #1234) and its polarity (how many words of each kind turn it around: not, isn't, fails,
// denies, delayed, fake, without...).
struct Facts {
  std::vector<TokenId> values;  // sorted unique
  std::uint16_t polarity = 0;   // 2 bits per kind of cue
};
Facts title_facts(const std::vector<MatchWord>& words, TokenDict& dict);
// The one rule dedupe and clustering share: the same polarity, and one title's values all
// among the other's (a title may say less, "Rust 1.92" vs "Rust 1.92 (2026)", never otherwise).
bool compatible_facts(const Facts& a, const Facts& b);
// A story states what its members state: values united, polarity kept.
void merge_facts(Facts& into, const Facts& other);

// What relevance found, kept for the "why" line (rerank) and for context feedback.
struct Evidence {
  enum class Phrase : std::uint8_t { none, text, title };
  enum class Conflict : std::uint8_t { none, other_version, other_name, common_word };
  Phrase phrase = Phrase::none;
  Conflict conflict = Conflict::none;
  std::uint8_t terms = 0, matched = 0;  // content terms of the topic, and those found
  std::uint8_t in_title = 0;            // ... found in the title itself
  std::int16_t form = -1;               // Topic::form_names index of a synonym that matched
  std::int16_t context = -1;            // index into Features::context_labels that carried a term
  std::int8_t support = -1;             // context feedback: -1 n/a, 0 none, 1 some, 2 strong
  std::int8_t sense = -1;               // word feedback: -1 n/a, 0 none of the strong matches' words, 1 some, 2 theirs
  bool title_entity = false;            // an entity word of the topic in the title
  bool title_in_order = false;          // the title holds the topic's words close together, in order
  bool context_names_topic = false;     // a label holds the whole topic, or two of its words ("ArcBrowser")
  bool generic_only = false;
  bool mention = false;  // the title names another version or holder of the name first
};

struct Features {
  std::vector<TokenId> title;  // sorted unique
  std::string canonical_url;
  std::vector<MatchWord> title_words;  // in order, for phrases and proximity
  Facts facts;                         // of the title
  std::vector<MatchWord> snippet_words;
  bool title_case_free = false;  // title case or capitals: the case of a word says nothing
  bool snippet_case_free = false;
  // Context labels (subreddit, tags, repository topics, repository): each whole and folded,
  // and their words.
  std::vector<TokenId> context_labels;
  std::vector<std::vector<MatchWord>> context_words;
  std::vector<std::int8_t> context_origin;  // per label: -1 the item's container, k its tags[k]
  double base = 0;                          // score before fusion (0..100)
  double age_days = -1;                     // at the window's end; -1 undated
  bool before_story = false;                // older than the stretch where the topic's strong matches crowd
  bool has_engagement_data = false;
  Evidence evidence;
};

// A generic word's share of the topic's weight: it may confirm, it is not required.
constexpr double kGenericTermWeight = 0.3;

// A word or phrase of the topic and the token sequences that count as it.
struct TopicTerm {
  std::vector<std::vector<TokenId>> forms;  // "zurich", "zuerich"; "東","京"; "tokyo"
  std::vector<bool> weak;                   // parallel: an abbreviation that counts only beside the rest of the topic
  std::vector<std::int16_t> names;          // parallel: Topic::form_names index for a synonym, or -1
  std::vector<bool> lower;                  // forms a synonym writes in lower case (shorter: the rest are not)
  double weight = 1;
  bool connector = false;    // a stopword inside the topic: part of the phrase, not evidence
  bool proper = false;       // typed capitalised: a name, so a lower-case "rose" in a sentence is not it
  bool case_unsure = false;  // ... in a topic whose case says little (TypedCase): the corpus may overrule it
  bool shaped = false;       // shaped like a product's name whatever the case: llama.cpp, k8s, GPT-5, c++
  bool generic = false;
  bool number = false;
  int version_of = -1;  // a number bound to the term before it ("PostgreSQL 19")
};

// A synonym or joined spelling for several adjacent terms ("pg19" for "PostgreSQL 19").
struct SpanForm {
  std::size_t first = 0, last = 0;  // terms covered, inclusive
  std::vector<TokenId> seq;
  bool weak = false;
  std::int16_t name = -1;
};

struct Topic {
  std::string phrase;            // case-folded, whitespace-collapsed
  std::vector<TokenId> tokens;   // non-stopword tokens, sorted unique (clustering ignores them)
  std::vector<bool> generic;     // parallel to tokens
  std::vector<TopicTerm> terms;  // in topic order
  std::vector<SpanForm> spans;
  std::vector<std::string> form_names;  // synonyms as written, for "why"
  double total_weight = 0;              // of the content terms
  std::size_t content_terms = 0;
  std::size_t specific_terms = 0;  // content terms that are not generic
  bool has_entity = false;         // some term is a name, a name-shaped word or a version
};

struct Corpus {
  std::vector<model::Item> items;
  std::vector<Features> features;  // parallel to items
  TokenDict dict;
  Topic topic;
};

// "1998", "2026": four digits, 19xx or 20xx.
bool is_year(std::string_view word);

// The topic's words as written, split at white space.
std::vector<std::string> written_words(std::string_view topic);
// "PostgreSQL-19" -> "PostgreSQL", "19": a name hyphenated to its version, as two words.
std::vector<std::string> spaced_versions(const std::vector<std::string>& words);
// "Kubernetes v1.38" -> "Kubernetes 1.38", "Node v24" -> "Node 24": each version written with
// its prefix after another word (a lower-case "v", a dotted or two-digit number: not "V8").
std::vector<std::string> unprefixed_versions(std::vector<std::string> words);
// The topic as relevance sees it. synonyms: the plan's (built-in table and host-supplied).
Topic analyze_topic(std::string_view topic, TokenDict& dict, const std::vector<model::Synonym>& synonyms = {});
// Words relevance does not count as evidence on their own: core::is_generic plus words that
// name a kind of thing in every field ("model", "server", "performance"...).
bool is_weak_word(std::string_view folded);

// Keeps the parallel vectors in step: removes items where drop[i] is true.
void erase_items(Corpus& c, const std::vector<bool>& drop);
// Reorders both vectors by the permutation (new position -> old index), in place;
// order must hold every index exactly once.
void permute(Corpus& c, const std::vector<std::size_t>& order);
// Keeps only the items `order` lists (new position -> old index, each at most once), in that
// order: erase_items and permute in one move of each item.
void keep_in_order(Corpus& c, std::vector<std::size_t> order);

}  // namespace pipeline
