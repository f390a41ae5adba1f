// The HTML brief in a real browser: Debian's chromium, headless, every network
// request sent to a recording proxy that must see none. The DOM chromium builds from
// the page must hold no script, no on* attribute and no non-http(s) link, whatever
// the upstream sent; screenshots at 390 px and 1280 px (light and dark) are kept in
// build/.../browser/ and their paths printed.
#include <gtest/gtest.h>

#include <gumbo.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <future>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kArtifacts = L30_ARTIFACT_DIR;

// Hostile upstream text in the real Algolia format, every hit on topic and in the window.
std::string hostile_hn() {
  auto page = json::parse(fixture("e2e/hn_search.json"));
  json base = page["hits"][0];
  const std::vector<std::array<std::string, 4>> rows = {
      {"Tokio runtime <script>alert(1)</script> \"><img src=x onerror=alert(2)>", "javascript:alert(3)",
       "\"><svg onload=alert(4)>", "<iframe src=https://evil.example/frame></iframe>"},
      {"Tokio runtime </style><style>body{display:none}</style> and </title><base href=https://evil.example/>",
       "javascript://tokio.rs/%0aalert(5)", "x' onmouseover='alert(6)", "<object data=https://evil.example/o></object>"},
      {"Tokio runtime <svg><script>alert(7)</script><animate onbegin=alert(8) attributeName=x dur=1s>",
       "https://tokio.rs/\" onclick=\"alert(9)", "<math><mtext><table><mglyph><style><img src=x onerror=alert(10)>",
       "<link rel=stylesheet href=https://evil.example/s.css>"},
      {"Tokio runtime data: and vbscript: links", "data:text/html,<script>alert(11)</script>", "vbscript:msgbox",
       "<meta http-equiv=refresh content=\"0;url=https://evil.example/\">"},
      {"Tokio runtime \u202egnp.exe and \x01control\x7f bytes", "https://evil.example/x?a=1&b=\"<>'",
       "\"onfocus=alert(12) autofocus=\"", "<img srcset=https://evil.example/i.png>"},
  };
  json hits = json::array();
  int n = 0;
  for (const auto& [title, url, author, text] : rows) {
    json h = base;
    h["title"] = title;
    h["url"] = url;
    h["author"] = author;
    h["story_text"] = text;
    h["objectID"] = std::to_string(46030000 + n) + (n == 2 ? "\" onfocus=\"alert(13)" : "");
    h["points"] = 500 - 50 * n;
    h.erase("_highlightResult");
    hits.push_back(h);
    ++n;
  }
  page["hits"] = hits;
  return page.dump();
}

std::optional<FakeReply> hostile(const FakeRequest& r) {
  if (r.path.rfind("/hn/api/v1/search", 0) == 0) return FakeReply::json(hostile_hn());
  if (r.path.rfind("/pm/", 0) == 0) return FakeReply::html("<script>alert(14)</script><b onmouseover=alert(15)>busy</b>", 500);
  if (r.path.rfind("/gh/search/repositories", 0) == 0) {
    auto page = json::parse(fixture("e2e/github_repos.json"));
    for (auto& repo : page["items"]) {
      repo["html_url"] = "javascript:alert(16)";
      repo["description"] = "tokio runtime <script>alert(17)</script><a href=javascript:alert(18)>x</a>";
    }
    return FakeReply::json(page.dump());
  }
  return std::nullopt;
}

struct Dom {
  int scripts = 0;
  std::vector<std::string> bad;  // what should not be there, with where
  int links = 0;
  std::string text;
};

