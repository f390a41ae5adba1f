#include "cli/help.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>

#include "core/known_keys.hpp"
#include "core/text.hpp"
#include "render/escape.hpp"
#include "sources/source.hpp"

namespace cli {

namespace {

// Flag groups, in the order --help shows them (each option's CLI11 group).
constexpr std::string_view kGroups[] = {"Research", "Output", "Discovery", "Library and watch", "Recording", "General"};

constexpr std::string_view kResearchFlags[] = {
    "--days", "--as-of",    "--quick", "--deep",   "--search",    "--plan",    "--no-compare", "--limit",  "--emit",  "--output",
    "--save", "--save-dir", "--store", "--strict", "--summarize", "--timeout", "--quiet",      "--record", "--replay"};

std::vector<std::string_view> research_flags() { return {std::begin(kResearchFlags), std::end(kResearchFlags)}; }

}  // namespace

const std::vector<CommandHelp>& commands() {
  static const std::vector<CommandHelp> table{
      {"",
       "TOPIC [options]",
       "research one topic (the default command)",
       "Searches every available source for TOPIC in the window, keeps what falls inside it, ranks it by relevance, "
       "engagement and freshness, merges cross-posts into stories and prints a cited brief. A topic of the form "
       "\"A vs B [vs C ...]\" (2 to 6) is a comparison: each side is researched in parallel and shown side by side; "
       "--no-compare researches it as one phrase.",
       research_flags(),
       {"last30days \"rust async runtime\"", "last30days \"bun vs deno\" --days 14",
        "last30days kubernetes --search hn,reddit --emit json", "last30days \"open source llm\" --output brief.html"}},
      {"discover",
       "--discover[=DOMAIN] [options]",
       "what is spiking now, everywhere or in one DOMAIN",
       "Nominates topics from the platforms' listings, enriches each with a quick research sub-run under a hard "
       "wall-clock budget, and ranks them by velocity and cross-source corroboration. Bare --discover is global; "
       "--discover=DOMAIN (ai, security, ...) looks at one domain. Agent hosts judge nominations with "
       "--nominate-only, then --judgments FILE, then --finalize --angles FILE.",
       {"--discover", "--discover-shallow", "--nominate-only", "--judgments", "--finalize", "--angles", "--enrich-budget",
        "--enrich-workers", "--days", "--search", "--emit", "--output", "--timeout", "--quiet", "--strict", "--summarize"},
       {"last30days --discover", "last30days --discover=ai --days 3", "last30days --discover --emit json"}},
      {"doctor",
       "doctor [--search IDS] [--timeout SECONDS] [--strict] [--emit compact|json]",
       "probe every source, say what is missing and how to fix it",
       "Makes the cheapest request each source allows and reports its state, the configuration keys it reads (set or "
       "not, never their values) and what to do about anything that is not ok.",
       {"--search", "--timeout", "--strict", "--emit", "--output", "--quiet"},
       {"last30days doctor", "last30days doctor --search github,x"}},
      {"library",
       "library search|list|forget ...",
       "the research store: full-text search, topics, forgetting a topic",
       "The runs recorded with --store and the briefs saved with --save, searched together.",
       {"--limit", "--emit", "--output"},
       {"last30days library search \"tokio\"", "last30days library search rust --limit 5 --emit json"}},
      {"library search",
       "library search QUERY [--limit N] [--emit compact|md|json]",
       "full-text search over recorded runs and saved briefs",
       "Indexes the saved briefs first, then searches the store's findings and briefs for QUERY (all words must match).",
       {"--limit", "--emit", "--output"},
       {"last30days library search \"tokio\"", "last30days library search rust --limit 5 --emit json"}},
      {"library list",
       "library list [--emit compact|md|json]",
       "the stored topics, their run count and last run",
       "",
       {"--emit", "--output"},
       {"last30days library list", "last30days library list --emit json"}},
      {"library forget",
       "library forget TOPIC",
       "remove a topic, its runs and the findings only it holds",
       "",
       {},
       {"last30days library forget \"rust async runtime\""}},
      {"watch",
       "watch add|list|remove|run|notify|budget ...",
       "a watchlist: re-run topics, print only what is new",
       "Watched topics live in the research store. `watch run` researches the topics that are due (or --all) and prints "
       "only the stories not seen in earlier runs; run it from cron or a systemd timer.",
       {},
       {"last30days watch add \"rust async runtime\" --every 12", "last30days watch list", "last30days watch run"}},
      {"watch add",
       "watch add TOPIC [--days N] [--search IDS] [--every HOURS] [--notify CHANNELS|none]",
       "watch a topic",
       "Adds TOPIC (or updates it) with its window, sources, interval (default every 24 hours) and, with --notify, the "
       "notification channels its news goes to (default: every configured one).",
       {"--days", "--search", "--every", "--notify"},
       {"last30days watch add \"rust async runtime\" --every 12 --search hn,reddit"}},
      {"watch list",
       "watch list [--emit compact|json]",
       "the watched topics, when each is due",
       "",
       {"--emit", "--output"},
       {"last30days watch list", "last30days watch list --emit json"}},
      {"watch remove", "watch remove TOPIC", "stop watching a topic", "", {}, {"last30days watch remove \"rust async runtime\""}},
      {"watch run",
       "watch run [--all] [--emit compact|md|json]",
       "research the due topics, print what is new",
       "",
       {"--all", "--emit", "--output", "--quiet", "--strict", "--summarize"},
       {"last30days watch run", "last30days watch run --all --emit md --output new.md"}},
      {"watch notify",
       "watch notify test CHANNEL",
       "send a sample notification to a configured channel",
       "CHANNEL is webhook, slack, discord, ntfy or email (LAST30DAYS_NOTIFY_* in the environment or the .env file).",
       {"--timeout"},
       {"last30days watch notify test slack"}},
      {"watch budget",
       "watch budget [SOURCE REQUESTS|off] [--emit compact|json]",
       "daily request budgets: list them, or keep one in the store",
       "Alone, lists the budgets in force with today's spend. With SOURCE and REQUESTS, caps the HTTP requests SOURCE may "
       "make per UTC day for every run that uses this store: watch run, research with --store (or MCP store: true), and "
       "any research with a LAST30DAYS_BUDGET_<SOURCE> set (which opens the store to count). When that key is set too, "
       "the stricter of the two holds. A spent budget skips the source as rate-limited, with a reason naming the budget, "
       "until 00:00 UTC. The unit is a request: for YouTube's Data API a search costs 100 quota units and a videos.list 1 "
       "(doctor says so). `off` removes the store's budget; watch list and doctor show the budgets too.",
       {"--emit", "--output"},
       {"last30days watch budget", "last30days watch budget youtube 90", "last30days watch budget github off"}},
      {"mcp",
       "mcp",
       "serve research, discovery and the library to an agent host (MCP over stdio)",
       "Speaks the Model Context Protocol on stdin and stdout until stdin closes. Register it with a host, e.g. "
       "`claude mcp add last30days -- last30days mcp`.",
       {},
       {"claude mcp add last30days -- last30days mcp"}},
      {"completions",
       "completions bash|zsh|fish",
       "print a shell completion script",
       "Installed packages already ship them; for a hand-built binary write the script where the shell looks.",
       {},
       {"last30days completions bash > ~/.local/share/bash-completion/completions/last30days",
        "last30days completions zsh > \"${fpath[1]}/_last30days\"",
        "last30days completions fish > ~/.config/fish/completions/last30days.fish"}},
      {"help", "help [COMMAND]", "help for the product or one command", "", {}, {"last30days help", "last30days help watch add"}},
      {"version", "version", "print the version", "", {}, {"last30days version"}},
  };
  return table;
}

const CommandHelp* find_command(std::string_view name) {
  for (const auto& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> command_words() {
  std::vector<std::string> out;
  for (const auto& c : commands())
    if (!c.name.empty() && c.name != "discover" && c.name.find(' ') == std::string_view::npos) out.emplace_back(c.name);
  return out;
}

std::vector<std::string> verbs_of(std::string_view word) {
  std::vector<std::string> out;
  for (const auto& c : commands())
    if (c.name.size() > word.size() + 1 && c.name.substr(0, word.size()) == word && c.name[word.size()] == ' ')
      out.emplace_back(c.name.substr(word.size() + 1));
  return out;
}

namespace {

// "--days N", "--discover[=DOMAIN]", "-h, --help".
std::string flag_label(const CLI::Option& o) {
  std::string names;
  for (const auto& s : o.get_snames()) names += "-" + s + ", ";
  names += o.get_name(false, false).empty() ? "" : "--" + o.get_lnames().front();
  const std::string value = o.get_type_name();
  if (value.empty()) return names;
  if (value.front() == '[') return names + value;  // optional value, already spelled
  return names + " " + value;
}

const CLI::Option* option_named(const CLI::App& app, std::string_view name) {
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames())
      if ("--" + l == name) return o;
  return nullptr;
}

void flag_rows(std::string& out, const std::vector<const CLI::Option*>& opts) {
  std::size_t width = 0;
  for (const auto* o : opts) width = std::max(width, flag_label(*o).size());
  for (const auto* o : opts) out += fmt::format("  {:<{}}  {}\n", flag_label(*o), width, o->get_description());
}

void commands_block(std::string& out) {
  out += "Commands:\n";
  std::vector<std::pair<std::string, std::string_view>> rows;
  std::size_t width = 0;
  for (const auto& c : commands()) {
    if (c.name.find(' ') != std::string_view::npos) continue;  // verbs: in their command's help
    // The synopsis when it is short (completions bash|zsh|fish), else the name.
    std::string label = c.name.empty() ? "TOPIC" : c.name == "discover" ? "--discover[=DOMAIN]" : std::string(c.name);
    if (!c.name.empty() && c.synopsis.size() <= 26 && verbs_of(c.name).empty()) label = std::string(c.synopsis);
    std::string verbs;
    for (const auto& v : verbs_of(c.name)) verbs += (verbs.empty() ? " " : "|") + v;
    rows.emplace_back("last30days " + label + verbs, c.summary);
    width = std::max(width, rows.back().first.size());
  }
  for (const auto& [label, summary] : rows) out += fmt::format("  {:<{}}  {}\n", label, width, summary);
}

void sources_block(std::string& out) {
  out += "Sources (--search takes their ids, comma-separated; aliases hn, so, gh, yt, ...):\n";
  for (const auto* s : sources::all()) {
    std::string keys;
    for (auto k : s->config_keys()) keys += (keys.empty() ? "" : ", ") + std::string(k);
    out += fmt::format("  {:<14} {}{}\n", s->id(), s->name(), keys.empty() ? "" : " (reads " + keys + ")");
  }
}

constexpr std::string_view kExitCodes[][2] = {
    {"0", "success, also an honest \"nothing solid\" and degraded sources"},
    {"1", "internal error, or the output could not be written"},
    {"2", "usage or contract error (a bad flag, value or file)"},
    {"3", "--strict and a source did not answer fully"},
    {"4", "no source answered at all (the brief still says why)"},
};

void environment_block(std::string& out) {
  out += "Environment (also read from $XDG_CONFIG_HOME/last30days/.env, KEY=value lines):\n";
  for (const auto& k : core::known_keys()) out += fmt::format("  {:<33} {}\n", k.name, k.meaning);
}

void examples_block(std::string& out, const std::vector<std::string_view>& examples) {
  if (examples.empty()) return;
  out += "Examples:\n";
  for (auto e : examples) out += fmt::format("  {}\n", e);
}

}  // namespace

std::string usage_text() {
  const auto& research = commands().front();
  std::string out =
      "Usage: last30days TOPIC [options]\n       last30days COMMAND ...   (doctor, library, watch, mcp, completions)\n\n";
  out += "Research what people said and did about TOPIC in the last 30 days.\n\n";
  examples_block(out, research.examples);
  out += "  last30days --discover\n  last30days doctor\n\n";
  out += "More: last30days --help, last30days help COMMAND, man last30days\n";
  return out;
}

std::string global_help(const CLI::App& app) {
  std::string out = "last30days: what people actually said and did about a topic in the last N days.\n\n";
  out += "Usage: last30days TOPIC [options]\n       last30days COMMAND [options]\n\n";
  commands_block(out);
  for (auto group : kGroups) {
    std::vector<const CLI::Option*> opts;
    for (const CLI::Option* o : app.get_options())
      if (o->get_group() == group) opts.push_back(o);
    if (opts.empty()) continue;
    out += fmt::format("\n{} options:\n", group);
    flag_rows(out, opts);
  }
  out += "\n";
  sources_block(out);
  out += "\n";
  environment_block(out);
  out += "\nExit codes:\n";
  for (const auto& e : kExitCodes) out += fmt::format("  {}  {}\n", e[0], e[1]);
  out += "\n";
  examples_block(out, commands().front().examples);
  out += "\nRun 'last30days help COMMAND' for one command (e.g. last30days help watch add).\n";
  return out;
}

std::string command_help(const CommandHelp& c, const CLI::App& app) {
  if (c.name.empty()) return global_help(app);
  std::string out = fmt::format("Usage: last30days {}\n\n{}.\n", c.synopsis, c.summary);
  if (!c.details.empty()) out += fmt::format("\n{}\n", c.details);
  const auto verbs = verbs_of(c.name);
  if (!verbs.empty()) {
    out += "\nCommands:\n";
    for (const auto& v : verbs) {
      const auto* row = find_command(std::string(c.name) + " " + v);
      out += fmt::format("  last30days {:<44}  {}\n", row->synopsis, row->summary);
    }
  }
  std::vector<const CLI::Option*> opts;
  for (auto name : c.flags)
    if (const auto* o = option_named(app, name)) opts.push_back(o);
  if (!opts.empty()) {
    out += "\nOptions:\n";
    flag_rows(out, opts);
  }
  out += "\n";
  examples_block(out, c.examples);
  if (c.name == "doctor" || c.name == "discover") {
    out += "\n";
    sources_block(out);
  }
  if (!verbs.empty()) out += fmt::format("\nRun 'last30days help {} {}' for one of them.\n", c.name, verbs.front());
  return out;
}

namespace {

// Text for a roff line: backslashes and hyphens escaped, no line starting with a control character.
std::string roff(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out.push_back(c);
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app) {
  std::string out = fmt::format(".TH LAST30DAYS 1 \"\" \"last30days {}\" \"User Commands\"\n", L30_VERSION);
  out += ".SH NAME\nlast30days \\- what people actually said and did about a topic in the last N days\n";
  out += ".SH SYNOPSIS\n";
  for (const auto& c : commands())
    if (c.name.find(' ') == std::string_view::npos) out += fmt::format(".B last30days\n{}\n.br\n", roff(c.synopsis));
  out += ".SH DESCRIPTION\n" + roff(commands().front().details) + "\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : commands()) {
    if (c.name.empty()) continue;
    out += fmt::format(".TP\n.B last30days {}\n{}.", roff(c.synopsis), roff(c.summary));
    out += c.details.empty() ? "\n" : " " + roff(c.details) + "\n";
  }
  out += ".SH OPTIONS\n";
  for (auto group : kGroups) {
    out += fmt::format(".SS {}\n", group);
    for (const CLI::Option* o : app.get_options())
      if (o->get_group() == group) out += fmt::format(".TP\n.B {}\n{}\n", roff(flag_label(*o)), roff(o->get_description()));
  }
  out += ".SH SOURCES\n";
  for (const auto* s : sources::all()) {
    std::string keys;
    for (auto k : s->config_keys()) keys += (keys.empty() ? "" : ", ") + std::string(k);
    out += fmt::format(".TP\n.B {}\n{}{}\n", roff(s->id()), roff(s->name()), keys.empty() ? "" : roff(" (reads " + keys + ")"));
  }
  out +=
      ".SH ENVIRONMENT\nEach key may also be set in\n.IR $XDG_CONFIG_HOME/last30days/.env\n"
      "(default ~/.config/last30days/.env) as KEY=value lines; the environment wins over the file.\n";
  for (const auto& k : core::known_keys()) out += fmt::format(".TP\n.B {}\n{}\n", roff(k.name), roff(k.meaning));
  out +=
      ".SH FILES\n.TP\n.I ~/.config/last30days/.env\nconfiguration and credentials (keep it private: chmod 600)\n"
      ".TP\n.I ~/.local/share/last30days/research.db\nthe research store (--store, library, watch)\n"
      ".TP\n.I ~/.local/state/last30days/\ndiscovery's pending nominations between protocol legs\n";
  out += ".SH EXIT STATUS\n";
  for (const auto& e : kExitCodes) out += fmt::format(".TP\n.B {}\n{}\n", e[0], roff(e[1]));
  out += ".SH EXAMPLES\n";
  for (const auto& c : commands())
    for (auto e : c.examples)
      if (c.name.find(' ') == std::string_view::npos) out += fmt::format(".nf\n{}\n.fi\n", roff(e));
  out += ".SH SEE ALSO\nThe agent-facing guide: /usr/share/last30days/SKILL.md\n";
  return out;
}

namespace {

// Optimal string alignment distance: an adjacent transposition is one edit.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string unknown_source(std::string_view where, std::string_view name) {
  std::string known;
  std::vector<std::string> ids;
  for (const auto* s : sources::all()) {
    known += (known.empty() ? "" : ", ") + std::string(s->id());
    ids.emplace_back(s->id());
  }
  const auto near = nearest(core::lower_ascii(name), ids);
  return near ? fmt::format("{}: unknown source '{}' (did you mean {}?)", where, render::term::text(name), *near)
              : fmt::format("{}: unknown source '{}' (known: {})", where, render::term::text(name), known);
}

std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates, bool strict) {
  if (word.empty()) return std::nullopt;
  // Case does not matter, and leading dashes are not letters the user mistyped.
  const auto bare = [](std::string_view s) {
    std::string out(s.substr(std::min(s.find_first_not_of('-'), s.size())));
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  };
  const std::string wb = bare(word);
  if (wb.empty()) return std::nullopt;
  // A unique prefix first: "--save-d" is --save-dir, though --save is as few edits away.
  if (!strict && wb.size() >= 3) {
    std::optional<std::string> prefixed;
    bool ambiguous = false;
    for (const auto& c : candidates) {
      if (bare(c).substr(0, wb.size()) != wb) continue;
      if (prefixed) ambiguous = true;
      else prefixed = c;
    }
    if (prefixed && !ambiguous) return prefixed;
  }
  std::optional<std::string> best;
  std::size_t best_d = 0;
  const std::size_t allowed = strict || wb.size() <= 4 ? 1 : wb.size() <= 8 ? 2 : 3;
  for (const auto& c : candidates) {
    const std::size_t d = distance(wb, bare(c));
    // A tie goes to the candidate with the same first letter: "fsh" is fish, not zsh.
    const bool better =
        !best || d < best_d || (d == best_d && bare(c).front() == wb.front() && bare(*best).front() != wb.front());
    if (d <= allowed && better) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto n = nearest(word, candidates);
  return n ? fmt::format(" (did you mean {}?)", *n) : "";
}

}  // namespace cli
