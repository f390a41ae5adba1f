#include "pipeline/plan.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "core/fold.hpp"
#include "core/json.hpp"
#include "core/json_fields.hpp"
#include "core/text.hpp"
#include "pipeline/corpus.hpp"
#include "sources/source.hpp"

namespace pipeline {

int max_sub_queries(model::Depth depth) {
  switch (depth) {
    case model::Depth::quick: return 2;
    case model::Depth::standard: return 3;
    case model::Depth::deep: return 5;
  }
  return 3;
}

namespace {

constexpr std::size_t kMaxSynonymTerms = 20, kMaxAlternatives = 10, kMaxSynonymChars = 100;

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Splits "a vs b", "a versus b", "a or b" comparisons.
std::vector<std::string> comparison_sides(const std::vector<std::string>& words) {
  for (std::size_t i = 1; i + 1 < words.size(); ++i) {
    if (words[i] == "vs" || words[i] == "versus" || words[i] == "v") {
      return {join({words.begin(), words.begin() + static_cast<long>(i)}),
              join({words.begin() + static_cast<long>(i) + 1, words.end()})};
    }
  }
  return {};
}

// A question mark ends the typed sentence, not the subject: "Rep. Adam Smith?" is searched as
// "Rep. Adam Smith" (a platform may read it as a word's, or as a wildcard).
// A topic of question marks alone stays as typed: nothing else is left to ask.
std::string without_question_mark(std::string text) {
  const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  std::string_view inner(text);
  if (quoted) inner = inner.substr(1, inner.size() - 2);
  while (!inner.empty() && (inner.back() == '?' || inner.back() == ' ')) inner.remove_suffix(1);
  if (inner.empty()) return text;
  return quoted ? "\"" + std::string(inner) + "\"" : std::string(inner);
}

void add_unique(model::Plan& p, std::string text, double weight, int cap) {
  text = without_question_mark(core::collapse_whitespace(text));
  if (text.empty() || static_cast<int>(p.sub_queries.size()) >= cap) return;
  for (const auto& q : p.sub_queries)
    if (core::casefold(q.text) == core::casefold(text)) return;
  p.sub_queries.push_back({text, weight});
}

// Names people write several ways. Small on purpose: a host agent supplies the rest
// through --plan "synonyms". One- to three-letter entries are abbreviations (model::Synonym).
const std::vector<std::vector<std::string_view>>& synonym_table() {
  static const std::vector<std::vector<std::string_view>> kGroups{
      {"PostgreSQL", "Postgres", "PG"},
      {"Kubernetes", "K8s"},
      {"JavaScript", "JS"},
      {"TypeScript", "TS"},
      {"Golang", "Go"},
      {"WebAssembly", "Wasm"},
      {"Visual Studio Code", "VS Code", "VSCode"},
      {"Amazon Web Services", "AWS"},
      {"Google Cloud Platform", "GCP"},
      {"large language model", "LLM"},
      // Written so in the plural ("diffusion LLMs"); as a spelling, not an abbreviation: "LLM"
      // alone is also a law degree.
      {"language models", "LLMs"},
      {"machine learning", "ML"},
      {"New York City", "NYC"},
      {"United Kingdom", "UK"},
      {"European Union", "EU"},
  };
  return kGroups;
}

std::string folded_words(std::string_view text) {
  std::string out;
  for (const auto& w : core::match_words(text)) out += (out.empty() ? "" : " ") + w.text;
  return out;
}

// The same, each word without its plural "s" (normalize_token): the table's "language model"
// is in "diffusion language models".
std::string singular_words(std::string_view text) {
  std::string out;
  for (const auto& w : core::match_words(text)) out += (out.empty() ? "" : " ") + normalize_token(w.text);
  return out;
}

// Where `phrase` occurs in the topic's words, as [first, last) word indices.
std::optional<std::pair<std::size_t, std::size_t>> find_words(const std::vector<std::string>& topic_words,
                                                              std::string_view phrase) {
  const std::string key = singular_words(phrase);
  if (key.empty()) return std::nullopt;
  for (std::size_t a = 0; a < topic_words.size(); ++a) {
    std::string run;
    for (std::size_t b = a; b < topic_words.size() && run.size() < key.size(); ++b) {
      run += (run.empty() ? "" : " ") + singular_words(topic_words[b]);
      if (run == key) return std::make_pair(a, b + 1);
    }
  }
  return std::nullopt;
}

bool is_abbreviation(std::string_view s) {
  return s.size() <= 3 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

bool is_number(std::string_view w) {
  const auto f = folded_words(w);
  return !f.empty() && std::all_of(f.begin(), f.end(), [](char c) { return (c >= '0' && c <= '9') || c == ' '; });
}

std::string join_range(const std::vector<std::string>& words, std::size_t a, std::size_t b) {
  std::string out;
  for (std::size_t i = a; i < b; ++i) out += (out.empty() ? "" : " ") + words[i];
  return out;
}

// Sub-queries that write the topic the other ways: every term in its first other spelling at
// once ("Tokyo earthquake" for "東京 地震"), then one term at a time ("Postgres 19"), then
// abbreviations joined to the version that follows them ("PG19"; spaced too on deep runs),
// then the remaining spellings. A host's own spellings are all asked, up to a deep run's count
// (not on quick runs): the host named them because the topic is written that way ("Y2038",
// "2038 bug", "Epochalypse"), and a spelling left unasked is a story never fetched.
void add_spellings(model::Plan& p, const std::vector<std::string>& words, model::Depth depth, int cap) {
  const int host_cap = depth == model::Depth::quick ? cap : std::max(cap, max_sub_queries(model::Depth::deep));
  const auto cap_of = [&](const model::Synonym& syn) { return syn.from_host ? host_cap : cap; };
  struct Found {
    std::size_t a, b;
    const model::Synonym* syn;
  };
  std::vector<Found> found;
  for (const auto& syn : p.synonyms)
    if (const auto at = find_words(words, syn.term)) found.push_back({at->first, at->second, &syn});
  std::sort(found.begin(), found.end(), [](const Found& x, const Found& y) { return x.a < y.a; });
  const auto first_full = [](const model::Synonym& syn) -> const std::string* {
    for (const auto& alt : syn.alternatives)
      if (!is_abbreviation(alt)) return &alt;
    return nullptr;
  };
  if (found.size() >= 2) {
    std::string all;
    std::size_t at = 0;
    for (const auto& f : found) {
      if (f.a < at) continue;  // overlapping entries: the first wins
      const std::string* alt = first_full(*f.syn);
      all += " " + join_range(words, at, f.a) + " " + (alt ? *alt : join_range(words, f.a, f.b));
      at = f.b;
    }
    add_unique(p, all + " " + join_range(words, at, words.size()), 0.9, cap);
  }
  const auto replace = [&](const Found& f, const std::string& with, std::size_t b) {
    return join_range(words, 0, f.a) + " " + with + " " + join_range(words, b, words.size());
  };
  for (const auto& f : found)
    if (const std::string* alt = first_full(*f.syn)) add_unique(p, replace(f, *alt, f.b), 0.9, cap_of(*f.syn));
  for (const auto& f : found) {
    const bool version_follows = f.b < words.size() && is_number(words[f.b]);
    if (!version_follows) continue;
    for (const auto& alt : f.syn->alternatives) {
      if (!is_abbreviation(alt)) continue;
      add_unique(p, replace(f, alt + words[f.b], f.b + 1), 0.8, cap_of(*f.syn));
      if (depth == model::Depth::deep) add_unique(p, replace(f, alt, f.b), 0.7, cap_of(*f.syn));
    }
  }
  for (const auto& f : found)
    for (const auto& alt : f.syn->alternatives)
      if (!is_abbreviation(alt)) add_unique(p, replace(f, alt, f.b), 0.8, cap_of(*f.syn));
}

// ---- the topic's parts: what a literal search needs and what it may leave out ----------
//
// Platforms' searches hold every query word, so each word of the topic is a filter: a
// qualifier ("app", "outage", "elderly parents"), a title ("Rep."), a question's frame ("how
// do I") or its task verb ("reduce") empties the result of every story that does not repeat
// it. The planner splits the topic into name units (the entities: capitalised or shaped words
// with their numbers) and qualifier phrases (lower-case words), by how the topic is written,
// and asks for the parts too; relevance, not the query, then decides the sense.

enum class Kind { stop, number, title, name, common };

struct Token {
  std::string raw;
  Kind kind = Kind::common;
  bool ident = false;       // letters and digits in one word: "CVE-2026-31790", "go1.26", "9front"
  bool inner_caps = false;  // a capital after the first letter: "QUICbleed", "PyO3", "iPhone"
  bool acronym = false;     // all capitals, two or more letters: "ACL", "RTX"
  int letters = 0;
};

// One unit of the topic: a name with its numbers, or a phrase of common words.
struct Unit {
  std::vector<std::string> words;  // as written
  bool name = false;
  bool distinct = false;    // specific enough to be searched alone
  bool after_stop = false;  // a function word stands before it: "Postgres to MySQL" are two things
  std::string text() const { return join(words); }
};

struct Parts {
  std::string core;              // the topic without a question's frame and task verb
  std::vector<Unit> names;       // in order
  std::vector<Unit> qualifiers;  // common-word phrases and titles, in order
  bool question = false;
};

// "how", "what", ...: a question. "can", "is", "will", ...: only with a question mark ("CAN
// bus protocol" is not one).
bool opens_question(const std::vector<std::string>& written) {
  static const std::set<std::string_view> kWh{"how", "what", "why", "which", "where", "when", "who"};
  static const std::set<std::string_view> kAux{"can", "should", "is", "are", "does", "do", "could", "would", "will"};
  if (written.size() < 3) return false;
  const std::string first = folded_words(written[0]);
  if (kAux.count(first)) return written.back().back() == '?';
  if (!kWh.count(first)) return false;
  // Every word capitalised is a title ("How I Met Your Mother"), not a question; a title's
  // first word is, "what is Kubernetes 1.38" is a question.
  const auto opening = core::match_words(written[0]);
  if (!opening.empty() && opening[0].lower) return true;
  return !std::all_of(written.begin(), written.end(), [](const std::string& w) {
    const auto parts = core::match_words(w);
    return parts.empty() || !parts[0].lower || core::is_stopword(parts[0].text);
  });
}

Token classify(const std::string& raw) {
  Token t;
  t.raw = raw;
  const auto parts = core::match_words(raw);
  if (parts.empty() || std::all_of(parts.begin(), parts.end(), [](const core::Word& w) { return core::is_stopword(w.text); })) {
    t.kind = Kind::stop;
    return t;
  }
  if (is_number(raw)) {
    t.kind = Kind::number;
    return t;
  }
  bool digit = false, caseless = false, first = true, upper_all = true;
  int uppers_after_first = 0;
  for (const auto& w : parts) caseless |= !w.upper && !w.lower;
  for (char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isdigit(u)) digit = true;
    if (!std::isalpha(u)) continue;
    ++t.letters;
    if (!first && std::isupper(u)) ++uppers_after_first;
    if (!std::isupper(u)) upper_all = false;
    first = false;
  }
  t.ident = digit && t.letters > 0;
  t.acronym = upper_all && t.letters >= 2;
  t.inner_caps = !t.acronym && uppers_after_first > 0;
  const bool shaped = raw.find_first_of("+#") != std::string::npos || (parts.size() > 1 && parts[0].lower);  // llama.cpp, c++
  // "Rep.", "Dr.", "Sen.", also typed in lower case ("rep. adam smith"): a topic is no sentence,
  // so a short word with a period is an abbreviation.
  if (parts.size() == 1 && (parts[0].upper || parts[0].lower) && raw.back() == '.' && t.letters <= 4 && !digit)
    t.kind = Kind::title;
  else if (parts[0].upper || t.ident || t.inner_caps || shaped || caseless) t.kind = Kind::name;
  else t.kind = Kind::common;
  return t;
}

// The words as the platforms' literal searches need them: a version without its prefix
// ("v1.38" -> "1.38") and a name without its possessive ("Tim Cook's" -> "Tim Cook": a search
// for "cook's" misses every "Cook"). Not the same search, so the topic as typed is asked too.
std::vector<std::string> plain_forms(const std::vector<std::string>& written) {
  static const bool possessives = !core::ablated("possessive");
  auto words = unprefixed_versions(written);
  if (possessives)
    for (auto& w : words)
      for (std::string_view mark : {"'s", "\u2019s"}) {
        // "Tim Cook's", "TypeScript 7's" (a version's possessive too)
        const std::size_t min_owner = w[0] >= '0' && w[0] <= '9' ? 1 : 2;
        if (w.size() < mark.size() + min_owner || !std::string_view(w).ends_with(mark)) continue;
        const std::string owner = w.substr(0, w.size() - mark.size());
        if (!core::is_stopword(folded_words(owner))) w = owner;  // not "let's", "it's", "what's"
        break;
      }
  return words;
}

// The words as the planner reads their case. A topic typed in capitals throughout says nothing
// by its case ("SIGNAL APP" is not two acronyms), nor does a question typed in Title Case ("How
// To Set Up Passkeys For Elderly Parents"): both are read in lower case, a Title-Case question's
// all-capitals words ("VPN") kept. A Title-Case topic that is no question is read as typed:
// "Rep. Adam Smith", "Tesla Semi" are names.
std::vector<std::string> case_reading(const std::vector<std::string>& written) {
  const TypedCase typed = typed_case(written);
  if (typed == TypedCase::informative) return written;
  const bool how = written.size() >= 3 && folded_words(written[0]) == "how" && [&] {
    static const std::set<std::string_view> kFrame{"to", "do", "does", "can", "should", "could", "would"};
    return kFrame.count(folded_words(written[1])) > 0;
  }();
  if (typed == TypedCase::title && !how) return written;
  std::vector<std::string> out;
  for (const auto& w : written) {
    const auto parts = core::match_words(w);
    const bool acronym = typed == TypedCase::title && !parts.empty() && parts[0].all_caps;
    out.push_back(acronym ? w : core::lower_ascii(w));
  }
  return out;
}

Parts topic_parts(const std::vector<std::string>& written_as_typed) {
  const std::vector<std::string> written = case_reading(written_as_typed);  // versions already unprefixed
  Parts out;
  std::vector<Token> toks;
  for (const auto& raw : written) toks.push_back(classify(raw));
  std::size_t start = 0;
  // A question's frame ("how do I", "what is the") and, after "how", its task verb ("reduce",
  // "set up"): a story about the answer rarely repeats them.
  if (opens_question(written)) {
    out.question = true;
    while (start < toks.size() && toks[start].kind == Kind::stop) ++start;
    // A frame ending in its subject or "to" ("how do I", "how to", "can we") is followed by the
    // task's verb; "what are diffusion models" is followed by the subject itself.
    const std::string last = start > 0 ? folded_words(toks[start - 1].raw) : "";
    const bool verb_follows = last == "i" || last == "we" || last == "you" || last == "to";
    if (verb_follows && start + 1 < toks.size() && toks[start].kind == Kind::common) ++start;
    if (!toks.back().raw.empty() && toks.back().raw.back() == '?') toks.back().raw.pop_back();
  }
  std::vector<std::string> core_words;
  for (std::size_t i = start; i < toks.size(); ++i)
    if (toks[i].kind != Kind::stop) core_words.push_back(toks[i].raw);
  out.core = join(core_words);

  std::vector<Unit> units;
  bool open = false;     // the last unit may grow
  bool stopped = false;  // a function word since the last unit began
  for (std::size_t i = start; i < toks.size(); ++i) {
    const Token& t = toks[i];
    const std::size_t before = units.size();
    switch (t.kind) {
      case Kind::stop: open = false, stopped = true; break;
      case Kind::number:
        if (open) units.back().words.push_back(t.raw);  // its version or year: "Go 1.26", "year 2038"
        else units.push_back({{t.raw}, false, false}), open = true;
        break;
      case Kind::title:
        // "Rep. Adam Smith": a title before a name is a qualifier, not part of the name; and what
        // follows it is a name however it is typed ("rep. adam smith").
        if (i + 1 < toks.size() && (toks[i + 1].kind == Kind::name || toks[i + 1].kind == Kind::common)) {
          out.qualifiers.push_back({{t.raw}, false, false}), open = false;
          for (std::size_t j = i + 1; j < toks.size() && toks[j].kind == Kind::common; ++j) toks[j].kind = Kind::name;
        } else {
          units.push_back({{t.raw}, true, false}), open = true;
        }
        break;
      case Kind::name:
        if (t.ident || !open || !units.back().name) {
          units.push_back({{t.raw}, true, false});
          open = !t.ident;  // an identifier stands alone: "QUICbleed CVE-2026-31790" is two things
        } else {
          units.back().words.push_back(t.raw);
        }
        break;
      case Kind::common:
        if (open && !units.back().name) units.back().words.push_back(t.raw);
        else units.push_back({{t.raw}, false, false}), open = true;
        break;
    }
    if (units.size() > before) units.back().after_stop = stopped && before > 0, stopped = false;
  }
  for (auto& u : units) {
    if (u.name) {
      const Token first = classify(u.words[0]);
      u.distinct = u.words.size() >= 2 || (first.ident && first.raw.size() >= 5) || first.inner_caps;
      out.names.push_back(std::move(u));
    } else {
      out.qualifiers.push_back(std::move(u));
    }
  }
  // A question typed in lower case: its first phrase after the task verb is what it is about
  // ("passkeys" in "how to set up passkeys for elderly parents").
  if (out.names.empty() && out.question && out.qualifiers.size() >= 2) {
    out.names.push_back(std::move(out.qualifiers.front()));
    out.qualifiers.erase(out.qualifiers.begin());
    out.names.back().name = true;
  }
  return out;
}

bool weak_unit(const Unit& u) {
  return std::all_of(u.words.begin(), u.words.end(), [](const std::string& w) {
    const auto parts = core::match_words(w);
    return std::all_of(parts.begin(), parts.end(),
                       [](const core::Word& x) { return is_weak_word(x.text) || core::is_stopword(x.text); });
  });
}

// "ACL 2026" -> "ACL2026", "Go 1.26" -> "Go1.26", "Swift 6" -> "Swift6": a one-word name is
// often written joined to its year or version (hashtags, toolchains, repository names, tags).
std::optional<std::string> joined_form(const Unit& u) {
  if (!u.name || u.words.size() != 2 || !is_number(u.words[1])) return std::nullopt;
  const Token name = classify(u.words[0]);
  if (name.kind != Kind::name || name.ident) return std::nullopt;
  return u.words[0] + u.words[1];
}

// "diffusion language models" -> "... model": a regular plural written in lower case.
std::optional<std::string> singular(const std::string& w) {
  const auto parts = core::match_words(w);
  if (parts.size() != 1 || !parts[0].lower || w.size() < 4 || w.back() != 's') return std::nullopt;
  const std::string_view v(w);
  if (v.ends_with("ss") || v.ends_with("us") || v.ends_with("is")) return std::nullopt;
  if (v.ends_with("ies")) return std::string(v.substr(0, v.size() - 3)) + "y";
  return std::string(v.substr(0, v.size() - 1));
}

bool has_head(const Parts& parts) { return parts.names.size() == 1 && !parts.qualifiers.empty() && !weak_unit(parts.names[0]); }

// The head entity without its qualifiers: "Signal" for "Signal app", "Adam Smith" for "Rep.
// Adam Smith", "Kubernetes 1.38" for "Kubernetes 1.38 controversy". Asked before the topic's
// other spellings: a qualifier filters out more stories than a spelling brings in.
void add_head(model::Plan& p, const Parts& parts, int cap) {
  if (has_head(parts)) add_unique(p, parts.names[0].text(), 0.7, cap);
}

// A year at the topic's end dates the question more often than it names an edition: "Steam
// Machine 2026" is mostly written without it ("ACL 2026" is not, and is asked too).
// The topic without a year at its end (and the function word before it: "Steam Machine in
// 2026"); the topic itself when there is none.
std::vector<std::string> undated_words(const std::vector<std::string>& written) {
  if (written.size() < 2 || !is_year(written.back())) return written;
  auto end = written.end() - 1;
  while (end != written.begin() && core::is_stopword(folded_words(*(end - 1)))) --end;
  return end == written.begin() ? written : std::vector<std::string>(written.begin(), end);
}

void add_undated(model::Plan& p, const std::vector<std::string>& written, int cap) {
  // As much the question as the topic typed: the year only dates it (an edition's items hold
  // both forms, and relevance keeps its year).
  const auto undated = undated_words(written);
  if (undated.size() < written.size()) add_unique(p, join(undated), 1.0, cap);
}

// The sub-queries that reach what the topic as typed misses, most useful first.
void add_parts(model::Plan& p, const Parts& parts, const std::vector<std::string>& written, int cap) {
  for (const auto& u : parts.names)
    if (auto j = joined_form(u)) add_unique(p, *j, 0.5, cap);
  if (has_head(parts)) {
    const Unit& head = parts.names[0];
    // The head with each qualifier's own head noun (the last word of an English compound):
    // "passkeys parents", "Washington wage".
    for (const auto& q : parts.qualifiers)
      if (q.words.size() >= 2 || parts.qualifiers.size() >= 2) add_unique(p, head.text() + " " + q.words.back(), 0.6, cap);
  } else if (parts.names.size() >= 2) {
    std::vector<std::string> all;
    for (const auto& u : parts.names) all.insert(all.end(), u.words.begin(), u.words.end());
    add_unique(p, join(all), 0.8, cap);  // "Python Rust" for "Python with Rust", "migrate X to Y"
    // Names side by side are two names of one thing ("QUICbleed CVE-2026-31790"): each alone.
    // Names a word apart ("Postgres to MySQL") are different things: never one alone.
    const bool apposed = std::none_of(parts.names.begin(), parts.names.end(), [](const Unit& u) { return u.after_stop; });
    for (const auto& u : parts.names)
      if (apposed && u.distinct) add_unique(p, u.text(), 0.7, cap);
  }
  // "Zürich" -> "Zuerich": the platforms fold accents but do not transliterate.
  for (std::size_t i = 0; i < written.size(); ++i)
    if (auto alt = core::umlaut_spelling(written[i])) {
      std::vector<std::string> w = written;
      w[i] = *alt;
      add_unique(p, join(w), 0.5, cap);
    }
  if (!written.empty())
    if (auto one = singular(written.back()); one && written.size() >= 2) {
      std::vector<std::string> w(written.begin(), written.end() - 1);
      w.push_back(*one);
      add_unique(p, join(w), 0.7, cap);
    }
}

}  // namespace

std::vector<model::Synonym> table_synonyms(std::string_view topic) {
  const auto words = written_words(topic);
  std::vector<model::Synonym> out;
  for (const auto& group : synonym_table()) {
    for (const auto& name : group) {
      const auto at = find_words(words, name);
      if (!at) continue;
      model::Synonym syn;
      syn.term = join_range(words, at->first, at->second);
      for (const auto& other : group)
        if (other != name) syn.alternatives.emplace_back(other);
      out.push_back(std::move(syn));
      break;
    }
  }
  return out;
}

std::span<const std::string_view> plan_intents() {
  static constexpr std::string_view kIntents[] = {"comparison", "howto", "prediction", "research", "product", "news"};
  return kIntents;
}

namespace {

// Words that say what the user asks for rather than what about: the run already brings the
// window's news and talk, newest first. A platform's search holds every query word, so
// "Kubernetes 1.38 news" would return only the stories that say "news". Read at the topic's
// ends only, in lower case ("Fox News" is a name): the asking, at either end; a platform's name
// after the subject ("Steam Machine reddit": every source is asked anyway); a question's
// opening about talk ("what are people saying about", "thoughts on", "what's new with").
enum class Asking { no, either_end, trailing, talk, who };  // who: only inside a question about talk

Asking asking(std::string_view folded) {
  static const std::set<std::string_view> kEither{
      "news", "latest", "newest", "recent", "recently", "today", "updates", "thoughts", "developments", "discussion",
      "discussions", "opinions", "reactions", "reaction", "announcement", "announcements", "recap", "roundup", "buzz", "chatter",
      "sentiment", "commentary", "headlines", "tldr", "overview", "rundown",
      // the same in the languages the folding covers
      "aktuell", "neuigkeiten", "nachrichten", "noticias", "novedades", "nouvelles", "notizie"};
  static const std::set<std::string_view> kPlatforms{"reddit", "twitter", "bluesky", "youtube"};
  static const std::set<std::string_view> kTalk{"saying",    "say",      "think", "thinking", "talking",
                                                "happening", "happened", "tell",  "going"};
  static const std::set<std::string_view> kWho{"people", "everyone", "anyone", "me", "whats", "anything", "something"};
  if (kEither.count(folded)) return Asking::either_end;
  if (kPlatforms.count(folded)) return Asking::trailing;
  if (kTalk.count(folded)) return Asking::talk;
  if (kWho.count(folded)) return Asking::who;
  return Asking::no;
}

// As typed, lower case only; not "top", "best", "popular", "major": names open with them ("top
// gear", "best buy", "major league baseball", typed in lower case).
bool superlative(std::string_view typed) { return typed == "hottest" || typed == "biggest"; }

bool period_word(std::string_view folded) { return folded == "week" || folded == "month" || folded == "year"; }
bool periods_word(std::string_view folded) {
  return folded == "hours" || folded == "days" || folded == "weeks" || folded == "months";
}

}  // namespace

std::string subject_of(std::string_view topic) {
  static const bool off = core::ablated("request-words");
  const auto typed = written_words(topic);
  if (off || typed.empty()) return std::string(topic);
  const auto read = case_reading(typed);
  const std::size_t n = typed.size();
  std::vector<Asking> ask(n, Asking::no);
  std::vector<bool> stop(n, false);
  const std::string opening = core::lower_ascii(read[0]);
  const bool title_case = typed_case(typed) == TypedCase::title;
  for (std::size_t i = 0; i < n; ++i) {
    const auto parts = core::match_words(read[i]);
    if (parts.empty()) stop[i] = true;  // "&", "-": punctuation joins like a function word
    if (parts.size() != 1 || parts[0].all_caps || (!parts[0].lower && !parts[0].upper)) continue;
    const std::string& f = parts[0].text;
    const Asking kind = asking(f);
    const bool function_word = core::is_stopword(f);
    // A sentence's capital says nothing of a name: "What's new with Bun", "Latest on Bun" (but
    // "News Corp", "Today Show" are names).
    const bool opening_word = function_word || kind == Asking::talk || kind == Asking::who || f == "latest" || f == "recent" ||
                              f == "thoughts" || f == "opinions";
    // In Title Case every capital is unsure: an asking word ending three or more words is one
    // ("Steam Machine News"); ending two it may be a name's ("Fox News").
    const bool titled_end = title_case && i + 1 == n && i >= 2 && kind != Asking::no;
    if (!parts[0].lower && !(i == 0 && opening_word) && !titled_end) continue;
    stop[i] = function_word;
    ask[i] = kind;
    // "what's new with", "anything new on": news again ("new" alone opens "new york").
    if (f == "new" && i > 0 && i <= 2 &&
        (opening == "what's" || opening == "whats" || opening == "what" || opening == "anything" || opening == "something"))
      ask[i] = Asking::talk;
    // "about X", "regarding X": what a request says before its subject.
    if (i == 0 && n >= 2 && parts[0].lower && (f == "about" || f == "regarding" || f == "concerning"))
      ask[i] = Asking::either_end;
    // A leading article typed in lower case ("the Steam Machine"; not "The Verge"): a
    // platform's search may require it.
    if (i == 0 && n >= 2 && parts[0].lower && (f == "the" || f == "a" || f == "an")) ask[i] = Asking::either_end;
    // "give me the latest on", "catch me up on", "tell me about": a request to the tool.
    const std::string after = i + 1 < n ? core::lower_ascii(read[i + 1]) : "";
    if (i == 0 && (f == "give" || f == "catch" || f == "show" || f == "summarize" || f == "summarise") &&
        (after == "me" || after == "us" || f.starts_with("summar")))
      ask[i] = Asking::talk;
    // "summary of X" (but "executive summary" is a subject).
    if (i == 0 && n >= 3 && f == "summary" && after == "of") ask[i] = Asking::either_end;
    // "info on X", "anything about X": a request to the tool ("anything" alone asks nothing).
    if (i == 0 && n >= 3 && (f == "info" || f == "information" || f == "anything" || f == "everything") &&
        (after == "on" || after == "about"))
      ask[i] = Asking::talk;
    // "this week", "past month", "the last 30 days", "past few weeks"; "hot takes"
    const std::string before = i > 0 ? core::lower_ascii(read[i - 1]) : "";
    const std::string before2 = i > 1 ? core::lower_ascii(read[i - 2]) : "";
    const auto recent = [](const std::string& w) { return w == "this" || w == "last" || w == "past"; };
    if (period_word(f) && recent(before)) ask[i - 1] = ask[i] = Asking::either_end;
    if (periods_word(f) && recent(before2) && (before == "few" || is_number(read[i - 1])))
      ask[i - 2] = ask[i - 1] = ask[i] = Asking::either_end;
    if ((f == "takes" && before == "hot") || (f == "opinions" && before == "hot")) ask[i - 1] = ask[i] = Asking::either_end;
    // After the subject: "... on hacker news", "... on hn", "...: what happened".
    if (i + 1 == n && i >= 2 && ((f == "news" && before == "hacker") || (f == "hn" && before == "on")))
      ask[i - 1] = ask[i] = Asking::trailing;
    // "... hn" as "... reddit" (but "show hn", "ask hn" are Hacker News's own kinds of post).
    if (i + 1 == n && i >= 1 && f == "hn" && before != "on" && before != "show" && before != "ask" && before != "launch" &&
        before != "tell")
      ask[i] = Asking::trailing;
    if (i + 1 == n && i >= 2 && f == "happened" && before == "what") ask[i - 1] = ask[i] = Asking::either_end;
  }
  // A talk word opens a request only to the tool ("tell me about"): "thinking machines lab",
  // "saying goodbye to windows 10", "going concern" are subjects.
  if (n >= 2 && ask[0] == Asking::talk) {
    const std::string second = core::lower_ascii(read[1]);
    const std::string first = core::lower_ascii(read[0]);
    const bool request = second == "me" || second == "us" || first.starts_with("summar") || second == "on" || second == "about";
    if (!request) ask[0] = Asking::no;
  }
  const auto question_at = [&](std::size_t k) { return opens_question({typed.begin() + static_cast<long>(k), typed.end()}); };
  // The run of asking and function words at each end goes, when it holds some asking; the
  // opening stops where a question about the subject begins ("latest: how do I ...").
  std::size_t a = 0, b = n;
  bool lead = false, trail = false, talk = false;
  while (a < n && !(talk && question_at(a)) &&
         (stop[a] || ask[a] == Asking::either_end || ask[a] == Asking::talk || ask[a] == Asking::who))
    talk |= ask[a] == Asking::talk, ++a;
  if (!talk) {  // not a question about talk: one about the subject may follow the asking
    a = 0;
    while (a < n && !question_at(a) && (stop[a] || ask[a] == Asking::either_end)) lead |= ask[a] != Asking::no, ++a;
    if (!lead) a = 0;
  }
  lead |= talk;
  // A year among the asking at the end stays, dating the subject: "X news 2026" -> "X 2026".
  std::vector<std::string> years;
  while (b > a && (stop[b - 1] || ask[b - 1] == Asking::either_end || ask[b - 1] == Asking::trailing || is_year(typed[b - 1]))) {
    if (is_year(typed[b - 1])) years.insert(years.begin(), typed[b - 1]);
    trail |= ask[b - 1] != Asking::no, --b;
  }
  if (!trail) b = n, years.clear();
  // With asking at the end, a superlative at the start asks too: "hottest Zig 1.0 news",
  // "biggest Rust news this week".
  if (trail && a == 0 && b > 1 && superlative(typed[0])) {
    a = 1;
    while (a < b && stop[a] && !question_at(a)) ++a;
  }
  const bool content =
      std::any_of(stop.begin() + static_cast<long>(a), stop.begin() + static_cast<long>(b), [](bool st) { return !st; });
  if ((!lead && !trail) || !content) return std::string(topic);
  std::vector<std::string> kept(typed.begin() + static_cast<long>(a), typed.begin() + static_cast<long>(b));
  // The separator before the asking goes with it: "Steam Machine: what happened".
  while (!kept.back().empty() && std::string_view(":,;").find(kept.back().back()) != std::string_view::npos)
    kept.back().pop_back();
  kept.insert(kept.end(), years.begin(), years.end());
  return join(kept);
}

model::Plan make_plan(std::string_view topic_in, model::Depth depth, std::vector<model::Synonym> host_synonyms) {
  const std::string topic = join(spaced_versions(written_words(core::collapse_whitespace(topic_in))));
  const auto words = core::tokenize(topic);
  const std::string folded = core::casefold(topic);
  model::Plan p;
  const auto sides = comparison_sides(words);
  const auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  if (!sides.empty()) p.intent = "comparison";
  else if (folded.rfind("how ", 0) == 0 || has("tutorial") || has("error") || has("fix")) p.intent = "howto";
  else if (has("will") || has("odds") || has("election") || has("prediction") || has("forecast")) p.intent = "prediction";
  else if (has("paper") || has("papers") || has("research") || has("arxiv") || has("benchmark")) p.intent = "research";
  else if (has("launch") || has("release") || has("pricing") || has("review")) p.intent = "product";
  else p.intent = "news", p.intent_open = true;
  p.synonyms = merge_synonyms(std::move(host_synonyms), table_synonyms(topic));

  const int cap = max_sub_queries(depth) + (sides.empty() ? 0 : 1);
  const Parts split = topic_parts(plain_forms(written_words(topic)));
  // A question is asked without its frame: "how do I reduce Docker image size" holds words
  // no answer repeats. The topic as typed stays first otherwise (GitHub's keyless issue
  // search and the newest-first HN search use only the first sub-query).
  const std::string first = split.question && !split.core.empty() ? split.core : topic;
  add_unique(p, first, 1.0, cap);
  for (const auto& side : sides) add_unique(p, side, 0.8, cap);
  // "Kubernetes v1.38" is mostly written "Kubernetes 1.38", "Tim Cook's" "Tim Cook": that is
  // asked next, and the spellings and parts are made from it.
  const auto as_typed = written_words(first);
  const auto written = plain_forms(as_typed);
  if (written != as_typed) add_unique(p, join(written), 0.9, cap);
  if (sides.empty()) add_head(p, split, cap);
  if (!core::ablated("dated-year")) add_undated(p, written, cap);
  // Spelled the other ways without the year: "Postgres 19", not "Postgres 19 2026" (a story
  // rarely dates its subject; an edition's joined form, "ACL2026", is one of the parts below).
  static const bool undated_spellings = !core::ablated("undated-spellings");
  add_spellings(p, undated_spellings ? undated_words(written) : written, depth, cap);
  if (sides.empty()) add_parts(p, split, written, cap);
  // The topic without its generic words ("Vision Pro 2 review" -> "Vision Pro 2"), when at
  // least two words that say what it is are left. Never broader: a lone name or generic
  // words alone ("model", "performance tuning") retrieve everything that shares them.
  std::vector<std::string> kept;
  int specific = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    const std::string f = folded_words(written[i]);
    const bool version = is_number(written[i]) && i > 0 && !is_number(written[i - 1]);
    const auto parts = core::match_words(written[i]);
    const bool weak = !version && !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const core::Word& w) {
      return is_weak_word(w.text) || core::is_stopword(w.text);
    });
    if (weak) continue;
    kept.push_back(written[i]);
    specific += f.empty() ? 0 : 1;
  }
  if (specific >= 2 && kept.size() < written.size()) add_unique(p, join_range(kept, 0, kept.size()), 0.7, cap);
  if (depth == model::Depth::deep && words.size() >= 2) add_unique(p, "\"" + topic + "\"", 0.6, cap);

  p.source_weights = intent_source_weights(p.intent);
  return p;
}

