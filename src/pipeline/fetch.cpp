#include <fmt/format.h>

#include <thread>

#include "core/redact.hpp"
#include "pipeline/research.hpp"

namespace pipeline {

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

FetchResult fetch_all(const std::vector<const sources::Source*>& srcs, const ResearchEnv& env, core::Millis source_budget,
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
        env.on_source({{},
                       srcs[i]->id(),
                       true,
                       results[i].state,
                       static_cast<int>(results[i].items.size()),
                       elapsed[i],
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

}  // namespace pipeline
