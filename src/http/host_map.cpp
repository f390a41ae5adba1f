#include "http/host_map.hpp"

#include "core/text.hpp"
#include "core/url.hpp"

namespace http {

std::optional<HostMap> HostMap::parse(std::string_view spec, std::string* error) {
  HostMap m;
  while (!spec.empty()) {
    const auto comma = spec.find(',');
    std::string_view pair = core::trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) {
      if (error) *error = "expected host=base_url, got '" + std::string(pair) + "'";
      return std::nullopt;
    }
    std::string host = core::lower_ascii(core::trim(pair.substr(0, eq)));
    std::string base(core::trim(pair.substr(eq + 1)));
    if (host.empty() || !core::Url::parse(base)) {
      if (error) *error = "invalid entry '" + std::string(pair) + "'";
      return std::nullopt;
    }
    while (!base.empty() && base.back() == '/') base.pop_back();
    m.map_[host] = base;
  }
  return m;
}

std::string HostMap::rewrite(std::string_view url) const {
  if (map_.empty()) return std::string(url);
  auto u = core::Url::parse(url);
  if (!u) return std::string(url);
  auto it = map_.find(u->host);
  if (it == map_.end()) return std::string(url);
  return it->second + u->path_and_query();
}

}  // namespace http
