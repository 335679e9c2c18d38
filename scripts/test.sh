#!/usr/bin/env bash
# The whole test suite: C++ unit and kernel tests (native, and aarch64 NEON
# under qemu), the same through the offline Bazel build, the Android demo's
# checks (JVM tests, JNI library for aarch64 and the host), the wheels (built
# and smoke-tested), then the Python suite against all three runtimes.
# Needs scripts/setup.sh once; installs the test toolchains (the aarch64 cross
# compiler, qemu, googletest, Bazel, a JDK and JUnit, clang) and the runtimes
# and tools of scripts/requirements-dev.txt first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"

source scripts/common.sh
ensure_packages g++-aarch64-linux-gnu qemu-user googletest bazel-bootstrap openjdk-17-jdk-headless junit4 clang \
  file
echo "== Test runtimes and tools (scripts/requirements-dev.txt)"
python -m pip install -q --disable-pip-version-check -r scripts/requirements-dev.txt

echo "== C++ tests (native: scalar, AVX2, AVX-512 as this CPU has them; the C++ benchmarks built, not run)"
cmake -S . -B build-tests -G Ninja -DFD_BUILD_TESTS=ON -DFD_BUILD_BENCHMARKS=ON -DFD_BUILD_TF=OFF -Wno-deprecated >/dev/null
cmake --build build-tests
ctest --test-dir build-tests --output-on-failure

echo "== C++ tests (aarch64 NEON, cross-built, run under qemu-aarch64)"
cmake -S . -B build-aarch64 -G Ninja -DFD_BUILD_TESTS=ON -Wno-deprecated \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" >/dev/null
cmake --build build-aarch64
ctest --test-dir build-aarch64 --output-on-failure

echo "== Bazel build and C++ tests (offline; host, then aarch64 under qemu)"
./scripts/bazel_test.sh

echo "== Android demo (app logic on the JVM, JNI library for aarch64 and the host)"
./scripts/android_test.sh

echo "== Wheels (manylinux x86_64 and aarch64: built, then smoke-tested)"
./scripts/build_wheels.sh
./scripts/check_wheels.sh

echo "== Python tests (the installed package, rebuilt from this tree)"
python -m pip install -q --disable-pip-version-check .
# The package built libfusedelegate_tf.so against the venv's TensorFlow: its
# tests (tests/test_tf_frontend.py) must run, not skip.
FUSEDELEGATE_REQUIRE_TF=1 python -m pytest tests -q
