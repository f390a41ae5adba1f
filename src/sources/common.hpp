#pragma once
// Shared plumbing for source implementations: request building, response
// classification into spec states, lenient JSON access, and result assembly.
#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sources/source.hpp"

namespace sources {

struct Failure {
  model::SourceState state;
  std::string reason;
};

enum class Expect { json, xml };

// Classifies transport errors, HTTP status, content type and anti-bot pages.
// nullopt means the body is worth parsing.
std::optional<Failure> classify(const http::Response& r, Expect expect);
// ", retry after N" from a Retry-After header, "" without one: for a source that words its
// own 429 reason (the header is the one thing the user can act on).
std::string retry_after_text(const http::Response& r);

http::Request make_request(const Env& env, std::string url, std::vector<http::Header> headers = {});

struct Fetched {
  http::Response response;
  std::optional<Failure> failure;
  // Only from fetch_concurrently with a stop rule: a call after the one whose answer stopped
  // the batch. Its answer, if any, is not used (response and failure are empty).
  bool dropped = false;
  bool sent = true;  // false: dropped before it reached the network
};
// GET and classify.
Fetched fetch(Env& env, std::string url, Expect expect, std::vector<http::Header> headers = {});

// No array in an upstream answer keeps more elements than this (every page we ask for is
// smaller): the rest are skipped while parsing, so a 30 MB answer never becomes a 300 MB tree.
constexpr std::size_t kMaxArrayElements = 1000;

// One of a source's independent requests.
struct Call {
  Call(std::string u, Expect e = Expect::json, std::vector<http::Header> h = {})
      : url(std::move(u)), expect(e), headers(std::move(h)) {}
  std::string url;
  Expect expect;
  std::vector<http::Header> headers;
};
// After which answer no further request of a batch is worth sending (a rejected credential,
// a spent rate limit or quota).
using StopRule = std::function<bool(const Fetched&)>;

// Sends a source's independent requests concurrently (at most max_parallel in flight from
// this call) and returns their results in call order. Politeness still holds: the HTTP
// client spaces requests to paced hosts (Reddit 1 s, arXiv 3 s) whichever thread sends them.
// The threads are joined before it returns, and each request ends by env.deadline (or
// env.stop), so the call does too.
// With a stop rule the batch keeps a sequential loop's "break": once answer k satisfies it,
// the calls after k (in call order) are dropped -- not sent if they have not started,
// cancelled in flight if they have, their answers unused even if they came first -- so the
// outcome is the one the loop would have had, in one round trip instead of k + 1. What
// concurrency cannot save is the calls already on the wire: never more than the batch, and
// no call is ever repeated.
std::vector<Fetched> fetch_concurrently(Env& env, std::vector<Call> calls, std::size_t max_parallel = 6,
                                        const StopRule& stop_after = nullptr);

// How many of a batch went on the wire (SourceResult::requests).
int sent_count(const std::vector<Fetched>& batch);

// The stop rule of most sources: the credential was rejected or the limit is spent.
bool hopeless(const Failure& f);

// The reason a thread could not be read, for Thread::failure.
std::string thread_failure(const Failure& f);

// Comments of a platform with one JSON request per thread (Hacker News, Lobsters): each query
// item whose platform id is `valid` is fetched from `url_of(id)`, four at a time, and its
// answer read by `parse`; an item of any other id gets the failure `not_ours`.
struct ThreadRequests {
  std::string_view source;    // the item ids' prefix: "hackernews"
  std::string_view not_ours;  // "not a Hacker News story id"
  std::function<bool(std::string_view)> valid;
  std::function<std::string(std::string_view)> url_of;
  std::function<Thread(const Fetched&, int per_item)> parse;
};
std::vector<Thread> threads_per_item(const CommentQuery& q, Env& env, const ThreadRequests& how);

// Markdown (GitHub issues, Reddit comments, with inline HTML) as plain prose: code blocks,
// table rules and list marks go, link texts stay, entities are decoded.
std::string markdown_to_text(std::string_view md);

// The platform's own id in an item id ("hackernews:123" -> "123"), empty when not this source's.
std::string_view platform_id(std::string_view item_id, std::string_view source);

// Comment authors that are not people: AutoModerator and accounts named like bots.
bool bot_author(std::string_view name);

// Parses a JSON body; on failure returns schema-drift with the parser's reason.
std::optional<nlohmann::json> parse_json(const std::string& body, Failure* failure);

// Lenient accessors: numbers may arrive as strings, fields may be null or missing.
std::optional<double> num(const nlohmann::json& obj, std::string_view key);
std::string str(const nlohmann::json& obj, std::string_view key);
std::optional<std::string> opt_str(const nlohmann::json& obj, std::string_view key);

// Collects per-request outcomes into one state:
// all failed -> the worst failure; some failed -> partial; none found -> no-results.
class ResultBuilder {
 public:
  // page_size: the items one request asked for. An answer that sends more is not
  // believed: items ranked past the page are dropped, whatever the upstream says.
  explicit ResultBuilder(int page_size) : page_size_(page_size) {}
  void fail(Failure f);
  void succeed();
  // O(1): the same item from another request only gains a hit. False when dropped
  // (ranked past the page).
  bool add(model::Item item, int subquery, int rank);
  // One answer to a packed query, credited back to each sub-query it answers: a hit per
  // sub-query at that sub-query's next rank (ranks[s], counted even past the page), the item
  // stored once. Same result as add() once per sub-query, without a copy per sub-query.
  void add_credited(model::Item item, const std::vector<int>& subqueries, std::vector<int>& ranks);
  SourceResult finish();
  int& requests() { return result_.requests; }

