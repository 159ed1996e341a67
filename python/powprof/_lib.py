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
import math
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
    _c_name_ = "pp_model_estimate"
    _fields_ = [("value", ctypes.c_double), ("lo", ctypes.c_double), ("hi", ctypes.c_double),
                ("typical_error_pct", ctypes.c_double), ("outside_measured", ctypes.c_int),
                ("beyond_measured", ctypes.c_int)]


ESTIMATE_EXTRAPOLATE = 1  # PP_ESTIMATE_EXTRAPOLATE


class BatterySummary(ctypes.Structure):
    _c_name_ = "pp_battery_summary"
    _fields_ = [("duration_s", ctypes.c_double), ("energy_j", ctypes.c_double),
                ("soc_start_frac", ctypes.c_double), ("soc_end_frac", ctypes.c_double),
                ("soc_drained_frac", ctypes.c_double), ("min_voltage_v", ctypes.c_double),
                ("time_to_cutoff_s", ctypes.c_double), ("brownout", ctypes.c_int)]


class Mission(ctypes.Structure):
    _c_name_ = "pp_mission"
    _fields_ = [("duration_s", ctypes.c_double), ("maximize", ctypes.c_char_p),
                ("min_soc_frac", ctypes.c_double), ("plan_on_mean", ctypes.c_int)]


class GovernorOptions(ctypes.Structure):
    _c_name_ = "pp_governor_options"
    _fields_ = [("mission_file", ctypes.c_char_p), ("duration_s", ctypes.c_double),
                ("maximize", ctypes.c_char_p), ("min_soc_frac", ctypes.c_double),
                ("plan_on_mean", ctypes.c_int), ("margin_frac", ctypes.c_double),
                ("ignore_soc", ctypes.c_int), ("every_s", ctypes.c_double),
                ("resolution", ctypes.c_char_p)]


class GovernorReading(ctypes.Structure):
    _c_name_ = "pp_governor_reading"
    _fields_ = [("t_s", ctypes.c_double), ("soc_frac", ctypes.c_double),
                ("voltage_v", ctypes.c_double), ("current_a", ctypes.c_double),
                ("phase", ctypes.c_int)]


class GovernorDecision(ctypes.Structure):
    _c_name_ = "pp_governor_decision"
    _fields_ = [("t_s", ctypes.c_double), ("phase", ctypes.c_size_t),
                ("phase_name", ctypes.c_char * 64), ("phase_left_s", ctypes.c_double),
                ("soc_frac", ctypes.c_double), ("soc_source", ctypes.c_char_p),
                ("settings", ctypes.c_char * 1024), ("value", ctypes.c_double),
                ("quality", ctypes.c_double), ("changed", ctypes.c_int),
                ("why", ctypes.c_char_p), ("feasible", ctypes.c_int),
                ("soc_end_frac", ctypes.c_double), ("reserve_t_s", ctypes.c_double)]


MAX_RAILS = 64  # PP_DEVICE_MAX_RAILS


class MeterReport(ctypes.Structure):
    _c_name_ = "pp_meter_report"
    _fields_ = [("exit_status", ctypes.c_int), ("duration_s", ctypes.c_double),
                ("source", ctypes.c_char * 32), ("n_samples", ctypes.c_size_t),
                ("n_rails", ctypes.c_size_t), ("rail", (ctypes.c_char * 64) * MAX_RAILS),
                ("rail_mean_w", ctypes.c_double * MAX_RAILS),
                ("rail_energy_j", ctypes.c_double * MAX_RAILS), ("mean_w", ctypes.c_double),
                ("energy_j", ctypes.c_double), ("estimated", ctypes.c_int),
                ("saturated", ctypes.c_int), ("ceiling_w", ctypes.c_double),
                ("short_run", ctypes.c_int)]


class BatteryFitRequest(ctypes.Structure):
    _fields_ = [("model", ctypes.c_char_p), ("train_frac", ctypes.c_double),
                ("train_s", ctypes.c_double), ("instance", ctypes.c_int),
                ("cells", ctypes.c_int), ("ocv", ctypes.c_char_p), ("config", ctypes.c_char_p),
                ("preset", ctypes.c_char_p), ("output", ctypes.c_char_p),
                ("force", ctypes.c_int)]


class _Kind:
    """A handle parameter of a declaration: the Handle subclass (by name)
    whose objects it takes. call() checks it and keeps the handle open
    for the call; ctypes is given a void pointer."""

    def __init__(self, name):
        self.name = name


