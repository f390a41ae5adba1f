// Secrets never leave the process: the real binary against an upstream that echoes every
// request back (headers, query, earlier requests) into titles and snippets, so a leak in
// any output -- stdout in every format, stderr, --output, --save, --record -- would show.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "core/text.hpp"
#include "mcp_child.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string kGithubToken = "ghp_ZQ7echoTok3nGHxx";
const std::string kSeKey = "se/K3y+ZQ 9=echo";  // percent-encoded on the wire
const std::string kRedditId = "rdt-id-ZQ4echo";
const std::string kRedditSecret = "rdt-secret-ZQ5echo";
const std::string kRuntimeToken = "rt-token-ZQ6echo-abcdef0123";  // obtained at run time
const std::string kBskyPassword = "bsky-pass-ZQ8echo";
const std::string kBskyAccess = "eyJZQ9acc.echoAccessJwt.sigBsky0";  // session tokens, obtained at run time
const std::string kBskyRefresh = "eyJZQ9ref.echoRefreshJwt.sigBsky1";

// Every form a secret may take on the way out, and the 8-byte prefixes a cut would leave.
std::vector<std::string> forbidden() {
  std::vector<std::string> out{kGithubToken,
                               kSeKey,
                               core::url_encode(kSeKey),
                               kRedditId,
                               kRedditSecret,
                               kRuntimeToken,
                               core::base64_encode(kRedditId + ":" + kRedditSecret),
                               kBskyPassword,
                               kBskyAccess,
                               kBskyRefresh};
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) out.push_back(out[i].substr(0, 8));
  return out;
}

