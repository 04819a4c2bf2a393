"""kcc for Python: Numba's CUDA kernels compiled and run by kcc.

``from kcc import cuda`` is ``numba.cuda`` for kernels and host code (docs/python.md);
``python3 -m kcc script.py [args]`` runs a Numba program unchanged, its imports of
``numba.cuda`` served by kcc. Kernels run on a CUDA GPU, or on kcc's CPU back end where
there is none (``KC_DEVICE=cpu`` asks for it).
"""

from ._kcc import KccError, version as __version__
from . import cuda
from .ufunc import vectorize, guvectorize

__all__ = ['cuda', 'vectorize', 'guvectorize', 'KccError']
