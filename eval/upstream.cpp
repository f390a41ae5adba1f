#include "upstream.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/text.hpp"
#include "core/time.hpp"
#include "scenario.hpp"

namespace l30eval {

using nlohmann::json;
using testing_support::FakeReply;
using testing_support::FakeRequest;

namespace {

// ---- folding, as a search engine indexes text --------------------------------------

// \"u, \'e, \`a, \^o, \~n, \c{c}, {\"u}, \"{u}: the accent applied to the next letter.
std::string decode_tex(std::string_view s) {
  static const std::map<char, std::string> kCombining{{'"', "\xCC\x88"}, {'\'', "\xCC\x81"}, {'`', "\xCC\x80"},
                                                      {'^', "\xCC\x82"}, {'~', "\xCC\x83"},  {'c', "\xCC\xA7"}};
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && kCombining.count(s[i + 1])) {
      std::size_t j = i + 2;
      if (s[i + 1] == 'c' && (j >= s.size() || s[j] != '{')) {
        out.push_back(s[i]);
        continue;
      }
      bool brace = j < s.size() && s[j] == '{';
      if (brace) ++j;
      if (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) {
        out.push_back(s[j]);
        out += kCombining.at(s[i + 1]);
        i = j + (brace && j + 1 < s.size() && s[j + 1] == '}' ? 1 : 0);
        continue;
      }
    }
    if (s[i] == '{' || s[i] == '}') continue;
    out.push_back(s[i]);
  }
  return out;
}

std::string strip_marks_casefold(std::string_view s) {
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()), &out,
                              static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT | UTF8PROC_STRIPMARK |
                                                             UTF8PROC_CASEFOLD | UTF8PROC_IGNORE));
  if (n < 0 || out == nullptr) return core::lower_ascii(s);
  std::string r(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return r;
}

