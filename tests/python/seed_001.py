# Seed 001 (../shared/seeds/001_*.txt, "Programming your GPU using Numba"): the lesson's
# code blocks as printed, one after the other, with the imports it leaves out; the
# notebook's %timeit lines call the functions once instead, and upper_limit, which the
# lesson uses without setting, is 10000 as its text says. The challenge's solution is
# decorated @cuda.jit as printed; like Numba, kcc compiles a lazy kernel only when it is
# launched, so the program runs as long as nothing launches it (the lesson times it
# without the decorator). Run by test_main.py with `python3 -m kcc`, which checks what
# it prints against a prime sieve in NumPy.
import numpy as np
import numba as nb
from numba import jit

upper_limit = 10000

def find_all_primes_cpu(upper):
    all_prime_numbers=[]
    for num in range(2, upper):
        # all prime numbers are greater than 1
        for i in range(2, num):
            if (num % i) == 0:
                break
        else:
            all_prime_numbers.append(num)
    return all_prime_numbers

cpu_primes = find_all_primes_cpu(upper_limit)
jit_primes = jit(nopython=True)(find_all_primes_cpu)(upper_limit)

from numba import cuda
@cuda.jit
def check_prime_gpu_kernel(num, result):
   # all prime numbers are greater than 1
   result[0] =  0
   for i in range(2, num):
       if (num % i) == 0:
           break
   else:
       result[0] = num

result = np.zeros((1), np.int32)
check_prime_gpu_kernel[1, 1](11, result)
print(result[0])
check_prime_gpu_kernel[1, 1](12, result)
print(result[0])

@cuda.jit
def find_all_primes_cpu_and_gpu(upper):
    all_prime_numbers=[]
    for num in range(2, upper):
        result = np.zeros((1), np.int32)
        # Calculate the number of thread blocks in the grid
        check_prime_gpu_kernel[1,1](num, result)
        if result[0]>0:
            all_prime_numbers.append(num)
    return all_prime_numbers

# the solution run as the lesson timed it: its function without the decorator
kernel_primes = find_all_primes_cpu_and_gpu.py_func(1000)

np.arange(2, 10000, dtype=np.int32)

@nb.vectorize(['int32(int32)'], target='cuda')
def check_prime_gpu(num):
   for i in range(2, num):
       if (num % i) == 0:
           return 0
   else:
       return num

gpu = check_prime_gpu(np.arange(2, upper_limit, dtype=np.int32))
print('cpu', len(cpu_primes), cpu_primes[-3:])
print('jit', jit_primes == cpu_primes)
print('kernel loop', kernel_primes == [p for p in cpu_primes if p < 1000])
print('vectorize', type(gpu).__name__, gpu.dtype, gpu[gpu > 0].tolist() == cpu_primes)
