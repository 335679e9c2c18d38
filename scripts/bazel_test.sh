#!/usr/bin/env bash
# Bazel build and C++ tests, offline, with Debian's bazel-bootstrap (Bazel 4.2.3):
# builds libfusedelegate.so and checks its exports, runs the C++ tests, then
# cross-builds both for aarch64 (NEON) and runs the tests under qemu-user.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(bazel-bootstrap g++ g++-aarch64-linux-gnu qemu-user googletest)
source scripts/packages.sh
ensure_packages "${packages[@]}"

# Debian's /usr/bin/bazel is a wrapper that wants a binary named after
# .bazelversion (for bazelisk users); call Debian's Bazel 4 directly.
bazel=${BAZEL:-bazel-4}

# Prints the dynamic symbols that $2 defines, using nm $1.
exported_symbols() {
  "$1" -D --defined-only "$2" | awk '{print $3}' | sort
}

# Fails unless $2 exports exactly the two TFLite plugin entry points.
check_exports() {
  local expected actual
  expected=$(printf '%s\n' tflite_plugin_create_delegate tflite_plugin_destroy_delegate)
  actual=$(exported_symbols "$1" "$2")
  if [ "$actual" != "$expected" ]; then
    echo "bazel_test: $3 libfusedelegate.so exports unexpected symbols:" >&2
    echo "$actual" >&2
    exit 1
  fi
  echo "bazel_test: $3 libfusedelegate.so exports only the plugin entry points"
}

echo "bazel_test: host build and tests"
"$bazel" build --config=offline //delegate:fusedelegate
check_exports nm "$("$bazel" info --config=offline bazel-bin)/delegate/libfusedelegate.so" host
"$bazel" test --config=offline //delegate/...

echo "bazel_test: aarch64 cross build, tests under qemu-aarch64"
"$bazel" test --config=offline --config=aarch64 //delegate/...
so="$("$bazel" info --config=offline --config=aarch64 bazel-bin)/delegate/libfusedelegate.so"
if ! aarch64-linux-gnu-readelf -h "$so" | grep -q 'Machine:.*AArch64'; then
  echo "bazel_test: $so is not an aarch64 library" >&2
  exit 1
fi
check_exports aarch64-linux-gnu-nm "$so" aarch64
echo "bazel_test: all passed"
