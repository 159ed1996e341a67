"""powprof from Python: results folders as pandas tables, the layer-2
model's predictions, a modelled battery, mission plans and the energy of a
command, through the C library libpowprof.so (ctypes).

    import powprof
    r = powprof.Results("results/mine")        # .summary, .trace(id), .run
    m = powprof.Model("results/mine")          # .predict(df), .predict_long(df), .errors
    b = powprof.Battery(preset="drone-4s-3200", base_power_w=60)
    p = powprof.plan(m, b, {"duration_s": 1200, "maximize": "gzip.level"})
    powprof.plan_frame(p)                      # its choices as a DataFrame
    g = powprof.Governor(m, b, duration_s=1200)
    g.update(60, soc=0.93)                     # the setting to run now (govern)
    powprof.meter(["gzip", "-9", "big.tar"])   # energy, with meter's warnings
    powprof.fit_battery("flight.ulg")          # the pack fitted to a log (battery fit)

Nothing is loaded by the import itself: each name's module (and ctypes)
when the name is first used, the library on the first call, pandas and
numpy when a call returns a table, BLAS/LAPACK when layer 2 first needs
them (as in the CLI).
"""
__version__ = "0.1.0"
__all__ = ["Results", "Model", "Battery", "plan", "plan_frame", "Governor", "meter", "fit_battery",
           "ulog_info", "PowprofError", "PowprofWarning"]

_WHERE = {"Results": "results", "Model": "model", "Battery": "battery", "plan": "battery",
          "fit_battery": "battery", "ulog_info": "battery",
          "plan_frame": "model",
          "Governor": "governor", "meter": "meter", "PowprofError": "_lib",
          "PowprofWarning": "_lib"}


def __getattr__(name):
    """A public name, its module imported on first use (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError("module 'powprof' has no attribute %r" % name)
    import importlib
    value = getattr(importlib.import_module("." + _WHERE[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
