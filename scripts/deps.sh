#!/usr/bin/env bash
# Installs the Debian packages a build needs. Idempotent; needs root (or sudo).
#   scripts/deps.sh            what the binary needs: compiler, cmake, ninja, the -dev libraries it links
#   scripts/deps.sh --test     also what the tests need (PostgreSQL, chromium, node and the MCP SDK,
#                              GoogleTest, Google Benchmark, zsh, fish, clang-format)
#   scripts/deps.sh --fuzz     --test plus clang (and clang-tidy) for the sanitizer and libFuzzer presets
#   scripts/deps.sh --print    [--test|--fuzz] only print the packages that mode needs (what an
#                              empty machine would install), one a line
# Without apt-get and dpkg-query (not Debian) it prints the package list and stops.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=(
  build-essential cmake ninja-build pkg-config ccache
  libcurl4-openssl-dev nlohmann-json3-dev libpugixml-dev libgumbo-dev libutf8proc-dev
  libcli11-dev libfmt-dev libsqlite3-dev libpq-dev libstemmer-dev
)
TEST=(
  zlib1g-dev postgresql libgtest-dev libgmock-dev libbenchmark-dev chromium zsh fish
  libssl-dev openssl  # the notification tests' mail receiver: STARTTLS and a throw-away certificate
  clang-format-14     # scripts/format-check --all: CI checks the tree against .clang-format
)
tests=0 fuzz=0 print=0
for arg in "$@"; do
  case "$arg" in
    --test) tests=1 ;;
    --fuzz) tests=1 fuzz=1 ;;
    --print) print=1 ;;
    *) echo "usage: scripts/deps.sh [--test|--fuzz] [--print]" >&2; exit 2 ;;
  esac
done
PACKAGES=("${BUILD[@]}")
if [ "$tests" = 1 ]; then
  PACKAGES+=("${TEST[@]}")
  # The MCP end-to-end test runs the official TypeScript SDK on node (any node on PATH will do).
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
fi
if [ "$fuzz" = 1 ]; then PACKAGES+=(clang clang-tidy-14); fi  # clang-tidy: scripts/tidy

if [ "$print" = 1 ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "scripts/deps.sh: this is not a Debian-like system (no apt-get/dpkg-query)." >&2
  echo "Install these packages (Debian names; your system's may differ), then run again:" >&2
  echo "  ${PACKAGES[*]}" >&2
  exit 1
fi
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
if [ "$tests" = 1 ]; then
  # The SDK for tests/mcp, exactly as locked; again only when the lock changed.
  mcp="$root/tests/mcp"
  if [ ! -f "$mcp/node_modules/.package-lock.json" ] || [ "$mcp/package-lock.json" -nt "$mcp/node_modules/.package-lock.json" ]; then
    (cd "$mcp" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
fi
