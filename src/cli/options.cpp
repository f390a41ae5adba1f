#include "cli/options.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>

#include "app/run.hpp"
#include "cli/completions.hpp"
#include "cli/help.hpp"
#include "core/file.hpp"
#include "core/text.hpp"
#include "discover/enrich.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "sources/source.hpp"

namespace cli {

std::optional<Emit> emit_for_file(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) return std::nullopt;
  const std::string ext = core::lower_ascii(path.substr(dot + 1));
  if (ext == "md" || ext == "markdown") return Emit::md;
  if (ext == "json") return Emit::json;
  if (ext == "html" || ext == "htm") return Emit::html;
  if (ext == "txt") return Emit::compact;
  return std::nullopt;
}

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
constexpr std::string_view kDiscoveryOnly[] = {"--discover-shallow", "--nominate-only", "--judgments",
                                               "--finalize",         "--enrich-budget", "--enrich-workers"};
constexpr std::string_view kDoctorRejects[] = {"--discover",      "--discover-shallow",
                                               "--nominate-only", "--judgments",
                                               "--finalize",      "--angles",
                                               "--enrich-budget", "--enrich-workers",
                                               "--days",          "--as-of",
                                               "--quick",         "--deep",
                                               "--plan",          "--save",
                                               "--save-dir",      "--store",
                                               "--no-compare",    "--summarize"};

}  // namespace

namespace {

ParseOutcome to_stdout(std::string text) {
  ParseOutcome out;
  out.text = std::move(text);
  out.to_stdout = true;
  return out;
}

// Every --long name of the app, for did-you-mean.
std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

const CLI::Option* option_of(const CLI::App& app, std::string_view arg) {
  const std::string name(arg.substr(0, arg.find('=')));
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames())
      if ("--" + l == name) return o;
    for (const auto& sn : o->get_snames())
      if ("-" + sn == name) return o;
  }
  return nullptr;
}

// Every option that takes a value names it (type_name "N", "FILE", ...); flags name none,
// and --discover's optional "[=DOMAIN]" is written inside the flag.
bool takes_value(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  return !type.empty() && type.front() != '[' && !o.get_lnames().empty();
}

// The positional words of the command line as CLI11 will see them, and whether --help
// is among the flags: enough to route help before parsing (which could fail on the rest).
struct Scan {
  std::vector<std::string> words;
  bool help = false;
  bool discover = false;
};
Scan scan(const CLI::App& app, const std::vector<std::string>& args) {
  Scan s;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      s.words.insert(s.words.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a.size() > 1 && a.front() == '-') {
      if (a == "--help" || a == "-h") s.help = true;
      if (a == "--discover") s.discover = true;
      const CLI::Option* o = option_of(app, a);
      if (o != nullptr && a.find('=') == std::string::npos && takes_value(*o)) ++i;
      continue;
    }
    s.words.push_back(a);
  }
  return s;
}

// The help row for `help WORDS` / `WORDS --help`: the longest command named by the words.
const CommandHelp* command_of(const std::vector<std::string>& words, std::size_t from) {
  if (words.size() <= from) return nullptr;
  if (words.size() > from + 1)
    if (const auto* verb = find_command(words[from] + " " + words[from + 1])) return verb;
  return find_command(words[from]);
}

// CLI11's own messages in the product's words, naming the flag.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  std::string flag;
  if (const auto at = what.find("--"); at != std::string::npos) {
    const auto stop = what.find_first_of(" :=,", at);
    flag = what.substr(at, stop == std::string::npos ? std::string::npos : stop - at);
  }
  const CLI::Option* o = flag.empty() ? nullptr : option_of(app, flag);
  if (o != nullptr) {
    if (!takes_value(*o)) return fmt::format("{} takes no value", flag);
    return fmt::format("{} needs a value", flag);
  }
  return "cannot read the command line: " + what;
}

// A numeric flag's value, decimal only; or the message saying why it is not one.
template <typename T>
std::optional<std::string> number(const CLI::App& app, std::string_view flag, const std::string& raw, std::optional<T>* out) {
  if (app.get_option(std::string(flag))->count() == 0) return std::nullopt;
  constexpr bool integer = std::is_integral_v<T>;
  if (!decimal(raw, integer))
    return fmt::format("{} '{}' is not a {}", flag, raw,
                       integer ? "whole number (digits only, no leading zero)" : "decimal number");
  try {
    if constexpr (integer) {
      const long long v = std::stoll(raw);
      if (v > 1000000) return fmt::format("{} '{}' is far too large", flag, raw);
      *out = static_cast<T>(v);
    } else {
      *out = std::stod(raw);
    }
  } catch (const std::exception&) {
    return fmt::format("{} '{}' is out of range", flag, raw);
  }
  return std::nullopt;
}

}  // namespace

