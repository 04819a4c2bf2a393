"""Numba's type objects (``numba.float32``, ``numba.types.int32[:, :]``,
``float32(float32, float32)``) for programs run without Numba installed.

kcc reads a kernel's signatures from its source text, so in Python these objects only
have to exist and combine as Numba's do: a scalar type called with argument types is a
signature, indexed with slices an array type. Their str() is Numba's spelling, so a
signature built from them reads as the string form would.
"""

import numpy as _np


class Type:
    """A Numba type, by its name."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Type) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __call__(self, *args):
        return Signature(self, args)

    def __getitem__(self, index):
        dims = index if isinstance(index, tuple) else (index,)
        if not all(isinstance(d, slice) for d in dims):
            raise TypeError('array types are written %s[:], %s[:, :] ...'
                            % (self.name, self.name))
        layout = 'C' if dims[-1].step == 1 else 'A'
        return Array(self, len(dims), layout)


class Array(Type):
    """An array type: float32[:, :]."""

    def __init__(self, dtype, ndim, layout='A'):
        super().__init__('array(%s, %dd, %s)' % (dtype, ndim, layout))
        self.dtype, self.ndim, self.layout = dtype, ndim, layout


class Signature:
    """A signature: return_type(arg types)."""

    def __init__(self, return_type, args):
        self.return_type, self.args = return_type, tuple(args)

    def __str__(self):
        return '%s(%s)' % (self.return_type, ', '.join(map(str, self.args)))

    __repr__ = __str__


_ALIASES = {
    'boolean': ['b1', 'bool_'], 'int8': ['i1', 'byte'], 'int16': ['i2'],
    'int32': ['i4'], 'int64': ['i8'], 'uint8': ['u1', 'uchar'], 'uint16': ['u2'],
    'uint32': ['u4'], 'uint64': ['u8'], 'float16': ['f2'], 'float32': ['f4'],
    'float64': ['f8', 'double'], 'complex64': ['c8'], 'complex128': ['c16'],
    'intp': [], 'uintp': [], 'void': ['none'],
}

__all__ = ['Type', 'Array', 'Signature']
for _name, _aliases in _ALIASES.items():
    globals()[_name] = Type(_name)
    __all__.append(_name)
    for _alias in _aliases:
        globals()[_alias] = globals()[_name]
        __all__.append(_alias)
float_ = float32
int_ = intp = int64 if _np.dtype(_np.intp).itemsize == 8 else int32
__all__ += ['float_', 'int_']
