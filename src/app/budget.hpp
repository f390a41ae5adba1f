#pragma once
// Daily request budgets (spec §3): counted in HTTP requests per source and UTC day, in the
// research store (shared by every machine of a PostgreSQL store). A budget is set in the
// environment (LAST30DAYS_BUDGET_<SOURCE>) or kept in the store (`watch budget SOURCE N`,
// for every run that uses that store); when both are set the stricter holds. Today's spend
// is read when a run starts and this run's is added when it ends; a source that starts
// within its budget finishes its requests. Concurrent runs each see the spend as it was when
// they started.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/run.hpp"
#include "core/config.hpp"
#include "core/time.hpp"
#include "model/memory.hpp"
#include "pipeline/research.hpp"
#include "store/store.hpp"

namespace app {

// One source's budget from each place it can be set. The stricter holds: a budget is a
// promise not to spend more, so neither place can loosen the other's (on a shared store, one
// machine's .env cannot spend the team's counter past the budget the team keeps in the store,
// and the store cannot push a machine past its own cap).
struct BudgetLimit {
  std::optional<long> env, store;
  long requests() const { return env && store ? std::min(*env, *store) : env ? *env : store.value_or(0); }
  bool by_store() const { return store && (!env || *store < *env); }
};

class StoreBudget final : public pipeline::RequestBudget {
 public:
  // The environment's budgets (none is fine); nullptr with *error (exit 2) for a value that
  // is not a whole number >= 0.
  static std::unique_ptr<StoreBudget> from_config(const core::Config& config, std::string* error);
  static std::string key_for(std::string_view source);  // LAST30DAYS_BUDGET_YOUTUBE
  // A store budget as given: a whole number of requests (< 10 digits) or "off" (nullopt);
  // false for anything else.
  static bool parse_requests(std::string_view text, std::optional<long>* out);

  // Reads the store's budgets and, when any budget is set, today's spend.
  void load(store::Store& db, core::UnixSeconds now);
  // No budget from either place: nothing to refuse or count.
  bool empty() const;
  std::optional<std::string> refuse(std::string_view source) override;
  void spent(std::string_view source, int requests) override;
  // Adds this run's spend to the store (the counters start again for the next run).
  void flush(store::Store& db);
  // The store did not answer: nothing spent today can be read, so every budgeted source is
  // refused with this reason (no request goes uncounted), the others run.
  void uncounted(std::string why);
  std::map<std::string, BudgetLimit> limits() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, BudgetLimit> limits_;
  std::map<std::string, long> before_;  // spent today before this run
  std::map<std::string, long> now_;     // spent by this run
  std::string day_;
  std::optional<std::string> uncounted_;
};

// Every budget in force (the environment's and, with a store, the store's) with today's spend
// and what a request costs upstream, for doctor and watch list. Throws store::Error.
std::vector<model::BudgetStatus> budget_status(const StoreBudget& env_budgets, store::Store* db, const core::Config& config,
                                               core::UnixSeconds now);

// One research run's budgets, for every front end: today's spend read from the research store
// before the run (the store is opened for it when the run has none), this run's added after.
class RunBudget {
 public:
  // nullptr when no budget is set, or with *problem: a bad value (exit 2) or a broken store
  // (exit 1). A run without a store and without a budget in the environment does not open
  // the store to read its budgets. `db` is the run's own store, if it has one; `unanswered`, why the run's store
  // did not answer within its share (it is not asked again). A store that does not answer
  // is no problem: the budgeted sources are refused, the run goes on (issue 22 item 22).
  static std::unique_ptr<RunBudget> open(const RunContext& ctx, const persist::Writer& writer, store::Store* db,
                                         core::Deadline deadline, Problem* problem,
                                         const std::optional<std::string>& unanswered = std::nullopt);
  pipeline::RequestBudget* get() { return budget_.get(); }
  // Adds this run's spend; a store that fails here costs a warning, not the brief.
  void close(core::Deadline run_deadline);

 private:
  std::unique_ptr<StoreBudget> budget_;
  std::unique_ptr<store::Store> own_;
  store::Store* db_ = nullptr;
};

}  // namespace app
