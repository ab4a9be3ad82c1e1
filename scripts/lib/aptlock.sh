# shellcheck shell=bash
# apt_wait CMD...: runs CMD, an apt-get command line (with sudo before it if needed). While
# it fails because another process holds the package manager's lock (unattended-upgrades,
# another apt-get, a desktop updater), it says what it waits for, waits and runs CMD again,
# every INVMMD_APT_POLL seconds (default 10) for at most INVMMD_APT_WAIT seconds (default
# 600, ten minutes); then it gives up with a message naming the process that holds the lock
# and returns 1. Any other failure (a package that does not exist, no permission) returns
# CMD's exit status at once, with CMD's messages. CMD's standard output passes through;
# its standard error is shown once it is known not to be about the lock.
#
# Sourced by scripts/setup.sh; internal/scriptcheck tests it against a fake apt-get and a
# process that holds a lock.
apt_wait() {
	local wait="${INVMMD_APT_WAIT:-600}" poll="${INVMMD_APT_POLL:-10}"
	local start err rc holder elapsed said=-1
	start="$(_apt_wait_ms)"
	err="$(mktemp)"
	while :; do
		rc=0
		"$@" 2>"$err" || rc=$?
		if [[ $rc -eq 0 ]] || grep -q 'Permission denied' "$err" ||
			! grep -qE 'Could not get lock|is another process using it' "$err"; then
			cat "$err" >&2
			rm -f "$err"
			return "$rc"
		fi
		holder="$(grep -oE 'held by process [0-9]+( \([^)]*\))?' "$err" | head -n 1)"
		holder="${holder:-held by a process apt did not name}"
		elapsed=$((($(_apt_wait_ms) - start) / 1000))
		if [[ $elapsed -ge $wait ]]; then
			echo "setup: ERROR: gave up after ${elapsed} s: the package manager's lock is still ${holder}." >&2
			echo "setup: let that process finish (e.g. unattended-upgrades after boot; 'ps -p PID' shows it), then run scripts/setup.sh again" >&2
			echo "setup: (INVMMD_APT_WAIT=SECONDS waits longer); apt-get said:" >&2
			sed 's/^/    /' "$err" >&2
			rm -f "$err"
			return 1
		fi
		# Say it the first time and then once a minute, not at every poll.
		if [[ $said -lt 0 || $((elapsed - said)) -ge 60 ]]; then
			echo "setup: waiting for the package manager's lock, ${holder}: retrying \"$*\" every ${poll} s, ${elapsed} s waited of at most ${wait} s" >&2
			said=$elapsed
		fi
		sleep "$poll"
	done
}

# _apt_wait_ms prints the time in milliseconds: bash's $EPOCHREALTIME (bash 5; its
# separator follows the locale), or whole seconds where it is missing ($SECONDS alone can
# count a second that has not passed yet).
_apt_wait_ms() {
	local t="${EPOCHREALTIME:-}"
	if [[ -n $t ]]; then
		t="${t//[.,]/}"
		echo $((10#$t / 1000))
	else
		echo $((SECONDS * 1000))
	fi
}
