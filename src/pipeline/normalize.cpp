#include <algorithm>
#include <cmath>

#include "core/text.hpp"
#include "core/url.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {
constexpr std::size_t kSnippetBytes = 400;
constexpr std::size_t kTitleBytes = 300;
}  // namespace

void normalize(Corpus& c) {
  c.features.resize(c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    auto& f = c.features[i];
    it.title = core::truncate_utf8(core::collapse_whitespace(core::sanitize_utf8(it.title)), kTitleBytes);
    it.snippet = core::truncate_utf8(core::collapse_whitespace(core::sanitize_utf8(it.snippet)), kSnippetBytes);
    if (it.author) {
      *it.author = core::sanitize_utf8(core::trim(*it.author));
      if (it.author->empty() || *it.author == "[deleted]") it.author.reset();
    }
    if (it.container) *it.container = core::sanitize_utf8(*it.container);
    it.url = core::strip_tracking(core::sanitize_utf8(core::trim(it.url)));
    // Non-finite or absurd counts are upstream noise, not engagement.
    std::erase_if(it.engagement, [](const model::Engagement& e) { return !std::isfinite(e.value) || std::fabs(e.value) > 1e12; });
    f.canonical_url = core::canonical_url(it.url);
    f.folded_title = core::casefold(it.title);
    f.folded_snippet = core::casefold(it.snippet);
    f.title = token_set(it.title, c.dict);
    const auto snippet_tokens = token_set(it.snippet, c.dict);
    f.text.reserve(f.title.size() + snippet_tokens.size());
    std::set_union(f.title.begin(), f.title.end(), snippet_tokens.begin(), snippet_tokens.end(),
                   std::back_inserter(f.text));
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
