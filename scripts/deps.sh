#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need. Idempotent; needs root (or sudo).
#   scripts/deps.sh [--fuzz]    (--fuzz adds clang for the libFuzzer preset)
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libcurl4-openssl-dev nlohmann-json3-dev libpugixml-dev libgumbo-dev libutf8proc-dev
  libcli11-dev libfmt-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
if [ "${1:-}" = "--fuzz" ]; then PACKAGES+=(clang); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
