#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for fusedelegate and runs the main job:
# system packages (compilers, aarch64 cross compiler, qemu, googletest, Bazel
# for the offline Bazel build, a JDK and JUnit for the Android demo's logic), a
# Python venv in .venv with the three TFLite runtimes, the package itself
# (which compiles libfusedelegate.so), then `fusedelegate bench` on the
# bundled default model.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ g++-aarch64-linux-gnu qemu-user googletest python3-venv
  bazel-bootstrap openjdk-17-jdk-headless junit4 clang)
source scripts/common.sh
ensure_packages "${packages[@]}"

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
echo "setup: installing Python packages into .venv"
.venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/requirements-dev.txt
echo "setup: building and installing fusedelegate"
.venv/bin/python -m pip install -q --disable-pip-version-check .

if [ "${FUSEDELEGATE_SKIP_MAIN_JOB:-0}" != 1 ]; then
  echo "setup: running the main job: fusedelegate bench (bundled default model)"
  .venv/bin/fusedelegate bench
fi
