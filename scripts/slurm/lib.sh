# Shell functions shared by scripts/slurm/test.sh and scale.sh (sourced, not run).

# wait_job ID DEADLINE_S waits for a Slurm job to end and prints its final state, or
# TIMEOUT(...) after DEADLINE_S seconds. Without accounting, scontrol keeps ended jobs for
# MinJobAge (300 s in local-cluster.sh's configuration).
wait_job() {
	local id=$1 deadline=$((SECONDS + $2)) state=""
	while [ $SECONDS -lt $deadline ]; do
		state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
		case "$state" in
		COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL | BOOT_FAIL | DEADLINE)
			echo "$state"
			return
			;;
		esac
		sleep 1
	done
	echo "TIMEOUT(waited ${2}s, last state ${state:-unknown})"
}
