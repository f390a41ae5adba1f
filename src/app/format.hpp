#pragma once

namespace app {

// The output formats every front end shares.
enum class Format { compact, md, json, html };

}  // namespace app
