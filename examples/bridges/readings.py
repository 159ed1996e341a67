"""Battery messages of a live vehicle as `powprof govern --source stdin`
readings, and the pipe to the governor.

The conversions are plain functions of a message's fields, so that they are
tested here on recorded values (python/tests/test_bridges.py) where neither
pymavlink nor rclpy can be installed. Units as the message definitions give
them:

MAVLink common.xml
  BATTERY_STATUS (147): voltages[10] uint16 mV per cell, UINT16_MAX where a
    cell is not there (cell 0 holds the whole pack when cells are unknown;
    a pack above 65,534 mV continues in cell 1); current_battery int16 cA,
    -1 when not measured; battery_remaining int8 %, -1 when not estimated;
    voltages_ext[4] uint16 mV, cells 11-14, 0 where there is none; id the
    battery.
  SYS_STATUS (1): voltage_battery uint16 mV, UINT16_MAX when not sent;
    current_battery int16 cA, -1 when not measured; battery_remaining int8
    %, -1 when not estimated.
ROS 2 sensor_msgs/msg/BatteryState
  voltage float32 V; current float32 A, NEGATIVE when discharging, NaN when
  not measured; percentage float32 0..1, NaN when not measured;
  header.stamp (sec, nanosec).

A reading is a dict {"t_s", "soc", "voltage_v", "current_a"} with only the
fields the message gives (powprof's current is positive when discharging,
its soc a fraction 0..1); None when the message carries nothing usable.
"""
import json
import math
import subprocess

UINT16_MAX = 65535


def _line(t_s, soc=None, voltage_v=None, current_a=None):
    r = {"t_s": float(t_s)}
    if soc is not None:
        r["soc"] = soc
    if voltage_v is not None:
        r["voltage_v"] = voltage_v
    if current_a is not None:
        r["current_a"] = current_a
    return r if len(r) > 1 else None


def _percent(p):
    """MAVLink's int8 percent (-1: not estimated) as a fraction."""
    return None if p is None or p < 0 or p > 100 else p / 100.0


def _centiamps(c):
    """MAVLink's int16 cA (-1: not measured) in A."""
    return None if c is None or c == -1 else c / 100.0


def _pack_volts(cells, ext=()):
    """BATTERY_STATUS voltages[] (mV, UINT16_MAX: no cell) and
    voltages_ext[] (cells 11-14, mV, 0: no cell) summed in V."""
    mv = [v for v in cells if v is not None and v != UINT16_MAX]
    mv += [v for v in ext or () if v and v != UINT16_MAX]
    return sum(mv) / 1000.0 if mv else None


def mavlink_battery_status(msg, t_s, battery_id=0):
    """A reading from a BATTERY_STATUS message (any object with its fields,
    as pymavlink gives them); None for another battery or no data."""
    if getattr(msg, "id", 0) != battery_id:
        return None
    return _line(t_s, _percent(msg.battery_remaining),
                 _pack_volts(msg.voltages, getattr(msg, "voltages_ext", ())),
                 _centiamps(msg.current_battery))


def mavlink_sys_status(msg, t_s):
    """A reading from a SYS_STATUS message."""
    v = None if msg.voltage_battery == UINT16_MAX else msg.voltage_battery / 1000.0
    return _line(t_s, _percent(msg.battery_remaining), v, _centiamps(msg.current_battery))


def _finite(x):
    return x is not None and math.isfinite(x)


def ros_battery_state(msg, t_s=None, current_sign=-1.0):
    """A reading from a sensor_msgs/msg/BatteryState; t_s from its header
    stamp unless given. current_sign -1 follows the message definition
    (negative when discharging); +1 for a driver that publishes the
    discharge current positive."""
    if t_s is None:
        t_s = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
    soc = msg.percentage if _finite(msg.percentage) and 0 <= msg.percentage <= 1 else None
    v = msg.voltage if _finite(msg.voltage) and msg.voltage > 0 else None
    i = current_sign * msg.current if _finite(msg.current) else None
    return _line(t_s, soc, v, i)


class Governor:
    """`powprof govern RESULTS --mission MISSION --source stdin --json` as a child
    (argv, no shell): send() writes a reading line, decisions() yields each
    decision line the governor prints, parsed. The setting is also written
    atomically to state_file when given (the file the application polls)."""

    def __init__(self, powprof, results, mission, state_file=None, extra=(), stderr=None):
        argv = [powprof, "govern", results, "--source", "stdin", "--json"]
        if mission:
            argv += ["--mission", mission]
        if state_file:
            argv += ["--state", state_file]
        self.proc = subprocess.Popen(argv + list(extra), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True,
                                     bufsize=1)

    def send(self, reading):
        if reading is not None:
            self.proc.stdin.write(json.dumps(reading) + "\n")
            self.proc.stdin.flush()

    def decisions(self):
        for line in self.proc.stdout:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)

    def close(self):
        """End of readings: the governor's exit status, the decisions not
        yet read and what it said on stderr (when piped)."""
        self.proc.stdin.close()
        rest = list(self.decisions())
        err = self.proc.stderr.read() if self.proc.stderr else None
        return self.proc.wait(), rest, err
