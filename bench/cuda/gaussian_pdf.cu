// gaussian_pdf.cu — the CUDA C peer of bench/kernels/gaussian_pdf.k (float32 throughout).
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
#define SQRT_2PI 2.5066282746310002f

extern "C" __global__ void gaussian_pdf(const float *x, long long n, float mean,
                                        float sigma, float *out, long long nout) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float z = (x[i] - mean) / sigma;
    out[i] = expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  }
}
