// A test build of last30days: the real program (same library, same main_process) with one
// seam. An enrichment sub-run for a topic naming "quantum" ignores cancellation: it blocks
// in an HTTP fetch with no deadline and no stop token (the test's fake upstream never
// answers it), holding the shared client the whole time. The process tests drive this
// binary down the abandonment path; the production binary has no way to reach the seam.
#include <thread>

#include "core/text.hpp"
#include "http/client.hpp"
#include "program/program.hpp"

namespace {

discover::SubRunResult ignores_cancellation(const discover::SubRunContext& ctx, std::stop_token stop) {
  if (core::casefold(ctx.topic).find("quantum") == std::string::npos) return discover::research_subrun(ctx, std::move(stop));
  http::Request stuck;
  stuck.url = "https://hn.algolia.com/api/v1/search?query=stubborn-straggler";
  stuck.timeout = std::chrono::hours(1);  // no deadline, no stop token: nothing ends it
  ctx.client->fetch(stuck);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

int main(int argc, char** argv) { program::main_process(argc, argv, {ignores_cancellation}); }
