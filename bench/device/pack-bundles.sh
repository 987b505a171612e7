#!/usr/bin/env bash
# Packs what a device call carries into build-gpu-pack/ (ignored by git), compressed: tracked files are ~51 MiB of
# the 64 MiB that travels, so the uncompressed bundles (build-gpu-rp 17.6 MB, FLA's source 8.5 MB) no longer fit.
#   lt.tar.xz   build-gpu-lt: bin/{tunescope-cli,policy_gemm}, lib/{libtunescope_cublaslt,libtunescope_cupti}.so
#   rp.tar.xz   build-gpu-rp: bin/tunescope-cli, lib/{libtunescope_backend_cuda,libtunescope_cupti}.so
#   fla.tar.xz  .fla/fla (FLA's Python package, from the .fla/ git archive of tag v0.5.2)
# From a build made here (default build-device, after scripts/gpu-test-bundle.sh). On the device, before a script:
#   bash bench/device/unpack-bundles.sh && TS_BUILD=build-gpu-rp bash bench/device/issue24c.sh
# and carry build-gpu-pack.
set -euo pipefail
cd "$(dirname "$0")/../.."
tests=build-gpu-tests
[ -x "$tests/bin/tunescope-cli" ] || { echo "pack-bundles: run scripts/gpu-test-bundle.sh first" >&2; exit 2; }
rm -rf build-gpu-lt build-gpu-rp build-gpu-pack
mkdir -p build-gpu-lt/bin build-gpu-lt/lib build-gpu-rp/bin build-gpu-rp/lib build-gpu-pack
cp "$tests"/bin/{tunescope-cli,policy_gemm} build-gpu-lt/bin/
cp "$tests"/lib/{libtunescope_cublaslt.so,libtunescope_cupti.so} build-gpu-lt/lib/
cp "$tests"/bin/tunescope-cli build-gpu-rp/bin/
cp "$tests"/lib/{libtunescope_backend_cuda.so,libtunescope_cupti.so} build-gpu-rp/lib/
strip build-gpu-lt/bin/* build-gpu-lt/lib/*.so build-gpu-rp/bin/* build-gpu-rp/lib/*.so
tar -cJf build-gpu-pack/lt.tar.xz build-gpu-lt
tar -cJf build-gpu-pack/rp.tar.xz build-gpu-rp
if [ -f .fla/fla/ops/utils/cache.py ]; then tar -cJf build-gpu-pack/fla.tar.xz .fla/fla .fla/tests/ops/test_gdn.py; fi
ls -l build-gpu-pack
du -sh build-gpu-pack
