// libFuzzer target: whatever an upstream or a host agent sends must end in a state
// or an error message, never a crash, a hang or a sanitizer report.
//
// Input: byte 0 picks the target (a source, or from 0xF0 a host-supplied file: plan,
// judgments, angles, nominations bundle, pending file, then text helpers), byte 1 the
// content type and credentials, the rest is the body every request is answered with (or
// the host file's text).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/config.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "discover/protocol.hpp"
#include "discover/topics.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/tools.hpp"
#include "model/discovery.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace {

class EchoFetcher : public sources::Fetcher {
 public:
  EchoFetcher(std::string_view body, std::string content_type) : body_(body), type_(std::move(content_type)) {}
  http::Response get(const http::Request& request) override {
    http::Response r;
    r.status = 200;
    r.content_type = type_;
    r.body.assign(body_);
    r.final_url = request.url;
    r.attempts = 1;
    return r;
  }

 private:
  std::string_view body_;
  std::string type_;
};

constexpr std::string_view kTypes[] = {"application/json",    "application/atom+xml", "text/html", "text/xml",
                                       "application/rss+xml", "text/plain",           "",          "application/json"};

const core::UnixSeconds kNow = core::parse_iso8601("2026-11-29T12:00:00Z").value_or(0);

model::Window window() { return model::Window::ending(kNow, 30); }

// The whole research pipeline and every renderer over what the source made of the body.
void run_pipeline(const sources::Source& src, const core::Config& config, sources::Fetcher& fetcher) {
  pipeline::ResearchSpec spec;
  spec.topic = "rust async";
  spec.depth = model::Depth::quick;
  spec.window = window();
  spec.sources = {&src};
  spec.now = kNow;
  const pipeline::ResearchEnv env{config, fetcher, core::Deadline::in(core::Millis(60000)), {}};
  const auto report = pipeline::run_research(spec, env);
  (void)render::research_json(report);
  (void)render::research_compact(report);
  (void)render::research_markdown(report);
  (void)render::research_html(report);
  // The same answers as a comparison: shared stories and the side-by-side renderers.
  auto other = spec;
  other.topic = "go async";
  const auto c = pipeline::run_comparison("rust async vs go async", {spec, other}, env);
  (void)render::comparison_json(c);
  (void)render::comparison_compact(c);
  (void)render::comparison_markdown(c);
  (void)render::comparison_html(c);
}

// Nominations: topics, names, the floor, and the discovery renderers.
void run_nominations(std::vector<model::Item> items) {
  model::DiscoveryReport report;
  report.window = model::Window::ending(kNow, 7);
  auto topics = discover::group_topics(std::move(items), kNow, report.window);
  std::vector<double> score;
  for (const auto& t : topics) score.push_back(t.velocity);
  report.generated_at = kNow;
  for (const auto& t : topics) (void)discover::why_line(t);
  auto sel = discover::select_topics(std::move(topics), score);
  report.results = std::move(sel.survivors);
  report.weak_signal = std::move(sel.weak_signal);
  (void)render::discovery_json(report);
  (void)render::discovery_compact(report);
  (void)render::discovery_markdown(report);
}

void run_source(const sources::Source& src, std::string_view body, std::uint8_t flags) {
  core::Config config;
  if (flags & 0x08) {  // exercise the credentialed paths too
    config.set_override("REDDIT_CLIENT_ID", "fuzz-id");
    config.set_override("REDDIT_CLIENT_SECRET", "fuzz-secret");
    config.set_override("GITHUB_TOKEN", "fuzz-token");
    config.set_override("STACKEXCHANGE_KEY", "fuzz-key");
    config.set_override("BSKY_HANDLE", "fuzz.bsky.social");
    config.set_override("BSKY_APP_PASSWORD", "fuzz-app-password");  // the one body is the session and the answer
    config.set_override("X_BEARER_TOKEN", "fuzz-bearer");
    config.set_override("YOUTUBE_API_KEY", "fuzz-youtube-key");
    config.set_override(flags & 0x80 ? "SEARXNG_URL" : "BRAVE_API_KEY", flags & 0x80 ? "https://searx.fuzz" : "fuzz-brave-key");
  }
  EchoFetcher fetcher(body, std::string(kTypes[flags & 0x07]));
  sources::Env env{config, fetcher, core::Deadline::in(core::Millis(60000)), {}};
  if (flags & 0x10) {
    if (!src.has_listing()) return;
    sources::ListingQuery q;
    q.window = window();
    q.now = kNow;
    if (flags & 0x20) {
      q.domain = "ai";
      q.domain_terms = {"ai", "llm"};
    }
    run_nominations(src.listing(q, env).items);
  } else if (flags & 0x40) {
    run_pipeline(src, config, fetcher);
  } else {
    sources::Query q;
    q.window = window();
    q.now = kNow;
    q.sub_queries.push_back({"rust async", 1.0});
    (void)src.search(q, env);
  }
}

// What an MCP client sends: framing, classification, and tool arguments through the
// CLI's parser (no network: a call is validated, never run).
void fuzz_mcp(std::string_view body) {
  mcp::LineReader reader(1 << 16);
  reader.feed(body);
  bool too_long = false;
  while (auto line = reader.next(&too_long)) {
    for (const auto& m : mcp::parse_line(*line).messages) {
      if (m.kind != mcp::Message::Kind::request) continue;
      const auto name = m.params.find("name");
      const auto args = m.params.find("arguments");
      if (name == m.params.end() || !name->is_string()) continue;
      if (auto tool = mcp::find_tool(name->get<std::string>()))
        (void)mcp::tool_call(*tool, args != m.params.end() ? *args : mcp::json::object(), kNow);
      (void)mcp::serialize(mcp::response(m.id, m.params));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t target = data[0];
  const std::uint8_t flags = data[1];
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  const auto& all = sources::all();
  // Below kHostTargets byte 0 picks a source by registry index; from it, a host-supplied
  // file. Fixed numbers, so the seeds keep their meaning when the registry grows.
  constexpr std::uint8_t kHostTargets = 0xF0;
  std::string error;
  if (target < kHostTargets) {
    run_source(*all[target % all.size()], body, flags);
    return 0;
  }
  switch (target - kHostTargets) {
    case 0: (void)pipeline::parse_host_plan(body, &error); break;
    case 1: (void)discover::parse_judgments(body, &error); break;
    case 2: (void)discover::parse_angles(body, &error); break;
    case 3: (void)discover::bundle_from_json(body, &error); break;
    case 4: (void)discover::pending_from_json(body, &error); break;
    case 5: fuzz_mcp(body); break;
    default:
      (void)core::html_to_text(body);
      (void)pipeline::split_comparison(body);
      (void)core::fit_width(body, 24);
      (void)core::parse_iso8601(body);
      (void)core::parse_http_date(body);
      break;
  }
  return 0;
}
