#!/usr/bin/env bash
# What the test suite needs beyond Python packages: Debian's chromium (the HTML report is tested in a
# real headless browser) and a Japanese font (fonts-noto-cjk) for the Japanese report's screenshots.
# Called by `make test` and by .ci/run. Installs the missing packages with apt-get when running as
# root or with passwordless sudo; otherwise stops with one line saying what to install.
# CLAIMLEDGER_CHROMIUM=/path/to/chromium skips the chromium install (the tests use that binary).
set -euo pipefail

missing=()
if [ -z "${CLAIMLEDGER_CHROMIUM:-}" ] && ! [ -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
if ! fc-list 2>/dev/null | grep -qi "noto sans cjk\|noto serif cjk"; then
  if ! dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "install ok installed"; then
    missing+=(fonts-noto-cjk)
  fi
fi
[ "${#missing[@]}" -eq 0 ] && exit 0

hint="the tests need: ${missing[*]} (Debian/Ubuntu: sudo apt-get install -y --no-install-recommends ${missing[*]}; or set CLAIMLEDGER_CHROMIUM to a chromium binary)"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "make test: $hint" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "make test: $hint" >&2
  exit 1
fi
echo "make test: installing ${missing[*]} with apt-get (needed by the browser tests)"
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
