#!/bin/sh
# Renders an HTML report (cnnmap export --format report-html) to a PNG with Debian's
# headless chromium, at the 1280 px width the report is laid out for:
#   scripts/screenshot.sh REPORT.html OUT.png [HEIGHT]
# HEIGHT (default 2400) is the height of the window captured, in pixels.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/screenshot.sh REPORT.html OUT.png [HEIGHT]" >&2
  exit 1
fi
report=$1 out=$2 height=${3:-2400}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "screenshot.sh: chromium is not installed (apt-get install chromium)" >&2
  exit 2
fi
if [ ! -r "$report" ]; then
  echo "screenshot.sh: $report: cannot read" >&2
  exit 2
fi
abs=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
case $out in /*) dest=$out ;; *) dest=$(pwd)/$out ;; esac
# A profile of its own so that a running browser or a read-only home does not matter.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$profile" \
  --window-size=1280,"$height" --screenshot="$dest" "file://$abs" >/dev/null 2>&1
test -s "$dest" || { echo "screenshot.sh: chromium wrote no $dest" >&2; exit 2; }
echo "wrote $dest"
