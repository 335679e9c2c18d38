#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for fusedelegate and runs the main job:
# system packages (compilers, aarch64 cross compiler, qemu, googletest), a
# Python venv in .venv with the three TFLite runtimes, the package itself
# (which compiles libfusedelegate.so), then `fusedelegate bench` on the
# bundled default model.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ g++-aarch64-linux-gnu qemu-user googletest python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing system packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

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
