#include <algorithm>
#include <cmath>

#include "core/fold.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "pipeline/stages.hpp"

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
  std::string_view container;
  if (it.container && (it.source == "reddit" || it.source == "github") && !it.title.starts_with(*it.container)) {
    container = *it.container;
    if (container.substr(0, 2) == "r/") container.remove_prefix(2);
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

}  // namespace

void normalize(Corpus& c) {
  c.features.resize(c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    auto& f = c.features[i];
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
    f.title_words = match_sequence(it.title, c.dict, &f.title_case_free);
    f.facts = title_facts(f.title_words, c.dict);
    f.snippet_words = match_sequence(it.snippet, c.dict, &f.snippet_case_free);
    add_context(it, c.dict, f);
    f.title = title_tokens(f.title_words, c.dict);
    intern_pairs(f.snippet_words, c.dict);
    f.has_engagement_data = !it.engagement.empty();
  }
}

int window_filter(Corpus& c, const model::Window& w) {
  std::vector<bool> drop(c.items.size(), false);
  int dropped = 0;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& t = c.items[i].published_at;
    if (t && !w.contains(*t)) {
      drop[i] = true;
      ++dropped;
    }
  }
  erase_items(c, drop);
  return dropped;
}

}  // namespace pipeline
