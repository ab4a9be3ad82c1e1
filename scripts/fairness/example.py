#!/usr/bin/env python3
"""Writes invmmd/fairness/testdata/example.csv, the small committed example on which the Go
audit is compared with Fairlearn (see scripts/fairness/fairlearn_reference.py).

Rerun from the repository root (needs only numpy; Debian's python3-numpy):

    /usr/bin/python3 scripts/fairness/example.py [OUT]

OUT defaults to invmmd/fairness/testdata/example.csv. The output is deterministic (numpy's
default_rng(20240601)); after regenerating it, rerun fairlearn_reference.py.

Columns: y (0/1 label); z (group "a", "b", "c" drawn with probabilities 0.50/0.35/0.15,
blank where missing: with probability 0.20 when y = 0 and 0.45 when y = 1, about 30% of
rows); x1, x2 (numeric features); decision (0/1, a noisy threshold of x1, x2 and a group
offset, so that the groups' selection rates and error rates differ). Every group has
positives and negatives among the complete rows, and every (group, y) cell has both
decisions, so that no rate is 0 or 1.
"""
import csv
import sys

import numpy as np

N = 400
LEVELS = np.array(["a", "b", "c"])


def make(seed=20240601):
    rng = np.random.default_rng(seed)
    g = rng.choice(3, size=N, p=[0.50, 0.35, 0.15])
    x1 = rng.normal(size=N) + np.array([0.0, -0.3, 0.4])[g]
    x2 = rng.normal(size=N)
    # Label: depends on the features and a little on the group.
    py = 1 / (1 + np.exp(-(-0.4 + 1.0 * x1 + 0.5 * x2 + np.array([0.0, 0.3, -0.2])[g])))
    y = (rng.uniform(size=N) < py).astype(int)
    # Decision: a noisy score of the features with a group offset (b favoured, c penalised).
    score = 0.9 * x1 + 0.6 * x2 + np.array([0.0, 0.8, -0.9])[g] + rng.normal(scale=0.8, size=N)
    decision = (score > 0.1).astype(int)
    # Missing group: more often for positives.
    miss = rng.uniform(size=N) < np.where(y == 1, 0.45, 0.20)
    z = np.where(miss, "", LEVELS[g])
    return y, z, x1, x2, decision


def check(y, z, decision):
    for lev in LEVELS:
        for yv in (0, 1):
            cell = (z == lev) & (y == yv)
            d = decision[cell]
            assert cell.sum() > 0, (lev, yv)
            assert d.min() == 0 and d.max() == 1, ("a rate would be 0 or 1", lev, yv)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "invmmd/fairness/testdata/example.csv"
    y, z, x1, x2, decision = make()
    check(y, z, decision)
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["y", "z", "x1", "x2", "decision"])
        for i in range(N):
            w.writerow([y[i], z[i], "%.6f" % x1[i], "%.6f" % x2[i], decision[i]])
    blank = int((z == "").sum())
    print(f"wrote {N} rows to {out}: z blank {blank} (y=0: {int(((z == '') & (y == 0)).sum())}, "
          f"y=1: {int(((z == '') & (y == 1)).sum())}); complete rows by z:",
          {lev: int((z == lev).sum()) for lev in LEVELS})


if __name__ == "__main__":
    main()