 private:
  SourceResult result_;
  std::unordered_map<std::string, std::size_t> index_;  // item id -> position in result_.items
  std::vector<Failure> failures_;
  int successes_ = 0;
  int page_size_;
};

// The sub-queries one answer to a packed query answers (one request for every sub-query:
// reddit's OR of groups, arXiv's OR of clauses), as if each had been searched alone: every
// sub-query whose words the answer carries (fusion counts a story found by several spellings
// several times); else the one it shares most words with, the first on a tie (the source also
// searched text the answer does not show, and stems). wanted[s]: the words sub-query s
// required; carries: whether the answer holds a word. Both in the source's own word model.
std::vector<int> answered_subqueries(const std::vector<std::vector<std::string>>& wanted,
                                     const std::function<bool(const std::string&)>& carries);

// Appends an engagement field only when the platform reported a plausible number:
// finite, |v| <= 1e12, and not negative unless the field is a net score (a downvoted
// question really scores -3; a count of -1 is not a count).
enum class Sign { counts, net_score };
void engage(model::Item& item, std::string_view field, std::optional<double> value, Sign sign = Sign::counts);

// A platform timestamp, or nothing when it is absurd (casting 1e300 would be undefined).
std::optional<core::UnixSeconds> unix_time(std::optional<double> seconds);

// Snippets are short: the brief quotes, it does not reprint.
constexpr std::size_t kSnippetBytes = 400;
// A comment's text is kept up to this much (the briefs quote an excerpt of it).
constexpr std::size_t kCommentBytes = 1200;

// The run's clock: Query::now / ListingQuery::now when set, else the wall clock.
core::UnixSeconds clock_of(core::UnixSeconds now);

// A title for a post that has none (Bluesky, X): its first line, whitespace collapsed,
// cut at a word near 160 bytes.
std::string headline(std::string_view text);

// Whether `url` is an http(s) link to somewhere other than `own_hosts` (or their
// subdomains): a post sharing an article is about that article.
bool outside_link(std::string_view url, std::initializer_list<std::string_view> own_hosts);

// A rate-limit reset header holding unix seconds ("1732886400"); nullopt when absent or odd.
std::optional<core::UnixSeconds> epoch_header(const http::Response& r, std::string_view name);

}  // namespace sources