bool is_ascii_word(const std::string& w) {
  return std::all_of(w.begin(), w.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

std::string search_fold(std::string_view text) {
  std::string decoded = decode_tex(text);
  if (decoded.find('&') != std::string::npos) decoded = core::html_to_text(decoded);
  return strip_marks_casefold(core::sanitize_utf8(decoded));
}

std::vector<std::string> search_words(std::string_view text) {
  const std::string f = search_fold(text);
  std::vector<std::string> out;
  std::string cur;
  for (char ch : f) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u) || u >= 0x80) {
      cur.push_back(ch);
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool matches_all(const std::vector<std::string>& doc_words, const std::string& doc_folded,
                 const std::vector<std::string>& query) {
  if (query.empty()) return false;
  for (const auto& q : query) {
    const bool found = is_ascii_word(q) ? std::find(doc_words.begin(), doc_words.end(), q) != doc_words.end()
                                        : doc_folded.find(q) != std::string::npos;
    if (!found) return false;
  }
  return true;
}

namespace {

bool matches_any(const std::vector<std::string>& doc_words, const std::string& doc_folded,
                 const std::vector<std::string>& query) {
  return std::any_of(query.begin(), query.end(),
                     [&](const std::string& q) { return !core::is_stopword(q) && matches_all(doc_words, doc_folded, {q}); });
}

struct Doc {
  std::vector<std::string> words;
  std::string folded;
};

Doc doc_of(const std::string& text) { return {search_words(text), search_fold(text)}; }

std::string s(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || !it->is_string() ? std::string() : it->get<std::string>();
}

double n(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  return it == j.end() || !it->is_number() ? fallback : it->get<double>();
}

json num_or_null(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? json(nullptr) : *it;
}

std::string iso_ms(core::UnixSeconds t) {  // 2026-11-20T15:02:11.000Z
  std::string iso = core::format_iso8601(t);
  return iso.substr(0, iso.size() - 1) + ".000Z";
}

std::string iso_offset(core::UnixSeconds t) {  // 2026-11-20T15:02:11+00:00
  std::string iso = core::format_iso8601(t);
  return iso.substr(0, iso.size() - 1) + "+00:00";
}

std::string xml_escape(std::string_view in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string html_escape(std::string_view in) {
  std::string out = xml_escape(in);
  std::string r;
  for (char c : out) r += c == '\'' ? std::string("&#39;") : std::string(1, c);
  return r;
}

std::string slug_of(std::string_view title, std::size_t max = 50) {
  std::string out;
  for (char c : core::lower_ascii(title)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(c);
    else if (!out.empty() && out.back() != '_') out.push_back('_');
    if (out.size() >= max) break;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

// ---- bodies ------------------------------------------------------------------------

std::string hn_body(const std::vector<const CaseItem*>& items, const std::string& query) {
  json hits = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    const std::string id = s(d, "id");
    const std::string author = s(d, "author");
    json hit = json::object();
    hit["created_at"] = iso_ms(it->at);
    hit["title"] = s(d, "title");
    hit["url"] = d.contains("url") && d["url"].is_string() ? d["url"] : json(nullptr);
    hit["author"] = author;
    hit["points"] = num_or_null(d, "points");
    hit["story_text"] = d.contains("text") ? d["text"] : json(nullptr);
    hit["comment_text"] = nullptr;
    hit["num_comments"] = num_or_null(d, "comments");
    hit["story_id"] = std::stoll(id);
    hit["story_title"] = nullptr;
    hit["story_url"] = nullptr;
    hit["parent_id"] = nullptr;
    hit["created_at_i"] = it->at;
    json tags = json::array({"story", "author_" + author, "story_" + id});
    if (s(d, "title").rfind("Show HN", 0) == 0) tags.push_back("show_hn");
    if (s(d, "title").rfind("Ask HN", 0) == 0) tags.push_back("ask_hn");
    hit["_tags"] = tags;
    hit["objectID"] = id;
    hits.push_back(std::move(hit));
  }
  json doc{{"hits", hits},
           {"nbHits", hits.size()},
           {"page", 0},
           {"nbPages", 1},
           {"hitsPerPage", 25},
           {"exhaustiveNbHits", true},
           {"query", query},
           {"params", "query=" + core::url_encode(query) + "&tags=story"},
           {"processingTimeMS", 2}};
  return doc.dump();
}

std::string reddit_atom(const std::vector<const CaseItem*>& items, const std::string& query) {
  std::string out =
      R"(<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">)";
  const std::string q = core::url_encode(query);
  out += "<updated>2026-11-29T10:00:00+00:00</updated><icon>https://www.redditstatic.com/icon.png/</icon>";
  out += fmt::format(
      "<id>/search.rss?q={0}&amp;sort=relevance&amp;t=month</id><link rel=\"self\" "
      "href=\"https://www.reddit.com/search.rss?q={0}&amp;sort=relevance&amp;t=month\" type=\"application/atom+xml\" />",
      q);
  out += fmt::format("<title>reddit.com: search results - {}</title>", xml_escape(query));
  for (const auto* it : items) {
    const json& d = it->data;
    const std::string id = s(d, "id"), sub = s(d, "sub"), author = s(d, "author"), title = s(d, "title");
    const std::string permalink = fmt::format("https://www.reddit.com/r/{}/comments/{}/{}/", sub, id, slug_of(title));
    const std::string link = s(d, "url").empty() ? permalink : s(d, "url");
    const bool self_text =
        d.contains("selftext") && (d["selftext"].is_array() ? !d["selftext"].empty() : !s(d, "selftext").empty());
    std::string html;
    if (self_text) {
      html += "<!-- SC_OFF --><div class=\"md\">";
      for (const auto& para : d["selftext"].is_array() ? d["selftext"] : json::array({d["selftext"]}))
        html += "<p>" + html_escape(para.get<std::string>()) + "</p> ";
      html += "</div><!-- SC_ON --> ";
    } else {
      html += "<table> <tr><td> ";
    }
    html += fmt::format(
        "&#32; submitted by &#32; <a href=\"https://www.reddit.com/user/{0}\"> /u/{0} </a> <br/> "
        "<span><a href=\"{1}\">[link]</a></span> &#32; <span><a href=\"{2}\">[comments]</a></span>",
        author, html_escape(link), permalink);
    if (!self_text) html += " </td></tr></table>";
    out += fmt::format("<entry><author><name>/u/{0}</name><uri>https://www.reddit.com/user/{0}</uri></author>", author);
    out += fmt::format("<category term=\"{0}\" label=\"r/{0}\"/>", sub);
    out += "<content type=\"html\">" + xml_escape(html) + "</content>";
    out += fmt::format("<id>t3_{}</id><link href=\"{}\" /><updated>{}</updated><published>{}</published>", id, permalink,
                       iso_offset(it->at), iso_offset(it->at));
    out += "<title>" + xml_escape(title) + "</title></entry>";
  }
  return out + "</feed>";
}

std::string arctic_body(const std::vector<const CaseItem*>& items) {
  json data = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    data.push_back({{"id", s(d, "id")},
                    {"score", num_or_null(d, "score")},
                    {"num_comments", num_or_null(d, "comments")},
                    {"upvote_ratio", d.value("ratio", 0.95)},
                    {"created_utc", it->at}});
  }
  return json{{"data", data}}.dump();
}

std::string github_body(const std::vector<const CaseItem*>& items) {
  json out = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    const long long id = d["id"].get<long long>();
    if (d.value("kind", std::string("repo")) == "repo") {
      const std::string full = s(d, "full_name");
      const std::string owner = full.substr(0, full.find('/'));
      const std::string created = core::format_iso8601(it->at);
      out.push_back(
          {{"id", id},
           {"node_id", "R_kgDO" + std::to_string(id)},
           {"name", full.substr(full.find('/') + 1)},
           {"full_name", full},
           {"private", false},
           {"owner",
            {{"login", owner}, {"id", 100000 + id % 9000}, {"type", "User"}, {"html_url", "https://github.com/" + owner}}},
           {"html_url", "https://github.com/" + full},
           {"description", d.contains("description") ? d["description"] : json(nullptr)},
           {"fork", false},
           {"url", "https://api.github.com/repos/" + full},
           {"created_at", created},
           {"updated_at", "2026-11-28T20:00:00Z"},
           {"pushed_at", "2026-11-28T19:59:00Z"},
           {"homepage", nullptr},
           {"size", 120},
           {"stargazers_count", d.value("stars", 0)},
           {"watchers_count", d.value("stars", 0)},
           {"language", d.contains("language") ? d["language"] : json(nullptr)},
           {"forks_count", d.value("forks", 0)},
           {"open_issues_count", 1},
           {"license", nullptr},
           {"topics", d.value("topics", json::array())},
           {"visibility", "public"},
           {"forks", d.value("forks", 0)},
           {"open_issues", 1},
           {"watchers", d.value("stars", 0)},
           {"default_branch", "main"},
           {"score", 1.0}});
    } else {
      const std::string repo = s(d, "repo");
      const long long number = d.value("number", 1LL);
      json labels = json::array();
      for (const auto& l : d.value("labels", json::array())) labels.push_back({{"name", l}});
      const double reactions = n(d, "reactions");
      out.push_back({{"url", fmt::format("https://api.github.com/repos/{}/issues/{}", repo, number)},
                     {"repository_url", "https://api.github.com/repos/" + repo},
                     {"html_url", fmt::format("https://github.com/{}/issues/{}", repo, number)},
                     {"id", id},
                     {"number", number},
                     {"title", s(d, "title")},
                     {"user", {{"login", s(d, "user")}, {"id", 5000 + id % 1000}}},
                     {"labels", labels},
                     {"state", "open"},
                     {"comments", d.value("comments", 0)},
                     {"created_at", core::format_iso8601(it->at)},
                     {"updated_at", "2026-11-28T10:00:00Z"},
                     {"author_association", "NONE"},
                     {"body", d.contains("body") ? d["body"] : json(nullptr)},
                     {"reactions",
                      {{"url", fmt::format("https://api.github.com/repos/{}/issues/{}/reactions", repo, number)},
                       {"total_count", reactions},
                       {"+1", reactions},
                       {"-1", 0}}},
                     {"score", 1.0}});
    }
  }
  return json{{"total_count", out.size()}, {"incomplete_results", false}, {"items", out}}.dump(1);
}

std::string stackexchange_body(const std::vector<const CaseItem*>& items) {
  json out = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    const long long id = d["id"].get<long long>();
    const std::string user = s(d, "user");
    json q{{"tags", d.value("tags", json::array())},
           {"owner",
            {{"account_id", id % 100000},
             {"reputation", 150},
             {"user_id", id % 1000000},
             {"user_type", "registered"},
             {"display_name", user},
             {"link", "https://stackoverflow.com/users/" + std::to_string(id % 1000000)}}},
           {"is_answered", d.value("answered", false)},
           {"view_count", d.value("views", 0)},
           {"answer_count", d.value("answers", 0)},
           {"score", d.value("score", 0)},
           {"last_activity_date", it->at + 3600},
           {"creation_date", it->at},
           {"question_id", id},
           {"content_license", "CC BY-SA 4.0"},
           {"link", fmt::format("https://stackoverflow.com/questions/{}/{}", id, slug_of(search_fold(s(d, "title"))))},
           {"title", s(d, "title")},
           {"body", s(d, "body")}};
    out.push_back(std::move(q));
  }
  return json{{"items", out}, {"has_more", false}, {"quota_max", 300}, {"quota_remaining", 280}}.dump(1);
}

std::string lobsters_body(const std::vector<const CaseItem*>& items) {
  json out = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    const std::string id = s(d, "id");
    const std::string thread = fmt::format("https://lobste.rs/s/{}/{}", id, slug_of(s(d, "title"), 30));
    out.push_back({{"short_id", id},
                   {"short_id_url", "https://lobste.rs/s/" + id},
                   {"created_at", core::format_iso8601(it->at - 6 * 3600).substr(0, 19) + ".000-06:00"},
                   {"title", s(d, "title")},
                   {"url", s(d, "url")},
                   {"score", d.value("score", 1)},
                   {"flags", 0},
                   {"comment_count", d.value("comments", 0)},
                   {"description", s(d, "description")},
                   {"description_plain", s(d, "description")},
                   {"comments_url", thread},
                   {"submitter_user", s(d, "user")},
                   {"user_is_author", false},
                   {"tags", d.value("tags", json::array())}});
  }
  return out.dump();
}

