#pragma once
// The one item schema every source normalizes into (spec §5, "items").
// Conventions: absent data is empty/nullopt, never a made-up value; timestamps are
// UTC unix seconds; engagement holds only the fields the platform reported.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.hpp"

namespace model {

struct Engagement {
  std::string field;  // "points", "num_comments", "score", "stars", "volume"...
  double value = 0;
};

struct Scores {
  double relevance = 0;   // 0..1
  double freshness = 0;   // 0..100
  double engagement = 0;  // 0..100
  double final = 0;       // 0..100
};

// A top-level comment (on Stack Exchange: an answer) quoted from an item's discussion.
struct Comment {
  std::optional<std::string> author;  // absent when the account is gone
  std::string text;                   // plain text, whitespace collapsed
  std::optional<double> score;        // points or votes; absent where hidden (Hacker News)
  std::optional<std::string> url;     // the comment itself
  std::optional<int> replies;         // replies below it, where the platform shows them
};

struct Sighting {  // a folded duplicate or cross-post, with its own evidence
  std::string source;
  std::string url;
  std::string title;
  std::optional<std::string> discussion_url;
  std::vector<Engagement> engagement;
  std::string id{};                 // the folded item's id
  std::vector<Comment> comments{};  // its own discussion's, when read (pipeline/comments)
};

struct Item {
  std::string id;      // "<source>:<native id>", unique within a report
  std::string source;  // source id
  std::string title;
  std::string url;                            // what the item is about (article, repo, market)
  std::optional<std::string> discussion_url;  // the thread, when it differs from url
  std::optional<std::string> author;
  std::optional<std::string> container;  // subreddit, repository, site, tag
  std::vector<std::string> tags;         // the platform's own labels: Stack Exchange tags, repository topics, Lobsters tags
  std::optional<core::UnixSeconds> published_at;
  std::vector<Engagement> engagement;
  std::string snippet;
  Scores scores;
  std::string cluster;
  std::vector<Sighting> also_seen;
  // With --store: 0 = new to this topic; N = first seen N runs of this topic ago.
  std::optional<int> seen_before;
  std::vector<Comment> comments;  // the best items only, most engaged first (pipeline/comments)
  std::string why;  // why it ranks where it does, in a few words ("phrase match in title; r/playrust context; 2 days old")

  // Pipeline bookkeeping: which (source, sub-query) streams found it, and where.
  // Folded duplicates bring their own hits along, so fusion sees cross-source agreement.
  struct Hit {
    int subquery = 0;
    int rank = 0;        // 0-based position in that stream
    std::string source;  // the stream's source (empty = the item's own)
  };
  std::vector<Hit> hits;

  double engagement_value(std::string_view field) const {
    for (const auto& e : engagement)
      if (e.field == field) return e.value;
    return 0;
  }
  bool dated() const { return published_at.has_value(); }
  double engagement_total() const {
    double s = 0;
    for (const auto& e : engagement) s += e.value;
    return s;
  }
};

}  // namespace model
