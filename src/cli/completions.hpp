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

// shell: "bash" or "zsh"; nullopt for another. commands: the command words
// (doctor, mcp, ...) accepted where a topic may stand.
std::optional<std::string> completion_script(const CLI::App& app, std::string_view shell,
                                             const std::vector<std::string_view>& commands);

}  // namespace cli