// What a request carried, as text an upstream might put in a title.
std::string echo(const FakeRequest& r) {
  auto header = [&](const char* name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  return "authorization=" + header("authorization") + " " + r.method + " " + r.target + " body=" + r.body;
}

// The first credential-bearing fragment of an echo: a title that puts it at byte 290
// is cut (at 300 bytes) inside it. `before`: what the source puts ahead of this text.
std::string cut_inside(const std::string& e, std::size_t before = 0) {
  std::size_t at = std::string::npos;
  for (const auto& f : forbidden())
    if (f.size() > 8) at = std::min(at, e.find(f));
  const std::string fragment = at == std::string::npos ? e : e.substr(at);
  return "tokio runtime " + std::string(275 - before, 'x') + " " + fragment;
}

json se_item(const std::string& title, int id) {
  return {{"tags", {"rust"}},
          {"owner", {{"display_name", "echo"}}},
          {"is_answered", true},
          {"view_count", 100},
          {"answer_count", 1},
          {"score", 5},
          {"creation_date", 1795333500},
          {"question_id", 79990100 + id},
          {"link", "https://stackoverflow.com/questions/" + std::to_string(79990100 + id) + "/echo"},
          {"title", title},
          {"body", "<p>" + title + "</p>"}};
}

json repo(const std::string& description, int id) {
  const std::string name = "echo/tokio-runtime-" + std::to_string(id);
  return {{"id", 900000 + id},
          {"name", "tokio-runtime"},
          {"full_name", name},
          {"html_url", "https://github.com/" + name},
          {"description", description},
          {"created_at", "2026-11-21T08:12:00Z"},
          {"stargazers_count", 300 + id},
          {"forks_count", 3}};
}

// No comments counted: this fake has no comment threads, and each Reddit thread asked for
// would cost a paced second.
json reddit_child(const std::string& title, int id) {
  const std::string native = "echo" + std::to_string(id);
  return {{"kind", "t3"},
          {"data",
           {{"id", native},
            {"name", "t3_" + native},
            {"title", title},
            {"subreddit", "rust"},
            {"permalink", "/r/rust/comments/" + native + "/echo/"},
            {"url", "https://example.org/" + native},
            {"is_self", false},
            {"author", "echo"},
            {"created_utc", 1795168800.0},
            {"score", 400 + id},
            {"num_comments", 0},
            {"upvote_ratio", 0.9},
            {"selftext", title}}}};
}

json bsky_post(const std::string& text, int id) {
  const std::string rkey = "3m7echo" + std::to_string(id);
  return {{"uri", "at://did:plc:echo5zd2wq7h3nrmgkdl3ls/app.bsky.feed.post/" + rkey},
          {"author", {{"did", "did:plc:echo5zd2wq7h3nrmgkdl3ls"}, {"handle", "echo.bsky.social"}}},
          {"record", {{"$type", "app.bsky.feed.post"}, {"text", text}, {"createdAt", "2026-11-21T08:12:00Z"}}},
          {"indexedAt", "2026-11-21T08:12:01Z"},
          {"likeCount", 50 + id},
          {"repostCount", 2}};
}

// The echoing upstream: GitHub, Stack Exchange and Reddit answer in their real formats
// with the request itself as the content; Reddit's listing also echoes every earlier
// request, the Basic-authenticated token request included.
class EchoScenario {
 public:
  EchoScenario() : scenario_([this](const FakeRequest& r) { return answer(r); }) {}

  std::map<std::string, std::string> env() const {
    auto e = scenario_.env();
    e["GITHUB_TOKEN"] = kGithubToken;
    e["STACKEXCHANGE_KEY"] = kSeKey;
    e["REDDIT_CLIENT_ID"] = kRedditId;
    e["REDDIT_CLIENT_SECRET"] = kRedditSecret;
    e["BSKY_HANDLE"] = kGoodBskyHandle;
    e["BSKY_APP_PASSWORD"] = kBskyPassword;
    return e;
  }
  Scenario& scenario() { return scenario_; }

 private:
  std::optional<FakeReply> answer(const FakeRequest& r) {
    std::vector<std::string> before;
    {
      std::lock_guard lock(mu_);
      // Bluesky echoes only its own requests, the others only theirs: shared echoes would
      // fold into shared stories and pull more Reddit comment threads (a paced second each).
      const bool bluesky = r.path.rfind("/bsky/", 0) == 0 || r.path.rfind("/pds/", 0) == 0;
      auto& seen = bluesky ? bluesky_seen_ : seen_;
      before = seen;
      seen.push_back(echo(r));
    }
    const std::string e = echo(r);
    if (r.path == "/reddit/api/v1/access_token")
      return FakeReply::json(json{{"access_token", kRuntimeToken}, {"token_type", "bearer"}, {"expires_in", 86400}}.dump());
    // Bluesky: a session whose tokens the search then carries, and a search answer that
    // echoes the request (its Authorization header) and the login before it (the
    // password) into post texts.
    if (r.path == "/bsky/xrpc/com.atproto.server.createSession") {
      auto session = json::parse(fixture("e2e/bluesky_session.json"));
      session["accessJwt"] = kBskyAccess;
      session["refreshJwt"] = kBskyRefresh;
      return FakeReply::json(session.dump());
    }
    if (r.path.rfind("/pds/xrpc/app.bsky.feed.searchPosts", 0) == 0) {
      json posts = json::array();
      int id = 0;
      for (const auto& text : before) posts.push_back(bsky_post("tokio runtime " + text, ++id));
      posts.push_back(bsky_post("tokio runtime " + e, ++id));
      posts.push_back(bsky_post(cut_inside(e), ++id));
      return FakeReply::json(json{{"posts", posts}}.dump());
    }
    if (r.path.rfind("/reddit-oauth/", 0) == 0) {
      json children = json::array();
      int id = 0;
      for (const auto& b : before) children.push_back(reddit_child("tokio runtime " + b, ++id));
      children.push_back(reddit_child("tokio runtime " + e, ++id));
      children.push_back(reddit_child(cut_inside(e), ++id));
      return FakeReply::json(json{{"kind", "Listing"}, {"data", {{"children", children}}}}.dump());
    }
    if (r.path == "/gh/search/repositories")
      return FakeReply::json(
          json{{"total_count", 2},
               {"items", {repo("tokio runtime " + e, 1), repo(cut_inside(e, std::string("echo/tokio-runtime-2: ").size()), 2)}}}
              .dump());
    if (r.path.rfind("/se/", 0) == 0) {
      FakeReply reply = FakeReply::json(json{
          {"items", {se_item("tokio runtime " + e, 1), se_item(cut_inside(e), 2)}},
          {"has_more", false},
          {"quota_max", 10000},
          {"quota_remaining", 9999}}.dump());
      reply.gzip = true;
      return reply;
    }
    return std::nullopt;
  }

  std::mutex mu_;
  std::vector<std::string> seen_;
  std::vector<std::string> bluesky_seen_;
  Scenario scenario_;
};

std::string slurp_dir(const TempDir& dir) {
  std::string all;
  for (const auto& f : dir.files()) all += f + "\n" + read_file(dir.path() + "/" + f);
  return all;
}

void expect_no_secret(const std::string& where, const std::string& text) {
  for (const auto& f : forbidden()) EXPECT_EQ(text.find(f), std::string::npos) << where << " holds '" << f << "'";
}

}  // namespace

