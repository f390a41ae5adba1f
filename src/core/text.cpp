#include "core/text.hpp"

#include <gumbo.h>
#include <utf8proc.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <unordered_set>

#include "core/fold.hpp"
#include "core/redact.hpp"

namespace core {

namespace {
// std::isspace and std::tolower of the "C" locale (the process never sets another), inline:
// these run on every byte of every title and snippet.
bool c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
char c_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }
}  // namespace

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = c_lower(c);
  return out;
}

std::string sanitize_utf8(std::string_view s) {
  // Printable ASCII, tabs and newlines come out as they are. No early exit, on bytes: the
  // check vectorizes, and most text passes. u - 0x20 >= 0x60: under 0x20 or from 0x80.
  unsigned char other = 0;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    other |= static_cast<unsigned char>(static_cast<unsigned char>(u - 0x20) >= 0x60) & static_cast<unsigned char>(u != '\n') &
             static_cast<unsigned char>(u != '\t');
  }
  if (other == 0) return std::string(s);
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    if (*p < 0x80) {
      // Drop C0 controls other than tab/newline: they break terminals and JSON consumers alike.
      if (*p >= 0x20 || *p == '\n' || *p == '\t') out.push_back(static_cast<char>(*p));
      else if (*p == '\r') out.push_back('\n');
      ++p;
      --left;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) {
      out += "\xEF\xBF\xBD";
      ++p;
      --left;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
    p += n;
    left -= n;
  }
  return out;
}

namespace {

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

std::string casefold(std::string_view s) {
  if (is_ascii(s)) return lower_ascii(s);
  const std::string clean = sanitize_utf8(s);
  utf8proc_uint8_t* out = nullptr;
  const auto n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()), static_cast<utf8proc_ssize_t>(clean.size()), &out,
                   static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE));
  if (n < 0 || out == nullptr) return lower_ascii(clean);
  std::string result(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return result;
}

std::vector<std::string> tokenize(std::string_view s) {
  std::vector<std::string> tokens;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) tokens.push_back(std::move(cur));
    cur.clear();
  };
  if (is_ascii(s)) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (std::isalnum(c)) {
        cur.push_back(static_cast<char>(std::tolower(c)));
      } else if ((c == '\'') && !cur.empty() && i + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[i + 1]))) {
        // "don't" -> "dont"; "user's" -> "users"
      } else if ((c == '+' || c == '#') && !cur.empty()) {
        cur.push_back(static_cast<char>(c));  // c++, c#, f#
      } else {
        flush();
      }
    }
    flush();
    return tokens;
  }
  const std::string folded = casefold(s);
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(folded.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(folded.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) n = 1, cp = -1;
    if (cp >= 0 && word_codepoint(cp)) {
      cur.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
    } else if (cp == '+' && !cur.empty()) {
      cur.push_back('+');
    } else if (!(cp == '\'' || cp == 0x2019) || cur.empty()) {
      flush();
    }
    p += n;
    left -= n;
  }
  flush();
  return tokens;
}

bool clean_ascii_line(std::string_view s) {
  if (s.empty()) return true;
  if (s.front() == ' ' || s.back() == ' ') return false;
  // No early exit: the loop vectorizes, and most titles and snippets are clean. u - 0x20 >= 0x60:
  // under 0x20 or from 0x80.
  unsigned char dirty = 0;  // bytes, not ints: sixteen to a vector
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]), next = static_cast<unsigned char>(s[i + 1]);
    dirty |= static_cast<unsigned char>(static_cast<unsigned char>(u - 0x20) >= 0x60) |
             static_cast<unsigned char>(static_cast<unsigned char>(u == ' ') & static_cast<unsigned char>(next == ' '));
  }
  const unsigned last = static_cast<unsigned char>(s.back());  // no space
  return dirty == 0 && last - 0x20 < 0x60;
}

