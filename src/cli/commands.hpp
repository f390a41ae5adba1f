#pragma once
// Commands: each builds its components from validated options and returns an exit code.
#include <memory>
#include <string>

#include "cli/options.hpp"
#include "core/config.hpp"
#include "http/client.hpp"
#include "model/report.hpp"
#include "persist/writer.hpp"

namespace cli {

struct RunContext {
  core::Config config;
  core::UnixSeconds now;  // wall clock, or the recording's clock under --replay
  std::shared_ptr<http::Client> client;
};

int research_command(const Options& o, RunContext& ctx, const persist::Writer& writer);
int discover_command(const Options& o, RunContext& ctx, const persist::Writer& writer);
int doctor_command(const Options& o, RunContext& ctx, const persist::Writer& writer);

// Writes the rendered output to --output or stdout. False (with a message) on failure.
bool emit_output(const Options& o, const std::string& text, const persist::Writer& writer);
// Exit code for a finished run: 3 under --strict when a source is degraded.
int exit_code_for(const Options& o, const std::map<std::string, model::SourceStatus>& status);

}  // namespace cli
