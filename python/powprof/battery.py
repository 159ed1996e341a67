"""A modelled battery (SUNDIALS CVODE, as `powprof battery`) drained by a
trace, and the plan of a mission on a model and a battery."""
import ctypes
import json
import math
import os

from . import _lib
from ._lib import PowprofError


def _none_if_nan(v):
    return None if isinstance(v, float) and math.isnan(v) else v


class Battery(_lib.Handle):
    """Battery(preset="drone-4s-3200" | config="pack.cfg", base_power_w=0):
    a preset (drone-4s-3200, the default; drone-3s-2200, drone-6s-10000)
    or the battery group of a configuration file; base_power_w is a
    constant load beside the computer's (the motors)."""

    _free = "pp_battery_close"

    def __init__(self, preset=None, config=None, base_power_w=0.0):
        if preset is not None and config is not None:
            raise TypeError("Battery(preset=...) or Battery(config=...), not both")
        what = preset if preset is not None else config
        handle = ctypes.c_void_p()
        _lib.call("pp_battery_new", None if what is None else
                  _lib.path(what, "Battery: config" if config is not None else "Battery: preset"),
                  ctypes.byref(handle))
        self._h = handle
        self.name = "drone-4s-3200" if what is None else os.fsdecode(what)
        self.base_power_w = 0.0
        self.set_base_power(base_power_w)

    def set_base_power(self, base_power_w):
        _lib.call("pp_battery_set_base_power", self, float(base_power_w))
        self.base_power_w = float(base_power_w)

    def __repr__(self):
        return "powprof.Battery(%r, base_power_w=%g)" % (self.name, self.base_power_w)

    def drain(self, trace):
        """Drain the battery with a trace: a DataFrame (t_s, then watts per
        rail named <rail>_w; a rail ending in _IN is the board input, which
        contains the others) or a trace file's path. A dict: duration_s,
        energy_j, soc_start_frac, soc_end_frac, soc_drained_frac,
        min_voltage_v, time_to_cutoff_s (None: no cutoff in 48 h), brownout."""
        out = _lib.BatterySummary()
        if isinstance(trace, (str, bytes, os.PathLike)):
            t = ctypes.c_void_p()
            _lib.call("pp_trace_open", os.fsencode(trace), ctypes.byref(t))
            try:
                _lib.call("pp_battery_drain_trace", self, t, ctypes.byref(out))
            finally:
                _lib.lib().pp_trace_close(t)
        else:
            self._drain_frame(trace, out)
        d = {k: getattr(out, k) for k, _ in _lib.BatterySummary._fields_}
        d["brownout"] = bool(d["brownout"])
        d["time_to_cutoff_s"] = _none_if_nan(d["time_to_cutoff_s"])
        return d

    def _drain_frame(self, frame, out):
        import numpy as np
        cols = [str(c) for c in frame.columns]
        if not cols or cols[0] != "t_s":
            raise PowprofError("drain: a trace's first column is t_s (got %s)" %
                               (cols[0] if cols else "none"))
        rails = [c for c in cols[1:]]
        bad = [c for c in rails if not c.endswith("_w")]
        if bad or not rails:
            raise PowprofError("drain: power columns are named <rail>_w: %s" %
                               (", ".join(bad) if bad else "none given"))
        data = frame[["t_s"] + rails].dropna()  # gap rows: the readings missing
        t = np.ascontiguousarray(data["t_s"].to_numpy(dtype="float64"))
        p = np.ascontiguousarray(data[rails].to_numpy(dtype="float64"))
        trace = ctypes.c_void_p()
        _lib.call("pp_trace_new", len(rails), _lib.strings([r[:-2] for r in rails]), len(t),
                  t.ctypes.data_as(_lib._DS), p.ctypes.data_as(_lib._DS), ctypes.byref(trace),
                  stacklevel=4)
        try:
            _lib.call("pp_battery_drain_trace", self, trace, ctypes.byref(out),
                      stacklevel=4)
        finally:
            _lib.lib().pp_trace_close(trace)


def _seconds(value):
    """A mission's duration: seconds (a number), or a text the command line
    takes ("20min", "1h30m", "90"), read by the library's one parser."""
    if isinstance(value, (str, bytes)):
        out = ctypes.c_double()
        _lib.call("pp_mission_duration_parse", _lib.text(value, "mission: duration_s"),
                  ctypes.byref(out), stacklevel=4)
        return out.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("mission: duration_s: seconds (a number) or a duration text such as "
                        "\"20min\" or \"1h30m\" (got %r)" % (value,))
    return float(value)


