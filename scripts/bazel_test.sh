#!/usr/bin/env bash
# Bazel build and C++ tests, offline, with Debian's bazel-bootstrap (Bazel 4.2.3):
# builds libfusedelegate.so and checks its exports, runs the C++ tests, then
# cross-builds both for aarch64 (NEON) and runs the tests under qemu-user.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(bazel-bootstrap g++ g++-aarch64-linux-gnu qemu-user googletest)
source scripts/common.sh
ensure_packages "${packages[@]}"

# Debian's /usr/bin/bazel is a wrapper that wants a binary named after
# .bazelversion (for bazelisk users); call Debian's Bazel 4 directly.
bazel=${BAZEL:-bazel-4}

# Fails unless library $2 ($1: host or aarch64, nm tool $3) exports exactly the
# two TFLite plugin entry points.
check_plugin_exports() {
  check_exports "$3" "$2" tflite_plugin_create_delegate tflite_plugin_destroy_delegate
  echo "bazel_test: $1 libfusedelegate.so exports only the plugin entry points"
}

echo "bazel_test: host build and tests"
"$bazel" build --config=offline //delegate:fusedelegate
check_plugin_exports host "$("$bazel" info --config=offline bazel-bin)/delegate/libfusedelegate.so" nm
"$bazel" test --config=offline //delegate/...

echo "bazel_test: aarch64 cross build, tests under qemu-aarch64"
"$bazel" test --config=offline --config=aarch64 //delegate/...
so="$("$bazel" info --config=offline --config=aarch64 bazel-bin)/delegate/libfusedelegate.so"
if ! aarch64-linux-gnu-readelf -h "$so" | grep -q 'Machine:.*AArch64'; then
  echo "bazel_test: $so is not an aarch64 library" >&2
  exit 1
fi
check_plugin_exports aarch64 "$so" aarch64-linux-gnu-nm
echo "bazel_test: all passed"
