"""The in-flight governor (`powprof govern`, the C library's pp_governor):
at each reading of the battery the rest of the mission is planned again
from the charge actually left, and the setting to run now is said."""
import ctypes
import json
import math
import os

from . import _lib
from ._lib import PowprofError


def _nan_if_none(v, what):
    if v is None:
        return math.nan
    if isinstance(v, bool):
        raise TypeError("%s: a number, not %r" % (what, v))
    return float(v)


class Governor(_lib.Handle):
    """Governor(model, battery, mission=None, *, duration_s=None,
    min_soc=None, plan_on_mean=False, margin=None, ignore_soc=False,
    maximize=None): the governor of a mission flown with battery (copied;
    its charge at take-off and its base power) on model (kept: close the
    governor before the model).

    mission: a configuration file's path whose mission group has phases
    (its battery group is not read: battery is flown), or None and
    duration_s, one phase of that many seconds whose base load is the
    battery's base power. min_soc: the reserve, a fraction in [0, 1) (None:
    the mission's, else the pack's cutoff; 20 for 0.2 is refused by the
    library, as a percentage for soc in update is); plan_on_mean: plan with the prediction, not its
    band's upper end; margin: a held plan gives way to one better by more
    than this fraction (None: 0.02); ignore_soc: estimate the charge from
    voltage and current only; maximize: the parameter (None: the
    mission's, else the first *fps one); every: a decision per this many
    seconds of the readings' time, the updates between feeding the
    estimate ("decided" False; None: each update decides); resolution:
    {name: step or "measured"} (or "name=step ..."), the settings a
    parameter may take, as plan's --resolution."""

    _free = "pp_governor_close"

    def __init__(self, model, battery, mission=None, *, duration_s=None, min_soc=None,
                 plan_on_mean=False, margin=None, ignore_soc=False, maximize=None, every=None,
                 resolution=None):
        if isinstance(mission, (int, float)) and not isinstance(mission, bool):
            mission, duration_s = None, mission
        if (mission is None) == (duration_s is None):
            raise TypeError("Governor: mission (a file in phases) or duration_s, one of them")
        o = _lib.GovernorOptions()
        _lib.lib().pp_governor_options_init(ctypes.byref(o))
        # the texts are kept alive with the governor (the options point at them)
        if isinstance(resolution, dict):
            resolution = " ".join("%s=%s" % kv for kv in resolution.items())
        self._texts = [None if mission is None else os.fsencode(mission),
                       None if maximize is None else str(maximize).encode(),
                       None if resolution is None else str(resolution).encode()]
        o.mission_file, o.maximize, o.resolution = self._texts
        if every is not None:
            o.every_s = _nan_if_none(every, "every")
        o.duration_s = 0.0 if duration_s is None else _nan_if_none(duration_s, "duration_s")
        if min_soc is not None:
            o.min_soc_frac = _nan_if_none(min_soc, "min_soc")
        if margin is not None:
            o.margin_frac = _nan_if_none(margin, "margin")
        o.plan_on_mean = 1 if plan_on_mean else 0
        o.ignore_soc = 1 if ignore_soc else 0
        self._model = model  # the C governor reads it: it must outlive the governor
        self._deps = (model,)  # kept open during each call on the governor
        handle = ctypes.c_void_p()
        _lib.call("pp_governor_new", model, battery, ctypes.byref(o),
                  ctypes.byref(handle))
        self._h = handle
        self.mission = mission if mission is not None else duration_s

    def __repr__(self):
        return "powprof.Governor(%r, %r)" % (self._model, self.mission)

    def update(self, t_s, soc=None, voltage=None, current=None, phase=None):
        """One reading (seconds since take-off, never before the last
        update's; the state of charge as a fraction, the terminal voltage,
        the current, discharge positive: None where not measured; phase:
        None by the clock, k when phase k is flown: begun, or run long past
        its planned end) into a decision: the library's one decision
        document as a dict, the keys `powprof govern` prints (t_s, decided,
        phase (its name), phase_index, phase_left_s, phase_overrun_s,
        overrun_assumed_s, soc_measured, soc, soc_sd, soc_source (measured, ekf,
        coulomb or plan), soc_held, setting ({parameter: value}),
        maximized, value, quality, power_w, planned_w, measured, changed,
        replanned, why, feasible, soc_end, plan_quality, new_soc_end,
        new_plan_quality, reserve_t_s, base_factor, plan). NaN is None. A
        reading out of range (a percentage for soc among them) raises
        PowprofError and changes nothing."""
        if self._model._h is None:
            raise PowprofError("Governor: its model %r is closed" % self._model)
        if phase is not None and (isinstance(phase, bool) or not isinstance(phase, (int, float))
                                  or not math.isfinite(phase) or int(phase) != phase
                                  or not 0 <= phase < 2 ** 31):  # a C int: never truncated
            raise ValueError("phase: an index >= 0 or None, not %r" % (phase,))
        r = _lib.GovernorReading(_nan_if_none(t_s, "t_s"), _nan_if_none(soc, "soc"),
                                 _nan_if_none(voltage, "voltage"),
                                 _nan_if_none(current, "current"),
                                 -1 if phase is None else int(phase))
        text = ctypes.c_void_p()
        _lib.call("pp_governor_update_json", self, ctypes.byref(r), ctypes.byref(text))
        return json.loads(_lib.take_text(text))

    def simulate(self, actual="planned", scale_after=None):
        """The mission flown in virtual time, as `powprof govern RESULTS
        --mission FILE --simulate ACTUAL --json` prints it (the library's one
        document): static, governed and oracle runs against actual
        ("planned", a power trace, or a flight log whose fitted pack is
        flown); scale_after (t_s, factor): the load times factor from t_s on.
        The governor's own updates are not touched."""
        if self._model._h is None:
            raise PowprofError("Governor: its model %r is closed" % self._model)
        t, f = (0.0, 1.0) if scale_after is None else scale_after
        text = ctypes.c_void_p()
        _lib.call("pp_governor_simulate_json", self, _lib.path(actual, "simulate: actual"),
                  _nan_if_none(t, "scale_after"), _nan_if_none(f, "scale_after"),
                  ctypes.byref(text))
        return json.loads(_lib.take_text(text))
