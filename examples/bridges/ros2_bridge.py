#!/usr/bin/env python3
"""ROS 2 -> powprof govern: sensor_msgs/msg/BatteryState fed to the
in-flight governor; each decision republished as JSON on
/powprof/decision (std_msgs/msg/String) for the nodes that set their rate,
and the setting written to --state (rewritten atomically by powprof).

  python3 ros2_bridge.py RESULTS MISSION.cfg --topic /battery --state /run/det.json

Needs rclpy (a ROS 2 installation), which this repository does not ship:
the conversion of the message (readings.py) is tested without it. The
message defines the current as negative when discharging; give
--current-positive for a driver that publishes it positive.
"""
import argparse
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readings  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("mission")
    ap.add_argument("--topic", default="/battery")
    ap.add_argument("--state", help="the file the application polls for its setting")
    ap.add_argument("--current-positive", action="store_true")
    ap.add_argument("--powprof", default="powprof")
    a = ap.parse_args()
    try:
        import rclpy
        from sensor_msgs.msg import BatteryState
        from std_msgs.msg import String
    except ImportError:
        sys.exit("ros2_bridge: rclpy is not installed (source a ROS 2 setup.bash)")
    rclpy.init()
    node = rclpy.create_node("powprof_governor")
    out = node.create_publisher(String, "/powprof/decision", 10)
    gov = readings.Governor(a.powprof, a.results, a.mission, a.state)
    sign = 1.0 if a.current_positive else -1.0
    node.create_subscription(
        BatteryState, a.topic,
        lambda m: gov.send(readings.ros_battery_state(m, current_sign=sign)), 10)

    def publish():
        for d in gov.decisions():
            out.publish(String(data=json.dumps(d)))

    threading.Thread(target=publish, daemon=True).start()
    rclpy.spin(node)


if __name__ == "__main__":
    main()
