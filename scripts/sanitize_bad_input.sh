#!/usr/bin/env bash
# Runs ctest's asan_* tests (tests/cli/sanitized_bad_input.cmake) from a build folder of their own, build-asan/:
# tunescope-cli built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/sanitized, CPU only, no Qt),
# the bad-input corpus (tests/data/bad-input, tests/make_bad_input_corpus.py) through it, and the canary tests
# that show a sanitizer report fails the run. Nothing else is built.
#   scripts/sanitize_bad_input.sh [KIND...]     (default: every kind)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${TUNESCOPE_ASAN_BUILD_DIR:-$root/build-asan}
cmake -S "$root" -B "$build" -DTUNESCOPE_GUI=OFF -DTUNESCOPE_CUDA=OFF -DTUNESCOPE_HIP=OFF \
      -DTUNESCOPE_SANITIZED_CORPUS=ON > /dev/null
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(profile report fla triton results envelope grid)
pattern="^asan_(build_cli|canary_.*|bad_input_($(IFS='|'; echo "${kinds[*]}")))\$"
exec ctest --test-dir "$build" -R "$pattern" --output-on-failure -j "${TUNESCOPE_JOBS:-$(nproc)}"
