// One self-contained page (a research brief or a comparison): inline CSS and SVG, no script, no external request of any
// kind (a CSP says so to the browser too), every upstream string escaped for where it
// lands, and only http(s) URLs become links (both rules: render/escape.hpp, html::). Light and dark themes; readable from
// phone width up.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/text.hpp"
#include "render/escape.hpp"
#include "render/render.hpp"

namespace render {

namespace {

constexpr std::string_view kStyle = R"CSS(
:root{--bg:#fcfcfb;--fg:#1d1f21;--muted:#5f6368;--line:#e3e3e0;--card:#ffffff;--link:#1a5fb4;
--ok:#1e7b34;--warn:#a35c00;--bad:#b3261e;--plain:#5f6368;
--c0:#1a73e8;--c1:#e8710a;--c2:#188038;--c3:#d93025;--c4:#9334e6;--c5:#12b5cb;--c6:#b06000;--c7:#e52592;--c8:#5f6368;--c9:#7cb342;--c10:#3949ab;--c11:#00897b}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e6e3;--muted:#a0a4a8;--line:#30343a;--card:#1d2024;--link:#8ab4f8;
--ok:#81c995;--warn:#fdd663;--bad:#f28b82;--plain:#a0a4a8;
--c0:#8ab4f8;--c1:#fcad70;--c2:#81c995;--c3:#f28b82;--c4:#c58af9;--c5:#78d9ec;--c6:#fdd663;--c7:#ff8bcb;--c8:#bdc1c6;--c9:#aed581;--c10:#9fa8da;--c11:#80cbc4}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
main{max-width:62rem;margin:0 auto;padding:1rem}
a{color:var(--link)}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 .25rem}
h2{font-size:1.1rem;margin:0 0 .25rem}
.meta{color:var(--muted);font-size:.875rem;margin:.25rem 0}
section{margin:1.25rem 0}
.badges{display:flex;flex-wrap:wrap;gap:.4rem;padding:0;margin:.75rem 0;list-style:none}
.badge{border:1px solid var(--line);border-radius:999px;padding:.1rem .6rem;font-size:.8rem;background:var(--card)}
.badge b{font-weight:600}.badge.ok b{color:var(--ok)}.badge.plain b{color:var(--plain)}.badge.warn b{color:var(--warn)}.badge.bad b{color:var(--bad)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:1rem}
figure{margin:0;background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem}
figcaption{font-weight:600;font-size:.9rem;margin-bottom:.5rem}
svg.timeline{width:100%;height:auto;display:block}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:.75rem}
.legend{display:flex;flex-wrap:wrap;gap:.2rem .8rem;font-size:.8rem;margin-top:.4rem;padding:0;list-style:none}
.sw{display:inline-block;width:.7rem;height:.7rem;border-radius:2px;margin-right:.3rem;vertical-align:-.05rem}
.bars{display:grid;grid-template-columns:minmax(5.5rem,auto) 1fr auto;gap:.35rem .5rem;align-items:center;font-size:.85rem}
.bar{height:.8rem;border-radius:2px;min-width:2px}
.num{color:var(--muted);font-variant-numeric:tabular-nums;text-align:right}
article{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;margin:.75rem 0}
article ul{margin:.5rem 0 0;padding-left:1.1rem}
article li{margin:.45rem 0}
.snip{color:var(--muted);font-size:.875rem;margin-top:.15rem}
.also{font-size:.85rem;color:var(--muted)}
.flag{font-size:.75rem;border:1px solid var(--line);border-radius:.25rem;padding:0 .3rem;color:var(--warn)}
.warnings li{color:var(--warn)}
.notice{border-left:3px solid var(--warn);padding:.25rem .75rem}
footer{color:var(--muted);font-size:.8rem;margin:2rem 0 1rem}
h3{font-size:1rem;margin:0 0 .25rem}
.entity{border-top:2px solid var(--line);padding-top:.5rem}
.scroll{overflow-x:auto}
.synthesis{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem}
.synthesis ul{margin:.25rem 0;padding-left:1.1rem}.synthesis sup a{text-decoration:none;margin-left:.1rem}
table.compare{border-collapse:collapse;font-size:.875rem;background:var(--card)}
.compare th,.compare td{border:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top;overflow-wrap:normal;word-break:normal}
.compare td.bad{color:var(--bad)}
blockquote{margin:.3rem 0 .3rem .25rem;padding-left:.6rem;border-left:3px solid var(--line);font-size:.9rem}
@media (max-width:30rem){main{padding:.6rem}h1{font-size:1.25rem}article{padding:.6rem .7rem}}
)CSS";

