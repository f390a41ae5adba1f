#include "synth/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace synth {

using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxClaims = 24;
constexpr std::size_t kMaxCites = 12;
constexpr std::size_t kMaxSentenceBytes = 600;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Curly quotes and apostrophes as ASCII, casefolded, whitespace collapsed.
std::string fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (k + 2 < s.size() && static_cast<unsigned char>(s[k]) == 0xE2 && static_cast<unsigned char>(s[k + 1]) == 0x80) {
      const auto c = static_cast<unsigned char>(s[k + 2]);
      if (c == 0x98 || c == 0x99) {
        out += '\'';
        k += 2;
        continue;
      }
      if (c == 0x9C || c == 0x9D) {
        out += '"';
        k += 2;
        continue;
      }
    }
    out += s[k];
  }
  return core::collapse_whitespace(core::casefold(out));
}

std::string source_name(std::string_view id) {
  const sources::Source* s = sources::by_id(id);
  return std::string(s ? s->spoken_names() : id);
}

std::string date_forms(std::string_view ymd) {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  if (ymd.size() != 10) return std::string(ymd);
  const int month = std::atoi(std::string(ymd.substr(5, 2)).c_str());
  const int day = std::atoi(std::string(ymd.substr(8, 2)).c_str());
  if (month < 1 || month > 12) return std::string(ymd);
  const std::string name = kMonths[month - 1];
  return fmt::format("{} {} {} {} {}", ymd, name, name.substr(0, 3), day, ymd.substr(0, 4));
}

// "$1,200" -> "1200", "v1.2.3" -> "1.2.3", "50%" -> "50", "1.2K" -> "1.2k".
std::string normalize_number(std::string_view t) {
  std::string s = core::lower_ascii(t);
  for (std::string_view cur : {"$", "\xE2\x82\xAC", "\xC2\xA3"})
    if (s.rfind(cur, 0) == 0) s.erase(0, cur.size());
  if (!s.empty() && s.front() == 'v') s.erase(0, 1);
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == ',' && k > 0 && k + 1 < s.size() && is_digit(s[k - 1]) && is_digit(s[k + 1])) continue;
    out += s[k];
  }
  while (!out.empty() && out.back() == '%') out.pop_back();
  return out;
}

struct Value {
  double v = 0;
  bool approx = false;  // written with k/M/B: a rounded figure
};

std::optional<Value> value_of(std::string_view token) {
  const std::string n = normalize_number(token);
  std::size_t k = 0;
  std::string digits;
  int dots = 0;
  while (k < n.size() && (is_digit(n[k]) || n[k] == '.')) {
    dots += n[k] == '.';
    digits += n[k++];
  }
  if (digits.empty() || dots > 1) return std::nullopt;  // a version (1.2.3) is matched as written
  Value out{std::atof(digits.c_str()), false};
  const std::string_view rest = std::string_view(n).substr(k);
  if (rest.empty()) return out;
  if (rest == "k") out = {out.v * 1e3, true};
  else if (rest == "m") out = {out.v * 1e6, true};
  else if (rest == "b" || rest == "bn") out = {out.v * 1e9, true};
  else return std::nullopt;
  return out;
}

bool same_value(const Value& a, double b) {
  const double tol = a.approx ? 0.05 * std::max(std::fabs(b), 1.0) : 1e-9 * std::max(std::fabs(b), 1.0);
  return std::fabs(a.v - b) <= tol;
}

