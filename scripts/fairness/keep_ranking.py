#!/usr/bin/env python3
"""Keeping the ranking (docs/fairness.md): which mitigation lowers the equalized-odds gap of the
DECISION (at the training selection rate) without flattening the score, using the training rows
whose attribute is hidden through AIPW pseudo-outcomes phi_a = m_a + R/G (1{Z=a} - m_a).

Rerun from the repository root (numpy, pandas, scipy, scikit-learn; Debian's python3-*):

    /usr/bin/python3 scripts/fairness/keep_ranking.py [--seeds 1,2,3,4,5] [--out FILE.csv]

(about 3 CPU-minutes a seed; seeds are independent, so they can run in separate processes.)

Set-up (data/mplsstops/mplsstops.csv): stops with personSearch recorded and race recorded; the
attribute is race in 3 groups (Black, White, other); features are fairstudy's MplsFeatures
(categoricals one-hot, month and hour standardised). Each seed splits the rows in halves (train,
test) and hides race on training rows with probability expit(-1 + 2.5 b + 1{preRace = Unknown} + Y),
b the neighbourhood's standardised share of Black stops: about 60% of Black stops hidden against 27%
of White ones, so the complete cases under-represent Black stops. Test rows keep race. Nuisances
G = P(R=1 | X, Y) and m_a = P(Z=a | X, Y, R=1) are cross-fitted (2 folds) logistic regressions; mX_a = P(Z=a | X) (for prediction without the attribute) is fitted on the
complete cases weighted by 1/G.

Candidates, each with weights W (n x K) = dr (phi), cc (1{Z=a} on complete cases only) or oracle
(1{Z_full=a}):
  post_W_z    group offsets on the unconstrained logit score, s - delta_Z, chosen on a grid to minimise
              the W-estimated gap of the decision at the selection rate; needs Z at prediction
  post_W_mx   the same with s - mX(x).delta: no attribute at prediction time
  rate_W_lL   logistic regression + L * sum of squared deviations of the groups' smoothed TPR/FPR
              (sigmoid((f - cut)/0.3), cut = the score's quantile at the selection rate), by Adam
  mean_W_lL   the same penalty on the groups' mean probability (the whole score; a stand-in for a
              distribution penalty, the one that flattens)
  red_W_hard/soft  exponentiated-gradient reductions (Agarwal et al. 2018) with W-estimated moments,
              bound 0.02, plus |selection rate - prevalence| <= 0.02, 20 best responses (weighted
              logistic regressions): the mixture's P(decision=1) (hard) or its mean probability (soft)
Protocol: decisions on the test rows at the training prevalence, ties broken at random (seeded);
equalized_odds_difference = max(TPR gap, FPR gap) between groups; noise = mean and sd of that gap for
a random ranking at the same rate (200 draws); AUC; balanced accuracy.
"""
import argparse
import sys

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

CATS = ["preRace", "gender", "problem", "policePrecinct", "neighborhood"]
NUMS = ["month", "hour"]
GROUPS = {"Black": 0, "White": 1}  # every other recorded race is group 2
RATE_TAU = 0.3


def load():
    d = pd.read_csv("data/mplsstops/mplsstops.csv")
    d = d[d.personSearch.notna() & d.race.notna()].reset_index(drop=True)
    X = pd.get_dummies(d[CATS].astype(str)).to_numpy(float)
    nums = d[NUMS].to_numpy(float)
    X = np.hstack([X, (nums - nums.mean(0)) / nums.std(0)])
    y = (d.personSearch == "YES").to_numpy(int)
    z = d.race.map(GROUPS).fillna(2).to_numpy(int)
    black_share = d.groupby("neighborhood").race.transform(lambda r: (r == "Black").mean()).to_numpy()
    unknown = (d.preRace == "Unknown").to_numpy(float)
    return X, y, z, black_share, unknown


