#!/usr/bin/env python3
"""ROS 2 to powprof govern: sensor_msgs/msg/BatteryState on TOPIC as
readings on govern's stdin; each decision (govern's JSON document) is
published as std_msgs/msg/String on powprof/decision, where the
application's node reads the setting, and rewritten into STATE.

  ros2_bridge.py TOPIC RESULTS MISSION STATE [POWPROF]

rclpy is not installable on the machine this was written on: the
message-to-reading conversion (readings.py) is tested on recorded message
values; this node is not."""
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readings  # noqa: E402


def main(argv):
    topic, results, mission, state, binary = readings.bridge_args(argv, __doc__)
    try:
        import rclpy
        from sensor_msgs.msg import BatteryState
        from std_msgs.msg import String
    except ImportError:
        sys.exit("ros2_bridge: rclpy (a ROS 2 installation) is not available")
    gov = subprocess.Popen(readings.govern_argv(binary, results, mission, state),
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rclpy.init()
    node = rclpy.create_node("powprof_governor")
    pub = node.create_publisher(String, "powprof/decision", 10)
    t0 = []

    def on_battery(msg):
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        if not t0:
            t0.append(stamp)
        gov.stdin.write(readings.line(readings.ros_battery_state(msg, t0[0])))
        gov.stdin.flush()

    def decisions():
        for text in gov.stdout:
            pub.publish(String(data=text.strip()))

    node.create_subscription(BatteryState, topic, on_battery, 10)
    threading.Thread(target=decisions, daemon=True).start()
    try:
        rclpy.spin(node)
    finally:
        gov.stdin.close()
        gov.wait()
        node.destroy_node()
        rclpy.shutdown()


if __name__ == "__main__":
    main(sys.argv)
