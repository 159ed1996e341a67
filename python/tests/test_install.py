"""The package installed as a user installs it (scripts/install-python, what
make install-python runs after make install): into a virtual environment,
and into a prefix's dist-packages; then imported from outside the tree,
finding the library the prefix holds."""
import os
import shutil
import subprocess
import sys
import unittest

from helpers import ROOT, TMP, tx2_matrix

SHLIB = os.environ.get("POWPROF_LIB", os.path.join(ROOT, "build", "libpowprof.so.0"))


def install(python, prefix):
    """scripts/install-python with python; a stand-in prefix holding the
    library (make install's part, which tests/test_install.c checks)."""
    os.makedirs(os.path.join(prefix, "lib"), exist_ok=True)
    shutil.copy(SHLIB, os.path.join(prefix, "lib", "libpowprof.so.0"))
    env = dict(os.environ, PYTHON=python)
    return subprocess.run([os.path.join(ROOT, "scripts/install-python"), prefix,
                           os.path.join(prefix, "stage")], cwd=ROOT, env=env,
                          capture_output=True, text=True)


def use(python, path_dirs, res):
    """What the installed package answers, run from /: where it was found,
    where its library was, and a prediction."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POWPROF_LIB")}
    if path_dirs:
        env["PYTHONPATH"] = path_dirs
    code = ("import powprof, powprof._lib as l\n"
            "m = powprof.Model(%r)\n"
            "print(powprof.__file__)\n"
            "print(l._state['lib']._name)\n"
            "print(m.estimate('total_mean_w', size=1000, exponent=30)[0])\n" % res)
    p = subprocess.run([python, "-c", code], cwd="/", env=env, capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


class TestInstall(unittest.TestCase):
    def test_install_into_a_venv(self):
        venv = os.path.join(TMP, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True,
                       capture_output=True)
        py = os.path.join(venv, "bin", "python")
        prefix = os.path.join(TMP, "venv-prefix")
        p = install(py, prefix)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("into the virtual environment", p.stdout)
        rc, out, err = use(py, None, tx2_matrix())
        self.assertEqual(rc, 0, err)
        self.assertTrue(out[0].startswith(venv), out)
        self.assertEqual(out[1], os.path.join(prefix, "lib", "libpowprof.so.0"))
        self.assertGreater(float(out[2]), 0)

    def test_install_into_a_prefix(self):
        prefix = os.path.join(TMP, "prefix")
        p = install(sys.executable, prefix)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        site = os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2], "dist-packages")
        self.assertIn("into " + site, p.stdout)
        self.assertIn("add it to PYTHONPATH", p.stdout)  # a prefix Python does not search
        rc, out, err = use(sys.executable, site, tx2_matrix())
        self.assertEqual(rc, 0, err)
        self.assertEqual(out[0], os.path.join(site, "powprof", "__init__.py"))
        self.assertEqual(out[1], os.path.join(prefix, "lib", "libpowprof.so.0"))


class TestInstallPython(unittest.TestCase):
    """Defect 6: make install-python took /usr/bin/python3 whatever the user
    ran; now the shell's python3 (an active venv's), and it says which."""

    def test_make_installs_for_the_shells_python3(self):
        p = subprocess.run(["make", "-n", "install-python", "PREFIX=/nonexistent"], cwd=ROOT,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("PYTHON=python3 ./scripts/install-python", p.stdout)

    def test_says_which_interpreter(self):
        venv = os.path.join(TMP, "venv45")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True,
                       capture_output=True)
        py = os.path.join(venv, "bin", "python3")
        p = install(py, os.path.join(TMP, "prefix45"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("into the virtual environment of %s (%s)" % (py, py), p.stdout)
        self.assertNotIn("has no pandas", p.stdout)
        p = install("/nonexistent/python3", os.path.join(TMP, "prefix45"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no interpreter /nonexistent/python3", p.stderr)
