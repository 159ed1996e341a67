"""Plans as a script reads them: JSON it can trust (null where nothing is
known, the end's charge with a flag, durations as the CLI writes them),
tidy tables (the long format, plans as DataFrames), and one rule for every
planner (the governor plans as plan does)."""
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


class TestOneRule(unittest.TestCase):
    def test_governor_plans_as_plan(self):
        """Defect 1: govern's planning call (pp_plan_phases, as plan
        --mission) gives the measured 1 fps as plan's best does. A guard:
        the governor's grid (no --resolution) has no setting between 1 and
        2 that gives way, so the C test test_plan_one_rule_every_planner
        is the one that failed before the rule."""
        mission = os.path.join(TMP, "m45.cfg")
        with open(mission, "w") as f:
            f.write('mission = { maximize = "det.fps"; phases = (\n'
                    ' { name = "a"; duration = "20min"; base_power_w = 0.0; },\n'
                    ' { name = "b"; duration = "30min"; base_power_w = 0.0; }\n); };\n')
        with powprof.Model(overshoot()) as m, \
                powprof.Governor(m, powprof.Battery(), mission) as g:
            d = g.update(0, soc=1.0)
        self.assertEqual(d["setting"], {"det.fps": 1})


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


class TestTidy(unittest.TestCase):
    """Defect 7: the long format (one row per setting and metric) and plans
    as DataFrames."""

    def test_predict_long_is_predict_in_rows(self):
        import pandas as pd
        df = pd.DataFrame({"det.fps": [0.5, 0.75, 1.5]}, index=["a", "b", "c"])
        with powprof.Model(overshoot()) as m:
            wide = m.predict(df, metrics=["total_mean_w", "duration_s"])
            long = m.predict_long(df, metrics=["total_mean_w", "duration_s"])
            one = m.predict_long(**{"det.fps": 0.75})
            every = list(m.metrics)
        self.assertEqual(list(one["metric"]), every)
        self.assertTrue((one["det.fps"] == 0.75).all())
        self.assertEqual(list(long.columns), ["det.fps", "metric", "value", "lo", "hi", "error",
                                              "outside_measured"])
        self.assertEqual(len(long), 6)
        for i, fps in enumerate(df["det.fps"]):
            for metric in ("total_mean_w", "duration_s"):
                row = long[(long["det.fps"] == fps) & (long["metric"] == metric)]
                self.assertEqual(len(row), 1)
                for what, col in (("value", "value"), ("lo", "lo"), ("hi", "hi"),
                                  ("typical_error_pct", "error")):
                    self.assertEqual(row[col].iloc[0], wide[(metric, what)].iloc[i])

        merged = df.merge(long[long["metric"] == "total_mean_w"], on="det.fps")
        self.assertEqual(len(merged), 3)

    def test_plan_frame(self):
        with powprof.Model(overshoot()) as m:
            p = powprof.plan(m, powprof.Battery(), 3000)
        f = powprof.plan_frame(p)
        self.assertEqual(f["role"].iloc[0], "best")
        self.assertEqual(f["planned_w"].iloc[0], p["best"]["planned_w"])
        self.assertEqual(f["det.fps"].iloc[0], p["best"]["det.fps"])
        self.assertEqual((f["role"] == "runner_up").sum(), len(p["runners_up"]))
        self.assertEqual(f[f["role"] == "most_frugal"]["planned_w"].iloc[0],
                         p["most_frugal"]["planned_w"])
