#include "discover/discover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/log.hpp"
#include "discover/domains.hpp"
#include "discover/topics.hpp"

namespace discover {

namespace {
constexpr int kListingLimit = 30;
constexpr core::Millis kListingBudget{20000};
}  // namespace

Nominations nominate(const std::string& domain, const model::Window& window, core::UnixSeconds now,
                     const std::vector<const sources::Source*>& allowed, const pipeline::ResearchEnv& env) {
  const auto t0 = core::Clock::now();
  std::vector<const sources::Source*> listers;
  for (const auto* s : allowed)
    if (s->has_listing()) listers.push_back(s);
  const Domain d = resolve_domain(domain);
  sources::ListingQuery global;
  global.window = window;
  global.limit = kListingLimit;
  global.now = now;
  sources::ListingQuery q = global;
  if (!d.global) {
    q.domain = d.name;
    q.domain_terms = d.terms;
  }
  auto fetched = pipeline::fetch_all(listers, env, kListingBudget, [&](const sources::Source& s, sources::Env& senv) {
    if (whole_listing(d, s.id())) return s.listing(global, senv);
    sources::ListingQuery mine = q;
    mine.communities = communities(d, s.id());
    return s.listing(mine, senv);
  });
  // A domain run keeps the items the domain selects; what each listing answered is
  // counted first, so a listing that answered but had nothing of the domain says so.
  std::map<std::string, int> answered;
  for (const auto& it : fetched.items) ++answered[it.source];
  std::erase_if(fetched.items, [&](const model::Item& it) { return !selects(d, it); });
  std::map<std::string, int> kept;
  for (const auto& it : fetched.items) ++kept[it.source];
  Nominations out;
  out.status = std::move(fetched.status);
  out.topics = group_topics(std::move(fetched.items), now, window);
  std::map<std::string, int> per_source;
  for (const auto& t : out.topics)
    for (const auto& s : t.seeds) ++per_source[s.source];
  for (auto& [id, st] : out.status) {
    st.items = per_source[id];
    if (st.state != model::SourceState::ok || st.items > 0) continue;
    st.state = model::SourceState::no_results;
    const int n = answered[id];
    if (n > 0 && kept[id] == 0) st.reason = fmt::format("{} item{}, none about '{}'", n, n == 1 ? "" : "s", d.name);
    else st.reason = "listing was empty in the window";
  }
  out.elapsed_ms = static_cast<long>(std::chrono::duration_cast<core::Millis>(core::Clock::now() - t0).count());
  return out;
}

std::vector<std::string> listing_warnings(const std::map<std::string, model::SourceStatus>& status, const std::string& domain) {
  std::vector<std::string> out;
  const Domain d = resolve_domain(domain);
  if (auto w = global_fallback_warning(d); !w.empty()) out.push_back(std::move(w));
  // In a domain run an empty listing is worth a line: it may be the domain, not the site.
  if (!d.global)
    for (const auto& [id, st] : status)
      if (st.state == model::SourceState::no_results && !st.reason.empty())
        out.push_back(fmt::format("{} listing: {}", id, st.reason));
  std::string degraded;
  for (const auto& [id, st] : status)
    if (model::is_degraded(st.state))
      degraded += fmt::format("{}{} ({})", degraded.empty() ? "" : ", ", id, model::to_string(st.state));
  if (!degraded.empty()) out.push_back("listings degraded: " + degraded);
  if (!model::any_answered(status) && !status.empty())
    out.push_back("no listing answered: nothing could be asked, which says nothing about what is spiking");
  return out;
}

model::DiscoveryReport enrich_and_select(std::vector<model::Topic> topics, const std::vector<double>& score,
                                         const EnrichPlan& plan, const model::Window& window, core::UnixSeconds now) {
  model::DiscoveryReport report;
  report.window = window;
  report.generated_at = now;
  report.enrichment = {plan.tier.name, plan.tier.depth, plan.tier.max_workers, plan.tier.budget_seconds, 0};

  std::vector<std::size_t> order(topics.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  std::vector<std::size_t> chosen(order.begin(),
                                  order.begin() + static_cast<long>(std::min<std::size_t>(order.size(), kMaxEnriched)));
  std::vector<SubRunContext> tasks;
  for (std::size_t k : chosen) {
    SubRunContext ctx;
    ctx.topic = topics[k].name;
    ctx.window = window;
    ctx.depth = plan.tier.depth;
    ctx.now = now;
    ctx.sources = plan.sources;
    ctx.config = plan.config;
    ctx.client = plan.client;
    ctx.http_session = plan.http_session;
    tasks.push_back(std::move(ctx));
  }
  BatchOptions opts;
  opts.max_workers = plan.tier.max_workers;
  opts.budget = core::millis_from_seconds(plan.tier.budget_seconds);
  opts.stop = plan.stop;
  opts.on_topic = plan.on_topic;
  core::log::progress("enriching {} topics: {} workers, {:.0f} s budget", tasks.size(), opts.max_workers,
                      plan.tier.budget_seconds);
  auto batch = enrich_batch(std::move(tasks), plan.run, opts);
  report.enrichment.elapsed_ms = batch.elapsed_ms;
  for (std::size_t j = 0; j < chosen.size(); ++j) {
    auto& t = topics[chosen[j]];
    t.enrichment = std::move(batch.outcomes[j]);
    if (t.enrichment.status == model::EnrichStatus::nomination_only && t.enrichment.error == kAllSourcesTimedOut)
      core::log::warn("every source timed out enriching \"{}\": reporting it from its nomination only", t.name);
    else if (t.enrichment.status == model::EnrichStatus::nomination_only)
      core::log::warn("enrichment budget exhausted before \"{}\" finished: reporting it from its nomination only", t.name);
    else if (t.enrichment.status == model::EnrichStatus::failed)
      core::log::warn("enrichment of \"{}\" failed: {}", t.name, t.enrichment.error.value_or("unknown error"));
  }
  if (batch.abandoned > 0)
    report.warnings.push_back(fmt::format("{} enrichment sub-run{} ignored cancellation and {} abandoned at the deadline",
                                          batch.abandoned, batch.abandoned == 1 ? "" : "s",
                                          batch.abandoned == 1 ? "was" : "were"));

  auto sel = select_topics(std::move(topics), score);
  report.results = std::move(sel.survivors);
  report.weak_signal = std::move(sel.weak_signal);
  report.outcome = report.results.empty() ? model::Outcome::nothing_solid : model::Outcome::ok;
  if (report.results.empty())
    report.warnings.push_back(report.weak_signal ? fmt::format("nothing solid: the closest weak signal is \"{}\" ({})",
                                                               report.weak_signal->name, report.weak_signal->reason)
                                                 : std::string("nothing solid: the listings returned nothing to rank"));
  else if (report.results.size() < 5)
    report.warnings.push_back(
        fmt::format("only {} topic{} cleared the floor", report.results.size(), report.results.size() == 1 ? "" : "s"));
  return report;
}

}  // namespace discover
