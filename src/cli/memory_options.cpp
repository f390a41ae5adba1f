// The words and flags of `library search|list|forget` and `watch add|list|remove|run|notify|budget`
// (spec §7).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/budget.hpp"
#include "cli/help.hpp"
#include "cli/options.hpp"
#include "core/text.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "render/escape.hpp"
#include "sources/source.hpp"

namespace cli {

namespace {
std::string joined(const std::vector<std::string>& words, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) out += (out.empty() ? "" : " ") + words[i];
  return core::collapse_whitespace(out);
}
std::string typed(const std::vector<std::string>& words, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) out += (i == from ? "" : " ") + words[i];
  return out;
}

constexpr const char* kChannels[] = {"webhook", "slack", "discord", "ntfy", "email"};
bool known_channel(std::string_view c) {
  return std::any_of(std::begin(kChannels), std::end(kChannels), [&](const char* k) { return c == k; });
}

// A watched topic is researched like a typed one: the same length limit (in characters)
// and the same refusals (a malformed comparison).
std::optional<std::string> check_watch_topic(const Options& o) {
  if (o.topic.empty()) return fmt::format("watch {} needs a TOPIC", o.verb);
  if (core::utf8_length(o.topic) > pipeline::kMaxTopicChars)
    return fmt::format("the topic is longer than {} characters", pipeline::kMaxTopicChars);
  if (o.verb == "add") {
    auto split = pipeline::split_comparison(typed(o.command_args, 1));
    if (!split.error.empty()) return split.error;
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::string> check_memory_options(Options& o) {
  const bool library = o.command == Command::library, watch = o.command == Command::watch;
  if (!library && !watch) {
    if (o.limit && o.command != Command::research) return "--limit applies to research and library search";
    if (o.limit && (*o.limit < 1 || *o.limit > kMaxStories)) return fmt::format("--limit must be between 1 and {}", kMaxStories);
    if (o.every_hours) return "--every requires watch add";
    if (o.all) return "--all requires watch run";
    if (o.notify) return "--notify requires watch add";
    return std::nullopt;
  }
  const auto& a = o.command_args;
  o.verb = a.empty() ? "" : a[0];
  o.topic = joined(a, 1);
  if (o.summarize && (library || o.verb != "run")) return "--summarize applies to research, --discover and watch run";
  if ((library || o.verb != "add") && (o.days_set || !o.sources.empty()))
    return fmt::format("--days and --search apply to research and watch add, not {} {}", library ? "library" : "watch", o.verb);
  if (o.notify && (library || o.verb != "add")) return "--notify requires watch add";
  if (library) {
    if (o.every_hours) return "--every requires watch add";
    if (o.all) return "--all requires watch run";
    if (o.verb == "search") {
      if (o.topic.empty()) return "library search needs a QUERY";
      if (o.limit && (*o.limit < 1 || *o.limit > 200)) return "--limit must be between 1 and 200";
      if (o.emit == Emit::html) return "library search prints compact, md or json";
      return std::nullopt;
    }
    if (o.limit) return "--limit requires library search";
    if (o.verb == "list") {
      if (!o.topic.empty()) return fmt::format("library list takes no topic (got '{}')", o.topic);
      if (o.emit == Emit::html) return "library list prints compact, md or json";
      return std::nullopt;
    }
    if (o.verb == "forget") {
      if (o.topic.empty()) return "library forget needs a TOPIC (library list shows them)";
      return std::nullopt;
    }
    return o.verb.empty() ? "library needs a command: search, list or forget (see last30days help library)"
                          : fmt::format("library has no command '{}'{} (see last30days help library)", o.verb,
                                        did_you_mean(o.verb, verbs_of("library")));
  }
  if (o.limit) return "--limit applies to research and library search";
  if (o.verb == "add") {
    if (auto bad = check_watch_topic(o)) return bad;
    if (o.every_hours && (!std::isfinite(*o.every_hours) || *o.every_hours <= 0 || *o.every_hours > 24 * 366))
      return "--every must be a number of hours in (0, 8784]";
    if (o.all) return "--all requires watch run";
    if (o.notify && *o.notify != "none") {
      std::string list = *o.notify;
      std::size_t start = 0;
      while (start <= list.size()) {
        auto comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        const auto name = core::lower_ascii(core::trim(std::string_view(list).substr(start, comma - start)));
        if (!known_channel(name)) return "--notify takes channels among webhook,slack,discord,ntfy,email, or none";
        start = comma + 1;
      }
    }
    return std::nullopt;
  }
  if (o.every_hours) return "--every requires watch add";
  if (o.verb == "remove") {
    if (auto bad = check_watch_topic(o)) return bad;
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  if (o.verb == "notify") {
    if (a.size() != 3 || a[1] != "test" || !known_channel(core::lower_ascii(a[2])))
      return "usage: last30days watch notify test webhook|slack|discord|ntfy|email";
    o.channel = core::lower_ascii(a[2]);
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  if (o.verb == "budget") {
    // No words: the budgets in force. SOURCE N|off: set or remove the store's budget.
    if (o.all) return "--all requires watch run";
    if (o.emit != Emit::compact && o.emit != Emit::json) return "watch budget prints compact or json";
    if (a.size() == 1) return std::nullopt;
    constexpr const char* usage = "usage: last30days watch budget [SOURCE REQUESTS|off] (requests a day, UTC)";
    if (a.size() != 3) return usage;
    const auto* src = sources::find(core::lower_ascii(a[1]));
    if (src == nullptr) return unknown_source("watch budget", a[1]);
    if (!app::StoreBudget::parse_requests(a[2], &o.budget_requests))
      return fmt::format("watch budget: '{}' is not a number of requests a day (a whole number, 0 or more, or off)",
                         render::term::text(a[2]));
    o.budget_source = std::string(src->id());
    return std::nullopt;
  }
  if (o.verb == "list" || o.verb == "run") {
    if (!o.topic.empty()) return fmt::format("watch {} takes no topic (got '{}')", o.verb, o.topic);
    if (o.verb == "list" && o.all) return "--all requires watch run";
    if (o.verb == "list" && o.emit != Emit::compact && o.emit != Emit::json) return "watch list prints compact or json";
    if (o.verb == "run" && o.emit == Emit::html) return "watch run prints compact, md or json";
    return std::nullopt;
  }
  return o.verb.empty() ? "watch needs a command: add, list, remove, run, notify or budget (see last30days help watch)"
                        : fmt::format("watch has no command '{}'{} (see last30days help watch)", o.verb,
                                      did_you_mean(o.verb, verbs_of("watch")));
}

}  // namespace cli
