#!/usr/bin/env bash
# Debian's Chromium for the app's browser test (tests/ui/test_browser.py). Playwright drives /usr/bin/chromium;
# it never downloads a browser of its own. Needs root (CI runs as root); skips apt when chromium is present.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup_browser.sh: run as root, or: sudo apt-get install -y chromium" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
