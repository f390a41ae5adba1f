#pragma once
// The discovery domains people type ("tech", "news", "ai"...) and what selects a listing
// item for each. Their names are generic words, so a domain is a vocabulary, not its own
// words: this table owns it. A domain outside the table is its distinctive words; one
// with none ("latest") is a global run, with a warning.
#include <string>
#include <string_view>
#include <vector>

#include "model/item.hpp"

namespace discover {

struct Domain {
  std::string name;                // as typed, trimmed ("" = global)
  std::string key;                 // the table's first name ("tech" for "Technology"); "" outside the table
  std::vector<std::string> terms;  // words (or "open-source", "machine learning") a selected item carries
  bool global = false;             // nothing distinctive to select on: a global run
};

// Case and spacing do not matter; aliases ("technology", "machine learning") share an entry.
Domain resolve_domain(std::string_view typed);

// Whether a listing item belongs to the domain: a whole listing, one of its communities, or
// one of its terms in the title, container, tags or the start of the text.
bool selects(const Domain& d, const model::Item& item);
// The source's listing is the domain (asked globally, all kept): Source::domains.
bool whole_listing(const Domain& d, std::string_view source);
// The source's communities of the domain (Reddit's subreddits), listed instead of searched.
std::vector<std::string> communities(const Domain& d, std::string_view source);

// The warning for a domain run that had to be global, or nullopt-like empty.
std::string global_fallback_warning(const Domain& d);

}  // namespace discover