std::string polymarket_body(const std::vector<const CaseItem*>& items) {
  json events = json::array();
  for (const auto* it : items) {
    const json& d = it->data;
    const std::string id = s(d, "id");
    json markets = json::array();
    int k = 0;
    for (const auto& m : d.value("markets", json::array())) {
      json outcomes = json::array(), prices = json::array();
      for (const auto& o : m.value("outcomes", json::array({"Yes", "No"}))) outcomes.push_back(o);
      for (const auto& p : m.value("prices", json::array())) prices.push_back(fmt::format("{}", p.get<double>()));
      const double vol = n(m, "volume", n(d, "volume") / std::max<double>(1, static_cast<double>(d["markets"].size())));
      markets.push_back({{"id", id + std::to_string(++k)},
                         {"question", s(m, "question")},
                         {"slug", slug_of(s(m, "question"))},
                         {"endDate", s(d, "end")},
                         {"liquidity", fmt::format("{:.4f}", n(d, "liquidity") / 2)},
                         {"startDate", core::format_iso8601(it->at)},
                         {"outcomes", outcomes.dump()},
                         {"outcomePrices", prices.dump()},
                         {"volume", fmt::format("{:.2f}", vol)},
                         {"active", true},
                         {"closed", false},
                         {"archived", false},
                         {"volumeNum", vol},
                         {"liquidityNum", n(d, "liquidity") / 2},
                         {"volume24hr", n(d, "volume24hr") / 2},
                         {"acceptingOrders", true}});
    }
    events.push_back({{"id", id},
                      {"ticker", s(d, "slug")},
                      {"slug", s(d, "slug")},
                      {"title", s(d, "title")},
                      {"description", s(d, "description")},
                      {"startDate", core::format_iso8601(it->at)},
                      {"creationDate", core::format_iso8601(it->at)},
                      {"endDate", s(d, "end")},
                      {"active", true},
                      {"closed", false},
                      {"archived", false},
                      {"liquidity", n(d, "liquidity")},
                      {"volume", fmt::format("{:.2f}", n(d, "volume"))},
                      {"createdAt", core::format_iso8601(it->at)},
                      {"updatedAt", d.contains("updated") ? d["updated"] : json(core::format_iso8601(it->at))},
                      {"volume24hr", n(d, "volume24hr")},
                      {"commentCount", d.value("comments", 0)},
                      {"markets", markets}});
  }
  return json{{"events", events},
              {"tags", json::array()},
              {"profiles", json::array()},
              {"pagination", {{"hasMore", false}, {"totalResults", events.size()}}}}
      .dump();
}

