#include "app/budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/log.hpp"
#include "core/text.hpp"
#include "sources/source.hpp"

namespace app {

std::string StoreBudget::key_for(std::string_view source) { return sources::budget_key(source); }

bool StoreBudget::parse_requests(std::string_view text, std::optional<long>* out) {
  if (core::lower_ascii(text) == "off") {
    *out = std::nullopt;
    return true;
  }
  if (text.empty() || text.size() >= 10 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  *out = std::stol(std::string(text));
  return true;
}

std::unique_ptr<StoreBudget> StoreBudget::from_config(const core::Config& config, std::string* error) {
  auto b = std::make_unique<StoreBudget>();
  for (const auto* s : sources::all()) {
    const std::string key = key_for(s->id());
    const auto v = config.get(key);
    if (!v || v->empty()) continue;
    std::optional<long> n;
    if (core::lower_ascii(*v) == "off" || !parse_requests(*v, &n)) {
      *error = fmt::format("{} must be a whole number of requests per day (0 or more)", key);
      return nullptr;
    }
    b->limits_[std::string(s->id())].env = *n;
  }
  return b;
}

void StoreBudget::load(store::Store& db, core::UnixSeconds now) {
  const std::string day = core::format_date(now);
  const auto kept = db.budget_limits();
  std::lock_guard lock(mu_);
  for (auto& [source, l] : limits_) l.store.reset();
  for (const auto& [source, n] : kept)
    if (sources::by_id(source)) limits_[source].store = n;  // a source this build no longer has is ignored
  std::erase_if(limits_, [](const auto& l) { return !l.second.env && !l.second.store; });
  day_ = day;
  before_.clear();
  if (!limits_.empty()) before_ = db.budget_day(day);
}

bool StoreBudget::empty() const {
  std::lock_guard lock(mu_);
  return limits_.empty();
}

std::map<std::string, BudgetLimit> StoreBudget::limits() const {
  std::lock_guard lock(mu_);
  return limits_;
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
  const long allowed = limit->second.requests();
  if (used < allowed) return std::nullopt;
  // The reason names the budget in force, so the user knows which one to change.
  const std::string which =
      limit->second.by_store()
          ? fmt::format("{} requests a day (kept in the store: last30days watch budget {} {})", allowed, source, allowed)
          : fmt::format("{}={} requests a day", key_for(source), allowed);
  return fmt::format("the local request budget is spent: {}, {} used today (UTC); it resets at 00:00 UTC", which, used);
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

std::vector<model::BudgetStatus> budget_status(const StoreBudget& env_budgets, store::Store* db, const core::Config& config,
                                               core::UnixSeconds now) {
  std::map<std::string, BudgetLimit> limits = env_budgets.limits();
  std::map<std::string, long> spent;
  if (db) {
    for (const auto& [source, n] : db->budget_limits())
      if (sources::by_id(source)) limits[source].store = n;
    spent = db->budget_day(core::format_date(now));
  }
  std::vector<model::BudgetStatus> out;
  for (const auto& [source, l] : limits) {
    if (!l.env && !l.store) continue;
    const auto* s = sources::by_id(source);
    out.push_back({source, l.env, l.store, l.requests(), l.by_store(), spent.count(source) ? spent[source] : 0,
                   s ? s->request_cost(config) : std::string()});
  }
  return out;
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
  if (!db && budget->empty()) return nullptr;  // only a store holds other budgets
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
  if (budget->empty()) return nullptr;  // neither place sets one: nothing is counted
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
