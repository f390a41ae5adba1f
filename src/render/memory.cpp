// The memory commands' output: library search, the watchlist, a watch run.
#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"
#include "render/escape.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace render {

namespace {

ojson iso_or_null(const std::optional<core::UnixSeconds>& t) { return t ? ojson(core::format_iso8601(*t)) : ojson(nullptr); }

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

std::string every_text(double hours) {
  return std::floor(hours) == hours ? fmt::format("{:.0f} h", hours) : fmt::format("{:.2g} h", hours);
}

}  // namespace

namespace {

std::string engagement_number(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{:.0f}", v) : human_number(v);
}

// What a finding is, as the research item says it: source, date upstream, engagement.
std::string finding_meta(const model::LibraryHit& h) {
  std::string out = h.source;
  out += " · " + (h.published_at ? core::format_date(*h.published_at) : std::string("undated"));
  if (h.engagement > 0) out += " · engagement " + engagement_number(h.engagement);
  out += fmt::format(" · seen {} time{}, first {}", h.sightings, h.sightings == 1 ? "" : "s", core::format_date(h.first_seen));
  return out;
}

std::string run_count(int runs) { return fmt::format("{} run{}", runs, runs == 1 ? "" : "s"); }

}  // namespace

std::string library_json(const model::LibraryResult& r) {
  ojson results = ojson::array();
  for (const auto& h : r.results) {
    ojson j{{"title", h.title},
            {"url", h.url},
            {"source", h.source},
            {"published_at", iso_or_null(h.published_at)},
            {"engagement", h.kind == "finding" ? ojson(h.engagement) : ojson(nullptr)},
            {"first_seen", core::format_iso8601(h.first_seen)},
            {"last_seen", core::format_iso8601(h.last_seen)},
            {"sightings", h.sightings},
            {"score", std::round(h.score * 10000) / 10000},
            {"snippet", h.snippet},
            {"topics", h.topics},
            {"kind", h.kind}};
    if (h.kind == "brief") j["location"] = h.location;
    results.push_back(std::move(j));
  }
  return dump({{"schema_version", 1}, {"kind", "library"}, {"query", r.query}, {"results", results}});
}

std::string library_compact(const model::LibraryResult& r) {
  std::string out =
      fmt::format("library · \"{}\" · {} result{}\n", term::text(r.query), r.results.size(), r.results.size() == 1 ? "" : "s");
  if (r.results.empty())
    return out + "Nothing stored matches. Runs are stored with --store; saved briefs (--save) are searched too.\n";
  out += "\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const auto& h = r.results[i];
    out += fmt::format("{:>2}. {}\n", i + 1, term::text(h.title));  // best first; the score is in --emit json
    if (h.kind == "brief") {
      out += fmt::format("    saved brief · {}\n", core::format_date(h.last_seen));
      out += fmt::format("    {}\n", term::text(h.location));
    } else {
      out += fmt::format("    {}\n", term::url(h.url));
      out += "    " + term::text(finding_meta(h)) + "\n";
    }
    if (!h.topics.empty()) out += fmt::format("    topics: {}\n", term::text(join(h.topics, ", ")));
    if (!h.snippet.empty()) out += fmt::format("    {}\n", term::text(core::truncate_utf8(h.snippet, 200)));
  }
  return out;
}

std::string library_markdown(const model::LibraryResult& r) {
  std::string out =
      fmt::format("# Library: {}\n\n{} result{}\n", md::text(r.query), r.results.size(), r.results.size() == 1 ? "" : "s");
  if (r.results.empty()) return out + "\nNothing stored matches.\n";
  out += "\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const auto& h = r.results[i];
    if (h.kind == "brief")
      out += fmt::format("{}. {} — saved brief · {} · {}\n", i + 1, md::text(h.title), core::format_date(h.last_seen),
                         md::code(h.location));
    else out += fmt::format("{}. {} — {}\n", i + 1, md::link(h.title, h.url), md::text(finding_meta(h)));
    if (!h.topics.empty()) out += "   - topics: " + md::text(join(h.topics, ", ")) + "\n";
    if (!h.snippet.empty()) out += "   - " + md::text(core::truncate_utf8(h.snippet, 200)) + "\n";
  }
  return out;
}

