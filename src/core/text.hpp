#pragma once
// Text utilities shared by parsers, scoring and renderers. All functions are pure
// and can be called from any thread.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core {

std::string lower_ascii(std::string_view s);
// Replaces invalid UTF-8 sequences with U+FFFD so output encoders never choke.
std::string sanitize_utf8(std::string_view s);
// Unicode-aware case folding (NFKC_Casefold); cheap ASCII fast path.
std::string casefold(std::string_view s);
// Lower-cased word tokens: runs of letters/digits; apostrophes inside words are dropped.
std::vector<std::string> tokenize(std::string_view s);
// Collapses runs of whitespace (incl. newlines) to one space and trims.
std::string collapse_whitespace(std::string_view s);
// Printable ASCII with single spaces between words and none at the ends: text that
// collapse_whitespace(sanitize_utf8(s)) returns unchanged.
bool clean_ascii_line(std::string_view s);
// Text that is safe to show on one line of a terminal: valid UTF-8 (invalid bytes become
// U+FFFD), no C0/C1 control characters, DEL or bidirectional overrides, every line or
// paragraph break a space, whitespace collapsed and trimmed. Upstream and user text go
// through this before any brief prints it.
std::string printable_line(std::string_view s);
// The same without touching whitespace: controls, bidi overrides and invalid bytes go,
// spaces, tabs and line breaks stay where they were.
std::string strip_controls(std::string_view s);
// Text content of an HTML fragment with entities decoded (gumbo), whitespace collapsed;
// scripts, styles and code blocks (<pre>) left out.
std::string html_to_text(std::string_view html);
// The escapes of XML text and attributes (&amp; &lt; &gt; &quot; &#39; &#x27;) decoded,
// nothing else: not HTML's rules, which would turn a stray "&copy=" in a query string into
// a copyright sign. One pass, so "&amp;lt;" is "&lt;".
std::string decode_xml_escapes(std::string_view s);
// Characters (code points) in valid UTF-8: what a length limit means to a person.
std::size_t utf8_length(std::string_view s);
// Truncates to at most max_bytes without splitting a UTF-8 sequence; appends "…" when cut.
// Registered secrets are redacted first (core/redact.hpp): a cut secret would leak its prefix.
std::string truncate_utf8(std::string_view s, std::size_t max_bytes);
// A quotable excerpt of at most max_bytes (whitespace collapsed): whole sentences when the
// first ones fill a fair part of it, else cut at a word with "…".
std::string excerpt(std::string_view text, std::size_t max_bytes);
// Terminal columns the text takes (wide CJK and emoji count two, combining marks none).
std::size_t display_width(std::string_view s);
// The longest prefix that fits in `columns`, with "…" when cut: for table cells.
std::string fit_width(std::string_view s, std::size_t columns);
// Percent-encodes for a URL query component (RFC 3986 unreserved kept).
std::string url_encode(std::string_view s);
std::string url_decode(std::string_view s);

// Function words that carry no topic.
bool is_stopword(std::string_view token);

// A word list's prefilter: which lengths (bit n: n bytes, n < 32) its words of each first byte
// have. A word it rules out (most words of most texts) is in no list lookup's way.
class FirstByteLengths {
 public:
  void add(std::string_view w) {
    if (w.empty() || w.size() >= 32) all_short_ = false;
    else bits_[static_cast<unsigned char>(w[0])] |= 1u << w.size();
  }
  // False only for a word the list cannot hold; always true for a list with a word of 32 bytes
  // or more.
  bool may_hold(std::string_view w) const {
    if (!all_short_) return true;
    return !w.empty() && w.size() < 32 && ((bits_[static_cast<unsigned char>(w[0])] >> w.size()) & 1u) != 0;
  }
  bool all_short() const { return all_short_; }

 private:
  std::array<std::uint32_t, 256> bits_{};
  bool all_short_ = true;
};
// Words that match too much to count as evidence alone ("new", "best", "2026", "ai"...).
bool is_generic(std::string_view token);

std::string base64_encode(std::string_view in);
std::string base64_decode(std::string_view in);  // stops at the first non-alphabet byte

std::uint64_t fnv1a64(std::string_view s, std::uint64_t seed = 1469598103934665603ULL);
std::string hex64(std::uint64_t v);

bool starts_with_ci(std::string_view s, std::string_view prefix);
bool equals_ci(std::string_view a, std::string_view b);  // ASCII letters folded
bool contains_ci(std::string_view haystack, std::string_view needle);
std::string_view trim(std::string_view s);

}  // namespace core
