#include "core/fold.hpp"

#include <libstemmer.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/text.hpp"

namespace core {

bool word_codepoint(std::int32_t cp) {
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC: return true;
    default: return false;
  }
}

namespace {

void append_utf8(std::string& out, utf8proc_int32_t cp) {
  utf8proc_uint8_t buf[4];
  const auto n = utf8proc_encode_char(cp, buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// ---- escapes -------------------------------------------------------------------------

// TeX accent commands -> the combining mark that follows the letter.
utf8proc_int32_t tex_mark(char command) {
  switch (command) {
    case '"': return 0x0308;
    case '\'': return 0x0301;
    case '`': return 0x0300;
    case '^': return 0x0302;
    case '~': return 0x0303;
    case '=': return 0x0304;
    case '.': return 0x0307;
    case 'c': return 0x0327;
    case 'v': return 0x030C;
    case 'u': return 0x0306;
    case 'H': return 0x030B;
    case 'r': return 0x030A;
    default: return 0;
  }
}

// Letters TeX names by command: \ss \o \O \ae \AE \oe \OE \l \L \i \aa \AA.
std::optional<std::pair<std::string_view, utf8proc_int32_t>> tex_letter(std::string_view rest) {
  static constexpr std::array<std::pair<std::string_view, utf8proc_int32_t>, 12> kLetters{{{"ss", 0x00DF},
                                                                                           {"ae", 0x00E6},
                                                                                           {"AE", 0x00C6},
                                                                                           {"oe", 0x0153},
                                                                                           {"OE", 0x0152},
                                                                                           {"aa", 0x00E5},
                                                                                           {"AA", 0x00C5},
                                                                                           {"o", 0x00F8},
                                                                                           {"O", 0x00D8},
                                                                                           {"l", 0x0142},
                                                                                           {"L", 0x0141},
                                                                                           {"i", 0x0131}}};
  for (const auto& [name, cp] : kLetters)
    if (rest.substr(0, name.size()) == name && (rest.size() == name.size() || !ascii_letter(rest[name.size()])))
      return std::make_pair(name, cp);
  return std::nullopt;
}

std::string decode_tex(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '{' || c == '}') continue;  // grouping only ("{GPU}", "{\"u}")
    if (c != '\\' || i + 1 >= s.size()) {
      out.push_back(c);
      continue;
    }
    const char cmd = s[i + 1];
    if (const auto mark = tex_mark(cmd)) {
      // \"u  \"{u}  \c{c}: an accent on the next letter. Letter commands (c v u H r) need the
      // brace, or "\cite" would lose its c.
      std::size_t j = i + 2;
      const bool brace = j < s.size() && s[j] == '{';
      if (brace) ++j;
      if (j < s.size() && ascii_letter(s[j]) && (brace || !ascii_letter(cmd))) {
        out.push_back(s[j]);
        append_utf8(out, mark);
        i = j;
        if (brace && i + 1 < s.size() && s[i + 1] == '}') ++i;
        continue;
      }
    }
    if (auto letter = tex_letter(s.substr(i + 1))) {
      append_utf8(out, letter->second);
      i += letter->first.size();
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// Entities left in text after the feed's own decoding: "&uuml;", "&#252;", "&#x27;", "&amp;".
std::optional<utf8proc_int32_t> named_entity(std::string_view name, std::string& two) {
  static constexpr std::array<std::pair<std::string_view, utf8proc_int32_t>, 26> kNamed{
      {{"amp", '&'},      {"lt", '<'},        {"gt", '>'},        {"quot", '"'},      {"apos", '\''},     {"nbsp", ' '},
       {"szlig", 0x00DF}, {"oslash", 0x00F8}, {"Oslash", 0x00D8}, {"aelig", 0x00E6},  {"AElig", 0x00C6},  {"oelig", 0x0153},
       {"OElig", 0x0152}, {"mdash", 0x2014},  {"ndash", 0x2013},  {"hellip", 0x2026}, {"lsquo", 0x2018},  {"rsquo", 0x2019},
       {"ldquo", 0x201C}, {"rdquo", 0x201D},  {"laquo", 0x00AB},  {"raquo", 0x00BB},  {"middot", 0x00B7}, {"bull", 0x2022},
       {"thorn", 0x00FE}, {"eth", 0x00F0}}};
  for (const auto& [n, cp] : kNamed)
    if (n == name) return cp;
  // &Xuml; &Xacute; &Xgrave; &Xcirc; &Xtilde; &Xring; &Xcedil;: a letter and its accent.
  static constexpr std::array<std::pair<std::string_view, utf8proc_int32_t>, 7> kAccents{{{"uml", 0x0308},
                                                                                          {"acute", 0x0301},
                                                                                          {"grave", 0x0300},
                                                                                          {"circ", 0x0302},
                                                                                          {"tilde", 0x0303},
                                                                                          {"ring", 0x030A},
                                                                                          {"cedil", 0x0327}}};
  if (name.size() >= 4 && ascii_letter(name[0]))
    for (const auto& [suffix, mark] : kAccents)
      if (name.substr(1) == suffix) {
        two.assign(1, name[0]);
        append_utf8(two, mark);
        return 0;
      }
  return std::nullopt;
}

std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    const auto semi = s.find(';', i + 1);
    if (semi == std::string_view::npos || semi - i > 10 || semi == i + 1) {
      out.push_back(s[i]);
      continue;
    }
    const std::string_view name = s.substr(i + 1, semi - i - 1);
    if (name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      const std::string digits(name.substr(hex ? 2 : 1));
      char* end = nullptr;
      const long cp = digits.empty() ? 0 : std::strtol(digits.c_str(), &end, hex ? 16 : 10);
      if (end && *end == '\0' && cp > 0 && utf8proc_codepoint_valid(static_cast<utf8proc_int32_t>(cp))) {
        append_utf8(out, static_cast<utf8proc_int32_t>(cp));
        i = semi;
        continue;
      }
    } else {
      std::string pair;
      if (auto cp = named_entity(name, pair)) {
        if (pair.empty()) append_utf8(out, *cp);
        else out += pair;
        i = semi;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// Printable ASCII without TeX or entity escapes: decode_escapes would return it as it is.
// No early exit: the loop vectorizes, and most text is plain.
bool plain_text(std::string_view s) {
  unsigned char escape = 0;  // bytes, not ints: sixteen to a vector
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    escape |= static_cast<unsigned char>(static_cast<unsigned char>(u - 0x20) >= 0x60) | static_cast<unsigned char>(u == '\\') |
              static_cast<unsigned char>(u == '{') |
              static_cast<unsigned char>(u == '&');  // u - 0x20 >= 0x60: under 0x20 or from 0x80
  }
  return escape == 0;
}

std::string decode_escapes(std::string_view s) {
  if (plain_text(s)) return std::string(s);
  const bool tex = s.find_first_of("\\{") != std::string_view::npos;
  const bool entity = s.find('&') != std::string_view::npos;
  std::string out(s);
  if (tex) out = decode_tex(out);
  if (entity) out = decode_entities(out);
  return sanitize_utf8(out);
}

// ---- folding -------------------------------------------------------------------------

std::string spell_out(std::string s) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kLetters{{{"\xC3\xB8", "o"},
                                                                                          {"\xC3\xA6", "ae"},
                                                                                          {"\xC5\x93", "oe"},
                                                                                          {"\xC5\x82", "l"},
                                                                                          {"\xC4\x91", "d"},
                                                                                          {"\xC3\xBE", "th"},
                                                                                          {"\xC4\xB1", "i"}}};
  for (const auto& [from, to] : kLetters)
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

bool is_ascii(std::string_view s) {
  unsigned char bits = 0;  // every byte's high bit, ORed: a loop that vectorizes
  for (char c : s) bits |= static_cast<unsigned char>(c);
  return bits < 0x80;
}

// Folds text that is already unescaped and valid UTF-8.
std::string fold_clean(std::string_view s) {
  if (is_ascii(s)) return lower_ascii(s);
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()), &out,
                              static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT | UTF8PROC_STRIPMARK |
                                                             UTF8PROC_CASEFOLD | UTF8PROC_IGNORE));
  if (n < 0 || out == nullptr) return lower_ascii(s);
  std::string r(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return spell_out(std::move(r));
}

bool ideograph(utf8proc_int32_t cp) {
  if (cp < 0x3040) return false;  // most text: one comparison
  return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF66 && cp <= 0xFF9F) ||
         (cp >= 0x20000 && cp <= 0x2FA1F);
}

// ASCII classes without the C library's locale lookups (the process keeps the "C" locale).
bool ascii_upper(utf8proc_int32_t cp) { return cp >= 'A' && cp <= 'Z'; }
bool ascii_lower(utf8proc_int32_t cp) { return cp >= 'a' && cp <= 'z'; }
// ASCII letters and digits by table: split_words asks it of every byte.
constexpr std::array<bool, 0x100> kAsciiAlnum = [] {
  std::array<bool, 0x100> t{};
  for (int c = 0; c < 0x80; ++c) t[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  return t;
}();
bool ascii_alnum(utf8proc_int32_t cp) { return cp >= 0 && cp < 0x100 && kAsciiAlnum[static_cast<std::size_t>(cp)]; }

bool word_char(utf8proc_int32_t cp) { return cp < 0x80 ? ascii_alnum(cp) : word_codepoint(cp); }

// ':' '|' and the dashes separate a headline's name from its details; the rest end a clause.
bool headline_separator(utf8proc_int32_t cp) { return cp == ':' || cp == '|' || cp == 0x2014 || cp == 0x2013 || cp == 0xFF1A; }

bool breaks_clause(utf8proc_int32_t cp) {
  switch (cp) {
    case ':':
    case ';':
    case '|':
    case '!':
    case '?':
    case '(':
    case ')':
    case '[':
    case ']':
    case '"':
    case 0x2014:
    case 0x2013:
    case 0x201C:
    case 0x201D:
    case 0x00AB:
    case 0x00BB:
    case 0x00B7:
    case 0x2022:
    case 0x3001:
    case 0x3002:
    case 0xFF08:
    case 0xFF09:
    case 0xFF1A:
    case 0x300C:
    case 0x300D: return true;
    default: return false;
  }
}

struct Cp {
  utf8proc_int32_t cp;
  std::size_t at, len;
};

// Into a buffer the caller reuses: match_words runs on every title and snippet.
void codepoints(std::string_view s, std::vector<Cp>& out) {
  out.clear();
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  std::size_t at = 0;
  while (at < s.size()) {
    if (p[at] < 0x80) {
      out.push_back({p[at], at, 1});
      ++at;
      continue;
    }
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(p + at, static_cast<utf8proc_ssize_t>(s.size() - at), &cp);
    if (n <= 0) n = 1, cp = 0xFFFD;
    out.push_back({cp, at, static_cast<std::size_t>(n)});
    at += static_cast<std::size_t>(n);
  }
}

// The code points of ASCII text without a buffer: each byte is one, at its own offset (what
// codepoints() would store for it). Most titles and snippets are ASCII.
struct AsciiCps {
  std::string_view s;
  std::size_t size() const { return s.size(); }
  Cp operator[](std::size_t k) const { return {static_cast<unsigned char>(s[k]), k, 1}; }
};

// A period that ends an abbreviation, not a sentence: an initial ("John F. Kennedy", the last
// "." of "U.S.") or a short capitalised title before a name ("Rep. Adam Smith", "St. Louis",
// "Dr. Who"). Guessed from the word's shape, as a reader does; a word it mistakes for a title
// ("Meet Zed. It is fast") only joins two sentences.
template <typename Cps>
bool abbreviation_dot(const Cps& cps, std::size_t k) {
  static const bool off = ablated("initials");
  if (off || k == 0 || !word_char(cps[k - 1].cp)) return false;
  std::size_t b = k;  // the word's first code point
  while (b > 0 && word_char(cps[b - 1].cp)) --b;
  const auto upper = [&](std::size_t j) { return cps[j].cp >= 'A' && cps[j].cp <= 'Z'; };
  const std::size_t letters = k - b;
  if (!upper(b) || letters > 3) return false;
  if (letters == 1) return true;
  for (std::size_t j = b + 1; j < k; ++j)
    if (cps[j].cp < 'a' || cps[j].cp > 'z') return false;
  std::size_t next = k + 1;  // a title comes before a capitalised name
  while (next < cps.size() && cps[next].cp == ' ') ++next;
  return next < cps.size() && upper(next);
}

}  // namespace

std::string fold_for_match(std::string_view text) { return fold_clean(decode_escapes(text)); }

std::vector<Word> match_words(std::string_view text) {
  WordList list;
  match_words(text, list);
  std::vector<Word> out;
  out.reserve(list.words.size());
  for (const auto& w : list.words) {
    Word word;
    static_cast<WordShape&>(word) = w;
    word.text = list.text_of(w);
    out.push_back(std::move(word));
  }
  return out;
}

namespace {

// match_words over the code points of `clean` (a std::vector<Cp> or AsciiCps).
template <typename Cps>
void split_words(std::string_view clean, const Cps& cps, WordList& out) {
  std::size_t start = std::string::npos;  // byte offset of the current word
  bool pending_break = false, pending_headline = false, pending_join = false, apostrophe = false, ascii = true;
  char pending_joiner = 0;
  WordList::Entry cur;
  // ASCII text folds byte for byte: lower-cased once, whole, its words are spans of it (a word
  // with an apostrophe, which folding drops, is appended after it).
  constexpr bool kAsciiText = std::is_same_v<Cps, AsciiCps>;
  if constexpr (kAsciiText) {
    out.text.assign(clean);
    for (char& c : out.text) c = static_cast<char>(c | (static_cast<unsigned char>(c - 'A') < 26 ? 0x20 : 0));  // vectorizes
  }
  auto flush = [&](std::size_t end) {
    if (start == std::string::npos) return;
    const std::string_view raw(clean.data() + start, end - start);
    std::size_t at = out.text.size();
    if (ascii && !apostrophe) {
      // Two capitals and no small letter; a word that opens with a small letter has one.
      if (!cur.lower) {
        int caps = 0, small = 0;
        for (char c : raw) {
          caps += ascii_upper(c) ? 1 : 0;
          small += ascii_lower(c) ? 1 : 0;
        }
        cur.all_caps = caps >= 2 && small == 0;
      }
      if constexpr (kAsciiText) {
        at = start;
      } else {
        out.text.append(raw);
        for (std::size_t k = at; k < out.text.size(); ++k)
          if (ascii_upper(out.text[k])) out.text[k] = static_cast<char>(out.text[k] + ('a' - 'A'));
      }
    } else {
      std::string kept(raw);
      for (std::string_view mark : {"'", "\xE2\x80\x99"})
        for (auto pos = kept.find(mark); pos != std::string::npos; pos = kept.find(mark, pos)) kept.erase(pos, mark.size());
      out.text += fold_clean(kept);
    }
    const std::size_t size = ascii && !apostrophe ? raw.size() : out.text.size() - at;
    if (size > 0) {
      cur.at = static_cast<std::uint32_t>(at);
      cur.size = static_cast<std::uint32_t>(size);
      out.words.push_back(cur);
    }
    cur = WordList::Entry{};
    start = std::string::npos;
    apostrophe = false;
    ascii = true;
  };
  auto is_word = [&](std::size_t k) { return k < cps.size() && word_char(cps[k].cp) && !ideograph(cps[k].cp); };
  static const bool plain_breaks = ablated("headline");
  int brackets = 0;  // depth of ( [ around the current word
  for (std::size_t k = 0; k < cps.size(); ++k) {
    const auto cp = cps[k].cp;
    if (ideograph(cp)) {
      flush(cps[k].at);
      WordList::Entry w;
      w.at = static_cast<std::uint32_t>(out.text.size());
      out.text += fold_clean(clean.substr(cps[k].at, cps[k].len));
      w.size = static_cast<std::uint32_t>(out.text.size() - w.at);
      w.ideograph = true;
      w.kana = cp >= 0x3040 && cp <= 0x309F;
      w.clause_break = pending_break;
      w.headline_break = pending_break && pending_headline;
      w.bracketed = brackets > 0;
      pending_break = pending_headline = false;
      out.words.push_back(w);
      continue;
    }
    if (word_char(cp)) {
      ascii &= cp < 0x80;
      if (start == std::string::npos) {
        start = cps[k].at;
        if (cp < 0x80) {
          cur.upper = ascii_upper(cp);
          cur.lower = ascii_lower(cp);
        } else {
          const auto cat = utf8proc_category(cp);
          cur.upper = cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LT;
          cur.lower = cat == UTF8PROC_CATEGORY_LL;
        }
        cur.clause_break = pending_break;
        cur.headline_break = pending_break && pending_headline;
        cur.bracketed = brackets > 0;
        cur.joined = pending_join;
        cur.glued = pending_join;
        cur.joiner = pending_join ? pending_joiner : '\0';
        pending_break = pending_headline = pending_join = false;
      }
      // The rest of a run of ASCII letters and digits changes nothing here: skip it (on ASCII
      // text by the bytes themselves).
      if constexpr (kAsciiText) {
        while (k + 1 < clean.size() && kAsciiAlnum[static_cast<unsigned char>(clean[k + 1])]) ++k;
      } else {
        while (k + 1 < cps.size() && ascii_alnum(cps[k + 1].cp)) ++k;
      }
      continue;
    }
    if (cp == ' ') {  // the commonest separator: it only ends the word (none of the rules below is about it)
      flush(cps[k].at);
      continue;
    }
    const bool in_word = start != std::string::npos;
    if (in_word && (cp == '+' || cp == '#') && !is_word(k + 1)) {
      // c++, c#, f#: the symbol belongs to the name
      std::size_t j = k;
      while (j + 1 < cps.size() && cps[j + 1].cp == cp) ++j;
      flush(cps[j].at + cps[j].len);
      k = j;
      continue;
    }
    if (in_word && (cp == '\'' || cp == 0x2019) && is_word(k + 1)) {
      if ((cps[k + 1].cp == 's' || cps[k + 1].cp == 'S') && !is_word(k + 2)) {  // Rose's: the name ends here
        cur.possessive = true;
        flush(cps[k].at);
        ++k;
        continue;
      }
      apostrophe = true;
      continue;  // don't, l'amour: one word (the apostrophe is dropped when folding)
    }
    flush(cps[k].at);
    // "-", "/", "_" or "." between two words: one identifier, written in whatever case it has.
    if ((cp == '-' || cp == '/' || cp == '_' || cp == '.') && k > 0 && word_char(cps[k - 1].cp) && is_word(k + 1) &&
        !out.words.empty()) {
      out.words.back().joined = true;
      pending_join = true;
      pending_joiner = static_cast<char>(cp);
    }
    if (cp == '(' || cp == '[' || cp == 0xFF08) ++brackets;
    if ((cp == ')' || cp == ']' || cp == 0xFF09) && brackets > 0) --brackets;
    if (breaks_clause(cp)) {
      // A headline's separator keeps the name before it with the details after: "Deadlock: the
      // November patch". Anything else (a sentence end, brackets, quotes, ! ?) after it makes it a
      // plain break again.
      pending_headline = (pending_headline || !pending_break) && headline_separator(cp) && !plain_breaks;
      pending_break = true;
    } else if (cp == '.' && (k + 1 >= cps.size() || cps[k + 1].cp == ' ') && !abbreviation_dot(cps, k)) {
      pending_break = true;  // a sentence ends
      pending_headline = false;
    } else if (cp == '-' && k > 0 && k + 1 < cps.size() && cps[k - 1].cp == ' ' && cps[k + 1].cp == ' ') {
      pending_headline = !pending_break && !plain_breaks;
      pending_break = true;
    }
  }
  flush(clean.size());
}

}  // namespace

void match_words(std::string_view text, WordList& out) {
  out.text.clear();
  out.words.clear();
  std::string decoded;
  const bool plain = plain_text(text);  // plain text is ASCII
  const std::string_view clean = plain ? text : std::string_view(decoded = decode_escapes(text));
  if (plain || is_ascii(clean)) return split_words(clean, AsciiCps{clean}, out);
  thread_local std::vector<Cp> cps;
  codepoints(clean, cps);
  split_words(clean, cps, out);
}

bool is_ideograph_word(std::string_view folded) {
  utf8proc_int32_t cp = 0;
  const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(folded.data()),
                                  static_cast<utf8proc_ssize_t>(folded.size()), &cp);
  return n > 0 && static_cast<std::size_t>(n) == folded.size() && ideograph(cp);
}

namespace {
template <typename Words, typename Size>
bool case_uninformative_of(const Words& words, Size text_size) {
  int upper = 0, lower = 0;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (text_size(w) < 4 || w.clause_break) continue;
    upper += w.upper ? 1 : 0;
    lower += w.lower ? 1 : 0;
  }
  return lower == 0 || 3 * lower < upper;
}
}  // namespace

