#pragma once
// What people said: after ranking, the most-engaged top-level comments of the run's best
// stories, from the sources that have comments (Source::comments) — the story's own item
// and its folded cross-posts each have their thread. A failed thread costs nothing but its
// quotes; the reason lands in the source's status.
#include <vector>

#include "model/report.hpp"
#include "pipeline/research.hpp"

namespace pipeline {

constexpr std::size_t kCommentThreads = 8;     // threads read per run
constexpr int kCommentsPerThread = 3;          // kept per thread (the briefs quote one or two)
constexpr core::Millis kCommentsBudget{6000};  // the whole stage, inside the run's deadline

// A discussion to read: an item's own, or one of its sightings' (a folded cross-post).
struct ThreadPick {
  std::size_t item = 0;  // index into Report::items
  int sighting = -1;     // index into that item's also_seen; -1 = the item itself
};

// The threads worth reading, best first: for each story in rank order the most commented
// thread of its shown items, then the other threads of those items; only sources in
// `with_comments`, never a thread whose platform counted zero comments.
std::vector<ThreadPick> pick_threads(const model::Report& r, const std::vector<std::string>& with_comments,
                                     std::size_t max_threads = kCommentThreads);

// Fetches and attaches the comments: every source at once, each fetching its threads
// concurrently (bounded), all within min(env.deadline, kCommentsBudget from now).
void attach_comments(model::Report& r, const std::vector<const sources::Source*>& srcs, const ResearchEnv& env);

}  // namespace pipeline
