"""Issue 45 (a researcher's day, round three): JSON a script can trust
(null where nothing is known, the end's charge with a flag, durations as
the CLI writes them), and tidy tables (the long format, plans as
DataFrames)."""
import os
import unittest

import powprof
from helpers import TMP


def overshoot():
    """A detector measured at 0.5, 1 and 2 fps (2 fps achieves only 1.07)."""
    out = os.path.join(TMP, "overshoot45")
    if not os.path.exists(out):
        os.makedirs(out)
        with open(os.path.join(out, "summary.csv"), "w") as f:
            f.write("id,det.fps,status,duration_s,iterations,late_frames,det.achieved_fps,"
                    "total_mean_w,reason\n0,0.5,ok,60,30,0,0.5,2.0,\n1,1,ok,60,60,0,1.0,2.5,\n"
                    "2,2,ok,60,64,56,1.07,3.0,\n")
        with open(os.path.join(out, "run.json"), "w") as f:
            f.write('{"params": {"det.fps": {"scale": "list", "kind": "list", '
                    '"values": [0.5, 1, 2]}}}')
    return out


class TestPlanJson(unittest.TestCase):
    def test_duration_text_as_the_cli(self):
        with powprof.Model(overshoot()) as m:
            b = powprof.Battery()
            self.assertEqual(powprof.plan(m, b, {"duration_s": "20min"}),
                             powprof.plan(m, b, {"duration_s": 1200}))
            with self.assertRaisesRegex(powprof.PowprofError,
                                        r'"20 parsecs" is not a duration.*10min, 1h30m'):
                powprof.plan(m, b, {"duration_s": "20 parsecs"})
            with self.assertRaisesRegex(TypeError, r'duration_s: seconds .* "20min"'):
                powprof.plan(m, b, {"duration_s": None})

    def test_null_not_sentinel_and_end_with_flag(self):
        with powprof.Model(overshoot()) as m:
            p = powprof.plan(m, powprof.Battery(base_power_w=400), 3000)
            self.assertFalse(p["feasible"])
            self.assertIsNone(p["max_power_w"])
            self.assertFalse(p["reserve_kept"])
            self.assertIsInstance(p["soc_end"], float)
            p = powprof.plan(m, powprof.Battery(), 3000)
            self.assertTrue(p["reserve_kept"])
            self.assertEqual(p["soc_end"], p["best_soc_end"])
