#include "core/json.hpp"

#include <fmt/format.h>

#include <vector>

namespace core::json {

namespace {

using nlohmann::json;

// Builds the DOM (a json, or an ordered_json that keeps key order) from SAX events: refuses
// a container past the depth limit (the parse stops there) and drops array elements past
// the cap, with everything inside them.
template <typename Json>
class Builder {
 public:
  using json = Json;
  Builder(json& root, const ParseOptions& options) : root_(root), options_(options) {}

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(typename json::number_integer_t v) { return put(v); }
  bool number_unsigned(typename json::number_unsigned_t v) { return put(v); }
  bool number_float(typename json::number_float_t v, const std::string&) { return put(v); }
  bool string(std::string& v) { return put(std::move(v)); }
  bool binary(typename json::binary_t&) {
    error_ = "binary values are not JSON";
    return false;
  }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool key(std::string& k) {
    if (skip_ == 0) key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  bool too_deep() const { return too_deep_; }

 private:
  // Where the next value goes; nullptr when its array is full. Only the open containers are
  // on the stack, and a container is only appended to while it is the innermost one, so
  // the pointers stay valid.
  json* slot() {
    if (stack_.empty()) return &root_;
    json& parent = *stack_.back();
    if (!parent.is_array()) return &parent[key_];
    if (options_.max_array_elements > 0 && parent.size() >= options_.max_array_elements) return nullptr;
    parent.push_back(nullptr);
    return &parent.back();
  }
  template <typename V>
  bool put(V&& v) {
    if (skip_ > 0) return true;
    if (json* s = slot()) *s = json(std::forward<V>(v));
    return true;
  }
  bool open(json&& container) {
    if (stack_.size() + skip_ >= options_.max_depth) {
      error_ = fmt::format("JSON nested deeper than {} levels", options_.max_depth);
      too_deep_ = true;
      return false;
    }
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    json* s = slot();
    if (s == nullptr) {
      skip_ = 1;
      return true;
    }
    *s = std::move(container);
    stack_.push_back(s);
    return true;
  }
  bool close() {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    stack_.pop_back();
    return true;
  }

  json& root_;
  const ParseOptions& options_;
  std::vector<json*> stack_;
  std::string key_;
  std::size_t skip_ = 0;  // depth inside a dropped element
  std::string error_;
  bool too_deep_ = false;
};

template <typename Json>
bool parse_into(std::string_view text, const ParseOptions& options, Json& doc, std::string& error, bool& too_deep) {
  Builder<Json> builder(doc, options);
  try {
    if (Json::sax_parse(text, &builder)) return true;
    error = builder.error().empty() ? "not JSON" : builder.error();
    too_deep = builder.too_deep();
  } catch (const typename Json::exception& e) {
    error = e.what();
  }
  return false;
}

}  // namespace

Parsed parse(std::string_view text, const ParseOptions& options) {
  Parsed out;
  json doc;
  if (parse_into(text, options, doc, out.error, out.too_deep)) out.value = std::move(doc);
  return out;
}

nlohmann::ordered_json parse_ordered_or_discarded(std::string_view text, const ParseOptions& options) {
  nlohmann::ordered_json doc;
  std::string error;
  bool too_deep = false;
  if (parse_into(text, options, doc, error, too_deep)) return doc;
  return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
}

json parse_or_discarded(std::string_view text, const ParseOptions& options) {
  auto parsed = parse(text, options);
  if (parsed.value) return std::move(*parsed.value);
  return json(json::value_t::discarded);
}

}  // namespace core::json
