// The readable briefs: compact (terminal) and Markdown.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/text.hpp"
#include "render/escape.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace render {

std::string human_number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.1f}B", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.0f}k", v / 1e3);
  if (a >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  if (std::floor(v) == v) return fmt::format("{:.0f}", v);
  return fmt::format("{:.2f}", v);
}

std::string engagement_summary(std::string_view source, const std::vector<model::Engagement>& engagement) {
  std::string out;
  for (const auto& e : engagement) {
    // The source's own words for its fields; a field nobody declares shows its name.
    const sources::EngagementField* f = sources::engagement_field(source, e.field);
    const std::string_view label = f ? f->label : std::string_view(e.field);
    const sources::Shown shown = f ? f->shown : sources::Shown::count;
    std::string part;
    if (shown == sources::Shown::percent) part = fmt::format("{:.0f}% {}", e.value * 100, label);
    else if (shown == sources::Shown::dollars) part = fmt::format("${} {}", human_number(e.value), label);
    else part = fmt::format("{} {}", human_number(e.value), label);
    out += (out.empty() ? "" : " · ") + part;
  }
  return out;
}

std::string seen_label(const model::Item& it) {
  if (!it.seen_before) return "";
  if (*it.seen_before == 0) return "new";
  return fmt::format("first seen {} run{} ago", *it.seen_before, *it.seen_before == 1 ? "" : "s");
}

std::string history_summary(const model::Report& r) {
  if (!r.history) return "";
  if (r.history->runs_before == 0) return "first run of this topic";
  return fmt::format("{} run{} before, the last at {}", r.history->runs_before, r.history->runs_before == 1 ? "" : "s",
                     r.history->last_run_at ? core::format_iso8601(*r.history->last_run_at) : "an unknown time");
}

std::string comments_note(const model::SourceStatus& st) {
  if (st.comment_failures == 0) return {};
  return fmt::format("comments unavailable for {} of {} {}: {}", st.comment_failures, st.comment_threads,
                     st.comment_threads == 1 ? "thread" : "threads", st.comments_reason);
}

std::string not_set_up(const std::map<std::string, model::SourceStatus>& status) {
  std::string out;
  for (const auto& [id, st] : status)
    if (st.state == model::SourceState::skipped_unconfigured) out += (out.empty() ? "" : ", ") + id;
  return out;
}

std::string not_set_up_line(const std::map<std::string, model::SourceStatus>& status) {
  const std::string ids = not_set_up(status);
  return ids.empty() ? "" : "not set up: " + ids + " \u2014 see `last30days doctor`";
}

bool needs_reason(const model::SourceStatus& st) {
  if (st.state == model::SourceState::ok || st.state == model::SourceState::skipped_unconfigured) return false;
  return st.state != model::SourceState::no_results || !st.reason.empty();
}

std::string state_words(model::SourceState s) {
  switch (s) {
    case model::SourceState::ok: return "answered";
    case model::SourceState::no_results: return "found nothing";
    case model::SourceState::partial: return "answered in part";
    case model::SourceState::rate_limited: return "refused (rate-limited)";
    case model::SourceState::auth_failed: return "refused (auth-failed)";
    case model::SourceState::unreachable: return "unreachable";
    case model::SourceState::timeout: return "timed out";
    case model::SourceState::schema_drift: return "answered in an unknown shape (schema-drift)";
    case model::SourceState::skipped_unconfigured: return "not set up";
    case model::SourceState::error: return "failed (error)";
  }
  return "failed";
}

std::string no_answer_line(const std::map<std::string, model::SourceStatus>& status) {
  if (status.empty() || model::any_answered(status)) return "";
  std::string asked;
  for (const auto& [id, st] : status)
    if (st.state != model::SourceState::skipped_unconfigured)
      asked += (asked.empty() ? "" : ", ") + id + " " + state_words(st.state);
  if (asked.empty()) return "No source answered: none of the sources searched is set up (see `last30days doctor`).";
  return "No source answered: " + asked + ".";
}

