#!/usr/bin/env python3
"""powprof from Python on the paper's Jetson TX2 traces (data/tx2):
import the matrix-exponentiation runs, fit layer 2, plot its mean-power
surface with matplotlib, and plan a 20-minute drone mission.

    PYTHONPATH=python python3 examples/python/tx2_surface.py [OUT_DIR]

(from the top of the built tree; after `make install-python`, without
PYTHONPATH). The import is the one step without a library call: it runs
`powprof import` (POWPROF_BIN, else ./powprof, else powprof on PATH). The
plot needs python3-matplotlib (Debian's); without it the script says so and
goes on. Writes OUT_DIR/tx2 (the results), OUT_DIR/tx2-surface.png and
OUT_DIR/plan.json; prints the model's errors and the plan.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd

import powprof

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "tx2", "matrix-exponentiation")


def powprof_bin():
    for b in (os.environ.get("POWPROF_BIN"), os.path.join(HERE, "..", "..", "powprof")):
        if b and os.access(b, os.X_OK):
            return b
    return shutil.which("powprof") or sys.exit("powprof not found: set POWPROF_BIN")


def import_tx2(out):
    """The 25 runs (size 256..4096 x exponent 20..60) as a results folder."""
    if os.path.exists(out):
        return
    files = sorted(os.path.join(DATA, f) for f in os.listdir(DATA) if f.endswith(".csv"))
    subprocess.run([powprof_bin(), "import", "powprofiler", *files, "--pattern",
                    "matrix-exponentiation_{size}-{exponent}_1layer.csv", "-o", out], check=True)


def plot_surface(model, results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is not installed (apt-get install python3-matplotlib)")
        return
    size = np.geomspace(256, 4096, 40)
    exponent = np.linspace(20, 60, 40)
    grid = pd.DataFrame([(s, e) for e in exponent for s in size], columns=["size", "exponent"])
    pred = model.predict(grid, metrics="total_mean_w")["total_mean_w"]  # one library call
    z = pred["value"].to_numpy().reshape(len(exponent), len(size))
    measured = results.summary
    fig = plt.figure(figsize=(7, 5))
    ax = fig.add_subplot(projection="3d")
    sx, ex = np.meshgrid(np.log2(size), exponent)
    ax.plot_surface(sx, ex, z, cmap="viridis", alpha=0.7)
    ax.scatter(np.log2(measured["size"]), measured["exponent"], measured["total_mean_w"],
               color="red", label="measured")
    ax.set_xlabel("log2(size)")
    ax.set_ylabel("exponent")
    ax.set_zlabel("total mean power [W]")
    ax.set_title("Jetson TX2, GPU matrix exponentiation: layer 2")
    ax.legend()
    fig.savefig(path, dpi=100)
    print("surface plotted in", path)


def main(out):
    os.makedirs(out, exist_ok=True)
    res = os.path.join(out, "tx2")
    import_tx2(res)
    results = powprof.Results(res)
    print(results.summary[["size", "exponent", "duration_s", "total_mean_w"]].head())
    with powprof.Model(res) as model:  # fits layer 2 (or reads model.json)
        print(model.errors[["method", "between_levels_pct", "at_levels_pct"]]
              .loc[["total_mean_w", "total_energy_j"]])
        print(model.predict(size=1500, exponent=45).loc[["total_mean_w", "total_energy_j"]])
        plot_surface(model, results, os.path.join(out, "tx2-surface.png"))
        battery = powprof.Battery(preset="drone-4s-3200", base_power_w=60)  # 60 W of motors
        plan = powprof.plan(model, battery, {"duration_s": 1200, "maximize": "size"})
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    best = plan.get("best")
    if plan["feasible"]:
        print("20-minute mission: size %g, exponent %g at %.3f W planned (90 %% band up to %.3f "
              "W); %.1f %% of the charge left" % (best["size"], best["exponent"],
                                                  best["planned_w"], best["power_hi_w"],
                                                  100 * plan["best_soc_end"]))
    else:
        print("no configuration completes the mission; the computer may draw %s W" %
              plan["max_power_w"])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/python-example")
