#include "cli/options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/run.hpp"
#include "cli/completions.hpp"
#include "core/file.hpp"
#include "core/text.hpp"
#include "discover/enrich.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "sources/source.hpp"

namespace cli {

std::string_view to_string(Emit e) {
  switch (e) {
    case Emit::compact: return "compact";
    case Emit::md: return "md";
    case Emit::json: return "json";
    case Emit::html: return "html";
  }
  return "compact";
}

namespace {

ParseOutcome usage_error(std::string message) {
  ParseOutcome out;
  out.exit_code = 2;
  out.text = "last30days: " + message + "\nTry 'last30days --help'.\n";
  out.message = std::move(message);
  return out;
}

// Decimal only: CLI11 would read 010 as octal, 0x10 as hex and 0b10 as binary. Integers
// are digits without a leading zero; other numbers may add a fraction and an exponent.
bool decimal(std::string_view s, bool integer) {
  const auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (integer) return digits(s) && (s.size() == 1 || s.front() != '0');
  const auto e = s.find_first_of("eE");
  const std::string_view mantissa = s.substr(0, e);
  if (e != std::string_view::npos) {
    std::string_view exp = s.substr(e + 1);
    if (!exp.empty() && (exp.front() == '+' || exp.front() == '-')) exp.remove_prefix(1);
    if (!digits(exp)) return false;
  }
  const auto dot = mantissa.find('.');
  if (dot == std::string_view::npos) return digits(mantissa);
  return (digits(mantissa.substr(0, dot)) || dot == 0) && digits(mantissa.substr(dot + 1));
}

// Flags that need --discover, and flags doctor has no use for.
constexpr std::string_view kDiscoveryOnly[] = {"--discover-shallow", "--nominate-only", "--judgments", "--finalize",
                                               "--enrich-budget", "--enrich-workers"};
constexpr std::string_view kDoctorRejects[] = {"--discover", "--discover-shallow", "--nominate-only", "--judgments",
                                               "--finalize", "--angles", "--enrich-budget", "--enrich-workers",
                                               "--days", "--as-of", "--quick", "--deep", "--plan", "--save",
                                               "--save-dir", "--store", "--no-compare"};

}  // namespace

ParseOutcome parse_args(int argc, const char* const* argv, core::UnixSeconds today) {
  CLI::App app{"last30days: what people actually said and did about a topic in the last N days.\n"
               "Commands: last30days TOPIC | --discover[=DOMAIN] | doctor | library search QUERY | watch add|list|remove|run\n"
               "          | mcp (serve agent hosts on stdio) | completions bash|zsh",
               "last30days"};
  app.set_version_flag("--version", std::string("last30days ") + L30_VERSION);
  app.allow_extras(false);
  app.positionals_at_end(false);

  std::vector<std::string> words;
  app.add_option("topic", words, "the topic to research (several words are joined)");

  Options o;
  std::optional<int> days;
  std::string as_of, emit, search, plan;
  bool quick = false, deep = false;
  app.add_option("--days", days, "window length in days (as-of minus N days to as-of, inclusive)");
  app.add_option("--as-of", as_of, "end of the window, YYYY-MM-DD (UTC); default today");
  app.add_flag("--quick", quick, "fewer items and sub-queries");
  app.add_flag("--deep", deep, "more items and sub-queries");
  app.add_option("--search", search, "only these sources, comma-separated (aliases hn, so)");
  app.add_option("--emit", emit, "output format: compact, md, json or html");
  app.add_option("--output", o.output_file, "write the output to FILE instead of stdout");
  app.add_flag("--save", o.save, "also save the brief to the memory dir");
  app.add_option("--save-dir", o.save_dir, "save there (implies --save)");
  app.add_flag("--store", o.store, "record the run in the research store");
  app.add_option("--plan", plan, "a query plan from an agent host: JSON or a file holding it");
  app.add_flag("--no-compare", o.no_compare, "research 'A vs B' as one phrase, not a comparison");
  app.add_flag("--strict", o.strict, "exit 3 if any source is degraded");
  app.add_option("--timeout", o.timeout_seconds, "whole-run wall-clock cap in seconds");
  app.add_flag("--quiet", o.quiet, "no progress on stderr");
  app.add_option("--record", o.record_dir, "record every upstream exchange into DIR");
  app.add_option("--replay", o.replay_dir, "answer every request from DIR, never the network");
  bool discover_flag = false;
  auto* discover = app.add_flag("--discover", discover_flag, "discovery: what is spiking now; --discover=DOMAIN for one domain");
  app.add_flag("--discover-shallow", o.discover_shallow, "discovery: shallow tier");
  app.add_flag("--nominate-only", o.nominate_only, "discovery: write nominations for a host to judge");
  app.add_option("--judgments", o.judgments_file, "discovery: the host's judgments FILE");
  app.add_flag("--finalize", o.finalize, "discovery: apply angles and render the pending result");
  app.add_option("--angles", o.angles_file, "discovery: angles FILE for --finalize");
  app.add_option("--enrich-budget", o.enrich_budget, "discovery: enrichment wall-clock budget in seconds");
  app.add_option("--enrich-workers", o.enrich_workers, "discovery: concurrent enrichment sub-runs");
  app.add_option("--limit", o.limit, "library search: at most N results (default 10)");
  app.add_option("--every", o.every_hours, "watch add: run the topic every HOURS (default 24)");
  app.add_flag("--all", o.all, "watch run: run every watched topic, not only the due ones");

  // --discover=DOMAIN is the only way to name a domain: a word after a bare --discover is
  // positional, so `--discover some topic` is a topic (which discovery rejects), never
  // the domain "some".
  std::optional<std::string> discover_domain;
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    if (args[i].rfind("--discover=", 0) != 0) continue;
    discover_domain = args[i].substr(11);
    args[i] = "--discover";
  }
  std::vector<const char*> arg_ptrs;
  for (const auto& a : args) arg_ptrs.push_back(a.c_str());

