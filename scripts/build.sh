#!/usr/bin/env bash
# Configures and builds one preset (release by default), optionally only some targets:
#   scripts/build.sh [preset] [target...]
# Used by the other scripts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-release}"
shift || true
targets=()
if [ $# -gt 0 ]; then targets=(--target "$@"); fi
cd "$root"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# L30_WERROR=ON|OFF (scripts/test sets it for CI): warnings are errors in this build dir, or not.
werror=()
if [ -n "${L30_WERROR:-}" ]; then werror=(-DL30_WERROR="$L30_WERROR"); fi
if [ ! -f "build/$preset/build.ninja" ] || [ ${#werror[@]} -gt 0 ]; then
  cmake --preset "$preset" "${launcher[@]}" ${werror[@]+"${werror[@]}"} >/dev/null
fi
cmake --build --preset "$preset" "${targets[@]}" -- -j"$(nproc)" >&2