std::string library_topics_json(const std::vector<model::TopicSummary>& topics) {
  ojson list = ojson::array();
  for (const auto& t : topics)
    list.push_back({{"topic", t.topic}, {"kind", t.kind}, {"runs", t.runs}, {"last_run_at", iso_or_null(t.last_run_at)}});
  return dump({{"schema_version", 1}, {"kind", "library-topics"}, {"topics", list}});
}

std::string library_topics_compact(const std::vector<model::TopicSummary>& topics) {
  std::string out = fmt::format("library · {} topic{}\n", topics.size(), topics.size() == 1 ? "" : "s");
  if (topics.empty()) return out + "Nothing stored yet: research with --store, or watch add TOPIC.\n";
  for (const auto& t : topics)
    out += fmt::format("  {}{} · {} · last run {}\n", term::text(t.topic), t.kind == "discovery" ? " (discovery)" : "",
                       run_count(t.runs), t.last_run_at ? core::format_iso8601(*t.last_run_at) : "never");
  return out;
}

std::string library_topics_markdown(const std::vector<model::TopicSummary>& topics) {
  std::string out = fmt::format("# Library topics\n\n{} topic{}\n", topics.size(), topics.size() == 1 ? "" : "s");
  if (topics.empty()) return out;
  out += "\n| topic | kind | runs | last run |\n|---|---|---|---|\n";
  for (const auto& t : topics)
    out += fmt::format("| {} | {} | {} | {} |\n", md::text(t.topic), t.kind, t.runs,
                       t.last_run_at ? core::format_iso8601(*t.last_run_at) : "never");
  return out;
}

