#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>

#include "cli/app.hpp"
#include "core/exit.hpp"

namespace {

// Descriptors 0-2 are always open: a closed stdout must make writes fail, not hand its
// number to the first file or socket the process opens. The stand-in is read-only, so a
// write to it fails (EBADF) and is reported.
void occupy_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) {
      const int stand_in = ::open("/dev/null", O_RDONLY);
      if (stand_in >= 0 && stand_in != fd) {
        ::dup2(stand_in, fd);
        ::close(stand_in);
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  occupy_standard_descriptors();
  // A reader that goes away (`| head`) is an EPIPE the writer handles quietly, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  int code = 1;
  try {
    code = cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "last30days: internal error: %s\n", e.what());
    code = 1;
  } catch (...) {
    std::fprintf(stderr, "last30days: internal error\n");
    code = 1;
  }
  core::exit_process(code);
}
