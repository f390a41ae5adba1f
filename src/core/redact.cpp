#include "core/redact.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/text.hpp"

namespace core::redact {

namespace {

// Immutable once published: scrub() works on a snapshot without holding the lock.
using Patterns = std::vector<std::string>;

struct State {
  std::mutex mu;
  std::vector<std::string> secrets;                                                     // raw values, for de-duplication
  std::shared_ptr<const Patterns> patterns = std::make_shared<const Patterns>();        // safe in text
  std::shared_ptr<const Patterns> value_patterns = std::make_shared<const Patterns>();  // all forms
  std::atomic<bool> any{false};
};
// Leaked on purpose: abandoned workers may log (and so scrub) during static destruction.
State& state() {
  static State* s = new State();
  return *s;
}

std::string percent_encode(std::string_view s, bool lower_hex, bool plus_for_space) {
  static constexpr char kUpper[] = "0123456789ABCDEF";
  static constexpr char kLower[] = "0123456789abcdef";
  const char* hex = lower_hex ? kLower : kUpper;
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ' && plus_for_space) {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xF]);
    }
  }
  return out;
}

std::string escape_json(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// The part of base64(prefix + value + suffix) that depends only on the value, for a
// prefix of 0, 1 or 2 bytes: base64 works on 3-byte groups, so those are all alignments.
std::vector<std::string> base64_forms(std::string_view value) {
  std::vector<std::string> out;
  out.push_back(core::base64_encode(value));  // the value alone, padding included
  for (std::size_t k = 0; k < 3; ++k) {
    const std::string enc = core::base64_encode(std::string(k, '\0') + std::string(value));
    const std::size_t skip = k == 0 ? 0 : k == 1 ? 2 : 3;   // characters that carry prefix bits
    const std::size_t keep = (8 * (k + value.size())) / 6;  // characters not touched by a suffix
    if (keep > skip + 7) out.push_back(enc.substr(skip, keep - skip));
  }
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) {  // the URL-safe alphabet (JWTs, some tokens)
    std::string url = out[i];
    std::replace(url.begin(), url.end(), '+', '-');
    std::replace(url.begin(), url.end(), '/', '_');
    while (!url.empty() && url.back() == '=') url.pop_back();
    out.push_back(std::move(url));
  }
  return out;
}

std::vector<std::string> forms_of(std::string_view value) {
  std::vector<std::string> out{std::string(value),
                               percent_encode(value, false, false),
                               percent_encode(value, true, false),
                               percent_encode(value, false, true),
                               percent_encode(value, true, true),
                               escape_json(value)};
  for (auto& b : base64_forms(value)) out.push_back(std::move(b));
  return out;
}

void add_form(Patterns& to, std::string form) {
  if (std::find(to.begin(), to.end(), form) == to.end()) to.push_back(std::move(form));
}

// Longest first, so an interval starts at the widest form found there.
void longest_first(Patterns& p) {
  std::sort(p.begin(), p.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string scrub_with(std::string_view text, bool values);

}  // namespace

bool unsafe_in_text(std::string_view form) {
  // What JSON consists of outside its strings: literals, numbers, punctuation, space.
  constexpr std::string_view kSyntax = " \t\r\n{}[]:,0123456789.+-eEtruefalsn";
  if (form.find_first_of("\"\\") != std::string_view::npos) return true;  // may straddle a string's end or eat an escape
  if (form.find_first_not_of(kSyntax) == std::string_view::npos) return true;
  const bool word = std::all_of(form.begin(), form.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  return word && form.size() < 8;  // a word like "title" or "span": a key or a tag of ours
}

void add_secret(std::string_view value) {
  if (value.size() < kMinSecretBytes) return;
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (std::find(st.secrets.begin(), st.secrets.end(), value) != st.secrets.end()) return;
  st.secrets.emplace_back(value);
  auto text = std::make_shared<Patterns>(*st.patterns);
  auto values = std::make_shared<Patterns>(*st.value_patterns);
  for (auto& f : forms_of(value)) {
    if (f.size() < kMinSecretBytes) continue;
    if (!unsafe_in_text(f)) add_form(*text, f);
    add_form(*values, std::move(f));
  }
  longest_first(*text);
  longest_first(*values);
  st.patterns = std::move(text);
  st.value_patterns = std::move(values);
  st.any.store(true, std::memory_order_release);
}

std::string scrub(std::string_view text) { return scrub_with(text, false); }
std::string scrub_value(std::string_view value) { return scrub_with(value, true); }

namespace {

std::string scrub_with(std::string_view text, bool values) {
  auto& st = state();
  if (!st.any.load(std::memory_order_acquire)) return std::string(text);
  std::shared_ptr<const Patterns> patterns;
  {
    std::lock_guard lock(st.mu);
    patterns = values ? st.value_patterns : st.patterns;
  }
  // Every match is located in the input, then overlapping matches are merged: the
  // output is never searched again, so no value (not even one that occurs inside
  // the marker) can make this loop.
  std::vector<std::pair<std::size_t, std::size_t>> hits;
  for (const auto& p : *patterns) {
    for (auto pos = text.find(p); pos != std::string_view::npos; pos = text.find(p, pos + 1)) {
      if (!hits.empty() && hits.back().second >= pos && hits.back().first <= pos)
        hits.back().second = std::max(hits.back().second, pos + p.size());
      else hits.emplace_back(pos, pos + p.size());
    }
  }
  if (hits.empty()) return std::string(text);
  std::sort(hits.begin(), hits.end());
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t i = 0; i < hits.size();) {
    const std::size_t start = hits[i].first;
    std::size_t end = hits[i].second;
    for (++i; i < hits.size() && hits[i].first <= end; ++i) end = std::max(end, hits[i].second);
    out.append(text.substr(copied, start - copied));
    out.append(kMarker);
    copied = end;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace

}  // namespace core::redact
