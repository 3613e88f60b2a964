#!/usr/bin/env bash
# Makes sure a headless Chromium is on the machine for the web UI's end-to-end tests and bench:
# Debian's `chromium` package, installed with apt-get when missing (needs root, as on CI and the
# developers' machines). Exit 0 when a browser is there (already or now), 1 when it cannot be had.
set -u
for candidate in "${LINEAGE_SVC_CHROMIUM:-}" /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    exit 0
  fi
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensureBrowser: chromium is missing and apt-get is not available; install Chromium and set LINEAGE_SVC_CHROMIUM" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensureBrowser: chromium is missing and installing it needs root (apt-get install chromium)" >&2
  exit 1
fi
echo "ensureBrowser: installing Debian's chromium (apt-get)..."
export DEBIAN_FRONTEND=noninteractive
if apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; then
  echo "ensureBrowser: chromium installed"
  exit 0
fi
echo "ensureBrowser: apt-get could not install chromium" >&2
exit 1
