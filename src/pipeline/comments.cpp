#include "pipeline/comments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/parallel.hpp"

namespace pipeline {

namespace {

constexpr std::size_t kShownPerStory = 3;  // the items a brief shows under a story

// How many comments the platform counted; nullopt when it did not say.
std::optional<double> comment_count(const std::vector<model::Engagement>& engagement) {
  for (const auto& e : engagement)
    if (e.field == "num_comments" || e.field == "comment_count" || e.field == "answer_count" || e.field == "comments")
      return e.value;
  return std::nullopt;
}

struct Candidate {
  ThreadPick pick;
  const std::string* source;
  const std::string* id;
  double comments;
};

}  // namespace

std::vector<ThreadPick> pick_threads(const model::Report& r, const std::vector<std::string>& with_comments,
                                     std::size_t max_threads) {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < r.items.size(); ++i) index[r.items[i].id] = i;
  auto capable = [&](const std::string& source) {
    return std::find(with_comments.begin(), with_comments.end(), source) != with_comments.end();
  };
  // Every readable thread of a story's shown items, in display order.
  auto threads_of = [&](const model::Cluster& c) {
    std::vector<Candidate> out;
    auto consider = [&](ThreadPick p, const std::string& source, const std::string& id, const std::vector<model::Engagement>& e) {
      const auto n = comment_count(e);
      if (!id.empty() && capable(source) && n.value_or(1) > 0) out.push_back({p, &source, &id, n.value_or(0)});
    };
    for (std::size_t m = 0; m < c.items.size() && m < kShownPerStory; ++m) {
      auto it = index.find(c.items[m]);
      if (it == index.end()) continue;
      const auto& item = r.items[it->second];
      consider({it->second, -1}, item.source, item.id, item.engagement);
      for (std::size_t s = 0; s < item.also_seen.size(); ++s)
        consider({it->second, static_cast<int>(s)}, item.also_seen[s].source, item.also_seen[s].id, item.also_seen[s].engagement);
    }
    return out;
  };
  std::vector<ThreadPick> picked;
  auto taken = [&](const ThreadPick& p) {
    return std::any_of(picked.begin(), picked.end(),
                       [&](const ThreadPick& q) { return q.item == p.item && q.sighting == p.sighting; });
  };
  // First the liveliest thread of each story, best stories first; then the stories' other threads.
  for (const auto& c : r.clusters) {
    if (picked.size() >= max_threads) break;
    auto threads = threads_of(c);
    auto best = std::max_element(threads.begin(), threads.end(),
                                 [](const Candidate& a, const Candidate& b) { return a.comments < b.comments; });
    if (best != threads.end()) picked.push_back(best->pick);
  }
  for (const auto& c : r.clusters)
    for (const auto& t : threads_of(c))
      if (picked.size() < max_threads && !taken(t.pick)) picked.push_back(t.pick);
  return picked;
}

void attach_comments(model::Report& r, const std::vector<const sources::Source*>& srcs, const ResearchEnv& env) {
  std::vector<std::string> ids;
  for (const auto* s : srcs)
    if (s->has_comments()) ids.emplace_back(s->id());
  const auto picked = pick_threads(r, ids);
  if (picked.empty() || env.stop.stop_requested() || env.deadline.expired()) return;  // a cancelled run asks nothing more

  auto source_of = [&](const ThreadPick& p) -> const std::string& {
    const auto& item = r.items[p.item];
    return p.sighting < 0 ? item.source : item.also_seen[static_cast<std::size_t>(p.sighting)].source;
  };
  auto comments_of = [&](const ThreadPick& p) -> std::vector<model::Comment>& {
    auto& item = r.items[p.item];
    return p.sighting < 0 ? item.comments : item.also_seen[static_cast<std::size_t>(p.sighting)].comments;
  };
  struct Batch {
    const sources::Source* source;
    sources::CommentQuery query;
    std::vector<ThreadPick> picks;  // parallel to query.items
    std::vector<sources::Thread> threads;
  };
  std::vector<Batch> batches;
  for (const auto& p : picked) {
    const std::string& source = source_of(p);
    auto b = std::find_if(batches.begin(), batches.end(), [&](const Batch& x) { return x.source->id() == source; });
    if (b == batches.end()) {
      const auto* src = *std::find_if(srcs.begin(), srcs.end(), [&](const sources::Source* s) { return s->id() == source; });
      batches.push_back({src, {{}, kCommentsPerThread}, {}, {}});
      b = std::prev(batches.end());
    }
    const auto& item = r.items[p.item];
    b->query.items.push_back(p.sighting < 0 ? item.id : item.also_seen[static_cast<std::size_t>(p.sighting)].id);
    b->picks.push_back(p);
  }
  const core::Deadline deadline = env.deadline.earliest(core::Deadline::in(kCommentsBudget));
  core::parallel_for(batches.size(), batches.size(), [&](std::size_t k) {
    Batch& b = batches[k];
    sources::Env senv{env.config, env.http, deadline, env.stop};
    try {
      b.threads = b.source->comments(b.query, senv);
    } catch (const std::exception& e) {
      b.threads.assign(b.picks.size(), {{}, fmt::format("internal error: {}", e.what())});
    }
    if (b.threads.size() != b.picks.size()) b.threads.resize(b.picks.size(), {{}, "no answer for this thread"});
  });
  for (auto& b : batches) {
    auto& st = r.source_status[std::string(b.source->id())];
    for (std::size_t k = 0; k < b.picks.size(); ++k) {
      auto& t = b.threads[k];
      ++st.comment_threads;
      if (t.failure) {
        ++st.comment_failures;
        if (st.comments_reason.empty()) st.comments_reason = *t.failure;
      }
      if (t.comments.size() > static_cast<std::size_t>(kCommentsPerThread)) t.comments.resize(kCommentsPerThread);
      comments_of(b.picks[k]) = std::move(t.comments);
    }
  }
}

}  // namespace pipeline