TEST(SecretsCli, AnEchoingUpstreamCannotMakeAnyOutputLeakACredential) {
  EchoScenario echo_world;
  const auto env = echo_world.env();
  const std::vector<std::string> base = {"tokio runtime", "--as-of", "2026-11-29", "--search",
                                         "github,stackexchange,reddit,bluesky"};

  TempDir save, cassette, out;
  auto args = base;
  args.insert(args.end(),
              {"--emit", "json", "--save-dir", save.path(), "--record", cassette.path(), "--output", out.path() + "/brief.json"});
  auto r = run_last30days(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string brief = slurp_dir(out);
  // The test can fail: the echoes did reach the brief, and were redacted there.
  EXPECT_NE(brief.find("authorization="), std::string::npos) << brief.substr(0, 2000);
  EXPECT_NE(brief.find("[redacted]"), std::string::npos);
  const auto status = json::parse(brief.substr(brief.find('\n') + 1))["source_status"];
  EXPECT_EQ(status["reddit"]["state"], "ok") << "OAuth path taken";
  EXPECT_EQ(status["bluesky"]["state"], "ok") << "Bluesky session taken";
  EXPECT_NE(brief.find("bsky.app/profile/echo.bsky.social"), std::string::npos) << "the echoing posts reached the brief";
  expect_no_secret("--output", brief);
  expect_no_secret("--save", slurp_dir(save));
  expect_no_secret("--record", slurp_dir(cassette));
  expect_no_secret("stderr", r.err);
  EXPECT_FALSE(save.files().empty());
  EXPECT_FALSE(cassette.files().empty());

  for (const char* emit : {"compact", "md", "html"}) {
    auto e = base;
    e.insert(e.end(), {"--emit", emit});
    auto shown = run_last30days(e, env);
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("redacted"), std::string::npos) << emit;  // md escapes the brackets
    expect_no_secret(std::string("stdout --emit ") + emit, shown.out);
    expect_no_secret("stderr", shown.err);
  }
}

TEST(SecretsCli, RecordingTerminatesWhateverTheSecretIs) {
  // "ACTED" occurs in the old redactor's own marker "REDACTED": it looped forever.
  Scenario s;
  TempDir cassette;
  auto env = s.env();
  env["STACKEXCHANGE_KEY"] = "ACTED";
  auto r = run_last30days({"tokio runtime", "--as-of", "2026-11-29", "--search", "so", "--record", cassette.path()}, env, 20s);
  ASSERT_FALSE(r.timed_out) << "the recorder must terminate";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp_dir(cassette).find("key=ACTED"), std::string::npos);
}

TEST(SecretsCli, ACredentialWithALineBreakIsAConfigurationError) {
  Scenario s;
  for (const std::string key : {"GITHUB_TOKEN", "STACKEXCHANGE_KEY", "REDDIT_CLIENT_SECRET"}) {
    auto env = s.env();
    env[key] = "abc\r\nX-Injected: 1";
    auto r = run_last30days({"tokio runtime", "--as-of", "2026-11-29"}, env, 20s);
    EXPECT_EQ(r.exit_code, 2) << key << ": " << r.err;
    EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("X-Injected"), std::string::npos) << "the value is not echoed";
  }
  EXPECT_EQ(s.fake().log().size(), 0u) << "nothing was sent";
}

