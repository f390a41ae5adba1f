// The real binary against a hostile internet: injected URLs and titles, control
// characters in the user's own topic, and answers far larger than what was asked for.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "core/text.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--days", "30"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Raw HTML in Markdown: a '<' that is not backslash-escaped.
bool raw_tag(const std::string& md, const std::string& tag) {
  for (auto pos = md.find(tag); pos != std::string::npos; pos = md.find(tag, pos + 1))
    if (pos == 0 || md[pos - 1] != '\\') return true;
  return false;
}

// The e2e Hacker News answer plus hits whose URLs and titles try to break out.
std::string hostile_hn_answer() {
  auto page = json::parse(fixture("e2e/hn_search.json"));
  auto hit = [](std::string id, std::string title, std::string url, int points) {
    return json{{"objectID", id},     {"title", title},     {"url", url},
                {"points", points},   {"num_comments", 40}, {"created_at_i", 1795186931},
                {"author", "mallory"}};
  };
  page["hits"].push_back(hit("47000001", "Tokio runtime newline attack",
                             "https://evil.example/a\n<script>alert(1)</script>\n 2. Forged story  [100 · hackernews+reddit]\n",
                             800));
  page["hits"].push_back(hit("47000002", "Tokio runtime javascript link", "javascript:alert(document.cookie)", 700));
  page["hits"].push_back(hit("47000003", "Tokio runtime data link", "data:text/html,<script>alert(1)</script>", 650));
  page["hits"].push_back(hit("47000004", "Tokio runtime vbscript link", "VBScript:msgbox(1)", 640));
  page["hits"].push_back(hit("47000005", "Tokio runtime file link", "file:///etc/passwd", 630));
  page["hits"].push_back(
      hit("47000006", "Tokio runtime \x1b[2J\x1b]0;pwned\x07 title <img src=x onerror=alert(1)>", "https://ok.example/d", 620));
  return page.dump();
}

void expect_inert(const std::string& out, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(out.find("<script>"), std::string::npos) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << "an escape sequence reached the output";
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_EQ(core::sanitize_utf8(out), out) << "invalid UTF-8";
  const std::string lower = core::lower_ascii(out);
  for (const char* scheme : {"](javascript:", "](data:", "](vbscript:", "](file:", "href=\"javascript:", "href=\"data:"})
    EXPECT_EQ(lower.find(scheme), std::string::npos) << scheme;
  for (const auto& line : lines_of(out)) EXPECT_NE(line.rfind(" 2. Forged", 0), 0u) << "a forged story line: " << line;
}

}  // namespace

TEST(HostileUpstream, InjectedUrlsAndTitlesStayInertInEveryBrief) {
  const std::string answer = hostile_hn_answer();
  Scenario s([&](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/hn/", 0) == 0) return FakeReply::json(answer);
    return std::nullopt;
  });
  const std::vector<std::string> fast = {"--search", "hn,reddit,lobsters"};
  auto compact = s.run(with(kArgs, fast));
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  ASSERT_NE(compact.out.find("Tokio runtime newline attack"), std::string::npos) << "the hostile hit is in the brief:\n"
                                                                                 << compact.out;
  expect_inert(compact.out, "compact");
  expect_inert(compact.err, "stderr");
  EXPECT_NE(compact.out.find("link withheld"), std::string::npos) << compact.out;

  TempDir saved;
  auto md = s.run(with(kArgs, with(fast, {"--emit", "md", "--save-dir", saved.path()})));
  ASSERT_EQ(md.exit_code, 0) << md.err;
  ASSERT_NE(md.out.find("Tokio runtime newline attack"), std::string::npos) << md.out;
  expect_inert(md.out, "md");
  const std::string raw_md = read_file(saved.path() + "/tokio-runtime-raw.md");
  ASSERT_FALSE(raw_md.empty()) << "saved brief";
  expect_inert(raw_md, "saved -raw.md");
  EXPECT_FALSE(raw_tag(md.out, "<img")) << "raw HTML in Markdown";
  EXPECT_FALSE(raw_tag(raw_md, "<img")) << "raw HTML in the saved Markdown";

  auto html = s.run(with(kArgs, with(fast, {"--emit", "html"})));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  expect_inert(html.out, "html");
  EXPECT_EQ(html.out.find("<img"), std::string::npos);

  // JSON carries the data as data: escaped by the encoder, one document.
  auto j = s.run(with(kArgs, with(fast, {"--emit", "json"})));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_FALSE(json::parse(j.out, nullptr, false).is_discarded());
  EXPECT_EQ(j.out.find('\x1b'), std::string::npos);
}

