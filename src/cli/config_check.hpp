#pragma once
// Mistakes in the configuration file that are not errors, said before the run.
#include <string>
#include <vector>

#include "core/config.hpp"

namespace cli {

// The .env file's unknown keys (with the nearest known one) and, when it holds a secret,
// whether others can read it. Empty when there is no file or nothing to say.
std::vector<std::string> config_warnings(const core::Config& cfg);

}  // namespace cli
