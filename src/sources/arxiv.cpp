// arXiv through the export API (export.arxiv.org/api/query, Atom).
// arXiv asks for one request per 3 s, so every sub-query is folded into a single
// OR query and each entry is attributed back to every sub-query it matches.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "core/time.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;

constexpr std::string_view kBase = "https://export.arxiv.org/api/query";
constexpr int kMaxResults = 100;

// --- query building -------------------------------------------------------

// One sub-query as arXiv search terms: quoted phrases stay phrases, the rest
// becomes single words without stopwords.
struct Terms {
  std::vector<std::string> terms;   // already in arXiv syntax: all:word / all:"two words"
  std::vector<std::string> tokens;  // plain tokens, for attributing entries afterwards
};

// arXiv's query parser treats + # and quotes specially; terms keep letters and digits.
std::string clean_token(std::string_view t) {
  std::string out;
  for (char c : t)
    if (c != '+' && c != '#' && c != '"') out.push_back(c);
  return out;
}

Terms terms_of(std::string_view text) {
  Terms out;
  std::string rest;
  // Pull out "quoted phrases" first.
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"') {
      const auto close = text.find('"', i + 1);
      if (close != std::string_view::npos) {
        std::vector<std::string> words;
        for (auto& w : core::tokenize(text.substr(i + 1, close - i - 1)))
          if (auto c = clean_token(w); !c.empty()) words.push_back(std::move(c));
        if (words.size() == 1) {
          out.terms.push_back("all:" + words[0]);
        } else if (words.size() > 1) {
          std::string phrase;
          for (const auto& w : words) phrase += (phrase.empty() ? "" : " ") + w;
          out.terms.push_back("all:\"" + phrase + "\"");
        }
        for (auto& w : words)
          if (!core::is_stopword(w)) out.tokens.push_back(std::move(w));
        i = close + 1;
        continue;
      }
    }
    rest.push_back(text[i]);
    ++i;
  }
  std::vector<std::string> words;
  for (auto& w : core::tokenize(rest))
    if (auto c = clean_token(w); !c.empty()) words.push_back(std::move(c));
  std::vector<std::string> kept;
  for (const auto& w : words)
    if (!core::is_stopword(w)) kept.push_back(w);
  // A query made only of stopwords ("the who") still means something.
  if (kept.empty() && out.terms.empty()) kept = words;
  std::set<std::string> seen;
  for (auto& w : kept) {
    if (!seen.insert(w).second) continue;
    out.terms.push_back("all:" + w);
    out.tokens.push_back(std::move(w));
  }
  return out;
}

std::string arxiv_time(core::UnixSeconds t) {
  const auto days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  const auto civil = core::civil_from_days(days);
  const auto secs = t - days * 86400;
  return fmt::format("{:04}{:02}{:02}{:02}{:02}", civil.y, civil.m, civil.d, secs / 3600, (secs % 3600) / 60);
}

