// The one redactor: every form of a registered secret, any value, always terminating.
// Secrets registered here stay registered for the rest of this test binary, so every
// value is unique to its test.
#include <gtest/gtest.h>

#include <thread>

#include "core/redact.hpp"
#include "core/text.hpp"

using core::redact::add_secret;
using core::redact::scrub;

namespace {

bool clean_of(const std::string& text, std::string_view secret) { return text.find(secret) == std::string::npos; }

}  // namespace

TEST(Redact, ValuesThatOccurInTheMarkerStillTerminate) {
  // The old cassette redactor replaced "ACTED" with "REDACTED" and searched again from
  // the same place: forever.
  for (const char* v : {"ACTED", "acted]", "[redacted]", "redacted", "dacte"}) add_secret(v);
  EXPECT_EQ(scrub("key=ACTED&x=1"), "key=[redacted]&x=1");
  EXPECT_EQ(scrub("[redacted]"), "[redacted]");
  EXPECT_EQ(scrub("REDACTED"), "RED[redacted]");
}

TEST(Redact, EveryEncodedFormOfTheValue) {
  const std::string secret = "p@ss/w rd+K3y!zq";
  add_secret(secret);
  const std::string pct = core::url_encode(secret);  // p%40ss%2Fw%20rd%2BK3y%21zq
  EXPECT_FALSE(clean_of("x?key=" + pct, pct));
  EXPECT_TRUE(clean_of(scrub("x?key=" + pct), pct));
  EXPECT_TRUE(clean_of(scrub("x?key=p%40ss%2fw%20rd%2bK3y%21zq"), "p%40ss")) << "lower-case hex";
  EXPECT_TRUE(clean_of(scrub("q=p%40ss%2Fw+rd%2BK3y%21zq"), "p%40ss%2Fw+rd%2BK3y%21zq")) << "form encoding";
  EXPECT_EQ(scrub(R"({"k":"p@ss/w rd+K3y!zq"})"), R"({"k":"[redacted]"})");
}

TEST(Redact, BasicAuthIsCaughtFromTheSecretAloneAtAnyAlignment) {
  const std::string secret = "client-secret-Zq9xW2";
  add_secret(secret);
  for (const std::string id : {"a", "ab", "abc", "my-app-id"}) {
    const std::string header = "Authorization: Basic " + core::base64_encode(id + ":" + secret);
    const std::string out = scrub(header);
    EXPECT_NE(out.find("[redacted]"), std::string::npos) << id << ": " << out;
    // What is left cannot be decoded back to the secret, or to most of it.
    const auto decoded = core::base64_decode(out.substr(out.find("Basic ") + 6));
    EXPECT_EQ(decoded.find(secret.substr(0, 6)), std::string::npos) << id << ": " << out;
  }
  EXPECT_EQ(scrub("Bearer " + core::base64_encode(secret)), "Bearer [redacted]");
}

TEST(Redact, OverlappingSecretsBecomeOneMarkerAndShortValuesAreIgnored) {
  add_secret("zqOVERLAP1");
  add_secret("LAP1zq2222");
  EXPECT_EQ(scrub("<zqOVERLAP1zq2222>"), "<[redacted]>");
  add_secret("xy");  // too short to tell apart from ordinary text
  EXPECT_EQ(scrub("xyz"), "xyz");
}

TEST(Redact, TruncationRedactsFirstSoNoPrefixSurvives) {
  const std::string token = "tok_TRUNCATE_me_0123456789abcdef";
  add_secret(token);
  const std::string title = std::string(280, 'x') + " " + token + " tail";
  const std::string cut = core::truncate_utf8(title, 300);  // the cut falls inside the token
  EXPECT_TRUE(clean_of(cut, token.substr(0, 8))) << cut;
  EXPECT_LE(cut.size(), 300u + 3);
}

TEST(Redact, ConcurrentRegistrationAndScrubbing) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        const std::string v = "conc-" + std::to_string(t) + "-" + std::to_string(i) + "-zq";
        add_secret(v);
        EXPECT_EQ(scrub("<" + v + ">"), "<[redacted]>");
      }
    });
  for (auto& th : threads) th.join();
}
