#include "core/config.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <sstream>

#include "core/file.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"

extern char** environ;

namespace core {

namespace {
// SEARXNG_URL may carry user:password@ for a private instance. Notification URLs carry
// their channel's token (a webhook path, an ntfy topic, an SMTP password).
constexpr std::array<std::string_view, 16> kSecretKeys{"GITHUB_TOKEN",
                                                       "REDDIT_CLIENT_ID",
                                                       "REDDIT_CLIENT_SECRET",
                                                       "BSKY_APP_PASSWORD",
                                                       "X_BEARER_TOKEN",
                                                       "YOUTUBE_API_KEY",
                                                       "BRAVE_API_KEY",
                                                       "STACKEXCHANGE_KEY",
                                                       "BSKY_HANDLE",
                                                       "SEARXNG_URL",
                                                       "LAST30DAYS_NOTIFY_WEBHOOK",
                                                       "LAST30DAYS_NOTIFY_SLACK",
                                                       "LAST30DAYS_NOTIFY_DISCORD",
                                                       "LAST30DAYS_NOTIFY_NTFY",
                                                       "LAST30DAYS_NOTIFY_SMTP_URL",
                                                       "LAST30DAYS_LLM_KEY"};
}  // namespace

bool Config::is_secret_key(std::string_view key) {
  for (auto k : kSecretKeys)
    if (k == key) return true;
  return false;
}

std::map<std::string, std::string> Config::parse_env_file(std::string_view text) {
  std::map<std::string, std::string> out;
  // Editors on Windows start a UTF-8 file with a byte order mark; it is not part of the first key.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string_view l = trim(line);
    if (l.empty() || l.front() == '#') continue;
    if (l.substr(0, 7) == "export ") l = trim(l.substr(7));
    const auto eq = l.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string key(trim(l.substr(0, eq)));
    std::string_view value = trim(l.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    } else if (const auto hash = value.find(" #"); hash != std::string_view::npos) {
      value = trim(value.substr(0, hash));
    }
    out[key] = std::string(value);
  }
  return out;
}

Config Config::from_process() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  Config cfg(std::move(env), {});
  if (const auto path = cfg.env_file_path()) {
    auto text = read_file_capped(*path, kEnvFileCap);
    if (text) cfg.file_ = parse_env_file(*text.text);
    else if (text.error.kind != FileError::Kind::missing) cfg.file_error_ = "config file: " + text.error.message;
  }
  return cfg;
}

std::optional<std::string> Config::get(std::string_view key) const {
  const std::string k(key);
  if (auto it = env_.find(k); it != env_.end() && !it->second.empty()) return it->second;
  if (auto it = file_.find(k); it != file_.end() && !it->second.empty()) return it->second;
  return std::nullopt;
}

std::vector<std::string> Config::secret_values() const {
  std::vector<std::string> out;
  for (auto k : kSecretKeys) {
    const auto v = get(k);
    if (!v) continue;
    // "false", "1234", `": "`: indistinguishable from the output's own text, so such a value
    // is kept out of upstream text and fields but not out of a finished document's syntax.
    if (v->size() < core::redact::kMinSecretBytes || core::redact::unsafe_in_text(*v))
      core::log::warn(
          "{} is too short or too common to be told apart from ordinary output: it is redacted from what "
          "upstream sends, not from the brief's own text (is it the real credential?)",
          k);
    if (v->size() >= core::redact::kMinSecretBytes) out.push_back(*v);
  }
  return out;
}

std::optional<std::string> Config::malformed_credential() const {
  for (auto k : kSecretKeys) {
    const auto v = get(k);
    if (v && std::any_of(v->begin(), v->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      return std::string(k);
  }
  return std::nullopt;
}

// The process environment only: where the config file lives cannot depend on the file.
std::optional<std::string> Config::from_env(std::string_view key) const {
  auto it = env_.find(std::string(key));
  if (it == env_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Config::home() const {
  auto h = from_env("HOME");
  if (!h || h->front() != '/') return std::nullopt;
  return h;
}

std::optional<std::string> Config::config_dir() const {
  if (auto x = from_env("XDG_CONFIG_HOME"); x && x->front() == '/') return *x + "/last30days";
  if (auto h = home()) return *h + "/.config/last30days";
  return std::nullopt;
}

std::optional<std::string> Config::env_file_path() const {
  auto dir = config_dir();
  if (!dir) return std::nullopt;
  return *dir + "/.env";
}

}  // namespace core
