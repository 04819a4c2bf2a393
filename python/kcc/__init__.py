"""kcc for Python: Numba's CUDA kernels compiled and run by kcc.

``from kcc import cuda`` is ``numba.cuda`` for kernels and host code (docs/python.md);
``python3 -m kcc script.py [args]`` runs a Numba program unchanged, its imports of
``numba.cuda`` served by kcc. Kernels run on a CUDA GPU, or on kcc's CPU back end where
there is none (``KC_DEVICE=cpu`` asks for it).
"""



def _load_wheel_libkc():
    """Installed from a wheel (pyproject.toml, meson-python), libkc sits in
    site-packages/.kcc.mesonpy.libs without its soname's link (a wheel holds none):
    loaded here first, it satisfies the extension's need of libkc.so.0. Elsewhere (the
    build tree, `meson install`) the loader finds libkc itself."""
    import ctypes
    import glob
    import os
    libs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        '.kcc.mesonpy.libs')
    for path in sorted(glob.glob(os.path.join(libs, 'libkc.so*'))):
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


_load_wheel_libkc()
from ._kcc import KccError, KccWarning, version as __version__  # noqa: E402
from . import cuda
from .ufunc import vectorize, guvectorize

__all__ = ['cuda', 'vectorize', 'guvectorize', 'KccError', 'KccWarning']
