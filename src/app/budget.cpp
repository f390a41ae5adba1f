#include "app/budget.hpp"

#include <fmt/format.h>

#include <cctype>

#include "core/log.hpp"
#include "sources/source.hpp"

namespace app {

std::string StoreBudget::key_for(std::string_view source) {
  std::string key = "LAST30DAYS_BUDGET_";
  for (char c : source) key += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
  return key;
}

std::unique_ptr<StoreBudget> StoreBudget::from_config(const core::Config& config, std::string* error) {
  auto b = std::make_unique<StoreBudget>();
  for (const auto* s : sources::all()) {
    const std::string key = key_for(s->id());
    const auto v = config.get(key);
    if (!v || v->empty()) continue;
    const bool digits = v->size() < 10 && std::all_of(v->begin(), v->end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      *error = fmt::format("{} must be a whole number of requests per day (0 or more)", key);
      return nullptr;
    }
    b->limits_[std::string(s->id())] = std::stol(*v);
  }
  if (b->limits_.empty()) return nullptr;
  return b;
}

void StoreBudget::load(store::Store& db, core::UnixSeconds now) {
  const std::string day = core::format_date(now);
  auto spent = db.budget_day(day);
  std::lock_guard lock(mu_);
  day_ = day;
  before_ = std::move(spent);
}

void StoreBudget::uncounted(std::string why) {
  std::lock_guard lock(mu_);
  uncounted_ = std::move(why);
}

std::optional<std::string> StoreBudget::refuse(std::string_view source) {
  std::lock_guard lock(mu_);
  const auto limit = limits_.find(std::string(source));
  if (limit == limits_.end()) return std::nullopt;
  if (uncounted_) return fmt::format("the local request budget ({}) cannot be checked: {}", key_for(source), *uncounted_);
  const long used = before_[limit->first] + now_[limit->first];
  if (used < limit->second) return std::nullopt;
  return fmt::format("the local request budget is spent: {}={} requests a day, {} used today (UTC); it resets at 00:00 UTC",
                     key_for(source), limit->second, used);
}

void StoreBudget::spent(std::string_view source, int requests) {
  if (requests <= 0) return;
  std::lock_guard lock(mu_);
  now_[std::string(source)] += requests;
}

void StoreBudget::flush(store::Store& db) {
  std::map<std::string, long> add;
  std::string day;
  {
    std::lock_guard lock(mu_);
    add.swap(now_);
    day = day_;
    for (const auto& [s, n] : add) before_[s] += n;
  }
  for (const auto& [s, n] : add) db.budget_add(s, day, n);
}

std::unique_ptr<RunBudget> RunBudget::open(const RunContext& ctx, const persist::Writer& writer, store::Store* db,
                                           core::Deadline deadline, Problem* problem,
                                           const std::optional<std::string>& unanswered) {
  std::string error;
  auto budget = StoreBudget::from_config(ctx.config, &error);
  if (!error.empty()) {
    *problem = {2, error};
    return nullptr;
  }
  if (!budget) return nullptr;
  auto rb = std::make_unique<RunBudget>();
  const auto skip_budgeted = [&](const std::string& why) {
    core::log::warn("request budgets: {}: the budgeted sources are skipped", why);
    budget->uncounted(why);
    rb->budget_ = std::move(budget);
    return std::move(rb);
  };
  if (!db && unanswered) return skip_budgeted(*unanswered);
  if (!db) {
    // Budgets count in the store, so a budget opens it even for a run that keeps nothing.
    Problem why;
    std::string no_answer;
    rb->own_ = open_store(ctx, writer, deadline.earliest(core::Deadline::in(kStoreOpenShare)), &why, &no_answer);
    if (!rb->own_ && !no_answer.empty()) return skip_budgeted(no_answer);
    if (!rb->own_) {
      *problem = {why.exit_code, "request budgets: " + why.message};
      return nullptr;
    }
    db = rb->own_.get();
  }
  try {
    budget->load(*db, core::now_unix());
  } catch (const store::Error& e) {
    *problem = {1, fmt::format("request budgets: {}", e.what())};
    return nullptr;
  }
  rb->db_ = db;
  rb->budget_ = std::move(budget);
  return rb;
}

void RunBudget::close(core::Deadline run_deadline) {
  if (db_ == nullptr) return;  // the store did not answer: the budgeted sources were refused
  try {
    db_->set_deadline(store_deadline(run_deadline));
    budget_->flush(*db_);
  } catch (const store::Error& e) {
    core::log::warn("request budgets: this run's requests were not counted: {}", e.what());
  }
}

}  // namespace app
