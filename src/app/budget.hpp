#pragma once
// Daily request budgets (spec §3, LAST30DAYS_BUDGET_<SOURCE>): counted in HTTP requests
// per source and UTC day, in the research store (shared by every machine of a PostgreSQL
// store). Today's spend is read when a run starts and this run's is added when it ends; a
// source that starts within its budget finishes its requests. Concurrent runs each see
// the spend as it was when they started.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "core/time.hpp"
#include "pipeline/research.hpp"
#include "store/store.hpp"

namespace app {

class StoreBudget final : public pipeline::RequestBudget {
 public:
  // The budgets set in the config; nullptr when none is. *error (exit 2) for a value that
  // is not a whole number >= 0.
  static std::unique_ptr<StoreBudget> from_config(const core::Config& config, std::string* error);
  static std::string key_for(std::string_view source);  // LAST30DAYS_BUDGET_YOUTUBE

  void load(store::Store& db, core::UnixSeconds now);
  std::optional<std::string> refuse(std::string_view source) override;
  void spent(std::string_view source, int requests) override;
  // Adds this run's spend to the store (the counters start again for the next run).
  void flush(store::Store& db);
  const std::map<std::string, long>& limits() const { return limits_; }

 private:
  std::mutex mu_;
  std::map<std::string, long> limits_;
  std::map<std::string, long> before_;  // spent today before this run
  std::map<std::string, long> now_;     // spent by this run
  std::string day_;
};

}  // namespace app
