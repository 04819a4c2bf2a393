/*
 * dtypes.c — the names that declare record dtypes at module level:
 * np.dtype([...], align=...) and Numba's from_dtype. Both are folded by constant
 * folding (BF_FOLD; infer_records.c evaluates them) into record types; in a kernel
 * they are an error, as Numba-CUDA cannot make a dtype on the device either.
 */
#include "typing.h"

const builtin builtins_dtypes[] = {
  {.path = "numba.np", .kind = BK_MODULE},
  {.path = "numba.np.numpy_support", .kind = BK_MODULE},
  {.path = "numpy.dtype", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD | BF_PURE,
   .typing = ix_record_maker, .fold = ix_record_fold_call},
  {.path = "numba.from_dtype", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD | BF_PURE,
   .typing = ix_record_maker, .fold = ix_record_fold_call},
  {.path = "numba.np.numpy_support.from_dtype", .kind = BK_FUNCTION, .max_args = -1,
   .flags = BF_FOLD | BF_PURE, .typing = ix_record_maker, .fold = ix_record_fold_call},
  {NULL},
};
