// Comparison: splitting "A vs B", shared stories, and the side-by-side renderers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "pipeline/compare.hpp"
#include "render/render.hpp"

using pipeline::split_comparison;
using Entities = std::vector<std::string>;

TEST(SplitComparison, SeparatorsNeedSpacesOnBothSidesAsTyped) {
  EXPECT_EQ(split_comparison("tokio vs async-std").entities, (Entities{"tokio", "async-std"}));
  EXPECT_EQ(split_comparison("rust VS. go versus  zig").entities, (Entities{"rust", "go", "zig"}));
  EXPECT_EQ(split_comparison("rust\tvs\tgo").entities, (Entities{"rust", "go"}));
  EXPECT_EQ(split_comparison("VS Code vs Vim").entities, (Entities{"VS Code", "Vim"})) << "a leading VS is a word";
  EXPECT_EQ(split_comparison("a vs b vs c vs d vs e vs f").entities.size(), 6u);
  for (const char* single : {"tokio", "VS Code extensions", "tokio vs", "vs", "Kramer vs.Kramer", "vsync vs.", "canvas versus"}) {
    const auto s = split_comparison(single);
    EXPECT_TRUE(s.entities.empty() && s.error.empty()) << single;
  }
}

TEST(SplitComparison, MalformedComparisonsSayWhy) {
  struct Case {
    const char* typed;
    const char* says;
  };
  for (const auto& c : {Case{"tokio vs ", "empty last side"}, Case{" vs tokio", "empty first side"},
                        Case{"a vs vs b", "empty middle side"}, Case{"a vs b vs c vs d vs e vs f vs g", "7 things"},
                        Case{"Kramer vs. Kramer", "with itself"}, Case{"Rust versus RUST", "with itself"}}) {
    const auto s = split_comparison(c.typed);
    EXPECT_TRUE(s.entities.empty()) << c.typed;
    EXPECT_NE(s.error.find(c.says), std::string::npos) << c.typed << ": " << s.error;
    EXPECT_NE(s.error.find("--no-compare"), std::string::npos) << "the way out is named: " << s.error;
  }
}

namespace {

model::Item item(std::string id, std::string url, std::string title, double points) {
  model::Item it;
  it.id = std::move(id);
  it.source = it.id.substr(0, it.id.find(':'));
  it.url = std::move(url);
  it.title = std::move(title);
  it.engagement = {{"points", points}};
  return it;
}

// A report with one cluster per item, scored by position.
model::Report report(std::string topic, std::vector<model::Item> items) {
  model::Report r;
  r.topic = std::move(topic);
  double score = 90;
  for (auto& it : items) {
    model::Cluster c;
    c.id = "c" + std::to_string(r.clusters.size() + 1);
    c.title = it.title;
    c.score = score -= 10;
    c.items = {it.id};
    c.sources = {it.source};
    it.cluster = c.id;
    r.clusters.push_back(c);
    r.items.push_back(std::move(it));
  }
  r.source_status["hackernews"] = {model::SourceState::ok, static_cast<int>(r.items.size()), "", 10, 1};
  return r;
}

model::Comparison compare(std::vector<model::Report> reports) {
  model::Comparison c;
  c.topic = "comparison";
  for (auto& r : reports) c.entities.push_back({r.topic, std::move(r)});
  pipeline::find_shared_stories(c);
  return c;
}

}  // namespace

