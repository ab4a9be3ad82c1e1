#!/usr/bin/env bash
# Submit an experiment's sweep to Slurm: one job array with one task per shard, each task
# running `invmmd EXPERIMENT -shard i/n -resume` into one results folder, and a merge job
# (afterok on the whole array) that assembles the tables, Markdown and figures with
# `invmmd merge`. Rerunning the same command resubmits; shards resume from the per-fit
# result files already written, so only what is missing is trained again.
#
# usage: scripts/slurm/sweep.sh EXPERIMENT [-n SHARDS] [-out DIR] [sbatch options...] [-- invmmd flags...]
#
#   EXPERIMENT   an experiment's command (sim, tmnist, clinical: those of invmmd's registry, which
#                invmmd -h lists) or variance (whose shards split the batch sizes)
#   -n SHARDS    number of array tasks (default 4); sbatch's own -n is spelled --ntasks here
#   -out DIR     results folder on a file system every node sees (default slurm-out/EXPERIMENT)
#   sbatch options go to the array job (e.g. --partition=gpu --time=2:00:00
#                --cpus-per-task=4 --gres=gpu:1); the merge job gets only --partition,
#                --account, --qos and --time.
#   invmmd flags after -- go to every shard (e.g. -- -quick -seeds 1,2,3,4,5; variance takes one
#                seed, -seeds 1). The flags are those of invmmd EXPERIMENT -h.
#
# Environment: INVMMD_BIN, an invmmd binary every node can run (default: built here into
# DIR/bin/invmmd); GOMLX_BACKEND (e.g. xla:cuda on GPU partitions) reaches the tasks
# through sbatch's default --export=ALL.
set -euo pipefail

die() { echo "sweep.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: scripts/slurm/sweep.sh EXPERIMENT [-n SHARDS] [-out DIR] [sbatch options...] [-- invmmd flags...]"
exp=$1
shift
[[ $exp =~ ^[a-z][a-z0-9_-]*$ ]] || die "experiment \"$exp\": want an experiment's command, e.g. sim, tmnist, clinical or variance"

n=4
out=""
array_opts=()
merge_opts=()
invmmd_opts=()
# Options of sbatch that take a value as the next word, so that "--partition gpu" works.
takes_value='^(-p|--partition|-A|--account|-q|--qos|-t|--time|-c|--cpus-per-task|--gres|--gpus|--mem|--mem-per-cpu|-C|--constraint|-J|--job-name|-w|--nodelist|-x|--exclude|--reservation)$'
merge_keeps='^(-p|--partition|-A|--account|-q|--qos|-t|--time|--reservation)(=|$)'
while [ $# -gt 0 ]; do
	case "$1" in
	-n)
		[ $# -ge 2 ] || die "-n needs a number of shards"
		n=$2
		shift 2
		;;
	-out | --out)
		[ $# -ge 2 ] || die "-out needs a folder"
		out=$2
		shift 2
		;;
	--)
		shift
		invmmd_opts=("$@")
		break
		;;
	-*)
		opt=("$1")
		if [[ $1 =~ $takes_value ]]; then
			[ $# -ge 2 ] || die "$1 needs a value"
			opt+=("$2")
			shift
		fi
		shift
		array_opts+=("${opt[@]}")
		if [[ ${opt[0]} =~ $merge_keeps ]]; then
			merge_opts+=("${opt[@]}")
		fi
		;;
	*) die "unexpected argument \"$1\" (invmmd flags go after --)" ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || die "-n $n: want a number of shards ≥ 1"
for a in "${invmmd_opts[@]}"; do
	case "$a" in
	-shard | -shard=* | --shard | --shard=* | -out | -out=* | --out | --out=*) die "invmmd flag $a: sweep.sh sets -shard and -out itself" ;;
	esac
done

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${out:-slurm-out/$exp}
mkdir -p "$out/slurm"
out=$(cd "$out" && pwd)

bin=${INVMMD_BIN:-}
if [ -z "$bin" ]; then
	bin=$out/bin/invmmd
	echo "building $bin"
	(cd "$repo" && go build -o "$bin" ./cmd/invmmd)
fi
[ -x "$bin" ] || die "INVMMD_BIN=$bin is not an executable"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# Check the flags, the folder and its stored configuration before submitting anything (an
# unknown experiment is refused here too). The check's report starts with the name the
# results are stored under, which merge needs: e.g. sim_mf075 for sim -- -paper-split.
checked=$("$bin" "$exp" -out "$out" -shard "1/$n" -resume -check "${invmmd_opts[@]}") ||
	die "invmmd rejected the command line above; nothing submitted"
name=${checked%%:*}
[[ -n $name && $name != *" "* ]] || die "cannot read the results' name from invmmd's check: $checked"

q() { printf '%q ' "$@"; }
task="exec $(q "$bin" "$exp" -out "$out" -resume "${invmmd_opts[@]}")-shard \"\$SLURM_ARRAY_TASK_ID/$n\""
array=$(sbatch --parsable --job-name="invmmd-$exp" --array="1-$n" \
	--output="$out/slurm/%x-%A_%a.out" "${array_opts[@]}" --wrap="$task")
array=${array%%;*}
merge=$(sbatch --parsable --job-name="invmmd-$exp-merge" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$out/slurm/%x-%j.out" "${merge_opts[@]}" --wrap="exec $(q "$bin" merge -out "$out" -experiments "$name")")
merge=${merge%%;*}

echo "array job $array: $n shards of invmmd $exp ${invmmd_opts[*]}"
echo "merge job $merge: runs when every shard has succeeded (afterok:$array)"
echo "per-fit results: $out/fits/$name/"
echo "tables:          $out/tables/ (figures in $out/)"
echo "logs:            $out/slurm/"
echo "$array $merge" >"$out/slurm/last-jobs"
