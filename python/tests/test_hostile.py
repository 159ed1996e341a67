"""Hostile input raises a Python exception carrying the library's message
(file, line, value); it never crashes the interpreter. Each case runs in a
child interpreter, so that a crash is seen as one (a signal), not as the
end of the suite."""
import os
import subprocess
import sys
import textwrap
import unittest

from helpers import ROOT, TMP, tx2_matrix

PRELUDE = """
import sys, os, warnings
import numpy as np, pandas as pd
import powprof
warnings.simplefilter("ignore")
res, tmp = sys.argv[1], sys.argv[2]
def expect(fn, *words):
    try:
        fn()
    except (powprof.PowprofError, TypeError, ValueError) as e:
        missing = [w for w in words if w not in str(e)]
        print("raised", type(e).__name__, "missing" if missing else "ok", missing, str(e)[:300])
        return
    print("no exception")
"""

CASES = {
    "no_folder": 'expect(lambda: powprof.Model("/nonexistent/r"), "/nonexistent/r")',
    "garbage_summary": """
d = os.path.join(tmp, "garbage"); os.makedirs(d, exist_ok=True)
open(os.path.join(d, "summary.csv"), "wb").write(b"id,x,status\\n0,\\xff\\x00;rm -rf,ok\\n")
expect(lambda: powprof.Model(d), "summary.csv")
expect(lambda: powprof.Results(d).summary, "summary.csv")
""",
    "unknown_parameter": 'expect(lambda: powprof.Model(res).predict(size=1, bogus=2), "bogus")',
    "missing_parameter": 'expect(lambda: powprof.Model(res).predict(size=1000), "exponent")',
    "not_a_number": 'expect(lambda: powprof.Model(res).predict(size="12abc", exponent=30), "12abc")',
    "bad_row_named": """
df = pd.DataFrame({"size": [1000.0, -5.0, 2000.0], "exponent": [30, 30, 30]})
expect(lambda: powprof.Model(res).predict(df), "row 1")
""",
    "nan_setting": """
df = pd.DataFrame({"size": [float("nan")], "exponent": [30.0]})
expect(lambda: powprof.Model(res).predict(df), "nan")
""",
    "unknown_metric": 'expect(lambda: powprof.Model(res).predict(size=1000, exponent=30, metrics="x_w"), "x_w")',
    "closed_model": """
m = powprof.Model(res); m.close(); m.close()
expect(lambda: m.predict(size=1000, exponent=30), "closed")
""",
    "trace_outside_the_folder": """
expect(lambda: powprof.Results(res).trace(0, node="../../etc"), "../../etc")
expect(lambda: powprof.Results(res).trace(0, node=".hidden"), ".hidden")
expect(lambda: powprof.Results(res).trace(12345), "12345.csv")
""",
    "unknown_preset": 'expect(lambda: powprof.Battery(preset="drone-99s"), "drone-99s")',
    "bad_battery_file": """
p = os.path.join(tmp, "bad.cfg"); open(p, "w").write("battery = { capacity_ah = -3.0; };\\n")
expect(lambda: powprof.Battery(config=p), "bad.cfg", "capacity_ah")
""",
    "negative_base_power": 'expect(lambda: powprof.Battery(base_power_w=-1), "-1")',
    "bad_trace_frame": """
b = powprof.Battery()
expect(lambda: b.drain(pd.DataFrame({"t_s": [0.0, 1.0], "x_w": [1.0, -2.0]})), "-2")
expect(lambda: b.drain(pd.DataFrame({"t_s": [1.0, 0.0], "x_w": [1.0, 2.0]})), "sample 1")
expect(lambda: b.drain(pd.DataFrame({"t_s": [0.0, 1.0], "a;b_w": [1.0, 2.0]})), "a;b")
expect(lambda: b.drain(pd.DataFrame({"w": [1.0]})), "t_s")
""",
    "bad_trace_file": """
p = os.path.join(tmp, "bad-trace.csv"); open(p, "w").write("t_s,a_w\\n0,1\\n1,zz\\n")
expect(lambda: powprof.Battery().drain(p), "bad-trace.csv", "3")
expect(lambda: powprof.Battery().drain("/nonexistent.csv"), "/nonexistent.csv")
""",
    "bad_mission": """
m, b = powprof.Model(res), powprof.Battery()
expect(lambda: powprof.plan(m, b, {"duration_s": 60, "maximize": "nope"}), "nope")
expect(lambda: powprof.plan(m, b, {"duration_s": -5}), "-5")
expect(lambda: powprof.plan(m, b, {"duration_s": 60, "speed": 3}), "speed")
p = os.path.join(tmp, "bad-mission.cfg")
open(p, "w").write('mission = { phases = (\\n { name = "a"; duration = "1min"; durration = 3; }\\n); };\\n')
expect(lambda: powprof.plan(m, b, p), "bad-mission.cfg:2", "durration")
expect(lambda: powprof.plan(m, b, {"duration_s": 60, "file": p}), "one of them")
""",
    "governor": """
m, b = powprof.Model(res), powprof.Battery(base_power_w=60)
expect(lambda: powprof.Governor(m, b), "one of them")
expect(lambda: powprof.Governor(m, b, duration_s=-5), "-5")
expect(lambda: powprof.Governor(m, b, duration_s=60, maximize="nope"), "nope")
expect(lambda: powprof.Governor(m, b, mission="/nonexistent/m.cfg"), "/nonexistent/m.cfg")
g = powprof.Governor(m, b, duration_s=600)
g.update(10, soc=0.99)
expect(lambda: g.update(5, soc=0.98), "time 5")
expect(lambda: g.update(float("nan"), soc=0.98), "nan")
expect(lambda: g.update(20, soc=0.98, phase=-3), "phase")
expect(lambda: g.update(20, soc=0.98, phase=7), "phase")
m.close()
expect(lambda: g.update(30, soc=0.97), "closed")
expect(lambda: powprof.Governor(m, b, duration_s=60), "closed")
g.close()
expect(lambda: g.update(40, soc=0.96), "closed")
""",
    "config_dir": """
m, b = powprof.Model(res), powprof.Battery()
expect(lambda: powprof.Battery(config=tmp), tmp, "not a regular file (a directory)")
expect(lambda: powprof.plan(m, b, tmp), tmp, "not a regular file (a directory)")
expect(lambda: powprof.Governor(m, b, mission=tmp), tmp, "not a regular file (a directory)")
""",
    "meter_no_program": """
expect(lambda: powprof.meter("ls -l"), "no shell")
expect(lambda: powprof.meter([]), "no command")
expect(lambda: powprof.meter(["/nonexistent/prog"], device="procstat"), "/nonexistent/prog")
expect(lambda: powprof.meter(device="nope").__enter__(), "nope")
expect(lambda: powprof.meter(device="procstat", rate_hz=1e9).__enter__(), "1e+09")
""",
}


