"""The vehicle bridges' message-to-reading conversion
(examples/bridges/readings.py) on recorded message values, in the units
of the MAVLink and ROS 2 definitions (mV, cA, percent, -1 or UINT16_MAX
for unknown; ROS: V, A negative when discharging, a fraction), and the
lines they make read by `powprof govern --source stdin` (pymavlink and
rclpy are not installed here: the loops around them are not run)."""
import json
import os
import subprocess
import sys
import unittest
from types import SimpleNamespace as Msg

from helpers import BIN, ROOT, tx2_matrix

sys.path.insert(0, os.path.join(ROOT, "examples", "bridges"))
import readings  # noqa: E402

U16 = 65535
# BATTERY_STATUS of a 4S pack in flight: four cells, 12.34 A, 74 %
BATTERY_STATUS_CELLS = Msg(voltages=[3987, 3990, 3985, 3992] + [U16] * 6,
                           voltages_ext=[0, 0, 0, 0], current_battery=1234,
                           battery_remaining=74)
# ... a monitor that measures the pack only: the pack in cell 0, the rest UINT16_MAX - 1
BATTERY_STATUS_PACK = Msg(voltages=[15954] + [U16 - 1] * 9, current_battery=-1,
                          battery_remaining=-1)
SYS_STATUS = Msg(voltage_battery=15954, current_battery=1234, battery_remaining=74)
SYS_STATUS_UNKNOWN = Msg(voltage_battery=U16, current_battery=-1, battery_remaining=-1)
ROS_STATE = Msg(header=Msg(stamp=Msg(sec=1700000123, nanosec=500000000)), voltage=15.954,
                current=-12.34, percentage=0.74)
ROS_STATE_NAN = Msg(header=Msg(stamp=Msg(sec=1700000130, nanosec=0)), voltage=15.9,
                    current=float("nan"), percentage=float("nan"))


class TestBridges(unittest.TestCase):
    def test_bridges_mavlink_units(self):
        r = readings.mavlink_battery_status(BATTERY_STATUS_CELLS, 12.5)
        self.assertEqual(r["t_s"], 12.5)
        self.assertAlmostEqual(r["voltage_v"], 15.954, places=9)
        self.assertAlmostEqual(r["current_a"], 12.34, places=9)
        self.assertAlmostEqual(r["soc"], 0.74, places=12)  # a percentage, not 74
        r = readings.mavlink_battery_status(BATTERY_STATUS_PACK, 13)
        self.assertAlmostEqual(r["voltage_v"], 15.954, places=9)
        self.assertIsNone(r["current_a"])
        self.assertIsNone(r["soc"])
        r = readings.mavlink_sys_status(SYS_STATUS, 14)
        self.assertEqual((r["voltage_v"], r["current_a"], r["soc"]), (15.954, 12.34, 0.74))
        r = readings.mavlink_sys_status(SYS_STATUS_UNKNOWN, 15)
        self.assertEqual((r["voltage_v"], r["current_a"], r["soc"]), (None, None, None))

    def test_bridges_ros_units(self):
        r = readings.ros_battery_state(ROS_STATE, 1700000000.0)
        self.assertAlmostEqual(r["t_s"], 123.5, places=6)
        self.assertAlmostEqual(r["current_a"], 12.34, places=9)  # discharge positive
        self.assertAlmostEqual(r["soc"], 0.74, places=6)
        r = readings.ros_battery_state(ROS_STATE_NAN, 1700000000.0)
        self.assertIsNone(r["current_a"])
        self.assertIsNone(r["soc"])
        self.assertEqual(json.loads(readings.line(r)), {"t_s": 130.0, "voltage_v": 15.9})

    def test_bridges_lines_governed(self):
        """The lines the bridges write, read by govern as readings (a 4S
        pack planned with: the default battery)."""
        text = "".join(readings.line(r) for r in (
            readings.mavlink_battery_status(BATTERY_STATUS_CELLS, 0),
            readings.mavlink_sys_status(SYS_STATUS, 10),
            readings.ros_battery_state(ROS_STATE, 1700000123.5 - 20)))
        p = subprocess.run([BIN, "govern", tx2_matrix(), "--mission-s", "1200", "--base-power-w",
                            "60", "--source", "stdin", "--every", "1"], input=text,
                           capture_output=True, text=True, cwd=ROOT)
        self.assertIn(p.returncode, (0, 3), p.stderr)
        self.assertIn("3 decisions, 0 readings refused", p.stderr)
        docs = [json.loads(x) for x in p.stdout.splitlines()]
        self.assertEqual([d["soc_measured"] for d in docs], [0.74, 0.74, 0.74])
        self.assertEqual(readings.govern_argv("powprof", "R", "M", "S")[:2], ["powprof", "govern"])


if __name__ == "__main__":
    unittest.main()
