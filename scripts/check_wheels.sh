#!/usr/bin/env bash
# Smoke tests of the wheels scripts/build_wheels.sh put in dist/:
# - x86_64: installed into a fresh venv with LiteRT, then `fusedelegate bench` on
#   the bundled model from a PATH that holds no compiler (nothing is built);
# - aarch64: its library loaded under qemu, a delegate made and freed through
#   the plugin entry points (tests/wheel/load_delegate.c).
# Needs the aarch64 cross compiler, qemu-user and file (scripts/test.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)  # as the package resolves its own path
venv=build/wheel-venv
python3 -m venv --clear "$venv"
# Wheels only (no source distribution may be built), from a PATH without a compiler.
run_bare() {  # the environment kept (a proxy, pip's index), what could point elsewhere dropped
  env -u FUSEDELEGATE_LIBRARY -u FUSEDELEGATE_TF_LIBRARY -u PYTHONPATH -u VIRTUAL_ENV PATH="$root/$venv/bin" "$@"
}
run_bare python -m pip install -q --disable-pip-version-check --only-binary=:all: \
  "$root"/dist/fusedelegate-*-manylinux_*_x86_64.whl "numpy<2" "ai-edge-litert==2.3.*"
if run_bare /bin/sh -c 'command -v cc || command -v gcc || command -v c++ || command -v cmake'; then
  echo "check_wheels: a compiler is on the bare PATH" >&2
  exit 1
fi
library=$(run_bare python -c "import fusedelegate; print(fusedelegate.library_path())")
case "$library" in "$root/$venv"/*) ;; *) echo "check_wheels: library not from the wheel: $library" >&2; exit 1 ;; esac
echo "check_wheels: x86_64 wheel: fusedelegate bench from $venv (library $library)"
run_bare fusedelegate bench --runtime litert --num_runs 5 --warmup_runs 1 --init_runs 1

echo "check_wheels: aarch64 wheel: its library under qemu"
work=build/wheel-aarch64-check
rm -rf "$work" && mkdir -p "$work"
python3 -m zipfile -e dist/fusedelegate-*-manylinux_*_aarch64.whl "$work/wheel"
file "$work/wheel/fusedelegate/libfusedelegate.so" | grep -q "ARM aarch64"
aarch64-linux-gnu-gcc -O1 -Wall -Wextra -Werror -o "$work/load_delegate" tests/wheel/load_delegate.c -ldl
qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/load_delegate" "$work/wheel/fusedelegate/libfusedelegate.so"
