// libFuzzer target: cassettes (issue 22). A recording directory may come from anywhere;
// whatever an entry holds, replaying it ends in a response or "unusable recording", and
// recording whatever an upstream answered (any nesting, any bytes, either content type)
// writes an entry that replays to the same redacted body -- never a crash.
//
// Input: byte 0 bit 0 = record (else replay), bit 1 = JSON content type; the rest is the
// entry's text (replay) or the upstream body (record).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "http/cassette.hpp"

namespace {

const std::string& scratch() {
  static const std::string dir = [] {
    std::string t = (std::filesystem::temp_directory_path() / "l30-cassette-fuzz-XXXXXX").string();
    if (::mkdtemp(t.data()) == nullptr) std::abort();
    return t;
  }();
  return dir;
}

constexpr std::size_t kCap = 1u << 20;
constexpr std::string_view kUrl = "https://hn.algolia.com/api/v1/search?query=tokio&tags=story";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool record = (data[0] & 1) != 0;
  const std::string content_type = (data[0] & 2) != 0 ? "application/json" : "text/html";
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string dir = scratch() + (record ? "/rec" : "/play");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  if (record) {
    {
      http::Cassette rec(dir, http::Cassette::Mode::record, kCap, "{\"now\":1795000000}\n");
      http::Response r;
      r.status = 200;
      r.content_type = content_type;
      r.body = body;
      r.headers = {{"content-type", content_type}, {"set-cookie", "dropped"}};
      rec.record("GET", kUrl, "", r);
    }
    http::Cassette play(dir, http::Cassette::Mode::replay, kCap);
    const auto got = play.replay("GET", kUrl, "");
    if (!got) __builtin_trap();  // what was recorded replays
    if (body.size() <= kCap / 2 && got->error == http::NetError::none && got->body != play.redact_body(body, content_type))
      __builtin_trap();  // as the redacted body
    return 0;
  }
  http::Cassette probe(dir, http::Cassette::Mode::replay, kCap);
  // The entry the replay will look for: find its name by recording once into a scratch dir.
  const std::string names = scratch() + "/names";
  std::filesystem::remove_all(names);
  {
    http::Cassette rec(names, http::Cassette::Mode::record, kCap);
    rec.record("GET", kUrl, "", http::Response{});
  }
  for (const auto& e : std::filesystem::directory_iterator(names))
    if (e.path().filename().string().front() != '.')
      std::ofstream(dir + "/" + e.path().filename().string(), std::ios::binary) << body;
  (void)probe.replay("GET", kUrl, "");
  return 0;
}