// The encoding the arXiv manual documents: spaces as '+', parentheses and quotes
// percent-encoded, field colons and the date-range brackets left as they are.
std::string encode_search_query(std::string_view q) {
  std::string out;
  for (unsigned char c : q) {
    if (c == ' ') out.push_back('+');
    else if (std::isalnum(c) || c == ':' || c == '[' || c == ']' || c == '-' || c == '_' || c == '.' || c == '~')
      out.push_back(static_cast<char>(c));
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

// --- Atom parsing ---------------------------------------------------------

// Element names without their namespace prefix: feeds differ in where they
// declare prefixes (the legacy format repeats xmlns on every element).
std::string_view local_name(const pugi::xml_node& n) {
  std::string_view name = n.name();
  const auto colon = name.rfind(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

pugi::xml_node child(const pugi::xml_node& parent, std::string_view local) {
  for (auto c : parent.children())
    if (c.type() == pugi::node_element && local_name(c) == local) return c;
  return {};
}

std::string text_of(const pugi::xml_node& parent, std::string_view local) {
  auto n = child(parent, local);
  return n ? core::collapse_whitespace(n.text().get()) : std::string();
}

// "http://arxiv.org/abs/1201.4869v1" -> "1201.4869"; "…/abs/cond-mat/0102536v1" -> "cond-mat/0102536".
std::string native_id(std::string_view id) {
  const auto abs = id.find("/abs/");
  if (abs == std::string_view::npos) return {};
  std::string_view rest = id.substr(abs + 5);
  if (const auto end = rest.find_first_of("?#"); end != std::string_view::npos) rest = rest.substr(0, end);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[rest.size() - 1 - digits]))) ++digits;
  if (digits > 0 && digits < rest.size() && rest[rest.size() - 1 - digits] == 'v')
    rest = rest.substr(0, rest.size() - 1 - digits);
  return std::string(rest);
}

bool is_error_entry(const pugi::xml_node& entry) {
  const std::string id = text_of(entry, "id");
  return id.find("/api/errors") != std::string::npos || (text_of(entry, "title") == "Error" && native_id(id).empty());
}

std::string https(std::string url) {
  if (url.rfind("http://", 0) == 0) url.insert(4, "s");
  return url;
}

struct Entry {
  model::Item item;
  std::set<std::string> tokens;  // title + summary words, for attribution
};

std::optional<Entry> parse_entry(const pugi::xml_node& e) {
  const std::string raw_id = text_of(e, "id");
  const std::string id = native_id(raw_id);
  const std::string title = text_of(e, "title");
  if (id.empty() || title.empty()) return std::nullopt;
  Entry out;
  model::Item& item = out.item;
  item.id = "arxiv:" + id;
  item.source = "arxiv";
  item.title = title;
  std::string url;
  for (auto link : e.children()) {
    if (link.type() != pugi::node_element || local_name(link) != "link") continue;
    if (std::string_view(link.attribute("rel").as_string()) == "alternate") {
      url = link.attribute("href").as_string();
      break;
    }
  }
  if (url.empty()) url = raw_id;
  // Versionless abstract URL: it always shows the latest version and matches how people link papers.
  if (url.find("arxiv.org/abs/") != std::string::npos) url = "https://arxiv.org/abs/" + id;
  item.url = https(std::move(url));
  std::vector<std::string> authors;
  for (auto a : e.children()) {
    if (a.type() != pugi::node_element || local_name(a) != "author") continue;
    if (auto name = text_of(a, "name"); !name.empty()) authors.push_back(std::move(name));
  }
  if (authors.size() == 1) item.author = authors[0];
  else if (authors.size() > 1) item.author = authors[0] + " et al.";
  if (auto primary = child(e, "primary_category"); primary && *primary.attribute("term").as_string())
    item.container = primary.attribute("term").as_string();
  else if (auto cat = child(e, "category"); cat && *cat.attribute("term").as_string())
    item.container = cat.attribute("term").as_string();
  std::string date = text_of(e, "published");
  if (date.empty()) date = text_of(e, "updated");
  if (auto t = core::parse_iso8601(date)) item.published_at = *t;
  const std::string summary = text_of(e, "summary");
  item.snippet = core::truncate_utf8(summary, kSnippetBytes);
  for (auto& t : core::tokenize(title + " " + summary)) out.tokens.insert(std::move(t));
  return out;
}

struct Parsed {
  std::optional<Failure> failure;
  std::vector<Entry> entries;
};

Parsed parse_feed(const std::string& body) {
  Parsed out;
  pugi::xml_document doc;
  const auto res = doc.load_buffer(body.data(), body.size());
  if (!res) {
    out.failure = Failure{SourceState::schema_drift, fmt::format("malformed Atom feed: {}", res.description())};
    return out;
  }
  const auto feed = doc.document_element();
  if (local_name(feed) != "feed") {
    out.failure = Failure{SourceState::schema_drift, fmt::format("expected an Atom <feed>, got <{}>", feed.name())};
    return out;
  }
  std::size_t seen = 0;
  for (auto e : feed.children()) {
    if (e.type() != pugi::node_element || local_name(e) != "entry") continue;
    if (++seen > kMaxArrayElements) break;
    if (is_error_entry(e)) {
      std::string why = text_of(e, "summary");
      if (why.empty()) why = text_of(e, "id");
      out.failure = Failure{SourceState::error, "arXiv rejected the query: " + core::truncate_utf8(why, 200)};
      out.entries.clear();
      return out;
    }
    if (auto entry = parse_entry(e)) out.entries.push_back(std::move(*entry));
  }
  return out;
}

class Arxiv final : public Source {
 public:
  std::string_view id() const override { return "arxiv"; }
  std::vector<std::string_view> hosts() const override { return {"export.arxiv.org"}; }
  std::string_view name() const override { return "arXiv"; }
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"prediction", 0.7}, {"research", 1.4}};
    return kWeights;
  }
  std::span<const EngagementField> engagement() const override { return {}; }  // no signal

  SourceResult search(const Query& q, Env& env) const override {
    std::vector<Terms> groups;
    std::vector<std::string> clauses;
    for (const auto& sq : q.sub_queries) {
      groups.push_back(terms_of(sq.text));
      const auto& terms = groups.back().terms;
      if (terms.empty()) continue;
      std::string clause;
      for (const auto& t : terms) clause += (clause.empty() ? "" : " AND ") + t;
      clauses.push_back(terms.size() > 1 && q.sub_queries.size() > 1 ? "(" + clause + ")" : clause);
    }
    if (clauses.empty()) return {SourceState::no_results, "no searchable words in the query", {}, 0};
    std::string any;
    for (const auto& c : clauses) any += (any.empty() ? "" : " OR ") + c;
    const std::string search =
        fmt::format("({}) AND submittedDate:[{} TO {}]", any, arxiv_time(q.window.from), arxiv_time(q.window.to));
    const int n = std::clamp(q.limit * static_cast<int>(std::max<std::size_t>(1, q.sub_queries.size())), 1, kMaxResults);
    const std::string url = fmt::format("{}?search_query={}&sortBy=submittedDate&sortOrder=descending&start=0&max_results={}",
                                        kBase, encode_search_query(search), n);
    ResultBuilder out(n);  // one request for every sub-query: ranks run across them
    ++out.requests();
    const Fetched f = fetch(env, url, Expect::xml);
    if (f.failure) {
      // arXiv answers a bad query with HTTP 400 and an Atom error entry: its summary is the better reason.
      if (f.response.error == http::NetError::none && f.response.status >= 400 && f.response.status < 500 &&
          f.response.body.find("<feed") != std::string::npos) {
        if (auto p = parse_feed(f.response.body); p.failure && p.failure->state == SourceState::error) {
          out.fail(*p.failure);
          return out.finish();
        }
      }
      out.fail(*f.failure);
      return out.finish();
    }
    Parsed parsed = parse_feed(f.response.body);
    if (parsed.failure) {
      out.fail(*parsed.failure);
      return out.finish();
    }
    out.succeed();
    // Each entry credited to the sub-queries whose words (its all: terms') its title and
    // abstract carry (answered_subqueries; arXiv also searches the abstract's stems).
    std::vector<std::vector<std::string>> wanted;
    for (const auto& g : groups) wanted.push_back(g.tokens);
    std::vector<int> ranks(groups.size(), 0);  // arXiv's order within each sub-query
    for (auto& e : parsed.entries) {
      const auto subs = answered_subqueries(wanted, [&](const std::string& w) { return e.tokens.count(w) > 0; });
      out.add_credited(std::move(e.item), subs, ranks);
    }
    return out.finish();
  }
};

}  // namespace

std::unique_ptr<Source> make_arxiv() { return std::make_unique<Arxiv>(); }

}  // namespace sources