// Words that may start a sentence capitalised without being a name.
bool common_word(const std::string& lower) {
  static const std::set<std::string, std::less<>> kWords{
      "the",        "a",          "an",        "this",         "that",        "these",    "those",    "there",
      "it",         "its",        "in",        "on",           "at",          "over",     "across",   "during",
      "after",      "before",     "since",     "meanwhile",    "also",        "both",     "all",      "many",
      "most",       "several",    "some",      "few",          "one",         "two",      "three",    "four",
      "five",       "six",        "seven",     "eight",        "nine",        "ten",      "users",    "people",
      "developers", "commenters", "posters",   "discussion",   "discussions", "threads",  "thread",   "posts",
      "post",       "reports",    "critics",   "researchers",  "maintainers", "others",   "another",  "however",
      "while",      "although",   "overall",   "separately",   "elsewhere",   "other",    "new",      "recent",
      "recently",   "early",      "community", "much",         "more",        "less",     "interest", "attention",
      "work",       "debate",     "questions", "answers",      "talk",        "news",     "coverage", "by",
      "for",        "with",       "as",        "from",         "to",          "of",       "and",      "but",
      "or",         "if",         "when",      "where",        "which",       "who",      "what",     "how",
      "why",        "no",         "not",       "only",         "each",        "every",    "both",     "either",
      "neither",    "top",        "popular",   "trending",     "activity",    "release",  "releases", "version",
      "versions",   "projects",   "project",   "repositories", "a",           "multiple", "various",  "commenters",
      "readers",    "viewers",    "traders",   "markets",      "market",      "bettors",  "about",    "around",
      "nearly",     "almost",     "roughly",   "over",         "under",       "i",        "ai",       "api",
      "apis",       "cli",        "ui",        "llm",          "llms",        "oss",      "faq"};
  static const std::set<std::string, std::less<>> kCalendar{
      "january",   "february", "march",     "april",    "may",    "june",     "july",  "august",
      "september", "october",  "november",  "december", "jan",    "feb",      "mar",   "apr",
      "jun",       "jul",      "aug",       "sep",      "sept",   "oct",      "nov",   "dec",
      "monday",    "tuesday",  "wednesday", "thursday", "friday", "saturday", "sunday"};
  return kWords.count(lower) > 0 || kCalendar.count(lower) > 0 || core::is_stopword(lower);
}

// Quoted phrases (straight or curly double quotes), and the text with them blanked out.
std::vector<std::string> quoted(std::string_view text, std::string* outside) {
  std::vector<std::string> out;
  std::string rest;
  std::size_t k = 0;
  auto opening = [&](std::size_t at, std::size_t* len) {
    if (text[at] == '"') {
      *len = 1;
      return true;
    }
    if (text.compare(at, 3, "\xE2\x80\x9C") == 0) {
      *len = 3;
      return true;
    }
    return false;
  };
  while (k < text.size()) {
    std::size_t len = 0;
    if (!opening(k, &len)) {
      rest += text[k++];
      continue;
    }
    std::size_t end = std::string_view::npos;
    std::size_t close_len = 0;
    for (std::size_t j = k + len; j < text.size(); ++j) {
      if (text[j] == '"') {
        end = j;
        close_len = 1;
        break;
      }
      if (text.compare(j, 3, "\xE2\x80\x9D") == 0) {
        end = j;
        close_len = 3;
        break;
      }
    }
    if (end == std::string_view::npos) {
      rest += text.substr(k);
      break;
    }
    out.emplace_back(text.substr(k + len, end - k - len));
    rest += ' ';
    k = end + close_len;
  }
  *outside = rest;
  return out;
}

std::string trim_punct(std::string_view w) {
  auto punct = [](char c) { return std::string_view("()[]{},;:!?.'\"*`").find(c) != std::string_view::npos; };
  while (!w.empty() && punct(w.front())) w.remove_prefix(1);
  while (!w.empty() && punct(w.back())) w.remove_suffix(1);
  std::string s(w);
  // Curly quotes at either end, and a possessive.
  for (std::string_view q : {"\xE2\x80\x9C", "\xE2\x80\x9D", "\xE2\x80\x98", "\xE2\x80\x99"}) {
    if (s.rfind(q, 0) == 0) s.erase(0, q.size());
    if (s.size() >= q.size() && s.compare(s.size() - q.size(), q.size(), q) == 0) s.resize(s.size() - q.size());
  }
  for (std::string_view poss : {"'s", "\xE2\x80\x99s"})
    if (s.size() > poss.size() && s.compare(s.size() - poss.size(), poss.size(), poss) == 0) s.resize(s.size() - poss.size());
  return s;
}

