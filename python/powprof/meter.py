"""The energy of a command, as `powprof meter` measures it."""
import ctypes
import math
import os

from . import _lib


def meter(cmd, device="auto", rate_hz=10.0, trace=None, sysfs_root=None):
    """Run cmd (a list of arguments: a program and its arguments, never
    through a shell) while sampling device ("auto": the most direct power
    source of this machine; procstat, an estimate from CPU utilization, when
    there is no sensor) at rate_hz, the samples written to trace (a path)
    when given. A dict: exit_status, duration_s, source, samples, energy_j,
    mean_w, rails ({name: {mean_w, energy_j}}), estimated, saturated,
    ceiling_w, short_run. The warnings of `powprof meter` (an estimate, at
    its ceiling, too short to measure) are issued as PowprofWarning."""
    if isinstance(cmd, (str, bytes)):
        raise TypeError("meter: cmd is a list of arguments (no shell): [%r, ...]" % cmd)
    args = [os.fsencode(a) for a in cmd]
    if not args:
        raise ValueError("meter: no command")
    argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    out = _lib.MeterReport()
    _lib.call("pp_meter_command", None if device is None else str(device).encode(),
              None if sysfs_root is None else os.fsencode(sysfs_root), float(rate_hz),
              None if trace is None else os.fsencode(trace), argv, ctypes.byref(out))
    rails = {out.rail[r].value.decode(): {"mean_w": out.rail_mean_w[r],
                                          "energy_j": out.rail_energy_j[r]}
             for r in range(out.n_rails)}
    return {"exit_status": out.exit_status, "duration_s": out.duration_s,
            "source": out.source.decode(), "samples": out.n_samples, "energy_j": out.energy_j,
            "mean_w": out.mean_w, "rails": rails, "estimated": bool(out.estimated),
            "saturated": bool(out.saturated),
            "ceiling_w": None if math.isnan(out.ceiling_w) else out.ceiling_w,
            "short_run": bool(out.short_run)}
