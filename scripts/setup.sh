#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for fusedelegate and runs the main job:
# a C++ compiler and python3-venv, a Python venv in .venv with numpy and LiteRT,
# the package itself (which compiles libfusedelegate.so; CMake and Ninja come as
# build requirements), then `fusedelegate bench` on the bundled default model.
# The test suite's toolchains and runtimes are installed by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/common.sh
ensure_packages g++ python3-venv

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
echo "setup: installing Python packages into .venv"
.venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/requirements.txt
echo "setup: building and installing fusedelegate"
.venv/bin/python -m pip install -q --disable-pip-version-check .

if [ "${FUSEDELEGATE_SKIP_MAIN_JOB:-0}" != 1 ]; then
  echo "setup: running the main job: fusedelegate bench (bundled default model)"
  .venv/bin/fusedelegate bench
fi
