"""Run by test_main.py under python3 -m kcc: the Python processes a Numba program starts
(subprocess with python3 -c, as Numba's own test_print does; multiprocessing's spawn)
run their kernels under kcc too."""
import multiprocessing as mp
import subprocess
import sys

import numpy as np
from numba import cuda

CHILD = '''from numba import cuda
@cuda.jit
def hello():
    print(cuda.grid(1), 999)
hello[1, 2]()
cuda.synchronize()
print(type(cuda).__name__, cuda.__name__)
'''


def doubled(n):
    from numba import cuda

    @cuda.jit
    def twice(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = 2 * i
    a = np.zeros(n)
    twice[1, 32](a)
    return cuda.__name__, a.tolist()


if __name__ == '__main__':
    p = subprocess.run([sys.executable, '-c', CHILD], capture_output=True, text=True)
    print('child', p.returncode, sorted(p.stdout.splitlines()), p.stderr.strip()[-200:])
    with mp.get_context('spawn').Pool(2) as pool:
        print('spawned', pool.map(doubled, [2, 3]))
    p = subprocess.run([sys.executable, '-c', 'import sys; print("numba" in sys.modules)'],
                       capture_output=True, text=True)
    print('plain child imports numba:', p.stdout.strip())
