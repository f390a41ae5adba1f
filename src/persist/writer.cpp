#include "persist/writer.hpp"

#include <unistd.h>

#include <fstream>

#include "core/log.hpp"
#include "core/redact.hpp"

namespace persist {

bool Writer::write(const std::filesystem::path& path, std::string_view content, Parents parents) const {
  std::error_code ec;
  if (parents == Parents::create && path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const auto tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    const std::string clean = core::redact::scrub(content);
    f.write(clean.data(), static_cast<std::streamsize>(clean.size()));
    f.close();
    if (!f) {
      std::filesystem::remove(tmp, ec);
      core::log::warn("cannot write {}", path.string());
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    core::log::warn("cannot write {}: {}", path.string(), ec.message());
    return false;
  }
  return true;
}

}  // namespace persist
