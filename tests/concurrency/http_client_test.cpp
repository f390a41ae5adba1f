// The HTTP layer against a fake upstream on 127.0.0.1: policy and, above all, lifecycle.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include "core/redact.hpp"
#include "fake_upstream.hpp"
#include "http/client.hpp"
#include "spawn.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using http::NetError;

namespace {

std::shared_ptr<http::Client> client_for(const FakeUpstream& fake, http::ClientOptions opts = {}) {
  std::string err;
  opts.host_map = *http::HostMap::parse(fake.host_map({{"api.example.com", ""},
                                                       {"other.example.com", "/other"},
                                                       {"export.arxiv.org", "/arxiv"},
                                                       {"www.reddit.com", "/reddit"}}),
                                        &err);
  return std::make_shared<http::Client>(std::move(opts));
}

http::Request get(std::string url, core::Deadline deadline = core::Deadline::in(10s)) {
  http::Request r;
  r.url = std::move(url);
  r.deadline = deadline;
  return r;
}

long ms_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

TEST(HttpClient, GetsThroughTheHostMapWithADescriptiveUserAgent) {
  std::string ua;
  FakeUpstream fake([&](const FakeRequest& r) {
    ua = r.headers.count("user-agent") ? r.headers.at("user-agent") : "";
    return FakeReply::json(R"({"path":")" + r.path + R"("})");
  });
  auto c = client_for(fake);
  auto r = c->fetch(get("https://api.example.com/v1/items?q=a%20b"));
  ASSERT_EQ(r.error, NetError::none) << r.error_detail;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"path":"/v1/items"})");
  EXPECT_EQ(r.final_url, "https://api.example.com/v1/items?q=a%20b");  // logical, not the mapped one
  EXPECT_NE(ua.find("last30days/"), std::string::npos);
  EXPECT_NE(ua.find("research CLI"), std::string::npos);
}

TEST(HttpClient, HungTransferEndsAtTheDeadlineAndItsSocketIsClosed) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::hang(); });
  auto c = client_for(fake);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->fetch(get("https://api.example.com/hang", core::Deadline::in(600ms)));
  const long took = ms_since(t0);
  EXPECT_EQ(r.error, NetError::timeout);
  EXPECT_GE(took, 550);
  EXPECT_LT(took, 1100);
  // Aborted, not abandoned: the fake sees the connection closed promptly.
  for (int i = 0; i < 50 && fake.closed_hung() < 1; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(fake.closed_hung(), 1);
  EXPECT_EQ(fake.open_hung(), 0);
}

// Issue 22 item 0: a hung transfer must not end before the deadline it stands for, or a
// sub-run whose every request hung could report before the budget ran out. curl counts
// in whole milliseconds, so deadlines at fractions of one are tried (truncating the
// timeout ended most of these early).
TEST(HttpClient, AHungTransferNeverEndsBeforeItsDeadline) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::hang(); });
  auto c = client_for(fake);
  int early = 0;
  constexpr int kRequests = 40;
  for (int i = 0; i < kRequests; ++i) {
    const auto deadline = core::Deadline::at(core::Clock::now() + 20ms + std::chrono::microseconds(97 * i % 1000));
    auto r = c->fetch(get("https://api.example.com/hang?i=" + std::to_string(i), deadline));
    const auto ended = core::Clock::now();
    EXPECT_EQ(r.error, NetError::timeout) << i;
    if (ended < deadline.when()) {
      ++early;
      ADD_FAILURE() << "request " << i << " ended "
                    << std::chrono::duration_cast<std::chrono::microseconds>(deadline.when() - ended).count()
                    << " us before its deadline";
    }
  }
  EXPECT_EQ(early, 0) << "of " << kRequests << " hung requests";
}

TEST(HttpClient, StopTokenAbortsEveryInFlightTransferAtOnce) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::hang(); });
  auto c = client_for(fake);
  std::stop_source stop;
  constexpr int kN = 6;
  std::vector<http::Response> out(kN);
  std::vector<long> done_at(kN);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < kN; ++i) {
    threads.emplace_back([&, i] {
      auto req = get("https://api.example.com/hang/" + std::to_string(i), core::Deadline::in(30s));
      req.stop = stop.get_token();
      out[static_cast<std::size_t>(i)] = c->fetch(req);
      done_at[static_cast<std::size_t>(i)] = ms_since(t0);
    });
  }
  for (int i = 0; i < 100 && static_cast<int>(fake.log().size()) < kN; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(static_cast<int>(fake.log().size()), kN) << "all requests should be in flight";
  const long stop_at = ms_since(t0);
  stop.request_stop();
  for (auto& t : threads) t.join();
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(out[static_cast<std::size_t>(i)].error, NetError::cancelled);
    EXPECT_LT(done_at[static_cast<std::size_t>(i)] - stop_at, 300) << "cancellation must not wait for a timeout";
  }
  for (int i = 0; i < 50 && fake.closed_hung() < kN; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(fake.closed_hung(), kN) << "open " << fake.open_hung() << " conns " << fake.connections();
  EXPECT_EQ(c->stats().aborted, static_cast<unsigned long>(kN));
  EXPECT_EQ(c->stats().in_flight, 0);
}

