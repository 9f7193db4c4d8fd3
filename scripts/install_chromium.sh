#!/usr/bin/env bash
# Installs Debian's chromium for the report's headless-browser test. Idempotent: does nothing if present.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install_chromium: installing chromium (apt)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
