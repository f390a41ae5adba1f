#pragma once
// The capability to write output files. Minted once, by the top-level command
// (cli::run), and handed down by reference to the code that saves briefs, bundles and
// --output files. Research runs and enrichment sub-runs never receive one; it cannot
// be copied, moved or default-constructed, so nothing else can hold one.
#include <filesystem>
#include <string_view>

namespace cli {
int run(int argc, const char* const* argv);
}

namespace persist {

class Writer {
 public:
  Writer(const Writer&) = delete;
  Writer(Writer&&) = delete;
  Writer& operator=(const Writer&) = delete;
  Writer& operator=(Writer&&) = delete;

  enum class Parents { create, must_exist };
  // Writes a temp file and renames it into place, so a reader never sees half a file.
  // Secrets are scrubbed. False (and a log line) on failure.
  bool write(const std::filesystem::path& path, std::string_view content, Parents parents = Parents::create) const;

 private:
  Writer() = default;
  friend int cli::run(int argc, const char* const* argv);
};

}  // namespace persist