std::string collapse_whitespace(std::string_view s) {
  // Already collapsed (single spaces between words, none at the ends): a copy.
  bool collapsed = s.empty() || (!c_space(s.front()) && !c_space(s.back()));
  for (std::size_t i = 0; collapsed && i < s.size(); ++i)
    if (c_space(s[i])) collapsed = s[i] == ' ' && !c_space(s[i + 1]);  // s.back() is no space
  if (collapsed) return std::string(s);
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (c_space(c)) {
      space = !out.empty();
    } else {
      if (space) out.push_back(' ');
      space = false;
      out.push_back(c);
    }
  }
  return out;
}

namespace {

// printable_line (one_line) and strip_controls (!one_line) in one pass.
std::string printable(std::string_view s, bool one_line) {
  std::string out;
  out.reserve(s.size());
  bool space = false;  // a pending separator, written before the next visible character
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = *p;
    utf8proc_ssize_t n = 1;
    bool invalid = false;
    if (*p >= 0x80) {
      n = utf8proc_iterate(p, left, &cp);
      if (n <= 0) n = 1, cp = 0xFFFD, invalid = true;  // one invalid byte
    }
    const bool is_space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' || cp == 0x85 ||
                          cp == 0x2028 || cp == 0x2029 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x3000 || cp == 0xA0;
    const bool control = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
    const bool bidi =
        cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (is_space && one_line) {
      space = !out.empty();
    } else if (is_space && cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (is_space) {
      out.push_back(' ');  // a Unicode line or paragraph break is still a break in a terminal
    } else if (!control && !bidi) {
      if (space) out.push_back(' ');
      space = false;
      if (invalid) out += "\xEF\xBF\xBD";
      else out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
    }
    p += n;
    left -= n;
  }
  return out;
}

}  // namespace

std::string printable_line(std::string_view s) { return printable(s, true); }
std::string strip_controls(std::string_view s) { return printable(s, false); }

namespace {

bool inline_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_ABBR:
    case GUMBO_TAG_B:
    case GUMBO_TAG_BDI:
    case GUMBO_TAG_BDO:
    case GUMBO_TAG_CITE:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_DATA:
    case GUMBO_TAG_DFN:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_I:
    case GUMBO_TAG_KBD:
    case GUMBO_TAG_MARK:
    case GUMBO_TAG_Q:
    case GUMBO_TAG_S:
    case GUMBO_TAG_SAMP:
    case GUMBO_TAG_SMALL:
    case GUMBO_TAG_SPAN:
    case GUMBO_TAG_STRIKE:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_SUB:
    case GUMBO_TAG_SUP:
    case GUMBO_TAG_TIME:
    case GUMBO_TAG_TT:
    case GUMBO_TAG_U:
    case GUMBO_TAG_VAR: return true;
    default: return false;
  }
}

void collect_text(const GumboNode* node, std::string& out) {
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE || node->type == GUMBO_NODE_CDATA) {
    out += node->v.text.text;
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_DOCUMENT) return;
  if (node->type == GUMBO_NODE_ELEMENT) {
    const auto tag = node->v.element.tag;
    // Code blocks are noise in a snippet or a quote, like scripts.
    if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_TEMPLATE || tag == GUMBO_TAG_PRE) return;
  }
  const GumboVector& children = node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children : node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) collect_text(static_cast<const GumboNode*>(children.data[i]), out);
  // Block boundaries and line breaks read as spaces; inline markup (<i>, <a>, <code>) joins
  // its text to the neighbours', so "for <i>everything</i>?" stays "for everything?".
  if (node->type == GUMBO_NODE_ELEMENT && !inline_tag(node->v.element.tag)) out.push_back(' ');
}

}  // namespace