TEST(SharedStories, SameUrlAcrossEntitiesIsOneSharedStory) {
  auto c =
      compare({report("tokio", {item("hackernews:1", "https://tokio.rs/2", "Tokio 2.0 released", 900),
                                item("hackernews:2", "https://www.bench.dev/runtimes?utm_source=x", "Runtime benchmarks", 300)}),
               report("smol", {item("reddit:9", "http://bench.dev/runtimes", "Benchmarking three async runtimes", 80),
                               item("hackernews:3", "https://smol.rs/1", "smol 3.0", 50)})});
  ASSERT_EQ(c.shared.size(), 1u);
  EXPECT_EQ(c.shared[0].entities, (Entities{"tokio", "smol"}));
  EXPECT_EQ(c.shared[0].title, "Benchmarking three async runtimes") << "the best-scored cluster (smol's first) names it";
  EXPECT_EQ(c.shared[0].url, "http://bench.dev/runtimes");
  ASSERT_EQ(c.shared[0].members.size(), 2u);
  EXPECT_EQ(c.shared[0].members[0].entity + c.shared[0].members[1].entity, 1u);
  ASSERT_EQ(c.own_stories(0).size(), 1u);
  EXPECT_EQ(c.own_stories(0)[0]->title, "Tokio 2.0 released");
  ASSERT_EQ(c.own_stories(1).size(), 1u);
  EXPECT_EQ(c.own_stories(1)[0]->title, "smol 3.0");
}

TEST(SharedStories, FoundThroughSightingsItemIdsAndNearDuplicateTitles) {
  auto a = item("reddit:1", "https://blog.example/post", "Async Rust in 2026: the state of runtimes", 100);
  a.also_seen.push_back({"hackernews", "https://news.ycombinator.com/item?id=7", "x", std::nullopt, {}});
  auto c = compare(
      {report("tokio", {a, item("hackernews:5", "https://a.example/1", "Rust async runtime survey results published today", 10),
                        item("github:3", "https://github.com/x/y", "x/y: a thing", 5)}),
       report("glommio", {item("hackernews:7", "https://news.ycombinator.com/item?id=7", "Ask HN: something", 40),
                          item("hackernews:8", "https://b.example/2", "Rust async runtime survey results published today!", 10)}),
       report("smol", {item("github:3", "https://github.com/x/y?tab=readme", "x/y: a thing", 5)})});
  ASSERT_EQ(c.shared.size(), 3u);
  auto shared_by = [&](const std::string& title_part) -> Entities {
    for (const auto& st : c.shared)
      for (const auto& m : st.members)
        for (const auto& cl : c.entities[m.entity].report.clusters)
          if (cl.id == m.cluster && cl.title.find(title_part) != std::string::npos) return st.entities;
    return {};
  };
  EXPECT_EQ(shared_by("state of runtimes"), (Entities{"tokio", "glommio"})) << "a sighting's URL is the other entity's item";
  EXPECT_EQ(shared_by("survey results"), (Entities{"tokio", "glommio"})) << "near-duplicate titles";
  EXPECT_EQ(shared_by("a thing"), (Entities{"tokio", "smol"})) << "the same item id";
  EXPECT_GE(c.shared[0].members.size(), 2u);
  // Two stories of ONE entity are never "shared".
  auto same = compare(
      {report("tokio", {item("hackernews:1", "https://x.example/", "One", 1), item("reddit:1", "https://x.example/", "Two", 1)}),
       report("smol", {item("hackernews:9", "https://y.example/", "Three", 1)})});
  EXPECT_TRUE(same.shared.empty());
}

TEST(SharedStories, ShortOrMerelySimilarTitlesDoNotFold) {
  auto c =
      compare({report("a", {item("hackernews:1", "https://1.example/", "Release notes", 1),
                            item("hackernews:2", "https://2.example/", "The tokio runtime scheduler explained in depth", 1)}),
               report("b", {item("hackernews:3", "https://3.example/", "Release notes", 1),
                            item("hackernews:4", "https://4.example/", "The smol runtime scheduler explained", 1)})});
  EXPECT_TRUE(c.shared.empty()) << "two-word titles and 0.6-similar titles are different stories";
}

