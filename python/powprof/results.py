"""A results folder (what `powprof profile`, `import` or `merge` wrote) as
pandas tables: summary.csv, the traces, run.json. A folder still being
written is read as it stands: a last line cut short is left out, with a
warning naming it, and a missing run.json reads as {}."""
import io
import json
import os
import re
import warnings

from ._lib import PowprofError, PowprofWarning

# summary.csv's columns that are counts, flags or text (docs/FORMATS.md);
# every other column after the parameters is a number.
_INTS = ("id", "iterations", "late_frames", "samples", "repeat")
_FLAGS = ("short_run",)
_TEXT = ("reason", "node")
# names from data (docs/FORMATS.md, "Names from data"), before they reach a path
_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+-]{0,126}")


def _complete_text(path):
    """The text of path up to its last complete line (a writer may be
    appending the next one); a warning names a line left out."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PowprofError("%s: %s" % (path, e.strerror), e.errno) from None
    if data and not data.endswith(b"\n"):
        line = data.count(b"\n") + 1
        warnings.warn("%s: line %d is cut short (being written?): left out" % (path, line),
                      PowprofWarning, stacklevel=4)
        data = data[:data.rfind(b"\n") + 1]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PowprofError("%s: byte %d: not UTF-8 text" % (path, e.start)) from None


def _numeric(pd, frame, col, path):
    values = pd.to_numeric(frame[col], errors="coerce")
    bad = values.isna() & frame[col].notna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise PowprofError("%s: line %d: column %s: '%s' is not a number" %
                           (path, row + 2, col, frame[col].iloc[row]))
    return values


class Results:
    """Results(path): .summary, .trace(id), .run, .params."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.isdir(self.path):
            raise PowprofError("%s: not a results folder (no such folder)" % self.path, 2)

    def __repr__(self):
        return "powprof.Results(%r)" % self.path

    @property
    def run(self):
        """run.json as a dict ({} while it is not written yet)."""
        path = os.path.join(self.path, "run.json")
        if not os.path.exists(path):
            return {}
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            raise PowprofError("%s: %s" % (path, e)) from None

    def _labels(self, name):
        params = self.run.get("params")
        if isinstance(params, dict):
            params = [dict(p, name=k) for k, p in params.items() if isinstance(p, dict)]
        for p in params if isinstance(params, list) else []:
            if isinstance(p, dict) and p.get("name") == name and p.get("kind") == "categorical":
                return [str(v) for v in p.get("values", [])]
        return None

    @property
    def params(self):
        """The parameters: the columns between id and status."""
        return list(self.summary.columns[:self._n_params])

    @property
    def summary(self):
        """summary.csv: one row per configuration, the parameters first
        (numbers, or a categorical parameter's labels as a pandas
        Categorical in the profile's order), then id, status and the
        metrics as numbers (counts as integers, short_run as bool)."""
        import pandas as pd
        path = os.path.join(self.path, "summary.csv")
        text = _complete_text(path)
        if not text.strip():
            raise PowprofError("%s: empty (no configuration written yet)" % path)
        try:
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False,
                                na_values=[""])
        except (ValueError, pd.errors.ParserError) as e:
            raise PowprofError("%s: %s" % (path, e)) from None
        cols = list(frame.columns)
        if not cols or cols[0] != "id":
            raise PowprofError("%s: line 1: the first column is '%s', id expected" %
                               (path, cols[0] if cols else ""))
        end = cols.index("status") if "status" in cols else len(cols)
        params = cols[1:end]
        for col in cols:
            if col in params:
                labels = self._labels(col)  # run.json's kind first: labels may look like numbers
                num = None if labels else pd.to_numeric(frame[col], errors="coerce")
                if num is not None and num.notna().all():
                    frame[col] = num
                else:
                    labels = labels or list(dict.fromkeys(frame[col].dropna()))
                    frame[col] = pd.Categorical(frame[col], categories=labels)
            elif col == "status":
                frame[col] = frame[col].astype("category")
            elif col in _TEXT:
                frame[col] = frame[col].astype("string")
            elif col in _FLAGS:
                frame[col] = _numeric(pd, frame, col, path).fillna(0).astype(bool)
            elif col in _INTS:
                v = _numeric(pd, frame, col, path)
                frame[col] = v.astype("Int64") if v.isna().any() else v.astype("int64")
            else:
                frame[col] = _numeric(pd, frame, col, path).astype("float64")
        self._n_params = len(params)
        return frame[params + [c for c in cols if c not in params]]

    def trace(self, config_id, repeat=None, node=None):
        """traces/<id>.csv as a DataFrame: t_s, then watts per rail; gap
        rows (readings missing) are rows of NaN. repeat r: <id>.r<r>.csv;
        node (a merged folder's): traces/<node>/<id>.csv."""
        import pandas as pd
        name = "%d.csv" % int(config_id) if repeat is None else "%d.r%d.csv" % (int(config_id),
                                                                            int(repeat))
        parts = [self.path, "traces"]
        if node is not None:
            if not _NAME.fullmatch(str(node)):
                raise PowprofError("node '%s': 1 to 127 letters, digits and _ . - +, not starting "
                                   "with . or - expected" % node)
            parts.append(str(node))
        path = os.path.join(*parts, name)
        text = _complete_text(path)
        try:
            frame = pd.read_csv(io.StringIO(text), dtype="float64")
        except (ValueError, pd.errors.ParserError) as e:
            raise PowprofError("%s: %s" % (path, e)) from None
        if not len(frame.columns) or frame.columns[0] != "t_s":
            raise PowprofError("%s: line 1: t_s expected first" % path)
        return frame
