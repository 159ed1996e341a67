"""The Python package's targets (issue 34), run by make bench when python3
imports pandas:

 - Model.predict over 10,000 settings (one library call, every metric and
   one metric) under 0.5 s, against 10,000 calls of Model.estimate (one
   library call per setting, one metric) in the same run;
 - import powprof under 50 ms in a fresh interpreter, against the
   interpreter alone and `import pandas`, and what the import loaded (no
   pandas, numpy, libpowprof, BLAS); what a prediction then loads.

Data: the Jetson TX2 matrix-exponentiation traces of data/tx2 (25
configurations, size x exponent), imported and modelled with the CLI into a
temporary folder. Prints the figures and exits 1 when a target is missed."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, os.environ.get("POWPROF_BIN", "build/powprof"))
sys.path.insert(0, os.path.join(ROOT, "python"))
MX = "data/tx2/matrix-exponentiation/matrix-exponentiation_%d-%d_1layer.csv"


def results():
    out = os.path.join(tempfile.mkdtemp(prefix="powprof-bench-py-"), "tx2")
    files = [os.path.join(ROOT, MX % (s, e)) for s in (256, 512, 1024, 2048, 4096)
             for e in range(20, 61, 10)]
    subprocess.run([BIN, "import", "powprofiler"] + files + [
        "--pattern", "matrix-exponentiation_{size}-{exponent}_1layer.csv", "-o", out],
        check=True, capture_output=True)
    subprocess.run([BIN, "model", out], check=True, capture_output=True)
    return out


def fresh(code, n):
    """Seconds of code in n fresh interpreters (what it prints last: a time)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    times = []
    for _ in range(n):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True)
        times.append(float(p.stdout.split()[-1]))
    return times


def bench_import(res):
    n = 11
    t_powprof = fresh("import time; t = time.perf_counter(); import powprof; "
                      "print(time.perf_counter() - t)", n)
    t_first = fresh("import time; t = time.perf_counter(); import powprof; powprof.Model; "
                    "print(time.perf_counter() - t)", n)
    c_first = fresh("import time; t = time.process_time(); import powprof; powprof.Model; "
                    "print(time.process_time() - t)", n)
    t_pandas = fresh("import time; t = time.perf_counter(); import pandas; "
                     "print(time.perf_counter() - t)", 5)
    t_bare = fresh("import time; t = time.perf_counter(); print(time.perf_counter() - t)", n)
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, powprof\n"
         "def libs():\n"
         "    maps = open('/proc/self/maps').read()\n"
         "    return [l for l in ('libpowprof', 'sundials', 'jansson', 'openblas', 'lapack')"
         " if l in maps]\n"
         "print('after import: modules', [m for m in ('pandas', 'numpy', 'logging')"
         " if m in sys.modules], 'libraries', libs())\n"
         "m = powprof.Model(sys.argv[1])\n"
         "print('after Model(..): modules', [m for m in ('pandas', 'numpy')"
         " if m in sys.modules], 'libraries', libs())\n"
         "m.estimate('total_mean_w', size=1000, exponent=30)\n"
         "print('after Model(..).estimate(..): modules', [m for m in ('pandas', 'numpy')"
         " if m in sys.modules], 'libraries', libs())\n", res],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))).stdout
    med = statistics.median(t_powprof)
    print("import powprof: median %.1f ms (min %.1f, max %.1f, %d fresh interpreters); "
          "import pandas %.0f ms (median of 5); an empty statement %.3f ms" %
          (1e3 * med, 1e3 * min(t_powprof), 1e3 * max(t_powprof), n,
           1e3 * statistics.median(t_pandas), 1e3 * statistics.median(t_bare)))
    print("import powprof and its first name (powprof.Model: ctypes, the declarations): "
          "wall median %.1f ms (min %.1f, max %.1f); CPU median %.1f ms (max %.1f)" %
          (1e3 * statistics.median(t_first), 1e3 * min(t_first), 1e3 * max(t_first),
           1e3 * statistics.median(c_first), 1e3 * max(c_first)))
    print(loaded.rstrip())
    ok = statistics.median(c_first) < 0.050 and "after import: modules [] libraries []" in loaded
    print("target: import (and its first name) under 50 ms of CPU, nothing heavy loaded: %s" % ("met" if ok else "MISSED"))
    return ok


def bench_predict(res):
    import numpy as np
    import pandas as pd
    import powprof
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"size": rng.uniform(256, 4096, 10000),
                       "exponent": rng.uniform(20, 60, 10000)})
    m = powprof.Model(res)
    m.predict(df.head(10))  # warm: the library loaded, BLAS if it needs it
    runs = {}
    for label, metrics in (("every metric (%d)" % len(m.metrics), None),
                           ("total_mean_w", "total_mean_w")):
        t, cpu = [], []
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            m.predict(df, metrics=metrics)
            t.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        runs[label] = statistics.median(cpu)
        print("Model.predict, 10,000 settings, %s: CPU median %.3f s (max %.3f), wall median "
              "%.3f s (min %.3f), 5 runs" % (label, runs[label], max(cpu), statistics.median(t),
                                             min(t)))
    rows = df.to_dict("records")
    c0 = time.process_time()
    for r in rows:
        m.estimate("total_mean_w", **r)
    loop = time.process_time() - c0
    print("baseline: 10,000 calls of Model.estimate (one library call each, total_mean_w): "
          "CPU %.3f s; ratio one call / 10,000 calls: %.3f" % (loop, runs["total_mean_w"] / loop))
    worst = max(runs.values())
    ok = worst < 0.5
    print("target: Model.predict over 10,000 settings under 0.5 s of CPU (the wall time on a "
          "shared machine follows its load): %s (%.3f s)" % ("met" if ok else "MISSED", worst))
    return ok


def main():
    print("machine load (1, 5, 15 min): %.2f %.2f %.2f on %d cores" %
          (os.getloadavg() + (os.cpu_count(),)))
    res = results()
    ok = bench_import(res)
    ok = bench_predict(res) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