namespace {

bool claimed_now(const model::WatchEntry& e, core::UnixSeconds now) { return e.claimed_until && *e.claimed_until > now; }

ojson channels_json(const std::vector<model::ChannelStatus>& channels) {
  ojson out = ojson::array();
  for (const auto& c : channels) {
    ojson j{{"channel", c.channel}, {"url", c.masked_url}, {"last_delivery_at", nullptr},
            {"ok", nullptr},        {"detail", nullptr},   {"pending", c.last ? c.last->pending : 0}};
    if (c.last) {
      j["last_delivery_at"] = core::format_iso8601(c.last->at);
      j["ok"] = c.last->ok;
      j["detail"] = c.last->detail;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

namespace {

// Which setting holds, and the other one when it is looser.
std::string budget_setting(const model::BudgetStatus& b) {
  const std::string env = sources::budget_key(b.source),
                    kept = fmt::format("watch budget {} {}", b.source, b.store_limit.value_or(0));
  if (b.by_store) return b.env_limit ? fmt::format("{}; {}={} is looser", kept, env, *b.env_limit) : kept;
  const std::string set = fmt::format("{}={}", env, b.env_limit.value_or(0));
  if (!b.store_limit) return set;
  return fmt::format("{}; the store's {} is {}", set, *b.store_limit, *b.store_limit == b.limit ? "the same" : "looser");
}

}  // namespace

ojson budgets_json(const std::vector<model::BudgetStatus>& budgets, core::UnixSeconds now) {
  ojson list = ojson::array();
  const auto or_null = [](const std::optional<long>& v) { return v ? ojson(*v) : ojson(nullptr); };
  for (const auto& b : budgets)
    list.push_back({{"source", b.source},
                    {"key", sources::budget_key(b.source)},
                    {"limit", b.limit},
                    {"set_by", b.by_store ? "store" : "environment"},
                    {"env_limit", or_null(b.env_limit)},
                    {"store_limit", or_null(b.store_limit)},
                    {"spent_today", b.spent},
                    {"request_cost", b.cost.empty() ? ojson(nullptr) : ojson(b.cost)}});
  return {{"day", core::format_date(now)}, {"sources", list}};
}

std::string budgets_text(const std::vector<model::BudgetStatus>& budgets, bool md) {
  std::string out = md ? "\n## Request budgets (today, UTC)\n\n" : "request budgets (today, UTC):\n";
  for (const auto& b : budgets) {
    out += fmt::format("{}{}: {} of {} requests spent ({}){}\n", md ? "- " : "  ", b.source, b.spent, b.limit, budget_setting(b),
                       b.spent >= b.limit ? " · spent: skipped as rate-limited until 00:00 UTC" : "");
    if (!b.cost.empty()) out += fmt::format("    {}\n", b.cost);
  }
  return out;
}

std::string watchlist_json(const std::vector<model::WatchEntry>& list, const std::vector<model::ChannelStatus>& channels,
                           core::UnixSeconds now, const std::vector<model::BudgetStatus>& budgets) {
  ojson topics = ojson::array();
  for (const auto& e : list) {
    ojson j{{"topic", e.topic},
            {"days", e.days},
            {"every_hours", e.every_hours},
            {"sources", e.sources},
            {"last_run_at", iso_or_null(e.last_run_at)},
            {"next_due_at", core::format_iso8601(e.next_due_at)},
            {"notify", e.notify ? ojson(*e.notify) : ojson(nullptr)},
            {"claimed_until", claimed_now(e, now) ? iso_or_null(e.claimed_until) : ojson(nullptr)}};
    topics.push_back(std::move(j));
  }
  return dump({{"schema_version", 1},
               {"kind", "watchlist"},
               {"topics", topics},
               {"notifications", channels_json(channels)},
               {"budgets", budgets_json(budgets, now)}});
}

std::string watchlist_compact(const std::vector<model::WatchEntry>& list, core::UnixSeconds now,
                              const std::vector<model::ChannelStatus>& channels,
                              const std::vector<model::BudgetStatus>& budgets) {
  std::string out = fmt::format("watchlist · {} topic{}\n", list.size(), list.size() == 1 ? "" : "s");
  if (list.empty()) out += "Nothing watched yet: last30days watch add TOPIC [--days N] [--search ...] [--every HOURS]\n";
  for (const auto& e : list) {
    // A claim outlives a killed `watch run` until its lease ends: say so, not "due now".
    const std::string due = claimed_now(e, now)    ? "claimed by a watch run until " + core::format_iso8601(*e.claimed_until)
                            : e.next_due_at <= now ? "due now"
                                                   : "due " + core::format_iso8601(e.next_due_at);
    std::string notify;
    if (e.notify) notify = e.notify->empty() ? " · notify none" : " · notify " + join(*e.notify, ",");
    out += fmt::format("  {} · every {} · {} days · {} · {} · {}{}\n", term::text(e.topic), every_text(e.every_hours), e.days,
                       e.sources.empty() ? "all sources" : join(e.sources, ","),
                       e.last_run_at ? "last run " + core::format_iso8601(*e.last_run_at) : "never run", due, notify);
  }
  if (!channels.empty()) {
    out += "notifications:\n";
    for (const auto& c : channels) {
      std::string last = "no delivery yet";
      if (c.last)
        last = fmt::format(
            "last delivery {} {}: {}{}", core::format_iso8601(c.last->at), c.last->ok ? "ok" : "FAILED",
            term::text(c.last->detail),
            c.last->pending ? fmt::format(" · {} digest{} waiting", c.last->pending, c.last->pending == 1 ? "" : "s") : "");
      out += fmt::format("  {} {} · {}\n", c.channel, c.masked_url, last);
    }
  }
  if (!budgets.empty()) out += budgets_text(budgets);
  return out;
}

std::string watch_json(const model::WatchReport& r) {
  ojson runs = ojson::array();
  for (const auto& run : r.runs) {
    ojson fresh = ojson::array(), surging = ojson::array();
    for (const auto& it : run.fresh) fresh.push_back(item_json(it));
    for (const auto& it : run.surging) {
      ojson j = item_json(it);
      if (auto p = run.previous_engagement.find(it.id); p != run.previous_engagement.end()) j["previous_engagement"] = p->second;
      surging.push_back(std::move(j));
    }
    ojson j{{"topic", run.topic},
            {"previous_run_at", iso_or_null(run.previous_run_at)},
            {"new", fresh},
            {"surging", surging},
            {"source_status", status_json(run.source_status)}};
    if (run.error) j["error"] = *run.error;
    if (run.synthesis) j["synthesis"] = synthesis_json(*run.synthesis);
    runs.push_back(std::move(j));
  }
  return dump({{"schema_version", 1},
               {"kind", "watch"},
               {"generated_at", core::format_iso8601(r.generated_at)},
               {"runs", runs},
               {"warnings", r.warnings}});
}

namespace {

// "source container · engagement · date"
std::string item_meta(const model::Item& it, std::optional<double> was) {
  std::string eng = engagement_summary(it.source, it.engagement);
  if (was) eng += fmt::format(" (engagement was {})", human_number(*was));
  return fmt::format("{}{}{} · {}", it.source, it.container ? " " + term::text(*it.container) : "",
                     eng.empty() ? "" : " · " + eng, it.published_at ? core::format_date(*it.published_at) : "undated");
}

std::optional<double> previous(const model::WatchRun& run, const model::Item& it) {
  auto p = run.previous_engagement.find(it.id);
  return p == run.previous_engagement.end() ? std::nullopt : std::optional<double>(p->second);
}

// term::text: a topic is the user's, and may hold escape bytes.
std::string run_heading(const model::WatchRun& run) {
  if (!run.previous_run_at)
    return fmt::format("\"{}\" · first run: {} item{} recorded", term::text(run.topic), run.fresh.size(),
                       run.fresh.size() == 1 ? "" : "s");
  return fmt::format("\"{}\" · previous run {} · {} new · {} surging", term::text(run.topic),
                     core::format_iso8601(*run.previous_run_at), run.fresh.size(), run.surging.size());
}

}  // namespace

std::string watch_compact(const model::WatchReport& r) {
  std::string out = fmt::format("last30days watch · {} topic{} run · {}\n", r.runs.size(), r.runs.size() == 1 ? "" : "s",
                                core::format_iso8601(r.generated_at));
  if (r.runs.empty()) out += "Nothing is due. (watch run --all runs every topic now; watch list shows when each is due.)\n";
  for (const auto& run : r.runs) {
    out += "\n== " + run_heading(run) + "\n";
    std::string badges;
    for (const auto& [id, st] : run.source_status)
      badges += (badges.empty() ? "" : "  ") + (st.state == model::SourceState::ok
                                                    ? fmt::format("{} {}", id, st.items)
                                                    : fmt::format("{} {} {}", id, model::to_string(st.state), st.items));
    out += "sources: " + badges + "\n";
    if (run.error) out += "! " + term::text(*run.error) + "\n";
    if (run.synthesis) out += synthesis_compact(*run.synthesis);
    if (run.fresh.empty() && run.surging.empty()) out += "  nothing new since the previous run\n";
    for (const auto& it : run.fresh)
      out +=
          "  new      " + term::text(it.title) + " — " + item_meta(it, std::nullopt) + "\n           " + term::url(it.url) + "\n";
    for (const auto& it : run.surging)
      out += "  surging  " + term::text(it.title) + " — " + item_meta(it, previous(run, it)) + "\n           " +
             term::url(it.url) + "\n";
  }
  for (const auto& w : r.warnings) out += "! " + term::text(w) + "\n";
  return out;
}

std::string watch_markdown(const model::WatchReport& r) {
  std::string out = fmt::format("# last30days watch\n\n{} topic{} run · {}\n", r.runs.size(), r.runs.size() == 1 ? "" : "s",
                                core::format_iso8601(r.generated_at));
  if (r.runs.empty()) out += "\nNothing is due.\n";
  for (const auto& run : r.runs) {
    out += "\n## " + md::text(run_heading(run)) + "\n\n";
    out += "| source | state | items | note |\n|---|---|---|---|\n";
    for (const auto& [id, st] : run.source_status)
      out += fmt::format("| {} | {} | {} | {} |\n", id, model::to_string(st.state), st.items, md::text(st.reason));
    out += "\n";
    if (run.error) out += "**" + md::text(*run.error) + "**\n\n";
    if (run.synthesis) out += synthesis_markdown(*run.synthesis, "###");
    if (run.fresh.empty() && run.surging.empty()) out += "Nothing new since the previous run.\n";
    for (const auto& it : run.fresh)
      out += fmt::format("- *new* {} — {}\n", md::link(it.title, it.url), md::text(item_meta(it, std::nullopt)));
    for (const auto& it : run.surging)
      out += fmt::format("- *surging* {} — {}\n", md::link(it.title, it.url), md::text(item_meta(it, previous(run, it))));
  }
  for (const auto& w : r.warnings) out += "\n- " + md::text(w) + "\n";
  return out;
}

}  // namespace render
