"""examples/python/tx2_surface.py runs as documented: it imports the TX2
traces, fits, plots when matplotlib is there, and its plan is the CLI's."""
import importlib.util
import json
import os
import subprocess
import sys
import unittest

from helpers import BIN, ROOT, TMP, cli, close


class TestExample(unittest.TestCase):
    def test_example_tx2_surface(self):
        out = os.path.join(TMP, "example")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), POWPROF_BIN=BIN)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "examples/python/tx2_surface.py"),
                            out], capture_output=True, text=True, env=env, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        with open(os.path.join(out, "plan.json")) as f:
            plan = json.load(f)
        want = cli("plan", os.path.join(out, "tx2"), "--mission-s", 1200, "--base-power-w", 60,
                   "--maximize", "size", "--json")
        self.assertIsNone(close(plan, want))
        self.assertIn("20-minute mission: size", p.stdout)
        png = os.path.join(out, "tx2-surface.png")
        if importlib.util.find_spec("matplotlib"):
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        else:
            self.assertIn("no plot: matplotlib is not installed", p.stdout)
            self.assertFalse(os.path.exists(png))
