#include "program/program.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "app/run.hpp"
#include "cli/app.hpp"
#include "cli/options.hpp"
#include "core/exit.hpp"
#include "mcp/server.hpp"
#include "persist/writer.hpp"

namespace program {

int run(int argc, const char* const* argv, const TestSeams& seams) {
  // The one Writer of the process: only commands run from here may write files. It
  // outlives run(): an MCP call abandoned at shutdown may still hold it. (It has no state.)
  static const persist::Writer writer;
  std::optional<cli::Launch> launch;
  const int code = cli::prepare(argc, argv, writer, &launch);
  if (!launch) return code;  // help, a version, a usage error: answered by the CLI
  if (seams.subrun != nullptr) launch->ctx.subrun = seams.subrun;
  if (launch->options.command == cli::Command::mcp)
    return mcp::serve(std::make_shared<const app::RunContext>(launch->ctx), writer);
  return cli::execute(*launch, writer);
}

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

void main_process(int argc, char** argv, const TestSeams& seams) {
  occupy_standard_descriptors();
  // A reader that goes away (`| head`) is an EPIPE the writer handles quietly, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  int code = 1;
  try {
    code = run(argc, argv, seams);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "last30days: internal error: %s\n", e.what());
    code = 1;
  } catch (...) {
    std::fprintf(stderr, "last30days: internal error\n");
    code = 1;
  }
  core::exit_process(code);
}

}  // namespace program
