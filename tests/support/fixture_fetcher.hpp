#pragma once
// In-memory Fetcher for source tests: answers by URL substring, records what was asked.
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sources/source.hpp"

namespace testing_support {

class FixtureFetcher : public sources::Fetcher {
 public:
  // First registered route whose substring occurs in the request URL answers.
  FixtureFetcher& on(std::string url_contains, http::Response response);
  FixtureFetcher& on_body(std::string url_contains, std::string body, std::string content_type = "application/json",
                          long status = 200);
  FixtureFetcher& on_error(std::string url_contains, http::NetError error);
  // Requests whose URL contains this stay unanswered until their stop token fires, then end
  // cancelled as the HTTP client's would (after 10 s they answer from the routes): a
  // request still in flight when a source gives up.
  FixtureFetcher& hold(std::string url_contains, std::string except_containing = "");
  int cancelled() const;                           // held requests that ended by their stop token
  int answered() const;                            // requests that got an answer (not cancelled)
  int holding() const { return holding_.load(); }  // held requests waiting right now
  http::Response get(const http::Request& request) override;
  std::vector<std::string> urls() const;
  // Every request as sent (method, headers, body), in order.
  std::vector<http::Request> requests() const;
  std::optional<std::string> header(std::size_t request_index, std::string_view name) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, http::Response>> routes_;
  std::vector<http::Request> requests_;
  std::vector<std::pair<std::string, std::string>> held_;  // url contains, unless it contains
  int cancelled_ = 0;
  std::atomic<int> holding_{0};
};

// A source Env over a fetcher with an empty config and a far deadline.
struct TestEnv {
  explicit TestEnv(sources::Fetcher& f, core::Config cfg = {})
      : config(std::move(cfg)), env{config, f, core::Deadline::in(core::Millis(30000)), {}} {}
  core::Config config;
  sources::Env env;
};

// A query over [from, to] with one sub-query.
sources::Query make_query(const std::string& text, const std::string& from_date, const std::string& to_date);
// A global discovery listing over [from, to].
sources::ListingQuery make_listing_query(const std::string& from_date, const std::string& to_date, int limit = 30);

}  // namespace testing_support
