"""One refusal, one message (issue 40 item 1, issue 46 item 15): what
`powprof predict` and `plan` refuse or warn about, the library says, so
Python raises or warns with the CLI's own words; and the inputs Python
used to pass on silently (a NUL, a duplicate column, a reserve of 2.0 or
NaN, bytes for a path) get a clear error or work."""
import os
import subprocess
import unittest
import warnings

import numpy as np
import pandas as pd

import powprof
from helpers import BIN, ROOT, TMP, cli, close

LINEAR = ("id,threads,fps,status,duration_s,total_mean_w\n" +
          "".join("%d,1,%d,ok,10,%.1f\n" % (i, i + 1, 2.5 + 0.5 * i) for i in range(7)))


def linear():
    """power 2 + fps / 2 at fps 1..7 and threads measured at 1 only."""
    d = os.path.join(TMP, "linear")
    if not os.path.exists(d):
        os.makedirs(d)
        with open(os.path.join(d, "summary.csv"), "w") as f:
            f.write(LINEAR)
    return d


def cli_says(*args):
    """(exit status, the error lines, the warning lines) of the CLI, without
    the "powprof: error: " and "powprof: warning: " before them."""
    p = subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT)
    lines = p.stderr.splitlines()
    return (p.returncode, [ln[len("powprof: error: "):] for ln in lines
                           if ln.startswith("powprof: error: ")],
            [ln[len("powprof: warning: "):] for ln in lines
             if ln.startswith("powprof: warning: ")])


def python_says(fn):
    """(the PowprofError's message or None, the warnings' messages) of fn()."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn()
            error = None
        except powprof.PowprofError as e:
            error = str(e)
    return error, [str(x.message) for x in w if issubclass(x.category, powprof.PowprofWarning)]


class TestPredictRefusals(unittest.TestCase):
    def setUp(self):
        self.m = powprof.Model(linear())

    def tearDown(self):
        self.m.close()

    def test_beyond_the_measured_refused_as_the_cli(self):
        rc, errors, warned = cli_says("predict", linear(), "fps=1000")
        self.assertEqual(rc, 3)
        self.assertTrue(errors and errors[0].startswith("refused: total_mean_w predicted 502"),
                        errors)
        error, py_warned = python_says(lambda: self.m.predict(fps=1000))
        self.assertEqual(error, "; ".join(errors))
        self.assertEqual(py_warned, warned)
        error, _ = python_says(lambda: self.m.estimate("total_mean_w", fps=1000))
        self.assertEqual(error, errors[-1])

    def test_extrapolate_gives_what_the_cli_gives(self):
        want = cli("predict", linear(), "fps=1000", "--extrapolate", "--json")["metrics"]
        error, _ = python_says(lambda: self.m.predict(fps=1000, extrapolate=True))
        self.assertIsNone(error)
        got = self.m.predict(fps=1000, extrapolate=True)
        self.assertAlmostEqual(got.loc["total_mean_w", "value"], want["total_mean_w"]["value"])
        self.assertTrue(got.loc["total_mean_w", "beyond_measured"])
        self.assertFalse(got.loc["duration_s", "beyond_measured"])

    def test_outside_and_constant_warned_as_the_cli(self):
        for point in ({"fps": 9}, {"fps": 3, "threads": 4}):
            rc, errors, warned = cli_says("predict", linear(),
                                          *["%s=%s" % kv for kv in point.items()])
            self.assertEqual((rc, errors), (0, []))
            self.assertEqual(len(warned), 1)
            error, py_warned = python_says(lambda: self.m.predict(**point))
            self.assertIsNone(error)
            self.assertEqual(py_warned, warned)
        self.assertIn("threads = 4: the results measured threads = 1 only", warned[0])

    def test_table_beyond_names_its_row(self):
        df = pd.DataFrame({"fps": [2.0, 3.0, 1000.0]})
        error, _ = python_says(lambda: self.m.predict(df))
        self.assertIn("refused: row 2 (from 0): total_mean_w predicted 502", error)
        frame = self.m.predict(df, extrapolate=True)
        self.assertGreater(frame[("total_mean_w", "value")].iloc[2], 400)


class TestPlanRefusals(unittest.TestCase):
    def test_min_soc_refused_as_the_cli(self):
        rc, errors, _ = cli_says("plan", linear(), "--mission-s", 600, "--min-soc", 20)
        self.assertEqual(rc, 2)
        self.assertEqual(errors, ["min soc 20: the charge to keep is a fraction in [0, 1) "
                                  "(a percentage? write it / 100)"])
        with powprof.Model(linear()) as m, powprof.Battery() as b:
            for frac, words in ((20, errors[0]), (2.0, "min soc 2:"), (float("nan"), "min soc nan"),
                                (-5, "min soc -5")):
                error, _ = python_says(lambda: powprof.plan(m, b, {"duration_s": 600,
                                                                   "min_soc_frac": frac}))
                self.assertIsNotNone(error, frac)
                self.assertIn(words, error)
                error, _ = python_says(lambda: powprof.Governor(m, b, duration_s=600,
                                                                min_soc=frac))
                self.assertIn(words, error or "")
            with self.assertRaisesRegex(TypeError, "min_soc_frac: a number, not '0.2'"):
                powprof.plan(m, b, {"duration_s": 600, "min_soc_frac": "0.2"})

    def test_mission_file_battery_given_wins_as_in_the_cli(self):
        """plan --mission F -c PACK used F's battery group over PACK, and
        Python's plan(m, Battery(config=PACK), F) too, silently."""
        flight, pack = os.path.join(TMP, "flight.cfg"), os.path.join(TMP, "mypack.cfg")
        with open(flight, "w") as f:
            f.write('mission = { maximize = "fps"; phases = ( { name = "a"; duration = "10min"; '
                    'base_power_w = 30.0; } ); };\nbattery = { capacity_ah = 1.0; };\n')
        with open(pack, "w") as f:
            f.write("battery = { capacity_ah = 8.0; };\n")
        rc, errors, warned = cli_says("plan", linear(), "--mission", flight, "-c", pack)
        self.assertEqual((rc, errors), (0, []))
        self.assertIn("%s: its battery group is not read: %s is flown" % (flight, pack), warned[0])
        want = cli("plan", linear(), "--mission", flight, "-c", pack, "--json")
        with powprof.Model(linear()) as m, powprof.Battery(config=pack) as b:
            error, py_warned = python_says(lambda: powprof.plan(m, b, flight))
            got = powprof.plan(m, b, flight)
        self.assertIsNone(error)
        self.assertIn("its battery group is not read: the battery given is flown", py_warned[0])
        self.assertIsNone(close(got, want))
        own = cli("plan", linear(), "--mission", flight, "--json")  # no -c: the file's pack
        self.assertNotEqual(own["timeline"], want["timeline"])