std::string count_phrase(std::size_t items, std::size_t stories) {
  return fmt::format("{} item{} in {} stor{}", items, items == 1 ? "" : "s", stories, stories == 1 ? "y" : "ies");
}

std::string more_line(std::size_t total, std::size_t shown) {
  if (total <= shown) return "";
  const std::size_t rest = total - shown;
  return fmt::format("{} more stor{} (--limit {} shows them all)", rest, rest == 1 ? "y" : "ies", total);
}

std::string quote_attribution(const model::Comment& c, std::string_view source) {
  const sources::Source* src = sources::by_id(source);
  const sources::CommentWords words = src ? src->comment_words() : sources::CommentWords{};
  std::string out = c.author ? *c.author : std::string(words.nobody);
  if (c.score) {
    const bool one = std::fabs(*c.score) == 1;
    out += fmt::format(", {} {}", human_number(*c.score), one ? words.score_one : words.score_many);
  } else if (c.replies && *c.replies > 0) {
    out += fmt::format(", {} {}", *c.replies, *c.replies == 1 ? "reply" : "replies");
  }
  return out;
}

namespace {

// The non-empty parts, separated.
std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

// “The quoted words, cut at a sentence” — who, how received.
std::string quote_line(const model::Comment& c, std::string_view source) {
  return fmt::format("\u201c{}\u201d \u2014 {}", core::excerpt(c.text, kQuoteBytes), quote_attribution(c, source));
}

std::string date_of(const model::Item& it) {
  return it.published_at ? core::format_date(*it.published_at) : std::string("undated");
}

constexpr std::size_t kItemsPerCluster = 3;

std::string badge_line(const model::Report& r) {
  std::string out;
  for (const auto& [id, st] : r.source_status) {
    if (st.state == model::SourceState::skipped_unconfigured) continue;  // on the "not set up" line
    if (!out.empty()) out += "  ";
    out += st.state == model::SourceState::ok ? fmt::format("{} {}", id, st.items)
                                              : fmt::format("{} {} {}", id, model::to_string(st.state), st.items);
  }
  return out;
}

std::unordered_map<std::string, const model::Item*> index_items(const model::Report& r) {
  std::unordered_map<std::string, const model::Item*> m;
  for (const auto& it : r.items) m[it.id] = &it;
  return m;
}

using ItemIndex = std::unordered_map<std::string, const model::Item*>;

// One story of a compact brief: its headline, then its best items with their evidence.
void compact_story(std::string& out, std::size_t number, const model::Cluster& c, const ItemIndex& items) {
  std::string srcs;
  for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : "+") + s;
  out += fmt::format("{:>2}. {}  [{:.0f} · {}{}]\n", number, term::text(c.title), c.score, srcs,
                     c.uncertainty ? " · " + *c.uncertainty : "");
  for (std::size_t m = 0; m < c.items.size() && m < kItemsPerCluster; ++m) {
    const auto* it = items.at(c.items[m]);
    const std::string eng = engagement_summary(it->source, it->engagement);
    const std::string seen = seen_label(*it);
    out += fmt::format("    - {} — {}{}{} · {}{}\n", term::text(it->title), it->source,
                       it->container ? " " + term::text(*it->container) : "", eng.empty() ? "" : " · " + eng, date_of(*it),
                       seen.empty() ? "" : " · " + seen);
    out += fmt::format("      {}\n", term::url(it->url));
    if (it->discussion_url) out += fmt::format("      discussion: {}\n", term::url(*it->discussion_url));
    for (std::size_t q = 0; q < it->comments.size() && q < kQuotesPerItem; ++q)
      out += "      " + term::text(quote_line(it->comments[q], it->source)) + "\n";
    for (const auto& s : it->also_seen) {
      const std::string se = engagement_summary(s.source, s.engagement);
      const std::string& where = s.discussion_url ? *s.discussion_url : s.url;
      out += fmt::format("      also on {}{}: {}\n", s.source, se.empty() ? "" : " · " + se, term::url(where));
      for (std::size_t q = 0; q < s.comments.size() && q < kQuotesPerItem; ++q)
        out += "        " + term::text(quote_line(s.comments[q], s.source)) + "\n";
    }
  }
  if (c.items.size() > kItemsPerCluster) out += fmt::format("      (+{} more)\n", c.items.size() - kItemsPerCluster);
}

