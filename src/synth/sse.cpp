#include "synth/sse.hpp"

namespace synth {

bool SseParser::feed(std::string_view bytes) {
  if (stopped_) return false;
  std::size_t start = 0;
  if (skip_lf_ && !bytes.empty()) {
    skip_lf_ = false;
    if (bytes.front() == '\n') start = 1;
  }
  for (std::size_t k = start; k < bytes.size(); ++k) {
    const char c = bytes[k];
    if (c != '\n' && c != '\r') continue;
    // A line ends at CR, LF or CRLF.
    pending_.append(bytes.substr(start, k - start));
    if (!line(pending_)) return false;
    pending_.clear();
    if (c == '\r') {
      if (k + 1 < bytes.size()) {
        if (bytes[k + 1] == '\n') ++k;
      } else {
        skip_lf_ = true;
      }
    }
    start = k + 1;
  }
  pending_.append(bytes.substr(start));
  if (pending_.size() > max_line_) {
    overflowed_ = stopped_ = true;
    return false;
  }
  return true;
}

bool SseParser::line(std::string_view l) {
  if (l.empty()) return dispatch();
  if (l.front() == ':') return true;  // a comment: keep-alive
  const auto colon = l.find(':');
  const std::string_view field = l.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view{} : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field != "data") return true;  // event, id, retry: nothing we use
  if (has_data_) data_ += '\n';
  data_.append(value);
  has_data_ = true;
  if (data_.size() > max_line_) {
    overflowed_ = stopped_ = true;
    return false;
  }
  return true;
}

bool SseParser::dispatch() {
  if (!has_data_) return true;
  has_data_ = false;
  const bool go_on = on_event_(data_);
  data_.clear();
  if (!go_on) stopped_ = true;
  return go_on;
}

bool SseParser::finish() {
  if (stopped_) return false;
  if (!pending_.empty()) {
    if (!line(pending_)) return false;
    pending_.clear();
  }
  return dispatch();
}

}  // namespace synth
