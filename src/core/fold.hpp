#pragma once
// Text as relevance matching sees it. Feeds write one name many ways: "Zürich", "ZÜRICH",
// TeX "Z\"urich" (arXiv), escaped HTML "Z&uuml;rich" (left over in titles and story text),
// "Zurich". Folding makes them one word; "Zuerich" stays a different spelling (see
// umlaut_spelling). Case is not thrown away: each word remembers how it was written, since a
// lower-case "rose" or "swift" in a sentence is a common word, not the name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// A code point words are made of: a letter, a digit or number, or a combining mark (Unicode
// categories L*, N*, Mn, Mc). Folding and the text helpers split on the rest.
bool word_codepoint(std::int32_t cp);

// TeX accents (\"u, {\'e}, \c{c}, \ss) and HTML entities decoded, compatibility forms
// unified, accents stripped, case folded, and the letters without a decomposition spelled
// out (ø o, æ ae, œ oe, ß ss, ł l, đ d, þ th, ı i). Valid UTF-8 out for any input.
std::string fold_for_match(std::string_view text);

// How a word was written and where it stands; Word adds its folded text.
struct WordShape {
  bool upper = false;           // first letter written upper-case
  bool lower = false;           // first letter written lower-case (neither: digits, CJK)
  bool possessive = false;      // written "Rose's": a name ends here
  bool clause_break = false;    // a separator (: ; | ! ? brackets quotes dashes, a sentence end) precedes it
  bool headline_break = false;  // ... and it is a headline's separator (: | dashes), as in "Name: details"
  bool all_caps = false;        // two or more letters, all capitals ("ACL", "GDL"), in ASCII
  bool ideograph = false;       // one character of a script written without spaces (Han, kana)
  bool joined = false;          // part of an identifier: "tokio-rs/tokio", "llama.cpp", "force-wipe"
  bool glued = false;           // ... joined to the word before it ("rs" and the second "tokio" above)
  char joiner = '\0';           // ... by this character: '-' '/' '_' or '.'
  bool kana = false;            // one hiragana character: mostly particles (の, で, は), the script's function words
  bool bracketed = false;       // inside ( ) or [ ]: "Tokenizer-free translation (ACL 2026)"
};

struct Word : WordShape {
  std::string text;  // folded
};

// Words in order. "llama.cpp" and "19.1" split at the dot, "force-wipe" at the hyphen, with no
// break between; "c++" and "c#" stay whole; Han and kana come one character per word, so a
// phrase of them matches inside a run ("東京湾で" holds "東京").
std::vector<Word> match_words(std::string_view text);

// The same words with their folded text back to back in one buffer, not a std::string each:
// the pipeline runs this on every title and snippet, into a list it reuses (cleared first).
struct WordList {
  struct Entry : WordShape {
    std::uint32_t at = 0, size = 0;  // the folded text: text[at, at + size)
  };
  std::string text;
  std::vector<Entry> words;
  std::string_view text_of(const Entry& w) const { return {text.data() + w.at, w.size}; }
};
void match_words(std::string_view text, WordList& out);

// A word match_words made of one character of a script without spaces.
bool is_ideograph_word(std::string_view folded);

// True when the words are mostly capitalised ("Kevin Rose Relaunches Digg") or all
// capitals: there the case of a word says nothing about whether it is a name.
bool case_uninformative(const std::vector<Word>& words);
bool case_uninformative(const WordList& words);

// Ranking mechanisms switched off for a measurement: L30_ABLATE="sense,stem" (the eval's
// per-mechanism table runs the same binary with and without each). Read once per process.
bool ablated(std::string_view mechanism);

// The Snowball English stem of a folded word ("migrating", "migrated" -> "migrat"); the word
// itself when it has no letters to stem. One stemmer per thread.
std::string english_stem(std::string_view folded);

// German ä/ö/ü written ae/oe/ue ("Zürich" -> "zuerich"), folded; nullopt when the word
// has none of them.
std::optional<std::string> umlaut_spelling(std::string_view word);

}  // namespace core
