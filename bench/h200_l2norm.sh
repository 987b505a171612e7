#!/usr/bin/env bash
# One device call: check the carried build runs (else build it there), selftest the CUDA backend, time every
# l2norm config and the copy per NB (cold L2), then FLA's Triton kernel timed the same way for a same-run bar.
# Run from the repository root with OUT set; carried: build-kernels/carry/{bin,lib,cli11}.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
carry=build-kernels/carry
cli=$carry/bin/tunescope-cli
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
if ! "$cli" devices > "$OUT/devices.txt" 2>&1; then
    echo "carried CLI does not run here ($(head -c 300 "$OUT/devices.txt")); building on the device" 
    cmake -S . -B /tmp/tsbuild -DTUNESCOPE_GUI=OFF -DTUNESCOPE_HIP=OFF -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCLI11_INCLUDE_DIR=$PWD/$carry/cli11 > /tmp/fallback_cmake.txt 2>&1 || tail -20 /tmp/fallback_cmake.txt
    cmake --build /tmp/tsbuild -j16 --target tunescope-cli tunescope_backend_cuda > /tmp/fallback_build.txt 2>&1 || tail -30 /tmp/fallback_build.txt
    cli=/tmp/tsbuild/bin/tunescope-cli
    "$cli" devices > "$OUT/devices.txt" 2>&1
fi
cat "$OUT/devices.txt"
start=$(date +%s)
timeout 150 "$cli" selftest --backend cuda > "$OUT/selftest_cuda.txt" 2>&1
echo "selftest --backend cuda: exit $? in $(( $(date +%s) - start )) s"; grep -E "FAIL|selftest:" "$OUT/selftest_cuda.txt" | head -12
start=$(date +%s)
timeout ${BENCH_TIMEOUT:-150} "$cli" bench-l2norm --backend cuda --nb ${BENCH_NB:-1-32} --samples ${BENCH_SAMPLES:-25} ${BENCH_FLAGS:---hint-sweep} \
    --json "$OUT/bench_cuda.json" > "$OUT/bench_table.txt" 2> "$OUT/bench_progress.txt"
echo "bench-l2norm: exit $? in $(( $(date +%s) - start )) s"
if [ -n "${TRITON:-1}" ]; then
    start=$(date +%s)
    PYTHONUNBUFFERED=1 timeout ${TRITON_TIMEOUT:-100} python3 bench/triton_l2norm_same_run.py --nb ${BENCH_NB:-1-32} --samples 25 --do-bench \
        --json "$OUT/triton.json" > "$OUT/triton.txt" 2>&1
    echo "triton: exit $? in $(( $(date +%s) - start )) s"
    cat "$OUT/triton.txt"
fi
cat "$OUT/bench_table.txt" 2>/dev/null || tail -40 "$OUT/bench_progress.txt"
