"""The vehicle bridges of examples/bridges (issue 42): MAVLink and ROS 2
battery messages as governor readings, on recorded message values (fields
and units as the message definitions give them), and the pipe through
`powprof govern --source stdin`. Neither pymavlink nor rclpy is installed
here: the messages are plain objects with the same fields."""
import os
import sys
import tempfile
import unittest
from types import SimpleNamespace as NS

from helpers import BIN, ROOT, tx2_matrix

sys.path.insert(0, os.path.join(ROOT, "examples", "bridges"))
import readings  # noqa: E402

NONE = readings.UINT16_MAX


def battery_status(**kw):
    f = dict(id=0, voltages=[NONE] * 10, current_battery=-1, battery_remaining=-1,
             current_consumed=-1, energy_consumed=-1, temperature=32767)
    f.update(kw)
    return NS(**f)


def battery_state(voltage, current, percentage, sec=0, nanosec=0):
    return NS(header=NS(stamp=NS(sec=sec, nanosec=nanosec)), voltage=voltage,
              current=current, percentage=percentage)


class TestMavlink(unittest.TestCase):
    # The first sample of the real flight in tests/fixtures (roboto-nn-5s:
    # 20.49 V, 0.49 A, 92.6 %) as PX4 sends it: a 5S pack per cell in mV,
    # the current in cA, the remaining in whole percent.
    def test_battery_status_cells_summed(self):
        m = battery_status(voltages=[4098, 4098, 4098, 4098, 4098] + [NONE] * 5,
                           current_battery=49, battery_remaining=93)
        r = readings.mavlink_battery_status(m, 12.5)
        self.assertEqual(r["t_s"], 12.5)
        self.assertAlmostEqual(r["voltage_v"], 20.49, places=9)
        self.assertAlmostEqual(r["current_a"], 0.49, places=9)
        self.assertAlmostEqual(r["soc"], 0.93, places=9)

    def test_battery_status_unknowns_left_out(self):
        # cells unknown: the pack in cell 0; current and remaining -1
        r = readings.mavlink_battery_status(battery_status(voltages=[20490] + [NONE] * 9), 1)
        self.assertEqual(set(r), {"t_s", "voltage_v"})
        self.assertAlmostEqual(r["voltage_v"], 20.49)
        self.assertIsNone(readings.mavlink_battery_status(battery_status(), 1))

    def test_battery_status_pack_above_65_volts(self):
        # cell 0 at UINT16_MAX - 1 and the rest in cell 1 (a 16S pack, 67.2 V)
        m = battery_status(voltages=[65534, 1666] + [NONE] * 8, current_battery=1234)
        r = readings.mavlink_battery_status(m, 3)
        self.assertAlmostEqual(r["voltage_v"], 67.2)
        self.assertAlmostEqual(r["current_a"], 12.34)

    def test_battery_status_cells_11_to_14(self):
        # a 12S pack: cells 1-10 in voltages, 11-12 in voltages_ext (0: none)
        m = battery_status(voltages=[4000] * 10, voltages_ext=[4000, 4000, 0, 0])
        self.assertAlmostEqual(readings.mavlink_battery_status(m, 0)["voltage_v"], 48.0)

    def test_battery_status_other_battery_ignored(self):
        m = battery_status(id=1, voltages=[16800] + [NONE] * 9)
        self.assertIsNone(readings.mavlink_battery_status(m, 0, battery_id=0))
        self.assertIsNotNone(readings.mavlink_battery_status(m, 0, battery_id=1))

    def test_sys_status(self):
        m = NS(voltage_battery=16412, current_battery=1850, battery_remaining=64)
        r = readings.mavlink_sys_status(m, 60)
        self.assertEqual(r, {"t_s": 60.0, "soc": 0.64, "voltage_v": 16.412, "current_a": 18.5})
        m = NS(voltage_battery=NONE, current_battery=-1, battery_remaining=-1)
        self.assertIsNone(readings.mavlink_sys_status(m, 60))


class TestRos(unittest.TestCase):
    def test_battery_state_discharging_is_negative(self):
        r = readings.ros_battery_state(battery_state(16.4, -18.5, 0.64, sec=100,
                                                     nanosec=500000000))
        self.assertEqual(r["t_s"], 100.5)
        self.assertAlmostEqual(r["current_a"], 18.5)
        self.assertAlmostEqual(r["soc"], 0.64)
        self.assertAlmostEqual(r["voltage_v"], 16.4)
        r = readings.ros_battery_state(battery_state(16.4, 18.5, 0.64), t_s=5, current_sign=1)
        self.assertAlmostEqual(r["current_a"], 18.5)

    def test_battery_state_unmeasured_nan(self):
        nan = float("nan")
        r = readings.ros_battery_state(battery_state(16.4, nan, nan), t_s=2)
        self.assertEqual(set(r), {"t_s", "voltage_v"})
        self.assertIsNone(readings.ros_battery_state(battery_state(nan, nan, nan), t_s=2))
        # a percentage given in percent (a driver's mistake) is not a fraction
        self.assertNotIn("soc", readings.ros_battery_state(battery_state(16, -1, 64.0), t_s=2))


class TestPipe(unittest.TestCase):
    def test_bridge_feeds_govern(self):
        """MAVLink messages converted and piped to `powprof govern --source
        stdin`: every reading accepted, decisions back, the state file
        written for the application."""
        res = tx2_matrix()
        state = os.path.join(tempfile.mkdtemp(), "det.json")
        g = readings.Governor(BIN, res, None, state, stderr=-1,
                              extra=["--mission-s", "1200", "--base-power-w", "60",
                                     "--maximize", "size"])
        msgs = [(0, 100, 1640), (60, 95, 1620), (120, 90, 1600)]
        for t, pct, cv in msgs:
            g.send(readings.mavlink_sys_status(
                NS(voltage_battery=cv * 10, current_battery=1000, battery_remaining=pct), t))
        rc, decisions, err = g.close()
        self.assertIn(rc, (0, 3), err)
        refusals = [ln for ln in err.splitlines() if "refused" in ln and " 0 readings" not in ln]
        self.assertEqual(refusals, [])
        self.assertGreaterEqual(len(decisions), 1)
        self.assertTrue(os.path.getsize(state) > 0)


if __name__ == "__main__":
    unittest.main()
