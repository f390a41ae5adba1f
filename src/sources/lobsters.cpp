// Lobsters (lobste.rs). There is no search API: read the hottest and newest
// listings (plus the tag pages the query names) and keep matching stories.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/parallel.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kBase = "https://lobste.rs";
constexpr std::size_t kMaxTagPages = 3;  // per search: each is one more request
constexpr int kDeepNewestPages = 3;      // newest pages 2..N on deep runs

// Tag slugs as lobste.rs names them (lobste.rs/tags). An unknown one only costs a 404.
// clang-format off
constexpr std::string_view kTags[] = {
    "a11y", "ai", "android", "api", "art", "ask", "audio", "book", "browsers", "c", "c++", "clojure", "cogsci",
    "compsci", "cryptography", "culture", "databases", "debugging", "design", "devops", "distributed", "dotnet",
    "dragonflybsd", "editors", "education", "elixir", "elm", "email", "emacs", "erlang", "event", "finance",
    "formalmethods", "fortran", "freebsd", "games", "go", "graphics", "hardware", "haskell", "historical",
    "illumos", "ios", "ipv6", "java", "javascript", "job", "kotlin", "law", "linux", "lisp", "lua", "mac", "math",
    "merkle-trees", "meta", "ml", "mobile", "netbsd", "networking", "nix", "nodejs", "objectivec", "ocaml",
    "openbsd", "osdev", "pdf", "perl", "person", "philosophy", "php", "plt", "practices", "privacy", "programming",
    "python", "rant", "release", "retrocomputing", "reversing", "ruby", "rust", "satire", "scala", "scaling",
    "science", "security", "show", "slides", "swift", "testing", "transcript", "unix", "vcs", "video", "vim",
    "virtualization", "wasm", "web", "windows", "zig",
};
// clang-format on

// Common spellings of a tag that the query might use instead of the slug.
const std::unordered_map<std::string_view, std::string_view>& tag_aliases() {
  static const std::unordered_map<std::string_view, std::string_view> kAliases{
      {"golang", "go"}, {"js", "javascript"}, {"node", "nodejs"},   {"cpp", "c++"}, {"macos", "mac"},
      {"llm", "ai"},    {"llms", "ai"},       {"sql", "databases"}, {"git", "vcs"}};
  return kAliases;
}

std::optional<std::string> tag_for(const std::string& token) {
  if (std::find(std::begin(kTags), std::end(kTags), token) != std::end(kTags)) return token;
  if (auto it = tag_aliases().find(token); it != tag_aliases().end()) return std::string(it->second);
  return std::nullopt;
}

// Counts this large are corrupt data, not engagement.

struct Story {
  model::Item item;
  std::vector<std::string> tags;
  std::string text;              // casefolded title + tags + description, for phrase matches
  std::set<std::string> tokens;  // words of the same
};

