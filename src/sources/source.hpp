#pragma once
// The source interface. A source is one file (src/sources/<id>.cpp) plus its fixtures
// and one line in registry.cpp: the file declares everything else the program needs to
// know about it (its engagement fields, weights and labels, whether it is social, its
// aliases, the planner's weights per intent, what its container means, discovery's domains,
// the names synthesis may use, comments, doctor probe, configuration keys), and the
// pipeline, the briefs, discovery and synthesis read those declarations through the
// registry. registry_test.cpp checks that every registered source also has fixtures, a
// hostile-table run, a README row and a fake of its hosts, and that its declarations name
// what their readers know.
// The base helpers (common.hpp) own HTTP classification and the state vocabulary; a
// source only builds URLs and parses answers.
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "http/types.hpp"
#include "model/item.hpp"
#include "model/report.hpp"

namespace sources {

// HTTP as a source sees it. Production wraps http::Client; tests serve fixtures.
// Thread-safe: get() may be called from several threads.
class Fetcher {
 public:
  Fetcher() : session_(new_session()) {}
  // A Fetcher in an existing session (0 = a new one): discovery's sub-runs share their
  // discovery's, so they log in once between them.
  explicit Fetcher(std::uint64_t session) : session_(session ? session : new_session()) {}
  virtual ~Fetcher() = default;
  virtual http::Response get(const http::Request& request) = 0;
  // True under --replay: only recorded HTTP answers exist, so a source must not reach
  // the network any other way (a subprocess such as yt-dlp).
  virtual bool replaying() const { return false; }

  // Unique per Fetcher: what a source may keep between requests of one session (an OAuth
  // token shared by a run's searches and comments, or a comparison's entities) is keyed by it.
  std::uint64_t session() const { return session_; }

  static std::uint64_t new_session() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }

 private:
  std::uint64_t session_;
};

// Everything a source may touch during a run. Read-only apart from the network.
struct Env {
  const core::Config& config;
  Fetcher& http;
  core::Deadline deadline;  // the source's own deadline (already capped by the run's)
  std::stop_token stop;
};

struct Query {
  std::vector<model::SubQuery> sub_queries;  // 1..5, first is the main one
  model::Window window;
  model::Depth depth = model::Depth::standard;
  int limit = 25;             // items wanted per sub-query
  core::UnixSeconds now = 0;  // the run's clock (the recording's under --replay); 0 = wall clock
};

// Discovery listings: "what is hot now" without a topic.
struct ListingQuery {
  model::Window window;
  std::string domain;                     // "" = global
  std::vector<std::string> domain_terms;  // search terms for a domain run
  std::vector<std::string> communities;   // the source's communities of the domain (Source::domains): listed instead of searched
  int limit = 30;
  core::UnixSeconds now = 0;  // as in Query
};

// Comments are an optional capability: a source whose platform has discussion threads
// implements comments() for the run's best items (after ranking).
struct CommentQuery {
  std::vector<std::string> items;  // ids of items this source found ("hackernews:123"), best first
  int per_item = 3;                // comments wanted per item
};
struct Thread {
  std::vector<model::Comment> comments;  // most engaged top-level first, at most per_item;
                                         // deleted, removed, bot and empty ones skipped
  std::optional<std::string> failure;    // why the thread could not be read
};

// How a brief prints an engagement figure.
enum class Shown { count, percent, dollars };  // 812 · 93% (a 0..1 ratio) · $1.2M

// One engagement field a source reports (model::Engagement::field): how the ranking weighs
// it and how a brief shows it.
struct EngagementField {
  std::string_view field;
  std::string_view label;  // what a brief calls it: "comments"
  double weight = 0;       // in the engagement score (per-field weighted log1p); 0 = shown only
  double typical = 0;      // a solidly engaged item's value: the normalization never goes below it
  Shown shown = Shown::count;
  bool reaction = true;  // counts in comparable engagement (ratios, odds and passive views do not)
};

// How a brief attributes a quoted comment that has no author, or a score.
struct CommentWords {
  std::string_view nobody = "a deleted account";
  std::string_view score_one = "point";
  std::string_view score_many = "points";
};

// How the planner weighs a source for a topic of one intent (pipeline::plan_intents():
// "howto", "prediction"...); an intent the source does not name weighs it 1.
struct IntentWeight {
  std::string_view intent;
  double weight = 1;
};

// What the platform's container (model::Item::container) means when it says which "Rust"
// an item is about (a subreddit, a GitHub issue's repository): the ranking's context.
struct Container {
  std::string_view prefix;  // how the platform writes it, not a word of it: "r/"
  std::string_view why;     // what a ranking's why line calls it: "repo " ("" when it says so itself: r/rust)
};

// Discovery: a domain (discover/domains.cpp's first names: "tech", "news"...) the source's
// listing is wholly about (every item of it belongs), or the communities of the platform
// that are the domain (subreddits, matched against an item's container without its prefix).
struct DomainListing {
  std::string_view domain;
  bool whole = false;
  std::vector<std::string_view> communities;  // listed instead of searched
};

