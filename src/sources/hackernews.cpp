// Hacker News through the Algolia search API (hn.algolia.com/api/v1).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using nlohmann::json;

constexpr std::string_view kBase = "https://hn.algolia.com/api/v1";

std::optional<model::Item> parse_hit(const json& hit) {
  if (!hit.is_object()) return std::nullopt;
  const std::string id = str(hit, "objectID");
  const std::string title = str(hit, "title");
  if (id.empty() || title.empty()) return std::nullopt;
  model::Item item;
  item.id = "hackernews:" + id;
  item.source = "hackernews";
  item.title = title;
  const std::string thread = "https://news.ycombinator.com/item?id=" + id;
  item.url = str(hit, "url");
  if (item.url.empty()) item.url = thread;
  else item.discussion_url = thread;
  item.author = opt_str(hit, "author");
  if (auto t = unix_time(num(hit, "created_at_i"))) item.published_at = *t;
  else if (auto iso = core::parse_iso8601(str(hit, "created_at"))) item.published_at = *iso;
  engage(item, "points", num(hit, "points"));
  engage(item, "num_comments", num(hit, "num_comments"));
  // Self-posts carry their text as HTML; long ones only need their start for a snippet.
  item.snippet =
      core::truncate_utf8(core::html_to_text(core::truncate_utf8(str(hit, "story_text"), 8 * kSnippetBytes)), kSnippetBytes);
  return item;
}

// Parses a /search or /search_by_date answer into the builder.
void collect(const Fetched& f, int subquery, ResultBuilder& out) {
  if (f.failure) return out.fail(*f.failure);
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return out.fail(bad);
  if (!doc->is_object() || !doc->contains("hits") || !(*doc)["hits"].is_array())
    return out.fail({model::SourceState::schema_drift, "answer has no 'hits' array"});
  out.succeed();
  int rank = 0;
  for (const auto& hit : (*doc)["hits"])
    if (auto item = parse_hit(hit)) out.add(std::move(*item), subquery, rank++);
}

// ---- comments: /items/{id} is the whole thread, comment text in HTML ----

// Everything below a node, counted without recursion: a hostile thread can nest deeply.
int descendants(const json& node) {
  int n = 0;
  std::vector<const json*> stack{&node};
  while (!stack.empty()) {
    const json* cur = stack.back();
    stack.pop_back();
    auto it = cur->find("children");
    if (it == cur->end() || !it->is_array()) continue;
    for (const auto& c : *it)
      if (c.is_object()) ++n, stack.push_back(&c);
  }
  return n;
}

bool numeric_id(std::string_view id) {
  return !id.empty() && id.size() <= 12 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The story's top-level comments, the most discussed first (Algolia hides comment points).
Thread parse_thread(const Fetched& f, int per_item) {
  Thread t;
  if (f.failure) return {{}, thread_failure(*f.failure)};
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return {{}, thread_failure(bad)};
  if (!doc->is_object() || !doc->contains("children") || !(*doc)["children"].is_array())
    return {{}, thread_failure({model::SourceState::schema_drift, "thread has no 'children' array"})};
  for (const auto& child : (*doc)["children"]) {
    if (!child.is_object()) continue;
    if (const std::string type = str(child, "type"); !type.empty() && type != "comment") continue;
    const auto author = opt_str(child, "author");  // null on deleted comments
    const std::string text = core::html_to_text(str(child, "text"));
    if (!author || author->empty() || bot_author(*author) || text.empty() || text == "[deleted]" || text == "[flagged]" ||
        text == "[dead]")
      continue;
    model::Comment c;
    c.author = author;
    c.text = core::truncate_utf8(text, kCommentBytes);
    if (auto points = num(child, "points"); points && std::isfinite(*points)) c.score = *points;
    if (const std::string id = str(child, "id"); numeric_id(id)) c.url = "https://news.ycombinator.com/item?id=" + id;
    c.replies = descendants(child);
    t.comments.push_back(std::move(c));
  }
  std::stable_sort(t.comments.begin(), t.comments.end(), [](const model::Comment& a, const model::Comment& b) {
    if (a.score.value_or(-1) != b.score.value_or(-1)) return a.score.value_or(-1) > b.score.value_or(-1);
    return a.replies.value_or(0) > b.replies.value_or(0);
  });
  if (t.comments.size() > static_cast<std::size_t>(per_item)) t.comments.resize(static_cast<std::size_t>(per_item));
  return t;
}

class HackerNews final : public Source {
 public:
  std::string_view id() const override { return "hackernews"; }
  std::vector<std::string_view> hosts() const override { return {"hn.algolia.com"}; }
  std::string_view name() const override { return "Hacker News"; }
  std::vector<std::string_view> aliases() const override { return {"hn"}; }
  std::string_view spoken_names() const override { return "Hacker News HN"; }
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"comparison", 1.1}, {"product", 1.1}};
    return kWeights;
  }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"tech", true, {}}, {"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"points", "points", 1.0, 150}, {"num_comments", "comments", 0.7, 60}};
    return kEngagement;
  }
  bool social() const override { return true; }

  SourceResult search(const Query& q, Env& env) const override {
    ResultBuilder out(q.limit);
    const std::string filters =
        core::url_encode(fmt::format("created_at_i>{},created_at_i<{}", q.window.from - 1, q.window.to + 1));
    std::vector<Call> calls;
    std::vector<int> subquery;  // of each call
    for (std::size_t i = 0; i < q.sub_queries.size(); ++i) {
      calls.push_back({fmt::format("{}/search?query={}&tags=story&numericFilters={}&hitsPerPage={}", kBase,
                                   core::url_encode(q.sub_queries[i].text), filters, q.limit)});
      subquery.push_back(static_cast<int>(i));
    }
    // Deep runs also read the newest matches, which relevance ranking buries.
    if (q.depth == model::Depth::deep) {
      calls.push_back({fmt::format("{}/search_by_date?query={}&tags=story&numericFilters={}&hitsPerPage={}", kBase,
                                   core::url_encode(q.sub_queries.front().text), filters, q.limit)});
      subquery.push_back(0);
    }
    const auto fetched = fetch_concurrently(env, std::move(calls));
    out.requests() += sent_count(fetched);
    for (std::size_t k = 0; k < fetched.size(); ++k) collect(fetched[k], subquery[k], out);
    return out.finish();
  }

  bool has_comments() const override { return true; }

  std::vector<Thread> comments(const CommentQuery& q, Env& env) const override {
    return threads_per_item(q, env,
                            {"hackernews", "not a Hacker News story id", numeric_id,
                             [](std::string_view id) { return fmt::format("{}/items/{}", kBase, id); }, parse_thread});
  }

  bool has_listing() const override { return true; }

  SourceResult listing(const ListingQuery& q, Env& env) const override {
    ResultBuilder out(q.limit);
    const std::string best = core::url_encode(fmt::format("created_at_i>{},points>50", q.window.from - 1));
    const std::string query = q.domain_terms.empty() ? "" : core::url_encode(q.domain_terms.front());
    const auto fetched = fetch_concurrently(
        env, {{fmt::format("{}/search?tags=front_page&hitsPerPage={}", kBase, q.limit)},
              {fmt::format("{}/search?query={}&tags=story&numericFilters={}&hitsPerPage={}", kBase, query, best, q.limit)}});
    out.requests() += sent_count(fetched);
    for (std::size_t k = 0; k < fetched.size(); ++k) collect(fetched[k], static_cast<int>(k), out);
    return out.finish();
  }
};

}  // namespace

std::unique_ptr<Source> make_hackernews() { return std::make_unique<HackerNews>(); }

}  // namespace sources