std::optional<std::string> submitter(const json& story) {
  auto it = story.find("submitter_user");
  if (it == story.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return opt_str(*it, "username");  // older API shape
  return std::nullopt;
}

std::optional<Story> parse_story(const json& s) {
  if (!s.is_object()) return std::nullopt;
  const std::string short_id = str(s, "short_id");
  const std::string title = core::collapse_whitespace(str(s, "title"));
  if (short_id.empty() || title.empty()) return std::nullopt;
  Story out;
  model::Item& item = out.item;
  item.id = "lobsters:" + short_id;
  item.source = "lobsters";
  item.title = title;
  std::string thread = str(s, "comments_url");
  if (thread.empty()) thread = str(s, "short_id_url");
  if (thread.empty()) thread = fmt::format("{}/s/{}", kBase, short_id);
  item.url = str(s, "url");
  if (item.url.empty()) item.url = thread;  // text post: the thread is the item
  else item.discussion_url = thread;
  item.author = submitter(s);
  if (auto it = s.find("tags"); it != s.end() && it->is_array())
    for (const auto& t : *it)
      if (t.is_string() && !t.get_ref<const std::string&>().empty()) out.tags.push_back(t.get<std::string>());
  item.tags = out.tags;
  if (!out.tags.empty()) {
    std::string joined;
    for (const auto& t : out.tags) joined += (joined.empty() ? "" : ", ") + t;
    item.container = joined;
  }
  if (auto t = core::parse_iso8601(str(s, "created_at"))) item.published_at = *t;
  engage(item, "score", num(s, "score"), Sign::net_score);
  engage(item, "comment_count", num(s, "comment_count"));
  std::string description = core::html_to_text(str(s, "description"));
  if (description.empty()) description = core::collapse_whitespace(str(s, "description_plain"));
  item.snippet = core::truncate_utf8(description, kSnippetBytes);

  std::string tag_text;
  for (const auto& t : out.tags) tag_text += " " + t;
  out.text = core::casefold(title + tag_text + " " + description);
  for (auto& w : core::tokenize(title + tag_text)) out.tokens.insert(std::move(w));
  for (const auto& t : out.tags) out.tokens.insert(core::casefold(t));
  for (auto& w : core::tokenize(description)) out.tokens.insert(std::move(w));
  return out;
}

// The words a story must contain to answer this text; empty when it is all stopwords.
std::vector<std::string> needed_words(std::string_view text) {
  std::vector<std::string> out;
  for (auto& w : core::tokenize(text))
    if (!core::is_stopword(w)) out.push_back(std::move(w));
  return out;
}

// A phrase match must sit on word boundaries: "go" is not in "google".
bool contains_phrase(const std::string& text, const std::string& phrase) {
  const auto is_word = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || u >= 0x80;
  };
  for (auto pos = text.find(phrase); pos != std::string::npos; pos = text.find(phrase, pos + 1)) {
    const auto end = pos + phrase.size();
    if ((pos == 0 || !is_word(text[pos - 1])) && (end >= text.size() || !is_word(text[end]))) return true;
  }
  return false;
}

bool matches(const std::set<std::string>& tokens, const std::string& text, std::string_view query) {
  const auto words = needed_words(query);
  if (!words.empty() && std::all_of(words.begin(), words.end(), [&](const std::string& w) { return tokens.count(w) > 0; }))
    return true;
  const std::string phrase = core::casefold(core::collapse_whitespace(query));
  return !phrase.empty() && contains_phrase(text, phrase);
}

struct Page {
  std::vector<Story> stories;
  bool fetched = false;
};

// Reads one listing page's answer, recording its outcome in `out`.
// `optional_page` marks tag pages: a 404 there is an unknown tag, not a failure.
Page read_page(const Fetched& f, bool optional_page, ResultBuilder& out) {
  Page page;
  if (f.failure) {
    if (optional_page && f.response.error == http::NetError::none && f.response.status == 404) return page;
    out.fail(*f.failure);
    return page;
  }
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) {
    out.fail(bad);
    return page;
  }
  if (doc->is_object() && doc->contains("short_id")) {
    // A single-story answer (/s/<id>.json) has the same story fields.
    json list = json::array();
    list.push_back(std::move(*doc));
    *doc = std::move(list);
  }
  if (!doc->is_array()) {
    out.fail({SourceState::schema_drift, "expected an array of stories"});
    return page;
  }
  out.succeed();
  page.fetched = true;
  for (const auto& s : *doc)
    if (auto story = parse_story(s)) page.stories.push_back(std::move(*story));
  return page;
}

void merge(Page page, std::vector<Story>& pool, std::set<std::string>& seen) {
  for (auto& s : page.stories)
    if (seen.insert(s.item.id).second) pool.push_back(std::move(s));
}

bool in_window(const model::Item& item, const model::Window& w) { return !item.published_at || w.contains(*item.published_at); }

// ---- comments: /s/{short_id}.json carries the story with a flat "comments" list ----

