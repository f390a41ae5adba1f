#pragma once
// Shell completion scripts generated from the CLI definition itself (the CLI11 App
// that parse_args builds), so a new flag is completed without touching this file.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace cli {

// shell: "bash", "zsh" or "fish"; nullopt for another. The command words and their
// verbs come from the help table (cli/help.hpp).
std::optional<std::string> completion_script(const CLI::App& app, std::string_view shell);

}  // namespace cli
