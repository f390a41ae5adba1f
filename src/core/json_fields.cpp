#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace core::json {

using nlohmann::json;

Fields::Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) throw FieldError("'" + (path_.empty() ? std::string("the document") : path_) + "' must be an object");
}

std::string Fields::at(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }

std::optional<std::string> Fields::opt_str(const char* key) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) bad(key, "a string");
  return v->get<std::string>();
}

std::string Fields::str(const char* key, std::optional<std::string> fallback) const {
  if (auto v = opt_str(key)) return *v;
  if (!fallback) bad(key, "a string (it is required)");
  return *fallback;
}

std::string Fields::one_of(const char* key, std::initializer_list<std::string_view> allowed,
                           std::optional<std::string> fallback) const {
  const std::string v = str(key, std::move(fallback));
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
    bad(key, ("one of " + list).c_str());
  }
  return v;
}

std::optional<double> Fields::opt_num(const char* key) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number() || !std::isfinite(v->get<double>())) bad(key, "a number");
  return v->get<double>();
}

long long Fields::integer(const char* key, std::optional<long long> fallback, long long lo, long long hi) const {
  const json* v = find(key);
  if (!v) {
    if (!fallback) bad(key, "an integer (it is required)");
    return *fallback;
  }
  if (!v->is_number_integer() || v->get<long long>() < lo || v->get<long long>() > hi)
    bad(key, fmt::format("an integer from {} to {}", lo, hi).c_str());
  return v->get<long long>();
}

bool Fields::boolean(const char* key, bool fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) bad(key, "true or false");
  return v->get<bool>();
}

std::vector<std::string> Fields::strings(const char* key) const {
  std::vector<std::string> out;
  if (const json* a = array(key))
    for (const auto& v : *a) {
      if (!v.is_string()) bad(key, "an array of strings");
      out.push_back(v.get<std::string>());
    }
  return out;
}

const json* Fields::array(const char* key) const {
  const json* v = find(key);
  if (v && !v->is_array()) bad(key, "an array");
  return v;
}

const json* Fields::object(const char* key) const {
  const json* v = find(key);
  if (v && !v->is_object()) bad(key, "an object");
  return v;
}

const json* Fields::find(const char* key) const {
  auto it = j_.find(key);
  return it == j_.end() || it->is_null() ? nullptr : &*it;
}

void Fields::bad(std::string_view key, const char* what) const { throw FieldError("'" + at(key) + "' must be " + what); }

}  // namespace core::json
