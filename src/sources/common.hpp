#pragma once
// Shared plumbing for source implementations: request building, response
// classification into spec states, lenient JSON access, and result assembly.
#include <nlohmann/json.hpp>

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

http::Request make_request(const Env& env, std::string url, std::vector<http::Header> headers = {});

struct Fetched {
  http::Response response;
  std::optional<Failure> failure;
};
// GET and classify.
Fetched fetch(Env& env, std::string url, Expect expect, std::vector<http::Header> headers = {});

// No array in an upstream answer keeps more elements than this (every page we ask for is
// smaller): the rest are skipped while parsing, so a 30 MB answer never becomes a 300 MB tree.
constexpr std::size_t kMaxArrayElements = 1000;

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
  SourceResult finish();
  int& requests() { return result_.requests; }

 private:
  SourceResult result_;
  std::unordered_map<std::string, std::size_t> index_;  // item id -> position in result_.items
  std::vector<Failure> failures_;
  int successes_ = 0;
  int page_size_;
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

}  // namespace sources