std::string header(const model::Report& r) {
  return fmt::format("\"{}\" · {} → {} ({} days) · {}", term::text(r.topic), core::format_date(r.window.from),
                     core::format_date(r.window.to), r.window.days, count_phrase(r.items.size(), r.clusters.size()));
}

}  // namespace

std::string research_compact(const model::Report& r, std::size_t stories) {
  std::string out = "last30days · " + header(r) + "\n";
  if (const auto badges = badge_line(r); !badges.empty()) out += "sources: " + badges + "\n";
  if (const auto line = not_set_up_line(r.source_status); !line.empty()) out += line + "\n";
  if (const auto h = history_summary(r); !h.empty()) out += "history: " + h + "\n";
  for (const auto& [id, st] : r.source_status)
    if (needs_reason(st))
      out += fmt::format("  {}: {}{}\n", id, model::to_string(st.state), st.reason.empty() ? "" : " — " + term::text(st.reason));
  for (const auto& [id, st] : r.source_status)
    if (const std::string note = comments_note(st); !note.empty()) out += fmt::format("  {}: {}\n", id, term::text(note));
  out += "\n";
  if (r.synthesis) out += synthesis_compact(*r.synthesis);
  const bool any_answered = model::any_answered(r.source_status);
  if (r.outcome == model::Outcome::nothing_solid && any_answered)
    out += fmt::format("Nothing solid about \"{}\" in the last {} days.{}\n\n", term::text(r.topic), r.window.days,
                       r.items.empty() ? "" : " Closest weak signals:");
  const auto items = index_items(r);
  for (std::size_t k = 0; k < r.clusters.size() && k < stories; ++k) compact_story(out, k + 1, r.clusters[k], items);
  if (const auto more = more_line(r.clusters.size(), stories); !more.empty()) out += "\n… " + more + "\n";
  if (r.items.empty())
    out += any_answered ? "No items survived the window and relevance filters.\n"
                        : term::text(no_answer_line(r.source_status)) + "\n";
  if (!r.warnings.empty()) {
    out += "\n";
    for (const auto& w : r.warnings) out += "! " + term::text(w) + "\n";
  }
  return out;
}

namespace {

// One story of a Markdown brief under a heading of the given level ("##").
void md_story(std::string& out, std::string_view level, std::size_t number, const model::Cluster& c, const ItemIndex& items) {
  std::string srcs;
  for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : ", ") + s;
  out += fmt::format("{} {}. {}\n\n*score {:.0f} · {}{}*\n\n", level, number, md::text(c.title), c.score, srcs,
                     c.uncertainty ? " · " + *c.uncertainty : "");
  for (std::size_t m = 0; m < c.items.size() && m < kItemsPerCluster; ++m) {
    const auto* it = items.at(c.items[m]);
    const std::string eng = engagement_summary(it->source, it->engagement);
    const std::string seen = seen_label(*it);
    out += fmt::format("- {} — {}{} · {}{}{}\n", md::link(it->title, it->url), it->source, eng.empty() ? "" : " · " + eng,
                       date_of(*it), it->discussion_url ? " · " + md::link("discussion", *it->discussion_url) : "",
                       seen.empty() ? "" : " · *" + md::text(seen) + "*");
    if (!it->snippet.empty()) out += fmt::format("  > {}\n", md::text(core::truncate_utf8(it->snippet, 240)));
    auto quotes = [&](const std::vector<model::Comment>& comments, const std::string& source, bool say_where) {
      for (std::size_t q = 0; q < comments.size() && q < kQuotesPerItem; ++q) {
        const auto& cm = comments[q];
        const std::string who = quote_attribution(cm, source) + (say_where ? " on " + source : "");
        out += fmt::format("  - \u201c{}\u201d \u2014 {}\n", md::text(core::excerpt(cm.text, kQuoteBytes)),
                           cm.url ? md::link(who, *cm.url) : md::text(who));
      }
    };
    quotes(it->comments, it->source, false);
    for (const auto& s : it->also_seen) quotes(s.comments, s.source, true);
  }
  out += "\n";
}

}  // namespace

