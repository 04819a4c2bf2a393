"""Kernel arguments kcc's kernels do not take as parameters, passed as Numba passes
them (docs/python.md): record scalars by reference, tuples of arrays, nested and empty
tuples, namedtuples, Enum members; kcc.cuda's wrapper kernel takes their leaves.

Run by meson (suite 'python') as test_basic.py is (not under valgrind: each case
compiles kernels, and the work is the compiler's, checked under valgrind elsewhere).
"""

import os
import sys

import numpy as np

from kcc import cuda


def test_records_are_passed_by_reference():
    """A record scalar argument (a[i] of a structured array) is passed as Numba passes
    it: one device copy the block's threads share, written back into the record (so
    into its array) after the launch; typed kernels convert their other arguments as
    declared. References: NumPy doing the same writes."""
    rt = np.dtype([('a', np.float64), ('b', np.int32), ('h', np.float32, 2)], align=True)
    # Numba's spelling of from_dtype(rt), as Numba 0.56.4 prints it
    rt_t = ('Record(a[type=float64;offset=0],b[type=int32;offset=8],'
            'h[type=nestedarray(float32, (2,));offset=12];24;True)')

    @cuda.jit
    def set_fields(r, v, src):
        if cuda.grid(1) == 0:
            r.a = v
            r.b = 7
            r.h = src                      # an array into a nested array: copied in
        cuda.syncthreads()
        src[cuda.grid(1)] = r.b + r[2][1]  # every thread sees thread 0's writes

    arr = np.zeros(3, dtype=rt)
    src = np.array([2.5, -4.0], np.float32)
    set_fields[1, 2](arr[1], 1.5, src)
    want = np.zeros(3, dtype=rt)
    want[1] = (1.5, 7, [2.5, -4.0])
    np.testing.assert_array_equal(arr, want)
    assert src.tolist() == [3.0, 3.0], src

    @cuda.jit('void(%s, float32)' % rt_t)
    def typed(r, v):
        r.a = v / 3                        # float32, as the signature declares v
    typed[1, 1](arr[2], 1.0)
    assert arr[2]['a'] == np.float64(np.float32(1.0) / np.float32(3.0)), arr[2]
    assert arr[1]['b'] == 7 and arr[0]['b'] == 0, arr


def test_tuples_of_arrays_and_nested_tuples():
    """Tuple arguments beyond tuples of numbers, as Numba takes them: a tuple of arrays
    (NumPy ones copied in and back, device ones in place), nested tuples, an empty
    tuple, a tuple holding a record. References: NumPy."""
    @cuda.jit
    def scale_all(arrays, factors, nothing, nested):
        i = cuda.grid(1)
        a, b = arrays
        if i < a.size:
            a[i] = a[i] * factors[0] + len(nothing)
            b[i] = b[i] * factors[1][0] + factors[1][1] + nested[0][1]

    a, b = np.arange(5.0), cuda.to_device(np.ones(5, np.float32))
    scale_all[1, 8]((a, b), (2.0, (3, 0.5)), (), ((1, 4),))
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0], a
    assert b.copy_to_host().tolist() == [7.5] * 5, b.copy_to_host()
    rt = np.dtype([('n', np.int64)])
    recs = np.zeros(2, dtype=rt)

    @cuda.jit
    def count(pair):
        r, arr = pair
        if cuda.grid(1) == 0:
            r.n = arr.size
    count[1, 1]((recs[1], np.zeros(6)))
    assert recs['n'].tolist() == [0, 6], recs
    try:   # what cannot be passed is named by the argument that holds it
        scale_all[1, 1]((a, 'text'), (2.0, (3, 0.5)), (), ((1, 4),))
    except TypeError as e:
        assert str(e).startswith('argument 1 (an element of it): kcc cannot pass a str'), e
    else:
        raise AssertionError('a tuple holding a str was passed')


def test_namedtuple_arguments():
    """A namedtuple of numbers: its fields read by name and by position, each of the
    type Numba gives the value (int64, float64). Reference: the namedtuple itself."""
    from collections import namedtuple
    Point = namedtuple('Point', ('x', 'y', 'r'))

    @cuda.jit
    def read(p, ints, floats):
        ints[0] = p.x
        ints[1] = p[1]
        floats[0] = p.r * 2
    p = Point(3, -4, 2.25)
    ints, floats = np.zeros(2, np.int64), np.zeros(1)
    read[1, 1](p, ints, floats)
    assert ints.tolist() == [3, -4] and floats.tolist() == [4.5], (ints, floats)
    read[1, 1](Point(1, 2, 0.5), ints, floats)          # the same kernel again
    assert ints.tolist() == [1, 2] and floats.tolist() == [1.0], (ints, floats)


def test_enum_members():
    """Enum members as arguments (Numba's EnumMember): compared with the class's
    members and with one another; Python computes the reference."""
    import enum

    class Shape(enum.Enum):
        circle = 3
        square = 4

    out = np.zeros(2, np.int64)
    # members as arguments (Numba's EnumMember): compared with the class's members and
    # with one another; Python computes the reference
    def g(a, b, out):
        out[0] = a == Shape.square
        out[1] = a != b

    k = cuda.jit(g)
    for a, b in ((Shape.circle, Shape.circle), (Shape.square, Shape.circle)):
        k[1, 1](a, b, out)
        assert out[:2].tolist() == [a == Shape.square, a != b], (a, b, out)


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
