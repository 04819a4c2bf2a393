// vector_add.cu — the CUDA C peer of bench/kernels/vector_add.k.
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents
// (int64, one per dimension), so one argument list launches either kernel.
extern "C" __global__ void vector_add(const float *a, long long na, const float *b,
                                      long long nb, float *out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
