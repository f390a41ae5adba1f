#pragma once
// --summarize after a finished run: the glue between a front end and src/synth. The engine
// never calls it; a failed synthesis is recorded in the report (its error), never the run's.
#include <stop_token>

#include "app/run.hpp"
#include "core/deadline.hpp"

namespace app {

// The research (or comparison) gains its synthesis, inside the run's deadline.
void summarize(const RunContext& ctx, ResearchRun& run, core::Deadline deadline, std::stop_token stop);
// Discovery: what each top topic is.
void summarize(const RunContext& ctx, model::DiscoveryReport& report, core::Deadline deadline, std::stop_token stop);
// watch run: each topic with something new gets its own, one after the other, inside one deadline.
void summarize(const RunContext& ctx, model::WatchReport& report, core::Deadline deadline);

}  // namespace app
