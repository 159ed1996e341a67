"""The Python package against the CLI on the same folders: predictions
(one setting and a DataFrame in one call), the errors table, plans,
the governor's decisions, battery drains, results tables, the meter; and what import loads."""
import json
import os
import shutil
import subprocess
import sys
import unittest
import warnings

import numpy as np
import pandas as pd

import powprof
from helpers import BIN, ROOT, TMP, categorical, cli, close, tx2_matrix


# what predict --json gives per metric and Model.predict too (its
# beyond_measured_values, new on main, is not in the public API yet)
KEYS = ("value", "lo", "hi", "typical_error_pct")


def cli_metrics(res, **point):
    """predict --json's metrics: {metric: {value, lo, hi, typical_error_pct}}."""
    return cli("predict", res, *["%s=%s" % kv for kv in point.items()], "--json")["metrics"]



def three_phase_mission(name, extra=""):
    """A mission file under TMP: take-off (2 min, 300 W, size at most 1024),
    survey (10 min, 80 W), landing (3 min, 250 W), maximizing size; extra
    appended (a battery group). Its path."""
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write('mission = {\n  maximize = "size";\n  phases = (\n'
                '    { name = "takeoff"; duration = "2min"; base_power_w = 300.0;'
                ' max = { size = 1024; }; },\n'
                '    { name = "survey"; duration = "10min"; base_power_w = 80.0; },\n'
                '    { name = "landing"; duration = "3min"; base_power_w = 250.0; }\n'
                '  );\n};\n' + extra)
    return path

