// primes.cu — the CUDA C peer of bench/kernels/primes.k: trial division up to
// int(sqrt(float64(n))).
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
extern "C" __global__ void primes(const int *numbers, long long n, int *is_prime,
                                  long long nout) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = numbers[i];
  int result = 0;
  if (v >= 2) {
    int limit = (int)sqrt((double)v);
    result = 1;
    for (int d = 2; d <= limit; d++) {
      if (v % d == 0) { result = 0; break; }
    }
  }
  is_prime[i] = result;
}
