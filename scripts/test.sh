#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
echo "== building (first build takes a few minutes)"
swift build --build-tests
echo "== testing"
swift test --skip-build --parallel 2>&1 | tee .build/test-output.txt
