// Discovery briefs: ranked topics with why, numbers, momentum and a follow-up command.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "model/source_status_json.hpp"
#include "render/escape.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"

namespace render {

using ojson = nlohmann::ordered_json;

namespace {

double round1(double v) { return std::round(v * 10) / 10; }

// Pasted into a shell by people and agents: the name is one single-quoted word (spec §5).
std::string command_for(const model::Topic& t) { return "last30days " + shell::arg(t.name); }

std::string numbers(const model::Topic& t) {
  std::string out;
  for (const auto& [src, e] : t.engagement_by_source) out += (out.empty() ? "" : " · ") + src + " " + human_number(std::round(e));
  return out;
}

std::string enrichment_line(const model::TopicEnrichment& e) {
  switch (e.status) {
    case model::EnrichStatus::enriched:
      return fmt::format("enriched: {} item{} found in the window", e.items, e.items == 1 ? "" : "s");
    case model::EnrichStatus::failed: return "enrichment failed: " + e.error.value_or("unknown error");
    case model::EnrichStatus::nomination_only:
      return e.error ? "nomination only (" + *e.error + ")" : "nomination only (not enriched)";
  }
  return {};
}

// `domain` is the user's domain, already escaped for the format.
std::string heading(const model::DiscoveryReport& r, const std::string& domain) {
  return fmt::format("{} · {} → {} ({} days) · {} topic{}", r.domain.empty() ? "global" : "domain \"" + domain + "\"",
                     core::format_date(r.window.from), core::format_date(r.window.to), r.window.days, r.results.size(),
                     r.results.size() == 1 ? "" : "s");
}

}  // namespace

std::string discovery_json(const model::DiscoveryReport& r) {
  ojson results = ojson::array();
  int rank = 0;
  for (const auto& t : r.results) {
    ojson eng = ojson::object();
    for (const auto& [src, e] : t.engagement_by_source) eng[src] = round1(e);
    results.push_back({{"rank", ++rank},
                       {"name", t.name},
                       {"velocity_score", round1(t.velocity)},
                       {"momentum", t.momentum},
                       {"sources", t.sources},
                       {"engagement_by_source", eng},
                       {"evidence_urls", t.evidence_urls},
                       {"command", command_for(t)},
                       {"enrichment",
                        {{"status", std::string(model::to_string(t.enrichment.status))},
                         {"error", t.enrichment.error ? ojson(*t.enrichment.error) : ojson(nullptr)},
                         {"items", t.enrichment.items}}},
                       {"id", t.id},
                       {"why", t.why},
                       {"junk", t.junk},
                       {"worthiness", t.worthiness ? ojson(*t.worthiness) : ojson(nullptr)},
                       {"angles", t.angles}});
  }
  ojson weak = nullptr;
  if (r.weak_signal)
    weak = {{"name", r.weak_signal->name},
            {"velocity_score", round1(r.weak_signal->velocity)},
            {"sources", r.weak_signal->sources},
            {"engagement", round1(r.weak_signal->engagement)},
            {"reason", r.weak_signal->reason}};
  ojson doc{
      {"schema_version", 1},
      {"kind", "discovery"},
      {"domain", r.domain},
      {"window", {{"from", core::format_date(r.window.from)}, {"to", core::format_date(r.window.to)}, {"days", r.window.days}}},
      {"generated_at", core::format_iso8601(r.generated_at)},
      {"source_status", model::source_status_json(r.source_status)},
      {"enrichment",
       {{"tier", r.enrichment.tier},
        {"depth", std::string(model::to_string(r.enrichment.depth))},
        {"max_workers", r.enrichment.max_workers},
        {"budget_seconds", r.enrichment.budget_seconds},
        {"elapsed_ms", r.enrichment.elapsed_ms}}},
      {"results", results},
      {"warnings", r.warnings},
      {"outcome", r.outcome == model::Outcome::ok ? "ok" : "nothing-solid"},
      {"weak_signal", weak},
      {"nomination_ms", r.nomination_ms},
      {"bundle_id", r.bundle_id.empty() ? ojson(nullptr) : ojson(r.bundle_id)}};
  if (r.synthesis) doc["synthesis"] = synthesis_json(*r.synthesis);
  return doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

std::string discovery_compact(const model::DiscoveryReport& r) {
  std::string out = "last30days discover · " + heading(r, term::text(r.domain)) + "\n";
  std::string badges;
  for (const auto& [id, st] : r.source_status)
    badges += (badges.empty() ? "" : "  ") + (st.state == model::SourceState::ok
                                                  ? fmt::format("{} {}", id, st.items)
                                                  : fmt::format("{} {} {}", id, model::to_string(st.state), st.items));
  out += "listings: " + badges + "\n";
  for (const auto& [id, st] : r.source_status)
    if (model::is_degraded(st.state))
      out += fmt::format("  {}: {} — {}\n", id, model::to_string(st.state), term::text(st.reason));
  out += fmt::format("enrichment: {} tier · depth {} · {} workers · {:.0f} s budget · took {:.1f} s\n\n", r.enrichment.tier,
                     model::to_string(r.enrichment.depth), r.enrichment.max_workers, r.enrichment.budget_seconds,
                     static_cast<double>(r.enrichment.elapsed_ms) / 1000.0);
  if (r.synthesis) out += synthesis_compact(*r.synthesis);
  if (r.results.empty() && !model::any_answered(r.source_status)) {
    out += "No listing could be asked, so there is nothing to rank.\n";
  } else if (r.results.empty()) {
    out += "Nothing solid is spiking right now";
    out += r.weak_signal ? fmt::format(". Closest weak signal: \"{}\" — {}.\n", term::text(r.weak_signal->name),
                                       term::text(r.weak_signal->reason))
                         : ".\n";
  }
  int rank = 0;
  for (const auto& t : r.results) {
    std::string srcs;
    for (const auto& s : t.sources) srcs += (srcs.empty() ? "" : "+") + s;
    out += fmt::format("{:>2}. {}  [velocity {} · {} · {}]\n", ++rank, term::text(t.name), human_number(std::round(t.velocity)),
                       term::text(t.momentum), term::text(srcs));
    out += "    why: " + term::text(t.why) + "\n";
    out += "    engagement: " + term::text(numbers(t)) + "\n";
    out += "    " + term::text(enrichment_line(t.enrichment)) + "\n";
    for (std::size_t i = 0; i < t.evidence_urls.size() && i < 3; ++i)
      out += "    evidence: " + term::url(t.evidence_urls[i]) + "\n";
    for (const auto& [kind, angle] : t.angles)
      out += fmt::format("    {} angle: {}\n", kind == "x_article" ? "X article" : term::text(kind), term::text(angle));
    out += "    next: " + command_for(t) + "\n";
  }
  if (!r.warnings.empty()) {
    out += "\n";
    for (const auto& w : r.warnings) out += "! " + term::text(w) + "\n";
  }
  return out;
}

std::string discovery_markdown(const model::DiscoveryReport& r) {
  std::string out = "# last30days discover: " + heading(r, md::text(r.domain)) + "\n\n";
  if (r.synthesis) out += synthesis_markdown(*r.synthesis);
  if (r.results.empty())
    out += r.weak_signal ? fmt::format("**Nothing solid.** Closest weak signal: *{}* — {}.\n\n", md::text(r.weak_signal->name),
                                       md::text(r.weak_signal->reason))
                         : "**Nothing solid.**\n\n";
  int rank = 0;
  for (const auto& t : r.results) {
    std::string srcs;
    for (const auto& s : t.sources) srcs += (srcs.empty() ? "" : ", ") + s;
    out += fmt::format("## {}. {}\n\n*velocity {} · {} · {}*\n\n- why: {}\n- engagement: {}\n- {}\n", ++rank, md::text(t.name),
                       human_number(std::round(t.velocity)), md::text(t.momentum), md::text(srcs), md::text(t.why),
                       md::text(numbers(t)), md::text(enrichment_line(t.enrichment)));
    for (std::size_t i = 0; i < t.evidence_urls.size() && i < 3; ++i) out += "- " + md::autolink(t.evidence_urls[i]) + "\n";
    for (const auto& [kind, angle] : t.angles) out += fmt::format("- {} angle: {}\n", md::text(kind), md::text(angle));
    out += "- next: " + md::code(command_for(t)) + "\n\n";
  }
  for (const auto& w : r.warnings) out += "> " + md::text(w) + "\n";
  return out;
}

std::string nominations_compact(const std::string& bundle_id, const std::vector<model::Topic>& topics, const std::string& path) {
  std::string out =
      fmt::format("last30days discover · nominations for bundle {} (written to {})\n\n", term::text(bundle_id), term::text(path));
  for (std::size_t i = 0; i < topics.size() && i < 15; ++i) {
    const auto& t = topics[i];
    std::string srcs;
    for (const auto& s : t.sources) srcs += (srcs.empty() ? "" : "+") + s;
    out += fmt::format("{:>4}  {}{}  [velocity {} · {} · {}]\n", term::text(t.id), term::text(t.name),
                       t.junk ? " (junk-shaped)" : "", human_number(std::round(t.velocity)), term::text(t.momentum),
                       term::text(srcs));
    if (!t.seeds.empty()) out += "      " + term::text(t.seeds.front().title) + "\n";
  }
  out += "\nJudge them, then: last30days --discover --judgments FILE\n";
  return out;
}

}  // namespace render