std::string arxiv_body(const std::vector<const CaseItem*>& items, const std::string& query) {
  std::string out = R"(<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
)";
  out += "  <id>https://arxiv.org/api/eval</id>\n  <title>arXiv Query: search_query=" + xml_escape(query) + "</title>\n";
  out += "  <updated>2026-11-29T00:00:00Z</updated>\n";
  out += fmt::format(
      "  <opensearch:itemsPerPage>{0}</opensearch:itemsPerPage>\n  <opensearch:totalResults>{0}</opensearch:totalResults>\n  "
      "<opensearch:startIndex>0</opensearch:startIndex>\n",
      items.size());
  for (const auto* it : items) {
    const json& d = it->data;
    const std::string id = s(d, "id");
    out += fmt::format("  <entry>\n    <id>http://arxiv.org/abs/{}v1</id>\n    <title>{}</title>\n    <updated>{}</updated>\n",
                       id, xml_escape(s(d, "title")), core::format_iso8601(it->at));
    out += fmt::format(
        "    <link href=\"https://arxiv.org/abs/{0}v1\" rel=\"alternate\" type=\"text/html\"/>\n    <link "
        "href=\"https://arxiv.org/pdf/{0}v1\" rel=\"related\" type=\"application/pdf\" title=\"pdf\"/>\n",
        id);
    out += "    <summary>" + xml_escape(s(d, "summary")) + "</summary>\n";
    const std::string cat = d.value("category", std::string("cs.CY"));
    out += fmt::format(
        "    <category term=\"{0}\" scheme=\"http://arxiv.org/schemas/atom\"/>\n    <published>{1}</published>\n    "
        "<arxiv:primary_category term=\"{0}\"/>\n",
        cat, core::format_iso8601(it->at));
    for (const auto& a : d.value("authors", json::array()))
      out += "    <author><name>" + xml_escape(a.get<std::string>()) + "</name></author>\n";
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

// ---- the fake ---------------------------------------------------------------------

namespace {

std::vector<const CaseItem*> of_source(const Case& c, std::string_view source) {
  std::vector<const CaseItem*> out;
  for (const auto& it : c.items)
    if (it.source == source) out.push_back(&it);
  return out;
}

std::string join_json_strings(const json& arr) {
  std::string out;
  for (const auto& v : arr)
    if (v.is_string()) out += " " + v.get<std::string>();
  return out;
}

// The searchable text of an item, per platform.
std::string searchable(const CaseItem& it) {
  const json& d = it.data;
  if (it.source == "hackernews")
    return s(d, "title") + " " + s(d, "url") + " " + s(d, "author") + " " + core::html_to_text(s(d, "text"));
  if (it.source == "reddit") {
    std::string self = d.contains("selftext") && d["selftext"].is_array() ? join_json_strings(d["selftext"]) : s(d, "selftext");
    return s(d, "title") + " " + self + " " + s(d, "sub");
  }
  if (it.source == "github") {
    if (d.value("kind", std::string("repo")) == "repo") {
      std::string name = s(d, "full_name");
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return ch == '/' || ch == '-' || ch == '_' || ch == '.'; }, ' ');
      return name + " " + s(d, "description") + " " + join_json_strings(d.value("topics", json::array()));
    }
    return s(d, "title") + " " + s(d, "body");
  }
  if (it.source == "stackexchange")
    return s(d, "title") + " " + core::html_to_text(s(d, "body")) + " " + join_json_strings(d.value("tags", json::array()));
  if (it.source == "polymarket") {
    std::string text = s(d, "title") + " " + s(d, "description");
    for (const auto& m : d.value("markets", json::array())) text += " " + s(m, "question");
    return text;
  }
  if (it.source == "arxiv") return s(d, "title") + " " + s(d, "summary");
  return s(d, "title") + " " + s(d, "description") + join_json_strings(d.value("tags", json::array()));
}

