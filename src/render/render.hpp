#pragma once
// Renderers read a finished report and nothing else: no HTTP, no sources.
#include <map>
#include <string>

#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/memory.hpp"
#include "model/report.hpp"

namespace render {

// Stories a brief shows unless told otherwise (--limit); the rest are counted.
constexpr std::size_t kDefaultStories = 12;

std::string research_json(const model::Report& r);
std::string research_compact(const model::Report& r, std::size_t stories = kDefaultStories);
std::string research_markdown(const model::Report& r, std::size_t stories = kDefaultStories);
std::string research_html(const model::Report& r, std::size_t stories = kDefaultStories);

std::string comparison_json(const model::Comparison& c);
std::string comparison_compact(const model::Comparison& c);
std::string comparison_markdown(const model::Comparison& c);
std::string comparison_html(const model::Comparison& c);

// What every brief says about its sources, in the same words in every format.
// The sources that are not set up, in report order ("bluesky, x, youtube, web"), or "".
std::string not_set_up(const std::map<std::string, model::SourceStatus>& status);
// "not set up: bluesky, x — see `last30days doctor`", or "" when every source is set up.
std::string not_set_up_line(const std::map<std::string, model::SourceStatus>& status);
// A source that did not end ok and is set up, with why: the states a brief names.
bool needs_reason(const model::SourceStatus& st);
// "timed out", "refused (rate-limited)", "unreachable" ...: what happened, in words.
std::string state_words(model::SourceState s);
// When no source answered: "No source answered: hackernews timed out, reddit unreachable."
// (or that none is set up for this search); "" when one did.
std::string no_answer_line(const std::map<std::string, model::SourceStatus>& status);
// "1 item in 1 story", "12 items in 3 stories".
std::string count_phrase(std::size_t items, std::size_t stories);
// "9 more stories (--limit 21 shows them all)", or "" when every story is shown.
std::string more_line(std::size_t total, std::size_t shown);

// One compared entity in figures: the side-by-side table and the comparison JSON's "summary".
struct EntitySummary {
  std::size_t items = 0;
  std::size_t stories = 0;
  double engagement = 0;  // sources::comparable_engagement over every item and sighting
  std::map<std::string, double> engagement_by_source;
};
EntitySummary summarize(const model::Report& r);
// The side-by-side table below the names: stories, items, engagement, then one row per
// source with its item count, or its state when it did not answer fully.
struct TableCell {
  std::string text;
  bool degraded = false;
  std::string note;  // the source's reason
};
struct TableRow {
  std::string label;
  std::vector<TableCell> cells;  // one per entity
};
std::vector<TableRow> comparison_table(const model::Comparison& c);
// How many of an entity's own (not shared) stories a text comparison shows.
constexpr std::size_t kStoriesPerEntity = 5;

std::string discovery_json(const model::DiscoveryReport& r);
std::string discovery_compact(const model::DiscoveryReport& r);
std::string discovery_markdown(const model::DiscoveryReport& r);
std::string nominations_compact(const std::string& bundle_id, const std::vector<model::Topic>& topics, const std::string& path);

// Who said it and how it was received: "dpercy, 17 points", "an answer, 12 votes",
// "silbak04, 14 replies" (Hacker News hides comment points).
std::string quote_attribution(const model::Comment& c, std::string_view source);
// Why some of a source's threads have no quotes ("comments unavailable for 1 of 3
// threads: unreachable: HTTP 503 from upstream"), or "" when every thread was read.
std::string comments_note(const model::SourceStatus& st);
// Quotes shown under an item in the briefs, and the room each gets.
constexpr std::size_t kQuotesPerItem = 2;
constexpr std::size_t kQuoteBytes = 220;

// Shared by the text renderers.
// "812 points · 411 comments", in the words `source` declares for its fields.
std::string engagement_summary(std::string_view source, const std::vector<model::Engagement>& engagement);
std::string human_number(double v);  // 1234 -> "1.2k"
// With --store: "new" or "seen 3 runs ago" for an item, "" without the store.
std::string seen_label(const model::Item& it);
// With --store: "first run of this topic" or "2 runs before, the last at 2026-11-29T10:00:00Z".
std::string history_summary(const model::Report& r);

// "What happened" (--summarize): the verified sentences with [n] citations, the cost in
// tokens, and how many sentences the citation check dropped and why.
std::string synthesis_compact(const model::Synthesis& s);
std::string synthesis_markdown(const model::Synthesis& s, std::string_view level = "##");
std::string synthesis_html(const model::Synthesis& s);
std::string synthesis_dropped(const model::Synthesis& s);  // "" when none was dropped

// The memory commands (spec §7).
std::string library_json(const model::LibraryResult& r);
std::string library_compact(const model::LibraryResult& r);
std::string library_markdown(const model::LibraryResult& r);
std::string library_topics_json(const std::vector<model::TopicSummary>& topics);
std::string library_topics_compact(const std::vector<model::TopicSummary>& topics);
std::string library_topics_markdown(const std::vector<model::TopicSummary>& topics);
std::string watchlist_json(const std::vector<model::WatchEntry>& list, const std::vector<model::ChannelStatus>& channels = {},
                           core::UnixSeconds now = 0, const std::vector<model::BudgetStatus>& budgets = {});
std::string watchlist_compact(const std::vector<model::WatchEntry>& list, core::UnixSeconds now,
                              const std::vector<model::ChannelStatus>& channels = {},
                              const std::vector<model::BudgetStatus>& budgets = {});
// Request budgets (doctor, watch list): a heading, then one line a source (its limit, which
// setting holds, today's spend) with what a request costs upstream under it. md: a list.
std::string budgets_text(const std::vector<model::BudgetStatus>& budgets, bool md = false);
std::string watch_json(const model::WatchReport& r);
std::string watch_compact(const model::WatchReport& r);
std::string watch_markdown(const model::WatchReport& r);

}  // namespace render
