# Seed 000 (../shared/seeds/000_*.txt, "Python GPU computing through Numba"): the post's
# vector addition program as printed, but for N: 320,000,000 float32s three times over
# (3.8 GB) is more than a test machine has, so N is 3,200,000. Run by test_main.py with
# `python3 -m kcc`.
import numpy as np
from timeit import default_timer as timer
from numba import vectorize

@vectorize(["float32(float32, float32)"], target='cuda')
def VectorAdd(a, b):
        return a + b

def main():
    N = 3200000

    A = np.ones(N, dtype=np.float32)
    B = np.ones(N, dtype=np.float32)
    C = np.zeros(N, dtype=np.float32)

    start = timer()
    C = VectorAdd(A, B)
    vectoradd_timer = timer() - start

    start = timer()
    C_np = A+B
    np_vectoradd_timer = timer() - start

    error = np.abs(C - C_np).max()
    print("Error: ", error)

    print("VectorAdd took %f seconds" % vectoradd_timer)
    print("VectorAdd(NP)took %f seconds" % np_vectoradd_timer)

if __name__ == '__main__':
    main()
