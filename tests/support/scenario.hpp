#pragma once
// A fake internet for the CLI tests: every real host of every source is mapped to one
// FakeUpstream that answers from tests/fixtures/e2e in the real formats. The credentialed
// sources accept only the kGood* credentials below, as the real APIs would.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fake_upstream.hpp"
#include "spawn.hpp"

namespace testing_support {

// Which fake internet: research answers (tests/fixtures/e2e, fixed November 2026 dates,
// use --as-of) or discovery listings (tests/fixtures/discover, dates relative to now).
enum class World { research, discovery };

// The credentials the fake upstream accepts; anything else is rejected in the API's own form.
inline constexpr const char* kGoodBskyHandle = "l30tester.bsky.social";
inline constexpr const char* kGoodBskyPassword = "abcd-efgh-ijkl-mnop";
inline constexpr const char* kGoodXToken = "AAAAAAAAAAAAAAAAAAAAAGoodXBearerTokenForTests";
inline constexpr const char* kGoodYouTubeKey = "AIzaSyGoodYouTubeKeyForTests0000000000";
inline constexpr const char* kGoodBraveKey = "BSAgoodBraveSubscriptionToken";
inline constexpr const char* kSearxngUrl = "https://searx.test";
// The body of a fake's answer to a request it has no answer for (with 404): a check that a
// source has a fake looks for it.
inline constexpr const char* kNoAnswer = R"({"error":"not found"})";

class Scenario {
 public:
  // override: return a reply to replace the fixture answer (hang, 429, ...), or nullopt.
  using Override = std::function<std::optional<FakeReply>(const FakeRequest&)>;
  explicit Scenario(Override override = nullptr, World world = World::research);

  FakeUpstream& fake() { return *fake_; }
  // Adjusts every normal answer (after the override), e.g. to add a delay.
  void set_shaper(std::function<void(const FakeRequest&, FakeReply&)> shaper) {
    std::lock_guard lock(mu_);
    shaper_ = std::move(shaper);
  }
  // Environment for the spawned binary: host map, empty HOME/XDG dirs, no credentials.
  std::map<std::string, std::string> env() const;
  ProcessResult run(std::vector<std::string> args, std::chrono::milliseconds watchdog = std::chrono::milliseconds(60000));
  const TempDir& home() const { return home_; }
  // How many requests reached the fake under a path prefix ("/hn", "/gh"...).
  int requests_under(const std::string& prefix) const;
  // How many requests' paths start with these characters ("/hn/api/v1/search": both
  // search endpoints, not the comment threads under /hn/api/v1/items).
  int requests_starting(const std::string& path_prefix) const;

  static std::map<std::string, std::string> host_prefixes();

 private:
  FakeReply answer(const FakeRequest& r) const;
  FakeReply research_answer(const FakeRequest& r) const;
  FakeReply discovery_answer(const FakeRequest& r) const;
  static FakeReply wikipedia_daily(const FakeRequest& r);
  static std::optional<FakeReply> common_answer(const FakeRequest& r);
  Override override_;
  World world_;
  mutable std::mutex mu_;  // the fake's thread reads shaper_
  std::function<void(const FakeRequest&, FakeReply&)> shaper_;
  TempDir home_;
  std::unique_ptr<FakeUpstream> fake_;
};

// Fills {{unix:-2d}} / {{iso:-5h}} placeholders relative to now (quoted unix -> number).
std::string fill_time_templates(std::string text);

// Environment for a spawned binary: this LAST30DAYS_HOST_MAP, HOME and XDG dirs inside home,
// no credentials and no overrides from the caller's environment.
std::map<std::string, std::string> isolated_env(const TempDir& home, const std::string& host_map);
// HOME and XDG_CONFIG_HOME in `home`, PATH = home/bin (empty unless a test adds a fake
// yt-dlp), and every credential unset.
std::map<std::string, std::string> without_credentials(const TempDir& home);

// Environment that points every source host at a port nobody listens on.
std::map<std::string, std::string> offline_env(const TempDir& home);

}  // namespace testing_support
