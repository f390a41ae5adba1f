#include "fixture_fetcher.hpp"

#include <chrono>
#include <thread>

#include "core/time.hpp"

namespace testing_support {

FixtureFetcher& FixtureFetcher::on(std::string url_contains, http::Response response) {
  std::lock_guard lock(mu_);
  routes_.emplace_back(std::move(url_contains), std::move(response));
  return *this;
}

FixtureFetcher& FixtureFetcher::on_body(std::string url_contains, std::string body, std::string content_type, long status) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return on(std::move(url_contains), std::move(r));
}

FixtureFetcher& FixtureFetcher::on_error(std::string url_contains, http::NetError error) {
  http::Response r;
  r.error = error;
  r.error_detail = "injected";
  return on(std::move(url_contains), std::move(r));
}

FixtureFetcher& FixtureFetcher::hold(std::string url_contains, std::string except_containing) {
  std::lock_guard lock(mu_);
  held_.emplace_back(std::move(url_contains), std::move(except_containing));
  return *this;
}

int FixtureFetcher::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

int FixtureFetcher::answered() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(requests_.size()) - cancelled_;
}

http::Response FixtureFetcher::get(const http::Request& request) {
  bool held = false;
  {
    std::lock_guard lock(mu_);
    for (const auto& [in, unless] : held_)
      held = held ||
             (request.url.find(in) != std::string::npos && (unless.empty() || request.url.find(unless) == std::string::npos));
  }
  if (held) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    ++holding_;
    while (!request.stop.stop_requested() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    --holding_;
    if (request.stop.stop_requested()) {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
      ++cancelled_;
      http::Response r;
      r.error = http::NetError::cancelled;
      r.error_detail = "cancelled in flight";
      return r;
    }
  }
  std::lock_guard lock(mu_);
  requests_.push_back(request);
  for (auto& [needle, response] : routes_) {
    if (request.url.find(needle) != std::string::npos) {
      http::Response r = response;
      r.final_url = request.url;
      r.attempts = 1;
      return r;
    }
  }
  http::Response r;
  r.status = 404;
  r.content_type = "text/plain";
  r.body = "no fixture route";
  return r;
}

std::vector<std::string> FixtureFetcher::urls() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& r : requests_) out.push_back(r.url);
  return out;
}

std::vector<http::Request> FixtureFetcher::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

std::optional<std::string> FixtureFetcher::header(std::size_t request_index, std::string_view name) const {
  std::lock_guard lock(mu_);
  for (const auto& h : requests_.at(request_index).headers)
    if (h.name == name) return h.value;
  return std::nullopt;
}

sources::Query make_query(const std::string& text, const std::string& from_date, const std::string& to_date) {
  sources::Query q;
  q.sub_queries.push_back({text, 1.0});
  q.window.from = *core::parse_date(from_date);
  q.window.to = *core::parse_date(to_date) + 86399;
  q.window.days = static_cast<int>((q.window.to + 1 - q.window.from) / 86400) - 1;
  q.limit = 25;
  return q;
}

sources::ListingQuery make_listing_query(const std::string& from_date, const std::string& to_date, int limit) {
  sources::ListingQuery q;
  q.window = make_query("", from_date, to_date).window;
  q.limit = limit;
  return q;
}

}  // namespace testing_support
