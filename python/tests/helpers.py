"""What the Python tests share: the CLI (POWPROF_BIN, as make check sets
it), results folders made as a user would (import of the TX2 traces of
data/tx2, a profile with a categorical parameter on the fake Jetson tree of
tests/fixtures), and comparison to 1e-9."""
import json
import math
import os
import subprocess
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, os.environ.get("POWPROF_BIN", "build/powprof"))
TMP = tempfile.mkdtemp(prefix="powprof-pytest-")
MX = "matrix-exponentiation_%d-%d_1layer.csv"


def cli(*args, check=True):
    """The CLI's stdout (its --json parsed when asked for)."""
    p = subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT)
    if check and p.returncode != 0:
        raise AssertionError("powprof %s: exit %d\n%s" % (" ".join(map(str, args)), p.returncode,
                                                          p.stderr))
    return json.loads(p.stdout) if "--json" in args else p.stdout


def tx2_matrix(sizes=(256, 512, 1024, 2048, 4096), model=True):
    """The TX2 matrix exponentiation traces imported (sizes x exponents
    20..60), the model built and kept (model.json) unless model is False."""
    out = os.path.join(TMP, "tx2-mx-%s-%d" % ("-".join(map(str, sizes)), model))
    if not os.path.exists(out):
        files = [os.path.join(ROOT, "data/tx2/matrix-exponentiation", MX % (s, e))
                 for s in sizes for e in range(20, 61, 10)]
        cli("import", "powprofiler", *files, "--pattern",
            "matrix-exponentiation_{size}-{exponent}_1layer.csv", "-o", out)
        if model:
            cli("model", out)
    return out


def categorical():
    """A profile of exec (sleep) on the fake Jetson: w.net (labels yolo,
    tiny) x w.n (3, 5, 7); no model.json (the model is built on load)."""
    out = os.path.join(TMP, "cat")
    if not os.path.exists(out):
        cfg = os.path.join(TMP, "cat.cfg")
        with open(cfg, "w") as f:
            f.write('profile = { device = "jetson"; rate_hz = 200; sysfs_root = "%s"; };\n'
                    'components = ({ name = "w"; type = "exec"; command = ["sleep", "0.0{n}"];\n'
                    '  params = { net = ["yolo", "tiny"]; n = [3, 5, 7]; }; });\n'
                    % os.path.join(ROOT, "tests/fixtures/jetson-tx2-iio"))
        cli("profile", cfg, "-o", out)
    return out


def close(a, b, tol=1e-9):
    """a equals b (numbers to tol relative, at least tol absolute; None
    for NaN and infinities), recursively; the first difference as text, or
    None."""
    if isinstance(b, dict):
        if not isinstance(a, dict) or set(a) != set(b):
            return "keys %s != %s" % (sorted(a) if isinstance(a, dict) else a, sorted(b))
        for k in b:
            d = close(a[k], b[k], tol)
            if d:
                return "%s: %s" % (k, d)
        return None
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return "lists of %s and %d" % (len(a) if isinstance(a, list) else a, len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = close(x, y, tol)
            if d:
                return "[%d]: %s" % (i, d)
        return None
    if isinstance(a, float) and not math.isfinite(a):
        a = None  # the CLI's JSON writes null for NaN and infinities
    if isinstance(b, (int, float)) and not isinstance(b, bool) and a is not None:
        return None if abs(a - b) <= tol * max(1.0, abs(b)) else "%r != %r" % (a, b)
    return None if a == b else "%r != %r" % (a, b)
