#pragma once
// Server-sent events (the WHATWG event-stream format) read as the bytes arrive: a piece
// may end anywhere (inside a line, a UTF-8 character, a JSON string). Only complete
// events come out; a line longer than the cap is an error, never an unbounded buffer.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace synth {

class SseParser {
 public:
  // on_event gets each event's data (its data: lines joined by "\n"); returning false stops.
  using OnEvent = std::function<bool(std::string_view data)>;
  explicit SseParser(OnEvent on_event, std::size_t max_line_bytes = 1u << 20)
      : on_event_(std::move(on_event)), max_line_(max_line_bytes) {}

  // False once the stream is over for us: a callback said stop, or a line was over the cap.
  bool feed(std::string_view bytes);
  // End of the stream: an event not yet closed by a blank line is dispatched.
  bool finish();
  bool overflowed() const { return overflowed_; }

 private:
  bool line(std::string_view l);
  bool dispatch();
  OnEvent on_event_;
  std::size_t max_line_;
  std::string pending_;  // an unfinished line
  std::string data_;     // the event being built
  bool has_data_ = false;
  bool stopped_ = false;
  bool overflowed_ = false;
  bool skip_lf_ = false;  // the last piece ended in CR: an LF starting the next belongs to it
};

}  // namespace synth
