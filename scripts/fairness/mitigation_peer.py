#!/usr/bin/env python3
"""Fairlearn's own mitigation on the comparison study's split folders: the peer that `fit`'s
penalties are compared with (docs/fairness.md, "Mitigation").

Rerun from the repository root, after the Go study has written its splits:

    FAIRLEARN_SRC=/tmp/fairlearn-0.9.0 /usr/bin/python3 scripts/fairness/mitigation_peer.py DIR [--force]

It needs numpy, pandas, scipy and scikit-learn (Debian: python3-numpy python3-pandas
python3-scipy python3-sklearn) and Fairlearn 0.9.0: an ordinary install (`import fairlearn` is
tried first) or its source tree at $FAIRLEARN_SRC / --fairlearn-src (the folder holding
fairlearn/, e.g. `git archive v0.9.0 fairlearn | tar -x -C /tmp/fairlearn-0.9.0`).

Input: every folder DIR/T/seedS/ holding train.csv and test.csv. Columns: features x1..xd
(numeric, already encoded), y (0/1), z (group code 0..K-1; blank in train.csv where the attribute
is hidden, complete in test.csv); train.csv also has z_full (the complete attribute, for the
oracle) and possibly split (train/val): only the rows with split == train are used.

Output, in each folder: scores_NAME.csv (one column `score` = the probability of the positive
decision, one row per test.csv row, in order) for
  fairlearn_lr_cc                 LogisticRegression(max_iter=1000), no constraint, complete cases
  fairlearn_eg_{cc,oracle}_bB     ExponentiatedGradient(that LR, EqualizedOdds(difference_bound=B)),
                                  B in --bounds; score = the mixture's P(decision = 1) (_pmf_predict),
                                  which takes few distinct values (the evaluation breaks ties at random)
  fairlearn_to_{cc,oracle}        ThresholdOptimizer(that LR, constraints="equalized_odds",
                                  predict_method="predict_proba"); it needs the attribute at
                                  prediction time: it is given test.csv's z
and, with --balanced, the same EG and TO models with balanced error as the objective (NAME_bal:
ErrorRate(costs fp = 1/(2(1-p)), fn = 1/(2p)), p the training prevalence; objective =
"balanced_accuracy_score"): at a low prevalence the accuracy objective makes both near-constant
(ThresholdOptimizer then rejects everyone; its score is constant). cc trains on the rows whose z
is present (what a Fairlearn user can do: it fails on a missing group) and oracle on every row
with z_full. peer_meta.json records the versions, the
bounds, the rows used and the seconds per model. Existing score files are kept unless --force.
Randomness (numpy's global state, used by ThresholdOptimizer's tie handling) is seeded from S.
"""
import argparse
import glob
import json
import os
import re
import sys
import time

import numpy as np
import pandas as pd
import sklearn
from sklearn.linear_model import LogisticRegression


def import_fairlearn(src):
    try:
        import fairlearn
    except ImportError:
        if not src:
            sys.exit("fairlearn is not installed: set FAIRLEARN_SRC or --fairlearn-src to its source tree")
        sys.path.insert(0, src)
        import fairlearn
    return fairlearn


def load(folder):
    """Returns (X, y, z, z_full) of the training rows and (X, z) of the test rows."""
    tr = pd.read_csv(os.path.join(folder, "train.csv"))
    te = pd.read_csv(os.path.join(folder, "test.csv"))
    if "split" in tr.columns:
        tr = tr[tr["split"] == "train"]
    xs = sorted((c for c in tr.columns if re.fullmatch(r"x\d+", c)), key=lambda c: int(c[1:]))
    if not xs or te[xs + ["z"]].isna().any().any():
        raise ValueError(f"{folder}: no x columns, or test.csv has blanks")
    return (tr[xs].to_numpy(float), tr["y"].to_numpy(int), tr["z"].to_numpy(float),
            tr["z_full"].to_numpy(int), te[xs].to_numpy(float), te["z"].to_numpy(int))


