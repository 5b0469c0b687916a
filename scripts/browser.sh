#!/usr/bin/env bash
# Headless Chromium and its chromedriver for the page's browser test
# (askserver/browser_test.go, docs/serve.md):
#
#   eval "$(scripts/browser.sh)"   # prints: export SQLRL_CHROMIUM=... SQLRL_CHROMEDRIVER=...
#
# Installs Debian's chromium and chromium-driver (the same version, so the
# driver always speaks to its browser) when either is missing, and the Noto
# colour emoji font when no emoji font is there (the page's thumbs render as
# empty boxes in the screenshot without one). Nothing is downloaded outside
# Debian's packages: no browser download by a test tool. Idempotent and quiet
# when all is there; only stdout carries the export lines, progress goes to
# stderr.
set -euo pipefail

log() { echo "browser.sh: $*" >&2; }

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
if ! fc-list 2>/dev/null | grep -qi emoji; then
  need+=(fonts-noto-color-emoji)
fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
chromium=$(command -v chromium)
chromedriver=$(command -v chromedriver)
log "$("$chromium" --version 2>/dev/null | head -n 1), $("$chromedriver" --version | head -n 1)"
printf 'export SQLRL_CHROMIUM=%q SQLRL_CHROMEDRIVER=%q\n' "$chromium" "$chromedriver"