class TestHostile(unittest.TestCase):
    def run_case(self, name):
        script = PRELUDE + textwrap.dedent(CASES[name])
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.run([sys.executable, "-c", script, tx2_matrix(sizes=(512, 1024, 2048)),
                            TMP], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, "%s: exit %d (a crash?)\n%s" % (name, p.returncode,
                                                                          p.stderr[-2000:]))
        lines = p.stdout.splitlines()
        self.assertTrue(lines, p.stderr)
        for line in lines:
            self.assertTrue(line.startswith("raised") and " ok " in line,
                            "%s: %s" % (name, line))

    def test_hostile_no_folder(self):
        self.run_case("no_folder")

    def test_hostile_garbage_summary(self):
        self.run_case("garbage_summary")

    def test_hostile_unknown_parameter(self):
        self.run_case("unknown_parameter")

    def test_hostile_missing_parameter(self):
        self.run_case("missing_parameter")

    def test_hostile_not_a_number(self):
        self.run_case("not_a_number")

    def test_hostile_bad_row_named(self):
        self.run_case("bad_row_named")

    def test_hostile_nan_setting(self):
        self.run_case("nan_setting")

    def test_hostile_unknown_metric(self):
        self.run_case("unknown_metric")

    def test_hostile_closed_model(self):
        self.run_case("closed_model")

    def test_hostile_trace_outside_the_folder(self):
        self.run_case("trace_outside_the_folder")

    def test_hostile_unknown_preset(self):
        self.run_case("unknown_preset")

    def test_hostile_bad_battery_file(self):
        self.run_case("bad_battery_file")

    def test_hostile_negative_base_power(self):
        self.run_case("negative_base_power")

    def test_hostile_bad_trace_frame(self):
        self.run_case("bad_trace_frame")

    def test_hostile_bad_trace_file(self):
        self.run_case("bad_trace_file")

    def test_hostile_bad_mission(self):
        self.run_case("bad_mission")

    def test_hostile_governor(self):
        self.run_case("governor")

    def test_hostile_meter_no_program(self):
        self.run_case("meter_no_program")

    def test_hostile_config_dir(self):
        self.run_case("config_dir")