MODEL, BATTERY, GOVERNOR = _Kind("Model"), _Kind("Battery"), _Kind("Governor")
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
    "pp_struct_size": (_SZ, [_S]),
    "pp_model_open": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_model_close": (None, [_P]),
    "pp_model_param_count": (_SZ, [_P]),
    "pp_model_param_name": (_S, [_P, _SZ]),
    "pp_model_metric_count": (_SZ, [_P]),
    "pp_model_metric_name": (_S, [_P, _SZ]),
    "pp_model_estimate_at": (_INT, [MODEL, _S, _SZ, _STRS, _STRS, ctypes.c_uint,
                                    ctypes.POINTER(Estimate)]),
    "pp_model_estimate_rows": (_INT, [MODEL, _SZ, _STRS, _SZ, _STRS, _SZ, _STRS, ctypes.c_uint,
                                      ctypes.POINTER(Estimate)]),
    "pp_model_json": (_INT, [MODEL, ctypes.POINTER(_P)]),
    "pp_model_predict_json": (_INT, [MODEL, _SZ, _STRS, _STRS, ctypes.c_uint,
                                     ctypes.POINTER(_P)]),
    "pp_battery_new": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_battery_close": (None, [_P]),
    "pp_battery_set_base_power": (_INT, [BATTERY, _D]),
    "pp_battery_drain": (_INT, [BATTERY, _DS, _DS, _SZ, ctypes.POINTER(BatterySummary)]),
    "pp_battery_drain_trace": (_INT, [BATTERY, _P, ctypes.POINTER(BatterySummary)]),
    "pp_battery_fit_request_init": (None, [ctypes.POINTER(BatteryFitRequest)]),
    "pp_battery_fit_logs_json": (_INT, [_STRS, _SZ, ctypes.POINTER(BatteryFitRequest),
                                        ctypes.POINTER(_P)]),
    "pp_ulog_info_json": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_trace_new": (_INT, [_SZ, _STRS, _SZ, _DS, _DS, ctypes.POINTER(_P)]),
    "pp_trace_open": (_INT, [_S, ctypes.POINTER(_P)]),
    "pp_trace_close": (None, [_P]),
    "pp_mission_duration_parse": (_INT, [_S, _DS]),
    "pp_mission_plan_json": (_INT, [MODEL, BATTERY, ctypes.POINTER(Mission), ctypes.POINTER(_P)]),
    "pp_mission_plan_file_json": (_INT, [MODEL, BATTERY, _S, ctypes.POINTER(Mission),
                                         ctypes.POINTER(_P)]),
    "pp_governor_options_init": (None, [ctypes.POINTER(GovernorOptions)]),
    "pp_governor_new": (_INT, [MODEL, BATTERY, ctypes.POINTER(GovernorOptions),
                               ctypes.POINTER(_P)]),
    "pp_governor_update": (_INT, [GOVERNOR, ctypes.POINTER(GovernorReading),
                                  ctypes.POINTER(GovernorDecision)]),
    "pp_governor_update_json": (_INT, [GOVERNOR, ctypes.POINTER(GovernorReading),
                                        ctypes.POINTER(_P)]),
    "pp_governor_simulate_json": (_INT, [GOVERNOR, _S, _D, _D, ctypes.POINTER(_P)]),
    "pp_governor_close": (None, [_P]),
    "pp_meter_command": (_INT, [_S, _S, _D, _S, _STRS, ctypes.POINTER(MeterReport)]),
    "pp_meter_start": (_INT, [_S, _S, _D, _S, ctypes.POINTER(_P)]),
    "pp_meter_stop": (_INT, [_P, ctypes.POINTER(MeterReport)]),
    "pp_meter_command_json": (_INT, [_S, _S, _D, _S, _STRS, ctypes.POINTER(_P)]),
    "pp_meter_stop_json": (_INT, [_P, ctypes.POINTER(_P)]),
}

_SINK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_lock = threading.Lock()  # the loading of the library, the messages of no call
_state = {"lib": None, "foreign": []}
_tls = threading.local()  # .messages: the call this thread is in, its messages
# The calls that take the messages logged on threads in no call (a meter's
# sampler: while pp_meter_command runs, or between pp_meter_start and _stop).
# pp_meter_command signals the one command it runs (a process-wide state):
# one at a time.
_FOREIGN = {"pp_meter_command", "pp_meter_start", "pp_meter_stop", "pp_meter_command_json",
            "pp_meter_stop_json"}
_meter_lock = threading.Lock()


def _sink(level, msg, _ctx):
    """Every message of the library, on the thread that logged it: the
    call this thread is in gets it; a thread in no call (a sampler's)
    leaves it to the next meter call."""
    try:
        item = (level, msg.decode("utf-8", "replace"))
        mine = getattr(_tls, "messages", None)
        if mine is not None:
            mine.append(item)
        else:
            with _lock:
                _state["foreign"].append(item)
    except Exception:  # noqa: BLE001 - never raise into C
        pass


def _run(name, fn, c_args):
    """fn(*c_args) and the messages it logged (on this thread; for a meter
    call, a sampler's too). No lock is held across calls: a predict runs
    while another thread meters a command."""
    _tls.messages = []
    try:
        if name in ("pp_meter_command", "pp_meter_command_json"):
            with _meter_lock:
                rc = fn(*c_args)
        else:
            rc = fn(*c_args)
    finally:
        messages, _tls.messages = _tls.messages, None
    if name in _FOREIGN:
        with _lock:
            messages[:0], _state["foreign"] = _state["foreign"], []
    return rc, messages


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
        fn.argtypes = [_P if isinstance(t, _Kind) else t for t in argtypes]
    check_sizes(lib, path)
    lib.pp_log_set_sink(ctypes.cast(_SINK, _P), None)
    return lib


