"""The package's handles at the boundary (issue 46, items 1 and 2): a
handle of the wrong kind is refused before C sees it (and by C too, when
Python's check is bypassed); close() on one thread while another is inside
a call waits for that call, and the calls after it raise "closed". The
crash cases run in a child interpreter, so that a crash is seen as one."""
import ctypes
import os
import subprocess
import sys
import textwrap
import threading
import unittest
import warnings

import powprof
from powprof import _lib
from helpers import ROOT, tx2_matrix


def child(script, *args):
    """script run by a child python3 with the package: (exit status, output)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(script)] + list(args),
                       capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


class TestHandleKinds(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")
        self.m = powprof.Model(tx2_matrix(sizes=(512, 1024, 2048)))
        self.b = powprof.Battery(base_power_w=30)

    def tearDown(self):
        self.m.close()
        self.b.close()

    def test_swapped_arguments_raise_type_error(self):
        with self.assertRaisesRegex(TypeError, "plan: model: a powprof.Model expected, not "
                                    "powprof.Battery"):
            powprof.plan(self.b, self.m, 600)
        with self.assertRaisesRegex(TypeError, "plan: battery: a powprof.Battery expected"):
            powprof.plan(self.m, self.m, 600)
        with self.assertRaisesRegex(TypeError, "a powprof.Model expected, not powprof.Battery"):
            powprof.Governor(self.b, self.m, duration_s=600)
        with self.assertRaisesRegex(TypeError, "a powprof.Battery expected, not 'x'"):
            powprof.Governor(self.m, "x", duration_s=600)

    def test_c_refuses_a_handle_of_another_kind(self):
        """Past Python's check (a C caller), the library refuses too."""
        ptr = ctypes.c_void_p()
        with self.assertRaisesRegex(powprof.PowprofError, "pp_model_json: a pp_model expected, "
                                    "not a pp_battery_params"):
            _lib.call("pp_model_json", ctypes.c_void_p(self.b._h.value), ctypes.byref(ptr))
        self.assertEqual(_lib.lib().pp_model_param_count(self.b._h), 0)


class TestClose(unittest.TestCase):
    def test_close_waits_for_the_call_in_flight(self):
        m = powprof.Model(tx2_matrix(sizes=(512, 1024, 2048)))
        h = m._enter()  # as call() does around a library call
        closer = threading.Thread(target=m.close)
        closer.start()
        closer.join(0.3)
        self.assertTrue(closer.is_alive(), "close() freed a handle in use")
        self.assertEqual(_lib.lib().pp_model_param_count(h), 2)  # still live in C
        m._leave()
        closer.join(10)
        self.assertFalse(closer.is_alive())
        with self.assertRaisesRegex(powprof.PowprofError, "closed"):
            m.predict(size=1000, exponent=30)
        m.close()  # twice: nothing

    def test_close_during_update_and_predict_never_crashes(self):
        rc, out = child("""
            import sys, threading, time, warnings
            import powprof
            warnings.simplefilter("ignore")
            res = sys.argv[1]
            def hammer(fn):
                try:
                    for k in range(1, 200000):
                        fn(k)
                except powprof.PowprofError as e:
                    print("raised", e)
            for what in ("governor", "model"):
                m, b = powprof.Model(res), powprof.Battery(base_power_w=30)
                g = powprof.Governor(m, b, duration_s=1800)
                fn = ((lambda k: g.update(float(k), soc=max(0.95 - k * 1e-5, 0.1)))
                      if what == "governor" else (lambda k: m.predict(size=1000, exponent=30)))
                t = threading.Thread(target=hammer, args=(fn,))
                t.start()
                time.sleep(0.5)
                (g if what == "governor" else m).close()
                t.join()
            print("survived")
            """, tx2_matrix(sizes=(512, 1024, 2048)))
        self.assertEqual(rc, 0, out[-2000:])
        self.assertIn("raised Governor: closed", out)
        self.assertIn("the model: closed", out)
        self.assertIn("survived", out)


class StructSizes(unittest.TestCase):
    """The structs the package lays out with ctypes have the sizes the
    library was built with; one that differs (a field added in C and not
    here) is refused at load, naming the struct and both sizes."""

    def test_every_laid_out_struct_matches_the_library(self):
        lib = _lib.lib()
        for cls in _lib._LAID_OUT:
            self.assertEqual(lib.pp_struct_size(cls._c_name_.encode()), ctypes.sizeof(cls),
                             cls._c_name_)
        self.assertEqual(lib.pp_struct_size(b"pp_no_such_struct"), 0)

    def test_a_struct_of_another_release_is_refused(self):
        class Shorter(ctypes.Structure):  # pp_governor_decision without its last field
            _c_name_ = "pp_governor_decision"
            _fields_ = _lib.GovernorDecision._fields_[:-1]

        with self.assertRaises(_lib.PowprofError) as cm:
            _lib.check_sizes(_lib.lib(), "libpowprof.so.0", (Shorter,))
        self.assertIn("pp_governor_decision", str(cm.exception))
        self.assertIn("two releases", str(cm.exception))
