#pragma once
// Configuration resolution: flag > process environment > $XDG_CONFIG_HOME/last30days/.env > default.
// Flags are applied by the CLI; this class covers the other three layers.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

class Config {
 public:
  // Reads the process environment and the .env file it points to.
  static Config from_process();
  // For tests: explicit layers.
  Config(std::map<std::string, std::string> env, std::map<std::string, std::string> file)
      : env_(std::move(env)), file_(std::move(file)) {}
  Config() = default;

  std::optional<std::string> get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  void set_override(std::string key, std::string value) { env_[std::move(key)] = std::move(value); }

  // Values of every credential key that is set: renderers and logs redact them.
  std::vector<std::string> secret_values() const;

  std::string config_dir() const;  // $XDG_CONFIG_HOME/last30days
  std::string env_file_path() const { return config_dir() + "/.env"; }

  static bool is_secret_key(std::string_view key);
  // Parses KEY=value lines; '#' comments, optional "export ", optional quotes.
  static std::map<std::string, std::string> parse_env_file(std::string_view text);

 private:
  std::map<std::string, std::string> env_;
  std::map<std::string, std::string> file_;
};

}  // namespace core
