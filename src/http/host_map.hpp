#pragma once
// LAST30DAYS_HOST_MAP: "host=base_url,host2=base_url2". A request for
// http(s)://host/path?q goes to base_url/path?q instead (redirect targets included).
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace http {

class HostMap {
 public:
  // Returns nullopt and sets error on a malformed spec.
  static std::optional<HostMap> parse(std::string_view spec, std::string* error);
  std::string rewrite(std::string_view url) const;
  bool empty() const { return map_.empty(); }

 private:
  std::map<std::string, std::string> map_;  // host -> base (no trailing slash)
};

}  // namespace http