ParseOutcome parse_args(int argc, const char* const* argv, core::UnixSeconds today) {
  CLI::App app{"last30days: what people actually said and did about a topic in the last N days.", "last30days"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_help_flag("-h,--help", "this help; COMMAND --help for one command")->group("General");
  app.set_version_flag("--version", std::string("last30days ") + L30_VERSION, "print the version")->group("General");
  app.allow_extras(true);  // unknown flags are answered below, with the nearest known one
  app.positionals_at_end(false);

  std::vector<std::string> words;
  app.add_option("topic", words, "the topic to research (several words are joined)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  Options o;
  std::string days_s, timeout_s, budget_s, workers_s, limit_s, every_s;
  std::string as_of, emit, search, plan;
  bool quick = false, deep = false;
  const auto group = [](CLI::Option* opt, const char* g, const char* value = "") {
    opt->group(g);
    if (*value != '\0') opt->type_name(value);
  };
  group(app.add_option("--days", days_s, "window length: the N days up to --as-of, inclusive (default 30)"), "Research", "N");
  group(app.add_option("--as-of", as_of, "end of the window, UTC (default today)"), "Research", "YYYY-MM-DD");
  group(app.add_flag("--quick", quick, "fewer items and sub-queries, faster"), "Research");
  group(app.add_flag("--deep", deep, "more items and sub-queries, slower"), "Research");
  group(app.add_option("--search", search, "only these sources, comma-separated (ids below)"), "Research", "IDS");
  group(app.add_option("--plan", plan, "a query plan from an agent host: JSON, or a file holding it"), "Research", "JSON|FILE");
  group(app.add_flag("--no-compare", o.no_compare, "research 'A vs B' as one phrase, not a comparison"), "Research");
  group(app.add_option("--timeout", timeout_s, "whole-run wall-clock cap (default by depth)"), "Research", "SECONDS");
  group(app.add_flag("--strict", o.strict, "exit 3 if any source did not answer fully"), "Research");
  group(app.add_option("--emit", emit, "compact, md, json or html (default: from --output's extension, else compact)"), "Output",
        "FORMAT");
  group(app.add_option("--output", o.output_file, "write the output to FILE instead of stdout"), "Output", "FILE");
  group(app.add_option("--limit", limit_s, "stories in the brief (default 12); library search: results (default 10)"), "Output",
        "N");
  group(app.add_flag("--save", o.save, "also save the brief (.md and .json) to the memory dir"), "Output");
  group(app.add_option("--save-dir", o.save_dir, "save there (implies --save)"), "Output", "DIR");
  group(app.add_flag("--store", o.store, "record the run in the research store (library, watch)"), "Output");
  group(app.add_flag("--quiet", o.quiet, "no progress or notes on stderr"), "Output");
  group(app.add_flag(
            "--summarize", o.summarize,
            "add a \"What happened\" by an OpenAI-compatible model, every citation checked (LAST30DAYS_LLM_URL, _MODEL, _KEY)"),
        "Output");
  bool discover_flag = false;
  auto* discover = app.add_flag("--discover", discover_flag, "what is spiking now; --discover=DOMAIN for one domain");
  group(discover, "Discovery", "[=DOMAIN]");
  group(app.add_flag("--discover-shallow", o.discover_shallow, "shallow tier: fewer, quicker sub-runs"), "Discovery");
  group(app.add_flag("--nominate-only", o.nominate_only, "write nominations for an agent host to judge"), "Discovery");
  group(app.add_option("--judgments", o.judgments_file, "the host's judgments of the nominations"), "Discovery", "FILE");
  group(app.add_flag("--finalize", o.finalize, "apply the host's angles and print the pending result"), "Discovery");
  group(app.add_option("--angles", o.angles_file, "the host's angles, for --finalize"), "Discovery", "FILE");
  group(app.add_option("--enrich-budget", budget_s, "enrichment wall-clock budget"), "Discovery", "SECONDS");
  group(app.add_option("--enrich-workers", workers_s, "concurrent enrichment sub-runs (1-16)"), "Discovery", "N");
  group(app.add_option("--every", every_s, "watch add: run the topic every HOURS (default 24)"), "Library and watch", "HOURS");
  group(app.add_flag("--all", o.all, "watch run: every watched topic, not only the due ones"), "Library and watch");
  group(app.add_option("--notify", o.notify, "watch add: this topic's channels (webhook,slack,discord,ntfy,email) or none"),
        "Library and watch", "CHANNELS");
  group(app.add_option("--record", o.record_dir, "record every upstream exchange into DIR"), "Recording", "DIR");
  group(app.add_option("--replay", o.replay_dir, "answer every request from DIR, never the network"), "Recording", "DIR");

  std::string out_note;
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() <= 1) {
    ParseOutcome out;
    out.exit_code = 2;
    out.text = usage_text();
    out.message = "a TOPIC or a COMMAND is required";
    return out;
  }
  // Not a user's flag: the build writes the man page with it (share/man/man1/last30days.1).
  if (args.size() == 2 && args[1] == "--man-page") return to_stdout(man_page(app));

  // Help comes before parsing: `watch add --help` must not fail on a missing TOPIC.
  const Scan sc = scan(app, args);
  const bool help_word = !sc.words.empty() && sc.words[0] == "help";
  if (sc.help || help_word) {
    if (help_word && sc.words.size() > 2 && !verbs_of(sc.words[1]).empty() &&
        find_command(sc.words[1] + " " + sc.words[2]) == nullptr)
      return usage_error(
          fmt::format("{} has no command '{}'{}", sc.words[1], sc.words[2], did_you_mean(sc.words[2], verbs_of(sc.words[1]))));
    if (help_word && sc.words.size() > 1) {
      const auto* c = command_of(sc.words, 1);
      if (c == nullptr && (sc.words[1] == "research" || sc.words[1] == "TOPIC")) c = find_command("");
      if (c == nullptr) {
        auto known = command_words();
        known.emplace_back("discover");
        if (sc.words.size() > 2) {
          auto verbs = verbs_of(sc.words[1]);
          if (!verbs.empty())
            return usage_error(
                fmt::format("{} has no command '{}'{}", sc.words[1], sc.words[2], did_you_mean(sc.words[2], verbs)));
        }
        return usage_error(fmt::format("no command '{}'{} (to research it, quote the whole topic: last30days \"help {}\")",
                                       sc.words[1], did_you_mean(sc.words[1], known), sc.words[1]));
      }
      return to_stdout(command_help(*c, app));
    }
    if (const auto* c = command_of(sc.words, 0); c != nullptr && sc.help) return to_stdout(command_help(*c, app));
    if (sc.discover && sc.help) return to_stdout(command_help(*find_command("discover"), app));
    return to_stdout(global_help(app));
  }
  if (!sc.words.empty() && sc.words[0] == "version") {
    if (sc.words.size() > 1)
      return usage_error(
          fmt::format("version takes no arguments (to research a topic, quote it: last30days \"version {}\")", sc.words[1]));
    return to_stdout(std::string("last30days ") + L30_VERSION + "\n");
  }

  // --discover=DOMAIN is the only way to name a domain: a word after a bare --discover is
  // positional, so `--discover some topic` is a topic (which discovery rejects), never
  // the domain "some".
  std::optional<std::string> discover_domain;
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
    return to_stdout(global_help(app));
  } catch (const CLI::CallForVersion&) {
    return to_stdout(std::string("last30days ") + L30_VERSION + "\n");
  } catch (const CLI::ParseError& e) {
    return usage_error(parse_error_message(app, e));
  }
  for (const auto& extra : app.remaining()) {
    if (extra.size() > 1 && extra.front() == '-') {
      const std::string name = extra.substr(0, extra.find('='));
      return usage_error(fmt::format("unknown flag {}{}", name, did_you_mean(name, long_names(app))));
    }
    words.push_back(extra);  // CLI11 leaves a word after an unknown flag here
  }
  // Once is enough: a second --days would silently win over the first. --search adds up.
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 1 && takes_value(*opt) && opt->get_name() != "--search")
      return usage_error(fmt::format("{} is given {} times: give it once", opt->get_name(), opt->count()));
  if (app.get_option("--search")->count() > 1) {
    search.clear();
    for (const auto& v : app.get_option("--search")->results()) search += (search.empty() ? "" : ",") + v;
  }

  // Presence, never truthiness: a flag given with an empty value is a mistake, not a default.
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0 || opt->get_name().rfind("--", 0) != 0) continue;
    for (const auto& value : opt->results())
      if (opt->get_expected_min() > 0 && core::trim(value).empty())
        return usage_error(fmt::format("{} needs a value", opt->get_name()));
  }
  if (discover_domain && core::trim(*discover_domain).empty())
    return usage_error("--discover= needs a DOMAIN (bare --discover is global discovery)");
  std::optional<int> days;
  for (auto bad :
       {number(app, "--days", days_s, &days), number(app, "--timeout", timeout_s, &o.timeout_seconds),
        number(app, "--enrich-budget", budget_s, &o.enrich_budget), number(app, "--enrich-workers", workers_s, &o.enrich_workers),
        number(app, "--limit", limit_s, &o.limit), number(app, "--every", every_s, &o.every_hours)})
    if (bad) return usage_error(*bad);

  // Subcommands are positional words.
  static const std::map<std::string_view, Command> kCommands{{"doctor", Command::doctor},
                                                             {"library", Command::library},
                                                             {"watch", Command::watch},
                                                             {"mcp", Command::mcp},
                                                             {"completions", Command::completions}};
  if (!words.empty() && kCommands.count(words[0]) > 0) {
    o.command = kCommands.at(words[0]);
    o.command_args.assign(words.begin() + 1, words.end());
    words.clear();
  }
  if (o.command == Command::completions) {
    if (o.command_args.size() != 1) return usage_error("completions needs one shell: bash, zsh or fish");
    auto script = completion_script(app, core::lower_ascii(o.command_args[0]));
    if (!script)
      return usage_error(fmt::format("completions: no shell '{}'{}: bash, zsh or fish", o.command_args[0],
                                     did_you_mean(o.command_args[0], {"bash", "zsh", "fish"})));
    return to_stdout(std::move(*script));
  }
  // A lone word one typo away from a command is researched, but the user hears of it.
  if (words.size() == 1 && !discover->count() && core::utf8_length(words[0]) >= 4)
    if (const auto cmd = nearest(words[0], command_words(), true); cmd && *cmd != words[0] && !o.quiet)
      out_note = fmt::format("researching '{}' (for the command, type: last30days {})", core::printable_line(words[0]), *cmd);
  if (o.command == Command::mcp && !o.command_args.empty())
    return usage_error(
        fmt::format("mcp takes no arguments (to research a topic, quote it: last30days \"mcp {}\")", o.command_args.front()));
  if (o.command == Command::doctor) {
    if (!o.command_args.empty()) return usage_error(fmt::format("doctor takes no arguments (got '{}')", o.command_args.front()));
    for (auto name : kDoctorRejects)
      if (app.get_option(std::string(name))->count() > 0)
        return usage_error(
            fmt::format("doctor does not take {}: it probes every source (--search, --timeout and --strict apply)", name));
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
  if (!o.judgments_file.empty() && o.finalize)
    return usage_error("--judgments and --finalize are separate legs: run them one after the other");
  if (o.summarize && (o.nominate_only || !o.judgments_file.empty() || o.finalize))
    return usage_error("--summarize applies to a one-shot --discover, not to the host protocol's legs");

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
    const std::string e = core::lower_ascii(core::trim(emit));
    if (e == "compact") o.emit = Emit::compact;
    else if (e == "md" || e == "markdown") o.emit = Emit::md;
    else if (e == "json") o.emit = Emit::json;
    else if (e == "html") o.emit = Emit::html;
    else
      return usage_error(fmt::format("--emit '{}': expected compact, md, json or html{}", emit,
                                     did_you_mean(e, {"compact", "md", "markdown", "json", "html"})));
    o.emit_set = true;
  } else if (const auto inferred = emit_for_file(o.output_file)) {
    o.emit = *inferred;  // --output brief.html writes HTML
  }
  if (discovering && o.emit == Emit::html)
    return usage_error(o.emit_set
                           ? "--emit html is not supported with --discover"
                           : "--discover does not write HTML: give --output another extension (.md, .json, .txt) or --emit");
  if (app.get_option("--search")->count() > 0) {
    std::string_view rest = search;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string name(core::trim(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (name.empty()) continue;
      const auto* src = sources::find(name);
      if (src == nullptr) return usage_error(unknown_source("--search", name));
      if (std::find(o.sources.begin(), o.sources.end(), src->id()) == o.sources.end()) o.sources.emplace_back(src->id());
    }
    if (o.sources.empty()) return usage_error("--search needs at least one source id");
  }
  if (o.timeout_seconds && (!std::isfinite(*o.timeout_seconds) || *o.timeout_seconds <= 0 || *o.timeout_seconds > 3600))
    return usage_error("--timeout must be a number of seconds in (0, 3600]");
  if (o.enrich_budget &&
      (!std::isfinite(*o.enrich_budget) || *o.enrich_budget <= 0 || *o.enrich_budget > discover::kMaxBudgetSeconds))
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
        return usage_error(
            fmt::format("--discover takes no topic (got '{}'): to pick a domain write --discover=DOMAIN", o.topic));
      break;
    default: break;
  }
  ParseOutcome out;
  out.note = std::move(out_note);
  out.options = std::move(o);
  return out;
}

}  // namespace cli