class TestPredict(unittest.TestCase):
    def test_predict_one_setting_equals_cli(self):
        res = tx2_matrix()
        with powprof.Model(res) as m:
            for point in ({"size": 1500, "exponent": 45}, {"size": 4096, "exponent": 20},
                          {"size": 300.5, "exponent": 33.3}):
                want = cli_metrics(res, **point)
                got = m.predict(**point)
                self.assertEqual(sorted(want), sorted(got.index[got["value"].notna()]))
                for metric, w in want.items():
                    g = {k: float(got.loc[metric, k]) for k in KEYS}
                    self.assertIsNone(close(g, {k: w[k] for k in KEYS}), "%s at %s" % (metric, point))

    def test_predict_doc_equals_cli_json(self):
        """predict --json and Model.predict_doc: one library builder, the
        same keys and values (the CLI prints 10 significant digits); the
        refusal beyond the measured values on both faces."""
        res = tx2_matrix()
        with powprof.Model(res) as m:
            for point in ({"size": 1500, "exponent": 45}, {"size": 300.5, "exponent": 33.3}):
                want = cli("predict", res, *["%s=%s" % kv for kv in point.items()], "--json")
                self.assertIsNone(close(m.predict_doc(**point), want, 1e-8), str(point))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.assertRaises(powprof.PowprofError, m.predict_doc, size=1e6, exponent=45)
                want = cli("predict", res, "size=1e6", "exponent=45", "--extrapolate", "--json")
                self.assertIsNone(close(m.predict_doc(extrapolate=True, size=1e6, exponent=45),
                                        want, 1e-8))

    def test_predict_dataframe_one_call_equals_cli(self):
        res = tx2_matrix()
        df = pd.DataFrame({"size": [256, 700.25, 3000, 4096], "exponent": [20, 41.5, 55, 60]},
                          index=["a", "b", "c", "d"])
        with powprof.Model(res) as m:
            got = m.predict(df)
        self.assertEqual(list(got.index), ["a", "b", "c", "d"])
        for label, row in df.iterrows():
            want = cli_metrics(res, size=repr(float(row["size"])),
                               exponent=repr(float(row["exponent"])))
            for metric, w in want.items():
                g = {k: float(got.loc[label, (metric, k)]) for k in KEYS}
                self.assertIsNone(close(g, {k: w[k] for k in KEYS}), "%s at %s" % (metric, label))

    def test_predict_rows_equal_single_calls(self):
        res = tx2_matrix()
        rng = np.random.default_rng(7)
        df = pd.DataFrame({"exponent": rng.uniform(20, 60, 50), "size": rng.uniform(256, 4096, 50)})
        with powprof.Model(res) as m:
            many = m.predict(df, metrics=["total_mean_w", "total_energy_j"])
            for i in (0, 17, 49):
                for metric in ("total_mean_w", "total_energy_j"):
                    v, lo, hi, _, _ = m.estimate(metric, size=float(df["size"][i]),
                                                 exponent=float(df["exponent"][i]))
                    self.assertEqual((v, lo, hi), tuple(many.loc[i, metric][["value", "lo", "hi"]]))
                    self.assertLessEqual(lo, v)
                    self.assertLessEqual(v, hi)

    def test_predict_the_summary_itself(self):
        """A summary is a table of settings: its measured rows predicted
        inside their band, the metric columns left alone."""
        res = tx2_matrix()
        s = powprof.Results(res).summary
        with powprof.Model(res) as m:
            p = m.predict(s, metrics="total_mean_w")["total_mean_w"]
        self.assertEqual(len(p), len(s))
        inside = ((p["lo"] <= s["total_mean_w"]) & (s["total_mean_w"] <= p["hi"])).mean()
        self.assertGreaterEqual(inside, 0.8)  # a 90 % band, nested residuals
        self.assertLess((abs(p["value"] / s["total_mean_w"] - 1)).median(), 0.05)

    def test_categorical_model_built_on_load_equals_cli(self):
        res = categorical()
        self.assertFalse(os.path.exists(os.path.join(res, "model.json")))
        with powprof.Model(res) as m:
            self.assertEqual(m.params, ["w.net", "w.n"])
            for net, n in (("tiny", 4), ("yolo", 6.5)):
                want = cli_metrics(res, **{"w.net": net, "w.n": n})
                got = m.predict(pd.DataFrame({"w.net": [net], "w.n": [n]}))
                for metric, w in want.items():
                    g = {k: float(got.loc[0, (metric, k)]) for k in KEYS}
                    self.assertIsNone(close(g, {k: w[k] for k in KEYS}),
                                      "%s at %s %s" % (metric, net, n))

    def test_errors_table_is_the_models(self):
        res = tx2_matrix()
        want = cli("model", res, "--json")
        with powprof.Model(res) as m:
            errors = m.errors
        for metric in want["groups"][0]["metrics"]:
            if "between" not in metric:
                continue
            row = errors.loc[metric["name"]]
            self.assertAlmostEqual(row["between_levels_pct"], metric["between"]["mape_pct"], 9)
            self.assertAlmostEqual(row["at_levels_pct"], metric["honest"]["mape_pct"], 9)
            self.assertEqual(row["method"], metric["method"])
        self.assertGreater(errors.loc["total_mean_w", "at_levels_pct"], 0)