TEST(HttpClient, AlreadyStoppedRequestNeverReachesTheNetwork) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::json("{}"); });
  auto c = client_for(fake);
  std::stop_source stop;
  stop.request_stop();
  auto req = get("https://api.example.com/x");
  req.stop = stop.get_token();
  EXPECT_EQ(c->fetch(req).error, NetError::cancelled);
  EXPECT_TRUE(fake.log().empty());
}

TEST(HttpClient, AStragglerKeepsTheClientAliveAfterItsOwnerLetsGo) {
  // The exit path drops the owner's reference while an abandoned worker may still be
  // in fetch(): the worker's own reference must keep the client (and its loop) alive.
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::hang(); });
  auto owner = client_for(fake);
  std::stop_source stop;
  http::Response r;
  std::thread straggler([c = owner, &r, token = stop.get_token()]() mutable {
    auto req = get("https://api.example.com/hang", core::Deadline::in(30s));
    req.stop = token;
    r = c->fetch(req);
    c.reset();  // the last reference: the client is destroyed on this thread
  });
  for (int i = 0; i < 100 && fake.log().empty(); ++i) std::this_thread::sleep_for(10ms);
  owner.reset();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(fake.open_hung(), 1) << "the transfer lives on with its worker";
  const auto t0 = std::chrono::steady_clock::now();
  stop.request_stop();
  straggler.join();
  EXPECT_LT(ms_since(t0), 500);
  EXPECT_EQ(r.error, NetError::cancelled);
  for (int i = 0; i < 50 && fake.closed_hung() < 1; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(fake.closed_hung(), 1);
}

TEST(HttpClient, RetriesOnceOn5xx) {
  int calls = 0;
  FakeUpstream fake(
      [&](const FakeRequest&) { return ++calls == 1 ? FakeReply::json("{}", 503) : FakeReply::json("{\"ok\":1}"); });
  auto c = client_for(fake);
  auto r = c->fetch(get("https://api.example.com/flaky"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.attempts, 2);

  int calls2 = 0;
  FakeUpstream down([&](const FakeRequest&) {
    ++calls2;
    return FakeReply::json("{}", 500);
  });
  auto c2 = client_for(down);
  auto r2 = c2->fetch(get("https://api.example.com/down"));
  EXPECT_EQ(r2.status, 500);
  EXPECT_EQ(calls2, 2) << "exactly one retry";
}

TEST(HttpClient, HonoursRetryAfterOnlyWhenItFitsTheDeadline) {
  int calls = 0;
  FakeUpstream fake([&](const FakeRequest&) {
    if (++calls == 1) {
      auto r = FakeReply::json("{}", 429);
      r.headers.push_back({"Retry-After", "1"});
      return r;
    }
    return FakeReply::json("{}");
  });
  auto c = client_for(fake);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->fetch(get("https://api.example.com/limited", core::Deadline::in(5s)));
  EXPECT_EQ(r.status, 200);
  EXPECT_GE(ms_since(t0), 950);

  FakeUpstream strict([](const FakeRequest&) {
    auto reply = FakeReply::json("{}", 429);
    reply.headers.push_back({"Retry-After", "120"});
    return reply;
  });
  auto c2 = client_for(strict);
  const auto t1 = std::chrono::steady_clock::now();
  auto r2 = c2->fetch(get("https://api.example.com/limited", core::Deadline::in(3s)));
  EXPECT_EQ(r2.status, 429);
  EXPECT_LT(ms_since(t1), 1000) << "a wait that cannot fit is not attempted";
  EXPECT_EQ(strict.log().size(), 1u);
}

TEST(HttpClient, FollowsSameHostRedirectsOnlyUpToThree) {
  FakeUpstream fake([](const FakeRequest& r) {
    auto redirect = [](std::string to) {
      FakeReply x = FakeReply::json("", 302);
      x.headers.push_back({"Location", std::move(to)});
      return x;
    };
    if (r.path == "/a") return redirect("/b");
    if (r.path == "/b") return redirect("https://api.example.com/c");
    if (r.path == "/c") return FakeReply::json("{\"at\":\"c\"}");
    if (r.path == "/away") return redirect("https://evil.example.net/steal");
    if (r.path.rfind("/loop", 0) == 0) return redirect("/loop" + std::to_string(r.path.size()));
    return FakeReply::json("{}", 404);
  });
  auto c = client_for(fake);
  auto ok = c->fetch(get("https://api.example.com/a"));
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "{\"at\":\"c\"}");
  EXPECT_EQ(ok.final_url, "https://api.example.com/c");
  EXPECT_EQ(c->fetch(get("https://api.example.com/away")).error, NetError::redirect_offhost);
  EXPECT_EQ(c->fetch(get("https://api.example.com/loop")).error, NetError::too_many_redirects);
}

