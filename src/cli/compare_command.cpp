// "A vs B [vs C ...]": every entity researched at once over the one HTTP client, one brief.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/log.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/compare.hpp"
#include "render/render.hpp"

namespace cli {

int compare_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  std::vector<pipeline::ResearchSpec> specs;
  for (const auto& entity : o.entities) specs.push_back(research_spec(o, ctx, entity));
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(run_budget(o)), {}};
  core::log::progress("comparing {} over {} sources, {} → {}", o.topic, specs.front().sources.size(),
                      core::format_date(specs.front().window.from), core::format_date(specs.front().window.to));
  const model::Comparison c = pipeline::run_comparison(o.topic, specs, env);

  std::string text;
  switch (o.emit) {
    case Emit::compact: text = render::comparison_compact(c); break;
    case Emit::md: text = render::comparison_markdown(c); break;
    case Emit::json: text = render::comparison_json(c); break;
    case Emit::html: text = render::comparison_html(c); break;
  }
  if (int rc = emit(ctx, text)) return rc;
  if (o.save && !save_brief(o, ctx.config, c.topic, render::comparison_markdown(c), render::comparison_json(c), writer))
    return 1;
  int code = 0;
  for (const auto& e : c.entities) code = std::max(code, exit_code_for(o, e.report.source_status));
  return code;
}

}  // namespace cli
