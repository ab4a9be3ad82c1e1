#!/usr/bin/env python3
"""Fairlearn's group metrics on a CSV: the reference the Go audit (invmmd/fairness) is
tested against.

Rerun from the repository root:

    FAIRLEARN_SRC=/tmp/fairlearn-0.9.0 /usr/bin/python3 scripts/fairness/fairlearn_reference.py \
        invmmd/fairness/testdata/example.csv invmmd/fairness/testdata/fairlearn_reference.csv

It needs numpy, pandas, scipy and scikit-learn (Debian: python3-numpy python3-pandas
python3-scipy python3-sklearn) and Fairlearn 0.9.0. Fairlearn is not vendored here: use an
ordinary install (`import fairlearn` is tried first) or, failing that, its source tree at
$FAIRLEARN_SRC, e.g. extracted from the repository github.com/fairlearn/fairlearn with
`git archive v0.9.0 fairlearn | tar -x -C /tmp/fairlearn-0.9.0`.

Input: a CSV with columns y (0/1), z (the group; blank = missing) and decision (0/1); other
columns are ignored. The rows whose z is blank are dropped (dropna on z), as a Fairlearn user
must: MetricFrame has no notion of a missing group.

Output: a long CSV with header metric,group,value. For each metric of the MetricFrame (count,
selection_rate, true_positive_rate, false_positive_rate, false_negative_rate,
true_negative_rate, accuracy = sklearn's accuracy_score), group is a level of z (by_group),
`overall`, `difference_between_groups`, `difference_to_overall`, `ratio_between_groups` or
`ratio_to_overall` (MetricFrame.difference / .ratio with that method). The scalar functions
demographic_parity_difference, demographic_parity_ratio, equalized_odds_difference,
equalized_odds_ratio (default method, between_groups) have group `all`; the same with
method="to_overall" are written as metric NAME_to_overall. Values are printed with %.17g
(enough to round-trip a float64).
"""
import csv
import os
import sys

try:
    import fairlearn
except ImportError:
    src = os.environ.get("FAIRLEARN_SRC")
    if not src:
        sys.exit("fairlearn is not installed: set FAIRLEARN_SRC to its source tree (the folder holding fairlearn/)")
    sys.path.insert(0, src)
    import fairlearn

import numpy as np
import pandas as pd
import sklearn
from sklearn.metrics import accuracy_score
from fairlearn.metrics import (
    MetricFrame,
    count,
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_negative_rate,
    false_positive_rate,
    selection_rate,
    true_negative_rate,
    true_positive_rate,
    true_positive_rate_difference,
)

METRICS = {
    "count": count,
    "selection_rate": selection_rate,
    "true_positive_rate": true_positive_rate,
    "false_positive_rate": false_positive_rate,
    "false_negative_rate": false_negative_rate,
    "true_negative_rate": true_negative_rate,
    "accuracy": accuracy_score,
}


def fmt(v):
    return "%.17g" % float(v)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fairlearn_reference.py IN.csv OUT.csv")
    inp, out = sys.argv[1], sys.argv[2]
    print(f"fairlearn {fairlearn.__version__} ({os.path.dirname(fairlearn.__file__)}), "
          f"scikit-learn {sklearn.__version__}, pandas {pd.__version__}, numpy {np.__version__}")

    # Only the empty string is missing (a level named "NA" stays a level).
    df = pd.read_csv(inp, dtype={"z": str}, keep_default_na=False, na_values={"z": [""]})
    n_all = len(df)
    df = df.dropna(subset=["z"])
    print(f"{inp}: {n_all} rows, {n_all - len(df)} with z blank dropped, {len(df)} used")
    y = df["y"].astype(int).to_numpy()
    d = df["decision"].astype(int).to_numpy()
    z = df["z"]

    mf = MetricFrame(metrics=METRICS, y_true=y, y_pred=d, sensitive_features=z)
    rows = []
    for m in METRICS:
        for lev, v in mf.by_group[m].items():
            rows.append((m, lev, v))
        rows.append((m, "overall", mf.overall[m]))
    for kind in ("difference", "ratio"):
        for method in ("between_groups", "to_overall"):
            res = getattr(mf, kind)(method=method)
            for m in METRICS:
                rows.append((m, f"{kind}_{method}", res[m]))

    scalar = {
        "demographic_parity_difference": demographic_parity_difference,
        "demographic_parity_ratio": demographic_parity_ratio,
        "equalized_odds_difference": equalized_odds_difference,
        "equalized_odds_ratio": equalized_odds_ratio,
    }
    for name, fn in scalar.items():
        rows.append((name, "all", fn(y, d, sensitive_features=z)))
    for name, fn in scalar.items():
        rows.append((name + "_to_overall", "all", fn(y, d, sensitive_features=z, method="to_overall")))

    # Fairlearn 0.9.0 has no equal_opportunity_difference (fairlearn.metrics exports none):
    # it is computed here as the between-groups difference of the true positive rate, which
    # is what fairlearn's generated true_positive_rate_difference returns too (checked).
    eod = mf.difference(method="between_groups")["true_positive_rate"]
    if hasattr(fairlearn.metrics, "equal_opportunity_difference"):
        assert np.isclose(eod, fairlearn.metrics.equal_opportunity_difference(y, d, sensitive_features=z))
    assert np.isclose(eod, true_positive_rate_difference(y, d, sensitive_features=z))
    rows.append(("equal_opportunity_difference", "all", eod))

    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["metric", "group", "value"])
        for m, g, v in rows:
            w.writerow([m, g, fmt(v)])
    print(f"wrote {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
