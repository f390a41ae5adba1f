// The words and flags of `library search` and `watch add|list|remove|run` (spec §7).
#include <fmt/format.h>

#include <cmath>

#include "cli/help.hpp"
#include "cli/options.hpp"
#include "core/text.hpp"

namespace cli {

namespace {
std::string joined(const std::vector<std::string>& words, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) out += (out.empty() ? "" : " ") + words[i];
  return core::collapse_whitespace(out);
}
}  // namespace

std::optional<std::string> check_memory_options(Options& o) {
  const bool library = o.command == Command::library, watch = o.command == Command::watch;
  if (!library && !watch) {
    if (o.limit && o.command != Command::research) return "--limit applies to research and library search";
    if (o.limit && (*o.limit < 1 || *o.limit > kMaxStories)) return fmt::format("--limit must be between 1 and {}", kMaxStories);
    if (o.every_hours) return "--every requires watch add";
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  const auto& a = o.command_args;
  o.verb = a.empty() ? "" : a[0];
  o.topic = joined(a, 1);
  if (o.summarize && (library || o.verb != "run")) return "--summarize applies to research, --discover and watch run";
  if ((library || o.verb != "add") && (o.days_set || !o.sources.empty()))
    return fmt::format("--days and --search apply to research and watch add, not {} {}", library ? "library" : "watch", o.verb);
  if (library) {
    if (o.verb != "search")
      return o.verb.empty() ? "library needs a command: last30days library search QUERY (see last30days help library)"
                            : fmt::format("library has no command '{}'{} (see last30days help library)", o.verb,
                                          did_you_mean(o.verb, verbs_of("library")));
    if (o.topic.empty()) return "library search needs a QUERY";
    if (o.limit && (*o.limit < 1 || *o.limit > 200)) return "--limit must be between 1 and 200";
    if (o.emit != Emit::compact && o.emit != Emit::json) return "library search prints compact or json";
    if (o.every_hours) return "--every requires watch add";
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  if (o.limit) return "--limit applies to research and library search";
  if (o.verb == "add") {
    if (o.topic.empty()) return "watch add needs a TOPIC";
    if (o.topic.size() > 300) return "the topic is longer than 300 characters";
    if (o.every_hours && (!std::isfinite(*o.every_hours) || *o.every_hours <= 0 || *o.every_hours > 24 * 366))
      return "--every must be a number of hours in (0, 8784]";
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  if (o.every_hours) return "--every requires watch add";
  if (o.verb == "remove") {
    if (o.topic.empty()) return "watch remove needs a TOPIC";
    if (o.all) return "--all requires watch run";
    return std::nullopt;
  }
  if (o.verb == "list" || o.verb == "run") {
    if (!o.topic.empty()) return fmt::format("watch {} takes no topic (got '{}')", o.verb, o.topic);
    if (o.verb == "list" && o.all) return "--all requires watch run";
    if (o.verb == "list" && o.emit != Emit::compact && o.emit != Emit::json) return "watch list prints compact or json";
    if (o.verb == "run" && o.emit == Emit::html) return "watch run prints compact, md or json";
    return std::nullopt;
  }
  return o.verb.empty() ? "watch needs a command: add, list, remove or run (see last30days help watch)"
                        : fmt::format("watch has no command '{}'{} (see last30days help watch)", o.verb,
                                      did_you_mean(o.verb, verbs_of("watch")));
}

}  // namespace cli
