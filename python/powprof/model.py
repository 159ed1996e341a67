"""A results folder's layer-2 model (the C library's pp_model): every
metric predicted at any configuration with its 90 % band, for one setting
or a whole DataFrame of settings in one library call."""
import ctypes
import json
import os

from . import _lib
from ._lib import PowprofError


def _text_of(value):
    """A parameter's value as the library reads it: a number that
    round-trips, or a label."""
    if isinstance(value, bool):
        raise TypeError("a parameter's value: a number or a label, not %r" % value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _flags(extrapolate):
    return _lib.ESTIMATE_EXTRAPOLATE if extrapolate else 0


class _Cells:
    """The cells of a table as NUL-terminated strings in one numpy buffer,
    and an array of pointers into it, row-major (what
    pp_model_estimate_rows reads); kept alive together."""

    def __init__(self, buf, ptrs):
        self.buf, self.ptrs = buf, ptrs
        self._as_parameter_ = ctypes.cast(ptrs.ctypes.data, _lib._STRS)


def _cells(frame):
    """frame's cells as text, vectorized: numbers in the shortest form that
    reads back the same double (numpy's float to str), labels as they are."""
    import numpy as np
    import pandas as pd
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        return []
    dup = frame.columns[frame.columns.duplicated()]
    if len(dup):
        raise ValueError("predict: column %s given twice" % dup[0])
    cols = []
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_bool_dtype(col.dtype):
            raise TypeError("%s: a parameter's value is a number or a label, not a bool" % c)
        cols.append(col.to_numpy().astype(str))
    text = np.char.encode(np.stack(cols, axis=1), "utf-8")
    size = text.dtype.itemsize
    raw = np.ascontiguousarray(text).view(np.uint8).reshape(text.size, size)
    nul = ((raw == 0) & (np.arange(size) < np.char.str_len(text).reshape(-1, 1))).any(axis=1)
    if nul.any():  # a NUL before the text's end (numpy's own pad is after it)
        r, c = divmod(int(nul.nonzero()[0][0]), text.shape[1])
        raise ValueError("predict: row %d (from 0), column %s: %r holds a NUL character" %
                         (r, frame.columns[c], frame.iat[r, c]))
    buf = np.ascontiguousarray(text.astype("S%d" % (text.dtype.itemsize + 1)))  # a NUL each
    ptrs = (buf.ctypes.data + buf.dtype.itemsize * np.arange(buf.size, dtype=np.uint64)).astype(
        np.uint64)
    return _Cells(buf, ptrs)


class Model(_lib.Handle):
    """Model(path): the model `powprof model` builds (read from
    path/model.json when it was built for this summary.csv, otherwise
    built now). Close it with .close() or a with block (the garbage
    collector closes it otherwise)."""

    _free = "pp_model_close"

    def __init__(self, path):
        self.path = os.fsdecode(os.fspath(path))
        handle = ctypes.c_void_p()
        _lib.call("pp_model_open", _lib.path(path, "Model: path"), ctypes.byref(handle))
        self._h = handle
        lib = _lib.lib()
        self.params = [lib.pp_model_param_name(handle, k).decode()
                       for k in range(lib.pp_model_param_count(handle))]
        self.metrics = [lib.pp_model_metric_name(handle, k).decode()
                        for k in range(lib.pp_model_metric_count(handle))]

    def __repr__(self):
        return "powprof.Model(%r)" % self.path

    def _what(self):
        return "%s: the model" % self.path

    def _metric_list(self, metrics):
        if metrics is None:
            return list(self.metrics)
        if isinstance(metrics, str):
            return [metrics]
        return list(metrics)

    def estimate(self, metric, extrapolate=False, **params):
        """One metric at one configuration, without pandas: (value, lo, hi,
        typical_error_pct, outside_measured). Refused beyond ten times what
        was measured unless extrapolate (as predict)."""
        names = list(params)
        out = _lib.Estimate()
        _lib.call("pp_model_estimate_at", self, _lib.text(metric, "metric"), len(names),
                  _lib.strings(names), _lib.strings([_text_of(params[n]) for n in names]),
                  _flags(extrapolate), ctypes.byref(out))
        return (out.value, out.lo, out.hi, out.typical_error_pct, bool(out.outside_measured))

    def predict_doc(self, extrapolate=False, **params):
        """Every metric at one configuration as `powprof predict --json`
        prints it (a dict: point, outside_measured_range, nearest,
        band_level, metrics), built by the library as the CLI's; refused
        and warned about as predict."""
        names = list(params)
        ptr = ctypes.c_void_p()
        _lib.call("pp_model_predict_json", self, len(names), _lib.strings(names),
                  _lib.strings([_text_of(params[n]) for n in names]), _flags(extrapolate),
                  ctypes.byref(ptr))
        return json.loads(_lib.take_text(ptr))

    def _rows(self, names, texts, n_rows, metrics, flags):
        """pp_model_estimate_rows over n_rows rows (texts: a list of the
        cells, row-major, or a ctypes array of char pointers): a numpy
        record array (n_rows x len(metrics))."""
        import numpy as np
        out = (_lib.Estimate * max(n_rows * len(metrics), 1))()
        if isinstance(texts, list):
            texts = _lib.strings(texts)
        _lib.call("pp_model_estimate_rows", self, len(metrics), _lib.strings(metrics),
                  len(names), _lib.strings(names), n_rows, texts, flags, out, stacklevel=4)
        dt = np.dtype({"names": ["value", "lo", "hi", "err", "outside", "beyond"],
                       "formats": ["f8", "f8", "f8", "f8", "i4", "i4"],
                       "offsets": [_lib.Estimate.value.offset, _lib.Estimate.lo.offset,
                                   _lib.Estimate.hi.offset,
                                   _lib.Estimate.typical_error_pct.offset,
                                   _lib.Estimate.outside_measured.offset,
                                   _lib.Estimate.beyond_measured.offset],
                       "itemsize": ctypes.sizeof(_lib.Estimate)})
        return np.frombuffer(out, dtype=dt, count=n_rows * len(metrics)).reshape(
            n_rows, len(metrics))

    def predict(self, settings=None, metrics=None, extrapolate=False, **params):
        """predict(name=value, ...): a DataFrame indexed by metric, columns
        value, lo, hi (the 90 % band) and typical_error_pct.
        predict(df): every row of df (a column per parameter; other columns,
        such as a summary's metrics, are left alone) in one library call; a DataFrame with df's index and columns (metric, value|lo|hi),
        plus (metric, typical_error_pct) and outside_measured.
        metrics: a name or a list (default: every metric).
        As `powprof predict`: a parameter outside the measured range, or
        measured at one value only, is warned about (PowprofWarning), and a
        metric predicted beyond ten times what was measured is refused
        (PowprofError) unless extrapolate (then flagged beyond_measured)."""
        import pandas as pd
        metrics = self._metric_list(metrics)
        if settings is None:
            names = list(params)
            r = self._rows(names, [_text_of(params[n]) for n in names], 1, metrics,
                           _flags(extrapolate))[0]
            return pd.DataFrame({"value": r["value"], "lo": r["lo"], "hi": r["hi"],
                                 "typical_error_pct": r["err"]},
                                index=pd.Index(metrics, name="metric")).assign(
                                    outside_measured=r["outside"].astype(bool),
                                    beyond_measured=r["beyond"].astype(bool))
        if params:
            raise TypeError("predict(df) or predict(name=value, ...), not both")
        if not isinstance(settings, pd.DataFrame):
            settings = pd.DataFrame(settings)
        cells = settings
        if all(p in settings.columns for p in self.params):  # other columns ignored: a summary
            cells = settings[self.params]
        names = [str(c) for c in cells.columns]
        texts = _cells(cells)
        r = self._rows(names, texts, len(settings), metrics, _flags(extrapolate))
        data = {}
        for j, m in enumerate(metrics):
            data[(m, "value")] = r["value"][:, j]
            data[(m, "lo")] = r["lo"][:, j]
            data[(m, "hi")] = r["hi"][:, j]
            data[(m, "typical_error_pct")] = r["err"][:, j]
        frame = pd.DataFrame(data, index=settings.index)
        frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["metric", "what"])
        frame[("outside_measured", "")] = r["outside"][:, 0].astype(bool) if metrics else False
        return frame

    def predict_long(self, settings=None, metrics=None, **params):
        """The predictions in the long format pandas, seaborn and plotting
        users expect: one row per setting and metric, columns the
        parameters, then metric, value, lo, hi (the 90 % band), error (the
        typical error, %) and outside_measured; the same numbers as
        predict(), which takes the same arguments. Merges on the parameter
        columns and filters on metric without a MultiIndex."""
        import pandas as pd
        metrics = self._metric_list(metrics)
        if settings is None:
            if not params:
                raise TypeError("predict_long(df) or predict_long(name=value, ...)")
            settings = pd.DataFrame([params])
        elif params:
            raise TypeError("predict_long(df) or predict_long(name=value, ...), not both")
        elif not isinstance(settings, pd.DataFrame):
            settings = pd.DataFrame(settings)
        wide = self.predict(settings, metrics=metrics)
        cells = settings[[c for c in settings.columns if str(c) in self.params]]
        parts = []
        for m in metrics:
            part = cells.reset_index(drop=True).copy()
            part["metric"] = m
            for what, col in (("value", "value"), ("lo", "lo"), ("hi", "hi"),
                              ("typical_error_pct", "error")):
                part[col] = wide[(m, what)].to_numpy()
            part["outside_measured"] = wide[("outside_measured", "")].to_numpy()
            parts.append(part)
        return pd.concat(parts, ignore_index=True)

    @property
    def json(self):
        """The model as `powprof model --json` prints it (model.json)."""
        ptr = ctypes.c_void_p()
        _lib.call("pp_model_json", self, ctypes.byref(ptr))
        return json.loads(_lib.take_text(ptr))

    @property
    def errors(self):
        """The honest errors, one row per metric (and group of labels of
        categorical parameters): the estimator, its value space, the mean
        absolute error in % between measured levels (a setting never
        measured) and at measured levels (nested), and their counts."""
        import pandas as pd
        rows = []
        for g in self.json.get("groups", []):
            labels = g.get("labels") or {}
            for m in g.get("metrics", []):
                between, honest = m.get("between") or {}, m.get("honest") or {}
                row = dict(labels)
                row.update({"metric": m.get("name"), "method": m.get("method"),
                            "values": m.get("values"),
                            "between_levels_pct": between.get("mape_pct"),
                            "at_levels_pct": honest.get("mape_pct"),
                            "between_n": between.get("n"), "at_levels_n": honest.get("n")})
                rows.append(row)
        frame = pd.DataFrame(rows)
        for c in ("between_levels_pct", "at_levels_pct"):
            if c in frame:
                frame[c] = pd.to_numeric(frame[c], errors="coerce")
        keys = [k for k in frame.columns if k not in ("metric", "method", "values",
                                                      "between_levels_pct", "at_levels_pct",
                                                      "between_n", "at_levels_n")]
        return frame.set_index(keys + ["metric"]) if len(frame) else frame


