#!/usr/bin/env bash
# Submits a sharded sweep: an array of N tasks (sweep-array.sbatch) and the merge + promote job
# (merge-promote.sbatch) that waits for all of them (--dependency=afterok). docs/cluster.md explains the parameters.
#   scripts/slurm/submit-sweep.sh N [sbatch options for the array, e.g. --partition=gpu --constraint=h200]
# The TS_* parameters of both scripts are taken from the environment. Prints the two job ids.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=${1:?usage: submit-sweep.sh N [sbatch options for the array]}
shift
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep.sh: N must be a positive integer, not '$shards'" >&2; exit 2; }
export TS_SHARDS=$shards
array=$(sbatch --parsable --array="0-$((shards - 1))" --export=ALL "$@" "$here/sweep-array.sbatch")
array=${array%%;*}  # --parsable prints "id;cluster" on multi-cluster setups
# shellcheck disable=SC2086  # TS_MERGE_SBATCH_ARGS is a list of options
merge=$(sbatch --parsable --dependency="afterok:$array" --export=ALL ${TS_MERGE_SBATCH_ARGS:-} "$here/merge-promote.sbatch")
merge=${merge%%;*}
echo "sweep array job $array (tasks 0-$((shards - 1))), merge job $merge (after all of them succeed)"
echo "array=$array merge=$merge"
