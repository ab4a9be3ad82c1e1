# Turns `go test -bench` lines of BenchmarkPenalty and BenchmarkKernelSum into Markdown
# tables: one row per N, one column per variant (ms per call), plus ratios to the baseline.
/^Benchmark(Penalty|KernelSum)\// {
  split($1, parts, "/")
  bench = parts[1]; sub(/^Benchmark/, "", bench)
  n = parts[2]; sub(/^N=/, "", n)
  v = parts[3]; sub(/-[0-9]+$/, "", v)
  ms = $3 / 1e6
  key = bench SUBSEP n SUBSEP v
  t[key] = ms
  if (!((bench SUBSEP n) in seenN)) { seenN[bench SUBSEP n] = 1; ns[bench] = ns[bench] " " n }
  if (!((bench SUBSEP v) in seenV)) { seenV[bench SUBSEP v] = 1; vs[bench] = vs[bench] " " v }
}
END {
  base["Penalty"] = "loop-1"; base["KernelSum"] = "exact-naive"
  title["Penalty"] = "Penalty of one batch (DR, 12 factor columns, two strata): ms per call"
  title["KernelSum"] = "Kernel sums Σ_ij a_i c_j k(h_i, h_j) in float64 (7 estimators' 28 columns): ms per call"
  for (b in ns) {
    print "## " title[b]; print ""
    nv = split(vs[b], vl, " "); nn = split(ns[b], nl, " ")
    hdr = "| N |"; sep = "|---|"
    for (i = 1; i <= nv; i++) { hdr = hdr " " vl[i] " |"; sep = sep "---|" }
    print hdr; print sep
    for (j = 1; j <= nn; j++) {
      row = "| " nl[j] " |"
      for (i = 1; i <= nv; i++) {
        k = b SUBSEP nl[j] SUBSEP vl[i]
        row = row ((k in t) ? sprintf(" %.1f |", t[k]) : " – |")
      }
      print row
    }
    print ""; print "Ratio to " base[b] " (time / baseline time; below 1 is faster):"; print ""
    print hdr; print sep
    for (j = 1; j <= nn; j++) {
      row = "| " nl[j] " |"; bk = b SUBSEP nl[j] SUBSEP base[b]
      for (i = 1; i <= nv; i++) {
        k = b SUBSEP nl[j] SUBSEP vl[i]
        row = row (((k in t) && (bk in t)) ? sprintf(" %.3g |", t[k] / t[bk]) : " – |")
      }
      print row
    }
    print ""
  }
}