std::string decode_xml_escapes(std::string_view s) {
  static constexpr std::pair<std::string_view, char> kEscapes[] = {{"&amp;", '&'},  {"&lt;", '<'},   {"&gt;", '>'},
                                                                   {"&quot;", '"'}, {"&#39;", '\''}, {"&#x27;", '\''}};
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto* e = std::begin(kEscapes);
    if (s[i] == '&')
      while (e != std::end(kEscapes) && !s.substr(i).starts_with(e->first)) ++e;
    if (s[i] == '&' && e != std::end(kEscapes)) {
      out.push_back(e->second);
      i += e->first.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

std::string html_to_text(std::string_view html) {
  if (html.find_first_of("<&") == std::string_view::npos) return collapse_whitespace(html);
  const std::string clean = sanitize_utf8(html);
  std::unique_ptr<GumboOutput, void (*)(GumboOutput*)> doc(
      gumbo_parse_with_options(&kGumboDefaultOptions, clean.data(), clean.size()),
      [](GumboOutput* o) { gumbo_destroy_output(&kGumboDefaultOptions, o); });
  std::string out;
  if (doc) collect_text(doc->root, out);
  return collapse_whitespace(out);
}

std::size_t utf8_length(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  // Redact before cutting: a cut secret no longer matches, and its prefix would leak.
  const std::string scrubbed = redact::scrub_value(text);
  const std::string_view s = scrubbed;
  if (s.size() <= max_bytes) return scrubbed;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  std::string out(s.substr(0, cut));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\xE2\x80\xA6";
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  const std::string t = collapse_whitespace(text);
  if (t.size() <= max_bytes) return t;
  constexpr std::size_t kEllipsis = 3;
  // The last sentence end (".", "!" or "?" before a space) that fits.
  std::size_t end = 0;
  for (std::size_t i = 0; i + 1 < t.size() && i + 1 <= max_bytes; ++i)
    if ((t[i] == '.' || t[i] == '!' || t[i] == '?') && t[i + 1] == ' ') end = i + 1;
  if (end * 5 >= max_bytes * 2) return t.substr(0, end);  // at least 40% of the room
  std::size_t cut = t.rfind(' ', max_bytes > kEllipsis ? max_bytes - kEllipsis : 0);
  if (cut == std::string::npos || cut * 2 < max_bytes) return truncate_utf8(t, max_bytes > kEllipsis ? max_bytes - kEllipsis : 0);
  while (cut > 0 && (t[cut - 1] == ',' || t[cut - 1] == ';' || t[cut - 1] == ':' || t[cut - 1] == ' ')) --cut;
  return t.substr(0, cut) + "\xE2\x80\xA6";
}

namespace {

// Calls f(bytes, width) for each code point; invalid bytes count as one column.
template <typename F>
void each_codepoint(std::string_view s, F&& f) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(p, left, &cp);
    const int w = n <= 0 ? 1 : std::max(0, utf8proc_charwidth(cp));
    if (n <= 0) n = 1;
    if (!f(std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)), static_cast<std::size_t>(w))) return;
    p += n;
    left -= n;
  }
}

}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t cols = 0;
  each_codepoint(s, [&](std::string_view, std::size_t w) {
    cols += w;
    return true;
  });
  return cols;
}

std::string fit_width(std::string_view s, std::size_t columns) {
  if (display_width(s) <= columns) return std::string(s);
  std::string out;
  std::size_t cols = 0;
  each_codepoint(s, [&](std::string_view bytes, std::size_t w) {
    if (cols + w + 1 > columns) return false;  // one column for the ellipsis
    out.append(bytes);
    cols += w;
    return true;
  });
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return columns == 0 ? std::string() : out + "\xE2\x80\xA6";
}

