"""Device-only namespaces: ``numba.cuda.libdevice``, ``numba.cuda.fp16`` and
``numba.cuda.bf16`` (with its ``bfloat16`` type).

Their functions run only inside kernels, where kcc compiles them from the kernel's
text; Python needs the names only so that a script's imports succeed and a kernel's
globals can be written back into its text (source.py: ``from numba.cuda.bf16 import
hadd as hadd``). Any name is served: kcc's compiler, not this module, says which ones
exist, with the kernel's file and line.
"""

import types as _types


class DeviceFunction:
    """A name in a device-only namespace: calling it from Python is an error."""

    def __init__(self, module, name):
        self.module = module
        self.__name__ = self.__qualname__ = name
        self.__module__ = module

    def __call__(self, *args, **kwargs):
        raise TypeError('%s.%s runs only inside kernels and device functions'
                        % (self.module, self.__name__))

    def __repr__(self):
        return '<device function %s.%s>' % (self.module, self.__name__)


def _namespace(name):
    mod = _types.ModuleType(name, __doc__)

    def __getattr__(attr):
        if attr.startswith('__'):
            raise AttributeError(attr)
        fn = DeviceFunction(name, attr)
        setattr(mod, attr, fn)
        return fn

    mod.__getattr__ = __getattr__
    return mod


libdevice = _namespace('numba.cuda.libdevice')
fp16 = _namespace('numba.cuda.fp16')
bf16 = _namespace('numba.cuda.bf16')
MODULES = {'libdevice': libdevice, 'fp16': fp16, 'bf16': bf16}
