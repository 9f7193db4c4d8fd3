#!/usr/bin/env bash
# One-time set-up of a fresh Debian machine: the ARM toolchain, QEMU and the Python package.
# Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="gcc gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
missing=""
command -v gcc >/dev/null || missing="$missing gcc"
command -v arm-none-eabi-gcc >/dev/null || missing="$missing gcc-arm-none-eabi libnewlib-arm-none-eabi"
command -v qemu-system-arm >/dev/null || missing="$missing qemu-system-arm"
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing$missing (apt)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $APT_PACKAGES >/dev/null
fi

# Headless chromium renders report.html in the browser tests.
command -v chromium >/dev/null || ./scripts/install_chromium.sh

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c "import microfuse, pytest, xdist, hypothesis, tflite_micro" 2>/dev/null; then
    echo "setup: installing microfuse with its test extra (pip)"
    "$PYTHON" -m pip install -q -e '.[test]'
fi