using ItemIndex = std::unordered_map<std::string, const model::Item*>;

ItemIndex index_items(const model::Report& r) {
  ItemIndex items;
  for (const auto& it : r.items) items[it.id] = &it;
  return items;
}

// The page's head, up to and including <main>.
std::string page_head(std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "form-action 'none'; base-uri 'none'\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n"
      "<meta name=\"color-scheme\" content=\"light dark\">\n";
  out += fmt::format("<title>last30days: {}</title>\n<style>{}</style>\n</head><body><main>\n", html::text(title), kStyle);
  return out;
}

std::string page_end() {
  return fmt::format("<footer>last30days {} · every link goes to the platform it came from</footer>\n</main></body></html>\n",
                     L30_VERSION);
}

void warnings_section(std::string& out, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  out += "<section class=\"warnings\">\n<h2>Warnings</h2>\n<ul>\n";
  for (const auto& w : warnings) out += "<li>" + html::text(w) + "</li>\n";
  out += "</ul>\n</section>\n";
}

std::string tone(model::SourceState s) {
  switch (s) {
    case model::SourceState::ok: return "ok";
    case model::SourceState::no_results:
    case model::SourceState::skipped_unconfigured: return "plain";
    case model::SourceState::partial:
    case model::SourceState::rate_limited:
    case model::SourceState::timeout: return "warn";
    default: return "bad";
  }
}

// A colour per source, stable within the page (the report's sources in order).
class Palette {
 public:
  explicit Palette(const model::Report& r) {
    int k = 0;
    for (const auto& [id, st] : r.source_status) index_[id] = k++ % 12;
  }
  std::string var(const std::string& source) const {
    auto it = index_.find(source);
    return fmt::format("var(--c{})", it == index_.end() ? 8 : it->second);
  }

 private:
  std::map<std::string, int> index_;
};

std::string badges(const model::Report& r) {
  std::string out = "<ul class=\"badges\" aria-label=\"sources\">\n";
  for (const auto& [id, st] : r.source_status) {
    if (st.state == model::SourceState::skipped_unconfigured) continue;  // on the "not set up" line
    const std::string state(model::to_string(st.state));
    const std::string note = comments_note(st);
    const std::string title =
        st.reason.empty() && note.empty() ? state : st.reason + (st.reason.empty() || note.empty() ? "" : "; ") + note;
    out += fmt::format("<li class=\"badge {}\" title=\"{}\">{} <b>{}</b> · {}</li>\n", tone(st.state), html::text(title),
                       html::text(id), html::text(state), st.items);
  }
  out += "</ul>\n";
  if (const auto ids = not_set_up(r.source_status); !ids.empty())
    out += "<p class=\"meta\">not set up: " + html::text(ids) + " \u2014 see <code>last30days doctor</code></p>\n";
  // Every source that did not answer fully says why in the page itself, not only in a tooltip.
  std::string reasons;
  for (const auto& [id, st] : r.source_status)
    if (needs_reason(st) && !st.reason.empty())
      reasons += fmt::format("<li>{}: {} \u2014 {}</li>\n", html::text(id), html::text(model::to_string(st.state)),
                             html::text(st.reason));
  if (!reasons.empty()) out += "<ul class=\"meta\" aria-label=\"source notes\">\n" + reasons + "</ul>\n";
  return out;
}

