#!/usr/bin/env bash
# Acceptance test of docs/cluster.md on a real SLURM: starts a private single-node SLURM (munged, slurmctld, slurmd
# on localhost, its own ports, socket and state folder), submits a 3-task CPU sweep array plus the dependent merge
# with scripts/slurm/submit-sweep.sh, cancels one task mid-run, checks that the merge waits and that
# merge --expect-shards refuses the incomplete shard by name, re-runs that task alone (sbatch --array=1), which
# resumes its file, and lets the merge + promote run. Then: the merged file holds every item of the plan exactly
# once, and promote's decisions on it equal those on a merge of the same shard files made without SLURM, in the
# other order. Exit 77 (ctest's skip) with the reason when SLURM cannot start here.
# Usage: slurm_array.sh TUNESCOPE_CLI SOURCE_DIR
set -uo pipefail
cli=$1
src=$2
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in munged munge slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || skip "$tool is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root (this is $(id -un))"
id munge >/dev/null 2>&1 || skip "there is no munge user"
[ -r /etc/munge/munge.key ] || skip "/etc/munge/munge.key is missing"
export PATH="$PATH:/usr/sbin"

work=$(mktemp -d /tmp/tunescope-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/logs" "$work/results"
chown munge:munge "$work/munge"

stop_daemon() {  # by pid file, never by name: other tests and other clusters may run beside this one
    local pidfile=$1
    [ -s "$pidfile" ] || return 0
    local pid
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
    [ -n "${SLURM_CONF:-}" ] && [ -s "$work/slurmctld.pid" ] && scancel --full --quiet --user=root 2>/dev/null
    stop_daemon "$work/slurmd.pid"
    stop_daemon "$work/slurmctld.pid"
    stop_daemon "$work/munge/munged.pid"
    if [ -n "${TUNESCOPE_KEEP_SLURM_TEST:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# munged on a private socket, so that this test neither needs nor disturbs a system munged.
runuser -u munge -- munged --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" \
    || skip "munged does not start here: $(tail -n 2 "$work/munge/munged.log" 2>/dev/null)"

free_port() {  # a port nothing listens on, from a range spread by this shell's pid
    local port
    for _ in $(seq 200); do
        port=$((20000 + (RANDOM * 32768 + RANDOM + $$) % 40000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
    return 1
}
# shellcheck disable=SC2015  # either failing is a skip
ctld_port=$(free_port) && slurmd_port=$(free_port) || skip "no free TCP port found"
node=$(hostname)
memory_mb=$(awk '/^MemTotal:/ { m = int($2 / 1024 / 2); print (m < 2000 ? m : 2000) }' /proc/meminfo)
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=tunescope-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
KillWait=5
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$memory_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -c -f "$SLURM_CONF" || skip "slurmctld does not start here: $(tail -n 3 "$work/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || skip "slurmd does not start here: $(tail -n 3 "$work/slurmd.log" 2>/dev/null)"
for _ in $(seq 100); do
    [ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] && break
    sleep 0.2
done
[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] ||
    skip "slurmd did not come up (node state '$(sinfo -h -o %T 2>/dev/null)'): $(tail -n 3 "$work/slurmd.log" 2>/dev/null)"
echo "SLURM $(sinfo -V) up on $node: slurmctld port $ctld_port, slurmd port $slurmd_port, $(nproc) CPUs"

# The plan: 6 NB x 12 configs, hot, each measurement about 100 ms (it stops once it has 100 ms of samples), 3 rounds.
# Shards split by shape and a shape's records land together after its last round (docs/sweep.md), so each task has
# two shapes: task 1 is caught after its first shape's block, in the middle of its second.
shapes=6  # NB 14-19: mostly prospective entries of the sample profile, which promote may change
grid=12
export TS_CLI=$cli TS_BACKEND=cpu TS_RESULTS=$work/results
export TS_SWEEP_ARGS="--hot --nb 14-19 --rows-per-nb 2048 --bt 8,16,32 --warps 1,2 --stages 2,3 --noise 1
 --min-samples 5 --min-time 100 --timeout 2000 --device-warmup 0"
export TS_PROFILE=$src/profiles/fla-l2norm-gfx942-profile.json TS_PROMOTED=$work/results/promoted.json
# CPU timings promoted into a gfx942 profile beside its production choices: two architectures, on purpose here.
export TS_PROMOTE_ARGS="--allow-mixed-architectures"
export TS_MERGE_SBATCH_ARGS="--output=$work/logs/merge-%j.log"
wait_done() {  # until none of the jobs is pending, running or completing (at most $2 s)
    local deadline=$((SECONDS + $2))
    while [ -n "$(squeue -h -j "$1" -t PD,R,CG,CF -o %i 2>/dev/null)" ]; do
        ((SECONDS < deadline)) || fail "jobs $1 still not done after $2 s: $(squeue -j "$1")"
        sleep 0.2
    done
}
job_state() { scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | head -n 1; }

cd "$work" || fail "cannot enter $work"
submitted=$("$src/scripts/slurm/submit-sweep.sh" 3 --gres=none --cpus-per-task=1 \
    --output="$work/logs/sweep-%A_%a.log") || fail "submit-sweep.sh failed: $submitted"
echo "$submitted"
array=$(sed -n 's/^array=\([0-9]*\) merge=.*/\1/p' <<< "$submitted")
merge=$(sed -n 's/.* merge=\([0-9]*\)$/\1/p' <<< "$submitted")
# shellcheck disable=SC2015  # either missing is a failure
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $submitted"

# Cancel task 1 once it has saved its first shape (one block of measurements), while it measures its second.
shard1=$work/results/shard-1-of-3.jsonl
deadline=$((SECONDS + 40))
until [ -f "$shard1" ] && [ "$(grep -c '"type":"measurement"' "$shard1")" -ge 1 ]; do
    ((SECONDS < deadline)) || fail "task 1 never saved a shape: $(cat "$work"/logs/sweep-*_1.log 2>/dev/null)"
    sleep 0.05
done
scancel "${array}_1"
wait_done "$array" 60
kept=$(grep -c '"type":"measurement"' "$shard1")
[ "$(grep -c '"type":"measurement"' "$work/results/shard-0-of-3.jsonl")" -gt 0 ] || fail "task 0 measured nothing"
grep -q "stopped by SIGTERM" "$work"/logs/sweep-"${array}"_1.log ||
    fail "task 1 was not stopped by scancel's SIGTERM: $(cat "$work"/logs/sweep-"${array}"_1.log)"
echo "task 1 cancelled with $kept measurements saved: $(tail -n 1 "$work"/logs/sweep-"${array}"_1.log)"

# The merge waits for every task to succeed: with one cancelled it can never run.
reason=""
for _ in $(seq 50); do
    reason=$(squeue -h -j "$merge" -o %r 2>/dev/null)
    [ "$reason" = DependencyNeverSatisfied ] && break
    sleep 0.2
done
[ "$reason" = DependencyNeverSatisfied ] || fail "merge job $merge: expected DependencyNeverSatisfied, got '$reason'"
scancel "$merge"
echo "merge job $merge: $reason (cancelled)"

# A merge by hand refuses the incomplete shard by name.
"$cli" merge --expect-shards 3 "$work"/results/shard-*-of-3.jsonl --out "$work/refused.jsonl" > "$work/refused.out" 2>&1
rc=$?
cat "$work/refused.out"
[ $rc -eq 1 ] || fail "merge of an incomplete array exited $rc, not 1"
grep -q "shard 1/3 ($shard1) is incomplete: $kept of " "$work/refused.out" || fail "the refusal does not name shard 1"
[ ! -e "$work/refused.jsonl" ] || fail "a refused merge wrote its output"

# Re-run task 1 alone; it resumes its file. Then the merge + promote after it.
rerun=$(sbatch --parsable --array=1 --export=ALL,TS_SHARDS=3 --gres=none --cpus-per-task=1 --output="$work/logs/rerun-%A_%a.log" \
    "$src/scripts/slurm/sweep-array.sbatch") || fail "sbatch --array=1 failed"
rerun=${rerun%%;*}
merge2=$(sbatch --parsable --dependency="afterok:$rerun" --export=ALL,TS_SHARDS=3 --output="$work/logs/merge-%j.log" \
    "$src/scripts/slurm/merge-promote.sbatch") || fail "sbatch of the merge failed"
merge2=${merge2%%;*}
wait_done "$rerun,$merge2" 90
rerun_log=$(cat "$work"/logs/rerun-"${rerun}"_1.log)
grep -q "resuming $shard1: [0-9]* complete shapes ($kept lines) already there" <<< "$rerun_log" ||
    fail "the re-run did not resume $shard1 ($kept measurements): $rerun_log"
echo "re-run $rerun: $(grep -m1 resuming <<< "$rerun_log")"
merge_log=$(cat "$work/logs/merge-$merge2.log")
echo "$merge_log"
[ "$(job_state "$merge2")" = JobState=COMPLETED ] || fail "merge job $merge2 is $(job_state "$merge2")"

# Every item of the plan exactly once: shapes x grid l2norm measurements and one copy ceiling per shape.
merged=$work/results/merged.jsonl
keys=$(grep '"type":"measurement"' "$merged" |
    sed -E 's/.*"kind":"([a-z0-9]+)","nb":([0-9]+),"rows":([0-9]+),.*"config":(\{[^}]*\}|null).*/\1 \2 \3 \4/')
duplicates=$(sort <<< "$keys" | uniq -d)
[ -z "$duplicates" ] || fail "measured twice in $merged: $duplicates"
l2norm=$(grep -c '^l2norm ' <<< "$keys")
copies=$(grep -c '^copy ' <<< "$keys")
[ "$l2norm" -eq $((shapes * grid)) ] || fail "$merged has $l2norm l2norm measurements, the plan has $((shapes * grid))"
[ "$copies" -eq "$shapes" ] || fail "$merged has $copies copy ceilings, the plan has $shapes shapes"
[ "$(grep -c '"type":"error"' "$merged")" -eq 0 ] || fail "$merged holds error lines"
[ -s "$TS_PROMOTED" ] || fail "the merge job wrote no promoted profile"

# The same recorded measurements merged without SLURM, in the other order, promote to the same decisions.
"$cli" merge --expect-shards 3 "$work/results/shard-2-of-3.jsonl" "$work/results/shard-1-of-3.jsonl" \
    "$work/results/shard-0-of-3.jsonl" --out "$work/local-merged.jsonl" > /dev/null || fail "the local merge failed"
"$cli" promote "$TS_PROFILE" --results "$work/local-merged.jsonl" --out "$work/local-promoted.json" \
    $TS_PROMOTE_ARGS > "$work/local-promote.out" 2> /dev/null || fail "the local promote failed"
grep '^NB ' <<< "$merge_log" > "$work/slurm-decisions.txt"
grep '^NB ' "$work/local-promote.out" > "$work/local-decisions.txt"
[ -s "$work/slurm-decisions.txt" ] || fail "the merge job printed no promote decisions"
diff "$work/slurm-decisions.txt" "$work/local-decisions.txt" || fail "promote decided differently on the same measurements"
# ... and the promoted profiles differ only in where the evidence came from (file digest and line numbers).
strip() { sed -E -e 's/"results_(sha256|line|file)": *("[^"]*"|[0-9]+)//g' -e 's/"replaced_by": *"[^"]*"//g' "$1"; }
diff <(strip "$TS_PROMOTED") <(strip "$work/local-promoted.json") > /dev/null ||
    fail "the promoted profiles differ beyond the evidence's file, digest and lines"
# The explore templates: two GEMM shapes, one per task, and the summary after both (afterany). Without a CUDA GPU
# explore exits 77 and the table says why; with one it explores for a few seconds per shape.
printf '# M N K [options]\n256 256 256\n\n512 256 128 --dtype bf16\n' > "$work/shapes.txt"
export TS_SHAPES=$work/shapes.txt TS_REPORTS=$work/explore TS_EXPLORE_ARGS="--budget 5"
explore=$(sbatch --parsable --array=0-1 --export=ALL --gres=none --cpus-per-task=1 \
    --output="$work/logs/explore-%A_%a.log" "$src/scripts/slurm/explore-shapes.sbatch") || fail "sbatch explore failed"
explore=${explore%%;*}
summary=$(sbatch --parsable --dependency="afterany:$explore" --export=ALL --output="$work/logs/summary-%j.log" \
    "$src/scripts/slurm/explore-summary.sbatch") || fail "sbatch of the explore summary failed"
summary=${summary%%;*}
wait_done "$explore,$summary" 120
cat "$work/logs/summary-$summary.log"
[ "$(job_state "$summary")" = JobState=COMPLETED ] || fail "explore summary job $summary is $(job_state "$summary")"
grep -Eq '^0 +256x256x256 +(ok|skip) ' "$work/explore/summary.txt" || fail "the summary lacks shape 0"
grep -Eq '^1 +512x256x128 +(ok|skip) ' "$work/explore/summary.txt" || fail "the summary lacks shape 1"

echo "PASS: $l2norm l2norm + $copies copy measurements, each once; $(wc -l < "$work/slurm-decisions.txt") promote decisions equal"
