#pragma once
// --record / --replay: every upstream exchange as one JSON file in a directory.
// Recordings never hold secrets: request headers are not stored, credential-like
// query parameters and JSON fields are replaced, and everything passes core::redact.
// A replayed answer obeys the caps of a live one: an entry is read through the capped
// file reader and a body over the client's decoded cap is too_large, as on the wire.
// Recording never writes through a symlink planted in the directory (a cassette dir may
// come from a repository): each file is created under a fresh name with O_EXCL|O_NOFOLLOW
// by openat on the directory and renamed to its entry name within it, which replaces a
// link at that name instead of following it.
// Thread-safe.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/types.hpp"

namespace http {

class Cassette {
 public:
  enum class Mode { record, replay };
  // Throws std::runtime_error when the directory cannot be created (record) or read (replay),
  // or (record) `meta` cannot be written to run.json in it. max_body: the client's cap on a
  // decoded body.
  Cassette(std::string dir, Mode mode, std::size_t max_body, std::string_view meta = {});
  ~Cassette();
  Cassette(const Cassette&) = delete;
  Cassette& operator=(const Cassette&) = delete;

  // Replay: the n-th recording for this request (the last one once exhausted).
  std::optional<Response> replay(std::string_view method, std::string_view url, std::string_view body);
  void record(std::string_view method, std::string_view url, std::string_view body, const Response& r);

  std::string redact_url(std::string_view url) const;
  std::string redact_body(std::string_view body, std::string_view content_type) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string key(std::string_view method, std::string_view url, std::string_view body) const;
  // Writes `content` to the entry `name` of the directory (see above); false and *error on failure.
  bool write_entry(const std::string& name, std::string_view content, std::string* error);
  std::string dir_;
  int dir_fd_ = -1;  // record: the directory, opened once
  Mode mode_;
  std::size_t max_body_;
  std::mutex mu_;
  std::map<std::string, int> seq_;
};

bool is_secret_param(std::string_view name);

}  // namespace http