std::string url_encode(std::string_view s) {
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string url_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

namespace {

const std::unordered_set<std::string_view>& stopwords() {
  static const std::unordered_set<std::string_view> kWords{
      "a",     "an",     "and",     "are",     "as",     "at",      "be",     "been",   "but",    "by",    "can",
      "could", "did",    "do",      "does",    "for",    "from",    "had",    "has",    "have",   "he",    "her",
      "his",   "i",      "if",      "in",      "into",   "is",      "it",     "its",    "me",     "my",    "no",
      "not",   "of",     "on",      "or",      "our",    "out",     "she",    "so",     "than",   "that",  "the",
      "their", "them",   "then",    "there",   "these",  "they",    "this",   "those",  "to",     "too",   "up",
      "us",    "was",    "we",      "were",    "what",   "when",    "where",  "which",  "who",    "why",   "will",
      "with",  "would",  "you",     "your",    "about",  "just",    "all",    "any",    "some",   "also",  "how",
      "vs",    "via",    "s",       "t",       "am",     "get",     "got",    "should", "may",    "might", "let",
      "lets",  "im",     "ive",     "dont",    "de",     "la",      "le",     "el",     "across", "over",  "under",
      "after", "before", "between", "through", "during", "without", "within", "per",    "while",  "here",  "very"};
  return kWords;
}

const std::unordered_set<std::string_view>& generic_words() {
  static const std::unordered_set<std::string_view> kWords{
      "new",        "best",     "top",       "news",      "update",       "updates", "latest",   "release",   "released",
      "launch",     "launches", "announced", "announces", "announcement", "today",   "week",     "year",      "month",
      "day",        "guide",    "review",    "reviews",   "tips",         "help",    "question", "questions", "discussion",
      "thread",     "thoughts", "use",       "using",     "used",         "make",    "making",   "good",      "great",
      "big",        "first",    "one",       "two",       "free",         "open",    "source",   "app",       "apps",
      "tool",       "tools",    "software",  "data",      "time",         "people",  "world",    "life",      "way",
      "thing",      "things",   "work",      "working",   "people",       "like",    "now",      "show",      "ask",
      "hn",         "tell",     "reddit",    "video",     "post",         "free",    "online",   "internet",  "tech",
      "technology", "ai",       "more",      "most",      "vs",           "versus",  "first",    "why",       "what",
      "2024",       "2025",     "2026",      "2027",      "trending",     "viral",   "everyone", "anyone",    "someone",
      "really",     "still",    "even",      "every",     "need",         "want",    "know",     "see",       "look",
      "best",       "better",   "via",       "can",       "official",     "live",    "part",     "full"};
  return kWords;
}

}  // namespace

bool is_stopword(std::string_view token) {
  // A word whose length and first byte no stopword has (most words) is answered without a hash.
  static const FirstByteLengths lengths = [] {
    FirstByteLengths f;
    for (auto w : stopwords()) f.add(w);
    return f;
  }();
  // Then an open-addressing table of the stopwords, hashed by three bytes and the length:
  // std::hash and the set's division cost more than the rest of this function.
  constexpr std::size_t kSlots = 1024;  // a power of two
  static const auto hash = [](std::string_view w) {
    return (static_cast<unsigned char>(w[0]) * 31u + static_cast<unsigned char>(w[w.size() / 2]) * 131u +
            static_cast<unsigned char>(w.back()) * 7u + static_cast<unsigned>(w.size()) * 257u) &
           (kSlots - 1);
  };
  static const bool fast = 4 * stopwords().size() <= kSlots && lengths.all_short();
  static const std::array<std::string_view, kSlots> table = [] {
    std::array<std::string_view, kSlots> t{};
    if (!fast) return t;
    for (auto w : stopwords()) {
      std::size_t at = hash(w);
      while (!t[at].empty()) at = (at + 1) & (kSlots - 1);
      t[at] = w;
    }
    return t;
  }();
  if (!fast) return stopwords().count(token) > 0;
  if (!lengths.may_hold(token)) return false;
  for (std::size_t at = hash(token); !table[at].empty(); at = (at + 1) & (kSlots - 1))
    if (table[at] == token) return true;
  return false;
}

bool is_generic(std::string_view token) {
  if (generic_words().count(token) > 0) return true;
  // Bare numbers match dates, counts and versions everywhere.
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {
constexpr std::string_view kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  unsigned val = 0;
  int bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(kB64[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(kB64[((val << 8) >> (bits + 8)) & 0x3F]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

std::string base64_decode(std::string_view in) {
  std::string out;
  unsigned val = 0;
  int bits = -8;
  for (char c : in) {
    const auto pos = kB64.find(c);
    if (pos == std::string_view::npos) break;
    val = (val << 6) + static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

std::uint64_t fnv1a64(std::string_view s, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  return true;
}

bool equals_ci(std::string_view a, std::string_view b) { return a.size() == b.size() && starts_with_ci(a, b); }

bool contains_ci(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && c_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && c_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace core
