#!/usr/bin/env bash
# Builds tunescope-cli with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ (CPU only, no Qt) and runs
# the bad-input corpus (tests/data/bad-input, tests/make_bad_input_corpus.py) through it, every kind. Any sanitizer
# report aborts the run (halt_on_error), which the corpus runner counts as a crash.
#   scripts/sanitize_bad_input.sh [KIND...]     (default: every kind)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${TUNESCOPE_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${TUNESCOPE_JOBS:-$(nproc)}
flags="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DTUNESCOPE_GUI=OFF -DTUNESCOPE_HIP=OFF -DTUNESCOPE_CUDA=OFF ${TUNESCOPE_CMAKE_ARGS:-} > /dev/null
cmake --build "$build" -j "$jobs" --target tunescope-cli
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(profile report fla triton results envelope grid)
status=0
for kind in "${kinds[@]}"; do
    cmake -DCLI="$build/bin/tunescope-cli" -DCORPUS="$root/tests/data/bad-input" \
          -DSEEDS="$root/tests/data/bad-input-seeds" -DKIND="$kind" -DWORK="$build/bad-input/$kind" \
          -P "$root/tests/cli/bad_input/run_corpus.cmake" || status=1
done
exit $status
