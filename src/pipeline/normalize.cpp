#include <algorithm>
#include <cmath>

#include "core/fold.hpp"
#include "core/parallel.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "pipeline/stages.hpp"
#include "sources/source.hpp"

namespace pipeline {

namespace {
constexpr std::size_t kSnippetBytes = 400;
constexpr std::size_t kTitleBytes = 300;
constexpr std::size_t kMaxLabels = 12;

// Where the platform filed the item says which "Rust" or "Rome" it means: the subreddit, the
// repository of a GitHub issue (a repository's name already opens its title), and the
// platform's tags and topics.
void add_context(model::Item& it, TokenDict& dict, Features& f) {
  std::vector<std::pair<std::string_view, std::int8_t>> labels;  // label, origin
  const sources::Source* source = sources::by_id(it.source);
  const auto meaning = source ? source->context_container() : std::nullopt;
  if (it.container && meaning && !it.title.starts_with(*it.container)) {
    std::string_view container = *it.container;
    if (!meaning->prefix.empty() && container.starts_with(meaning->prefix)) container.remove_prefix(meaning->prefix.size());
    labels.emplace_back(container, -1);
  }
  if (it.tags.size() > kMaxLabels) it.tags.resize(kMaxLabels);
  for (std::size_t k = 0; k < it.tags.size(); ++k) {
    auto& tag = it.tags[k];
    tag = core::truncate_utf8(core::collapse_whitespace(core::sanitize_utf8(tag)), 100);
    if (!tag.empty()) labels.emplace_back(tag, static_cast<std::int8_t>(k));
  }
  for (const auto& [label, origin] : labels) {
    auto words = match_sequence(label, dict);
    if (words.empty()) continue;
    std::string whole;
    for (const auto& w : words) whole += dict.text(w.id);
    f.context_labels.push_back(dict.intern(whole));
    f.context_words.push_back(std::move(words));
    f.context_origin.push_back(origin);
  }
}

// "Show HN: X" is X posted to Hacker News: the prefix is the platform's, not the title's
// words, and would keep the post from folding with X posted elsewhere.
std::vector<TokenId> title_tokens(const std::vector<MatchWord>& words, TokenDict& dict) {
  if (words.size() > 2 && dict.text(words[1].id) == "hn" && (words[2].flags & kBreak)) {
    const std::string& kind = dict.text(words[0].id);
    if (kind == "show" || kind == "ask" || kind == "launch" || kind == "tell")
      return token_set(std::vector<MatchWord>(words.begin() + 2, words.end()), dict);
  }
  return token_set(words, dict);
}

constexpr std::size_t kChunkItems = 2048;  // items per dictionary: fewer words to merge than items

void normalize_item(model::Item& it, Features& f, TokenDict& dict) {
  // Most titles and snippets are clean already: then only the cut (and redaction) remains.
  for (auto [text, max] : {std::pair{&it.title, kTitleBytes}, std::pair{&it.snippet, kSnippetBytes}}) {
    if (!core::clean_ascii_line(*text)) *text = core::collapse_whitespace(core::sanitize_utf8(*text));
    *text = core::truncate_utf8(*text, max);
  }
  if (it.author) {
    *it.author = core::sanitize_utf8(core::trim(*it.author));
    if (it.author->empty() || *it.author == "[deleted]") it.author.reset();
  }
  if (it.container) *it.container = core::sanitize_utf8(*it.container);
  it.url = core::strip_tracking(core::sanitize_utf8(core::trim(it.url)));
  // Non-finite or absurd counts are upstream noise, not engagement.
  std::erase_if(it.engagement, [](const model::Engagement& e) { return !std::isfinite(e.value) || std::fabs(e.value) > 1e12; });
  f.canonical_url = core::canonical_url(it.url);
  f.title_words = match_sequence(it.title, dict, &f.title_case_free);
  f.facts = title_facts(f.title_words, dict);
  f.snippet_words = match_sequence(it.snippet, dict, &f.snippet_case_free);
  add_context(it, dict, f);
  f.title = title_tokens(f.title_words, dict);
  intern_pairs(f.snippet_words, dict);
  f.has_engagement_data = !it.engagement.empty();
}

// From a chunk's ids to the run's; the sorted sets are sorted by the run's ids.
void remap(Features& f, const std::vector<TokenId>& to) {
  auto words = [&](std::vector<MatchWord>& ws) {
    for (auto& w : ws) w.id = to[w.id];
  };
  auto set = [&](std::vector<TokenId>& ids) {
    for (auto& id : ids) id = to[id];
    std::sort(ids.begin(), ids.end());
  };
  words(f.title_words);
  words(f.snippet_words);
  for (auto& ws : f.context_words) words(ws);
  for (auto& id : f.context_labels) id = to[id];
  set(f.title);
  set(f.facts.values);
}

}  // namespace

void normalize(Corpus& c) {
  // Items are independent but share the run's dictionary, whose ids must come in first-seen
  // order. So each chunk of items interns into its own dictionary (on core::cpu_threads() threads),
  // then the chunks' words go into the run's dictionary in chunk order, on this thread: a
  // chunk's new words are first seen in its own order, so every id is the one a single pass
  // gives. Then each chunk's ids are mapped (sorted sets sorted again). Chunks are fixed by
  // item count, never by thread count: the result does not depend on the scheduling. (On one
  // thread it is one chunk: one dictionary, then the merge.)
  const std::size_t n = c.items.size();
  c.features.resize(n);
  const std::size_t chunks = (n + kChunkItems - 1) / kChunkItems;
  std::vector<TokenDict> local(chunks);
  const std::size_t threads = core::cpu_threads();  // read once: both passes cut the same chunks
  core::parallel_chunks(n, kChunkItems, threads, [&](std::size_t k, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) normalize_item(c.items[i], c.features[i], local[k]);
  });
  std::vector<std::vector<TokenId>> to_run(chunks);
  for (std::size_t k = 0; k < chunks; ++k) {
    to_run[k].resize(local[k].size());
    for (TokenId id = 0; id < local[k].size(); ++id) to_run[k][id] = c.dict.intern(local[k].text(id));
  }
  core::parallel_chunks(n, kChunkItems, threads, [&](std::size_t k, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) remap(c.features[i], to_run[k]);
  });
}

}  // namespace pipeline
