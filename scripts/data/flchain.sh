#!/usr/bin/env bash
# Regenerates data/flchain/flchain.csv, the public stand-in for the clinical experiment: the
# serum free light chain study of R package survival (Debian r-cran-survival), 7,874 residents
# of Olmsted County, Minnesota, aged 50 or more, written unchanged (missing creatinine and the
# cause of death of the living as empty cells). The CSV is committed; by default this only
# verifies it. REGENERATE=1 rebuilds it; INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build flchain.sh "$root/data/flchain/flchain.csv" 09865a7fb99809deecbcd78b3898a83ac96f53e5d8c3b235196feb5ac9745e84 r-cran-survival '
args <- commandArgs(trailingOnly = TRUE)
data("flchain", package = "survival")
stopifnot(nrow(flchain) == 7874, ncol(flchain) == 11, sum(flchain$death) == 2169, sum(is.na(flchain$creatinine)) == 1350)
write.csv(flchain, args[1], row.names = FALSE, na = "")
'