std::string research_markdown(const model::Report& r, std::size_t stories) {
  std::string out = fmt::format("# last30days: {}\n\n", md::text(r.topic));
  out += fmt::format("Window {} → {} ({} days) · depth {} · generated {} · {}\n\n", core::format_date(r.window.from),
                     core::format_date(r.window.to), r.window.days, model::to_string(r.depth),
                     core::format_iso8601(r.generated_at), count_phrase(r.items.size(), r.clusters.size()));
  if (const auto h = history_summary(r); !h.empty()) out += "History: " + h + "\n\n";
  std::string rows;
  for (const auto& [id, st] : r.source_status)
    if (st.state != model::SourceState::skipped_unconfigured)
      rows += fmt::format("| {} | {} | {} | {} |\n", id, model::to_string(st.state), st.items,
                          md::text(joined({st.reason, comments_note(st)}, "; ")));
  if (!rows.empty()) out += "| source | state | items | note |\n|---|---|---|---|\n" + rows + "\n";
  if (const auto ids = not_set_up(r.source_status); !ids.empty())
    out += "Not set up: " + md::text(ids) + " \u2014 see `last30days doctor`\n\n";
  if (r.synthesis) out += synthesis_markdown(*r.synthesis);
  if (!model::any_answered(r.source_status)) out += "**" + md::text(no_answer_line(r.source_status)) + "**\n\n";
  else if (r.outcome == model::Outcome::nothing_solid)
    out += fmt::format("**Nothing solid** about this topic in the window.{}\n\n",
                       r.items.empty() ? "" : " Closest weak signals below.");
  const auto items = index_items(r);
  for (std::size_t k = 0; k < r.clusters.size() && k < stories; ++k) md_story(out, "##", k + 1, r.clusters[k], items);
  if (const auto more = more_line(r.clusters.size(), stories); !more.empty()) out += "*" + md::text(more) + "*\n\n";
  if (!r.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : r.warnings) out += "- " + md::text(w) + "\n";
  }
  return out;
}

}  // namespace render

// ---- comparison ----