TEST(ComparisonRender, CompactTableAlignsWideNamesAndCutsLongOnes) {
  auto c =
      compare({report("東京 rust", {item("hackernews:1", "https://1.example/", "Tokyo Rust meetup", 12)}),
               report("a-very-long-entity-name-that-goes-on-and-on", {item("hackernews:2", "https://2.example/", "Long", 3)})});
  const std::string out = render::comparison_compact(c);
  std::vector<std::string> lines;
  for (std::size_t p = 0, nl; (nl = out.find('\n', p)) != std::string::npos; p = nl + 1) lines.push_back(out.substr(p, nl - p));
  const std::string& header = lines[2];
  EXPECT_NE(header.find("東京 rust"), std::string::npos) << out;
  EXPECT_NE(header.find("a-very-long-entity-name…"), std::string::npos) << "cut at 24 columns: " << header;
  // Cells (runs of two or more spaces apart) start at the same terminal column in every row.
  auto starts = [](const std::string& line) {
    std::vector<std::size_t> cols;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] != ' ' && (i == 0 || (i >= 2 && line[i - 1] == ' ' && line[i - 2] == ' ')))
        cols.push_back(core::display_width(line.substr(0, i)));
    return cols;
  };
  const auto head = starts(header);
  ASSERT_EQ(head.size(), 2u) << header;
  for (std::size_t row = 3; row < 6; ++row) {
    const auto cells = starts(lines[row]);
    ASSERT_EQ(cells.size(), 3u) << lines[row];
    EXPECT_EQ(cells[1], head[0]) << header << "\n" << lines[row];
    EXPECT_EQ(cells[2], head[1]) << header << "\n" << lines[row];
  }
}

TEST(ComparisonRender, JsonFollowsTheContract) {
  auto c = compare({report("tokio", {item("hackernews:1", "https://1.example/", "One", 12)}),
                    report("smol", {item("hackernews:1", "https://1.example/", "One", 12)})});
  c.topic = "tokio vs smol";
  c.outcome = model::Outcome::ok;
  const auto j = nlohmann::ordered_json::parse(render::comparison_json(c));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (Entities{"schema_version", "kind", "topic", "depth", "window", "generated_at", "entities", "shared_stories",
                            "warnings", "outcome"}));
  EXPECT_EQ(j["kind"], "comparison");
  EXPECT_EQ(j["entities"][1]["name"], "smol");
  EXPECT_EQ(j["entities"][1]["report"]["kind"], "research");
  EXPECT_EQ(j["entities"][1]["report"]["topic"], "smol");
  EXPECT_EQ(j["entities"][0]["summary"]["engagement"], 12);
  EXPECT_EQ(j["shared_stories"][0]["entities"], (nlohmann::ordered_json{"tokio", "smol"}));
  EXPECT_EQ(j["shared_stories"][0]["url"], "https://1.example/");
}

TEST(TextWidth, CountsTerminalColumns) {
  EXPECT_EQ(core::display_width("tokio"), 5u);
  EXPECT_EQ(core::display_width("東京"), 4u);
  EXPECT_EQ(core::display_width("e\xCC\x81"), 1u) << "a combining accent takes no column";
  EXPECT_EQ(core::fit_width("tokio", 5), "tokio");
  EXPECT_EQ(core::fit_width("tokio runtime", 6), "tokio…");
  EXPECT_EQ(core::fit_width("東京東京", 5), "東京…");
  EXPECT_EQ(core::fit_width("abc", 0), "");
}

TEST(SharedStories, NearDuplicateTitlesStatingDifferentFactsAreNotShared) {
  auto c = compare(
      {report("rust", {item("hackernews:1", "https://1.example/",
                            "Announcing Rust 1.91: faster builds and a new borrow checker for everyone", 1),
                       item("hackernews:2", "https://2.example/", "Tokio 2.0 released with a new runtime scheduler today", 1)}),
       report("go",
              {item("hackernews:3", "https://3.example/",
                    "Announcing Rust 1.92: faster builds and a new borrow checker for everyone", 1),
               item("hackernews:4", "https://4.example/", "Tokio 2.0 not released with a new runtime scheduler today", 1)})});
  EXPECT_TRUE(c.shared.empty()) << "another version, a negation: other facts, not one shared story";
}
