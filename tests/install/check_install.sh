#!/usr/bin/env bash
# `cmake --install` into a temporary prefix puts the binary, the man page (which renders),
# the three completions and SKILL.md where a Debian user looks for them.
#   tests/install/check_install.sh BUILD_DIR
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "check_install: $*" >&2; exit 1; }
for f in bin/last30days share/man/man1/last30days.1 share/bash-completion/completions/last30days \
         share/zsh/vendor-completions/_last30days share/fish/vendor_completions.d/last30days.fish \
         share/last30days/SKILL.md share/doc/last30days/LICENSE; do
  [ -s "$prefix/$f" ] || fail "missing $f"
done
"$prefix/bin/last30days" version | grep -q '^last30days ' || fail "the installed binary does not run"
if command -v man >/dev/null 2>&1; then
  page="$(MANWIDTH=80 man -l "$prefix/share/man/man1/last30days.1" 2>&1)" || fail "man -l failed: $page"
  for part in NAME SYNOPSIS COMMANDS OPTIONS ENVIRONMENT "EXIT STATUS" "--days N" GITHUB_TOKEN "no source answered"; do
    grep -qF -- "$part" <<<"$page" || fail "the man page has no '$part'"
  done
  grep -q 'warning' <<<"$page" && fail "man warns: $page"
fi
# The man page and the completions come from the installed binary's own definitions.
cmp -s <("$prefix/bin/last30days" completions fish) "$prefix/share/fish/vendor_completions.d/last30days.fish" ||
  fail "the installed fish completions differ from the binary's"
echo "check_install: ok ($prefix)"
