"""What may run at once (issue 40 item 3): the library's messages are
kept per call (on the thread that logs them), so the package holds no
global lock across calls: a predict on one thread returns while another
thread meters a command, and each call gets its own warnings."""
import threading
import time
import unittest
import warnings

import powprof
from helpers import tx2_matrix


class TestThreads(unittest.TestCase):
    def test_predict_while_another_thread_meters(self):
        m = powprof.Model(tx2_matrix(sizes=(512, 1024, 2048)))
        m.predict(size=1000, exponent=30)  # the first call loads what it needs
        done = threading.Event()

        def meter():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                powprof.meter(["sleep", "1.5"], device="procstat")
            done.set()

        t = threading.Thread(target=meter)
        t.start()
        time.sleep(0.3)
        took = []
        for _ in range(5):
            t0 = time.perf_counter()
            m.predict(size=1000, exponent=30)
            took.append(time.perf_counter() - t0)
        during = not done.is_set()
        t.join()
        m.close()
        self.assertLess(max(took), 0.5, "predict waited for meter: %s s" % took)
        self.assertTrue(during, "meter ended before the predictions: nothing measured")
        self.assertLess(min(took), 0.010, "predict took %s s while meter ran" % took)

    def test_each_call_gets_its_own_warnings(self):
        """A warning of one thread's call is not another's."""
        m = powprof.Model(tx2_matrix(sizes=(512, 1024, 2048)))
        got = {}

        def run(name, **point):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                for _ in range(20):
                    m.predict(**point)
            got[name] = {str(x.message) for x in w}

        threads = [threading.Thread(target=run, args=("inside",),
                                    kwargs={"size": 1000, "exponent": 30}),
                   threading.Thread(target=run, args=("outside",),
                                    kwargs={"size": 3000, "exponent": 30})]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        m.close()
        self.assertEqual(got["inside"], set())
        self.assertEqual(len(got["outside"]), 1, got["outside"])
        self.assertIn("size = 3000 lies outside the measured range", got["outside"].pop())
