// histogram.cu — the CUDA C peer of bench/kernels/histogram.k: bins[x[i] mod nbins] += 1
// atomically, with Python's modulo (a negative remainder moves up by nbins).
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
extern "C" __global__ void histogram(const int *x, long long n, int *bins,
                                     long long nbins) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long long b = x[i] % nbins;
    if (b < 0) b += nbins;
    atomicAdd(&bins[b], 1);
  }
}
