#!/usr/bin/env bash
# Packs a GPU node's test run from a build made here (no Qt needed there): copies BUILD (default build-device,
# configured with -DTUNESCOPE_GUI=OFF) to build-gpu-tests without object files, strips the binaries and points its
# CTest files at the new folder. On the GPU node, from the repo root at the same path as here:
#   LD_LIBRARY_PATH=/usr/local/cuda/lib64 ctest --test-dir build-gpu-tests --output-on-failure -j4 -E '^asan_'
# (-E '^asan_': the sanitized corpus would build a second CLI there; CI runs it. Or configure BUILD with
# -DTUNESCOPE_SANITIZED_CORPUS=OFF.) The tests call cmake by the absolute path it had here, /usr/bin/cmake: link it
# there if the node has it elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=${1:-build-device}
[ -f "$source_dir/CTestTestfile.cmake" ] || { echo "gpu-test-bundle: $source_dir is not a configured build" >&2; exit 2; }
rm -rf build-gpu-tests
cp -a "$source_dir" build-gpu-tests
find build-gpu-tests \( -name '*.o' -o -name '*.a' \) -delete
grep -rl "$PWD/$source_dir" build-gpu-tests --include='*.cmake' | xargs sed -i "s#$PWD/$source_dir#$PWD/build-gpu-tests#g"
strip build-gpu-tests/bin/* build-gpu-tests/lib/*.so 2>/dev/null || true
du -sh build-gpu-tests
