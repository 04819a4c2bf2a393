"""Python processes that a ``python3 -m kcc`` program starts (subprocess, the spawn and
forkserver methods of multiprocessing) run under kcc too: ``python3 -m kcc`` puts this
folder first on their PYTHONPATH and sets KCC_NUMBA_SHIM, and Python runs this file as
each starts. It does what the sitecustomize it hides (Debian's) does, then waits: only
when the process first imports numba is kcc's shim installed (kcc/numba_shim.py), so a
child that never imports numba pays nothing for it.
"""
import importlib.abc
import importlib.util
import os
import sys


def _run_hidden_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in sys.path:
        folder = os.path.abspath(folder or os.curdir)
        path = os.path.join(folder, 'sitecustomize.py')
        if folder != here and os.path.isfile(path):
            with open(path, 'rb') as f:
                code = compile(f.read(), path, 'exec')
            exec(code, {'__name__': 'sitecustomize', '__file__': path})
            return


class _NumbaServedByKcc(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds 'numba' once: installs kcc's shim (which imports the real Numba, with this
    finder gone) and gives the shim as the module."""

    def find_spec(self, name, path=None, target=None):
        if name != 'numba':
            return None
        sys.meta_path.remove(self)
        try:
            from kcc import numba_shim
        except ImportError:   # another interpreter (a venv's) without kcc: its own numba
            return None
        self.shim = numba_shim.install()
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return self.shim

    def exec_module(self, module):
        pass


try:
    _run_hidden_sitecustomize()
finally:
    if os.environ.get('KCC_NUMBA_SHIM') == '1' and 'numba' not in sys.modules:
        sys.meta_path.insert(0, _NumbaServedByKcc())
