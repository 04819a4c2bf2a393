/*
 * modules.c — the modules a kernel file imports (numba, numba.cuda, numba.types,
 * numpy) and the decorators that make functions kernels: @cuda.jit, numba.jit (a
 * device function here), @kernel, @device, @vectorize, @guvectorize and @cuda.reduce.
 * A decorator's op is the func_kind it makes (sema.h); type inference reads its arguments (infer.c).
 */
#include "builtin.h"
#include "sema.h"

#define NS(path) {path, BK_MODULE, -1, -1, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL}
#define DECORATOR(path, kind, flags) \
  {path, BK_DECORATOR, -1, -1, 0, 0, flags, kind, NULL, 0, NULL, NULL, NULL}

const builtin builtins_modules[] = {
  NS("numba"), NS("numba.cuda"), NS("numba.types"), NS("numpy"),
  DECORATOR("numba.cuda.jit", FN_KERNEL, BF_DECORATOR_ARGS),
  /* numba.jit/njit compile for the CPU in Numba; called from a kernel they are
     compiled for the GPU (Numba's target extension): here, device functions */
  DECORATOR("numba.jit", FN_DEVICE, BF_DECORATOR_ARGS),
  DECORATOR("numba.njit", FN_DEVICE, BF_DECORATOR_ARGS),
  DECORATOR("kernel", FN_KERNEL, 0),
  DECORATOR("device", FN_DEVICE, 0),
  DECORATOR("numba.vectorize", FN_VECTORIZE, BF_DECORATOR_ARGS),
  DECORATOR("numba.cuda.vectorize", FN_VECTORIZE, BF_DECORATOR_ARGS),
  DECORATOR("numba.cuda.reduce", FN_REDUCE, BF_DECORATOR_ARGS),
  DECORATOR("numba.guvectorize", FN_GUVECTORIZE, BF_DECORATOR_ARGS),
  DECORATOR("numba.cuda.guvectorize", FN_GUVECTORIZE, BF_DECORATOR_ARGS),
  {NULL},
};