std::map<std::string, double> intent_source_weights(std::string_view intent) {
  std::map<std::string, double> out;
  for (const sources::Source* s : sources::all())
    for (const auto& iw : s->intent_weights())
      if (iw.intent == intent) out[std::string(s->id())] = iw.weight;
  return out;
}

std::vector<model::Synonym> merge_synonyms(std::vector<model::Synonym> first, const std::vector<model::Synonym>& then) {
  for (const auto& s : then) {
    const std::string key = folded_words(s.term);
    if (std::none_of(first.begin(), first.end(), [&](const model::Synonym& f) { return folded_words(f.term) == key; }))
      first.push_back(s);
  }
  return first;
}

model::Plan plan_for(std::string_view topic, model::Depth depth, const std::optional<model::Plan>& host) {
  if (!host) return make_plan(topic, depth);
  if (host->sub_queries.empty()) {
    // The host named synonyms (or weights) only: the built-in planner asks, with them.
    model::Plan p = make_plan(topic, depth, host->synonyms);
    if (!host->intent.empty()) p.intent = host->intent;
    if (!host->source_weights.empty()) p.source_weights = host->source_weights;
    p.intent_open = p.intent_open && host->intent.empty() && host->source_weights.empty();
    p.from_host = true;
    return p;
  }
  model::Plan p = *host;
  if (p.intent.empty()) p.intent = "news";
  p.synonyms = merge_synonyms(std::move(p.synonyms), table_synonyms(topic));
  return p;
}

