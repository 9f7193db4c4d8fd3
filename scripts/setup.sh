#!/usr/bin/env bash
# One-time set-up of a fresh Debian machine: the ARM toolchain, QEMU (apt), and the project's
# virtual environment .venv holding microfuse (editable) with its test extra (pip).
# Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="gcc cmake gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm python3-venv"
missing=""
command -v gcc >/dev/null || missing="$missing gcc"
command -v cmake >/dev/null || missing="$missing cmake"  # the CMake, Zephyr and multi-model tests
command -v arm-none-eabi-gcc >/dev/null || missing="$missing gcc-arm-none-eabi libnewlib-arm-none-eabi"
command -v qemu-system-arm >/dev/null || missing="$missing qemu-system-arm"
python3 -c "import ensurepip, venv" 2>/dev/null || missing="$missing python3-venv"
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing$missing (apt)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $APT_PACKAGES >/dev/null
fi

# Headless chromium renders report.html in the browser tests.
command -v chromium >/dev/null || ./scripts/install_chromium.sh

# The project's own environment: Debian's Python is externally managed (PEP 668). It sees the
# system's site-packages, so what apt (or an earlier install) put there is not fetched again.
VENV="${VENV:-.venv}"
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
here="$(pwd -P)"
python="$(cd "$VENV" && pwd -P)/bin/python"
# From / (this folder is always importable from here): the venv's microfuse must be this checkout's.
if ! (cd / && "$python" -c "import microfuse, pytest, xdist, hypothesis, tflite_micro, ai_edge_litert
assert microfuse.__file__.startswith('$here/'), microfuse.__file__" 2>/dev/null); then
    echo "setup: installing microfuse with its test extra into $VENV (pip)"
    "$VENV/bin/python" -m pip install -q -e '.[test]'
fi
