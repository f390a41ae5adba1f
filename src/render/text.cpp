// The readable briefs: compact (terminal) and Markdown.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/text.hpp"
#include "render/render.hpp"

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

namespace {

std::string field_label(std::string_view field) {
  static const std::map<std::string_view, std::string_view> kLabels{
      {"points", "points"},          {"num_comments", "comments"}, {"comment_count", "comments"},
      {"score", "score"},            {"upvote_ratio", "upvoted"},  {"stars", "stars"},
      {"forks", "forks"},            {"comments", "comments"},     {"reactions", "reactions"},
      {"answer_count", "answers"},   {"view_count", "views"},      {"volume", "volume"},
      {"volume24hr", "24h volume"},  {"liquidity", "liquidity"},   {"odds", "odds"}};
  auto it = kLabels.find(field);
  return std::string(it == kLabels.end() ? field : it->second);
}

}  // namespace

std::string engagement_summary(const std::vector<model::Engagement>& engagement) {
  std::string out;
  for (const auto& e : engagement) {
    std::string part;
    if (e.field == "upvote_ratio" || e.field == "odds") part = fmt::format("{:.0f}% {}", e.value * 100, field_label(e.field));
    else if (e.field.find("volume") != std::string::npos || e.field == "liquidity") part = "$" + human_number(e.value) + " " + field_label(e.field);
    else part = human_number(e.value) + " " + field_label(e.field);
    out += (out.empty() ? "" : " · ") + part;
  }
  return out;
}

namespace {

std::string date_of(const model::Item& it) {
  return it.published_at ? core::format_date(*it.published_at) : std::string("undated");
}

std::size_t cluster_limit(model::Depth d) { return d == model::Depth::quick ? 8 : d == model::Depth::deep ? 20 : 12; }
constexpr std::size_t kItemsPerCluster = 3;

std::string badge_line(const model::Report& r) {
  std::string out;
  for (const auto& [id, st] : r.source_status) {
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

std::string header(const model::Report& r) {
  return fmt::format("\"{}\" · {} → {} ({} days) · {} items in {} stories", r.topic, core::format_date(r.window.from),
                     core::format_date(r.window.to), r.window.days, r.items.size(), r.clusters.size());
}

}  // namespace

std::string research_compact(const model::Report& r) {
  std::string out = "last30days · " + header(r) + "\n";
  out += "sources: " + badge_line(r) + "\n";
  for (const auto& [id, st] : r.source_status)
    if (model::is_degraded(st.state) || st.state == model::SourceState::skipped_unconfigured)
      out += fmt::format("  {}: {} — {}\n", id, model::to_string(st.state), st.reason);
  out += "\n";
  const bool any_answered = model::any_answered(r.source_status);
  if (r.outcome == model::Outcome::nothing_solid && any_answered)
    out += fmt::format("Nothing solid about \"{}\" in the last {} days.{}\n\n", r.topic, r.window.days,
                       r.items.empty() ? "" : " Closest weak signals:");
  const auto items = index_items(r);
  const std::size_t limit = cluster_limit(r.depth);
  for (std::size_t k = 0; k < r.clusters.size() && k < limit; ++k) {
    const auto& c = r.clusters[k];
    std::string srcs;
    for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : "+") + s;
    out += fmt::format("{:>2}. {}  [{:.0f} · {}{}]\n", k + 1, c.title, c.score, srcs,
                       c.uncertainty ? " · " + *c.uncertainty : "");
    for (std::size_t m = 0; m < c.items.size() && m < kItemsPerCluster; ++m) {
      const auto* it = items.at(c.items[m]);
      const std::string eng = engagement_summary(it->engagement);
      out += fmt::format("    - {} — {}{}{} · {}\n", it->title, it->source, it->container ? " " + *it->container : "",
                         eng.empty() ? "" : " · " + eng, date_of(*it));
      out += fmt::format("      {}\n", it->url);
      if (it->discussion_url) out += fmt::format("      discussion: {}\n", *it->discussion_url);
      for (const auto& s : it->also_seen) {
        const std::string se = engagement_summary(s.engagement);
        const std::string& where = s.discussion_url ? *s.discussion_url : s.url;
        out += fmt::format("      also on {}{}: {}\n", s.source, se.empty() ? "" : " · " + se, where);
      }
    }
    if (c.items.size() > kItemsPerCluster) out += fmt::format("      (+{} more)\n", c.items.size() - kItemsPerCluster);
  }
  if (r.clusters.size() > limit) out += fmt::format("\n… {} more stories (use --emit json for all)\n", r.clusters.size() - limit);
  if (r.items.empty())
    out += any_answered ? "No items survived the window and relevance filters.\n" : "No source could be asked, so there is nothing to report.\n";
  if (!r.warnings.empty()) {
    out += "\n";
    for (const auto& w : r.warnings) out += "! " + w + "\n";
  }
  return out;
}

namespace {

std::string md_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '[' || ch == ']' || ch == '*' || ch == '_' || ch == '`' || ch == '<' || ch == '>' || ch == '|' || ch == '#')
      out.push_back('\\');
    out.push_back(ch);
  }
  return out;
}