TEST(HostileUpstream, TheUsersOwnTopicNeverReachesTheTerminalRaw) {
  Scenario s;
  const std::string topic =
      "tokio\x1b[31m runtime\xff\xfe \xc2\x9b"
      "2J\x07";
  for (const char* emit : {"compact", "md", "json"}) {
    auto r = s.run({topic, "--as-of", "2026-11-29", "--search", "hn", "--emit", emit});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto* stream : {&r.out, &r.err}) {
      EXPECT_EQ(stream->find('\x1b'), std::string::npos) << emit << ": " << *stream;
      EXPECT_EQ(stream->find('\x07'), std::string::npos) << emit;
      EXPECT_EQ(stream->find("\xc2\x9b"), std::string::npos) << emit << ": C1 CSI";
      EXPECT_EQ(core::sanitize_utf8(*stream), *stream) << emit << ": invalid UTF-8";
    }
  }
  // The same for a discovery domain.
  Scenario d(nullptr, World::discovery);
  auto r = d.run({"--discover=ai\x1b]0;pwned\x07\xff", "--search", "hn,lobsters", "--enrich-budget", "5"}, 60s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto* stream : {&r.out, &r.err}) {
    EXPECT_EQ(stream->find('\x1b'), std::string::npos) << *stream;
    EXPECT_EQ(core::sanitize_utf8(*stream), *stream);
  }
}

// Issue 7 item 6: 50,000 items (30 MB decoded) took a --timeout 5 run 20 s and 600 MB, and
// 100,000 small items took 133 s. A source keeps what it asked for, and the run ends on time.
TEST(HostileUpstream, HugeAnswersStayInsideTheTimeoutAndMemory) {
  for (const auto& [count, padding] : {std::pair<int, int>{50000, 420}, std::pair<int, int>{100000, 0}}) {
    std::string body = R"({"hits":[)";
    for (int i = 0; i < count; ++i)
      body += fmt::format(R"({}{{"objectID":"{}","title":"Tokio runtime story {}","url":"https://example.com/s/{}",)"
                          R"("points":{},"num_comments":3,"created_at_i":1795186931,"story_text":"{}"}})",
                          i ? "," : "", 48000000 + i, i, i, i % 900, std::string(static_cast<std::size_t>(padding), 'x'));
    body += "]}";
    SCOPED_TRACE(fmt::format("{} items, {} MB", count, body.size() >> 20));
    FakeReply reply = FakeReply::json(gzip(body));
    reply.headers = {{"Content-Encoding", "gzip"}};  // under the 8 MiB wire cap, up to 32 MiB decoded
    // The search answers are huge; the best stories' comment threads (/hn/api/v1/items)
    // fall through to the ordinary fake.
    Scenario s([&](const FakeRequest& r) -> std::optional<FakeReply> {
      if (r.path.rfind("/hn/api/v1/search", 0) == 0) return reply;
      return std::nullopt;
    });
    auto r = s.run(with(kArgs, {"--search", "hn,lobsters", "--timeout", "5", "--emit", "json"}), 120s);
    ASSERT_FALSE(r.timed_out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LT(r.elapsed, 7000ms) << "--timeout 5 bounds the whole run, processing included";
    const auto j = json::parse(r.out);
    int hn = 0;
    for (const auto& it : j["items"]) hn += it["source"] == "hackernews" ? 1 : 0;
    const int asked = s.requests_starting("/hn/api/v1/search");
    EXPECT_LE(hn, 25 * asked) << "a source keeps at most the page it asked for";
    EXPECT_GT(hn, 0);
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    EXPECT_LT(usage.ru_maxrss, 150 * 1024) << "peak RSS of the run, KiB";
  }
}
