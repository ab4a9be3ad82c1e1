#!/usr/bin/env bash
# Regenerates data/nmes1988/nmes1988.csv, the public stand-in for the clinical experiment,
# from the NMES1988 data set in Debian's r-cran-aer (R package AER). The CSV is committed, so
# by default this script only verifies it (the set-up script calls it); it installs R and
# rebuilds the file when the file is missing or differs, or with REGENERATE=1.
#
# Usage: scripts/data/nmes.sh                (from anywhere; safe to run twice)
#        REGENERATE=1 scripts/data/nmes.sh   (rebuild with R even when the CSV is intact)
#        INSTALL=0 scripts/data/nmes.sh      (do not apt-get install R if it is missing)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out_dir="$root/data/nmes1988"
out="$out_dir/nmes1988.csv"
sha256=afe3014ac853364ff86e71bdfd14e05a2b0c8a4e781f239bf060488d032d3c53 # of the committed CSV (r-cran-aer 1.2-10-1, R 4.2.2)

if [[ "${REGENERATE:-0}" != 1 && -f "$out" && "$(sha256sum "$out" | cut -d' ' -f1)" == "$sha256" ]]; then
	echo "nmes.sh: $out present and verified (sha256 $sha256); REGENERATE=1 rebuilds it with R"
	exit 0
fi

if ! command -v Rscript >/dev/null 2>&1 || ! dpkg -s r-cran-aer >/dev/null 2>&1; then
	if [[ "${INSTALL:-1}" != 1 ]]; then
		echo "nmes.sh: Rscript or r-cran-aer missing and INSTALL=0" >&2
		exit 1
	fi
	echo "nmes.sh: installing r-base-core and r-cran-aer with apt-get"
	sudo_cmd=()
	if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
	"${sudo_cmd[@]}" apt-get update -q
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends r-base-core r-cran-aer
fi

echo "nmes.sh: r-cran-aer $(dpkg-query -W -f='${Version}' r-cran-aer), R $(dpkg-query -W -f='${Version}' r-base-core)"
mkdir -p "$out_dir"
tmp="$(mktemp "$out_dir/.nmes1988.XXXXXX.csv")"
trap 'rm -f "$tmp"' EXIT
echo "nmes.sh: writing NMES1988 (package AER) to $out"
Rscript --vanilla -e '
args <- commandArgs(trailingOnly = TRUE)
data("NMES1988", package = "AER")
stopifnot(nrow(NMES1988) == 4406, ncol(NMES1988) == 19)
write.csv(NMES1988, args[1], row.names = FALSE)
' "$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "nmes.sh: $(($(wc -l <"$out") - 1)) rows, sha256 $(sha256sum "$out" | cut -d" " -f1)"