  try {
    app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  } catch (const CLI::CallForHelp&) {
    ParseOutcome out;
    out.text = app.help();
    out.to_stdout = true;
    return out;
  } catch (const CLI::CallForVersion&) {
    ParseOutcome out;
    out.text = std::string("last30days ") + L30_VERSION + "\n";
    out.to_stdout = true;
    return out;
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  // Presence, never truthiness: a flag given with an empty value is a mistake, not a default.
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0 || opt->get_name().rfind("--", 0) != 0) continue;
    const std::string type = opt->get_type_name();
    for (const auto& value : opt->results()) {
      if (opt->get_expected_min() > 0 && core::trim(value).empty())
        return usage_error(fmt::format("{} needs a value", opt->get_name()));
      if ((type == "INT" || type == "UINT" || type == "FLOAT") && !decimal(value, type != "FLOAT"))
        return usage_error(fmt::format("{} '{}' is not a decimal number{}", opt->get_name(), value,
                                       type == "FLOAT" ? "" : " (digits only, no leading zero)"));
    }
  }
  if (discover_domain && core::trim(*discover_domain).empty())
    return usage_error("--discover= needs a DOMAIN (bare --discover is global discovery)");

  // Subcommands are positional words.
  static const std::map<std::string_view, Command> kCommands{{"doctor", Command::doctor}, {"library", Command::library},
                                                             {"watch", Command::watch},   {"mcp", Command::mcp},
                                                             {"completions", Command::completions}};
  if (!words.empty() && kCommands.count(words[0]) > 0) {
    o.command = kCommands.at(words[0]);
    o.command_args.assign(words.begin() + 1, words.end());
    words.clear();
  }
  if (o.command == Command::completions) {
    std::vector<std::string_view> names;
    for (const auto& [name, cmd] : kCommands) names.push_back(name);
    auto script = o.command_args.size() == 1 ? completion_script(app, o.command_args[0], names) : std::nullopt;
    if (!script) return usage_error("completions needs one shell: bash or zsh");
    ParseOutcome out;
    out.text = std::move(*script);
    out.to_stdout = true;
    return out;
  }
  if (o.command == Command::mcp && !o.command_args.empty())
    return usage_error(fmt::format("mcp takes no arguments (to research a topic, quote it: last30days \"mcp {}\")",
                                   o.command_args.front()));
  if (o.command == Command::doctor) {
    if (!o.command_args.empty())
      return usage_error(fmt::format("doctor takes no arguments (got '{}')", o.command_args.front()));
    for (auto name : kDoctorRejects)
      if (app.get_option(std::string(name))->count() > 0)
        return usage_error(fmt::format("doctor does not take {}: it probes every source (--search, --timeout and --strict apply)", name));
  }
  const bool discovering = discover->count() > 0;  // presence, never truthiness
  if (discovering) {
    o.command = Command::discover;
    o.domain = core::printable_line(discover_domain.value_or(""));
  }
  // What the user typed is echoed in briefs, logs and messages: never a raw control
  // character or invalid UTF-8 on a terminal.
  std::string typed;
  for (const auto& w : words) typed += (typed.empty() ? "" : " ") + w;
  o.topic = core::printable_line(typed);

  // Dependent flags need their anchor.
  for (auto name : kDiscoveryOnly)
    if (app.get_option(std::string(name))->count() > 0 && !discovering)
      return usage_error(fmt::format("{} requires --discover", name));
  if (!o.angles_file.empty() && !o.finalize) return usage_error("--angles requires --finalize");
  if (o.finalize && o.angles_file.empty()) return usage_error("--finalize requires --angles FILE");
  if (o.nominate_only && (!o.judgments_file.empty() || o.finalize))
    return usage_error("--nominate-only cannot be combined with --judgments or --finalize: they are separate legs");
  if (!o.judgments_file.empty() && o.finalize) return usage_error("--judgments and --finalize are separate legs: run them one after the other");

  if (quick && deep) return usage_error("--quick and --deep are mutually exclusive");
  o.depth = quick ? model::Depth::quick : deep ? model::Depth::deep : model::Depth::standard;
  if (days) {
    if (*days < 1 || *days > 365) return usage_error("--days must be between 1 and 365");
    o.days = *days;
    o.days_set = true;
  }
  if (!as_of.empty()) {
    if (discovering) return usage_error("--as-of is not supported with --discover: discovery is about now");
    auto d = core::parse_date(as_of);
    if (!d) return usage_error(fmt::format("--as-of '{}' is not a date (YYYY-MM-DD)", as_of));
    if (*d > core::start_of_day(today)) return usage_error("--as-of is in the future");
    o.as_of = *d;
  }
  if (app.get_option("--emit")->count() > 0) {
    if (emit == "compact") o.emit = Emit::compact;
    else if (emit == "md" || emit == "markdown") o.emit = Emit::md;
    else if (emit == "json") o.emit = Emit::json;
    else if (emit == "html") o.emit = Emit::html;
    else return usage_error(fmt::format("--emit '{}': expected compact, md, json or html", emit));
  }
  if (discovering && o.emit == Emit::html) return usage_error("--emit html is not supported with --discover");
  if (app.get_option("--search")->count() > 0) {
    std::string_view rest = search;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string name(core::trim(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (name.empty()) continue;
      const auto* src = sources::find(name);
      if (src == nullptr) {
        std::string known;
        for (const auto* s : sources::all()) known += (known.empty() ? "" : ", ") + std::string(s->id());
        return usage_error(fmt::format("--search: unknown source '{}' (known: {})", name, known));
      }
      if (std::find(o.sources.begin(), o.sources.end(), src->id()) == o.sources.end()) o.sources.emplace_back(src->id());
    }
    if (o.sources.empty()) return usage_error("--search needs at least one source id");
  }
  if (o.timeout_seconds && (!std::isfinite(*o.timeout_seconds) || *o.timeout_seconds <= 0 || *o.timeout_seconds > 3600))
    return usage_error("--timeout must be a number of seconds in (0, 3600]");
  if (o.enrich_budget && (!std::isfinite(*o.enrich_budget) || *o.enrich_budget <= 0 || *o.enrich_budget > discover::kMaxBudgetSeconds))
    return usage_error(fmt::format("--enrich-budget must be a number of seconds in (0, {}]", discover::kMaxBudgetSeconds));
  if (o.enrich_workers && (*o.enrich_workers < 1 || *o.enrich_workers > 16))
    return usage_error("--enrich-workers must be between 1 and 16");
  if (!o.record_dir.empty() && !o.replay_dir.empty()) return usage_error("--record and --replay are mutually exclusive");
  if (!o.save_dir.empty()) o.save = true;
  if (!plan.empty()) {
    if (discovering) return usage_error("--plan applies to research, not --discover");
    const auto first = core::trim(plan);
    if (!first.empty() && first.front() == '{') {
      o.plan_json = plan;
    } else {
      auto text = core::read_file_capped(plan, core::kHostFileCap);
      if (!text) return usage_error(fmt::format("--plan: {} (give JSON or a file holding it)", text.error.message));
      o.plan_json = std::move(*text.text);
    }
  }

  if (auto bad = check_memory_options(o)) return usage_error(*bad);

  switch (o.command) {
    case Command::research: {
      app::ResearchRequest request;
      request.plan_json = o.plan_json;
      if (auto bad = app::settle_topic(typed, o.no_compare, request)) return usage_error(*bad);
      o.entities = std::move(request.entities);
      break;
    }
    case Command::discover:
      if (!o.topic.empty())
        return usage_error(fmt::format("--discover takes no topic (got '{}'): to pick a domain write --discover=DOMAIN", o.topic));
      break;
    default:
      break;
  }
  ParseOutcome out;
  out.options = std::move(o);
  return out;
}

}  // namespace cli
