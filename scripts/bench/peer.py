#!/usr/bin/env python3
"""PyTorch CPU peer of cmd/peerbench: the same networks and training steps as invmmd's.

Usage:
  peer.py cnn {default,pooled,strided} [--reps N] [--threads T]
  peer.py mlp {none,dr} [--reps N] [--threads T]

Prints {"wall": [...], "cpu": [...]} on stdout, the wall and process CPU times of each
repetition: milliseconds per training step (forward, backward, Adam)
at batch 1500 of 28x28 images for a CNN (after WARMUP untimed steps), or seconds per fit of the
simulation's MLP [64, 64] (10,000 rows, batch 2000, 60 epochs = 300 steps, each epoch
validated on 5,000 rows, the best epoch's weights kept) for the MLP. The "dr" fit adds
lambda times an MMD-style penalty with the shape of invmmd's DR design (12 factor columns,
two strata), computed exactly from the n x n Gaussian kernel matrix, in training and in
validation. Requires Debian's python3-torch and python3-numpy.
"""
import argparse
import copy
import json
import sys
import time

import torch
from torch import nn

CNN_BATCH = 1500
WARMUP = 3  # untimed CNN steps before the timed ones (cmd/peerbench does the same)


def cnn(name):
    """The architectures of invmmd/models: conv (same padding) + bias, max-pool, ReLU."""
    if name == "default":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
            nn.Flatten(), nn.Linear(7 * 7 * 32, 1))
    if name == "pooled":
        return nn.Sequential(
            nn.AvgPool2d(2),
            nn.Conv2d(1, 8, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(7 * 7 * 16, 1))
    if name == "strided":
        return nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(7 * 7 * 16, 1))
    raise SystemExit(f"peer.py: unknown CNN {name!r}")


def time_cnn(name, reps):
    torch.manual_seed(1)
    net = cnn(name)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    x = torch.rand(CNN_BATCH, 1, 28, 28)
    y = torch.randint(0, 2, (CNN_BATCH,)).float()

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x).squeeze(1), y)
        loss.backward()
        opt.step()

    for _ in range(WARMUP):  # the first steps of a process pick and cache oneDNN's kernels
        step()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append(1000 * (time.perf_counter() - t0))
        cpu.append(1000 * (time.process_time() - c0))
    return wall, cpu


def penalty(h, v, c, sigma):
    """Sum over strata s of sum_{i != j} k(h_i, h_j) (v_i C_s v_j^T), exact, n x n kernel."""
    d = h[:, None] - h[None, :]
    k = torch.exp(-d * d / (2 * sigma * sigma))
    k = k - torch.eye(len(h))  # k_ii = 1: drop the diagonal
    kv = k @ v
    return sum(((v @ c[s]) * kv).sum() for s in range(c.shape[0]))


def time_mlp(method, reps):
    g = torch.Generator().manual_seed(1)
    n_train, n_val, batch, epochs, cols = 10000, 5000, 2000, 60, 12
    xt, yt = torch.randn(n_train, 2, generator=g), torch.randint(0, 2, (n_train,), generator=g).float()
    xv, yv = torch.randn(n_val, 2, generator=g), torch.randint(0, 2, (n_val,), generator=g).float()
    vt, vv = torch.randn(n_train, cols, generator=g) / n_train, torch.randn(n_val, cols, generator=g) / n_val
    c = torch.randn(2, cols, cols, generator=g)
    sigma, lam = 0.5, 1.0
    loss_fn = nn.BCEWithLogitsLoss()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        torch.manual_seed(1)
        net = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        best, best_state = float("inf"), None
        for _ in range(epochs):
            perm = torch.randperm(n_train)
            for k in range(n_train // batch):
                idx = perm[k * batch:(k + 1) * batch]
                opt.zero_grad()
                h = net(xt[idx]).squeeze(1)
                loss = loss_fn(h, yt[idx])
                if method == "dr":
                    loss = loss + lam * penalty(h, vt[idx], c, sigma)
                loss.backward()
                opt.step()
            with torch.no_grad():
                h = net(xv).squeeze(1)
                val = loss_fn(h, yv).item()
                if method == "dr":
                    val += lam * penalty(h, vv, c, sigma).item()
            if val < best:
                best, best_state = val, copy.deepcopy(net.state_dict())
        net.load_state_dict(best_state)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["cnn", "mlp"])
    ap.add_argument("name")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.kind == "cnn":
        wall, cpu = time_cnn(a.name, a.reps)
    elif a.name in ("none", "dr"):
        wall, cpu = time_mlp(a.name, a.reps)
    else:
        sys.exit(f"peer.py: unknown MLP fit {a.name!r}, want none or dr")
    json.dump({"wall": wall, "cpu": cpu}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
