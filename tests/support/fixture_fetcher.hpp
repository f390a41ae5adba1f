#pragma once
// In-memory Fetcher for source tests: answers by URL substring, records what was asked.
#include <mutex>
#include <optional>
#include <string_view>
#include <string>
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
  http::Response get(const http::Request& request) override;
  std::vector<std::string> urls() const;
  // Every request as sent (method, headers, body), in order.
  std::vector<http::Request> requests() const;
  std::optional<std::string> header(std::size_t request_index, std::string_view name) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, http::Response>> routes_;
  std::vector<http::Request> requests_;
};

// A source Env over a fetcher with an empty config and a far deadline.
struct TestEnv {
  explicit TestEnv(sources::Fetcher& f, core::Config cfg = {}) : config(std::move(cfg)), env{config, f, core::Deadline::in(core::Millis(30000)), {}} {}
  core::Config config;
  sources::Env env;
};

// A query over [from, to] with one sub-query.
sources::Query make_query(const std::string& text, const std::string& from_date, const std::string& to_date);
// A global discovery listing over [from, to].
sources::ListingQuery make_listing_query(const std::string& from_date, const std::string& to_date, int limit = 30);

}  // namespace testing_support
