#!/usr/bin/env bash
# Configures and builds one preset (release by default). Used by the other scripts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-release}"
cd "$root"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "build/$preset/build.ninja" ]; then
  cmake --preset "$preset" "${launcher[@]}" >/dev/null
fi
cmake --build --preset "$preset" -- -j"$(nproc)" >&2
