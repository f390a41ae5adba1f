#pragma once
// Shared plumbing for source implementations: request building, response
// classification into spec states, lenient JSON access, and result assembly.
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
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

http::Request make_request(const Env& env, std::string url, std::vector<http::Header> headers = {});

struct Fetched {
  http::Response response;
  std::optional<Failure> failure;
};
// GET and classify.
Fetched fetch(Env& env, std::string url, Expect expect, std::vector<http::Header> headers = {});

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
  void fail(Failure f);
  void succeed();
  void add(model::Item item, int subquery, int rank);
  SourceResult finish();
  int& requests() { return result_.requests; }

 private:
  SourceResult result_;
  std::vector<Failure> failures_;
  int successes_ = 0;
};

// Appends an engagement field only when the platform reported a plausible number:
// finite, |v| <= 1e12, and not negative unless the field is a net score (a downvoted
// question really scores -3; a count of -1 is not a count).
enum class Sign { counts, net_score };
void engage(model::Item& item, std::string_view field, std::optional<double> value, Sign sign = Sign::counts);

// A platform timestamp, or nothing when it is absurd (casting 1e300 would be undefined).
std::optional<core::UnixSeconds> unix_time(std::optional<double> seconds);

// Snippets are short: the brief quotes, it does not reprint.
constexpr std::size_t kSnippetBytes = 400;

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
