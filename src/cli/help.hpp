#pragma once
// What the program says about itself: the command table behind `help`, each command's
// --help, bare usage, the man page and the did-you-mean suggestions. The flags come from
// the CLI11 App parse_args builds, so help, man page and completions cannot drift apart.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace cli {

// One command or command verb ("doctor", "watch add"). A new command adds a row to
// commands() in help.cpp; parse_args, help, the man page and the completions read it.
struct CommandHelp {
  std::string_view name;                   // "watch add"; "" = research, the default command
  std::string_view synopsis;               // after "last30days ": "watch add TOPIC [--every HOURS] [...]"
  std::string_view summary;                // one line, for the command table
  std::string_view details;                // a paragraph, or ""
  std::vector<std::string_view> flags;     // the flags it takes, shown with their help
  std::vector<std::string_view> examples;  // whole command lines
};

const std::vector<CommandHelp>& commands();
// The row for "doctor", "watch", "watch add" ...; nullptr when there is none.
const CommandHelp* find_command(std::string_view name);
// The top-level command words (doctor, library, watch, mcp, completions, help, version).
std::vector<std::string> command_words();
// The verbs of a command word ("watch" -> add, list, remove, run), in table order.
std::vector<std::string> verbs_of(std::string_view word);

// Bare `last30days`: usage and a handful of examples.
std::string usage_text();
// `last30days --help` / `help`: grouped flags, commands, source ids, environment, exit codes.
std::string global_help(const CLI::App& app);
// `last30days help watch`, `watch add --help` ...
std::string command_help(const CommandHelp& c, const CLI::App& app);
// roff for share/man/man1/last30days.1, from the same table and flags.
std::string man_page(const CLI::App& app);

// The candidate nearest to word (edit distance, transpositions count as one; or a unique
// prefix of three or more characters); nullopt when none is near enough to be a typo.
// strict: one edit at most, no prefixes (for a word that may well be meant as it is).
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates, bool strict = false);
// " (did you mean X?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "WHERE: unknown source 'NAME' (did you mean hackernews?)", or with the known ids when none is
// near; NAME as the user typed it (made safe for a terminal).
std::string unknown_source(std::string_view where, std::string_view name);

}  // namespace cli
