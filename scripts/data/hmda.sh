#!/usr/bin/env bash
# Regenerates data/hmda/hmda.csv: the Boston HMDA mortgage-denial data (2,380 applications)
# of R package AER (Debian r-cran-aer), with the applicant's race (afam) made missing for
# some rows by a documented, seeded rule (see data/hmda/README.md): Y = deny, Z = afam.
# The CSV is committed; by default this only verifies it. REGENERATE=1 rebuilds it;
# INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build hmda.sh "$root/data/hmda/hmda.csv" 5b141b16153e2cafa8e8d09f24d00f9df3c5a170b9bd62754a0a88acda62f312 r-cran-aer '
args <- commandArgs(trailingOnly = TRUE)
data("HMDA", package = "AER")
stopifnot(nrow(HMDA) == 2380)
d <- HMDA
# Race not recorded: more often for self-employed and single applicants and for denied
# applications, at random given those (missing at random given X and Y).
set.seed(12)
p <- plogis(-1.0 + 1.2 * (d$selfemp == "yes") + 0.8 * (d$single == "yes") + 0.8 * (d$deny == "yes"))
afam <- as.character(d$afam)
afam[runif(nrow(d)) < p] <- NA
d$afam <- afam
write.csv(d, args[1], row.names = FALSE, na = "")
'
