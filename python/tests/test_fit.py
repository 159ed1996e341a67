"""battery fit from Python (issue 41): powprof.fit_battery gives the
document `powprof battery fit --json` prints, and refuses to write a pack
(or to take an option) with the command's own words, the refusal being
the library's."""
import math
import os
import subprocess
import unittest

import powprof
from helpers import BIN, ROOT, TMP, cli

SMALL = os.path.join(ROOT, "tests/fixtures/ulog/sample_log_small.ulg")
SHALLOW = os.path.join(ROOT, "tests/fixtures/flights/synthetic-liion-shallow.csv")
FLIGHT59 = os.path.join(ROOT, "tests/fixtures/flights/synthetic-liion-59.csv")
BUMP3 = os.path.join(ROOT, "tests/fixtures/flights/synthetic-bump-3.csv")
KNEE29 = os.path.join(ROOT, "tests/fixtures/flights/synthetic-knee-29.csv")


def errors(*args):
    """(exit status, the CLI's error lines without "powprof: error: ")."""
    p = subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, [ln[len("powprof: error: "):] for ln in p.stderr.splitlines()
                          if ln.startswith("powprof: error: ")]


def same(a, b):
    """JSON documents alike, numbers to 1e-9 relative (NaN is null in both)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


class TestFitBattery(unittest.TestCase):
    def test_fit_battery_is_the_command(self):
        for args, kw in ((["--instance", "1"], {"instance": 1}),
                         (["--train-frac", "0.6", "--ocv", "liion"],
                          {"train_frac": 0.6, "ocv": "liion"}),
                         (["--preset", "drone-6s-10000", "--model", "rint"],
                          {"preset": "drone-6s-10000", "model": "rint"})):
            doc = powprof.fit_battery(SMALL, **kw)
            self.assertTrue(same(doc, cli("battery", "fit", SMALL, *args, "--json")), args)
            self.assertGreater(doc["flights"][0]["samples_fitted"], 2)

    def test_fit_battery_writes_or_refuses_as_the_command(self):
        out = os.path.join(TMP, "fit-shallow.cfg")
        rc, said = errors("battery", "fit", SHALLOW, "-o", out)
        self.assertNotEqual(rc, 0)
        self.assertFalse(os.path.exists(out))
        doc = powprof.fit_battery(SHALLOW)
        self.assertIn("not decisively better", doc["refused"])
        with self.assertRaises(powprof.PowprofError) as e:
            powprof.fit_battery(SHALLOW, output=out)
        self.assertEqual(str(e.exception), said[-1])
        self.assertIn("not written: " + doc["refused"], str(e.exception))
        self.assertFalse(os.path.exists(out))
        doc = powprof.fit_battery(SHALLOW, output=out, force=True)
        self.assertEqual(doc["output"], out)
        b = powprof.Battery(config=out)  # the pack written is one every command takes
        b.close()
        good = os.path.join(TMP, "fit-small1.cfg")
        self.assertIsNone(powprof.fit_battery(SMALL, instance=1, output=good)["refused"])
        self.assertTrue(os.path.exists(good))

    def refused_alike(self, log, name):
        """log's fit: its document, once the command has refused to write
        its pack (-o) and Python has too, with the command's words."""
        out = os.path.join(TMP, name)
        rc, said = errors("battery", "fit", log, "-o", out)
        with self.assertRaises(powprof.PowprofError) as e:
            powprof.fit_battery(log, output=out)
        self.assertNotEqual(rc, 0)
        self.assertEqual(str(e.exception), said[-1])
        self.assertFalse(os.path.exists(out))
        return powprof.fit_battery(log)

    def test_fit_battery_curves_not_told_apart_refused_alike(self):
        """The study's flight 59 (tests/fixtures/flights/README.md): LiPo and
        Li-ion fit its validation part alike, so Python refuses to write the
        pack with the command's words, and says so in the document."""
        doc = self.refused_alike(FLIGHT59, "fit-59.cfg")
        self.assertIs(doc["curves_told_apart"], False)
        self.assertIn("curves apart", doc["refused"])
        self.assertLess(doc["ocv_other_train_rms_v"], 2 * doc["validation_fit_rms_v"])

    def test_fit_battery_guessed_capacity_refused_alike(self):
        """The study's bump flight 3 (tests/fixtures/flights/README.md): the
        capacity undetermined and held at the default's 3.2 Ah, which no one
        gave, so Python refuses to write the pack with the command's words."""
        doc = self.refused_alike(BUMP3, "fit-bump3.cfg")
        self.assertIs(doc["capacity_guessed"], True)
        self.assertIs(doc["capacity_held"], True)
        self.assertIn("do not determine the capacity", doc["refused"])

    def test_fit_battery_beaten_curve_refused_alike(self):
        """The knee truth's flight 29 (tests/fixtures/flights/README.md): the
        Li-ion fit at a bound follows the validation part far closer than
        the curve kept, so Python refuses to write the pack with the
        command's words, what would fix it included."""
        doc = self.refused_alike(KNEE29, "fit-knee29.cfg")
        self.assertIs(doc["curve_beaten"], True)
        self.assertIs(doc["capacity_guessed"], False)
        self.assertIn("the kept curve's shape is not this pack's", doc["refused"])
        self.assertIn("keep the pack it replaces, or fly deeper", doc["refused"])

    def test_fit_battery_bad_options_refused(self):
        for kw, why in (({"train_frac": 2}, "fraction 2"), ({"train_frac": math.nan}, "nan"),
                        ({"instance": 300}, "instance 300"), ({"cells": -3}, "cells -3"),
                        ({"ocv": "nimh"}, "ocv nimh"), ({"model": "ekf"}, "model ekf"),
                        ({"preset": "no-such"}, "no-such")):
            with self.assertRaisesRegex(powprof.PowprofError, why):
                powprof.fit_battery(SMALL, **kw)
        with self.assertRaisesRegex(ValueError, "instance 4294967297: out of range"):
            powprof.fit_battery(SMALL, instance=2 ** 32 + 1)  # never wrapped to 1
        with self.assertRaises(TypeError):
            powprof.fit_battery(SMALL, cells=4.5)
        rc, said = errors("battery", "fit", os.path.join(TMP, "none.ulg"))
        with self.assertRaises(powprof.PowprofError) as e:
            powprof.fit_battery(os.path.join(TMP, "none.ulg"))
        self.assertNotEqual(rc, 0)
        self.assertEqual(str(e.exception), said[-1])


if __name__ == "__main__":
    unittest.main()


class TestUlogInfo(unittest.TestCase):
    """powprof.ulog_info is `powprof ulog info LOG --json`: the library's
    one document (issue 40), and its refusals in the command's words."""

    def test_ulog_info_is_the_command(self):
        for log in (SMALL, os.path.join(ROOT, "tests/fixtures/ulog/sample.ulg")):
            doc = powprof.ulog_info(log)
            self.assertEqual(doc, cli("ulog", "info", log, "--json"), log)
        self.assertEqual([b["instance"] for b in powprof.ulog_info(SMALL)["batteries"]], [0, 1])

    def test_ulog_info_refuses_as_the_command(self):
        for bad in (os.path.join(ROOT, "no-such.ulg"), SHALLOW):
            rc, said = errors("ulog", "info", bad)
            self.assertEqual(rc, 2)
            with self.assertRaises(powprof.PowprofError) as e:
                powprof.ulog_info(bad)
            self.assertEqual(str(e.exception), said[-1])
