"""Battery messages of a vehicle as readings for `powprof govern --source
stdin` (one JSON line each: t_s, soc, voltage_v, current_a; null where the
message says unknown). Only the standard library: the conversions are
tested without pymavlink or rclpy (python/tests/test_bridges.py).

Units as the message definitions give them:
  MAVLink BATTERY_STATUS (147): voltages[10] per cell in mV (UINT16_MAX: no
    such cell; when cells are not measured, cell 0 holds the pack and the
    others UINT16_MAX - 1), voltages_ext[4] (cells 11..14, 0: none),
    current_battery in cA (-1: unknown), battery_remaining in % (-1: unknown).
  MAVLink SYS_STATUS (1): voltage_battery in mV (UINT16_MAX: unknown),
    current_battery in cA (-1: unknown), battery_remaining in % (-1: unknown).
  ROS 2 sensor_msgs/msg/BatteryState: voltage in V, current in A
    (negative when discharging), percentage in [0, 1] (NaN: unknown)."""
import json
import math

UINT16_MAX = 65535


def _soc_of_percent(remaining):
    return None if remaining is None or remaining < 0 else remaining / 100.0


def _current_of_ca(current_ca):
    return None if current_ca is None or current_ca == -1 else current_ca / 100.0


def mavlink_battery_status(msg, t_s):
    """A BATTERY_STATUS message (pymavlink's, or anything with its field
    names) at t_s seconds since take-off as a reading (a dict)."""
    cells = [v for v in list(msg.voltages) + list(getattr(msg, "voltages_ext", []) or [])
             if v not in (UINT16_MAX, UINT16_MAX - 1, 0)]
    return {"t_s": float(t_s), "soc": _soc_of_percent(msg.battery_remaining),
            "voltage_v": sum(cells) / 1000.0 if cells else None,
            "current_a": _current_of_ca(msg.current_battery)}


def mavlink_sys_status(msg, t_s):
    """A SYS_STATUS message at t_s as a reading."""
    v = msg.voltage_battery
    return {"t_s": float(t_s), "soc": _soc_of_percent(msg.battery_remaining),
            "voltage_v": None if v == UINT16_MAX else v / 1000.0,
            "current_a": _current_of_ca(msg.current_battery)}


def ros_battery_state(msg, t0_s):
    """A sensor_msgs/msg/BatteryState at its header's stamp, less t0_s (the
    take-off's stamp, s), as a reading: the current's sign turned (ROS:
    negative when discharging; powprof: discharge positive)."""
    def known(x):
        return None if x is None or math.isnan(x) else float(x)
    stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
    current = known(msg.current)
    return {"t_s": stamp - t0_s, "soc": known(msg.percentage),
            "voltage_v": known(msg.voltage), "current_a": None if current is None else -current}


def line(reading):
    """A reading as govern's stdin line: a JSON object, unknowns left out
    (a reading with neither a charge nor a voltage and a current is the
    plan's prediction to govern)."""
    return json.dumps({k: v for k, v in reading.items() if v is not None}) + "\n"


def govern_argv(binary, results, mission, state):
    """The govern command a bridge feeds (an argv, never a shell): stdin
    readings, the setting rewritten atomically into state, which the
    application reads."""
    return [binary, "govern", results, "--mission", mission, "--source", "stdin",
            "--state", state]


def bridge_args(argv, usage):
    """A bridge's command line: SOURCE RESULTS MISSION STATE [POWPROF]
    (usage printed and exit 2 otherwise)."""
    import sys
    if len(argv) not in (5, 6):
        sys.stderr.write(usage)
        sys.exit(2)
    return argv[1], argv[2], argv[3], argv[4], argv[5] if len(argv) == 6 else "powprof"
