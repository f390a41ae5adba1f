#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need. Idempotent; needs root (or sudo).
#   scripts/deps.sh [--fuzz]    (--fuzz adds clang for the libFuzzer preset)
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libcurl4-openssl-dev nlohmann-json3-dev libpugixml-dev libgumbo-dev libutf8proc-dev
  libcli11-dev libfmt-dev zlib1g-dev
  libsqlite3-dev libpq-dev postgresql
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium zsh
)
# The MCP end-to-end test runs the official TypeScript SDK on node (any Debian node
# will do; a node already on PATH is kept).
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
if [ "${1:-}" = "--fuzz" ]; then PACKAGES+=(clang); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The SDK for tests/mcp, exactly as locked; again only when the lock changed.
mcp="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/mcp"
if [ ! -f "$mcp/node_modules/.package-lock.json" ] || [ "$mcp/package-lock.json" -nt "$mcp/node_modules/.package-lock.json" ]; then
  (cd "$mcp" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
