#!/usr/bin/env bash
# Regenerates data/mplsstops/mplsstops.csv: the MplsStops data set of R package carData
# (Debian r-cran-cardata), the 51,920 stops made by the Minneapolis police in 2017, one row
# each, for the fairness audit. idNum, lat and long are dropped; the time stamp is kept as
# its month (1-12) and hour (0-23) in Minneapolis time (America/Chicago). In race, both the
# level "Unknown" and NA are written blank (missing); NA elsewhere is blank too, and other
# columns keep their "Unknown" levels (see data/mplsstops/README.md). The CSV is committed;
# by default this only verifies it. REGENERATE=1 rebuilds it; INSTALL=0 forbids apt-get.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/data/lib/rtable.sh
source "$root/scripts/data/lib/rtable.sh"
rtable_build mplsstops.sh "$root/data/mplsstops/mplsstops.csv" 4faf9be852064eb12e3f1a6b0529825e3977b531e9f872b53be237e0db23f812 r-cran-cardata '
args <- commandArgs(trailingOnly = TRUE)
data("MplsStops", package = "carData")
stopifnot(nrow(MplsStops) == 51920, !anyNA(MplsStops$date))
d <- MplsStops
tz <- "America/Chicago"
race <- as.character(d$race)
race[race %in% "Unknown"] <- NA
out <- data.frame(
  month = as.integer(format(d$date, "%m", tz = tz)),
  hour = as.integer(format(d$date, "%H", tz = tz)),
  problem = d$problem, MDC = d$MDC, citationIssued = d$citationIssued,
  personSearch = d$personSearch, vehicleSearch = d$vehicleSearch,
  preRace = d$preRace, race = race, gender = d$gender,
  policePrecinct = d$policePrecinct, neighborhood = d$neighborhood)
write.csv(out, args[1], row.names = FALSE, na = "")
'