std::vector<std::string> query_words(std::string_view q) { return search_words(q); }

// "tokio OR (tokio runtime) OR (async rust)" -> {tokio}, {tokio, runtime}, {async, rust}:
// OR only as a whole upper-case word; parentheses and quotes are not words.
std::vector<std::vector<std::string>> reddit_or_groups(const std::string& q) {
  std::vector<std::vector<std::string>> groups(1);
  std::size_t pos = 0;
  while (pos < q.size()) {
    const auto sp = q.find(' ', pos);
    const std::string token = q.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? q.size() : sp + 1;
    if (token == "OR") groups.emplace_back();
    else
      for (auto& w : search_words(token)) groups.back().push_back(std::move(w));
  }
  return groups;
}

// "created_at_i>1790000000,created_at_i<1795000000"
bool in_numeric_filters(const std::string& filters, core::UnixSeconds t) {
  std::size_t pos = 0;
  while (pos < filters.size()) {
    auto comma = filters.find(',', pos);
    std::string f = filters.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? filters.size() : comma + 1;
    for (const char op : {'>', '<'}) {
      auto at = f.find(op);
      if (at == std::string::npos || f.substr(0, at) != "created_at_i") continue;
      const long long v = std::atoll(f.c_str() + at + 1);
      if ((op == '>' && !(t > v)) || (op == '<' && !(t < v))) return false;
    }
  }
  return true;
}