namespace render {

EntitySummary summarize(const model::Report& r) {
  EntitySummary s;
  s.items = r.items.size();
  s.stories = r.clusters.size();
  auto add = [&](const std::string& source, const std::vector<model::Engagement>& e) {
    const double v = sources::comparable_engagement(source, e);
    s.engagement += v;
    s.engagement_by_source[source] += v;
  };
  for (const auto& it : r.items) {
    add(it.source, it.engagement);
    for (const auto& seen : it.also_seen) add(seen.source, seen.engagement);
  }
  return s;
}

namespace {

std::string source_cell(const model::SourceStatus& st) {
  if (st.state == model::SourceState::ok || st.state == model::SourceState::no_results) return std::to_string(st.items);
  if (st.state == model::SourceState::skipped_unconfigured) return "not set up";
  const std::string state(model::to_string(st.state));
  return st.items > 0 ? fmt::format("{} {}", state, st.items) : state;
}

}  // namespace

std::vector<TableRow> comparison_table(const model::Comparison& c) {
  std::vector<TableRow> rows{{"stories", {}}, {"items", {}}, {"engagement", {}}};
  std::vector<std::string> ids;  // every source any entity reported on, first report's order
  for (const auto& e : c.entities) {
    const auto s = summarize(e.report);
    rows[0].cells.push_back({std::to_string(s.stories), false, {}});
    rows[1].cells.push_back({std::to_string(s.items), false, {}});
    rows[2].cells.push_back({human_number(std::round(s.engagement)), false, {}});
    for (const auto& [id, st] : e.report.source_status)
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  for (const auto& id : ids) {
    // A source set up for no entity is on the "not set up" line, not a row of its own.
    if (std::all_of(c.entities.begin(), c.entities.end(), [&](const model::ComparedEntity& e) {
          const auto st = e.report.source_status.find(id);
          return st == e.report.source_status.end() || st->second.state == model::SourceState::skipped_unconfigured;
        }))
      continue;
    auto& row = rows.emplace_back(TableRow{id, {}});
    for (const auto& e : c.entities) {
      auto st = e.report.source_status.find(id);
      if (st == e.report.source_status.end()) row.cells.push_back({"-", false, {}});
      else row.cells.push_back({source_cell(st->second), model::is_degraded(st->second.state), st->second.reason});
    }
  }
  return rows;
}

namespace {

constexpr std::size_t kMaxColumn = 24;

// A source that did not answer fully, once for every entity it failed the same way for.
struct Degraded {
  std::string source;
  std::string_view state;
  std::string reason;
  std::vector<std::string> entities;
};

std::vector<Degraded> degraded_sources(const model::Comparison& c) {
  std::vector<Degraded> out;
  for (const auto& e : c.entities)
    for (const auto& entry : e.report.source_status) {
      // Not a structured binding: clang 14 (the fuzz/ASan build) cannot capture one in a lambda.
      const std::string& id = entry.first;
      const model::SourceStatus& st = entry.second;
      if (!model::is_degraded(st.state)) continue;
      const std::string_view state = model::to_string(st.state);
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const Degraded& d) { return d.source == id && d.state == state && d.reason == st.reason; });
      if (it == out.end()) out.push_back({id, state, st.reason, {e.name}});
      else it->entities.push_back(e.name);
    }
  return out;
}

}  // namespace

std::string comparison_compact(const model::Comparison& c) {
  std::string out =
      fmt::format("last30days · compare \"{}\" · {} → {} ({} days) · {} entities\n\n", term::text(c.topic),
                  core::format_date(c.window.from), core::format_date(c.window.to), c.window.days, c.entities.size());
  // Side by side: a label column, then one column per entity.
  std::vector<std::vector<std::string>> rows{{""}};
  for (const auto& e : c.entities) rows[0].push_back(term::text(e.name));
  for (const auto& r : comparison_table(c)) {
    auto& row = rows.emplace_back(std::vector<std::string>{r.label});
    for (const auto& cell : r.cells) row.push_back(cell.text);
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) width[k] = std::min(kMaxColumn, std::max(width[k], core::display_width(row[k])));
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t k = 0; k < row.size(); ++k) {
      const std::string cell = core::fit_width(row[k], width[k]);
      line += cell + std::string(width[k] - core::display_width(cell) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!c.entities.empty())
    if (const auto line = not_set_up_line(c.entities.front().report.source_status); !line.empty()) out += line + "\n";
  for (const auto& d : degraded_sources(c))
    out += fmt::format("  {}: {} — {} ({})\n", d.source, d.state, term::text(d.reason), term::text(joined(d.entities, ", ")));
  if (c.synthesis) out += "\n" + synthesis_compact(*c.synthesis);

  for (std::size_t k = 0; k < c.entities.size(); ++k) {
    const auto& r = c.entities[k].report;
    const auto own = c.own_stories(k);
    out +=
        fmt::format("\n{} — {} {}{}\n", term::text(c.entities[k].name), own.size(), own.size() == 1 ? "story" : "stories",
                    own.size() < r.clusters.size() ? fmt::format(" of its own, {} shared", r.clusters.size() - own.size()) : "");
    if (!model::any_answered(r.source_status)) out += "    " + term::text(no_answer_line(r.source_status)) + "\n";
    else if (r.outcome == model::Outcome::nothing_solid) out += "    nothing solid in the window\n";
    const auto items = index_items(r);
    for (std::size_t m = 0; m < own.size() && m < kStoriesPerEntity; ++m) compact_story(out, m + 1, *own[m], items);
    if (own.size() > kStoriesPerEntity)
      out += fmt::format("    … {} more (use --emit json for all)\n", own.size() - kStoriesPerEntity);
  }
  if (!c.shared.empty()) {
    out += "\nshared stories (found for more than one)\n";
    for (std::size_t k = 0; k < c.shared.size(); ++k) {
      const auto& s = c.shared[k];
      std::vector<std::string> names;
      for (const auto& n : s.entities) names.push_back(term::text(n));
      out += fmt::format("{:>2}. {}  [{}]\n      {}\n", k + 1, term::text(s.title), joined(names, " + "), term::url(s.url));
    }
  }
  if (!c.warnings.empty()) {
    out += "\n";
    for (const auto& w : c.warnings) out += "! " + term::text(w) + "\n";
  }
  return out;
}

