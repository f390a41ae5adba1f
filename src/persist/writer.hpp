#pragma once
// The capability to write output files. Minted once, by the top-level command
// (program::run), and handed down by reference to the code that saves briefs, bundles and
// --output files. Research runs and enrichment sub-runs never receive one; it cannot
// be copied, moved or default-constructed, so nothing else can hold one. An Output (an
// opened destination) can only come from a Writer and cannot be copied either.
//
// What a write does to its destination:
//  - a regular file, or a missing one, is replaced atomically: a temp file beside it
//    (unique name, O_EXCL) is written, synced and renamed over it, keeping the old
//    file's permission bits (and, as root, its owner). open() proves such a temp file
//    can be made and keeps none, so a run killed before the write leaves nothing behind;
//  - a symlink is followed: its target is replaced that way when it is a regular file
//    (the link itself stays), or written through otherwise;
//  - anything else -- a character device, a FIFO, a pipe -- is opened and written
//    through, never replaced. A FIFO is opened without blocking: open() waits for a
//    reader only until its reader_wait has passed, and a write waits for a stalled
//    reader no longer than that between two bytes, then fails with a message;
//  - "-" is stdout.
// Every byte passes core::redact first.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace program {
struct TestSeams;
int run(int argc, const char* const* argv, const TestSeams& seams);
}  // namespace program

namespace persist {

class Writer;
namespace testing {
// Defined only in the test support library and the benchmarks: production code that
// called it would not link.
const Writer& writer();
}  // namespace testing

class Output {
 public:
  enum class Result { ok, reader_gone, failed };

  Output(Output&& other) noexcept;
  Output& operator=(Output&&) = delete;
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();  // an unfinished temp file is removed

  // Writes everything, once. reader_gone: the reading end of a pipe or FIFO closed
  // (EPIPE, as under `| head`), which is not an error. failed: *error says why.
  Result write(std::string_view content, std::string* error);
  const std::string& name() const { return name_; }  // for messages: the path, or "stdout"

 private:
  friend class Writer;
  enum class Kind { stdout_fd, through, replace };
  Output(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}

  Kind kind_;
  std::string name_;
  int fd_ = -1;
  std::chrono::milliseconds stall_wait_{0};  // a non-blocking FIFO: the longest wait for its reader
  std::string temp_;                         // replace: the temp file beside the target, while writing
  std::string final_;                        // replace: the path the temp file is renamed to
  bool done_ = false;
};

class Writer {
 public:
  Writer(const Writer&) = delete;
  Writer(Writer&&) = delete;
  Writer& operator=(const Writer&) = delete;
  Writer& operator=(Writer&&) = delete;

  enum class Parents { create, must_exist };
  // How long a FIFO may keep us waiting for a reader, unless the caller says (--output: the run's timeout).
  static constexpr std::chrono::milliseconds kReaderWait{5000};
  // Opens a destination now (so an impossible one fails before any work), to be written
  // once later. "-" is stdout. nullopt with *error on failure. A FIFO is opened for
  // writing here: it waits for its reader like a shell redirection does, but only for
  // reader_wait.
  std::optional<Output> open(const std::filesystem::path& path, Parents parents, std::string* error,
                             std::chrono::milliseconds reader_wait = kReaderWait) const;
  // open + write. False (and a log line) on failure; a reader gone away is not a failure.
  bool write(const std::filesystem::path& path, std::string_view content, Parents parents = Parents::create) const;

 private:
  Writer() = default;
  friend int program::run(int argc, const char* const* argv, const program::TestSeams& seams);
  friend const Writer& testing::writer();
};

}  // namespace persist