def plan(model, battery, mission):
    """The best configuration battery carries through mission on model, as
    `powprof plan RESULTS ... --json` prints it, as a dict.

    mission: the duration in seconds; or a configuration file's path, whose
    mission group has phases (a configuration per phase: the document of
    `plan --mission FILE -c PACK --json`, with "phases" and a "timeline";
    battery is flown: a battery group in the file is not read, a warning
    says so; Battery(config=FILE) flies it); or a dict
    with duration_s (seconds, or a text as --mission-s takes it: "20min",
    "1h30m") or file, and optionally maximize (a parameter),
    min_soc_frac (the charge to keep; the battery's cutoff when not given)
    and plan_on_mean (plan with the prediction rather than its band's upper
    end). The battery's base power is the load beside the computer (a
    phase's own base load comes first)."""
    _lib.expect(model, "Model", "plan: model")
    _lib.expect(battery, "Battery", "plan: battery")
    if isinstance(mission, (int, float)) and not isinstance(mission, bool):
        mission = {"duration_s": mission}
    elif isinstance(mission, (str, bytes, os.PathLike)):
        mission = {"file": mission}
    if not isinstance(mission, dict):
        raise TypeError("mission: seconds, a mission file's path, or a dict with duration_s or "
                        "file")
    known = {"duration_s", "file", "maximize", "min_soc_frac", "plan_on_mean"}
    unknown = sorted(set(mission) - known)
    if unknown:
        raise TypeError("mission: unknown keys %s (known: %s)" %
                        (", ".join(unknown), ", ".join(sorted(known))))
    if ("duration_s" in mission) == ("file" in mission):
        raise TypeError("mission: duration_s or file (a mission in phases), one of them")
    maximize, min_soc = mission.get("maximize"), mission.get("min_soc_frac")
    m = _lib.Mission(_seconds(mission.get("duration_s", 0.0)),
                     None if maximize is None else _lib.text(maximize, "mission: maximize"),
                     -1.0 if min_soc is None else _lib.number(min_soc, "mission: min_soc_frac"),
                     1 if mission.get("plan_on_mean") else 0)  # the library checks the ranges
    ptr = ctypes.c_void_p()
    if "file" in mission:
        _lib.call("pp_mission_plan_file_json", model, battery,
                  _lib.path(mission["file"], "mission: file"), ctypes.byref(m), ctypes.byref(ptr))
    else:
        _lib.call("pp_mission_plan_json", model, battery, ctypes.byref(m),
                  ctypes.byref(ptr))
    return json.loads(_lib.take_text(ptr))


def _c_int(value, what):
    """value as a C int for the library, which checks its range: TypeError
    for what is not a whole number, ValueError past a C int (never wrapped)."""
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: a whole number, not %r" % (what, value))
    if not -2 ** 31 <= value < 2 ** 31:
        raise ValueError("%s %d: out of range" % (what, value))
    return int(value)


def fit_battery(logs, *, model=None, train_frac=None, train_s=None, instance=None, cells=None,
                ocv=None, config=None, preset=None, output=None, force=False):
    """The pack fitted to flight logs of one pack (PX4 .ulg, or ulog2csv's
    battery_status CSV; a path or a list of them), checked on the held-out
    part of each flight, as `powprof battery fit LOG... --json` prints it,
    as a dict: "pack" (capacity_ah, r_int_ohm, ... with their +-), the
    "flights" with their held-out figures beside the pack replaced, and
    "refused": why the pack is not to be written (None: it may be).

    The options are the command's (None: its default): model ("thevenin",
    "rint"), train_frac, train_s, instance, cells, ocv ("auto", "pack",
    "lipo", "liion"), config or preset (the pack replaced), output (write
    the fitted pack there as a battery group: PowprofError, with the
    command's reason, where the command refuses to, unless force)."""
    if isinstance(logs, (str, bytes, os.PathLike)):
        logs = [logs]
    arr = _lib.strings([os.fsencode(p) for p in logs], "fit_battery: log")
    q = _lib.BatteryFitRequest()
    _lib.call("pp_battery_fit_request_init", ctypes.byref(q))
    for key, value in (("model", model), ("ocv", ocv)):
        if value is not None:
            setattr(q, key, _lib.text(value, "fit_battery: " + key))
    for key, value in (("config", config), ("preset", preset), ("output", output)):
        if value is not None:
            setattr(q, key, _lib.path(value, "fit_battery: " + key))
    if train_frac is not None:
        q.train_frac = _lib.number(train_frac, "fit_battery: train_frac")
    if train_s is not None:
        q.train_s = _lib.number(train_s, "fit_battery: train_s")
    if instance is not None:
        q.instance = _c_int(instance, "fit_battery: instance")
    if cells is not None:
        q.cells = _c_int(cells, "fit_battery: cells")
    q.force = 1 if force else 0
    ptr = ctypes.c_void_p()
    _lib.call("pp_battery_fit_logs_json", arr, len(logs), ctypes.byref(q), ctypes.byref(ptr))
    return json.loads(_lib.take_text(ptr))


def ulog_info(path):
    """What a PX4 flight log (.ulg) holds before it is imported or fitted,
    as `powprof ulog info LOG --json` prints it, as a dict: file, version,
    messages, duration_s, topics (name, instance, messages, rate_hz,
    first_s, last_s: the log's timestamps, s) and batteries (instance,
    samples, duration_s, the voltage and current ranges, cell_count,
    capacity_mah). PowprofError, with the command's words, for what is not
    a ULog."""
    ptr = ctypes.c_void_p()
    _lib.call("pp_ulog_info_json", _lib.path(path, "ulog_info: path"), ctypes.byref(ptr))
    return json.loads(_lib.take_text(ptr))