class TestPlanAndBattery(unittest.TestCase):
    def plan_both(self, res, mission_s, base_w, extra_cli, mission):
        want = cli("plan", res, "--mission-s", mission_s, "--base-power-w", base_w, *extra_cli,
                   "--json")
        with powprof.Model(res) as m, powprof.Battery(base_power_w=base_w) as b:
            got = powprof.plan(m, b, dict(mission, duration_s=mission_s))
        return got, want

    def test_plan_equals_cli(self):
        res = tx2_matrix()
        got, want = self.plan_both(res, 1200, 60, ["--maximize", "size"], {"maximize": "size"})
        self.assertTrue(want["feasible"])
        self.assertIsNone(close(got, want))

    def test_plan_without_model_json_equals_cli(self):
        """Without model.json, plan --maximize modelled the power alone
        (not derived from energy and duration as `powprof model` does): its
        plan differed from the full model's by 5 % before issue 34."""
        res = tx2_matrix(model=False)
        self.assertFalse(os.path.exists(os.path.join(res, "model.json")))
        got, want = self.plan_both(res, 1200, 60, ["--maximize", "size"], {"maximize": "size"})
        self.assertIsNone(close(got, want))
        self.assertIsNone(close(cli("plan", res, "--mission-s", 1200, "--base-power-w", 60,
                                    "--json"), want))

    def test_plan_with_reserve_equals_cli(self):
        """--min-soc replaces the pack's cutoff: the library's plan did not
        (time_to_cutoff_s differed) before issue 34."""
        res = tx2_matrix()
        got, want = self.plan_both(res, 600, 150, ["--maximize", "exponent", "--min-soc", "0.3",
                                                   "--risk", "mean"],
                                   {"maximize": "exponent", "min_soc_frac": 0.3,
                                    "plan_on_mean": True})
        self.assertIsNone(close(got, want))
        self.assertEqual(got["risk"], "mean")

    def test_plan_in_phases_equals_cli(self):
        res = tx2_matrix()
        mission = three_phase_mission("phases.cfg", "battery = { capacity_ah = 3.5; };\n")
        want = cli("plan", res, "--mission", mission, "--json")
        with powprof.Model(res) as m, powprof.Battery(config=mission) as b:  # its pack flown
            got = powprof.plan(m, b, mission)
        self.assertIsNone(close(got, want))
        self.assertEqual([p["name"] for p in got["phases"]], ["takeoff", "survey", "landing"])
        self.assertLessEqual(got["phases"][0]["choice"]["size"], 1024)
        self.assertEqual(len(got["timeline"]["t_s"]), len(want["timeline"]["t_s"]))

    def test_drain_equals_cli(self):
        res = tx2_matrix()
        trace = os.path.join(res, "traces", "7.csv")
        want = cli("battery", trace, "--json")
        b = powprof.Battery(preset="drone-4s-3200")
        for got in (b.drain(trace), b.drain(powprof.Results(res).trace(7))):
            self.assertIsNone(close(got["soc_end_frac"], want["soc_end"]))
            self.assertIsNone(close(got["energy_j"], want["energy_j"]))
            self.assertIsNone(close(got["min_voltage_v"], want["min_voltage_v"]))
            self.assertIsNone(close(got["time_to_cutoff_s"], want["time_to_cutoff_s"]))
            self.assertFalse(got["brownout"])

    def test_drain_board_input_not_added(self):
        """A DataFrame's VDD_IN contains the other rails: the total is
        VDD_IN alone, as for the file."""
        t = np.arange(0, 10.01, 0.1)
        df = pd.DataFrame({"t_s": t, "VDD_IN_w": 10.0, "CPU_w": 4.0})
        alone = pd.DataFrame({"t_s": t, "total_w": 10.0})
        b = powprof.Battery()
        self.assertAlmostEqual(b.drain(df)["energy_j"], b.drain(alone)["energy_j"], 12)
        self.assertGreater(b.drain(pd.DataFrame({"t_s": t, "a_w": 10.0, "b_w": 4.0}))["energy_j"],
                           b.drain(df)["energy_j"])


