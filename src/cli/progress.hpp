#pragma once
// Live progress on stderr when it is a terminal: one line per source (state, items,
// elapsed) redrawn in place; for discovery the listings, then the enrichment with
// the budget that remains. Never on stdout, never with --quiet, never when stderr is
// not a terminal (or TERM=dumb); NO_COLOR drops the colours, not the redraw.
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/config.hpp"

namespace cli {

class TerminalProgress {
 public:
  // nullptr when progress must not be shown.
  // per_topic: rows are named "topic · source" (a comparison runs several topics at once).
  static std::unique_ptr<TerminalProgress> start(const Options& o, const core::Config& config, std::string title,
                                                 bool per_topic = false);
  ~TerminalProgress();  // finish()
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // Hooks feeding this display (thread-safe); stop is left empty.
  app::RunHooks hooks();
  // The final state stays on screen; later stderr lines print below it. Idempotent.
  void finish();

  struct Impl;

 private:
  explicit TerminalProgress(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Shows progress for one run when start() says so: the hooks to pass, finished on scope exit.
struct ProgressScope {
  ProgressScope(const Options& o, const core::Config& config, std::string title, bool per_topic = false)
      : display(TerminalProgress::start(o, config, std::move(title), per_topic)) {}
  app::RunHooks hooks() const { return display ? display->hooks() : app::RunHooks{}; }
  void finish() const {
    if (display) display->finish();
  }
  std::unique_ptr<TerminalProgress> display;
};

}  // namespace cli