_LAID_OUT = (Estimate, BatterySummary, Mission, GovernorOptions, GovernorReading,
             GovernorDecision, MeterReport)


def check_sizes(lib, path, classes=_LAID_OUT):
    """Each struct this package lays out (classes) the size the library
    was built with (pp_struct_size), else PowprofError: a package and a
    library of two releases would read past a struct's end."""
    for cls in classes:
        c = lib.pp_struct_size(cls._c_name_.encode())
        if c != ctypes.sizeof(cls):
            raise PowprofError("%s: struct %s is %d bytes there and %d in this package: the "
                               "library and the package are of two releases (install them "
                               "together)" % (path, cls._c_name_, c, ctypes.sizeof(cls)))


def lib():
    """The library, loaded on the first call."""
    if _state["lib"] is None:
        with _lock:
            if _state["lib"] is None:
                _state["lib"] = _load()
    return _state["lib"]


def expect(obj, kind, what):
    """obj, if it is a powprof.<kind> (a Handle subclass's name, or a
    subclass of it); else TypeError naming what."""
    if not isinstance(obj, Handle) or all(c.__name__ != kind for c in type(obj).__mro__):
        raise TypeError("%s: a powprof.%s expected, not %r" % (what, kind, obj))
    return obj


def _enter_handles(name, args, entered):
    """args with each Handle of a handle parameter (a _Kind) checked for
    its kind and replaced by its C handle, kept open (entered, with what it
    reads, into entered) until the call returns. A raw pointer (the
    package's own, e.g. a trace) passes as it is."""
    out = list(args)
    for i, (a, t) in enumerate(zip(args, _DECLS[name][1])):
        if not isinstance(t, _Kind) or isinstance(a, ctypes.c_void_p):
            continue
        expect(a, t.name, "%s: argument %d" % (name, i + 1))
        for h in (a,) + tuple(a._deps):
            ptr = h._enter()
            entered.append(h)
            if h is a:
                out[i] = ptr
    return out


def call(name, *args, stacklevel=3):
    """lib().name(*args) with its messages: warnings become PowprofWarning,
    information goes to the "powprof" logger, and a negative return raises
    PowprofError with the errors the call logged. A handle argument is
    checked for its kind, used by one call at a time, and cannot be closed
    until the call returns; calls on other handles run at the same time
    (include/powprof/*.h say what may)."""
    fn = getattr(lib(), name)
    entered = []
    try:
        c_args = _enter_handles(name, args, entered)
        rc, messages = _run(name, fn, c_args)
    finally:
        for h in reversed(entered):
            h._leave()
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


def text(value, what):
    """value (str, or bytes as they are) as a C string: ValueError when it
    holds a NUL, which C would read as its end ("tx2\\0x" as "tx2")."""
    b = value if isinstance(value, bytes) else str(value).encode()
    if b"\0" in b:
        raise ValueError("%s: %r holds a NUL character" % (what, value))
    return b


def number(value, what):
    """value as a float for the library, which checks its range (NaN
    included): TypeError for what is not a number (a bool, a text)."""
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: a number, not %r" % (what, value))
    try:
        return float(value)
    except OverflowError:  # an int past a double's range: the library refuses inf
        return math.inf if value > 0 else -math.inf


def path(value, what):
    """A path (str, bytes or os.PathLike) as a C string, checked as text()."""
    return text(os.fsencode(value), what)


def strings(values, what="a name or value"):
    """values as a ctypes array of C strings (the bytes kept alive by the
    array), each checked as text()."""
    arr = (ctypes.c_char_p * max(len(values), 1))()
    arr[:len(values)] = [text(v, what) for v in values]
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
    block, or when collected. A call given the object (call() enters it)
    keeps the handle open: close() on another thread waits for the calls
    in flight to return, and the calls after it raise "closed". One call
    at a time uses a handle (the library's contract: include/powprof/*.h);
    calls on other handles run meanwhile. _deps: the handles the C object
    reads (a governor's model), entered with it."""

    _free = None
    _h = None
    _deps = ()

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._cond = threading.Condition(threading.Lock())
        self._users = 0
        self._busy = threading.RLock()  # held by the call that uses the handle
        return self

    def _what(self):
        return type(self).__name__

    def _handle(self):
        if self._h is None:
            raise PowprofError("%s: closed" % self._what())
        return self._h

    def _enter(self):
        """The C handle, this thread's and kept open until _leave()."""
        self._busy.acquire()
        try:
            with self._cond:
                h = self._handle()
                self._users += 1
                return h
        except BaseException:
            self._busy.release()
            raise

    def _leave(self):
        with self._cond:
            self._users -= 1
            if not self._users:
                self._cond.notify_all()
        self._busy.release()

    def close(self):
        """Free the handle, once the calls in flight on it have returned."""
        cond = self.__dict__.get("_cond")
        if cond is None:  # __init__ never ran
            return
        with cond:
            h, self._h = self._h, None
            while self._users:
                cond.wait()
        if h is not None:
            getattr(lib(), self._free)(h)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
