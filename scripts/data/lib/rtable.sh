#!/usr/bin/env bash
# Sourced by the scripts that convert a data set of a Debian R package to a committed CSV
# (hmda.sh, pbc.sh); it lives in lib/ because scripts/setup.sh runs every scripts/data/*.sh.
# Source it, then call
#
#   rtable_build NAME OUT SHA256 DEBIAN_PACKAGE R_PROGRAM
#
# It verifies OUT against SHA256 and returns when they match (unless REGENERATE=1);
# otherwise it installs r-base-core and DEBIAN_PACKAGE with apt-get when missing (INSTALL=0
# forbids it), runs R_PROGRAM with Rscript --vanilla and the output path as its argument,
# and moves the result into place. It prints the new checksum so the caller can be updated.
set -euo pipefail

rtable_build() {
	local name=$1 out=$2 sha=$3 pkg=$4 prog=$5
	if [[ "${REGENERATE:-0}" != 1 && -f "$out" && "$(sha256sum "$out" | cut -d' ' -f1)" == "$sha" ]]; then
		echo "$name: $out present and verified (sha256 $sha); REGENERATE=1 rebuilds it with R"
		return 0
	fi
	if ! command -v Rscript >/dev/null 2>&1 || ! dpkg -s "$pkg" >/dev/null 2>&1; then
		if [[ "${INSTALL:-1}" != 1 ]]; then
			echo "$name: Rscript or $pkg missing and INSTALL=0" >&2
			return 1
		fi
		echo "$name: installing r-base-core and $pkg with apt-get"
		local sudo_cmd=()
		if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
		"${sudo_cmd[@]}" apt-get update -q
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends r-base-core "$pkg"
	fi
	echo "$name: $pkg $(dpkg-query -W -f='${Version}' "$pkg"), R $(dpkg-query -W -f='${Version}' r-base-core)"
	mkdir -p "$(dirname "$out")"
	local tmp
	tmp="$(mktemp "$(dirname "$out")/.$name.XXXXXX.csv")"
	# shellcheck disable=SC2064
	trap "rm -f '$tmp'" EXIT
	Rscript --vanilla -e "$prog" "$tmp"
	chmod 644 "$tmp"
	mv "$tmp" "$out"
	trap - EXIT
	local got
	got="$(sha256sum "$out" | cut -d' ' -f1)"
	echo "$name: wrote $(($(wc -l <"$out") - 1)) rows to $out, sha256 $got"
	if [[ "$got" != "$sha" ]]; then
		echo "$name: the checksum differs from the committed one ($sha): update the script if the new file is intended" >&2
	fi
}