class TestMeterRefusals(unittest.TestCase):
    def test_meter_rate_refused_as_the_cli(self):
        """`meter -r` and Python's rate_hz (a command or a block) are refused
        in the library's words (issue 40)."""
        p = subprocess.run([BIN, "meter", "-r", "20000", "--", "true"], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)
        why = "the rate must be between 0.01 and 10000 Hz"
        self.assertEqual(p.stderr, "powprof meter: -r 20000: %s\n" % why)
        for rate in (20000, float("nan"), -1):
            with self.assertRaisesRegex(powprof.PowprofError, "rate %g Hz: %s" % (rate, why)):
                powprof.meter(["/bin/true"], device="procstat", rate_hz=rate)
            with self.assertRaisesRegex(powprof.PowprofError, "rate %g Hz: %s" % (rate, why)):
                powprof.meter(device="procstat", rate_hz=rate).__enter__()


class TestPythonInputs(unittest.TestCase):
    def test_bytes_path_and_nul(self):
        with powprof.Model(linear().encode()) as m:
            self.assertEqual(m.path, linear())
            self.assertEqual(m.params, ["threads", "fps"])
            with self.assertRaisesRegex(ValueError, "holds a NUL"):
                m.predict(fps="3\0junk")
            with self.assertRaisesRegex(ValueError, "row 1 \\(from 0\\), column fps: "
                                        "'3\\\\x00junk' holds a NUL"):
                m.predict(pd.DataFrame({"fps": ["2", "3\0junk"]}))
            with self.assertRaisesRegex(ValueError, "column fps given twice"):
                m.predict(pd.DataFrame([[2, 3]], columns=["fps", "fps"]))
            self.assertEqual(len(m.predict(pd.DataFrame({"fps": np.arange(1.0, 7.0)}))), 6)
        with self.assertRaisesRegex(ValueError, "Model: path: .* holds a NUL"):
            powprof.Model(linear() + "\0/x")
        with self.assertRaisesRegex(ValueError, "Battery: config: .* holds a NUL"):
            powprof.Battery(config="/tmp\0x")
        with self.assertRaisesRegex(ValueError, "meter: cmd\\[1\\]: .* holds a NUL"):
            powprof.meter(["/bin/echo", "a\0b"], device="procstat")
        with self.assertRaisesRegex(powprof.PowprofError, "rate nan Hz"):
            powprof.meter(["/bin/true"], device="procstat", rate_hz=float("nan"))
