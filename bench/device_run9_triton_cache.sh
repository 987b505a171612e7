#!/usr/bin/env bash
# H200 run 9 (issue 13, step 1): fill a Triton cache with FLA v0.5.2's l2norm_fwd_kernel for NB 1..32 x FLA's 25
# configs (compile only), and bring back the cache and what Triton wrote, for the C++ reader's fixture and later runs.
# Needs FLA's source in .fla/ (git archive of tag v0.5.2; never committed).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/card.txt"
python3 -c "import triton,torch;print('triton',triton.__version__,'torch',torch.__version__)" | tee -a "$OUT/card.txt"
export TRITON_CACHE_DIR=/tmp/tcache
rm -rf "$TRITON_CACHE_DIR"
PYTHONUNBUFFERED=1 python3 scripts/fill_triton_cache.py --fla-path "$PWD/.fla" --nb 1-32 --jobs 16 2>&1 | tail -20
# Explicit num_stages 2 and 4 for a few NBs (are the binaries the same as the default's?)
PYTHONUNBUFFERED=1 python3 scripts/fill_triton_cache.py --fla-path "$PWD/.fla" --nb 1,2 --stages 2,4 --jobs 8 2>&1 | tail -3
cd "$TRITON_CACHE_DIR"
ls | head -3; ls | wc -l
d=$(ls -d */ | head -1); ls -la "$d"; for f in "$d"*.json; do echo "== $f"; cat "$f"; echo; done
grep -h -A12 '.entry' "$d"*.ptx | head -20
python3 - <<'PY'
import json,collections,os
idx=json.load(open('tunescope-triton-index.json'))
print(idx['triton_version'], idx['fla_version'], len(idx['variants']))
sh=collections.defaultdict(set)
for v in idx['variants']:
    sh[(v['constexprs']['BT'],v['num_warps'],v['num_stages'])].add(v['binary_sha256'])
print('distinct binaries per (BT,warps,stages) across NB:', sorted(set(len(s) for s in sh.values())))
same = collections.defaultdict(set)
for v in idx['variants']:
    if v['constexprs']['NB'] in (1,2): same[(v['constexprs']['NB'],v['constexprs']['BT'],v['num_warps'])].add(v['binary_sha256'])
print('distinct binaries per (NB,BT,warps) across stages 2/3/4:', sorted(set(len(s) for s in same.values())))
PY
tar -czf "$OUT/tcache-full.tgz" . ; ls -la "$OUT"
du -sh .
