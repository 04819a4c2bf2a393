"""``numba.cuda.random`` for kcc: the host half (create_xoroshiro128p_states) over
libkc's kc_random_states, and the device functions' names.

The device functions (xoroshiro128p_uniform_float32 and the others) are compiled by
kcc from the kernel's source, where they are imported as in Numba; the objects here
only let the import succeed, and say so when host code calls one.
"""

import numpy as np

from . import _kcc

xoroshiro128p_dtype = np.dtype([('s0', np.uint64), ('s1', np.uint64)], align=True)

__all__ = ['create_xoroshiro128p_states', 'xoroshiro128p_dtype',
           'xoroshiro128p_uniform_float32', 'xoroshiro128p_uniform_float64',
           'xoroshiro128p_normal_float32', 'xoroshiro128p_normal_float64',
           'xoroshiro128p_next', 'xoroshiro128p_jump', 'init_xoroshiro128p_state']


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """n generator states seeded as Numba's: generator i starts (subsequence_start + i)
    * 2**64 steps after the state splitmix64 makes of seed, so kernels draw what they
    draw under Numba. A device array of n rows of two uint64 (s0, s1), the bytes of
    Numba's records."""
    skip = int(subsequence_start)
    if skip < 0:
        raise ValueError('create_xoroshiro128p_states: subsequence_start must be 0 or more, '
                         'not %d' % skip)
    # made synchronously (seeded on the host, then copied), so any stream is served;
    # the first subsequence_start states are made and dropped, as Numba jumps its first
    # state that many times
    states = _kcc.random_states(int(n) + skip, int(seed) & 0xFFFFFFFFFFFFFFFF)
    return states[skip:] if skip else states


def _device_only(name):
    def fn(*args, **kwargs):
        raise TypeError('numba.cuda.random.%s runs in kernels only (kcc compiles it '
                        'there); host code cannot call it' % name)
    fn.__name__ = name
    return fn


for _name in __all__[2:]:
    globals()[_name] = _device_only(_name)
