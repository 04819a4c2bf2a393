# A Numba program whose kernel does not compile, for test_main.py: the error is
# kcc's, at this file's line and column.
from numba import cuda
import numpy as np


@cuda.jit
def kernel(a):
    i = cuda.grid(1)
    a[i] = a[i] + "text"


kernel[1, 4](np.zeros(4))
