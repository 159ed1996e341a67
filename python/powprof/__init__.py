"""powprof from Python: results folders as pandas tables, the layer-2
model's predictions, a modelled battery, mission plans and the energy of a
command, through the C library libpowprof.so (ctypes).

    import powprof
    r = powprof.Results("results/mine")        # .summary, .trace(id), .run
    m = powprof.Model("results/mine")          # .predict(df), .errors
    b = powprof.Battery(preset="drone-4s-3200", base_power_w=60)
    powprof.plan(m, b, {"duration_s": 1200, "maximize": "gzip.level"})
    powprof.meter(["gzip", "-9", "big.tar"])   # energy, with meter's warnings

Nothing heavy is loaded by the import: pandas and numpy when a call
returns a table, the library on the first call, BLAS/LAPACK when layer 2
first needs them.
"""
from ._lib import PowprofError, PowprofWarning
from .battery import Battery, plan
from .meter import meter
from .model import Model
from .results import Results

__version__ = "0.1.0"
__all__ = ["Results", "Model", "Battery", "plan", "meter", "PowprofError", "PowprofWarning"]
