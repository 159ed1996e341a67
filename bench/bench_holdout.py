#!/usr/bin/env python3
"""Held-out configurations of designs larger than the choice's subsample
(issue 31, item 6): each design loses 20 % of its configurations at random
(seeded), `powprof model` is built on the rest by every binary given, and
the held-out ones are predicted through `powprof predict --json`: the mean
absolute % error of energy, power and duration against the measured
(noisy) values, and how many the 90 % band of energy covers. It compares
builds that differ in how they choose (PP_CHOOSE_SUB, the folds), on the
same designs in one run:

    python3 bench/bench_holdout.py OLD/powprof build/powprof

Designs (synthetic, 2 % noise): the matrix shape of bench_model_cost.c
(energy a power law times a linear term) on 2-parameter grids of 10 x 10
and 14 x 14, 3-parameter grids of 5^3 and 7^3, 250 scattered in 3
parameters; and a wavy 2-parameter surface, 250 scattered (where the
spline or a kernel wins). Synthetic only: not a substitute for measured
sets. Deterministic (no timing)."""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

M64 = (1 << 64) - 1


class Lcg:
    """bench_model_cost.c's generator (the same designs for the same n)."""

    def __init__(self, seed):
        self.st = seed

    def uniform(self):
        self.st = (self.st * 6364136223846793005 + 1442695040888963407) & M64
        return ((self.st >> 11) + 0.5) / 9007199254740992.0

    def gauss(self):
        u1, u2 = self.uniform(), self.uniform()
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def matrix(a, b, c, r):
    t = (1e-9 * a ** 3 / c + 0.5 * b + 0.2) * math.exp(0.02 * r.gauss())
    p = (3 + 0.5 * math.log(a) + 0.3 * c - 0.2 * b) * math.exp(0.02 * r.gauss())
    return t, p


def wavy(a, b, c, r):
    x, y = math.log(a / 64) / math.log(64), b / 5
    t = (1 + 0.5 * math.sin(9 * x) * math.cos(7 * y) + 0.3 * x) * math.exp(0.02 * r.gauss())
    p = (3 + math.sin(5 * x + 3 * y) + 0.2 * y) * math.exp(0.02 * r.gauss())
    return t, p


def design(n, side, d, shape):
    r, rows = Lcg(17 + n), []
    for i in range(n):
        if side and d == 2:
            a, b, c = 64 * 64 ** ((i // side) / (side - 1)), 5.0 * (i % side) / (side - 1), 1
        elif side:
            a = 64 * 64 ** ((i // (side * side)) / (side - 1))
            b, c = 5.0 * ((i // side) % side) / (side - 1), 1 + 7.0 * (i % side) / (side - 1)
        else:
            a, b = 64 * 64 ** r.uniform(), 5 * r.uniform()
            c = 1 + 7 * r.uniform() if d == 3 else 1
        a, b, c = (float("%.6g" % v) for v in (a, b, c))
        t, p = shape(a, b, c, r)
        rows.append((a, b, c, t, p, p * t))
    return rows


def write(folder, rows, d):
    os.makedirs(folder)
    with open(os.path.join(folder, "summary.csv"), "w") as fp:
        fp.write("id,a,b,%sstatus,duration_s,total_mean_w,total_energy_j\n" % ("c," if d == 3 else ""))
        for i, (a, b, c, t, p, e) in enumerate(rows):
            cc = "%.6g," % c if d == 3 else ""
            fp.write("%d,%.6g,%.6g,%sok,%.6g,%.6g,%.6g\n" % (i, a, b, cc, t, p, e))


METRICS = ("total_energy_j", "total_mean_w", "duration_s")
CASES = [("2-D grid 10 x 10", 100, 10, 2, matrix), ("2-D grid 14 x 14", 196, 14, 2, matrix),
         ("3-D grid 5^3", 125, 5, 3, matrix), ("3-D grid 7^3", 343, 7, 3, matrix),
         ("3-D scattered", 250, 0, 3, matrix), ("2-D scattered, wavy", 250, 0, 2, wavy)]


def one(binary, tmp, rows, held, d):
    folder = tempfile.mkdtemp(dir=tmp)
    shutil.rmtree(folder)
    write(folder, [r for i, r in enumerate(rows) if i not in held], d)
    subprocess.run([binary, "model", folder], stdout=subprocess.DEVNULL, check=True)
    err, cover = {m: 0.0 for m in METRICS}, 0
    for i in sorted(held):
        a, b, c, t, p, e = rows[i]
        args = [binary, "predict", folder, "a=%.6g" % a, "b=%.6g" % b]
        args += (["c=%.6g" % c] if d == 3 else []) + ["--json"]
        got = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
        measured = {"total_energy_j": e, "total_mean_w": p, "duration_s": t}
        for m in METRICS:
            err[m] += abs(got["metrics"][m]["value"] - measured[m]) / measured[m] * 100
        ge = got["metrics"]["total_energy_j"]
        cover += ge["lo"] <= e <= ge["hi"]
    k = len(held)
    return "energy %.2f %% (band %d/%d)  power %.2f %%  duration %.2f %%" % (
        err["total_energy_j"] / k, cover, k, err["total_mean_w"] / k, err["duration_s"] / k)


def main():
    binaries = sys.argv[1:]
    if not binaries:
        sys.exit("usage: bench_holdout.py POWPROF_BINARY...")
    tmp = tempfile.mkdtemp(prefix="bench-holdout-")
    try:
        print("held-out configurations (20 %), per binary: " + " | ".join(binaries))
        for name, n, side, d, shape in CASES:
            rows = design(n, side, d, shape)
            held = set(random.Random(n * 7 + d).sample(range(n), n // 5))
            line = " | ".join(one(b, tmp, rows, held, d) for b in binaries)
            print("  %-20s %3d / %2d: %s" % (name, n - len(held), len(held), line), flush=True)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
