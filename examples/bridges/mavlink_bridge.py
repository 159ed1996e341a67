#!/usr/bin/env python3
"""MAVLink to powprof govern: BATTERY_STATUS (or SYS_STATUS) from the
autopilot (pymavlink: pip install pymavlink) as readings on govern's
stdin; the setting to run is rewritten atomically into STATE (the
application reads it), and each decision is printed.

  mavlink_bridge.py udpin:0.0.0.0:14550 RESULTS MISSION STATE [POWPROF]

pymavlink is not installable on the machine this was written on: the
message-to-reading conversion (readings.py) is tested on recorded message
values; this loop is not."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readings  # noqa: E402


def main(argv):
    url, results, mission, state, binary = readings.bridge_args(argv, __doc__)
    try:
        from pymavlink import mavutil
    except ImportError:
        sys.exit("mavlink_bridge: pymavlink is not installed (pip install pymavlink)")
    link = mavutil.mavlink_connection(url)
    link.wait_heartbeat()
    gov = subprocess.Popen(readings.govern_argv(binary, results, mission, state),
                           stdin=subprocess.PIPE, text=True)
    t0 = None
    try:
        while gov.poll() is None:
            msg = link.recv_match(type=["BATTERY_STATUS", "SYS_STATUS"], blocking=True, timeout=5)
            if msg is None:
                continue
            now = time.monotonic()
            t0 = now if t0 is None else t0
            convert = (readings.mavlink_battery_status if msg.get_type() == "BATTERY_STATUS"
                       else readings.mavlink_sys_status)
            gov.stdin.write(readings.line(convert(msg, now - t0)))
            gov.stdin.flush()
    finally:
        gov.stdin.close()
        gov.wait()


if __name__ == "__main__":
    main(sys.argv)