class TestResults(unittest.TestCase):
    def test_summary_typed_parameters_first(self):
        res = categorical()
        s = powprof.Results(res).summary
        self.assertEqual(list(s.columns[:3]), ["w.net", "w.n", "id"])
        self.assertEqual(list(s["w.net"].cat.categories), ["yolo", "tiny"])
        self.assertEqual(s["w.n"].dtype, np.int64)
        self.assertEqual(s["id"].dtype, np.int64)
        self.assertEqual(s["short_run"].dtype, bool)
        self.assertEqual(s["total_mean_w"].dtype, np.float64)
        self.assertEqual(len(s), 6)
        self.assertEqual(powprof.Results(res).run["params"]["w.net"]["kind"], "categorical")

    def test_folder_being_written(self):
        src = tx2_matrix(sizes=(1024,), model=False)
        res = os.path.join(TMP, "being-written")
        shutil.copytree(src, res)
        os.remove(os.path.join(res, "run.json"))
        with open(os.path.join(res, "summary.csv"), "a") as f:
            f.write("5,1024,70,ok,1.2")  # a row cut short
        with open(os.path.join(res, "traces", "0.csv"), "a") as f:
            f.write("99.9,1.")
        r = powprof.Results(res)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = r.summary
            t = r.trace(0)
        self.assertEqual(len(s), 5)
        self.assertEqual(r.run, {})
        self.assertTrue(any("summary.csv: line 7 is cut short" in str(x.message) for x in w))
        self.assertEqual(len(t), len(powprof.Results(src).trace(0)))

    def test_trace_gap_rows_are_nan(self):
        res = os.path.join(TMP, "gaps")
        os.makedirs(os.path.join(res, "traces"), exist_ok=True)
        with open(os.path.join(res, "traces", "0.csv"), "w") as f:
            f.write("t_s,VDD_IN_w,CPU_w\n0.1,5,1\n0.2,,\n0.3,6,2\n")
        t = powprof.Results(res).trace(0)
        self.assertEqual(list(t.columns), ["t_s", "VDD_IN_w", "CPU_w"])
        self.assertTrue(np.isnan(t["VDD_IN_w"][1]))
        self.assertEqual(t["CPU_w"][2], 2.0)