// Parses the arXiv boolean query the source builds: "(A AND B) OR C AND submittedDate:[X TO Y]".
struct ArxivQuery {
  std::vector<std::vector<std::string>> groups;  // OR of ANDs; a term may be a "quoted phrase"
  core::UnixSeconds from = 0, to = 0;
};

core::UnixSeconds arxiv_time(const std::string& t) {  // YYYYMMDDHHMM
  if (t.size() < 12) return 0;
  const auto day = core::days_from_civil(std::stoi(t.substr(0, 4)), static_cast<unsigned>(std::stoi(t.substr(4, 2))),
                                         static_cast<unsigned>(std::stoi(t.substr(6, 2))));
  return day * 86400 + std::stoi(t.substr(8, 2)) * 3600 + std::stoi(t.substr(10, 2)) * 60;
}

ArxivQuery parse_arxiv(std::string q) {
  ArxivQuery out;
  if (auto at = q.find("submittedDate:["); at != std::string::npos) {
    const auto close = q.find(']', at);
    const std::string range = q.substr(at + 15, close - at - 15);
    const auto to = range.find(" TO ");
    out.from = arxiv_time(range.substr(0, to));
    out.to = arxiv_time(range.substr(to + 4));
    q = q.substr(0, at);
    while (!q.empty() && (q.back() == ' ' || q.back() == 'D' || q.back() == 'N' || q.back() == 'A')) q.pop_back();
  }
  if (q.size() >= 2 && q.front() == '(' && q.back() == ')') q = q.substr(1, q.size() - 2);
  std::size_t pos = 0;
  while (pos <= q.size()) {
    auto next = q.find(" OR ", pos);
    std::string group = q.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    pos = next == std::string::npos ? q.size() + 1 : next + 4;
    group.erase(std::remove(group.begin(), group.end(), '('), group.end());
    group.erase(std::remove(group.begin(), group.end(), ')'), group.end());
    std::vector<std::string> terms;
    std::size_t t = 0;
    while ((t = group.find("all:", t)) != std::string::npos) {
      t += 4;
      std::string term;
      if (t < group.size() && group[t] == '"') {
        const auto end = group.find('"', t + 1);
        term = group.substr(t + 1, end - t - 1);
        t = end;
      } else {
        const auto end = group.find(' ', t);
        term = group.substr(t, end == std::string::npos ? std::string::npos : end - t);
        t = end == std::string::npos ? group.size() : end;
      }
      terms.push_back(term);
    }
    if (!terms.empty()) out.groups.push_back(std::move(terms));
  }
  return out;
}

bool arxiv_matches(const ArxivQuery& q, const CaseItem& it) {
  if (q.from && (it.at < q.from || it.at > q.to + 59)) return false;
  const Doc doc = doc_of(searchable(it));
  std::string spaced = " ";
  for (const auto& w : doc.words) spaced += w + " ";
  return std::any_of(q.groups.begin(), q.groups.end(), [&](const std::vector<std::string>& group) {
    return std::all_of(group.begin(), group.end(), [&](const std::string& term) {
      const auto words = search_words(term);
      if (words.size() == 1) return matches_all(doc.words, doc.folded, words);
      std::string phrase = " ";
      for (const auto& w : words) phrase += w + " ";
      return spaced.find(phrase) != std::string::npos;
    });
  });
}

template <typename Key>
void sort_desc(std::vector<const CaseItem*>& v, Key key) {
  std::stable_sort(v.begin(), v.end(), [&](const CaseItem* a, const CaseItem* b) { return key(*a) > key(*b); });
}

std::size_t limit_param(const FakeRequest& r, const char* name, std::size_t fallback) {
  const std::string v = r.param(name);
  return v.empty() ? fallback : static_cast<std::size_t>(std::max(1, std::atoi(v.c_str())));
}

void cap(std::vector<const CaseItem*>& v, std::size_t n) {
  if (v.size() > n) v.resize(n);
}

}  // namespace

CaseUpstream::CaseUpstream(const Case& c, bool pool) : case_(c), pool_(pool) {
  fake_ = std::make_unique<testing_support::FakeUpstream>([this](const FakeRequest& r) { return answer(r); });
}

