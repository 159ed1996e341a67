"""The C library (libpowprof.so) through ctypes: where it is found, the
declarations of the functions the package calls, and one call wrapper that
turns the library's logged errors into Python exceptions.

ctypes and not cffi: it is in the standard library (nothing to install in a
venv or on a robot, no C parser run at import: `import powprof` stays under
50 ms), and the public API is plain C types behind opaque handles, which
ctypes declares in a few lines. The library is loaded on the first call,
not at import.
"""
import ctypes
import os
import threading
import warnings

class PowprofError(Exception):
    """An error of the C library: its message (file, line, value) and the
    negative errno it returned (errno holds the positive value)."""

    def __init__(self, message, errno=0):
        super().__init__(message)
        self.errno = errno


class PowprofWarning(UserWarning):
    """A warning of the C library (an estimate, not a measurement; a run
    too short to measure; an extrapolation)."""


class Estimate(ctypes.Structure):
    _fields_ = [("value", ctypes.c_double), ("lo", ctypes.c_double), ("hi", ctypes.c_double),
                ("typical_error_pct", ctypes.c_double), ("outside_measured", ctypes.c_int)]


class BatterySummary(ctypes.Structure):
    _fields_ = [("duration_s", ctypes.c_double), ("energy_j", ctypes.c_double),
                ("soc_start_frac", ctypes.c_double), ("soc_end_frac", ctypes.c_double),
                ("soc_drained_frac", ctypes.c_double), ("min_voltage_v", ctypes.c_double),
                ("time_to_cutoff_s", ctypes.c_double), ("brownout", ctypes.c_int)]


class Mission(ctypes.Structure):
    _fields_ = [("duration_s", ctypes.c_double), ("maximize", ctypes.c_char_p),
                ("min_soc_frac", ctypes.c_double), ("plan_on_mean", ctypes.c_int)]


class GovernorOptions(ctypes.Structure):
    _fields_ = [("mission_file", ctypes.c_char_p), ("duration_s", ctypes.c_double),
                ("maximize", ctypes.c_char_p), ("min_soc_frac", ctypes.c_double),
                ("plan_on_mean", ctypes.c_int), ("margin_frac", ctypes.c_double),
                ("ignore_soc", ctypes.c_int)]


class GovernorReading(ctypes.Structure):
    _fields_ = [("t_s", ctypes.c_double), ("soc_frac", ctypes.c_double),
                ("voltage_v", ctypes.c_double), ("current_a", ctypes.c_double),
                ("phase", ctypes.c_int)]


class GovernorDecision(ctypes.Structure):
    _fields_ = [("t_s", ctypes.c_double), ("phase", ctypes.c_size_t),
                ("phase_name", ctypes.c_char * 64), ("phase_left_s", ctypes.c_double),
                ("soc_frac", ctypes.c_double), ("soc_source", ctypes.c_char_p),
                ("settings", ctypes.c_char * 1024), ("value", ctypes.c_double),
                ("quality", ctypes.c_double), ("changed", ctypes.c_int),
                ("why", ctypes.c_char_p), ("feasible", ctypes.c_int),
                ("soc_end_frac", ctypes.c_double), ("reserve_t_s", ctypes.c_double)]


MAX_RAILS = 64  # PP_DEVICE_MAX_RAILS


class MeterReport(ctypes.Structure):
    _fields_ = [("exit_status", ctypes.c_int), ("duration_s", ctypes.c_double),
                ("source", ctypes.c_char * 32), ("n_samples", ctypes.c_size_t),
                ("n_rails", ctypes.c_size_t), ("rail", (ctypes.c_char * 64) * MAX_RAILS),
                ("rail_mean_w", ctypes.c_double * MAX_RAILS),
                ("rail_energy_j", ctypes.c_double * MAX_RAILS), ("mean_w", ctypes.c_double),
                ("energy_j", ctypes.c_double), ("estimated", ctypes.c_int),
                ("saturated", ctypes.c_int), ("ceiling_w", ctypes.c_double),
                ("short_run", ctypes.c_int)]


_P = ctypes.c_void_p
_S = ctypes.c_char_p
_SZ = ctypes.c_size_t
_D = ctypes.c_double
_INT = ctypes.c_int
_STRS = ctypes.POINTER(ctypes.c_char_p)
_DS = ctypes.POINTER(ctypes.c_double)