void walk(GumboNode* node, Dom& dom) {
  if (node->type == GUMBO_NODE_TEXT) {
    dom.text += node->v.text.text;
    dom.text += ' ';
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const auto& el = node->v.element;
  const std::string tag = el.tag == GUMBO_TAG_UNKNOWN ? "?" : gumbo_normalized_tagname(el.tag);
  for (GumboTag t : {GUMBO_TAG_SCRIPT, GUMBO_TAG_IFRAME, GUMBO_TAG_OBJECT, GUMBO_TAG_EMBED, GUMBO_TAG_IMG, GUMBO_TAG_LINK,
                     GUMBO_TAG_BASE, GUMBO_TAG_FORM, GUMBO_TAG_VIDEO, GUMBO_TAG_AUDIO, GUMBO_TAG_SOURCE})
    if (el.tag == t) dom.bad.push_back("<" + tag + "> element");
  if (el.tag == GUMBO_TAG_SCRIPT) ++dom.scripts;
  for (unsigned i = 0; i < el.attributes.length; ++i) {
    const auto* a = static_cast<GumboAttribute*>(el.attributes.data[i]);
    const std::string name = a->name, value = a->value;
    if (name.size() >= 2 && (name[0] == 'o' || name[0] == 'O') && (name[1] == 'n' || name[1] == 'N'))
      dom.bad.push_back(tag + " has " + name + "=" + value);
    if (name == "src" || name == "srcset" || name == "action" || name == "formaction" || name == "xlink:href" || name == "data" ||
        name == "background" || name == "poster")
      dom.bad.push_back(tag + " has " + name + "=" + value);
    if (name == "href") {
      if (el.tag != GUMBO_TAG_A) dom.bad.push_back(tag + " has href=" + value);
      else if (value.rfind("https://", 0) != 0 && value.rfind("http://", 0) != 0) dom.bad.push_back("link to " + value);
      else ++dom.links;
    }
    if (name == "http-equiv" && value != "Content-Security-Policy") dom.bad.push_back("meta http-equiv=" + value);
  }
  for (unsigned i = 0; i < el.children.length; ++i) walk(static_cast<GumboNode*>(el.children.data[i]), dom);
}

Dom inspect(const std::string& html) {
  Dom dom;
  GumboOutput* out = gumbo_parse(html.c_str());
  walk(out->root, dom);
  gumbo_destroy_output(&kGumboDefaultOptions, out);
  return dom;
}

struct Browser {
  FakeUpstream proxy{[](const FakeRequest&) { return FakeReply::html("<h1>no network for you</h1>", 403); }};
  TempDir profiles;
  int runs = 0;

  // One chromium run; extra: --dump-dom, or --screenshot=... --window-size=...
  ProcessResult run(const std::string& page, std::vector<std::string> extra) {
    std::vector<std::string> args = {"/usr/bin/chromium",
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--user-data-dir=" + profiles.path() + "/p" + std::to_string(runs++),
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--no-first-run",
                                     "--disable-default-apps",
                                     "--disable-extensions",
                                     "--hide-scrollbars",
                                     "--disable-domain-reliability",
                                     "--no-pings",
                                     "--disable-client-side-phishing-detection",
                                     "--disable-component-extensions-with-background-pages",
                                     "--metrics-recording-only",
                                     "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,"
                                     "AutofillServerCommunication,CertificateTransparencyComponentUpdater",
                                     "--proxy-server=http://127.0.0.1:" + std::to_string(proxy.port()),
                                     "--proxy-bypass-list=<-loopback>"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("file://" + page);
    return run_binary(args, {{"HOME", profiles.path()}}, 60s);
  }
};

std::string render(Scenario& s, const std::string& path, const std::string& topic = "tokio runtime") {
  auto r = s.run({topic, "--as-of", "2026-11-29", "--emit", "html", "--output", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Chromium's own service traffic (sign-in, component updates) still reaches the proxy
// with every background flag set; a page cannot name these hosts, so it is told apart.
bool browser_service(const FakeRequest& r) {
  for (const char* host : {"accounts.google.com", "update.googleapis.com"})
    if (r.target.find(host) != std::string::npos ||
        (r.headers.count("host") && r.headers.at("host").find(host) != std::string::npos))
      return true;
  return false;
}

bool is_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char sig[8] = {};
  f.read(sig, 8);
  return f && std::string(sig, 8) == "\x89PNG\r\n\x1a\n" && fs::file_size(path) > 10000;
}

}  // namespace

TEST(HtmlBrowser, HostilePageRendersWithoutScriptsLinksOrRequests) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "chromium is missing: run scripts/deps.sh";
  fs::create_directories(kArtifacts);
  Scenario normal_world;
  Scenario hostile_world(hostile);
  const std::string normal_page = kArtifacts + "/brief.html", hostile_page = kArtifacts + "/hostile.html";
  const std::string normal_html = render(normal_world, normal_page);
  const std::string hostile_html = render(hostile_world, hostile_page);
  const std::string compare_page = kArtifacts + "/compare.html";
  const std::string compare_html = render(hostile_world, compare_page, "tokio runtime vs async runtime");
  ASSERT_FALSE(hostile_html.empty());

  // The page as written: nothing executable, nothing fetched, every payload inert text.
  const Dom written = inspect(hostile_html);
  EXPECT_EQ(written.scripts, 0);
  EXPECT_TRUE(written.bad.empty()) << written.bad.front();
  for (const char* payload : {"<script>alert(1)</script>", "onerror=alert(2)", "onload=alert(4)", "alert(7)"})
    EXPECT_NE(written.text.find(payload), std::string::npos) << "payload shown as text: " << payload;
  for (const char* hidden : {"\u202e", "\x01", "\x7f"})
    EXPECT_EQ(hostile_html.find(hidden), std::string::npos) << "bidi override or control character in the page";

  Browser browser;
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {hostile_page, {"--dump-dom"}},
      {normal_page, {"--dump-dom"}},
      {normal_page, {"--screenshot=" + kArtifacts + "/brief-390.png", "--window-size=390,2600"}},
      {normal_page, {"--screenshot=" + kArtifacts + "/brief-1280.png", "--window-size=1280,1800"}},
      {normal_page, {"--screenshot=" + kArtifacts + "/brief-390-dark.png", "--window-size=390,2600", "--force-dark-mode"}},
      {hostile_page, {"--screenshot=" + kArtifacts + "/hostile-1280.png", "--window-size=1280,1800"}},
      {compare_page, {"--dump-dom"}},
      {compare_page, {"--screenshot=" + kArtifacts + "/compare-390.png", "--window-size=390,2600"}},
      // Control: a page that does fetch something, to prove the proxy would see it.
      {kArtifacts + "/control.html", {"--dump-dom"}},
  };
  std::ofstream(kArtifacts + "/control.html") << "<!DOCTYPE html><p>control</p><img src=\"http://control.example/pixel.png\">";
  std::vector<ProcessResult> results(runs.size());
  // Two browsers at a time: the machine has two cores.
  for (std::size_t i = 0; i < runs.size(); i += 2) {
    auto a = std::async(std::launch::async, [&, i] { return browser.run(runs[i].first, runs[i].second); });
    if (i + 1 < runs.size()) results[i + 1] = browser.run(runs[i + 1].first, runs[i + 1].second);
    results[i] = a.get();
  }
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(results[i].exit_code, 0) << runs[i].second[0] << "\n" << results[i].err;

  // The DOM chromium built (after its own parsing, which is where breakouts happen).
  for (std::size_t i : {0u, 1u, 6u}) {
    const Dom dom = inspect(results[i].out);
    EXPECT_NE(results[i].out.find("<h1>tokio runtime"), std::string::npos) << "chromium loaded the page";
    EXPECT_EQ(dom.scripts, 0);
    EXPECT_TRUE(dom.bad.empty()) << runs[i].first << ": " << dom.bad.front();
    EXPECT_GT(dom.links, 3);
  }
  EXPECT_NE(results[1].out.find("<svg class=\"timeline\""), std::string::npos);
  EXPECT_NE(results[1].out.find("Engagement by source"), std::string::npos);

  EXPECT_NE(results[6].out.find("class=\"compare\""), std::string::npos) << "the comparison table";
  for (const char* shot : {"brief-390.png", "brief-1280.png", "brief-390-dark.png", "hostile-1280.png", "compare-390.png"}) {
    const std::string p = kArtifacts + "/" + shot;
    EXPECT_TRUE(is_png(p)) << p;
    std::cerr << "[screenshot] " << p << "\n";
  }
  // Network off: nothing from the brief's page loads reached the only way out, while
  // the control page's image did.
  int control = 0;
  for (const auto& e : browser.proxy.log()) {
    if (browser_service(e.request)) continue;
    if (e.request.target.find("control.example") != std::string::npos) {
      ++control;
      continue;
    }
    ADD_FAILURE() << "a page made a request: " << e.request.method << " " << e.request.target;
  }
  EXPECT_GE(control, 1) << "the recording proxy must see a page's request (control page)";
}

// Issue 22 item 21: at 390 px the comparison table's cells broke words mid-word (the page's
// overflow-wrap:anywhere let a cell shrink to one letter). The page is measured in chromium
// with a copy that carries one measuring script (the product page itself allows none): every
// word of every cell must sit on one line; a table wider than the screen scrolls instead.
TEST(HtmlBrowser, TheComparisonTableAt390PxNeverBreaksAWord) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "chromium is missing: run scripts/deps.sh";
  fs::create_directories(kArtifacts);
  Scenario world;
  const std::string page = kArtifacts + "/compare-words.html";
  std::string html = render(world, page, "tokio runtime vs async runtime vs smol executor");
  ASSERT_NE(html.find("class=\"compare\""), std::string::npos);
  const auto csp = html.find("<meta http-equiv=\"Content-Security-Policy\"");
  ASSERT_NE(csp, std::string::npos);
  html.erase(csp, html.find('>', csp) + 1 - csp);
  const std::string probe = R"(<script>
const broken = [];
for (const cell of document.querySelectorAll('table.compare th, table.compare td')) {
  const text = cell.firstChild;
  if (!text || text.nodeType !== 3) continue;
  const re = /\S+/g;
  let m;
  while ((m = re.exec(text.data)) !== null) {
    const r = document.createRange();
    r.setStart(text, m.index);
    r.setEnd(text, m.index + m[0].length);
    const tops = new Set([...r.getClientRects()].map(q => Math.round(q.top)));
    if (tops.size > 1) broken.push(m[0]);
  }
}
document.body.setAttribute('data-broken', JSON.stringify(broken));
document.body.setAttribute('data-cells', String(document.querySelectorAll('table.compare td').length));
</script>)";
  html.insert(html.rfind("</body>"), probe);
  const std::string measured = kArtifacts + "/compare-words-probe.html";
  std::ofstream(measured) << html;
  Browser browser;
  auto r = browser.run(measured, {"--dump-dom", "--window-size=390,2600", "--virtual-time-budget=2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find("data-broken=\"");
  ASSERT_NE(at, std::string::npos) << "the probe ran: " << r.out.substr(0, 300);
  const std::string broken = r.out.substr(at + 13, r.out.find('"', at + 13) - at - 13);
  EXPECT_EQ(broken, "[]") << "words broken across lines in a 390 px table: " << broken;
  EXPECT_EQ(r.out.find("data-cells=\"0\""), std::string::npos) << "the table has cells";
}
