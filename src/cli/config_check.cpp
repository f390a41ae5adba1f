#include "cli/config_check.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "cli/help.hpp"
#include "core/file.hpp"
#include "core/known_keys.hpp"

namespace cli {

std::vector<std::string> config_warnings(const core::Config& cfg) {
  std::vector<std::string> out;
  const auto path = cfg.env_file_path();
  if (!path) return out;
  const auto text = core::read_file_capped(*path, core::kEnvFileCap);
  if (!text) return out;  // a missing file is fine; an unreadable one is Config's error
  std::vector<std::string> known;
  for (const auto& k : core::known_keys())
    if (k.name.find('<') == std::string_view::npos) known.emplace_back(k.name);
  std::vector<std::string> secrets;
  for (const auto& [key, value] : core::Config::parse_env_file(*text.text)) {
    if (core::Config::is_secret_key(key) && !value.empty()) secrets.push_back(key);
    if (core::is_known_key(key)) continue;
    const auto near = nearest(key, known);
    out.push_back(fmt::format("{}: unknown key {}{} (it is ignored; `last30days --help` lists the keys)", *path, key,
                              near ? fmt::format(", did you mean {}?", *near) : std::string()));
  }
  struct stat st {};
  if (!secrets.empty() && ::stat(path->c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    std::string keys;
    for (const auto& k : secrets) keys += (keys.empty() ? "" : ", ") + k;
    out.push_back(fmt::format("{} holds secrets ({}) and others can read it (mode {:03o}): chmod 600 {}", *path, keys,
                              st.st_mode & 0777, *path));
  }
  return out;
}

}  // namespace cli