def models(bounds, balanced):
    """NAME -> (training rows "cc"/"oracle", fit(X, y, z) returning score(Xte, zte))."""
    from fairlearn.postprocessing import ThresholdOptimizer
    from fairlearn.reductions import EqualizedOdds, ErrorRate, ExponentiatedGradient

    def lr():
        return LogisticRegression(max_iter=1000)

    def fit_lr(X, y, z):
        m = lr().fit(X, y)
        return lambda Xt, zt: m.predict_proba(Xt)[:, 1]

    def fit_eg(b, bal):
        def fit(X, y, z):
            p = y.mean()  # balanced error = FP/(2(1-p)) + FN/(2p), as rates of all rows
            obj = ErrorRate(costs={"fp": 0.5 / (1 - p), "fn": 0.5 / p}) if bal else None
            m = ExponentiatedGradient(lr(), EqualizedOdds(difference_bound=b), objective=obj)
            m.fit(X, y, sensitive_features=z)
            return lambda Xt, zt: np.asarray(m._pmf_predict(Xt))[:, 1]
        return fit

    def fit_to(bal):
        def fit(X, y, z):
            m = ThresholdOptimizer(estimator=lr(), constraints="equalized_odds", prefit=False,
                                   objective="balanced_accuracy_score" if bal else "accuracy_score",
                                   predict_method="predict_proba").fit(X, y, sensitive_features=z)
            return lambda Xt, zt: np.asarray(m._pmf_predict(Xt, sensitive_features=zt))[:, 1]
        return fit

    out = {"fairlearn_lr_cc": ("cc", fit_lr)}
    for bal in (False, True) if balanced else (False,):
        sfx = "_bal" if bal else ""
        for rows in ("cc", "oracle"):
            for b in bounds:
                out[f"fairlearn_eg_{rows}_b{b:g}{sfx}"] = (rows, fit_eg(b, bal))
            out[f"fairlearn_to_{rows}{sfx}"] = (rows, fit_to(bal))
    return out


def run_folder(folder, seed, bounds, balanced, force, meta_base):
    todo = {n: v for n, v in models(bounds, balanced).items()
            if force or not os.path.exists(os.path.join(folder, f"scores_{n}.csv"))}
    if not todo:
        return 0
    X, y, z, zf, Xt, zt = load(folder)
    cc = ~np.isnan(z)
    data = {"cc": (X[cc], y[cc], z[cc].astype(int)), "oracle": (X, y, zf)}
    meta_path = os.path.join(folder, "peer_meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    meta.update(meta_base, seed=seed, rows={"train": int(len(y)), "cc": int(cc.sum()), "oracle": int(len(y)),
                                            "test": int(len(zt))})
    meta.setdefault("seconds", {})
    for name, (rows, fit) in todo.items():
        np.random.seed(seed)
        t0 = time.time()
        s = fit(*data[rows])(Xt, zt)
        meta["seconds"][name] = round(time.time() - t0, 3)
        pd.DataFrame({"score": s}).to_csv(os.path.join(folder, f"scores_{name}.csv"), index=False, float_format="%.17g")
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return len(todo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--force", action="store_true", help="recompute existing score files")
    ap.add_argument("--fairlearn-src", default=os.environ.get("FAIRLEARN_SRC"))
    ap.add_argument("--bounds", default="0.01,0.02,0.05,0.1")
    ap.add_argument("--balanced", action="store_true",
                    help="also the _bal variants: balanced error/accuracy as the objective")
    a = ap.parse_args()
    fl = import_fairlearn(a.fairlearn_src)
    bounds = [float(b) for b in a.bounds.split(",")]
    meta_base = {"fairlearn_version": fl.__version__, "fairlearn_source": os.path.dirname(fl.__file__),
                 "sklearn_version": sklearn.__version__, "numpy_version": np.__version__, "bounds": bounds}
    folders = sorted(glob.glob(os.path.join(a.dir, "*", "seed*", "")))
    folders = [f for f in folders if os.path.exists(f + "train.csv") and os.path.exists(f + "test.csv")]
    if not folders:
        sys.exit(f"no DIR/T/seedS/ folders with train.csv and test.csv under {a.dir}")
    print(f"fairlearn {fl.__version__} ({meta_base['fairlearn_source']}), scikit-learn {sklearn.__version__}")
    for f in folders:
        seed = int(re.fullmatch(r"seed(\d+)", os.path.basename(os.path.dirname(f))).group(1))
        n = run_folder(f, seed, bounds, a.balanced, a.force, meta_base)
        print(f"{f}: {n} score files written")


if __name__ == "__main__":
    main()