def split(seed, X, y, z, black_share, unknown):
    rng = np.random.default_rng(seed)
    n = len(y)
    perm = rng.permutation(n)
    tr, te = np.sort(perm[: n // 2]), np.sort(perm[n // 2:])
    bs = (black_share - black_share.mean()) / black_share.std()
    p_hide = expit(-1.0 + 2.5 * bs + 1.0 * unknown + 1.0 * y)
    r = (rng.random(n) >= p_hide)[tr]  # R = 1: observed
    return tr, te, r


def lr(C=1.0):
    return LogisticRegression(C=C, max_iter=500)


def nuisances(X, y, z, r, K, seed):
    """Cross-fitted G(x,y), m(x,y) (n x K) and mX(x) fitted on all rows (for test prediction)."""
    n = len(y)
    XY = np.hstack([X, y[:, None]])
    fold = np.random.default_rng(seed + 99).permutation(n) % 2
    G, m = np.zeros(n), np.zeros((n, K))
    for f in (0, 1):
        fit, ev = fold != f, fold == f
        G[ev] = lr().fit(XY[fit], r[fit]).predict_proba(XY[ev])[:, 1]
        cc = fit & r
        m[ev] = lr().fit(XY[cc], z[cc]).predict_proba(XY[ev])
    G = np.clip(G, 0.05, 1)
    mX = lr().fit(X[r], z[r], sample_weight=1 / G[r])
    return G, m, mX


def weights(kind, z, r, G, m, zfull, K):
    oh = np.eye(K)
    if kind == "oracle":
        return oh[zfull]
    zz = np.where(r, z, 0)
    if kind == "cc":
        return oh[zz] * r[:, None]
    return m + (r / G)[:, None] * (oh[zz] - m)


def est_gap(S, W, y, rate):
    """W-estimated equalized-odds gap of D_ia = 1{S_ia > cut}, cut making the W-weighted selection rate `rate`."""
    s, w = S.ravel(), W.ravel()
    o = np.argsort(-s, kind="stable")
    cum = np.cumsum(w[o])
    k = np.searchsorted(cum, rate * W.sum())
    cut = s[o[min(k, len(s) - 1)]]
    D = S >= cut
    gaps = []
    for yy in (1, 0):
        Wy = W * (y == yy)[:, None]
        rates = (Wy * D).sum(0) / Wy.sum(0)
        gaps.append(np.ptp(rates))
    return max(gaps)


def post_offsets(s, W, y, rate, mx=None, grid=np.linspace(-2, 2, 25)):
    """Grid search of offsets delta (delta_0 = 0) minimising the estimated gap of s - delta_Z (or s - mx.delta)."""
    K = W.shape[1]
    best = (np.inf, None)
    for d1 in grid:
        for d2 in grid:
            delta = np.array([0, d1, d2])[:K]
            S = s[:, None] - delta[None, :] if mx is None else np.repeat((s - mx @ delta)[:, None], K, 1)
            g = est_gap(S, W, y, rate)
            if g < best[0] - 1e-12:
                best = (g, delta)
    return best[1]


def fit_penalised(X, y, W, lam, rate, kind, w0, steps=300, lr_=0.05, l2=1e-3):
    """Logistic regression + lam * sum_a (rate_ay - mean_a rate_ay)^2 over y in {0,1}, by Adam from w0."""
    n, p = X.shape
    Xb = np.hstack([X, np.ones((n, 1))])
    w = w0.copy()
    mom, vel = np.zeros_like(w), np.zeros_like(w)
    A = {yy: W * (y == yy)[:, None] / (W * (y == yy)[:, None]).sum(0) for yy in (0, 1)}
    for t in range(1, steps + 1):
        f = Xb @ w
        pr = expit(f)
        grad_f = (pr - y) / n
        if kind == "rate":
            cut = np.quantile(f, 1 - rate)
            q = expit((f - cut) / RATE_TAU)
            dq = q * (1 - q) / RATE_TAU
        else:
            q, dq = pr, pr * (1 - pr)
        for yy in (0, 1):
            rates = A[yy].T @ q
            grad_f += lam * 2 * (A[yy] @ (rates - rates.mean())) * dq
        g = Xb.T @ grad_f + l2 * np.r_[w[:-1], 0]
        mom = 0.9 * mom + 0.1 * g
        vel = 0.999 * vel + 0.001 * g * g
        w -= lr_ * (mom / (1 - 0.9 ** t)) / (np.sqrt(vel / (1 - 0.999 ** t)) + 1e-8)
    return w


def reductions(X, y, W, rate, eps=0.02, T=20, B=20.0, eta=2.0):
    """Exponentiated-gradient reductions for equalized odds with W-estimated moments, plus the constraint
    |selection rate - rate| <= eps (the protocol's rate; without it the best responses select at the
    threshold 0.5, far below the prevalence). Returns the best responses (the mixture is their mean)."""
    n, K = W.shape
    theta = np.zeros((2 * K + 1, 2))  # rows: (y=0, group a), (y=1, group a), selection rate; cols: sign
    N = {yy: (W * (y == yy)[:, None]).sum(0) for yy in (0, 1)}
    hs = []
    for _ in range(T):
        lam = B * np.exp(theta) / (1 + np.exp(theta).sum())
        mu = lam[:, 0] - lam[:, 1]
        c = (1 - 2 * y) / n + mu[-1] / n
        for yy in (0, 1):
            sel, m = y == yy, mu[yy * K:(yy + 1) * K]
            c[sel] += (W[sel] / N[yy]) @ m - m.sum() / sel.sum()
        lab = (c < 0).astype(int)
        h = ("const", float(lab[0])) if lab.min() == lab.max() else ("lr", lr().fit(X, lab, sample_weight=np.abs(c) * n))
        hs.append(h)
        hx = predict_h(h, X) >= 0.5
        gam = np.zeros(2 * K + 1)
        for yy in (0, 1):
            sel = y == yy
            gam[yy * K:(yy + 1) * K] = (W[sel] * hx[sel, None]).sum(0) / N[yy] - hx[sel].mean()
        gam[-1] = hx.mean() - rate
        theta[:, 0] += eta * (gam - eps)
        theta[:, 1] += eta * (-gam - eps)
    return hs


def predict_h(h, X):
    return np.full(len(X), h[1]) if h[0] == "const" else h[1].predict_proba(X)[:, 1]


def decisions(score, rate, rng):
    n = len(score)
    k = int(round(rate * n))
    o = np.lexsort((rng.random(n), -score))
    d = np.zeros(n, int)
    d[o[:k]] = 1
    return d


def eod(d, y, z, K):
    return max(np.ptp([d[(z == a) & (y == yy)].mean() for a in range(K)]) for yy in (0, 1))


def evaluate(score, y, z, K, rate, seed):
    d = decisions(score, rate, np.random.default_rng(seed))
    bal = 0.5 * (d[y == 1].mean() + 1 - d[y == 0].mean())
    return {"auc": roc_auc_score(y, score), "bal_acc": bal, "eod": eod(d, y, z, K)}


def run_seed(seed, data, K=3):
    X, y, z, bs, unk = data
    tr, te, r = split(seed, *data)
    Xtr, ytr, ztr, Xte, yte, zte = X[tr], y[tr], z[tr], X[te], y[te], z[te]
    rate = ytr.mean()
    G, m, mX = nuisances(Xtr, ytr, ztr, r, K, seed)
    mxte = mX.predict_proba(Xte)
    Ws = {k: weights(k, ztr, r, G, m, ztr, K) for k in ("dr", "cc", "oracle")}
    base = lr().fit(Xtr, ytr)
    s_tr, s_te = base.decision_function(Xtr), base.decision_function(Xte)
    scores = {"none": s_te}
    for k, W in Ws.items():
        scores[f"post_{k}_z"] = s_te - post_offsets(s_tr, W, ytr, rate)[zte]
    for k in ("dr", "cc"):
        mx_tr = mX.predict_proba(Xtr)
        scores[f"post_{k}_mx"] = s_te - mxte @ post_offsets(s_tr, Ws[k], ytr, rate, mx=mx_tr)
    w0 = np.r_[base.coef_[0], base.intercept_]
    Xte_b = np.hstack([Xte, np.ones((len(Xte), 1))])
    for kind in ("rate", "mean"):
        for k in ("dr", "cc"):
            for lam in (10, 100, 1000):
                scores[f"{kind}_{k}_l{lam}"] = Xte_b @ fit_penalised(Xtr, ytr, Ws[k], lam, rate, kind, w0)
    for k in ("dr", "cc", "oracle"):
        hs = reductions(Xtr, ytr, Ws[k], rate)
        P = np.array([predict_h(h, Xte) for h in hs])
        scores[f"red_{k}_hard"] = (P >= 0.5).mean(0)
        scores[f"red_{k}_soft"] = P.mean(0)
    rows = [dict(seed=seed, model=name, **evaluate(sc, yte, zte, K, rate, seed)) for name, sc in scores.items()]
    rng = np.random.default_rng(seed + 7)
    noise = [eod(decisions(rng.random(len(yte)), rate, rng), yte, zte, K) for _ in range(200)]
    hid = {a: 1 - r[ztr == a].mean() for a in range(K)}
    print(f"seed {seed}: rate {rate:.3f}, hidden by group {hid}, noise {np.mean(noise):.3f} ± {np.std(noise):.3f}",
          file=sys.stderr)
    for row in rows:
        row.update(noise_mean=np.mean(noise), noise_sd=np.std(noise))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    data = load()
    rows = []
    for s in map(int, a.seeds.split(",")):
        rows += run_seed(s, data)
        df = pd.DataFrame(rows)
        if a.out:  # after every seed, so that a long run can be read while it goes
            df.to_csv(a.out, index=False, float_format="%.6g")
    order = list(dict.fromkeys(df.model))
    summ = df.groupby("model")[["auc", "bal_acc", "eod", "noise_mean", "noise_sd"]].agg(["mean", "std"]).loc[order]
    base_auc = df[df.model == "none"].set_index("seed").auc
    df["dauc"] = df.auc - df.seed.map(base_auc)
    summ[("dauc", "mean")] = df.groupby("model").dauc.mean().loc[order]
    pd.set_option("display.width", 200)
    print(summ.round(3).to_string())


if __name__ == "__main__":
    main()