class TestMeter(unittest.TestCase):
    def assert_energy_of_trace(self, r, trace):
        """The energy is that of the samples written (trapezoids of the
        board input, which is the total), over about the run's span."""
        t = pd.read_csv(trace)
        self.assertEqual(len(t), r["samples"])
        self.assertAlmostEqual(r["total_energy_j"], np.trapz(t["VDD_IN_w"], t["t_s"]),
                               delta=1e-4 * r["total_energy_j"])
        # sampling starts before the command and stops after it: within a period of its span
        self.assertLessEqual(t["t_s"].iloc[-1] - t["t_s"].iloc[0], r["duration_s"] + 0.1)

    def test_meter_on_the_fake_jetson(self):
        trace = os.path.join(TMP, "meter.csv")
        r = powprof.meter(["sleep", "0.3"], device="jetson", rate_hz=50, trace=trace,
                          sysfs_root=os.path.join(ROOT, "tests/fixtures/jetson-tx2-iio"))
        self.assertEqual(r["exit_status"], 0)
        self.assertEqual(r["device"], "jetson")
        self.assertFalse(r["estimated"])
        self.assertAlmostEqual(r["total_mean_w"], 5.263, 3)  # the fixture's VDD_IN: 5.263 W
        self.assertGreater(r["samples"], 5)
        self.assert_energy_of_trace(r, trace)

    def test_meter_document_is_the_clis(self):
        """powprof.meter returns the document `powprof meter --json` prints:
        the same keys, in runs and rails, and the same values where they do
        not depend on timing (issue 40)."""
        jetson = os.path.join(ROOT, "tests/fixtures/jetson-tx2-iio")
        out = subprocess.run([BIN, "meter", "-d", "jetson", "--sysfs-root", jetson, "-r", "50",
                              "--json", "--", "true"], capture_output=True, text=True, check=True)
        c = json.loads(out.stderr)  # the report goes to stderr, as perf stat's
        p = powprof.meter(["true"], device="jetson", sysfs_root=jetson, rate_hz=50)
        self.assertEqual(sorted(p), sorted(c))
        self.assertEqual([sorted(r) for r in p["rails"]], [sorted(r) for r in c["rails"]])
        for key in ("command", "device", "estimated", "exit_status", "requested_hz", "trace",
                    "signal", "error", "saturated", "failed_readings", "gaps"):
            self.assertEqual(p[key], c[key], key)
        self.assertEqual([(r["name"], r["estimated"], r["board_input"]) for r in p["rails"]],
                         [(r["name"], r["estimated"], r["board_input"]) for r in c["rails"]])
        for key in ("total_mean_w", "total_min_w", "total_max_w"):  # the fixture's constant
            self.assertAlmostEqual(p[key], c[key], 6, key)

    def test_meter_estimate_warns_as_the_cli(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = powprof.meter(["true"], device="procstat", rate_hz=10)
        text = " | ".join(str(x.message) for x in w)
        self.assertTrue(r["estimated"])
        self.assertTrue(r["short_run"])
        self.assertIn("ESTIMATED", text)
        self.assertIn("too short to measure", text)
        self.assertTrue(all(issubclass(x.category, powprof.PowprofWarning) for x in w))

    def test_meter_block_on_the_fake_jetson(self):
        import time
        trace = os.path.join(TMP, "block.csv")
        with powprof.meter(device="jetson", rate_hz=100, trace=trace,
                           sysfs_root=os.path.join(ROOT, "tests/fixtures/jetson-tx2-iio")) as m:
            self.assertIsNone(m.result)
            time.sleep(0.3)
        r = m.result
        self.assertEqual((r["exit_status"], r["device"], r["command"]), (0, "jetson", []))
        self.assertGreaterEqual(r["duration_s"], 0.3)
        self.assertAlmostEqual(r["total_mean_w"], 5.263, 3)
        self.assertGreater(r["samples"], 20)
        self.assert_energy_of_trace(r, trace)
        self.assertIs(m.stop(), r)  # stopping twice gives the same result

    def test_meter_block_estimate_warns(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with powprof.meter(device="procstat") as m:
                pass
        text = " | ".join(str(x.message) for x in w)
        self.assertTrue(m.result["estimated"] and m.result["short_run"])
        self.assertIn("ESTIMATED", text)
        self.assertIn("too short to measure", text)

    def test_meter_exit_status(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", powprof.PowprofWarning)
            r = powprof.meter(["sh", "-c", "exit 3"], device="procstat")
        self.assertEqual(r["exit_status"], 3)


def govern_both(res, readings, cli_args, **kwargs):
    """The decisions of `govern RESULTS ... --source stdin --json` fed
    readings (dicts: t_s, soc, voltage_v, current_a, phase; as JSON lines)
    and those of powprof.Governor(model, battery, **kwargs) fed the same."""
    import json
    text = "".join(json.dumps(r) + "\n" for r in readings)
    p = subprocess.run([BIN, "govern", res] + [str(a) for a in cli_args] +
                       ["--source", "stdin", "--json"], input=text, capture_output=True,
                       text=True, cwd=ROOT)
    if p.returncode not in (0, 3):  # 3: the last decision found nothing keeping the reserve
        raise AssertionError("govern: exit %d\n%s" % (p.returncode, p.stderr))
    want = [json.loads(line) for line in p.stdout.splitlines()]
    base = kwargs.pop("base_power_w", 0.0)
    got = []
    with powprof.Model(res) as m, powprof.Battery(base_power_w=base) as b, \
            powprof.Governor(m, b, **kwargs) as g:
        for r in readings:
            got.append(g.update(r["t_s"], soc=r.get("soc"), voltage=r.get("voltage_v"),
                                current=r.get("current_a"), phase=r.get("phase")))
    return got, want


class TestGovernor(unittest.TestCase):
    def check_same(self, got, want):
        """One document: the same keys and values in Python and the CLI."""
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(sorted(g), sorted(w))
            self.assertIsNone(close(g, w), "decision %d: %s" % (i, close(g, w)))

    def test_governor_one_phase_equals_cli(self):
        """Measured charge, a drop that cannot keep the reserve, voltage and
        current only (coulomb counting), and a held plan: as govern says."""
        res = tx2_matrix()
        readings = [{"t_s": 0, "soc": 1.0}, {"t_s": 60, "soc": 0.95},
                    {"t_s": 120, "soc": 0.9}, {"t_s": 180, "voltage_v": 15.0, "current_a": 10.0},
                    {"t_s": 240, "soc": 0.5}, {"t_s": 300, "soc": 0.45}]
        got, want = govern_both(res, readings, ["--mission-s", 1200, "--base-power-w", 60,
                                                "--maximize", "size"],
                                duration_s=1200, base_power_w=60, maximize="size")
        self.check_same(got, want)
        self.assertEqual([d["soc_source"] for d in got][:4],
                         ["measured", "measured", "measured", "coulomb"])
        self.assertIn(False, [d["feasible"] for d in got])
        self.assertIsNotNone([d for d in got if not d["feasible"]][0]["reserve_t_s"])

    def test_governor_in_phases_equals_cli(self):
        """A mission in phases, a phase begun early, the reserve, the
        prediction planned on, a margin, the charge from voltage and
        current only (--ignore-soc)."""
        res = tx2_matrix()
        mission = three_phase_mission("govern-phases.cfg")
        readings = [{"t_s": 0, "soc": 1.0, "voltage_v": 16.6, "current_a": 20.0},
                    {"t_s": 50, "soc": 0.97, "voltage_v": 16.1, "current_a": 21.0},
                    {"t_s": 100, "soc": 0.9, "voltage_v": 15.9, "current_a": 6.0, "phase": 1},
                    {"t_s": 400, "soc": 0.75, "voltage_v": 15.5, "current_a": 6.5},
                    {"t_s": 700, "soc": 0.5, "voltage_v": 15.0, "current_a": 17.0}]
        for cli_extra, kw in (([], {}),
                              (["--min-soc", 0.3, "--risk", "mean", "--margin", 0.1],
                               {"min_soc": 0.3, "plan_on_mean": True, "margin": 0.1}),
                              (["--ignore-soc"], {"ignore_soc": True})):
            got, want = govern_both(res, readings, ["--mission", mission] + cli_extra,
                                    mission=mission, **kw)
            self.check_same(got, want)
            self.assertEqual([d["phase"] for d in got][2], "survey")
            if kw.get("ignore_soc"):
                self.assertNotIn("measured", [d["soc_source"] for d in got])

    def test_governor_closed(self):
        res = tx2_matrix()
        with powprof.Model(res) as m, powprof.Battery(base_power_w=60) as b:
            g = powprof.Governor(m, b, duration_s=600)
            self.assertEqual(g.update(0, soc=1.0)["why"], "first")
            g.close()
            g.close()
            with self.assertRaisesRegex(powprof.PowprofError, "closed"):
                g.update(10, soc=0.99)


class TestImport(unittest.TestCase):
    def test_import_loads_nothing_heavy(self):
        code = ("import sys, powprof\n"
                "heavy = [m for m in ('pandas', 'numpy', 'logging') if m in sys.modules]\n"
                "maps = open('/proc/self/maps').read()\n"
                "libs = [l for l in ('libpowprof', 'openblas', 'lapack', 'sundials') if l in maps]\n"
                "print(heavy, libs)\n"
                "powprof.Battery().drain(sys.argv[1] + '/traces/3.csv')\n"
                "maps = open('/proc/self/maps').read()\n"
                "print([m for m in ('pandas', 'numpy') if m in sys.modules],"
                " [l for l in ('libpowprof', 'openblas', 'lapack') if l in maps])\n"
                "m = powprof.Model(sys.argv[1])\n"
                "m.estimate('total_mean_w', size=1000, exponent=30)\n"
                "maps = open('/proc/self/maps').read()\n"
                "print([m for m in ('pandas', 'numpy') if m in sys.modules],"
                " 'libpowprof' in maps)\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        out = subprocess.run([sys.executable, "-c", code, tx2_matrix()], capture_output=True,
                             text=True, env=env, check=True).stdout.splitlines()
        self.assertEqual(out, ["[] []", "[] ['libpowprof']", "[] True"])
