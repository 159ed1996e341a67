"""The energy of a command, or of a block of Python code, as `powprof
meter` measures it."""
import ctypes
import json

from . import _lib


def _document(name, *args):
    """The library's call name(*args, &text): the document of `powprof meter
    --json` as a dict."""
    ptr = ctypes.c_void_p()
    _lib.call(name, *args, ctypes.byref(ptr))
    return json.loads(_lib.take_text(ptr))


def _c(text, what, fs=False):
    if text is None:
        return None
    return _lib.path(text, what) if fs else _lib.text(text, what)


class Meter:
    """with powprof.meter() as m: ... -- the machine's power source sampled
    by the library's own thread while the block runs (the GIL is not
    needed); m.result is the dict of meter(cmd) (exit_status 0, command
    []) once the block has ended, and the same warnings are issued. It
    measures the machine, not only this process: what else runs is in the
    figures."""

    def __init__(self, device, rate_hz, trace, sysfs_root):
        self._args = (_c(device, "meter: device"), _c(sysfs_root, "meter: sysfs_root", True),
                      _lib.number(rate_hz, "meter: rate_hz"), _c(trace, "meter: trace", True))
        self._h = None
        self.result = None

    def __enter__(self):
        if self._h is not None:
            raise RuntimeError("meter: already measuring")
        handle = ctypes.c_void_p()
        _lib.call("pp_meter_start", *self._args, ctypes.byref(handle))
        self._h = handle
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        """End the measurement (the with block does): the result dict."""
        if self._h is None:
            return self.result
        handle, self._h = self._h, None
        self.result = _document("pp_meter_stop_json", handle)
        return self.result

    def __del__(self):
        try:
            if self._h is not None:
                _lib.lib().pp_meter_stop(self._h, ctypes.byref(_lib.MeterReport()))
        except Exception:  # noqa: BLE001
            pass


def meter(cmd=None, device="auto", rate_hz=10.0, trace=None, sysfs_root=None):
    """meter(cmd): run cmd (a list of arguments: a program and its
    arguments, never through a shell) while sampling device ("auto": the
    most direct power source of this machine; procstat, an estimate from
    CPU utilization, when there is no sensor) at rate_hz, the samples
    written to trace (a path) when given. A dict, the document of `powprof
    meter --json` (the same keys and values): command, device, estimated,
    exit_status, duration_s, samples, rails ([{name, mean_w, energy_j,
    min_w, max_w, estimated, board_input}]), total_mean_w, total_energy_j,
    saturated, short_run, trace, error, ... The warnings of `powprof meter`
    (an estimate, at its ceiling, too short to measure) are issued as
    PowprofWarning.

    meter() without cmd: a context manager measuring a block of code
    (with powprof.meter() as m: ...; then m.result)."""
    if cmd is None:
        return Meter(device, rate_hz, trace, sysfs_root)
    if isinstance(cmd, (str, bytes)):
        raise TypeError("meter: cmd is a list of arguments (no shell): [%r, ...]" % cmd)
    args = [_lib.path(a, "meter: cmd[%d]" % i) for i, a in enumerate(cmd)]
    if not args:
        raise ValueError("meter: no command")
    argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    return _document("pp_meter_command_json", _c(device, "meter: device"),
                     _c(sysfs_root, "meter: sysfs_root", True),
                     _lib.number(rate_hz, "meter: rate_hz"), _c(trace, "meter: trace", True), argv)
