// From Numba 0.56.4 (numba/cuda/tests/doc_examples/ffi/functions.cu, BSD-2-Clause):
// the foreign function of its documentation example ex_linking_cu.
// Foreign function example: multiplication of a pair of floats

extern "C" __device__ int
mul_f32_f32(
  float* return_value,
  float x,
  float y)
{
  // Compute result and store in caller-provided slot
  *return_value = x * y;

  // Signal that no Python exception occurred
  return 0;
}