TEST(HttpClient, CapsBodyAndDecompressedSize) {
  FakeUpstream fake([](const FakeRequest& r) {
    if (r.path == "/big") return FakeReply::json(std::string(9u << 20, 'x'));
    FakeReply bomb = FakeReply::json(std::string(40u << 20, ' '));  // compresses to ~40 KiB
    bomb.gzip = true;
    return bomb;
  });
  auto c = client_for(fake);
  EXPECT_EQ(c->fetch(get("https://api.example.com/big")).error, NetError::too_large);
  auto bomb = c->fetch(get("https://api.example.com/bomb"));
  EXPECT_EQ(bomb.error, NetError::too_large);
}

TEST(HttpClient, StreamsA2xxBodyPieceByPieceAsItArrives) {
  FakeUpstream fake([](const FakeRequest& r) {
    if (r.path == "/fail") return FakeReply::json("{\"error\":\"down\"}", 500);
    FakeReply x;
    x.content_type = "text/event-stream";
    x.chunks = {"data: {\"a\":", "1}\n\n", "data: [DONE]\n\n"};
    x.chunk_gap = 40ms;
    return x;
  });
  auto c = client_for(fake);
  std::vector<std::string> pieces;
  std::vector<std::chrono::steady_clock::time_point> when;
  auto req = get("https://api.example.com/stream");
  req.on_body = [&](std::string_view piece) {
    pieces.emplace_back(piece);
    when.push_back(std::chrono::steady_clock::now());
    return true;
  };
  auto r = c->fetch(req);
  ASSERT_EQ(r.error, NetError::none) << r.error_detail;
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty()) << "a streamed body is the callback's, not the response's";
  std::string all;
  for (const auto& p : pieces) all += p;
  EXPECT_EQ(all, "data: {\"a\":1}\n\ndata: [DONE]\n\n");
  ASSERT_GE(pieces.size(), 2u) << "pieces arrive as they are sent, not at the end";
  EXPECT_GE(when.back() - when.front(), 30ms);

  // An error status is not streamed: it is the response's body, for the caller's reason.
  auto fail = get("https://api.example.com/fail");
  int calls = 0;
  fail.on_body = [&](std::string_view) { return ++calls > 0; };
  auto f = c->fetch(fail);
  EXPECT_EQ(f.status, 500);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(f.body, "{\"error\":\"down\"}");

  // The callback bounds what it takes: false aborts the transfer.
  auto capped = get("https://api.example.com/stream");
  capped.on_body = [](std::string_view) { return false; };
  EXPECT_EQ(c->fetch(capped).error, NetError::too_large);
}

TEST(HttpClient, DecodesGzip) {
  FakeUpstream fake([](const FakeRequest&) {
    FakeReply r = FakeReply::json("{\"items\":[1,2,3]}");
    r.gzip = true;
    return r;
  });
  auto c = client_for(fake);
  EXPECT_EQ(c->fetch(get("https://api.example.com/z")).body, "{\"items\":[1,2,3]}");
}

TEST(HttpClient, SpacesArxivRequestsThreeSecondsApart) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::xml("<feed/>"); });
  auto c = client_for(fake);
  std::thread a([&] { c->fetch(get("https://export.arxiv.org/api/query?a")); });
  std::thread b([&] { c->fetch(get("https://export.arxiv.org/api/query?b")); });
  a.join();
  b.join();
  auto log = fake.log();
  ASSERT_EQ(log.size(), 2u);
  const auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(log[1].received - log[0].received).count();
  EXPECT_GE(gap, 2900);
}