// Items per day per source, stacked bars over the whole window.
std::string timeline(const model::Report& r, const Palette& pal) {
  const int days = std::max(1, r.window.days + 1);  // both ends inclusive
  std::map<int, std::map<std::string, int>> per_day;
  int undated = 0;
  for (const auto& it : r.items) {
    if (!it.published_at || !r.window.contains(*it.published_at)) {
      ++undated;
      continue;
    }
    const int d = static_cast<int>((*it.published_at - r.window.from) / 86400);
    ++per_day[std::clamp(d, 0, days - 1)][it.source];
  }
  int peak = 1;
  for (const auto& [d, m] : per_day) {
    int sum = 0;
    for (const auto& [s, n] : m) sum += n;
    peak = std::max(peak, sum);
  }
  constexpr double kW = 600, kH = 120;
  const double slot = kW / days;
  const double bar = std::max(1.0, slot * 0.8);
  std::string svg = fmt::format(
      "<svg class=\"timeline\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"items per day per source, {} to {}\">\n"
      "<line x1=\"0\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"var(--line)\" stroke-width=\"1\"/>\n",
      kW, kH + 2, core::format_date(r.window.from), core::format_date(r.window.to), kH + 0.5, kW, kH + 0.5);
  std::set<std::string> seen;
  for (const auto& [d, m] : per_day) {
    double y = kH;
    std::string tip = core::format_date(r.window.from + static_cast<core::UnixSeconds>(d) * 86400) + ":";
    for (const auto& [src, n] : m) tip += fmt::format(" {} {}", src, n);
    svg += "<g><title>" + html::text(tip) + "</title>";
    for (const auto& [src, n] : m) {
      const double h = kH * n / peak;
      y -= h;
      svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>",
                         d * slot + (slot - bar) / 2, y, bar, h, pal.var(src));
      seen.insert(src);
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  std::string out = "<figure>\n<figcaption>Activity: items per day</figcaption>\n" + svg;
  out += fmt::format("<div class=\"axis\"><span>{}</span><span>peak {} a day</span><span>{}</span></div>\n",
                     core::format_date(r.window.from), peak, core::format_date(r.window.to));
  out += "<ul class=\"legend\">";
  for (const auto& s : seen)
    out += fmt::format("<li><span class=\"sw\" style=\"background:{}\"></span>{}</li>", pal.var(s), html::text(s));
  out += "</ul>\n";
  if (per_day.empty()) out += "<p class=\"meta\">No dated items in the window.</p>\n";
  if (undated > 0) out += fmt::format("<p class=\"meta\">{} undated item{} not shown.</p>\n", undated, undated == 1 ? "" : "s");
  return out + "</figure>\n";
}

// Counts people make (points, comments, stars, views...); ratios and money are not
// added to them, money is shown apart.
bool is_ratio(std::string_view f) { return f == "upvote_ratio" || f == "odds"; }
bool is_money(std::string_view f) { return f.find("volume") != std::string_view::npos || f == "liquidity"; }

std::string engagement_chart(const model::Report& r, const Palette& pal) {
  std::map<std::string, double> counts, money;
  auto add = [&](const std::string& src, const std::vector<model::Engagement>& eng) {
    for (const auto& e : eng) {
      if (is_ratio(e.field) || !std::isfinite(e.value) || e.value <= 0) continue;
      (is_money(e.field) ? money : counts)[src] += e.value;
    }
  };
  for (const auto& it : r.items) {
    add(it.source, it.engagement);
    for (const auto& s : it.also_seen) add(s.source, s.engagement);
  }
  std::set<std::string> sources;
  for (const auto& [s, v] : counts) sources.insert(s);
  for (const auto& [s, v] : money) sources.insert(s);
  std::string out = "<figure>\n<figcaption>Engagement by source</figcaption>\n";
  if (sources.empty()) return out + "<p class=\"meta\">No engagement reported.</p>\n</figure>\n";
  // Log scale: a 20k-point story and a 12-answer question both stay visible.
  double top = 1;
  for (const auto& [s, v] : counts) top = std::max(top, std::log10(1 + v));
  for (const auto& [s, v] : money) top = std::max(top, std::log10(1 + v));
  out += "<div class=\"bars\">\n";
  for (const auto& s : sources) {
    const double v = counts.count(s) ? counts[s] : money[s];
    const bool dollars = !counts.count(s);
    out += fmt::format(
        "<span>{}</span><span class=\"bar\" style=\"width:{:.1f}%;background:{}\"></span><span class=\"num\">{}{}</span>\n",
        html::text(s), 100.0 * std::log10(1 + v) / top, pal.var(s), dollars ? "$" : "", html::text(human_number(v)));
  }
  out +=
      "</div>\n<p class=\"meta\">Points, comments, stars, answers and views per source (log scale); money on a market in "
      "dollars.</p>\n";
  return out + "</figure>\n";
}

// What people said in one thread: one or two quotes, each linked to its comment.
void quotes(std::string& out, const std::vector<model::Comment>& comments, const std::string& source) {
  for (std::size_t q = 0; q < comments.size() && q < kQuotesPerItem; ++q) {
    const auto& c = comments[q];
    const std::string who = quote_attribution(c, source);
    out += fmt::format("<blockquote>\u201c{}\u201d <span class=\"meta\">\u2014 {}</span></blockquote>",
                       html::text(core::excerpt(c.text, kQuoteBytes)), c.url ? html::link(*c.url, who) : html::text(who));
  }
}

std::string item_html(const model::Item& it) {
  std::string out = "<li>" + html::link(it.url, it.title);
  std::string meta = html::text(it.source);
  if (it.container) meta += " · " + html::text(*it.container);
  if (it.author) meta += " · by " + html::text(*it.author);
  const std::string eng = engagement_summary(it.source, it.engagement);
  if (!eng.empty()) meta += " · " + html::text(eng);
  meta += " · " + (it.published_at ? core::format_date(*it.published_at) : std::string("undated"));
  if (const auto seen = seen_label(it); !seen.empty()) meta += " · <em>" + html::text(seen) + "</em>";
  out += "<div class=\"meta\">" + meta;
  if (it.discussion_url) out += " · " + html::link(*it.discussion_url, "discussion");
  out += "</div>";
  quotes(out, it.comments, it.source);
  for (const auto& s : it.also_seen) {
    const std::string se = engagement_summary(s.source, s.engagement);
    out += "<div class=\"also\">also on " + html::text(s.source) + (se.empty() ? "" : " · " + html::text(se)) + ": " +
           html::link(s.discussion_url ? *s.discussion_url : s.url, s.title.empty() ? s.url : s.title) + "</div>";
    quotes(out, s.comments, s.source);
  }
  if (!it.snippet.empty()) out += "<div class=\"snip\">" + html::text(core::truncate_utf8(it.snippet, 400)) + "</div>";
  return out + "</li>\n";
}

// One story: its headline under the given heading tag, then every item.
void story(std::string& out, std::string_view tag, std::size_t number, const model::Cluster& c, const ItemIndex& items) {
  std::string srcs;
  for (const auto& s : c.sources) srcs += (srcs.empty() ? "" : ", ") + html::text(s);
  out += fmt::format("<article>\n<{}>{}. {}</{}>\n<p class=\"meta\">score {:.0f} · {}{}</p>\n<ul>\n", tag, number,
                     html::text(c.title), tag, c.score, srcs,
                     c.uncertainty ? " · <span class=\"flag\">" + html::text(*c.uncertainty) + "</span>" : "");
  for (const auto& id : c.items)
    if (auto it = items.find(id); it != items.end()) out += item_html(*it->second);
  out += "</ul>\n</article>\n";
}

std::string nothing_notice(const model::Report& r) {
  if (!model::any_answered(r.source_status))
    return "<p class=\"notice\"><strong>" + html::text(no_answer_line(r.source_status)) +
           "</strong> The page is empty because no source answered, not because nothing happened.</p>\n";
  if (r.outcome == model::Outcome::nothing_solid)
    return fmt::format("<p class=\"notice\"><strong>Nothing solid</strong> about this topic in the window.{}</p>\n",
                       r.items.empty() ? "" : " Closest weak signals below.");
  return {};
}

}  // namespace

