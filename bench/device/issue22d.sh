#!/usr/bin/env bash
# Issue 22, the engine-vs-table gap (~3 min on one H100/H200; BENCHMARKS.md run 14: warm ~1.1 us per launch, the
# engine faster; cold 0.2-0.5 us at NB 1-5): does the host's launch gap between the producer (or flush) and the
# kernel make the Python table's numbers? Same binaries, same process kind, CUPTI durations throughout:
#   (a) fill a Triton cache at the probe's NBs (FLA's 25 configs, default num_stages)
#   (b) the engine: bench-l2norm --kernel triton --timer cupti, --l2 cold and --l2 warm, pipelined (16, default) and
#       --pipeline 1 (the host waits after every sample; the producer still queued right before the kernel)
#   (c) bench/l2_gap_probe.py: the table's launches eager, with a host sync between prepare and kernel ("gap"),
#       and as CUDA graphs ("graph": no host in between)
#   (d) per NB and regime: median over the 25 configs of engine - probe (us) per mode, Spearman per mode
# Carry build-gpu-pack (bench/device/pack-bundles.sh; unpack first):
#   bash bench/device/unpack-bundles.sh && TS_BUILD=build-gpu-rp bash bench/device/issue22d.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
res=$OUT/issue22d
mkdir -p "$res"
build=${TS_BUILD:-build-gpu-rp}
cli=$PWD/$build/bin/tunescope-cli
fla=$PWD/.fla
nbs=${NBS:-1,2,3,4,8,16}
cache=/tmp/tc22d
rm -rf "$cache"
[ -x "$cli" ] || { echo "issue22d: no $cli" | tee "$OUT/summary.txt"; exit 2; }
[ -d "$fla/fla" ] || { echo "issue22d: no FLA source in $fla" | tee "$OUT/summary.txt"; exit 2; }
{
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv
echo "=== (a) fill ($(date +%T))"
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 120 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
    --nb "$nbs" --jobs 16 >"$res/fill.log" 2>&1; echo "exit $?"; tail -1 "$res/fill.log"
for l2 in cold warm; do
    for pipe in 16 1; do
        echo "=== (b) engine --l2 $l2 --pipeline $pipe ($(date +%T))"
        timeout 120 "$cli" bench-l2norm --backend cuda --kernel triton --triton-cache "$cache" --nb "$nbs" --samples 25 \
            --timer cupti --l2 $l2 --pipeline $pipe --json "$res/engine-$l2-p$pipe.json" >"$res/engine-$l2-p$pipe.log" 2>&1
        echo "exit $?"; grep -m2 "timer" "$res/engine-$l2-p$pipe.log"
    done
done
echo "=== (c) probe ($(date +%T))"
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 240 python3 bench/l2_gap_probe.py --fla-path "$fla" --nb "$nbs" \
    --json "$res/probe.json" 2>&1 | tee "$res/probe.log" | tail -8
echo "=== (d) engine - probe ($(date +%T))"
python3 - "$res" <<'PY'
import json, os, statistics, sys
res = sys.argv[1]
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v)
    for k, i in enumerate(order): r[i] = k
    return r
def spearman(a, b):
    ra, rb = ranks(a), ranks(b); n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))
probe = json.load(open(os.path.join(res, "probe.json")))["table_us"]
for l2 in ("cold", "warm"):
    for pipe in (16, 1):
        try:
            eng = json.load(open(os.path.join(res, f"engine-{l2}-p{pipe}.json")))
        except (OSError, ValueError) as e:
            print(l2, pipe, "no engine file", e); continue
        for entry in eng["results"]:
            nb = str(entry["nb"])
            e = {f"{c['BT']}/{c['num_warps']}/{c['num_stages']}": c["median_us"] for c in entry["configs"]}
            parts = []
            for mode in ("eager", "gap", "graph"):
                p = probe.get(f"{l2}/{mode}", {}).get(nb)
                if not p: continue
                keys = [k for k in e if k in p]
                d = [e[k] - p[k] for k in keys]
                within = sum(1 for k in keys if abs(e[k] - p[k]) <= max(0.01 * p[k], 0.1))
                parts.append(f"{mode} {statistics.median(d):+.2f} us ({within}/{len(keys)} within 1%|0.1us, "
                             f"rho {spearman([e[k] for k in keys], [p[k] for k in keys]):.3f})")
            print(f"{l2} p{pipe:<2d} NB {nb:>2s}: " + "; ".join(parts))
PY
} 2>&1 | tee "$OUT/summary.txt"
rm -rf "$cache"
