#!/usr/bin/env python3
"""Does `powprof model`'s printed between-levels error hold on 3-parameter
grids larger than the choice's subsample (issue 31, item 6)? On each grid
the printed error (model.json: metrics[].between.mape_pct) is set beside
the error measured from outside: every interior value of every parameter
left out alone in turn (the rows at that value deleted from summary.csv),
`powprof model` built on the rest (its whole choice re-made), and the
left-out rows predicted through `powprof predict --json`; the mean
absolute % error over all those rows against their (noisy) values, per
metric. Leaving one value out at a time is what the between-levels error
stands for (a value one grid step from the measured ones on both sides);
a build that leaves several out together inside `model` (to save time) is
judged here by the same outside measurement, which it does not share.

    python3 bench/bench_between.py OLD/powprof build/powprof
    python3 bench/bench_between.py --shapes=6x6x4 build/powprof   (some grids only)

Grids: 3-parameter shapes of 144-200 configurations (6 x 6 x 4,
5 x 6 x 6, 5 x 5 x 8, 7 x 7 x 4, 6 x 6 x 5, 3 x 8 x 8: every parameter's
interior values left out one at a time; 4 x 4 x 10, 3 x 10 x 5: the 8
interior values of the parameter of 10 left out 2 groups at a time,
pp_level_fold_groups), on two synthetic
surfaces with 2 % noise: bench_model_cost.c's matrix shape (a power law
times a linear term) and a wavy one (sines along all three parameters,
where the levels left out are far from a straight line). Synthetic only.
Deterministic (no timing); about 6 minutes per binary."""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

METRICS = ("total_energy_j", "total_mean_w", "duration_s")
SHAPES = ((6, 6, 4), (5, 6, 6), (5, 5, 8), (7, 7, 4), (6, 6, 5), (3, 8, 8), (4, 4, 10),
          (3, 10, 5))


def matrix(a, b, c, r):
    t = (1e-9 * a ** 3 / c + 0.5 * b + 0.2) * math.exp(0.02 * r.gauss(0, 1))
    p = (3 + 0.5 * math.log(a) + 0.3 * c - 0.2 * b) * math.exp(0.02 * r.gauss(0, 1))
    return t, p


def wavy(a, b, c, r):
    x, y, z = math.log(a / 64) / math.log(64), b / 5, (c - 1) / 7
    t = (1.5 + 0.5 * math.sin(5 * x) * math.cos(4 * y) + 0.3 * math.sin(4 * z)) * \
        math.exp(0.02 * r.gauss(0, 1))
    p = (3 + math.sin(3 * x + 2 * y) + 0.4 * math.cos(5 * z)) * math.exp(0.02 * r.gauss(0, 1))
    return t, p


def grid(shape, surface):
    r, rows = random.Random(10000 * shape[0] + 100 * shape[1] + shape[2]), []
    na, nb, nc = shape
    for i in range(na * nb * nc):
        ia, ib, ic = i // (nb * nc), (i // nc) % nb, i % nc
        a = float("%.6g" % (64 * 64 ** (ia / (na - 1))))
        b = float("%.6g" % (5.0 * ib / (nb - 1)))
        c = float("%.6g" % (1 + 7.0 * ic / (nc - 1)))
        t, p = surface(a, b, c, r)
        rows.append(((a, b, c), (ia, ib, ic), {"duration_s": t, "total_mean_w": p,
                                                "total_energy_j": p * t}))
    return rows


def write(folder, rows):
    os.makedirs(folder)
    with open(os.path.join(folder, "summary.csv"), "w") as fp:
        fp.write("id,a,b,c,status,duration_s,total_mean_w,total_energy_j\n")
        for i, ((a, b, c), _, v) in enumerate(rows):
            fp.write("%d,%.6g,%.6g,%.6g,ok,%.6g,%.6g,%.6g\n" % (
                i, a, b, c, v["duration_s"], v["total_mean_w"], v["total_energy_j"]))


def model(binary, tmp, rows):
    folder = tempfile.mkdtemp(dir=tmp)
    shutil.rmtree(folder)
    write(folder, rows)
    subprocess.run([binary, "model", folder], stdout=subprocess.DEVNULL, check=True)
    return folder


def printed(binary, tmp, rows):
    with open(os.path.join(model(binary, tmp, rows), "model.json")) as fp:
        m = json.load(fp)["groups"][0]["metrics"]
    return {x["name"]: (x["between"]["mape_pct"], x["between"]["folds"]) for x in m}


def measured(binary, tmp, rows, shape):
    err, n = {m: 0.0 for m in METRICS}, 0
    for j, side in enumerate(shape):
        for level in range(1, side - 1):
            out = [r for r in rows if r[1][j] == level]
            folder = model(binary, tmp, [r for r in rows if r[1][j] != level])
            for (a, b, c), _, v in out:
                args = [binary, "predict", folder, "a=%.6g" % a, "b=%.6g" % b, "c=%.6g" % c,
                        "--extrapolate", "--json"]
                got = json.loads(subprocess.run(args, capture_output=True, text=True,
                                                check=True).stdout)["metrics"]
                for m in METRICS:
                    err[m] += abs(got[m]["value"] - v[m]) / v[m] * 100
                n += 1
            shutil.rmtree(folder)
    return {m: err[m] / n for m in METRICS}


def main():
    binaries, shapes = sys.argv[1:], SHAPES
    if binaries and binaries[0].startswith("--shapes="):  # e.g. --shapes=6x6x4,3x8x8
        shapes = tuple(tuple(int(v) for v in s.split("x"))
                       for s in binaries.pop(0)[len("--shapes="):].split(","))
    if not binaries:
        sys.exit("usage: bench_between.py [--shapes=AxBxC,...] POWPROF_BINARY...")
    tmp = tempfile.mkdtemp(prefix="bench-between-")
    worst = {b: 0.0 for b in binaries}
    try:
        print("printed between-levels error (folds) against one value left out at a time, "
              "measured through predict; energy | power | duration; per binary: " +
              " | ".join(binaries))
        for surface in (matrix, wavy):
            for shape in shapes:
                rows, cells = grid(shape, surface), []
                for b in binaries:
                    p, q = printed(b, tmp, rows), measured(b, tmp, rows, shape)
                    cell = []
                    for m in METRICS:
                        rel = p[m][0] / q[m] - 1
                        worst[b] = max(worst[b], abs(rel))
                        cell.append("%.2f/%.2f %% (%+.0f %%)" % (p[m][0], q[m], 100 * rel))
                    cells.append("%2d folds: " % p["total_energy_j"][1] + ", ".join(cell))
                print("  %-6s %dx%dx%d: %s" % ((surface.__name__,) + shape + (" | ".join(cells),)),
                      flush=True)
        print("largest |printed / measured - 1|: " +
              " | ".join("%.0f %%" % (100 * worst[b]) for b in binaries))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
