// One self-contained page: no scripts, no external requests, every upstream string escaped,
// and only http(s) URLs become links.
#include <fmt/format.h>

#include <unordered_map>

#include "core/text.hpp"
#include "core/url.hpp"
#include "render/render.hpp"

namespace render {

namespace {

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string link(std::string_view url, std::string_view text) {
  if (!core::Url::parse(url)) return esc(text);
  return fmt::format("<a href=\"{}\" rel=\"noopener noreferrer nofollow\">{}</a>", esc(url), esc(text));
}

constexpr std::string_view kStyle =
    "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
    "h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}.meta{color:#666;font-size:.9rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}"
    ".bad{color:#a40}li{margin:.4rem 0}.snip{color:#555;font-size:.9rem}";

using ItemIndex = std::unordered_map<std::string, const model::Item*>;

ItemIndex index_items(const model::Report& r) {
  ItemIndex items;
  for (const auto& it : r.items) items[it.id] = &it;
  return items;
}

// The page's head, up to and including <body>.
std::string page_head(std::string_view title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">";
  out += fmt::format("<title>last30days: {}</title><style>{}</style></head><body>\n", esc(title), kStyle);
  return out;
}

// One story: its headline under the given heading tag, then every item.
void html_story(std::string& out, std::string_view tag, std::size_t number, const model::Cluster& c, const ItemIndex& items) {
  std::string srcs;
  for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : ", ") + s;
  out += fmt::format("<{}>{}. {}</{}><p class=\"meta\">score {:.0f} · {}{}</p><ul>\n", tag, number, esc(c.title), tag, c.score,
                     esc(srcs), c.uncertainty ? " · " + esc(*c.uncertainty) : "");
  for (const auto& id : c.items) {
    const auto* it = items.at(id);
    const std::string eng = engagement_summary(it->engagement);
    out += fmt::format("<li>{} — {}{} · {}{}", link(it->url, it->title), esc(it->source), eng.empty() ? "" : " · " + esc(eng),
                       it->published_at ? core::format_date(*it->published_at) : "undated",
                       it->discussion_url ? " · " + link(*it->discussion_url, "discussion") : "");
    if (!it->snippet.empty()) out += "<div class=\"snip\">" + esc(it->snippet) + "</div>";
    out += "</li>\n";
  }
  out += "</ul>\n";
}

void warnings_section(std::string& out, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  out += "<h2>Warnings</h2><ul>\n";
  for (const auto& w : warnings) out += "<li>" + esc(w) + "</li>\n";
  out += "</ul>\n";
}

}  // namespace

std::string research_html(const model::Report& r) {
  std::string out = page_head(r.topic);
  out += fmt::format("<h1>last30days: {}</h1>\n<p class=\"meta\">{} → {} ({} days) · depth {} · generated {} · {} items in {} stories</p>\n",
                     esc(r.topic), core::format_date(r.window.from), core::format_date(r.window.to), r.window.days,
                     model::to_string(r.depth), core::format_iso8601(r.generated_at), r.items.size(), r.clusters.size());
  out += "<table><tr><th>source</th><th>state</th><th>items</th><th>note</th></tr>\n";
  for (const auto& [id, st] : r.source_status)
    out += fmt::format("<tr><td>{}</td><td{}>{}</td><td>{}</td><td>{}</td></tr>\n", esc(id),
                       model::is_degraded(st.state) ? " class=\"bad\"" : "", model::to_string(st.state), st.items, esc(st.reason));
  out += "</table>\n";
  if (!model::any_answered(r.source_status))
    out += "<p><strong>No source could be asked</strong>, so there is nothing to report.</p>\n";
  else if (r.outcome == model::Outcome::nothing_solid)
    out += "<p><strong>Nothing solid</strong> about this topic in the window.</p>\n";
  const auto items = index_items(r);
  for (std::size_t k = 0; k < r.clusters.size(); ++k) html_story(out, "h2", k + 1, r.clusters[k], items);
  warnings_section(out, r.warnings);
  out += "</body></html>\n";
  return out;
}

std::string comparison_html(const model::Comparison& c) {
  std::string out = page_head(c.topic);
  out += fmt::format("<h1>last30days: {}</h1>\n<p class=\"meta\">comparison of {} · {} → {} ({} days) · depth {} · generated {}</p>\n",
                     esc(c.topic), c.entities.size(), core::format_date(c.window.from), core::format_date(c.window.to),
                     c.window.days, model::to_string(c.depth), core::format_iso8601(c.generated_at));
  out += "<table><tr><th></th>";
  for (const auto& e : c.entities) out += "<th>" + esc(e.name) + "</th>";
  out += "</tr>\n";
  for (const auto& row : comparison_table(c)) {
    out += "<tr><th>" + esc(row.label) + "</th>";
    for (const auto& cell : row.cells)
      out += fmt::format("<td{}{}>{}</td>", cell.degraded ? " class=\"bad\"" : "",
                         cell.note.empty() ? "" : " title=\"" + esc(cell.note) + "\"", esc(cell.text));
    out += "</tr>\n";
  }
  out += "</table>\n";
  for (std::size_t k = 0; k < c.entities.size(); ++k) {
    const auto& r = c.entities[k].report;
    out += "<h2>" + esc(c.entities[k].name) + "</h2>\n";
    if (!model::any_answered(r.source_status)) out += "<p><strong>No source could be asked.</strong></p>\n";
    else if (r.outcome == model::Outcome::nothing_solid) out += "<p><strong>Nothing solid</strong> in the window.</p>\n";
    const auto items = index_items(r);
    const auto own = c.own_stories(k);
    for (std::size_t m = 0; m < own.size(); ++m) html_story(out, "h3", m + 1, *own[m], items);
  }
  if (!c.shared.empty()) {
    out += "<h2>Shared stories</h2><ul>\n";
    for (const auto& s : c.shared) {
      std::string names;
      for (const auto& n : s.entities) names += (names.empty() ? "" : ", ") + n;
      out += "<li>" + link(s.url, s.title) + " — " + esc(names) + "</li>\n";
    }
    out += "</ul>\n";
  }
  warnings_section(out, c.warnings);
  out += "</body></html>\n";
  return out;
}

}  // namespace render
