// The renderer rule (render/escape.hpp) against hostile upstream text, the shell-safe
// follow-up command, and the one source_status serialisation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "core/text.hpp"
#include "discover/protocol.hpp"
#include "model/source_status_json.hpp"
#include "render/escape.hpp"
#include "render/render.hpp"
#include "shell_paste.hpp"

using nlohmann::json;

namespace {

const core::UnixSeconds kNow = *core::parse_date("2026-11-29") + 12 * 3600;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

model::Item item(std::string id, std::string title, std::string url) {
  model::Item it;
  it.id = "hackernews:" + id;
  it.source = "hackernews";
  it.title = std::move(title);
  it.url = std::move(url);
  it.published_at = kNow - 86400;
  it.engagement.push_back({"points", 120});
  it.cluster = "c" + id;
  return it;
}

// One story per item, in order, as the pipeline would leave them.
model::Report report(std::vector<model::Item> items, std::string topic = "tokio runtime") {
  model::Report r;
  r.topic = std::move(topic);
  r.window = model::Window::ending(kNow, 30);
  r.generated_at = kNow;
  r.source_status["hackernews"] = {model::SourceState::ok, static_cast<int>(items.size()), "", 12, 1};
  for (const auto& it : items) {
    model::Cluster c;
    c.id = it.cluster;
    c.title = it.title;
    c.score = 80;
    c.sources = {"hackernews"};
    c.items = {it.id};
    r.clusters.push_back(c);
  }
  r.items = std::move(items);
  return r;
}

// Every way of writing a link that runs code or reads local files.
const std::vector<std::string> kBadSchemes = {"javascript:alert(document.cookie)",
                                              "JaVaScRiPt:alert(1)",
                                              " javascript:alert(1)",
                                              "java\nscript:alert(1)",
                                              "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
                                              "vbscript:msgbox(1)",
                                              "file:///etc/passwd",
                                              "//evil.example/x",
                                              "/relative/path",
                                              "https://",
                                              "https://exa mple.com/"};

bool valid_utf8(const std::string& s) { return core::sanitize_utf8(s) == s; }

// Markdown syntax only counts when its first character is not backslash-escaped.
bool has_unescaped(const std::string& md, const std::string& needle) {
  for (auto pos = md.find(needle); pos != std::string::npos; pos = md.find(needle, pos + 1)) {
    std::size_t slashes = 0;
    while (slashes < pos && md[pos - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return true;
  }
  return false;
}

}  // namespace

TEST(RenderRule, NewlineInAUrlForgesNoLinesAndNoHtml) {
  const std::string forged = "https://example.com/a\n<script>alert(1)</script>\n 2. Forged story  [99 · hackernews+reddit]\n";
  auto r = report({item("1", "Tokio 2.0\r\n 3. Another forged story", forged)});
  r.items[0].discussion_url = "https://news.ycombinator.com/item?id=1\n<img src=x onerror=alert(1)>";
  r.items[0].also_seen.push_back({"reddit", "https://reddit.com/r/rust/1\n 4. Forged", "t", std::nullopt, {}});
  const auto compact = render::research_compact(r);
  const auto md = render::research_markdown(r);
  const auto html = render::research_html(r);
  for (const auto* out : {&compact, &md, &html}) {
    EXPECT_EQ(out->find("<script>"), std::string::npos) << *out;
    EXPECT_EQ(out->find("<img"), std::string::npos) << *out;
    for (const auto& line : lines_of(*out)) {
      EXPECT_EQ(line.rfind(" 2. Forged", 0), std::string::npos) << line;
      EXPECT_EQ(line.rfind(" 3. Another", 0), std::string::npos) << line;
      EXPECT_EQ(line.rfind(" 4. Forged", 0), std::string::npos) << line;
    }
  }
  // One story means one numbered line, and the URL stays one (encoded) line.
  int numbered = 0;
  for (const auto& line : lines_of(compact)) numbered += line.size() > 3 && line[2] == '.' && std::isdigit(line[1]) ? 1 : 0;
  EXPECT_EQ(numbered, 1) << compact;
  EXPECT_NE(compact.find("https://example.com/a%0A%3Cscript%3Ealert(1)%3C/script%3E%0A%202.%20Forged"), std::string::npos)
      << compact;
  EXPECT_NE(md.find("](<https://example.com/a%0A%3Cscript%3Ealert(1)%3C/script%3E%0A%202.%20Forged"), std::string::npos) << md;
}

TEST(RenderRule, OnlyHttpUrlsBecomeLinks) {
  std::vector<model::Item> items;
  for (std::size_t i = 0; i < kBadSchemes.size(); ++i)
    items.push_back(item(std::to_string(i), "story " + std::to_string(i), kBadSchemes[i]));
  items.push_back(item("ok", "a real one", "https://tokio.rs/blog"));
  const auto r = report(items);
  const auto md = render::research_markdown(r);
  const auto html = render::research_html(r);
  const auto compact = render::research_compact(r);
  for (const char* scheme : {"javascript:", "data:", "vbscript:", "file:"}) {
    EXPECT_EQ(core::lower_ascii(md).find(std::string("](") + scheme), std::string::npos) << md;
    EXPECT_EQ(core::lower_ascii(md).find(std::string("( ") + scheme), std::string::npos) << md;
    EXPECT_EQ(core::lower_ascii(html).find(std::string("href=\"") + scheme), std::string::npos) << html;
    EXPECT_EQ(core::lower_ascii(compact).find(scheme), std::string::npos) << compact;
  }
  // Markdown links only to http(s), and exactly once for the real one.
  std::size_t links = 0;
  for (auto pos = md.find("]("); pos != std::string::npos; pos = md.find("](", pos + 1)) {
    ++links;
    EXPECT_EQ(md.compare(pos + 2, 4, "http"), 0) << md.substr(pos, 40);
  }
  EXPECT_EQ(links, 1u) << md;
  EXPECT_NE(md.find("[a real one](https://tokio.rs/blog)"), std::string::npos) << md;
  EXPECT_NE(compact.find("link withheld"), std::string::npos);
  for (const auto& bad : kBadSchemes) EXPECT_FALSE(render::web_url(bad).has_value()) << bad;
}

TEST(RenderRule, MarkdownTitlesCannotOpenLinksHtmlOrCode) {
  const std::string title = R"(x\](javascript:alert(1)) ![img](https://evil.example/p.png) <b>bold</b> `code` &lt; | pipe)";
  auto r = report({item("1", title, "https://example.com/")});
  r.source_status["hackernews"].state = model::SourceState::error;
  r.source_status["hackernews"].reason = "upstream said: <script>x</script> | injected | cell";
  r.warnings.push_back("[click](javascript:alert(2))");
  const auto md = render::research_markdown(r);
  EXPECT_FALSE(has_unescaped(md, "](javascript")) << md;
  EXPECT_FALSE(has_unescaped(md, "![img]")) << md;
  EXPECT_EQ(md.find("<b>"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_NE(md.find(R"(\<b\>bold\</b\>)"), std::string::npos) << md;
  EXPECT_NE(md.find(R"(x\\\](javascript:alert(1)))"), std::string::npos) << "a backslash cannot un-escape a bracket:\n" << md;
  // The reason stays in its table cell: its pipes are escaped.
  for (const auto& line : lines_of(md)) {
    if (line.rfind("| hackernews", 0) == 0) {
      EXPECT_EQ(line.find(" | injected"), std::string::npos) << line;
    }
  }
}

TEST(RenderRule, DiscoveryPrintsHostAnglesAndEvidenceEscaped) {
  model::DiscoveryReport d;
  d.window = model::Window::ending(kNow, 7);
  d.generated_at = kNow;
  d.domain = "ai\x1b[2J";
  model::Topic t;
  t.id = "n1";
  t.name = "GPT-6 <img src=x onerror=alert(1)>";
  t.sources = {"hackernews"};
  t.momentum = "new-this-week";
  t.why = "1.5k points on hackernews";
  t.evidence_urls = {"https://openai.com/gpt-6\n- [forged](javascript:alert(1))", "javascript:alert(2)"};
  t.angles["podcast"] = "<script>alert(3)</script> [x](javascript:alert(4))";
  t.angles["x_article"] = "line one\n## forged heading";
  d.results.push_back(t);
  const auto md = render::discovery_markdown(d);
  const auto compact = render::discovery_compact(d);
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_FALSE(has_unescaped(md, "](javascript")) << md;
  EXPECT_FALSE(has_unescaped(md, "<javascript")) << md;
  for (const auto& line : lines_of(md)) {
    if (line.rfind("- next: `", 0) != 0) {
      EXPECT_FALSE(has_unescaped(line, "<img")) << "outside the code span: " << line;
    }
    EXPECT_EQ(line.rfind("## forged", 0), std::string::npos) << line;
    EXPECT_EQ(line.rfind("- [forged]", 0), std::string::npos) << line;
  }
  EXPECT_NE(md.find(R"(\<script\>alert(3)\</script\>)"), std::string::npos) << md;
  for (const auto* out : {&md, &compact}) {
    EXPECT_EQ(out->find('\x1b'), std::string::npos) << "the user's domain reached the terminal raw";
    EXPECT_EQ(out->find("javascript:alert(2)"), std::string::npos) << *out;
  }
}

TEST(RenderRule, TheUsersOwnTopicReachesNoTerminalRaw) {
  const std::string topic =
      "rust\x1b]0;pwned\x07 \x1b[31mred\xff\xfe \xc2\x9b"
      "2J \xe2\x80\xae"
      "evil\n2. forged";
  const auto r = report({item("1", "Tokio", "https://tokio.rs/")}, topic);
  for (const auto& out : {render::research_compact(r), render::research_markdown(r), render::research_html(r)}) {
    EXPECT_TRUE(valid_utf8(out)) << out;
    for (unsigned char c : out) {
      EXPECT_TRUE(c >= 0x20 || c == '\n') << "control byte " << int(c);
    }
    EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << "C1 CSI";
    EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos) << "right-to-left override";
    EXPECT_EQ(out.find("\n2. forged"), std::string::npos);
  }
  EXPECT_EQ(core::printable_line("  a\tb\r\nc\xe2\x80\xa8"
                                 "d  "),
            "a b c d");
  EXPECT_EQ(core::printable_line("caf\xc3\xa9 \xff!"), "caf\xc3\xa9 \xef\xbf\xbd!");
  EXPECT_EQ(core::printable_line("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9"), "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9")
      << "a zero-width joiner is not a control: emoji sequences stay whole";
}

TEST(ShellCommand, EveryEmittedCommandIsOneArgumentThatRunsNothing) {
  const std::vector<std::string> names = {"$(touch pwned)",
                                          "`touch pwned`",
                                          "it's a trap",
                                          "a'b\"c",
                                          "x'; touch pwned; echo '",
                                          "a && touch pwned",
                                          "a; touch pwned",
                                          "* ? [a-z]",
                                          "~root",
                                          "$HOME ${PATH}",
                                          "a\\",
                                          "!! !$",
                                          "{a,b}",
                                          "line\ntouch pwned",
                                          "tab\there",
                                          "esc\x1b[31m",
                                          "'",
                                          "''",
                                          "-rf --help",
                                          "| tee pwned",
                                          "> pwned",
                                          "a #comment"};
  model::DiscoveryReport d;
  d.window = model::Window::ending(kNow, 7);
  d.generated_at = kNow;
  for (std::size_t i = 0; i < names.size(); ++i) {
    model::Topic t;
    t.id = "n" + std::to_string(i + 1);
    t.name = names[i];
    t.sources = {"hackernews"};
    d.results.push_back(t);
  }
  std::vector<std::string> commands;
  const json doc = json::parse(render::discovery_json(d));
  for (const auto& r : doc["results"]) commands.push_back(r["command"]);
  for (const auto& line : lines_of(render::discovery_compact(d)))
    if (line.rfind("    next: ", 0) == 0) commands.push_back(line.substr(10));
  for (const auto& line : lines_of(render::discovery_markdown(d))) {
    if (line.rfind("- next: ", 0) != 0) continue;
    std::string span = line.substr(8);
    const auto fence = span.find_first_not_of('`');
    span = span.substr(fence, span.size() - 2 * fence);
    if (span.size() >= 2 && span.front() == ' ' && span.back() == ' ') span = span.substr(1, span.size() - 2);
    commands.push_back(span);
  }
  ASSERT_EQ(commands.size(), 3 * names.size()) << render::discovery_compact(d) << render::discovery_markdown(d);
  for (std::size_t k = 0; k < names.size(); ++k) {
    SCOPED_TRACE(commands[k]);
    EXPECT_EQ(commands[k + names.size()], commands[k]) << "compact next: line";
    EXPECT_EQ(commands[k + 2 * names.size()], commands[k]) << "md next: line";
    EXPECT_EQ(commands[k].find('\n'), std::string::npos);
    const auto pasted = testing_support::paste_into_shell(commands[k]);
    EXPECT_EQ(pasted.exit_code, 0) << pasted.err;
    EXPECT_TRUE(pasted.created.empty()) << "the command created " << pasted.created.front();
    ASSERT_EQ(pasted.args.size(), 1u);
    EXPECT_EQ(pasted.args[0], core::printable_line(names[k]));
  }
}

TEST(SourceStatusJson, OneSerialisationForBothBriefsAndTheProtocolFiles) {
  std::map<std::string, model::SourceStatus> st;
  st["hackernews"] = {model::SourceState::ok, 7, "", 120, 2};
  st["reddit"] = {model::SourceState::rate_limited, 0, "HTTP 429, retry after 30", 40, 1};
  const auto j = model::source_status_json(st);
  EXPECT_EQ(j.dump(), R"({"hackernews":{"state":"ok","items":7,"reason":null,"elapsed_ms":120},)"
                      R"("reddit":{"state":"rate-limited","items":0,"reason":"HTTP 429, retry after 30","elapsed_ms":40}})");
  // The research and discovery briefs and the nominations bundle carry exactly this object.
  model::Report r = report({});
  r.source_status = st;
  model::DiscoveryReport d;
  d.source_status = st;
  discover::Bundle b;
  b.bundle_id = "b-1";
  b.tier = "deep";
  b.window = model::Window::ending(kNow, 7);
  b.source_status = st;
  const auto want = json::parse(j.dump());
  EXPECT_EQ(json::parse(render::research_json(r))["source_status"], want);
  EXPECT_EQ(json::parse(render::discovery_json(d))["source_status"], want);
  EXPECT_EQ(json::parse(discover::bundle_to_json(b))["source_status"], want);
  // And the protocol reads it back.
  b.now = kNow;
  b.created_wall = core::now_unix();
  std::string error;
  auto back = discover::bundle_from_json(discover::bundle_to_json(b), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->source_status.at("reddit").state, model::SourceState::rate_limited);
  EXPECT_EQ(back->source_status.at("reddit").reason, "HTTP 429, retry after 30");
  EXPECT_EQ(back->source_status.at("hackernews").items, 7);
}