bool case_uninformative(const std::vector<Word>& words) {
  return case_uninformative_of(words, [](const Word& w) { return w.text.size(); });
}

bool case_uninformative(const WordList& words) {
  return case_uninformative_of(words.words, [](const WordList::Entry& w) { return w.size; });
}

bool ablated(std::string_view mechanism) {
  static const std::string off = [] {
    const char* v = std::getenv("L30_ABLATE");
    return v ? "," + std::string(v) + "," : std::string();
  }();
  return !off.empty() && off.find("," + std::string(mechanism) + ",") != std::string::npos;
}

std::string english_stem(std::string_view folded) {
  struct Stemmer {
    sb_stemmer* s = sb_stemmer_new("english", "UTF_8");
    ~Stemmer() {
      if (s) sb_stemmer_delete(s);
    }
  };
  thread_local Stemmer st;
  if (!st.s || folded.empty()) return std::string(folded);
  const sb_symbol* out =
      sb_stemmer_stem(st.s, reinterpret_cast<const sb_symbol*>(folded.data()), static_cast<int>(folded.size()));
  if (!out) return std::string(folded);
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(sb_stemmer_length(st.s)));
}

std::optional<std::string> umlaut_spelling(std::string_view word) {
  const std::string clean = decode_escapes(word);
  utf8proc_uint8_t* out = nullptr;
  const auto n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()), static_cast<utf8proc_ssize_t>(clean.size()), &out,
                   static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE));
  if (n < 0 || out == nullptr) return std::nullopt;
  std::string s(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  bool changed = false;
  for (const auto& [from, to] :
       std::array<std::pair<std::string_view, std::string_view>, 3>{{{"\xC3\xA4", "ae"}, {"\xC3\xB6", "oe"}, {"\xC3\xBC", "ue"}}})
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
      changed = true;
    }
  if (!changed) return std::nullopt;
  return fold_clean(s);
}

}  // namespace core