std::string md_url(std::string_view url) {
  std::string out;
  for (char ch : url) {
    if (ch == '(' ) out += "%28";
    else if (ch == ')') out += "%29";
    else if (ch == ' ') out += "%20";
    else out.push_back(ch);
  }
  return out;
}

}  // namespace

std::string research_markdown(const model::Report& r) {
  std::string out = fmt::format("# last30days: {}\n\n", md_escape(r.topic));
  out += fmt::format("Window {} → {} ({} days) · depth {} · generated {} · {} items in {} stories\n\n",
                     core::format_date(r.window.from), core::format_date(r.window.to), r.window.days,
                     model::to_string(r.depth), core::format_iso8601(r.generated_at), r.items.size(), r.clusters.size());
  out += "| source | state | items | note |\n|---|---|---|---|\n";
  for (const auto& [id, st] : r.source_status)
    out += fmt::format("| {} | {} | {} | {} |\n", id, model::to_string(st.state), st.items, md_escape(st.reason));
  out += "\n";
  if (!model::any_answered(r.source_status))
    out += "**No source could be asked**, so there is nothing to report.\n\n";
  else if (r.outcome == model::Outcome::nothing_solid)
    out += fmt::format("**Nothing solid** about this topic in the window.{}\n\n", r.items.empty() ? "" : " Closest weak signals below.");
  const auto items = index_items(r);
  const std::size_t limit = cluster_limit(r.depth);
  for (std::size_t k = 0; k < r.clusters.size() && k < limit; ++k) {
    const auto& c = r.clusters[k];
    std::string srcs;
    for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : ", ") + s;
    out += fmt::format("## {}. {}\n\n*score {:.0f} · {}{}*\n\n", k + 1, md_escape(c.title), c.score, srcs,
                       c.uncertainty ? " · " + *c.uncertainty : "");
    for (std::size_t m = 0; m < c.items.size() && m < kItemsPerCluster; ++m) {
      const auto* it = items.at(c.items[m]);
      const std::string eng = engagement_summary(it->engagement);
      out += fmt::format("- [{}]({}) — {}{} · {}{}\n", md_escape(it->title), md_url(it->url), it->source,
                         eng.empty() ? "" : " · " + eng, date_of(*it),
                         it->discussion_url ? fmt::format(" · [discussion]({})", md_url(*it->discussion_url)) : "");
      if (!it->snippet.empty()) out += fmt::format("  > {}\n", md_escape(core::truncate_utf8(it->snippet, 240)));
    }
    out += "\n";
  }
  if (!r.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : r.warnings) out += "- " + md_escape(w) + "\n";
  }
  return out;
}

}  // namespace render