std::optional<std::string> commenter(const json& c) {
  auto it = c.find("commenting_user");
  if (it == c.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return opt_str(*it, "username");  // older API shape
  return std::nullopt;
}

bool flag_set(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it != obj.end() && ((it->is_boolean() && it->get<bool>()) || (it->is_number() && it->get<double>() != 0));
}

bool short_id(std::string_view id) {
  return !id.empty() && id.size() <= 12 &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

Thread parse_thread(const Fetched& f, int per_item) {
  if (f.failure) return {{}, thread_failure(*f.failure)};
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return {{}, thread_failure(bad)};
  auto list = doc->is_object() ? doc->find("comments") : doc->end();
  if (!doc->is_object() || list == doc->end() || !list->is_array())
    return {{}, thread_failure({SourceState::schema_drift, "story has no 'comments' array"})};
  // The list is flat: count every reply under its top-level ancestor.
  std::unordered_map<std::string, std::string> parent_of;
  for (const auto& c : *list)
    if (c.is_object()) parent_of[str(c, "short_id")] = str(c, "parent_comment");
  std::unordered_map<std::string, int> replies;
  for (const auto& [id, parent] : parent_of) {
    std::string top = id;
    for (int hops = 0; hops < 64; ++hops) {  // a cycle in hostile data ends here
      auto up = parent_of.find(top);
      if (up == parent_of.end() || up->second.empty()) break;
      top = up->second;
    }
    if (top != id) ++replies[top];
  }
  Thread t;
  for (const auto& c : *list) {
    if (!c.is_object() || !str(c, "parent_comment").empty()) continue;
    if (auto depth = num(c, "depth"); depth && *depth > 0) continue;
    if (flag_set(c, "is_deleted") || flag_set(c, "is_moderated")) continue;
    const auto author = commenter(c);
    std::string text = core::html_to_text(str(c, "comment"));
    if (text.empty()) text = core::collapse_whitespace(str(c, "comment_plain"));
    if (!author || author->empty() || bot_author(*author) || text.empty()) continue;
    model::Comment out;
    out.author = author;
    out.text = core::truncate_utf8(text, kCommentBytes);
    if (auto score = num(c, "score"); score && std::isfinite(*score)) out.score = *score;
    std::string url = str(c, "url");
    if (url.empty()) url = str(c, "short_id_url");
    if (!url.empty()) out.url = std::move(url);
    out.replies = replies[str(c, "short_id")];
    t.comments.push_back(std::move(out));
  }
  std::stable_sort(t.comments.begin(), t.comments.end(),
                   [](const model::Comment& a, const model::Comment& b) { return a.score.value_or(0) > b.score.value_or(0); });
  if (t.comments.size() > static_cast<std::size_t>(per_item)) t.comments.resize(static_cast<std::size_t>(per_item));
  return t;
}

class Lobsters final : public Source {
 public:
  std::string_view id() const override { return "lobsters"; }
  std::vector<std::string_view> hosts() const override { return {"lobste.rs"}; }
  std::string_view name() const override { return "Lobsters"; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"tech", true, {}}, {"software", true, {}}, {"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"score", "score", 1.0, 30}, {"comment_count", "comments", 0.7, 15}};
    return kEngagement;
  }
  bool social() const override { return true; }

  SourceResult search(const Query& q, Env& env) const override {
    ResultBuilder out(q.limit);
    // Hottest and the tag pages are independent; newest pages form a chain on deep runs
    // (newest is in time order: paging stops once a page reaches before the window). Both
    // go at once; the pool is merged in the sequential order, so ranks do not depend on timing.
    std::vector<Call> side = {{fmt::format("{}/hottest.json", kBase)}};
    for (const auto& tag : tags_named(q)) side.push_back({fmt::format("{}/t/{}.json", kBase, tag_slug(tag))});
    std::vector<Fetched> side_answers;
    std::vector<Fetched> newest;  // newest.json, then pages 2.. on deep runs
    core::parallel_for(2, 2, [&](std::size_t k) {
      if (k == 0) {
        side_answers = fetch_concurrently(env, std::move(side));
        return;
      }
      newest.push_back(fetch(env, fmt::format("{}/newest.json", kBase), Expect::json));
      if (q.depth != model::Depth::deep) return;
      for (int p = 2; p <= kDeepNewestPages; ++p) {
        ResultBuilder scratch(q.limit);  // only to read the previous page; counted below
        const Page last = read_page(newest.back(), false, scratch);
        if (!last.fetched || reaches_before(last, q.window) || last.stories.empty()) break;
        newest.push_back(fetch(env, fmt::format("{}/newest/page/{}.json", kBase, p), Expect::json));
      }
    });
    out.requests() += sent_count(side_answers) + static_cast<int>(newest.size());
    std::vector<Story> pool;
    std::set<std::string> seen;
    merge(read_page(side_answers[0], false, out), pool, seen);
    for (const auto& page : newest) merge(read_page(page, false, out), pool, seen);
    for (std::size_t t = 1; t < side_answers.size(); ++t) merge(read_page(side_answers[t], true, out), pool, seen);

    for (std::size_t i = 0; i < q.sub_queries.size(); ++i) {
      int rank = 0;
      for (const auto& s : pool) {
        if (rank >= q.limit) break;
        if (!in_window(s.item, q.window) || !matches(s.tokens, s.text, q.sub_queries[i].text)) continue;
        out.add(s.item, static_cast<int>(i), rank++);
      }
    }
    return out.finish();
  }

  bool has_comments() const override { return true; }

  std::vector<Thread> comments(const CommentQuery& q, Env& env) const override {
    return threads_per_item(q, env,
                            {"lobsters", "not a Lobsters story id", short_id,
                             [](std::string_view id) { return fmt::format("{}/s/{}.json", kBase, id); }, parse_thread});
  }

  // The hottest page alone: one request.
  SourceResult probe(Env& env, core::UnixSeconds now) const override {
    ListingQuery q;
    q.window = model::Window::ending(core::start_of_day(clock_of(now)), 7);
    q.limit = 1;
    SourceResult r = listing(q, env);
    if (r.state == model::SourceState::no_results) r.state = model::SourceState::ok, r.reason.clear();
    return r;
  }

  bool has_listing() const override { return true; }

  SourceResult listing(const ListingQuery& q, Env& env) const override {
    ResultBuilder out(q.limit);
    std::vector<Story> pool;
    std::set<std::string> seen;
    ++out.requests();
    merge(read_page(fetch(env, fmt::format("{}/hottest.json", kBase), Expect::json), false, out), pool, seen);
    int rank = 0;
    for (const auto& s : pool) {
      if (rank >= q.limit) break;
      if (!in_window(s.item, q.window)) continue;
      // A domain run's stories are selected by discovery (discover::selects), by title and tags.
      out.add(s.item, 0, rank++);
    }
    return out.finish();
  }

 private:
  static bool reaches_before(const Page& page, const model::Window& w) {
    return std::any_of(page.stories.begin(), page.stories.end(),
                       [&](const Story& s) { return s.item.published_at && *s.item.published_at < w.from; });
  }

  // Tags named by the sub-queries, most specific words first, capped.
  static std::vector<std::string> tags_named(const Query& q) {
    std::vector<std::string> specific, generic;
    for (const auto& sq : q.sub_queries) {
      for (const auto& w : core::tokenize(sq.text)) {
        if (core::is_stopword(w)) continue;
        auto tag = tag_for(w);
        if (!tag) continue;
        auto& bucket = core::is_generic(w) ? generic : specific;
        if (std::find(specific.begin(), specific.end(), *tag) == specific.end() &&
            std::find(generic.begin(), generic.end(), *tag) == generic.end())
          bucket.push_back(*tag);
      }
    }
    specific.insert(specific.end(), generic.begin(), generic.end());
    if (specific.size() > kMaxTagPages) specific.resize(kMaxTagPages);
    return specific;
  }

  static std::string tag_slug(const std::string& tag) { return core::url_encode(tag); }
};

}  // namespace

std::unique_ptr<Source> make_lobsters() { return std::make_unique<Lobsters>(); }

}  // namespace sources
