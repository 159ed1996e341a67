"""The governor's refusals and answers are the library's: Python says what
the C API and the CLI say (issue 42, 1 2 7; issue 46, 8)."""
import math
import re
import os
import unittest

import powprof
from helpers import ROOT, TMP, cli, close, tx2_matrix


class TestGovernorFaces(unittest.TestCase):
    def governor(self, **kwargs):
        m = powprof.Model(tx2_matrix())
        b = powprof.Battery(base_power_w=130)
        self.addCleanup(m.close)
        self.addCleanup(b.close)
        g = powprof.Governor(m, b, duration_s=1200, **kwargs)
        self.addCleanup(g.close)
        return g

    def test_governor_percent_soc_refused(self):
        g = self.governor()
        g.update(0, soc=1.0)
        with self.assertRaisesRegex(powprof.PowprofError, r"a percentage\? write it / 100"):
            g.update(60, soc=93)
        d = g.update(60, soc=0.93)  # the last good state kept: governed on
        self.assertEqual(d["soc_source"], "measured")

    def test_governor_bad_readings_refused(self):
        g = self.governor()
        with self.assertRaisesRegex(powprof.PowprofError, "the first reading needs one"):
            g.update(0)
        g.update(0, soc=1.0)
        for kw, why in (({"voltage": 15.0, "current": 1e300}, "current 1e+300 A"),
                        ({"soc": 1e308}, "state of charge 1e+308"),
                        ({"soc": -5}, "state of charge -5"),
                        ({"voltage": -5, "current": 3}, "voltage -5 V"),
                        ({"voltage": math.inf, "current": 3}, "voltage inf V"),
                        ({"voltage": 24.0, "current": 3},  # a 6S flown, a 4S planned
                         "voltage 24 V is not the planned pack's (4 cells, 3.2 Ah")):
            with self.assertRaisesRegex(powprof.PowprofError, re.escape(why)):
                g.update(30, **kw)
        with self.assertRaisesRegex(powprof.PowprofError, "past the mission's end"):
            g.update(1e308, soc=0.9)
        for phase in (2 ** 32 + 1, 2 ** 31, float("inf"), 1.5, -1):  # phase 1 once 2**32 + 1
            with self.assertRaisesRegex(ValueError, "phase: an index"):
                g.update(40, soc=0.95, phase=phase)
        self.assertEqual(g.update(60, soc=0.95)["why"] != "done", True)

    def test_governor_reserve_refused(self):
        for bad, why in ((-0.1, "min soc -0.1"), (20, r"min soc 20: .*percentage"),
                         (math.nan, "min soc nan")):
            with self.assertRaisesRegex(powprof.PowprofError, why):
                self.governor(min_soc=bad)
        with self.assertRaisesRegex(powprof.PowprofError, "the margin -5"):
            self.governor(margin=-5)

    def test_governor_cannot_estimate_advances(self):
        """After 'cannot' the charge without a reading falls and the time
        to the reserve stays put (it moved later with the clock)."""
        g = self.governor()
        g.update(0, soc=1.0)
        d = g.update(180, soc=0.5)
        self.assertFalse(d["feasible"])
        soc, reserve = d["soc"], d["reserve_t_s"]
        self.assertGreater(reserve, 260)
        for t in (200, 240):
            d = g.update(t)
            self.assertLess(d["soc"], soc)
            self.assertAlmostEqual(d["reserve_t_s"], reserve, delta=0.05 * (reserve - 180))
            soc = d["soc"]

    def test_governor_phase_runs_long(self):
        """A phase the readings say is still flown past its planned end
        runs long: said in the decision, the mission not over (by the
        clock it is)."""
        g = self.governor()
        d = g.update(0, soc=1.0, phase=0)
        self.assertEqual(d["phase_overrun_s"], 0)
        self.assertIsNone(d["overrun_assumed_s"])
        d = g.update(1300, soc=0.5, phase=0)
        self.assertEqual(d["phase_index"], 0)
        self.assertAlmostEqual(d["phase_overrun_s"], 100)
        self.assertAlmostEqual(d["overrun_assumed_s"], 100)
        self.assertNotEqual(d["why"], "done")
        c = self.governor()
        c.update(0, soc=1.0)
        self.assertEqual(c.update(1300, soc=0.5)["why"], "done")

    def test_governor_every_and_resolution(self):
        """every: the updates between two decisions feed the estimate and
        repeat the last decision; resolution: the levels measured, as
        govern --resolution size=measured."""
        g = self.governor(every=30, resolution={"size": "measured"}, maximize="size")
        d = g.update(0, soc=1.0)
        self.assertTrue(d["decided"])
        self.assertIn(d["value"], (256, 512, 1024, 2048, 4096))
        d = g.update(10, soc=0.99)
        self.assertFalse(d["decided"])
        self.assertEqual(d["soc"], 0.99)
        self.assertTrue(g.update(30, soc=0.98)["decided"])
        for bad, why in (({"every": 1e-300}, "a decision every 1e-300 s"),
                         ({"resolution": "size=x"}, "the resolution size=x")):
            with self.assertRaisesRegex(powprof.PowprofError, why):
                self.governor(**bad)

    def test_governor_simulate_is_the_clis(self):
        """govern --simulate --json and Governor.simulate: one document (the
        library's), the same keys and values; a plan that cannot keep the
        reserve refused alike."""
        res = tx2_matrix()
        mission = os.path.join(TMP, "sim-mission.cfg")
        with open(mission, "w") as f:
            f.write('mission = { maximize = "size"; min_soc = 0.2; phases = (\n'
                    ' { name = "a"; duration = "10min"; base_power_w = 40.0; },\n'
                    ' { name = "b"; duration = "10min"; base_power_w = 60.0; }\n); };\n')
        want = cli("govern", res, "--mission", mission, "--simulate", "planned",
                   "--scale-after", "5min:1.1", "--json")
        m = powprof.Model(res)
        b = powprof.Battery()
        self.addCleanup(m.close)
        self.addCleanup(b.close)
        g = powprof.Governor(m, b, mission)
        self.addCleanup(g.close)
        got = g.simulate("planned", scale_after=(300, 1.1))
        self.assertIsNone(close(got, want, 1e-8), close(got, want, 1e-8))
        self.assertIn("governed", got)
        with self.assertRaisesRegex(powprof.PowprofError, "a power trace|does not read|cannot"):
            g.simulate(os.path.join(TMP, "no-such-trace.csv"))


if __name__ == "__main__":
    unittest.main()