# name: (restype, argtypes)
_DECLS = {
    "pp_log_set_sink": (None, [_P, _P]),
    "pp_log_set_level": (None, [_INT]),
    "pp_free": (None, [_P]),
    "pp_model_load": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_model_close": (None, [_P]),
    "pp_model_param_count": (_SZ, [_P]),
    "pp_model_param_name": (_S, [_P, _SZ]),
    "pp_model_metric_count": (_SZ, [_P]),
    "pp_model_metric_name": (_S, [_P, _SZ]),
    "pp_model_estimate_at": (_INT, [_P, _S, _SZ, _STRS, _STRS, ctypes.POINTER(Estimate)]),
    "pp_model_estimate_rows": (_INT, [_P, _SZ, _STRS, _SZ, _STRS, _SZ, _STRS,
                                      ctypes.POINTER(Estimate)]),
    "pp_model_json": (_INT, [_P, ctypes.POINTER(_P)]),
    "pp_battery_new": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_battery_free": (None, [_P]),
    "pp_battery_set_base_power": (_INT, [_P, _D]),
    "pp_battery_drain": (_INT, [_P, _DS, _DS, _SZ, ctypes.POINTER(BatterySummary)]),
    "pp_battery_drain_trace": (_INT, [_P, _P, ctypes.POINTER(BatterySummary)]),
    "pp_trace_new": (_INT, [_SZ, _STRS, _SZ, _DS, _DS, ctypes.POINTER(_P)]),
    "pp_trace_open": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_trace_close": (None, [_P]),
    "pp_mission_duration_parse": (_INT, [_S, _DS]),
    "pp_mission_plan_json": (_INT, [_P, _P, ctypes.POINTER(Mission), ctypes.POINTER(_P)]),
    "pp_mission_plan_file_json": (_INT, [_P, _P, _S, ctypes.POINTER(Mission),
                                         ctypes.POINTER(_P)]),
    "pp_governor_options_init": (None, [ctypes.POINTER(GovernorOptions)]),
    "pp_governor_new": (_INT, [_P, _P, ctypes.POINTER(GovernorOptions), ctypes.POINTER(_P)]),
    "pp_governor_update": (_INT, [_P, ctypes.POINTER(GovernorReading),
                                  ctypes.POINTER(GovernorDecision)]),
    "pp_governor_free": (None, [_P]),
    "pp_meter_command": (_INT, [_S, _S, _D, _S, _STRS, ctypes.POINTER(MeterReport)]),
    "pp_meter_start": (_INT, [_S, _S, _D, _S, ctypes.POINTER(_P)]),
    "pp_meter_stop": (_INT, [_P, ctypes.POINTER(MeterReport)]),
}

_SINK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_lock = threading.RLock()
_state = {"lib": None, "messages": []}


def _sink(level, msg, _ctx):
    """Every message of the library, on whatever thread logged it (the
    sampler's too): kept for the call that runs now."""
    try:
        _state["messages"].append((level, msg.decode("utf-8", "replace")))
    except Exception:  # noqa: BLE001 - never raise into C
        pass


_SINK = _SINK_TYPE(_sink)


def candidates():
    """Where libpowprof.so.0 is looked for, in order: $POWPROF_LIB, the
    build tree this package sits in (python/ beside build/), the prefix
    `make install-python` recorded, then the dynamic loader's path."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    if os.environ.get("POWPROF_LIB"):
        out.append(os.environ["POWPROF_LIB"])
    out.append(os.path.join(here, "..", "..", "build", "libpowprof.so.0"))
    try:
        from ._libdir import LIBDIR  # written by make install-python
        out.append(os.path.join(LIBDIR, "libpowprof.so.0"))
    except ImportError:
        pass
    out.append("libpowprof.so.0")
    return out


def _load():
    tried = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    else:
        raise PowprofError("libpowprof.so.0 not found: tried " + "; ".join(tried) +
                           ". Build it (make), install it (make install), or set POWPROF_LIB "
                           "to its path.")
    for name, (restype, argtypes) in _DECLS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    lib.pp_log_set_sink(ctypes.cast(_SINK, _P), None)
    return lib


def lib():
    """The library, loaded on the first call."""
    if _state["lib"] is None:
        with _lock:
            if _state["lib"] is None:
                _state["lib"] = _load()
    return _state["lib"]


def call(name, *args, stacklevel=3):
    """lib().name(*args) with its messages: warnings become PowprofWarning,
    information goes to the "powprof" logger, and a negative return raises
    PowprofError with the errors the call logged. Calls are serialized (the
    library's log sink is one)."""
    fn = getattr(lib(), name)
    with _lock:  # messages logged between calls (a sampler's) are this call's too
        rc = fn(*args)
        messages = _state["messages"]
        _state["messages"] = []
    errors = [m for lvl, m in messages if lvl == 0]
    for lvl, m in messages:
        if lvl == 1:
            warnings.warn(m, PowprofWarning, stacklevel=stacklevel)
        elif lvl >= 2:
            import logging  # only when there is something to say: it costs 20 ms to import
            logging.getLogger("powprof").log(logging.INFO if lvl == 2 else logging.DEBUG, "%s", m)
    if isinstance(rc, int) and rc < 0:
        text = "; ".join(errors) if errors else os.strerror(-rc)
        raise PowprofError(text, -rc)
    return rc


def strings(values):
    """values as a ctypes array of C strings (the bytes kept alive by the array)."""
    arr = (ctypes.c_char_p * max(len(values), 1))()
    arr[:len(values)] = [v if isinstance(v, bytes) else str(v).encode() for v in values]
    return arr


def take_text(ptr):
    """A text the library allocated, as str, freed."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        lib().pp_free(ptr)


class Handle:
    """An object that owns a library handle (self._h), freed by _free (the
    name of the library's function) on close(), at the end of a with
    block, or when collected."""

    _free = None
    _h = None

    def _what(self):
        return type(self).__name__

    def _handle(self):
        if self._h is None:
            raise PowprofError("%s: closed" % self._what())
        return self._h

    def close(self):
        if self._h is not None:
            getattr(lib(), self._free)(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