std::optional<model::Plan> parse_host_plan(std::string_view json_text, std::string* error) {
  using core::json::FieldError;
  return core::json::read_host_object(json_text, "--plan: ", error, [](const core::json::Fields& f) {
    model::Plan p;
    p.from_host = true;
    p.intent = f.str("intent", "");
    if (const auto* syn = f.find("synonyms")) {
      if (!syn->is_object()) f.bad("synonyms", "an object of \"term\": [\"other spelling\", ...]");
      if (syn->size() > kMaxSynonymTerms) throw FieldError(fmt::format("at most {} synonym terms", kMaxSynonymTerms));
      for (const auto& [term, alts] : syn->items()) {
        model::Synonym s;
        s.from_host = true;
        s.term = core::collapse_whitespace(core::sanitize_utf8(term));
        if (s.term.empty() || core::utf8_length(s.term) > kMaxSynonymChars)
          throw FieldError(fmt::format("a synonym term must be 1..{} characters", kMaxSynonymChars));
        if (!alts.is_array() || alts.empty() || alts.size() > kMaxAlternatives)
          throw FieldError(fmt::format("synonyms for '{}' must be an array of 1..{} strings", s.term, kMaxAlternatives));
        for (const auto& a : alts) {
          if (!a.is_string()) throw FieldError(fmt::format("synonyms for '{}' must be strings", s.term));
          std::string alt = core::collapse_whitespace(core::sanitize_utf8(a.get<std::string>()));
          if (alt.empty() || core::utf8_length(alt) > kMaxSynonymChars)
            throw FieldError(fmt::format("a synonym must be 1..{} characters", kMaxSynonymChars));
          s.alternatives.push_back(std::move(alt));
        }
        p.synonyms.push_back(std::move(s));
      }
    }
    const auto* subs = f.find("sub_queries");
    if (subs == nullptr) subs = f.find("subqueries");
    if (subs == nullptr && p.synonyms.empty()) f.bad("sub_queries", "a non-empty array (or give 'synonyms')");
    // Without sub-queries the built-in planner asks, with the host's synonyms and weights.
    if (subs != nullptr) {
      if (!subs->is_array() || subs->empty()) f.bad("sub_queries", "a non-empty array");
      if (subs->size() > 5) throw FieldError("at most 5 sub_queries");
      for (const auto& s : *subs) {
        model::SubQuery q;
        if (s.is_string()) {
          q.text = s.get<std::string>();
        } else if (s.is_object()) {
          auto t = s.find("query");
          if (t == s.end()) t = s.find("text");
          if (t == s.end() || !t->is_string()) throw FieldError("each sub-query needs a string 'query'");
          q.text = t->get<std::string>();
          if (auto w = s.find("weight"); w != s.end()) {
            if (!w->is_number() || w->get<double>() <= 0 || w->get<double>() > 5)
              throw FieldError("sub-query 'weight' must be a number in (0, 5]");
            q.weight = w->get<double>();
          }
        } else {
          throw FieldError("sub_queries entries must be strings or objects");
        }
        q.text = core::collapse_whitespace(core::sanitize_utf8(q.text));
        if (q.text.empty() || core::utf8_length(q.text) > kMaxTopicChars)
          throw FieldError(fmt::format("sub-query text must be 1..{} characters", kMaxTopicChars));
        p.sub_queries.push_back(std::move(q));
      }
    }
    if (const auto* sw = f.object("source_weights")) {
      for (const auto& [k, v] : sw->items()) {
        const auto* src = sources::find(k);
        if (src == nullptr) throw FieldError("unknown source '" + k + "' in source_weights");
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 5)
          throw FieldError("source weight for '" + k + "' must be a number in [0, 5]");
        p.source_weights[std::string(src->id())] = v.get<double>();
      }
    }
    return p;
  });
}

}  // namespace pipeline
