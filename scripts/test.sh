#!/usr/bin/env bash
# Installs what is missing, checks the module graph against its rules (before building: it
# needs no build), builds, and runs the whole test suite, then each fuzzing harness for a
# few seconds over its seed corpus (docs/RELIABILITY.md), so that they keep building and passing.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
echo "== checking the module graph (scripts/module-rules.txt)"
./scripts/check-modules.py
echo "== checking the deployment files (deploy/: Kubernetes schemas, checkov; the first run installs the tools)"
./scripts/check-deploy.sh
./scripts/check-deploy.sh --self-test
echo "== building (first build takes a few minutes)"
swift build --build-tests
echo "== building the example compute modules (Examples/Modules, docs/MODULES.md)"
./scripts/build-modules.sh
echo "== testing"
swift test --skip-build --parallel 2>&1 | tee .build/test-output.txt
echo "== fuzzing harnesses: 5 s each over the seed corpora (the long runs: scripts/fuzz.sh)"
./scripts/fuzz.sh --seconds 5 --quick-build
echo "== test suite summary (above: the fuzzing harnesses passed)"
grep -a -E "Test run with [0-9]+ tests|Executed [0-9]+ tests" .build/test-output.txt | tail -n 2 || true