// Words of the sentence that read as names of people, projects or products.
std::vector<std::string> names_in(std::string_view text) {
  std::vector<std::string> out;
  std::size_t k = 0;
  while (k < text.size()) {
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    std::size_t end = k;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    if (end == k) break;
    const std::string word = trim_punct(text.substr(k, end - k));
    k = end;
    if (word.empty()) continue;
    if (word.front() == '@' && word.size() > 1) {
      out.push_back(word);
      continue;
    }
    // Parts of a hyphenated or slashed word are judged one by one ("Rust-based": "Rust").
    std::size_t p = 0;
    while (p <= word.size()) {
      const auto q = word.find_first_of("-/", p);
      const std::string part = word.substr(p, q == std::string::npos ? std::string::npos : q - p);
      p = q == std::string::npos ? word.size() + 1 : q + 1;
      if (part.empty() || std::none_of(part.begin(), part.end(), [](char c) { return is_alpha(c); })) continue;
      const std::string lower = core::lower_ascii(part);
      const bool inner_upper = std::any_of(part.begin() + 1, part.end(), [](char c) { return is_upper(c); });
      bool dotted = false;
      for (std::size_t j = 1; j + 1 < part.size(); ++j)
        // llama.cpp, next.js, io_uring: a letter on one side at least (1.40 is a version).
        if ((part[j] == '.' || part[j] == '_') && std::isalnum(static_cast<unsigned char>(part[j - 1])) &&
            std::isalnum(static_cast<unsigned char>(part[j + 1])) && (is_alpha(part[j - 1]) || is_alpha(part[j + 1])))
          dotted = true;
      if (dotted && part.size() <= 4) dotted = false;  // "e.g", "i.e"
      const bool capital = is_upper(part.front());
      if (common_word(lower) && !dotted) continue;
      if (inner_upper || dotted || capital) out.push_back(part);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> numeric_tokens(std::string_view text) {
  std::vector<std::string> out;
  std::size_t k = 0;
  while (k < text.size()) {
    if (!is_digit(text[k])) {
      ++k;
      continue;
    }
    std::size_t start = k;
    // A currency sign or a "v" directly before the number belongs to it ("$5", "v1.2").
    if (start >= 1 && (text[start - 1] == '$' ||
                       ((text[start - 1] == 'v' || text[start - 1] == 'V') && (start < 2 || !is_alpha(text[start - 2])))))
      --start;
    else if (start >= 3 && (text.compare(start - 3, 3, "\xE2\x82\xAC") == 0)) start -= 3;
    else if (start >= 2 && (text.compare(start - 2, 2, "\xC2\xA3") == 0)) start -= 2;
    std::size_t end = k;
    while (end < text.size()) {
      const char c = text[end];
      if (is_digit(c) || is_alpha(c) || c == '%') {
        ++end;
        continue;
      }
      if ((c == '.' || c == ',') && end + 1 < text.size() && is_digit(text[end + 1])) {
        ++end;
        continue;
      }
      break;
    }
    out.emplace_back(text.substr(start, end - start));
    k = end;
  }
  return out;
}

std::optional<std::vector<Claim>> parse_answer(std::string_view content, std::string* why) {
  std::string_view s = core::trim(content);
  if (s.rfind("```", 0) == 0) {  // a fenced block around the JSON
    const auto nl = s.find('\n');
    s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
    const auto close = s.rfind("```");
    if (close != std::string_view::npos) s = s.substr(0, close);
    s = core::trim(s);
  }
  const json doc = core::json::parse_or_discarded(s);
  if (doc.is_discarded() || !doc.is_object()) {
    *why = "the model did not answer in the JSON form asked for ({\"sentences\":[{\"text\",\"cites\"}]})";
    return std::nullopt;
  }
  if (!doc.contains("sentences") || !doc["sentences"].is_array()) {
    *why = "the model's JSON has no \"sentences\" list";
    return std::nullopt;
  }
  std::vector<Claim> out;
  for (const auto& e : doc["sentences"]) {
    if (out.size() >= kMaxClaims) break;
    Claim c;
    if (e.is_object() && e.contains("text") && e["text"].is_string())
      c.text = core::printable_line(core::redact::scrub(e["text"].get<std::string>()));
    if (e.is_object() && e.contains("cites") && e["cites"].is_array())
      for (const auto& id : e["cites"]) {
        if (c.cites.size() >= kMaxCites) break;
        if (id.is_string()) c.cites.push_back(core::printable_line(id.get<std::string>()));
        else if (id.is_number_integer()) c.cites.push_back(std::to_string(id.get<long long>()));
      }
    out.push_back(std::move(c));
  }
  if (out.empty()) {
    *why = "the model's answer holds no sentences";
    return std::nullopt;
  }
  return out;
}

Verifier::Verifier(const std::vector<Evidence>& evidence) {
  for (const auto& e : evidence) {
    std::string text = e.title + " \n " + e.snippet + " \n " + e.container + " \n " + e.author + " \n " + date_forms(e.date) +
                       " \n " + e.engagement + " \n " + source_name(e.source) + " \n " + e.url;
    for (const auto& c : e.comments) text += " \n " + c;
    for (const auto& p : e.ratio_fields_pct) text += " " + p;
    Known k;
    k.folded = fold(text);
    for (auto& w : core::tokenize(k.folded)) k.words.insert(std::move(w));
    for (const auto& t : numeric_tokens(text)) {
      k.numbers.insert(normalize_number(t));
      if (auto v = value_of(t); v && !v->approx) k.values.push_back(v->v);
    }
    for (double v : e.engagement_values) {
      k.values.push_back(v);
      k.numbers.insert(normalize_number(render::human_number(v)));
      if (std::floor(v) == v && std::fabs(v) < 1e15) k.numbers.insert(fmt::format("{:.0f}", v));
    }
    auto& slot = known_[e.id];
    if (slot.folded.empty()) slot = std::move(k);
  }
}

std::optional<std::string> Verifier::check(const Claim& claim) const {
  if (claim.text.empty()) return "malformed: a sentence without text";
  if (claim.text.size() > kMaxSentenceBytes) return "too-long: over " + std::to_string(kMaxSentenceBytes) + " bytes";
  if (claim.cites.empty()) return "uncited";
  std::vector<const Known*> cited;
  for (const auto& id : claim.cites) {
    const auto it = known_.find(id);
    if (it == known_.end()) return "unknown-cite: " + core::truncate_utf8(id, 80);
    cited.push_back(&it->second);
  }
  std::string outside;
  for (const auto& q : quoted(claim.text, &outside)) {
    const std::string phrase(core::trim(trim_punct(fold(q))));
    if (phrase.empty()) continue;
    if (std::none_of(cited.begin(), cited.end(), [&](const Known* k) { return k->folded.find(phrase) != std::string::npos; }))
      return "quote: \u201c" + core::truncate_utf8(q, 80) + "\u201d is in no cited item";
  }
  for (const auto& t : numeric_tokens(claim.text)) {
    const std::string n = normalize_number(t);
    const auto v = value_of(t);
    const bool found = std::any_of(cited.begin(), cited.end(), [&](const Known* k) {
      if (k->numbers.count(n) > 0) return true;
      return v && std::any_of(k->values.begin(), k->values.end(), [&](double e) { return same_value(*v, e); });
    });
    if (!found) return "number: " + t + " is in no cited item";
  }
  for (const auto& name : names_in(outside)) {
    const std::string f = fold(name);
    const std::string bare = f.front() == '@' ? f.substr(1) : f;
    const auto tokens = core::tokenize(bare);
    const bool found = std::any_of(cited.begin(), cited.end(), [&](const Known* k) {
      if (k->folded.find(bare) == std::string::npos) return false;
      return std::all_of(tokens.begin(), tokens.end(), [&](const std::string& w) { return k->words.count(w) > 0; });
    });
    if (!found) return "name: " + name + " is in no cited item";
  }
  return std::nullopt;
}

}  // namespace synth
