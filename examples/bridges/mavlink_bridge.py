#!/usr/bin/env python3
"""MAVLink -> powprof govern: the autopilot's BATTERY_STATUS (or SYS_STATUS)
fed to the in-flight governor, its setting written where the application
reads it (--state, rewritten atomically by powprof) and sent to the ground
station as a STATUSTEXT when it changes.

  python3 mavlink_bridge.py udpin:0.0.0.0:14550 RESULTS MISSION.cfg --state /run/det.json

Needs pymavlink (pip install pymavlink), which this repository does not
ship: the conversion of the messages (readings.py) is tested without it.
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readings  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("connection", help="pymavlink connection string (udpin:..., /dev/ttyACM0, ...)")
    ap.add_argument("results")
    ap.add_argument("mission")
    ap.add_argument("--state", help="the file the application polls for its setting")
    ap.add_argument("--battery-id", type=int, default=0)
    ap.add_argument("--powprof", default="powprof")
    a = ap.parse_args()
    try:
        from pymavlink import mavutil
    except ImportError:
        sys.exit("mavlink_bridge: pymavlink is not installed (pip install pymavlink)")
    mav = mavutil.mavlink_connection(a.connection)
    mav.wait_heartbeat()
    gov = readings.Governor(a.powprof, a.results, a.mission, a.state)
    threading.Thread(target=tell_ground, args=(gov, mav), daemon=True).start()
    t0 = time.monotonic()
    while True:
        msg = mav.recv_match(type=["BATTERY_STATUS", "SYS_STATUS"], blocking=True)
        t = time.monotonic() - t0
        if msg.get_type() == "BATTERY_STATUS":
            gov.send(readings.mavlink_battery_status(msg, t, a.battery_id))
        else:
            gov.send(readings.mavlink_sys_status(msg, t))


def tell_ground(gov, mav):
    """Each decision that changes the setting, as a STATUSTEXT."""
    for d in gov.decisions():
        if d.get("changed"):
            text = ("powprof: %s" % d.get("why", "setting changed"))[:50]
            mav.mav.statustext_send(6, text.encode())  # MAV_SEVERITY_INFO


if __name__ == "__main__":
    main()
