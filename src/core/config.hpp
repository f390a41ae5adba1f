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
  // Reads the process environment and the .env file it points to (through the capped
  // reader). A .env that exists but cannot be read is reported by file_error().
  static Config from_process();
  // For tests: explicit layers.
  Config(std::map<std::string, std::string> env, std::map<std::string, std::string> file)
      : env_(std::move(env)), file_(std::move(file)) {}
  Config() = default;

  std::optional<std::string> get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  void set_override(std::string key, std::string value) { env_[std::move(key)] = std::move(value); }

  // Values of every credential key that is set: registered with core::redact at startup.
  std::vector<std::string> secret_values() const;
  // The first credential key whose value holds a control character (CR, LF, NUL...):
  // such a value would inject HTTP headers, so it is a configuration error.
  std::optional<std::string> malformed_credential() const;
  const std::string& file_error() const { return file_error_; }

  // $XDG_CONFIG_HOME/last30days, else $HOME/.config/last30days. Only absolute paths
  // count: with neither set to one there is no config dir (never a shared one like /tmp).
  std::optional<std::string> config_dir() const;
  std::optional<std::string> env_file_path() const;
  // $HOME when it is an absolute path.
  std::optional<std::string> home() const;

  static bool is_secret_key(std::string_view key);
  // Parses KEY=value lines; '#' comments, optional "export ", optional quotes.
  static std::map<std::string, std::string> parse_env_file(std::string_view text);

 private:
  std::map<std::string, std::string> env_;
  std::map<std::string, std::string> file_;
  std::string file_error_;
  std::optional<std::string> from_env(std::string_view key) const;
};

}  // namespace core
