/*
 * modules.c — the modules a kernel file imports (numba, numba.cuda, numba.types,
 * numpy) and the decorators that make functions kernels: @cuda.jit, numba.jit (a
 * device function here), @kernel, @device, @vectorize, @guvectorize and @cuda.reduce.
 * A decorator's op is the func_kind it makes (sema.h); type inference reads its arguments (infer.c).
 */
#include "builtin.h"
#include "sema.h"

const builtin builtins_modules[] = {
  {.path = "numba", .kind = BK_MODULE},
  {.path = "numba.cuda", .kind = BK_MODULE},
  {.path = "numba.types", .kind = BK_MODULE},
  {.path = "numpy", .kind = BK_MODULE},
  {.path = "numba.cuda.jit", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS, .op = FN_KERNEL},
  /* numba.jit/njit compile for the CPU in Numba; called from a kernel they are
     compiled for the GPU (Numba's target extension): here, device functions */
  {.path = "numba.jit", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS, .op = FN_DEVICE},
  {.path = "numba.njit", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS, .op = FN_DEVICE},
  {.path = "kernel", .kind = BK_DECORATOR, .op = FN_KERNEL},
  {.path = "device", .kind = BK_DECORATOR, .op = FN_DEVICE},
  {.path = "numba.vectorize", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS,
   .op = FN_VECTORIZE},
  {.path = "numba.cuda.vectorize", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS,
   .op = FN_VECTORIZE},
  {.path = "numba.cuda.reduce", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS,
   .op = FN_REDUCE},
  {.path = "numba.guvectorize", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS,
   .op = FN_GUVECTORIZE},
  {.path = "numba.cuda.guvectorize", .kind = BK_DECORATOR, .flags = BF_DECORATOR_ARGS,
   .op = FN_GUVECTORIZE},
  {NULL},
};
