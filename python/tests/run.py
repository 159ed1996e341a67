"""The Python suite's runner (scripts/check-tests runs it in make check):
every test of python/tests/test_*.py whose id contains one of the
arguments (all without arguments); one line per failure with its
traceback, then "Python tests: N passed, M failed", and "N M" into
$POWPROF_TEST_COUNTS when set."""
import os
import sys
import unittest


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    loader = unittest.TestLoader()
    tests = [t for t in flatten(loader.discover(here, pattern="test_*.py", top_level_dir=here))
             if not argv or any(a in t.id() for a in argv)]
    passed = failed = 0
    for t in tests:
        result = unittest.TestResult()
        t.run(result)
        problems = result.failures + result.errors + [
            (c, "unexpected success") for c in result.unexpectedSuccesses]
        if problems or result.skipped:
            for case, text in problems:
                print("FAIL python %s\n%s" % (case.id(), text))
            for case, why in result.skipped:
                print("FAIL python %s (skipped: %s; a skip is a failure here)" % (case.id(), why))
            failed += 1
        else:
            passed += 1
            if os.environ.get("POWPROF_TEST_VERBOSE"):
                print("ok   python %s" % t.id())
    if "helpers" in sys.modules:  # the folders the tests made
        import shutil
        shutil.rmtree(sys.modules["helpers"].TMP, ignore_errors=True)
    print("Python tests: %d passed, %d failed" % (passed, failed))
    counts = os.environ.get("POWPROF_TEST_COUNTS")
    if counts:
        with open(counts, "w") as f:
            f.write("%d %d\n" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
