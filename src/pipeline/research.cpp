#include "pipeline/research.hpp"

#include <fmt/format.h>

#include "core/log.hpp"
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

model::Report run_research(const ResearchSpec& spec, const ResearchEnv& env) {
  model::Report report;
  report.topic = spec.topic;
  report.depth = spec.depth;
  report.window = spec.window;
  report.generated_at = spec.now;
  // The brief keeps the topic as typed; the plan and the scores read its subject.
  const std::string subject = subject_of(spec.topic);
  report.plan = plan_for(subject, spec.depth, spec.host_plan);  // 1. plan
  if (spec.max_sub_queries > 0 && report.plan.sub_queries.size() > spec.max_sub_queries)
    report.plan.sub_queries.resize(spec.max_sub_queries);

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
  c.topic = analyze_topic(subject, c.dict, report.plan.synonyms);
  auto ranked = rank(c, {.window = spec.window,  // 3-12
                         .sub_queries = report.plan.sub_queries,
                         .source_weights = report.plan.source_weights,
                         .intent_open = report.plan.intent_open});
  report.clusters = std::move(ranked.clusters);
  if (ranked.intent) {  // the plan as it was weighed: the pool showed the topic is research
    report.plan.intent = *ranked.intent;
    report.plan.source_weights = std::move(ranked.source_weights);
  }

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
  if (spec.comments) attach_comments(report, spec.sources, env);                         // 12b
  report.outcome = decide_outcome(report.items, report.source_status, report.warnings);  // 13
  return report;
}

}  // namespace pipeline
