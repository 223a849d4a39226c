#!/bin/sh
# The test suite drives real tools: Debian's Chromium (report pages), poppler-utils (PDF
# checks) and Prometheus with promtool (metrics scraped by a real server, alert rules checked).
# Installs what is missing when it can (root with apt-get); otherwise says what to do.
set -eu
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v pdfinfo >/dev/null 2>&1 || missing="$missing poppler-utils"
{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || missing="$missing prometheus"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test tools:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq $missing >/dev/null
else
  echo "the tests need:$missing (Debian: sudo apt-get install -y$missing)" >&2
  exit 1
fi
