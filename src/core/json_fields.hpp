#pragma once
// Reading a JSON document field by field, for documents a host (or a person) writes or
// edits: --plan, --judgments, --angles and the discovery protocol's files. A missing required
// field, a wrong type or an impossible value is an error naming the field ("'window.days'
// must be an integer from 1 to 365"), never a library exception escaping as an internal error.
#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/json.hpp"

namespace core::json {

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The fields of one object; `path` names it in messages ("nominations[3]", "" = the document).
// A null field counts as absent. Every check throws FieldError.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string path);
  std::string at(std::string_view key) const;  // the field's name in messages: "window.days"

  std::optional<std::string> opt_str(const char* key) const;
  std::string str(const char* key, std::optional<std::string> fallback = std::nullopt) const;
  std::string one_of(const char* key, std::initializer_list<std::string_view> allowed, std::optional<std::string> fallback) const;
  std::optional<double> opt_num(const char* key) const;  // finite
  double num(const char* key, double fallback) const { return opt_num(key).value_or(fallback); }
  long long integer(const char* key, std::optional<long long> fallback, long long lo, long long hi) const;
  bool boolean(const char* key, bool fallback) const;
  std::vector<std::string> strings(const char* key) const;
  // An object of numbers (V = double, finite) or of strings; `what` is the message's type.
  template <typename V>
  std::map<std::string, V> map_of(const char* key, const char* what) const;
  const nlohmann::json* array(const char* key) const;                   // nullptr when absent
  const nlohmann::json* object(const char* key) const;                  // nullptr when absent
  const nlohmann::json* find(const char* key) const;                    // any type; nullptr when absent
  [[noreturn]] void bad(std::string_view key, const char* what) const;  // "'<at(key)>' must be <what>"

 private:
  const nlohmann::json& j_;
  std::string path_;
};

template <typename V>
std::map<std::string, V> Fields::map_of(const char* key, const char* what) const {
  std::map<std::string, V> out;
  const nlohmann::json* o = find(key);
  if (!o) return out;
  if (!o->is_object()) bad(key, what);
  for (auto it = o->begin(); it != o->end(); ++it) {
    const nlohmann::json& v = it.value();
    if constexpr (std::is_same_v<V, double>) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) bad(key, what);
    } else {
      if (!v.is_string()) bad(key, what);
    }
    out[it.key()] = v.get<V>();
  }
  return out;
}

// A document a host hands the program (--plan, --judgments, --angles): parsed, refused
// unless it is an object, then read; a FieldError of `read` becomes the error, after
// `prefix` ("--plan: "), like the parser's own refusals. nullopt with *error set on failure.
template <typename Read>
auto read_host_object(std::string_view text, std::string_view prefix, std::string* error, Read read)
    -> std::optional<decltype(read(std::declval<const Fields&>()))> {
  const auto parsed = parse(text);
  try {
    if (parsed.too_deep) throw FieldError(parsed.error);
    if (!parsed || !parsed.value->is_object()) throw FieldError("not a JSON object");
    return read(Fields(*parsed.value, ""));
  } catch (const FieldError& e) {
    if (error) *error = std::string(prefix) + e.what();
    return std::nullopt;
  }
}

}  // namespace core::json
