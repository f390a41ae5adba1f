#pragma once
// The hostile-upstream table every source test runs: one place that lists what a broken,
// lying or hostile upstream answers (malformed, empty, HTML instead of JSON, 401, 403,
// 429 with and without Retry-After, 5xx, truncated, huge, wrong content type, JSON of the
// wrong shape, transport failures) and checks that the source ends in the right spec state
// with a short reason, keeps no more items than it asked for, and never throws.
//
// A source test adds only its own rows:
//
//   HostileTable(hn(), "/search", Format::json)
//       .valid(kSearch)                                   // cut in half for "truncated"
//       .huge(R"({"hits":[)", [](std::size_t i) { return fmt::format(R"({{"objectID":"{}","title":"rust {}"}})", i, i); }, "]}")
//       .row("no hits array", json_reply(R"({"results":[]})"), SourceState::schema_drift)
//       .row("empty hits", json_reply(R"({"hits":[]})"), SourceState::no_results)
//       .run();
//   HostileTable(hn(), "/search", Format::json).listing(make_listing_query("2026-11-01", "2026-11-29")).run();
#include <functional>
#include <string>
#include <vector>

#include "fixture_fetcher.hpp"
#include "sources/source.hpp"

namespace testing_support {

enum class Format { json, xml };

struct HostileAnswer {
  std::string name;  // printed when the row fails
  http::Response reply;
  model::SourceState want;
  std::string reason_has;  // a substring the reason must contain ("" = any)
};

// Reply builders for rows.
http::Response reply(long status, std::string body, std::string content_type = "application/json",
                     std::vector<http::Header> headers = {});
http::Response json_reply(std::string body, long status = 200);
http::Response xml_reply(std::string body, long status = 200);  // application/atom+xml
http::Response net_error(http::NetError error);

// The rows every source of this format must survive (without the source's own rows).
std::vector<HostileAnswer> standard_hostile_answers(Format format);

class HostileTable {
 public:
  using Call = std::function<sources::SourceResult(const sources::Source&, sources::Env&)>;

  // Requests whose URL contains `route` get the hostile answer.
  HostileTable(const sources::Source& source, std::string route, Format format);

  // A real answer for this route: must end ok, and its first half is the "truncated" row.
  HostileTable& valid(std::string body);
  // A syntactically valid answer with 20,000 items (head + item(0), item(1)... + tail):
  // must end ok and keep at most what the source asked for.
  HostileTable& huge(std::string head, std::function<std::string(std::size_t)> item, std::string tail,
                     model::SourceState want = model::SourceState::ok);
  // Other requests of the same run answer normally (a token endpoint, a score lookup).
  HostileTable& also(std::string url_contains, std::string body, std::string content_type = "application/json");
  HostileTable& config(core::Config config);
  // What to run (default: search "rust" over November 2026 with limit 25) and its item limit.
  HostileTable& call(Call call, int limit);
  HostileTable& listing(sources::ListingQuery query);  // run the discovery listing instead
  // A source-specific row, or a new expectation for a standard row of the same name.
  HostileTable& row(std::string name, http::Response reply, model::SourceState want, std::string reason_has = "");
  HostileTable& expect(const std::string& name, model::SourceState want, std::string reason_has = "");
  // When the route is an optional lookup: every failing row ends in `state` instead
  // (reddit's score archive: the posts stay, the source is partial).
  HostileTable& failures_become(model::SourceState state, std::string reason_prefix);
  // A credential or token that must never appear in a reason, whatever the upstream echoes.
  HostileTable& secret(std::string value);

  void run() const;

 private:
  const sources::Source& source_;
  std::string route_;
  Format format_;
  std::vector<HostileAnswer> rows_;
  std::vector<std::pair<std::string, http::Response>> also_;
  core::Config config_;
  Call call_;
  int limit_ = 25;
  std::optional<model::SourceState> failures_become_;
  std::string failure_prefix_;
  std::vector<std::string> secrets_;
};

}  // namespace testing_support
