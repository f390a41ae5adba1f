#include "pipeline/research.hpp"

#include <fmt/format.h>

#include <thread>

#include "core/log.hpp"
#include "core/redact.hpp"
#include "pipeline/comments.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

DepthProfile profile(model::Depth depth) {
  switch (depth) {
    case model::Depth::quick: return {15, core::Millis(15000), core::Millis(25000)};
    case model::Depth::standard: return {25, core::Millis(25000), core::Millis(45000)};
    case model::Depth::deep: return {50, core::Millis(50000), core::Millis(90000)};
  }
  return {25, core::Millis(25000), core::Millis(45000)};
}

namespace {

// Upstream text is scrubbed as it enters the pipeline, before any stage can cut, fold or
// re-tokenize an echoed secret into a form the final scrub would not recognise.
void scrub_upstream(sources::SourceResult& r) {
  const auto scrub_opt = [](std::optional<std::string>& s) {
    if (s) *s = core::redact::scrub_value(*s);
  };
  r.reason = core::redact::scrub_value(r.reason);
  for (auto& it : r.items) {
    for (auto* s : {&it.id, &it.title, &it.url, &it.snippet}) *s = core::redact::scrub_value(*s);
    scrub_opt(it.discussion_url);
    scrub_opt(it.author);
    scrub_opt(it.container);
  }
}

}  // namespace

FetchResult fetch_all(const std::vector<const sources::Source*>& srcs, const ResearchEnv& env,
                      core::Millis source_budget,
                      const std::function<sources::SourceResult(const sources::Source&, sources::Env&)>& call) {
  FetchResult out;
  std::vector<sources::SourceResult> results(srcs.size());
  std::vector<long> elapsed(srcs.size(), 0);
  std::vector<std::thread> workers;
  workers.reserve(srcs.size());
  for (std::size_t i = 0; i < srcs.size(); ++i) {
    if (auto why = srcs[i]->unconfigured(env.config)) {
      results[i] = {model::SourceState::skipped_unconfigured, *why, {}, 0};
      if (env.on_source) env.on_source({{}, srcs[i]->id(), true, results[i].state, 0, 0, results[i].reason});
      continue;
    }
    if (auto why = env.budget ? env.budget->refuse(srcs[i]->id()) : std::nullopt) {
      results[i] = {model::SourceState::rate_limited, *why, {}, 0};
      if (env.on_source) env.on_source({{}, srcs[i]->id(), true, results[i].state, 0, 0, results[i].reason});
      continue;
    }
    workers.emplace_back([&, i] {
      const auto t0 = core::Clock::now();
      if (env.on_source) env.on_source({{}, srcs[i]->id(), false, model::SourceState::ok, 0, 0, {}});
      sources::Env senv{env.config, env.http, env.deadline.earliest(core::Deadline::in(source_budget)), env.stop};
      try {
        results[i] = call(*srcs[i], senv);
      } catch (const std::exception& e) {
        results[i] = {model::SourceState::error, fmt::format("internal error: {}", e.what()), {}, 0};
      } catch (...) {
        results[i] = {model::SourceState::error, "internal error", {}, 0};
      }
      scrub_upstream(results[i]);
      if (env.budget) env.budget->spent(srcs[i]->id(), results[i].requests);
      if (results[i].state != model::SourceState::ok && results[i].reason.empty()) results[i].reason = "no reason given";
      elapsed[i] = static_cast<long>(std::chrono::duration_cast<core::Millis>(core::Clock::now() - t0).count());
      if (env.on_source)
        env.on_source({{}, srcs[i]->id(), true, results[i].state, static_cast<int>(results[i].items.size()), elapsed[i],
                       results[i].reason});
    });
  }
  for (auto& w : workers) w.join();
  for (std::size_t i = 0; i < srcs.size(); ++i) {
    model::SourceStatus st;
    st.state = results[i].state;
    st.reason = results[i].reason;
    st.elapsed_ms = elapsed[i];
    st.requests = results[i].requests;
    st.items = static_cast<int>(results[i].items.size());
    out.status[std::string(srcs[i]->id())] = st;
    for (auto& it : results[i].items) out.items.push_back(std::move(it));
  }
  return out;
}

model::Report run_research(const ResearchSpec& spec, const ResearchEnv& env) {
  model::Report report;
  report.topic = spec.topic;
  report.depth = spec.depth;
  report.window = spec.window;
  report.generated_at = spec.now;
  report.plan = plan_for(spec.topic, spec.depth, spec.host_plan);  // 1. plan

  const auto prof = profile(spec.depth);
  sources::Query query;
  query.sub_queries = report.plan.sub_queries;
  query.window = spec.window;
  query.depth = spec.depth;
  query.limit = prof.limit;
  query.now = spec.now;
  // Progress names the run's topic: comparisons run several at once over one hook.
  ResearchEnv fetch_env = env;
  if (env.on_source)
    fetch_env.on_source = [&env, &spec](const SourceEvent& e) {
      SourceEvent named = e;
      named.topic = spec.topic;
      env.on_source(named);
    };
  auto fetched = fetch_all(spec.sources, fetch_env, prof.source_budget,  // 2. fetch
                           [&](const sources::Source& s, sources::Env& senv) { return s.search(query, senv); });

  Corpus c;
  c.items = std::move(fetched.items);
  c.topic = analyze_topic(spec.topic, c.dict, report.plan.synonyms);
  normalize(c);                                   // 3
  window_filter(c, spec.window);                  // 4
  score_relevance(c);                             // 5
  score_freshness(c, spec.window);                // 6
  score_engagement(c);                            // 7
  score_base(c, report.plan.source_weights);
  assign_stream_ranks(c);
  prune(c);                                       // 8
  dedupe(c);                                      // 9
  fuse(c, report.plan.sub_queries, report.plan.source_weights);  // 10
  rerank(c);                                      // 11
  report.clusters = cluster(c);                   // 12

  std::map<std::string, int> kept;
  for (const auto& it : c.items) {
    ++kept[it.source];
    for (const auto& s : it.also_seen) ++kept[s.source];
  }
  for (auto& [id, st] : fetched.status) {
    const int fetched_count = st.items;
    st.items = kept[id];
    if (st.state == model::SourceState::ok && st.items == 0) {
      st.state = model::SourceState::no_results;
      st.reason = fmt::format("{} fetched, none inside the window and on topic", fetched_count);
    }
  }
  report.source_status = std::move(fetched.status);
  report.items = std::move(c.items);
  if (spec.comments) attach_comments(report, spec.sources, env);  // 12b
  report.outcome = decide_outcome(report.items, report.source_status, report.warnings);  // 13
  return report;
}

}  // namespace pipeline