TEST(HttpClient, PolitenessThatCannotFitFailsFast) {
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::xml("<feed/>"); });
  auto c = client_for(fake);
  c->fetch(get("https://export.arxiv.org/api/query?a"));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c->fetch(get("https://export.arxiv.org/api/query?b", core::Deadline::in(1s)));
  EXPECT_EQ(r.error, NetError::politeness);
  EXPECT_LT(ms_since(t0), 200);
}

TEST(HttpClient, RecordsRedactedCassettesAndReplaysThemWithoutNetwork) {
  TempDir dir;
  {
    FakeUpstream fake([](const FakeRequest& r) {
      if (r.path == "/token") return FakeReply::json(R"({"access_token":"tok-SECRET-123","expires_in":3600})");
      return FakeReply::json(R"({"q":")" + r.param("q") + R"("})");
    });
    http::ClientOptions opts;
    opts.record_dir = dir.path();
    core::redact::add_secret("hunter2-key");
    auto c = client_for(fake, opts);
    auto req = get("https://api.example.com/search?q=rust&key=hunter2-key");
    req.headers.push_back({"Authorization", "Bearer hunter2-key"});
    EXPECT_EQ(c->fetch(req).status, 200);
    EXPECT_EQ(c->fetch(get("https://api.example.com/token")).status, 200);
  }
  std::string all;
  for (const auto& f : dir.files()) all += read_file(dir.path() + "/" + f);
  EXPECT_EQ(all.find("hunter2-key"), std::string::npos) << all;
  EXPECT_EQ(all.find("tok-SECRET-123"), std::string::npos) << all;
  EXPECT_EQ(all.find("Authorization"), std::string::npos);

  http::ClientOptions ropts;
  ropts.replay_dir = dir.path();
  auto replay = std::make_shared<http::Client>(ropts);  // no host map, no fake: replay must not need them
  auto r = replay->fetch(get("https://api.example.com/search?q=rust&key=another-key-entirely"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"q":"rust"})");
  EXPECT_EQ(replay->fetch(get("https://api.example.com/search?q=go")).error, NetError::replay_miss);
  EXPECT_EQ(replay->stats().started, 0u);
}

TEST(HttpClient, ReplayedAnswersObeyTheLiveCapsAndUnusableEntriesFailFast) {
  TempDir dir;
  FakeUpstream fake([](const FakeRequest&) { return FakeReply::json("[\"" + std::string(5000, 'a') + "\"]"); });
  {
    http::ClientOptions opts;
    opts.record_dir = dir.path();
    EXPECT_EQ(client_for(fake, opts)->fetch(get("https://api.example.com/big")).status, 200);
  }
  http::ClientOptions small;
  small.max_decoded_bytes = 1000;
  const auto live = client_for(fake, small)->fetch(get("https://api.example.com/big"));
  EXPECT_EQ(live.error, NetError::too_large);
  small.replay_dir = dir.path();
  const auto replayed = std::make_shared<http::Client>(small)->fetch(get("https://api.example.com/big"));
  EXPECT_EQ(replayed.error, live.error) << "a replayed body is held to the live cap: " << replayed.error_detail;

  // An entry that is a FIFO nobody writes (or a directory) ends the request at once.
  std::string entry;
  for (const auto& f : dir.files())
    if (f != "run.json") entry = dir.path() + "/" + f;
  ASSERT_FALSE(entry.empty());
  std::filesystem::remove(entry);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  http::ClientOptions ropts;
  ropts.replay_dir = dir.path();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = std::make_shared<http::Client>(ropts)->fetch(get("https://api.example.com/big"));
  EXPECT_LT(ms_since(t0), 1000);
  EXPECT_EQ(r.error, NetError::replay_miss);
  EXPECT_NE(r.error_detail.find("FIFO"), std::string::npos) << r.error_detail;
}

TEST(HttpClient, ConnectionRefusedIsUnreachable) {
  int port = 0;
  {
    FakeUpstream gone([](const FakeRequest&) { return FakeReply::json("{}"); });
    port = gone.port();
  }
  http::ClientOptions opts;
  std::string err;
  opts.host_map = *http::HostMap::parse("api.example.com=http://127.0.0.1:" + std::to_string(port), &err);
  http::Client c(opts);
  EXPECT_EQ(c.fetch(get("https://api.example.com/x")).error, NetError::unreachable);
}