std::string research_html(const model::Report& r, std::size_t stories) {
  const Palette pal(r);
  std::string out = page_head(r.topic);
  out += fmt::format("<header>\n<p class=\"meta\">last30days</p>\n<h1>{}</h1>\n", html::text(r.topic));
  out += fmt::format("<p class=\"meta\">{} → {} ({} days) · depth {} · generated {} · {}</p>\n</header>\n",
                     core::format_date(r.window.from), core::format_date(r.window.to), r.window.days, model::to_string(r.depth),
                     core::format_iso8601(r.generated_at), count_phrase(r.items.size(), r.clusters.size()));
  if (const auto h = history_summary(r); !h.empty()) out += "<p class=\"meta\">history: " + html::text(h) + "</p>\n";
  out += badges(r);
  if (r.synthesis) out += synthesis_html(*r.synthesis);
  out += nothing_notice(r);
  out += "<section class=\"charts\">\n" + timeline(r, pal) + engagement_chart(r, pal) + "</section>\n";
  out += "<section aria-label=\"stories\">\n";
  const auto items = index_items(r);
  for (std::size_t k = 0; k < r.clusters.size() && k < stories; ++k) story(out, "h2", k + 1, r.clusters[k], items);
  if (const auto more = more_line(r.clusters.size(), stories); !more.empty())
    out += "<p class=\"meta\">" + html::text(more) + "</p>\n";
  out += "</section>\n";
  warnings_section(out, r.warnings);
  return core::sanitize_utf8(out + page_end());
}

