#include "app/summarize.hpp"

#include "core/log.hpp"
#include "synth/synthesize.hpp"

namespace app {

namespace {

// Checked by the front end before any request; here it cannot fail.
std::optional<synth::Synthesizer> synthesizer(const RunContext& ctx) {
  std::string error;
  auto settings = synth::settings_from(ctx.config, &error);
  if (!settings) return std::nullopt;
  core::log::progress("asking {} for \"What happened\"", settings->endpoint.model);
  return synth::Synthesizer(ctx.client, std::move(*settings));
}

void say(const model::Synthesis& s) {
  if (s.error && s.kept() == 0) core::log::warn("--summarize: {}", *s.error);
}

}  // namespace

void summarize(const RunContext& ctx, ResearchRun& run, core::Deadline deadline, std::stop_token stop) {
  auto synth = synthesizer(ctx);
  if (!synth) return;
  if (run.comparison) {
    run.comparison->synthesis = synth->comparison(*run.comparison, deadline, std::move(stop));
    say(*run.comparison->synthesis);
  } else if (run.report) {
    run.report->synthesis = synth->research(*run.report, deadline, std::move(stop));
    say(*run.report->synthesis);
  }
}

void summarize(const RunContext& ctx, model::DiscoveryReport& report, core::Deadline deadline, std::stop_token stop) {
  auto synth = synthesizer(ctx);
  if (!synth) return;
  report.synthesis = synth->discovery(report, deadline, std::move(stop));
  say(*report.synthesis);
}

void summarize(const RunContext& ctx, model::WatchReport& report, core::Deadline deadline) {
  std::optional<synth::Synthesizer> synth;
  for (auto& run : report.runs) {
    if (run.error || (run.fresh.empty() && run.surging.empty())) continue;
    if (!synth && !(synth = synthesizer(ctx))) return;
    run.synthesis = synth->watch(run, model::Window::ending(ctx.now, 30), deadline, {});
    say(*run.synthesis);
  }
}

}  // namespace app