struct SourceResult {
  model::SourceState state = model::SourceState::ok;
  std::string reason;
  std::vector<model::Item> items;  // Item::hits filled: sub-query index and rank
  int requests = 0;
};

class Source {
 public:
  virtual ~Source() = default;
  virtual std::string_view id() const = 0;
  virtual std::string_view name() const = 0;  // "Hacker News"
  // Other names a user may give it (--sources hn).
  virtual std::vector<std::string_view> aliases() const { return {}; }
  // The hosts its requests go to, as its URLs name them (not a host an answer names, such
  // as a Bluesky account's PDS, nor a user's own instance). The fake internets of the tests
  // and the eval must answer each: registry_test.cpp and eval_test.cpp check.
  virtual std::vector<std::string_view> hosts() const = 0;
  // The engagement fields its items carry, each once; empty for a source with no signal
  // (arXiv), which the ranking counts as modestly engaged.
  virtual std::span<const EngagementField> engagement() const = 0;
  // A social site: votes arrive within a day or two (a young item's counts are projected),
  // and known-zero engagement means nobody cared (the text must carry the item).
  virtual bool social() const { return false; }
  // Engagement in units comparable across platforms (discovery's velocity, a comparison's
  // totals). Default: the sum of its reaction fields, each count one.
  virtual double comparable_engagement(const std::vector<model::Engagement>& engagement) const;
  virtual CommentWords comment_words() const { return {}; }
  // The planner's weights for this source by intent; none = weighed 1 whatever the intent.
  virtual std::span<const IntentWeight> intent_weights() const { return {}; }
  // Its container as context (nullopt: only where the item was filed, not what it means).
  virtual std::optional<Container> context_container() const { return std::nullopt; }
  // What a ranking's why line calls one of its tags.
  virtual std::string_view tag_word() const { return "tag "; }
  // Whether its titles open with "<container>: " (GitHub's "owner/repo: description"), the
  // part discovery reads past to name a topic.
  virtual bool title_opens_with_container() const { return false; }
  // Discovery's domains this source's listing is, or holds communities of.
  virtual std::span<const DomainListing> domains() const { return {}; }
  // The words a model's summary may use for it ("Hacker News HN"): synthesis's check that a
  // sentence's words come from its evidence counts them as the evidence's. Default: name().
  virtual std::string_view spoken_names() const { return name(); }
  // Why the source cannot run with this configuration (missing credentials), or nullopt.
  virtual std::optional<std::string> unconfigured(const core::Config&) const { return std::nullopt; }
  // Called on a worker thread. Must not throw for upstream problems: report a state.
  virtual SourceResult search(const Query& query, Env& env) const = 0;
  // Discovery nominations. Default: this source has no listing.
  virtual bool has_listing() const { return false; }
  virtual SourceResult listing(const ListingQuery&, Env&) const {
    return {model::SourceState::skipped_unconfigured, "no listing", {}, 0};
  }
  // Comments. Called on a worker thread; returns one Thread per query item, in order, and
  // must not throw for upstream problems. Default: this source has no comments.
  virtual bool has_comments() const { return false; }
  virtual std::vector<Thread> comments(const CommentQuery& q, Env&) const { return std::vector<Thread>(q.items.size()); }
  // `doctor`: the cheapest request that shows whether the source works with this
  // configuration. Default: a one-item search over the last week.
  virtual SourceResult probe(Env& env, core::UnixSeconds now) const;
  // `doctor`: what to tell the user after a probe ended in `state` — how to enable the
  // source, fix its credentials, or lift a keyless limit ("" = nothing source-specific).
  // `env_file` is where credentials go. Never includes a configured value.
  virtual std::string advice(model::SourceState, const core::Config&, std::string_view /*env_file*/) const { return {}; }
  // What one request (the unit of LAST30DAYS_BUDGET_<SOURCE>) costs in the platform's own
  // quota with this configuration, for doctor and watch list ("" = nothing to add).
  virtual std::string request_cost(const core::Config&) const { return {}; }
  // Configuration keys the source reads; `doctor` says whether each is set, never its value.
  virtual std::vector<std::string_view> config_keys() const { return {}; }
};

// The registry: every source, in display order.
const std::vector<const Source*>& all();
const Source* find(std::string_view id_or_alias);  // accepts aliases "hn", "so"
const Source* by_id(std::string_view id);          // the exact id only: the pipeline's lookups
// The key of a source's daily request budget: LAST30DAYS_BUDGET_YOUTUBE.
std::string budget_key(std::string_view id);

// An item's source's declaration of one of its fields; for a source that does not declare
// it (or an unknown source), the first source's that does; nullptr when none does.
const EngagementField* engagement_field(std::string_view source, std::string_view field);
// Source::comparable_engagement of `source`; for an unknown source, the default rule.
double comparable_engagement(std::string_view source, const std::vector<model::Engagement>& engagement);
// The declaration of `source`'s domain, nullptr when it declares none.
const DomainListing* domain_listing(std::string_view source, std::string_view domain);
// The first value of `field`, 0 without one.
double engagement_value(const std::vector<model::Engagement>& engagement, std::string_view field);

}  // namespace sources