CaseUpstream::~CaseUpstream() = default;

std::string CaseUpstream::host_map() const {
  const auto hosts = testing_support::Scenario::host_prefixes();
  return fake_->host_map({hosts.begin(), hosts.end()});
}

int CaseUpstream::requests() const { return static_cast<int>(fake_->log().size()); }

std::set<std::string> CaseUpstream::served() const {
  std::lock_guard lock(mu_);
  // Lobsters serves whole listings and the source keeps the stories holding every
  // non-stopword of a sub-query: a listed story reached the ranker only if it holds one of
  // the searches sent (those Hacker News was asked: every source gets the same sub-queries).
  std::vector<std::vector<std::string>> subqueries;
  if (auto hn = asked_.find("hackernews"); hn != asked_.end())
    for (const auto& q : hn->second) {
      std::vector<std::string> words;
      for (auto& w : search_words(q))
        if (!core::is_stopword(w)) words.push_back(std::move(w));
      if (!words.empty()) subqueries.push_back(std::move(words));
    }
  std::set<std::string> out;
  for (const auto& id : served_) {
    const CaseItem* it = case_.find(id);
    if (it && it->source == "lobsters") {
      const Doc doc = doc_of(searchable(*it));
      if (std::none_of(subqueries.begin(), subqueries.end(),
                       [&](const auto& q) { return matches_all(doc.words, doc.folded, q); }))
        continue;
    }
    out.insert(id);
  }
  return out;
}

std::map<std::string, std::set<std::string>> CaseUpstream::asked() const {
  std::lock_guard lock(mu_);
  return asked_;
}

std::vector<std::string> CaseUpstream::unanswered() const {
  std::lock_guard lock(mu_);
  return unanswered_;
}

void CaseUpstream::record(std::string_view source, const std::string& query, const std::vector<const CaseItem*>& items) const {
  std::lock_guard lock(mu_);
  if (!query.empty()) asked_[std::string(source)].insert(query);
  for (const auto* it : items) served_.insert(it->report_id);
}