TEST(SecretsCli, ARelativeHomeReadsNoConfigAndWritesNoProtocolFiles) {
  Scenario s(nullptr, World::discovery);
  TempDir cwd;
  // A config planted where a relative HOME would resolve from this working directory.
  std::filesystem::create_directories(cwd.path() + "/relhome/.config/last30days");
  std::ofstream(cwd.path() + "/relhome/.config/last30days/.env") << "GITHUB_TOKEN=ghp_planted_relative_zq\n";
  auto env = s.env();
  env["HOME"] = "relhome";
  env["XDG_CONFIG_HOME"] = "";
  SpawnOptions opts;
  opts.cwd = cwd.path();
  opts.watchdog = 30s;
  auto r = run_last30days({"tokio runtime", "--search", "github"}, env, opts);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& e : s.fake().log()) {
    const auto auth = e.request.headers.find("authorization");
    EXPECT_TRUE(auth == e.request.headers.end()) << "a planted config was read: " << auth->second;
  }
  auto nom = run_last30days({"--discover", "--nominate-only", "--search", "hn"}, env, opts);
  EXPECT_EQ(nom.exit_code, 2) << nom.err;
  EXPECT_NE(nom.err.find("--save-dir"), std::string::npos) << nom.err;
  auto files = cwd.files();
  EXPECT_EQ(files, std::vector<std::string>{"relhome/.config/last30days/.env"}) << "nothing written under the relative HOME";
}

// Issue 22 item 5: a credential equal to a JSON literal or to JSON punctuation. Redaction
// ran on the serialised text, so `"reason": null` became `"reason": [redacted]`. Now such
// a value is a configuration warning and every document stays valid: --emit json, and
// MCP's initialize reply and research answer.
TEST(SecretsCli, ACredentialThatLooksLikeJsonNeverBreaksTheJson) {
  Scenario s;
  for (const std::string value : {"false", "null", "true", "\": \"", "1234", "title"}) {
    auto env = s.env();
    env["GITHUB_TOKEN"] = value;
    auto r = run_last30days({"tokio runtime", "--as-of", "2026-11-29", "--emit", "json", "--search", "hn,github"}, env, 30s);
    ASSERT_EQ(r.exit_code, 0) << value << ": " << r.err;
    const auto j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << value << ": " << r.out.substr(0, 400);
    EXPECT_EQ(j["kind"], "research") << value;
    EXPECT_NE(r.err.find("GITHUB_TOKEN is too short or too common"), std::string::npos) << value << ": " << r.err;

    McpChild mcp(env);
    const auto hello = mcp.initialize();
    ASSERT_TRUE(hello) << mcp.err();
    EXPECT_FALSE(json::parse(*hello, nullptr, false).is_discarded()) << value << ": " << *hello;
    mcp.call("research", R"({"topic":"tokio runtime","as_of":"2026-11-29","sources":["hackernews","github"]})");
    const auto line = mcp.reply(30s);
    ASSERT_TRUE(line) << mcp.err();
    const auto reply = json::parse(*line, nullptr, false);
    ASSERT_FALSE(reply.is_discarded()) << value << ": " << *line;
    EXPECT_EQ(reply["result"]["isError"], false) << value << ": " << *line;
    EXPECT_EQ(reply["result"]["structuredContent"]["kind"], "research") << value;
    mcp.close_stdin();
    EXPECT_EQ(mcp.wait(5s), 0);
  }
}

// The same values are still kept out of what upstream sends back (a field is a value).
TEST(SecretsCli, AShortCredentialIsStillRedactedFromUpstreamText) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/hn/api/v1/search", 0) != 0) return std::nullopt;
    return FakeReply::json(R"({"hits":[{"objectID":"1","title":"Tokio runtime leaks zebra again","url":"https://t.example/1",)"
                           R"("author":"a","points":50,"num_comments":3,"created_at_i":1795564800,"_tags":["story"]}]})");
  });
  auto env = s.env();
  env["GITHUB_TOKEN"] = "zebra";
  auto r = run_last30days({"tokio runtime", "--as-of", "2026-11-29", "--emit", "json", "--search", "hn"}, env, 30s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("zebra"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("leaks [redacted] again"), std::string::npos) << r.out.substr(0, 400);
}
