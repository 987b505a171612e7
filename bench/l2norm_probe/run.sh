#!/usr/bin/env bash
# One device call's probe step: dump Triton's cubins for FLA's l2norm kernel (all 25 BT x num_warps), time them
# against every config of ours, the copy and a minimal kernel in one process (probe.cu, built beforehand into
# $PROBE_BIN), and keep the SASS of both for reading. Writes OUT_DIR/probe.txt, OUT_DIR/probe_dobench.txt
# (the same with do_bench's cold-cache method) and OUT_DIR/probe.tgz.
# Usage (on the device machine, repo root): PROBE_BIN=.device/probe/probe bench/l2norm_probe/run.sh OUT_DIR
set -u
out=${1:?out dir}
probe=${PROBE_BIN:-.device/probe/probe}
work=/tmp/l2norm_probe
mkdir -p "$out" "$work/triton"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > "$work/card.txt" 2>&1
python3 bench/l2norm_probe/triton_dump.py "$work/triton" > "$work/triton_dump.txt" 2>&1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$work/triton_dump.txt" 2>&1
"$probe" "$work/triton" --rounds "${PROBE_ROUNDS:-25}" --csv "$work/probe.csv" ${PROBE_NB:+--nb $PROBE_NB} > "$out/probe.txt" 2>&1
echo "probe exit $?" >> "$out/probe.txt"
# The reference table's method (triton.testing.do_bench: zero 256 MB before each sample), same process.
"$probe" "$work/triton" --do-bench-flush --rounds "${PROBE_ROUNDS:-25}" --csv "$work/probe_dobench.csv" ${PROBE_NB:+--nb $PROBE_NB} > "$out/probe_dobench.txt" 2>&1
echo "probe exit $?" >> "$out/probe_dobench.txt"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> "$work/card.txt" 2>&1
{
  echo "=== triton 8/4"; cuobjdump --dump-sass "$work/triton/triton_bt8_w4.cubin"
  echo "=== ours 8/4/2 and 16/4/2"
  cuobjdump --dump-sass "$probe" | awk '/Function : /{p = ($0 ~ /l2normForwardKernelILi(8|16)ELi4ELi2E/)} p'
} > "$work/sass.txt" 2>&1
tar czf "$out/probe.tgz" -C "$work" card.txt triton_dump.txt probe.csv probe_dobench.csv sass.txt triton