std::string comparison_markdown(const model::Comparison& c) {
  std::string out = fmt::format("# last30days: {}\n\n", md::text(c.topic));
  out += fmt::format("Comparison of {} entities · window {} → {} ({} days) · depth {} · generated {}\n\n", c.entities.size(),
                     core::format_date(c.window.from), core::format_date(c.window.to), c.window.days, model::to_string(c.depth),
                     core::format_iso8601(c.generated_at));
  out += "| |";
  for (const auto& e : c.entities) out += " " + md::text(e.name) + " |";
  out += "\n|---|";
  for (std::size_t k = 0; k < c.entities.size(); ++k) out += "---|";
  out += "\n";
  for (const auto& row : comparison_table(c)) {
    out += "| " + md::text(row.label) + " |";
    for (const auto& cell : row.cells) out += " " + md::text(cell.text) + " |";
    out += "\n";
  }
  out += "\n";
  if (!c.entities.empty())
    if (const auto ids = not_set_up(c.entities.front().report.source_status); !ids.empty())
      out += "Not set up: " + md::text(ids) + " \u2014 see `last30days doctor`\n\n";
  const auto degraded = degraded_sources(c);
  for (const auto& d : degraded)
    out += fmt::format("- {}: {} — {} ({})\n", d.source, d.state, md::text(d.reason), md::text(joined(d.entities, ", ")));
  if (!degraded.empty()) out += "\n";
  if (c.synthesis) out += synthesis_markdown(*c.synthesis);
  for (std::size_t k = 0; k < c.entities.size(); ++k) {
    const auto& r = c.entities[k].report;
    out += fmt::format("## {}\n\n", md::text(c.entities[k].name));
    if (!model::any_answered(r.source_status)) out += "**" + md::text(no_answer_line(r.source_status)) + "**\n\n";
    else if (r.outcome == model::Outcome::nothing_solid) out += "**Nothing solid** in the window.\n\n";
    const auto own = c.own_stories(k);
    const auto items = index_items(r);
    for (std::size_t m = 0; m < own.size() && m < kStoriesPerEntity; ++m) md_story(out, "###", m + 1, *own[m], items);
  }
  if (!c.shared.empty()) {
    out += "## Shared stories\n\n";
    for (const auto& s : c.shared) {
      std::vector<std::string> names;
      for (const auto& n : s.entities) names.push_back(md::text(n));
      out += fmt::format("- {} — {}\n", md::link(s.title, s.url), joined(names, ", "));
    }
    out += "\n";
  }
  if (!c.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : c.warnings) out += "- " + md::text(w) + "\n";
  }
  return out;
}

}  // namespace render