FakeReply CaseUpstream::answer(const FakeRequest& r) const {
  const auto& p = r.path;
  auto starts = [&](std::string_view prefix) { return p.rfind(prefix, 0) == 0; };
  auto search = [&](std::string_view source, const std::vector<std::string>& words, auto&& keep) {
    std::vector<const CaseItem*> out;
    for (const auto* it : of_source(case_, source)) {
      const Doc doc = doc_of(searchable(*it));
      if ((pool_ || matches_all(doc.words, doc.folded, words)) && keep(*it)) out.push_back(it);
    }
    return out;
  };
  if (starts("/hn/api/v1/search")) {
    const std::string q = r.param("query");
    const std::string filters = r.param("numericFilters");
    auto hits = search("hackernews", query_words(q), [&](const CaseItem& it) { return in_numeric_filters(filters, it.at); });
    if (p == "/hn/api/v1/search_by_date") sort_desc(hits, [](const CaseItem& it) { return it.at; });
    cap(hits, limit_param(r, "hitsPerPage", 20));
    record("hackernews", q, hits);
    return FakeReply::json(hn_body(hits, q));
  }
  if (starts("/reddit/search.rss")) {
    // Reddit's own syntax: the words of a group are ANDed, an upper-case OR between
    // (parenthesised) groups matches a post that has any group.
    const std::string q = r.param("q");
    const auto groups = reddit_or_groups(q);
    std::vector<const CaseItem*> posts;
    for (const auto* it : of_source(case_, "reddit")) {
      const Doc doc = doc_of(searchable(*it));
      if (std::any_of(groups.begin(), groups.end(), [&](const auto& g) { return matches_all(doc.words, doc.folded, g); }))
        posts.push_back(it);
    }
    cap(posts, limit_param(r, "limit", 25));
    record("reddit", q, posts);
    return FakeReply::xml(reddit_atom(posts, q));
  }
  if (starts("/arctic/api/posts/ids")) {
    std::set<std::string> ids;
    const std::string list = r.param("ids");
    for (std::size_t pos = 0; pos < list.size();) {
      auto comma = list.find(',', pos);
      ids.insert(list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      pos = comma == std::string::npos ? list.size() : comma + 1;
    }
    std::vector<const CaseItem*> posts;
    for (const auto* it : of_source(case_, "reddit"))
      if (ids.count(s(it->data, "id"))) posts.push_back(it);
    return FakeReply::json(arctic_body(posts));
  }
  if (starts("/gh/search/")) {
    const bool repos = p == "/gh/search/repositories";
    std::vector<std::string> words;
    core::UnixSeconds since = 0;
    std::string is;
    const std::string q = r.param("q");
    std::size_t pos = 0;
    while (pos < q.size()) {
      auto sp = q.find(' ', pos);
      std::string w = q.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
      pos = sp == std::string::npos ? q.size() : sp + 1;
      if (w.rfind("created:>", 0) == 0) since = core::parse_date(w.substr(9)).value_or(0) + 86400;
      else if (w.rfind("is:", 0) == 0) is = w.substr(3);
      else
        for (auto& x : search_words(w)) words.push_back(x);
    }
    auto found = search("github", words, [&](const CaseItem& it) {
      const bool is_repo = it.data.value("kind", std::string("repo")) == "repo";
      return is_repo == repos && it.at >= since && (repos || is == "issue");
    });
    if (repos) sort_desc(found, [](const CaseItem& it) { return n(it.data, "stars"); });
    else sort_desc(found, [](const CaseItem& it) { return n(it.data, "reactions"); });
    cap(found, limit_param(r, "per_page", 30));
    record("github", q, found);
    return FakeReply::json(github_body(found));
  }
  if (starts("/se/2.3/search/advanced")) {
    const auto from = std::atoll(r.param("fromdate").c_str()), to = std::atoll(r.param("todate").c_str());
    auto qs = search("stackexchange", query_words(r.param("q")),
                     [&](const CaseItem& it) { return (!from || it.at >= from) && (!to || it.at <= to); });
    cap(qs, limit_param(r, "pagesize", 30));
    record("stackexchange", r.param("q"), qs);
    FakeReply reply = FakeReply::json(stackexchange_body(qs));
    reply.gzip = true;  // the real API always compresses
    return reply;
  }
  if (starts("/pm/public-search")) {
    const auto words = query_words(r.param("q"));
    std::vector<const CaseItem*> events;
    for (const auto* it : of_source(case_, "polymarket")) {
      const Doc doc = doc_of(searchable(*it));
      if (pool_ || matches_any(doc.words, doc.folded, words)) events.push_back(it);
    }
    sort_desc(events, [](const CaseItem& it) { return n(it.data, "volume"); });
    cap(events, limit_param(r, "limit_per_type", 10));
    record("polymarket", r.param("q"), events);
    return FakeReply::json(polymarket_body(events));
  }
  if (starts("/arxiv/api/query")) {
    const std::string q = r.param("search_query");
    const ArxivQuery aq = parse_arxiv(q);
    std::vector<const CaseItem*> entries;
    for (const auto* it : of_source(case_, "arxiv"))
      if (pool_ ? !aq.from || (it->at >= aq.from && it->at <= aq.to + 59) : arxiv_matches(aq, *it)) entries.push_back(it);
    sort_desc(entries, [](const CaseItem& it) { return it.at; });
    cap(entries, limit_param(r, "max_results", 10));
    record("arxiv", q, entries);
    return FakeReply::xml(arxiv_body(entries, q));
  }
  if (starts("/lobsters/")) {
    auto stories = of_source(case_, "lobsters");
    if (p == "/lobsters/hottest.json") {
      sort_desc(stories, [](const CaseItem& it) { return n(it.data, "score"); });
      cap(stories, 25);
    } else if (p == "/lobsters/newest.json") {
      sort_desc(stories, [](const CaseItem& it) { return it.at; });
      cap(stories, 25);
    } else if (starts("/lobsters/t/")) {
      const std::string tag = p.substr(12, p.size() - 12 - 5);
      std::erase_if(stories, [&](const CaseItem* it) {
        const auto tags = it->data.value("tags", json::array());
        return std::find(tags.begin(), tags.end(), tag) == tags.end();
      });
      sort_desc(stories, [](const CaseItem& it) { return it.at; });
    } else {
      stories.clear();  // older pages of newest: nothing further back
    }
    record("lobsters", p, stories);
    return FakeReply::json(lobsters_body(stories));
  }
  if (starts("/wp/api/rest_v1/page/summary/"))
    return FakeReply::json(testing_support::fixture("wikipedia/summary_404.json"), 404);
  std::lock_guard lock(mu_);
  unanswered_.push_back(p);
  return FakeReply::json(testing_support::kNoAnswer, 404);
}

}  // namespace l30eval
