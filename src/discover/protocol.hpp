#pragma once
// The host-judged protocol (spec §2, issue #3): three legs that talk through files.
//   --nominate-only        writes discover-nominations.json (a bundle of 15 nominations)
//   --judgments FILE       reads the host's judgments, enriches, writes discover-pending.json
//   --finalize --angles F  applies the host's angles offline and renders
// Bundles expire after an hour; a judgment or angle file must name the bundle it is for.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/discovery.hpp"

namespace discover {

constexpr core::UnixSeconds kBundleTtlSeconds = 3600;
constexpr core::UnixSeconds kClockSkewSeconds = 300;  // how far ahead a bundle's clocks may be
constexpr std::size_t kMaxJudgedName = 96;
constexpr std::size_t kMaxAngle = 200;
constexpr std::string_view kNominationsFile = "discover-nominations.json";
constexpr std::string_view kPendingFile = "discover-pending.json";

struct Bundle {
  std::string bundle_id;
  std::string tier;  // "shallow" | "deep"
  std::string domain;
  model::Window window;
  core::UnixSeconds now = 0;           // the scoring clock: later legs score on it
  core::UnixSeconds created_wall = 0;  // for expiry
  bool replay = false;                 // born from --replay
  std::vector<std::string> sources;    // ids the user allowed
  std::map<std::string, model::SourceStatus> source_status;
  std::vector<model::Topic> nominations;
};

std::string new_bundle_id();
std::string bundle_to_json(const Bundle& b);
std::optional<Bundle> bundle_from_json(std::string_view text, std::string* error);

struct Judgment {
  std::string id;
  std::optional<std::string> name;
  std::optional<bool> junk;
  std::optional<double> worthiness;  // clamped to 0..100
};
struct Judgments {
  std::string bundle_id;
  std::vector<Judgment> items;
};
// Contract errors (junk not a boolean, worthiness not a number...) return nullopt + error.
std::optional<Judgments> parse_judgments(std::string_view text, std::string* error);
// velocity × (0.5 + worthiness/100); unjudged topics count as worthiness 50.
double blended_score(double velocity, std::optional<double> worthiness);

struct Angles {
  std::string bundle_id;
  std::map<std::string, std::map<std::string, std::string>> by_topic;  // id or name -> {podcast, x_article}
};
std::optional<Angles> parse_angles(std::string_view text, std::string* error);

// The enriched, not yet finalized result of the judgments leg.
std::string pending_to_json(const Bundle& meta, const model::DiscoveryReport& report);
std::optional<std::pair<Bundle, model::DiscoveryReport>> pending_from_json(std::string_view text, std::string* error);

// Common checks for a later leg: id match, a date not in the future, expiry, replay/live
// mixing. Error text says how to fix it.
std::optional<std::string> check_bundle(const Bundle& b, std::string_view expected_id, core::UnixSeconds wall_now, bool replaying,
                                        std::string_view file_kind);

}  // namespace discover