def _choice_row(role, choice, **extra):
    """One chosen configuration of a plan as a row: role, its settings and
    its figures (the keys of plan --json's choices), then extra."""
    row = {"role": role}
    row.update(choice or {})
    row.update(extra)
    return row


def plan_frame(plan):
    """A plan (powprof.plan's dict, or plan.json read) as a DataFrame, one
    row per configuration it names. A mission in phases: a row per phase
    (role "phase": phase, start_s, duration_s, base_mean_w, soc_start,
    soc_end, then its choice). Else: the best, the runners-up, the most
    frugal, the unmeasured setting the best was preferred to, and the
    schedule's steps (role "schedule" with t_s and soc), each with its
    settings and figures (power_w, power_lo_w, power_hi_w, planned_w,
    achieved, quality, ...); None where nothing is known."""
    import pandas as pd
    rows = []
    if "phases" in plan:
        for ph in plan["phases"]:
            rows.append(_choice_row("phase", ph.get("choice"), phase=ph.get("name"),
                                    start_s=ph.get("start_s"), duration_s=ph.get("duration_s"),
                                    base_mean_w=ph.get("base_mean_w"),
                                    soc_start=ph.get("soc_start"), soc_end=ph.get("soc_end")))
        return pd.DataFrame(rows)
    if plan.get("best"):
        rows.append(_choice_row("best", plan["best"], soc_end=plan.get("best_soc_end")))
    rows += [_choice_row("runner_up", c) for c in plan.get("runners_up") or []]
    if plan.get("most_frugal"):
        rows.append(_choice_row("most_frugal", plan["most_frugal"]))
    if plan.get("preferred_to_unmeasured"):
        rows.append(_choice_row("preferred_to_unmeasured", plan["preferred_to_unmeasured"]))
    rows += [_choice_row("schedule", c) for c in plan.get("schedule") or []]
    return pd.DataFrame(rows)