std::string comparison_html(const model::Comparison& c) {
  std::string out = page_head(c.topic);
  out += fmt::format("<header>\n<p class=\"meta\">last30days · comparison of {}</p>\n<h1>{}</h1>\n", c.entities.size(),
                     html::text(c.topic));
  out += fmt::format("<p class=\"meta\">{} → {} ({} days) · depth {} · generated {}</p>\n</header>\n",
                     core::format_date(c.window.from), core::format_date(c.window.to), c.window.days, model::to_string(c.depth),
                     core::format_iso8601(c.generated_at));
  out += "<div class=\"scroll\"><table class=\"compare\"><tr><th></th>";
  for (const auto& e : c.entities) out += "<th>" + html::text(e.name) + "</th>";
  out += "</tr>\n";
  for (const auto& row : comparison_table(c)) {
    out += "<tr><th>" + html::text(row.label) + "</th>";
    for (const auto& cell : row.cells)
      out += fmt::format("<td{}{}>{}</td>", cell.degraded ? " class=\"bad\"" : "",
                         cell.note.empty() ? "" : " title=\"" + html::text(cell.note) + "\"", html::text(cell.text));
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  if (!c.entities.empty())
    if (const auto ids = not_set_up(c.entities.front().report.source_status); !ids.empty())
      out += "<p class=\"meta\">not set up: " + html::text(ids) + " \u2014 see <code>last30days doctor</code></p>\n";
  if (c.synthesis) out += synthesis_html(*c.synthesis);
  if (!c.shared.empty()) {
    out += "<section>\n<h2>Shared stories</h2>\n<ul>\n";
    for (const auto& s : c.shared) {
      std::string names;
      for (const auto& n : s.entities) names += (names.empty() ? "" : ", ") + html::text(n);
      out += "<li>" + html::link(s.url, s.title) + " <span class=\"meta\">" + names + "</span></li>\n";
    }
    out += "</ul>\n</section>\n";
  }
  for (std::size_t k = 0; k < c.entities.size(); ++k) {
    const auto& r = c.entities[k].report;
    const Palette pal(r);
    out += "<section class=\"entity\">\n<h2>" + html::text(c.entities[k].name) + "</h2>\n" + badges(r) + nothing_notice(r);
    out += "<section class=\"charts\">\n" + timeline(r, pal) + engagement_chart(r, pal) + "</section>\n";
    const auto items = index_items(r);
    const auto own = c.own_stories(k);
    for (std::size_t m = 0; m < own.size(); ++m) story(out, "h3", m + 1, *own[m], items);
    out += "</section>\n";
  }
  warnings_section(out, c.warnings);
  return core::sanitize_utf8(out + page_end());
}

}  // namespace render
