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


# numba.cuda's own device-side names (Numba's numba/cuda/device_init.py), so that
# `from numba.cuda import grid, threadIdx, shared` succeeds as under Numba: namespaces
# (threadIdx.x, shared.array, atomic.add, cg.this_grid) and functions.
CUDA_NAMESPACES = ('threadIdx', 'blockIdx', 'blockDim', 'gridDim', 'shared', 'local',
                   'const', 'atomic', 'cg')
CUDA_FUNCTIONS = (
    'grid', 'gridsize', 'laneid', 'warpsize', 'syncthreads', 'syncthreads_count',
    'syncthreads_and', 'syncthreads_or', 'syncwarp', 'threadfence', 'threadfence_block',
    'threadfence_system', 'selp', 'popc', 'brev', 'clz', 'ffs', 'fma', 'cbrt',
    'activemask', 'lanemask_lt', 'nanosleep', 'match_any_sync', 'match_all_sync',
    'all_sync', 'any_sync', 'eq_sync', 'ballot_sync', 'shfl_sync', 'shfl_up_sync',
    'shfl_down_sync', 'shfl_xor_sync', 'shfl_sync_intrinsic', 'vote_sync_intrinsic')
# CUDA's vector types by Numba's names and their C aliases (float32x4, float4 ...)
_VECTOR_BASES = (('int8', 'char'), ('int16', 'short'), ('int32', 'int'),
                 ('int64', 'long', 'longlong'), ('uint8', 'uchar'), ('uint16', 'ushort'),
                 ('uint32', 'uint'), ('uint64', 'ulong', 'ulonglong'),
                 ('float32', 'float'), ('float64', 'double'))


def cuda_device_names():
    """{name: stub} for numba.cuda's device-side names."""
    names = {n: _namespace('numba.cuda.' + n) for n in CUDA_NAMESPACES}
    fns = list(CUDA_FUNCTIONS)
    for base in _VECTOR_BASES:
        for n in range(1, 5):
            fns += ['%sx%d' % (base[0], n)] + ['%s%d' % (a, n) for a in base[1:]]
    names.update((n, DeviceFunction('numba.cuda', n)) for n in fns)
    return names


libdevice = _namespace('numba.cuda.libdevice')
fp16 = _namespace('numba.cuda.fp16')
bf16 = _namespace('numba.cuda.bf16')
MODULES = {'libdevice': libdevice, 'fp16': fp16, 'bf16': bf16}
