#!/bin/sh
echo "bazel coverage is not available with --config=offline" >&2
exit 1
