// What people said: the best stories' discussions quoted, end to end against the fake upstream.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// No arXiv: its 3 s pacing is not the point here.
const std::vector<std::string> kArgs = {
    "tokio runtime", "--as-of", "2026-11-29", "--days", "30", "--search", "hn,reddit,github,lobsters,stackexchange,polymarket"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const json* find_item(const json& report, const std::string& url) {
  for (const auto& it : report["items"])
    if (it["url"] == url) return &it;
  return nullptr;
}

const json* sighting(const json& item, const std::string& source) {
  for (const auto& s : item["also_seen"])
    if (s["source"] == source) return &s;
  return nullptr;
}

bool comment_path(const std::string& path) {
  return path.rfind("/hn/api/v1/items/", 0) == 0 || path.rfind("/lobsters/s/", 0) == 0 ||
         path.rfind("/arctic/api/comments/", 0) == 0 || path.rfind("/se/2.3/questions/", 0) == 0;
}

}  // namespace

TEST(CommentsCli, JsonQuotesTheBestThreadsOfEveryPlatform) {
  Scenario s;
  auto r = s.run(with(kArgs, {"--emit", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  // The top story: the reddit post, with the HN and Lobsters cross-posts folded in; each
  // thread is quoted where it was read.
  const json* top = find_item(j, "https://tokio.rs/blog/2026-11-tokio-2-0");
  ASSERT_NE(top, nullptr) << r.out;
  ASSERT_EQ((*top)["source"], "reddit");
  const auto& reddit = (*top)["comments"];
  ASSERT_EQ(reddit.size(), 2u) << "AutoModerator, [deleted], [removed], a bot and a reply are skipped: " << reddit.dump(1);
  EXPECT_EQ(reddit[0]["author"], "Darksonn");
  EXPECT_EQ(reddit[0]["score"], 512);
  EXPECT_EQ(reddit[0]["text"],
            "Maintainer here: the migration guide covers block_in_place. If something in it is unclear, open an issue & we will "
            "fix the docs.");
  EXPECT_EQ(reddit[0]["url"],
            "https://www.reddit.com/r/rust/comments/1q2tok1/tokio_20_is_out_with_a_new_runtime_scheduler/k0aaaa1/");
  EXPECT_EQ(reddit[1]["author"], "ferris_fan");
  EXPECT_NE(std::string(reddit[1]["text"]).find("Vec<JoinHandle>"), std::string::npos) << "entities decoded";

  const json* hn = sighting(*top, "hackernews");
  ASSERT_NE(hn, nullptr);
  ASSERT_EQ((*hn)["comments"].size(), 2u) << (*hn)["comments"].dump(1);
  EXPECT_EQ((*hn)["comments"][0]["author"], "steveklabnik") << "the most replied-to first";
  EXPECT_EQ((*hn)["comments"][0]["replies"], 3);
  EXPECT_TRUE((*hn)["comments"][0]["score"].is_null()) << "Hacker News hides comment points";
  EXPECT_EQ((*hn)["comments"][0]["url"], "https://news.ycombinator.com/item?id=46021001");
  const std::string hn_text = (*hn)["comments"][0]["text"];
  EXPECT_EQ(hn_text.rfind("The new scheduler's work-stealing change is the headline for me.", 0), 0u) << hn_text;
  EXPECT_EQ(hn_text.find('<'), std::string::npos) << hn_text;
  EXPECT_EQ(hn_text.find("&#x"), std::string::npos) << hn_text;
  EXPECT_EQ((*hn)["comments"][1]["text"], "Still waiting for structured concurrency & scoped tasks.");

  const json* lobsters = sighting(*top, "lobsters");
  ASSERT_NE(lobsters, nullptr);
  ASSERT_EQ((*lobsters)["comments"].size(), 2u) << "deleted and moderated comments are skipped";
  EXPECT_EQ((*lobsters)["comments"][0]["author"], "ferrous");
  EXPECT_EQ((*lobsters)["comments"][0]["score"], 19);
  EXPECT_EQ((*lobsters)["comments"][0]["replies"], 1);
  EXPECT_EQ((*lobsters)["comments"][1]["author"], "matklad");

  const json* question = find_item(
      j, "https://stackoverflow.com/questions/79990001/tokio-runtime-panics-cannot-start-a-runtime-from-within-a-runtime");
  ASSERT_NE(question, nullptr);
  const auto& answers = (*question)["comments"];
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0]["author"], "Alice & Bob");
  EXPECT_EQ(answers[0]["score"], 21);
  EXPECT_EQ(answers[0]["url"], "https://stackoverflow.com/a/79990002");
  EXPECT_TRUE(answers[1]["author"].is_null()) << "a deleted account keeps its answer, not its name";
  EXPECT_EQ(answers[2]["score"], -2);

  for (const char* id : {"hackernews", "reddit", "lobsters", "stackexchange"}) {
    const auto& st = j["source_status"][id];
    EXPECT_TRUE(st["state"] == "ok") << id << ": " << st.dump();
    ASSERT_TRUE(st.contains("comments")) << id << ": " << st.dump();
    EXPECT_GE(st["comments"]["threads"].get<int>(), 1) << id;
  }
  EXPECT_FALSE(j["source_status"]["github"].contains("comments")) << "GitHub has no comments capability";
  int threads = 0;
  for (const auto& e : s.fake().log()) threads += comment_path(e.request.path) ? 1 : 0;
  EXPECT_LE(threads, 8) << "at most eight threads per run";
}

TEST(CommentsCli, BriefsQuoteOneOrTwoUnderTheItem) {
  Scenario s;
  auto compact = s.run(kArgs);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  const std::string& out = compact.out;
  EXPECT_NE(
      out.find(
          "\u201cMaintainer here: the migration guide covers block_in_place. If something in it is unclear, open an issue & we "
          "will fix the docs.\u201d \u2014 Darksonn, 512 points"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("\u2014 steveklabnik, 3 replies"), std::string::npos) << out;
  EXPECT_NE(out.find("\u2014 Alice & Bob, 21 votes"), std::string::npos) << out;
  EXPECT_EQ(out.find("\u2014 newbie"), std::string::npos) << "two quotes per thread at most:\n" << out;
  // A long comment is cut at a sentence boundary.
  const auto hn = out.find("\u201cThe new scheduler's work-stealing change is the headline for me.");
  ASSERT_NE(hn, std::string::npos) << out;
  EXPECT_NE(out.find("major version.\u201d", hn), std::string::npos) << out;
  EXPECT_EQ(out.find("Benchmarks: https", hn), std::string::npos) << "cut before the second paragraph:\n" << out;

  auto md = s.run(with(kArgs, {"--emit", "md"}));
  ASSERT_EQ(md.exit_code, 0);
  EXPECT_NE(md.out.find("\u2014 [Darksonn, 512 points](https://www.reddit.com/r/rust/comments/1q2tok1/"), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("\u2014 [steveklabnik, 3 replies on hackernews](https://news.ycombinator.com/item?id=46021001)"),
            std::string::npos)
      << md.out;
  auto html = s.run(with(kArgs, {"--emit", "html"}));
  ASSERT_EQ(html.exit_code, 0);
  EXPECT_NE(html.out.find("<blockquote>\u201cMaintainer here"), std::string::npos);
  EXPECT_NE(html.out.find("issue &amp; we will fix"), std::string::npos) << "quotes are escaped";
}

TEST(CommentsCli, AFailedThreadCostsOnlyItsQuotes) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/hn/api/v1/items/", 0) == 0) return FakeReply::json(R"({"message":"upstream down"})", 503);
    if (r.path.rfind("/lobsters/s/", 0) == 0) return FakeReply::html("<html><body>Just a moment...</body></html>");
    return std::nullopt;
  });
  auto r = s.run(with(kArgs, {"--emit", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  const auto& hn = j["source_status"]["hackernews"];
  EXPECT_EQ(hn["state"], "ok") << "a comment fetch never degrades the source";
  EXPECT_GE(hn["comments"]["failed"].get<int>(), 1) << hn.dump();
  EXPECT_NE(std::string(hn["comments"]["reason"]).find("HTTP 503"), std::string::npos) << hn.dump();
  EXPECT_EQ(j["source_status"]["lobsters"]["state"], "ok");
  EXPECT_NE(std::string(j["source_status"]["lobsters"]["comments"]["reason"]).find("HTML"), std::string::npos);
  const json* top = find_item(j, "https://tokio.rs/blog/2026-11-tokio-2-0");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ((*top)["comments"].size(), 2u) << "reddit's thread is unaffected";
  EXPECT_FALSE(sighting(*top, "hackernews")->contains("comments"));
  EXPECT_EQ(s.run(with(kArgs, {"--strict"})).exit_code, 0) << "--strict does not count comments";
  // The compact brief says why the quotes are missing.
  auto compact = s.run(kArgs);
  EXPECT_NE(compact.out.find("hackernews: comments unavailable"), std::string::npos) << compact.out;
}

TEST(CommentsCli, HungThreadsEndAtTheRunDeadline) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (comment_path(r.path)) return FakeReply::hang();
    return std::nullopt;
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.run(with(kArgs, {"--emit", "json", "--timeout", "2"}), 20s);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.elapsed, 3000ms) << "the comments stage is inside the run's 2 s";
  const auto j = json::parse(r.out);
  EXPECT_FALSE(j["items"].empty()) << "the brief is still complete";
  for (const auto& it : j["items"]) EXPECT_FALSE(it.contains("comments"));
  EXPECT_EQ(j["source_status"]["reddit"]["state"], "ok");
  EXPECT_NE(std::string(j["source_status"]["reddit"]["comments"]["reason"]).find("timeout"), std::string::npos)
      << j["source_status"]["reddit"].dump();
  int hung = 0;
  for (const auto& e : s.fake().log()) {
    if (!e.hung) continue;
    ++hung;
    EXPECT_TRUE(e.closed_by_client) << e.request.path << " was left open";
    EXPECT_LT(e.ended - t0, 2800ms) << e.request.path;
  }
  EXPECT_GE(hung, 3);
}
